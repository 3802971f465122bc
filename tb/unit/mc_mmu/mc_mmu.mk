# SPDX-License-Identifier: Apache-2.0
# tb/unit/mc_mmu: the GPU MMU (mc_mmu, mc_tlb, mc_walker, mc_pwc). Included by the top Makefile.
#   unit-mc_mmu           Verilator C++ test: random page tables against the C reference walker
#                         (tb/models/mmu_ref/ref_walker.c) and the TLB and page-walk cache policy
#                         models, several seeds
#   unit-mc_mmu-icarus    tb_mc_mmu.sv directed tables under Icarus (DataBytes 8 and 16)
#   unit-mc_mmu-verilator tb_mc_mmu.sv under Verilator --timing
#   unit-mc_mmu-lint      verilator -Wall per module and parameter set, Icarus elaboration,
#                         illegal parameters refused, Yosys synthesis of mc_mmu (check -assert)
#   unit-mc_mmu-gpu_core  the page-walk cache in gpu_core (gr_sim): every invalidate and change
#                         of root that mc_top turns into a TLB drop empties it too
# Replay one seed: $(BUILD)/unit/mc_mmu/verilator/test_mc_mmu --seed N --verbose
MC_MMU_DIR := $(BUILD)/unit/mc_mmu
MC_MMU_RTL := $(RTL_ROOT)/mc/mc_mmu.v $(RTL_ROOT)/mc/mc_tlb.v $(RTL_ROOT)/mc/mc_walker.v \
              $(RTL_ROOT)/mc/mc_pwc.v
MC_MMU_TB := tb/unit/mc_mmu
MMU_REF_DIR := tb/models/mmu_ref
MC_MMU_SEEDS ?= 1 2 3 4 5 6
MC_MMU_TB_SEEDS ?= 1 2 3
MC_MMU_BIN := $(MC_MMU_DIR)/verilator/test_mc_mmu
MC_MMU_CXXFLAGS := -std=c++17 $(CFLAGS) -I$(abspath sim/harness) -I$(abspath $(MC_MMU_TB)) \
                   -I$(abspath $(MMU_REF_DIR))

# The reference walker (shared with tb/models/dma_ref and vidmm_gpuva) is plain C, built as C
# with the project's warnings.
$(MC_MMU_DIR)/ref_walker.o: $(MMU_REF_DIR)/ref_walker.c $(MMU_REF_DIR)/ref_walker.h
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) -std=c11 $(CFLAGS) $(WARN) -c $< -o $@

