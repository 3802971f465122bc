# SPDX-License-Identifier: Apache-2.0
# tb/unit/harness/harness.mk: the tests of the co-simulation harness (sim/harness): suite
# harness (test_harness.c, gpu_core through gr_sim.h) and suite harness-models (the AXI memory
# model's unit tests, tb/unit/harness_models, on the objects that do not need the Verilated model).
# Included by the top Makefile after sim/harness/harness.mk (SIM_DIR, SIM_LIB, SIM_LDLIBS,
# SIM_CPPFLAGS, SIM_VROOT, SIM_CXXFLAGS, HARNESS_CXX, HARNESS_MODEL_OBJS come from there).
HARNESS_TEST_SRC := tb/unit/harness
HARNESS_MODELS_SRC := tb/unit/harness_models

HARNESS_TEST := $(SIM_DIR)/test_harness
HARNESS_MODELS_TEST := $(SIM_DIR)/test_harness_models
HARNESS_TEST_ARGS ?=

$(SIM_DIR)/test_harness.o: $(HARNESS_TEST_SRC)/test_harness.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) -std=c11 $(CFLAGS) $(WARN) -MMD -MP $(SIM_CPPFLAGS) -isystem $(SIM_VROOT)/include -c $< -o $@

$(HARNESS_TEST): $(SIM_DIR)/test_harness.o $(SIM_LIB)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $< $(SIM_LIB) -lcmocka $(SIM_LDLIBS)

HARNESS_MODELS_TEST_OBJS := $(patsubst $(HARNESS_MODELS_SRC)/%.cpp,$(SIM_DIR)/harness_models/%.o,\
                              $(wildcard $(HARNESS_MODELS_SRC)/*.cpp))
$(SIM_DIR)/harness_models/%.o: $(HARNESS_MODELS_SRC)/%.cpp
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(HARNESS_CXX) -c $< -o $@

$(HARNESS_MODELS_TEST): $(HARNESS_MODELS_TEST_OBJS) $(HARNESS_MODEL_OBJS)
	$(call quiet,LD,$@)$(CXX) $(SIM_CXXFLAGS) -o $@ $^

-include $(SIM_DIR)/test_harness.d $(HARNESS_MODELS_TEST_OBJS:.o=.d)

# Files the tests write (waveforms, logs) stay here for a look after a failure.
HARNESS_TEST_OUT := $(SIM_DIR)/test-out

TEST_SUITES += harness
test-harness: $(HARNESS_TEST)
	@rm -rf $(HARNESS_TEST_OUT) && mkdir -p $(HARNESS_TEST_OUT)
	$(call tap_run,harness,CMOCKA_MESSAGE_OUTPUT=TAP $(HARNESS_TEST) --outdir $(HARNESS_TEST_OUT) $(HARNESS_TEST_ARGS))

$(eval $(call suite,harness-models,$(HARNESS_MODELS_TEST),$$(HARNESS_MODELS_TEST) $$(HARNESS_TEST_ARGS)))

.PHONY: test-harness test-harness-models
