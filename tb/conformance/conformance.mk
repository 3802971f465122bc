# SPDX-License-Identifier: Apache-2.0
# tb/conformance: the register conformance suite (host/conformance) run through gpuctl on sim:// and against RTL mutants.
$(eval $(call suite,conformance,$(GPUCTL),tb/conformance/run_conformance.sh $$(GPUCTL) 'sim://?seed=1' pass && tb/conformance/run_conformance.sh $$(GPUCTL) 'sim://?seed=7&stall=60&latency=20' pass))

# Each mutant (tb/conformance/mutate.sh) is a copy of rtl/ with one bug, built into its own
# harness and gpuctl; the suite must fail on it at the check the mutant names. A mutant's model
# and harness are compiled without optimization (OPT_FAST and OPT_GLOBAL reach the make file
# Verilator generates; SIM_CXXFLAGS the harness): the builds are most of the suite's time, and
# the conformance run on an unoptimized model still takes seconds.
MUTANT_DIR := $(BUILD)/mutant
MUTANTS := $(shell tb/conformance/mutate.sh list)

.PRECIOUS: $(MUTANT_DIR)/%/rtl/.stamp
$(MUTANT_DIR)/%/rtl/.stamp: $(RTL_SRCS) $(wildcard $(RTL_ROOT)/common/*.vh) tb/conformance/mutate.sh
	tb/conformance/mutate.sh make $* $(RTL_ROOT) $(@D)
	touch $@

$(MUTANT_DIR)/%/gpuctl: $(MUTANT_DIR)/%/rtl/.stamp $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) $(LIBGPUREF)
	$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) RTL_ROOT=$(MUTANT_DIR)/$*/rtl SIM_VFLAGS=-Wno-fatal SIM_DIR=$(MUTANT_DIR)/$*/sim \
	  OPT_FAST=-O0 OPT_GLOBAL=-O0 SIM_CXXFLAGS=-O0 $(MUTANT_DIR)/$*/sim/libgr_sim.a
	$(call quiet,LD,$@)$(CC) -o $@ $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) $(LIBGPUREF) $(MUTANT_DIR)/$*/sim/libgr_sim.a $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS)

$(eval $(call suite,conformance-mutants,$(foreach m,$(MUTANTS),$(MUTANT_DIR)/$(m)/gpuctl),$$(foreach m,$$(MUTANTS),tb/conformance/run_conformance.sh $$(MUTANT_DIR)/$$(m)/gpuctl 'sim://?seed=1' "fail:$$$$(tb/conformance/mutate.sh pattern $$(m))" &&) true))
