# examples/examples.mk: the examples, built against an installed gpuref with pkg-config alone.
# Included by the top Makefile after host/install.mk.
#   make test-examples     installs into build/install-test, then builds and runs every example
EXAMPLES_PREFIX := $(abspath $(BUILD)/install-test)

examples-install:
	+@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) install PREFIX=$(EXAMPLES_PREFIX) DESTDIR= >/dev/null

TEST_SUITES += examples
test-examples: examples-install
	$(call tap_run,examples,CC=$(CC) CXX=$(CXX) examples/test_examples.sh $(EXAMPLES_PREFIX) $(BUILD)/examples)

.PHONY: examples-install test-examples
