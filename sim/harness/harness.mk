# SPDX-License-Identifier: Apache-2.0
# sim/harness/harness.mk: the co-simulation harness: gpu_core verilated, plus the CSR driver and
# the AXI host-memory and VRAM models, as one static library behind sim/harness/gr_sim.h.
# Included by the top Makefile (BUILD, RTL_ROOT, RTL_INC, RTL_SRCS, RTL_TOP, VERILATOR, CXX, CC,
# WARN, CFLAGS, JOBS come from there). Exports:
#   SIM_LIB       the archive: harness objects + Verilated model + Verilator run-time
#   SIM_LDLIBS    what a C program linking SIM_LIB also needs
#   SIM_CPPFLAGS  include paths for gr_sim.h and gpuref/*.h
# Works from another RTL tree and into another directory:
#   make RTL_ROOT=/tmp/mutant/rtl SIM_DIR=build/sim-mutant test-harness
SIM_DIR ?= $(BUILD)/sim
SIM_OBJ := $(SIM_DIR)/obj
SIM_LIB := $(SIM_DIR)/libgr_sim.a
# zlib for the FST writer, the C++ runtime, libm for Verilator's run-time; threads and atomics
# as Verilator itself links them (CFG_LDLIBS_THREADS in verilated.mk).
SIM_LDLIBS := -lz -lstdc++ -lm -lpthread -latomic
SIM_CPPFLAGS := -Isim/harness -Ihost/include

HARNESS_SRC := sim/harness
# Objects that do not include the Verilated model (the unit tests of the models link these,
# tb/unit/harness/harness.mk).
HARNESS_MODEL_OBJS := $(addprefix $(SIM_DIR)/harness/,axi_mem_model.o axi_test_master.o csr_driver.o host_memory.o \
                        txlog.o vram_memory.o)
HARNESS_OBJS := $(HARNESS_MODEL_OBJS) $(SIM_DIR)/harness/sim_core.o $(SIM_DIR)/harness/wave.o

# Verilator's include directory, asked once per make run and only when it is needed.
SIM_VROOT = $(eval SIM_VROOT := $$(shell $(VERILATOR) --getenv VERILATOR_ROOT))$(SIM_VROOT)
# The defines must match the model's build (see $(SIM_OBJ)/V$(RTL_TOP)_classes.mk).
SIM_VDEFS := -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0
SIM_CXXFLAGS ?= $(CFLAGS)
# PIC_CFLAGS (top Makefile) here and in the model's compile: libgpuref.so carries this library.
HARNESS_CXX = $(CXX) -std=c++17 $(SIM_CXXFLAGS) $(PIC_CFLAGS) $(WARN) -MMD -MP $(SIM_CPPFLAGS)

# SIM_VFLAGS adds Verilator options (mutant builds pass -Wno-fatal: a mutant may leave a signal unused).
SIM_VFLAGS ?=
# ID_BUILD.STAMP of the simulated gpu_core: a date as the hex digits YYMMDD (0x261126), of
# $SOURCE_DATE_EPOCH when set, else of the checkout's last commit (UTC), else 0; the same tree
# always gets the same stamp. GR_BUILD_STAMP=N (0..0xffffff, decimal or 0x hex) sets it. A new
# stamp changes the Verilator command below, which re-verilates.
GR_BUILD_STAMP ?= $(shell if [ -n "$$SOURCE_DATE_EPOCH" ]; then date -u -d "@$$SOURCE_DATE_EPOCH" +0x%y%m%d; \
                    else TZ=UTC git log -1 --format=%cd --date=format-local:0x%y%m%d 2>/dev/null | grep . || echo 0; fi)
SIM_BUILD_STAMP := $(shell echo '$(GR_BUILD_STAMP)' | grep -Eqx '0[xX][0-9a-fA-F]{1,6}|0|[1-9][0-9]{0,7}' && \
                     v=$$(( $(GR_BUILD_STAMP) )) && [ "$$v" -le 16777215 ] && echo $$v)
