# SPDX-License-Identifier: Apache-2.0
# examples/examples.mk: the examples, built against an installed gpuref with pkg-config alone.
# Included by the top Makefile after host/install.mk.
#   make test-examples     installs into build/install-test (and the library alone, make
#                          install-lib, into build/install-test-lib), then builds and runs every example
# The install runs inside the suite, so a failed one is a failed suite (its log named), not a
# stop of make test.
EXAMPLES_PREFIX := $(abspath $(BUILD)/install-test)
EXAMPLES_DIR := $(BUILD)/examples

TEST_SUITES += examples
test-examples:
	@mkdir -p $(EXAMPLES_DIR)
	@rm -rf $(EXAMPLES_PREFIX)-lib
	$(call tap_run,examples,$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) install \
	  PREFIX=$(EXAMPLES_PREFIX) DESTDIR= >$(EXAMPLES_DIR)/install.log 2>&1 \
	  || { echo "Bail out! make install PREFIX=$(EXAMPLES_PREFIX) failed: see $(EXAMPLES_DIR)/install.log"; exit 1; }; \
	  $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) install-lib \
	  PREFIX=$(EXAMPLES_PREFIX)-lib DESTDIR= >>$(EXAMPLES_DIR)/install.log 2>&1 \
	  || { echo "Bail out! make install-lib PREFIX=$(EXAMPLES_PREFIX)-lib failed: see $(EXAMPLES_DIR)/install.log"; exit 1; }; \
	  CC=$(CC) CXX=$(CXX) examples/test_examples.sh $(EXAMPLES_PREFIX) $(EXAMPLES_DIR) $(EXAMPLES_PREFIX)-lib)

.PHONY: test-examples