# Verilator builds model and test together; the test's own warnings are then checked with the
# project's flags (Verilator's generated code is not held to them).
$(MC_MMU_BIN): $(MC_MMU_RTL) $(MC_MMU_TB)/test_mc_mmu.cpp $(MMU_REF_DIR)/ref_walker.h \
               $(MC_MMU_DIR)/ref_walker.o sim/harness/prng.h $(wildcard $(RTL_INC)/*.vh)
	@mkdir -p $(@D)
	$(call quiet,VERILATE,$@)$(VERILATOR) --cc --exe --build -j $(JOBS) -Wall -DGR_ASSERT -I$(RTL_INC) --top-module mc_mmu \
	  --Mdir $(@D)/obj -o $(abspath $@) -CFLAGS "$(MC_MMU_CXXFLAGS)" \
	  $(MC_MMU_RTL) $(abspath $(MC_MMU_TB)/test_mc_mmu.cpp) $(abspath $(MC_MMU_DIR)/ref_walker.o) \
	  > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }
	$(CXX) $(MC_MMU_CXXFLAGS) $(WARN) -fsyntax-only -I$(@D)/obj \
	  -isystem $(shell $(VERILATOR) --getenv VERILATOR_ROOT)/include $(MC_MMU_TB)/test_mc_mmu.cpp

$(MC_MMU_DIR)/icarus/tb8.vvp $(MC_MMU_DIR)/icarus/tb16.vvp: $(MC_MMU_DIR)/icarus/tb%.vvp: \
    $(MC_MMU_TB)/tb_mc_mmu.sv tb/unit/common/tb_kit.svh $(MC_MMU_RTL)
	@mkdir -p $(@D)
	set -o pipefail; $(IVERILOG) -g2012 -DGR_ASSERT -I$(RTL_INC) -s tb_mc_mmu -P tb_mc_mmu.DataBytes=$* -o $@ \
	  $(MC_MMU_TB)/tb_mc_mmu.sv $(MC_MMU_RTL) 2>&1 | { grep -v "sorry: constant selects" || true; }

# The testbench (not the RTL) leans on Verilog's integer widening: WIDTH is off for it alone.
$(MC_MMU_DIR)/verilator/tb: $(MC_MMU_TB)/tb_mc_mmu.sv tb/unit/common/tb_kit.svh $(MC_MMU_RTL)
	@mkdir -p $(@D)
	$(call quiet,VERILATE,$@)$(VERILATOR) --binary --timing -j $(JOBS) -Wno-WIDTH -DGR_ASSERT -I$(RTL_INC) \
	  --top-module tb_mc_mmu --Mdir $(@D)/tbobj -o $(abspath $@) \
	  $(MC_MMU_TB)/tb_mc_mmu.sv $(MC_MMU_RTL) > $(@D)/tb-build.log 2>&1 \
	  || { cat $(@D)/tb-build.log; exit 1; }

all: $(MC_MMU_BIN) $(MC_MMU_DIR)/icarus/tb8.vvp $(MC_MMU_DIR)/icarus/tb16.vvp $(MC_MMU_DIR)/verilator/tb

TEST_SUITES += unit-mc_mmu unit-mc_mmu-icarus unit-mc_mmu-verilator unit-mc_mmu-lint
test-unit-mc_mmu: $(MC_MMU_BIN)
	$(call tap_run,unit-mc_mmu,$(foreach s,$(MC_MMU_SEEDS),$< --seed $(s) &&) true)
test-unit-mc_mmu-icarus: $(MC_MMU_DIR)/icarus/tb8.vvp $(MC_MMU_DIR)/icarus/tb16.vvp
	$(call tap_run,unit-mc_mmu-icarus,$(foreach s,$(MC_MMU_TB_SEEDS),vvp -n $(MC_MMU_DIR)/icarus/tb8.vvp +seed=$(s) && vvp -n $(MC_MMU_DIR)/icarus/tb16.vvp +seed=$(s) &&) true)
test-unit-mc_mmu-verilator: $(MC_MMU_DIR)/verilator/tb
	$(call tap_run,unit-mc_mmu-verilator,$(foreach s,$(MC_MMU_TB_SEEDS),$< +seed=$(s) &&) true)
test-unit-mc_mmu-lint:
	$(call tap_run,unit-mc_mmu-lint,VERILATOR="$(VERILATOR)" IVERILOG="$(IVERILOG)" \
	  YOSYS="$(or $(YOSYS),yosys)" RTL_INC="$(RTL_INC)" OUT="$(MC_MMU_DIR)/lint" \
	  $(MC_MMU_TB)/lint_mc_mmu.sh $(MC_MMU_RTL))

.PHONY: test-unit-mc_mmu test-unit-mc_mmu-icarus test-unit-mc_mmu-verilator test-unit-mc_mmu-lint

# The page-walk cache in gpu_core (mc_top drops it with the TLB): registers, probe and DMA
# engine on the Verilated model (gr_sim), two seeds of the bus models' timing.
MC_MMU_GPU_TEST := $(MC_MMU_DIR)/gpu_core/test_mc_mmu_gpu_core
$(MC_MMU_GPU_TEST): $(MC_MMU_TB)/test_mc_mmu_gpu_core.c host/lib/gr_status.c $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CSTD) $(WARN) $(CFLAGS) $(SIM_CPPFLAGS) -MMD -MP -o $@ $(filter %.c,$^) $(SIM_LIB) $(SIM_LDLIBS)

all: $(MC_MMU_GPU_TEST)

TEST_SUITES += unit-mc_mmu-gpu_core
test-unit-mc_mmu-gpu_core: $(MC_MMU_GPU_TEST)
	$(call tap_run,unit-mc_mmu-gpu_core,$< --seed 1 && $< --seed 2)

.PHONY: test-unit-mc_mmu-gpu_core
-include $(MC_MMU_GPU_TEST).d
