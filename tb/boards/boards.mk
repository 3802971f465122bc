# SPDX-License-Identifier: Apache-2.0
# tb/boards/boards.mk: the exact ECP5 board tops (boards/limesdr_mini_v2, boards/ulx3s) in
# simulation and lint. Included by the top Makefile after host.mk and the system suites.
#   make test-boards-sim   suite boards-sim: gpuref-simd --board limesdr and --board ulx3s (the
#                          tops as their bitstreams are built, with the primitives' models),
#                          ID_BUILD, VRAM size, register conformance and the DDI smoke test
#                          over simd:// (tb/boards/test_boards_sim.sh; BOARDS_SIM_KINDS picks the
#                          boards, BOARDS_SIM_CONFORMANCE those that run conformance: both; on
#                          ulx3s, a simulated 3 Mbaud line, it takes about a minute)
#   make lint-ecp5         both tops: Verilator -Wall and Icarus -g2012 with the primitive models
#                          (boards/common/sim), Yosys 0.23 elaborating them against its own ECP5
#                          cells (part of make lint); BOARDS_SYNTH=1 also runs a generic
#                          `synth -top` of each (several minutes each)
BOARDS_SIM_OUT := $(BUILD)/boards-sim
BOARD_SMOKE := $(BOARDS_SIM_OUT)/test_board_smoke
$(HOST_OBJ_DIR)/tb/boards/test_board_smoke.o: tb/boards/test_board_smoke.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(CFLAGS) $(WARN) -MMD -MP -Ihost/include -c $< -o $@
$(BOARD_SMOKE): $(HOST_OBJ_DIR)/tb/boards/test_board_smoke.o $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(GPUREF_LINK)

all: $(BOARD_SMOKE)
-include $(HOST_OBJ_DIR)/tb/boards/test_board_smoke.d

# The host-side transaction log (?txlog=) and gpuctl tracediff: conformance and this smoke test
# on sim://, the FT601 and UART boards, each diffed against sim://; another VRAM strap and a
# conformance mutant (SCRATCH's reset value) caught by name (tb/system/test_tracediff.sh).
$(eval $(call suite,tracediff,$(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE) $(MUTANT_DIR)/scratch_reset/gpuctl,tb/system/test_tracediff.sh $(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE) $(MUTANT_DIR)/scratch_reset/gpuctl SCRATCH))

BOARDS_SIM_KINDS ?= limesdr ulx3s
TEST_SUITES += boards-sim
.PHONY: test-boards-sim
BOARDS_SIM_CONFORMANCE ?= limesdr ulx3s
test-boards-sim: $(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE)
	$(call tap_run,boards-sim,BOARDS_SIM_CONFORMANCE='$(BOARDS_SIM_CONFORMANCE)' tb/boards/test_boards_sim.sh $(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE) \
	  $(or $(GR_TEST_SEED),1) $(BOARDS_SIM_KINDS))

# ---- lint of the tops ----------------------------------------------------------------------
ECP5_SIM := boards/common/sim/EHXPLLL.v boards/common/sim/ODDRX1F.v
ECP5_VLT := $(RTL_ROOT)/lint.vlt boards/common/sim/boards.vlt
ECP5_CORE := $(RTL_SRCS) $(sort $(wildcard bridge/rtl/*.v))
ECP5_TOP_limesdr_top := boards/common/ecp5_clk_rst.v boards/common/vram_ram.v boards/limesdr_mini_v2/limesdr_top.v
ECP5_TOP_ulx3s_top := boards/common/ecp5_clk_rst.v boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v boards/ulx3s/ulx3s_top.v
ECP5_OUT := $(BUILD)/lint/ecp5
# Yosys reads its own ECP5 cell library (blackboxes) for EHXPLLL and ODDRX1F, as a bitstream
# build does; `hierarchy -check` then proves every instance matches a cell's ports and
# parameters, `proc` and `check -assert` the rest of the elaboration.
ECP5_YOSYS = $(YOSYS) -q -l $(ECP5_OUT)/$(1).log -p "read_verilog -lib +/ecp5/cells_bb.v; \
  read_verilog -sv -I$(RTL_INC) $(ECP5_CORE) $(ECP5_TOP_$(1)); hierarchy -check -top $(1); \
  $(if $(BOARDS_SYNTH),synth -top $(1); tee -o $(ECP5_OUT)/$(1).stat stat;,proc;) check -assert"

.PHONY: lint-ecp5
lint-ecp5:
	@mkdir -p $(ECP5_OUT)
	@$(foreach t,limesdr_top ulx3s_top,echo "lint-ecp5: $(t)" && \
	  $(VERILATOR) --lint-only -Wall -I$(RTL_INC) -Ibridge/rtl --top-module $(t) $(ECP5_VLT) $(ECP5_CORE) \
	    $(ECP5_SIM) $(ECP5_TOP_$(t)) && \
	  $(IVERILOG) -g2012 -I$(RTL_INC) -s $(t) -o $(ECP5_OUT)/$(t).vvp $(ECP5_CORE) $(ECP5_SIM) $(ECP5_TOP_$(t)) && \
	  $(call ECP5_YOSYS,$(t)) && echo "$(t): verilator -Wall clean, icarus elaborated, yosys $(if $(BOARDS_SYNTH),synthesized,elaborated) (ECP5 cells)" &&) true
lint: lint-ecp5