ifeq ($(SIM_BUILD_STAMP),)
$(error GR_BUILD_STAMP='$(GR_BUILD_STAMP)' is not a stamp (accepted: 0..0xffffff, decimal or 0x hex))
endif
SIM_VERILATE := $(VERILATOR) --cc --trace-fst -Wall $(SIM_VFLAGS) $(addprefix --CFLAGS ,$(PIC_CFLAGS)) -GBuildStamp=$(SIM_BUILD_STAMP) -I$(RTL_INC) --top-module $(RTL_TOP) \
                --Mdir $(SIM_OBJ) $(wildcard $(RTL_ROOT)/lint.vlt) $(RTL_SRCS)
# Run the model's sub-make in parallel unless we already share make's job server.
SIM_SUBMAKE_J = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))

all: $(SIM_LIB)

# Re-verilate when the command changes (an RTL file added or removed, another RTL_ROOT).
$(SIM_DIR)/verilate.cmd: _harness_force
	@mkdir -p $(@D)
	@echo '$(SIM_VERILATE)' | cmp -s - $@ || echo '$(SIM_VERILATE)' > $@

$(SIM_OBJ)/.stamp: $(SIM_DIR)/verilate.cmd $(RTL_SRCS) $(wildcard $(RTL_INC)/*.vh) \
                   $(wildcard $(RTL_ROOT)/lint.vlt) $(HARNESS_SRC)/verilated_lib.mk
	@rm -rf $(SIM_OBJ)
	@mkdir -p $(SIM_OBJ)
	@scripts/build-step.sh VERILATE '$(RTL_TOP): the RTL to C++' $(SIM_OBJ)/build.log -- $(SIM_VERILATE)
	@scripts/build-step.sh --append --progress $(SIM_OBJ) --runtime MODEL '$(RTL_TOP): the Verilated model' $(SIM_OBJ)/build.log -- \
	  $(MAKE) --no-print-directory $(SIM_SUBMAKE_J) -C $(SIM_OBJ) -f V$(RTL_TOP).mk CXX='$(CXX)' \
	  -f $(CURDIR)/$(HARNESS_SRC)/verilated_lib.mk V$(RTL_TOP)__ALL.a libverilated.a
	@touch $@

$(SIM_DIR)/harness/sim_core.o: $(SIM_OBJ)/.stamp
$(SIM_DIR)/harness/sim_core.o: HARNESS_CXX += -isystem $(SIM_VROOT)/include \
    -isystem $(SIM_VROOT)/include/vltstd -I$(SIM_OBJ) $(SIM_VDEFS) -faligned-new
# wave.cpp reads FST files with the reader in Verilator's bundled fstapi (libverilated has it).
$(SIM_DIR)/harness/wave.o: HARNESS_CXX += -isystem $(SIM_VROOT)/include
# The harness objects are rebuilt when their compiler's flags change (as the model is when the
# Verilator command does).
$(SIM_DIR)/harness.cmd: _harness_force
	@mkdir -p $(@D)
	@echo '$(HARNESS_CXX)' | cmp -s - $@ || echo '$(HARNESS_CXX)' > $@
$(SIM_DIR)/harness/%.o: $(HARNESS_SRC)/%.cpp $(SIM_DIR)/harness.cmd
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(HARNESS_CXX) -c $< -o $@

# One archive: merge the two Verilator archives and our objects with an ar MRI script.
$(SIM_LIB): $(HARNESS_OBJS) $(SIM_OBJ)/.stamp
	@rm -f $@ $@.mri
	@{ echo "create $@"; \
	   echo "addlib $(SIM_OBJ)/V$(RTL_TOP)__ALL.a"; \
	   echo "addlib $(SIM_OBJ)/libverilated.a"; \
	   for o in $(HARNESS_OBJS); do echo "addmod $$o"; done; \
	   echo "save"; echo "end"; } > $@.mri
	$(call quiet,AR,$@)$(AR) -M < $@.mri
	@rm -f $@.mri
	@ranlib $@

-include $(HARNESS_OBJS:.o=.d)

.PHONY: _harness_force
