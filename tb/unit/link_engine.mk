# SPDX-License-Identifier: Apache-2.0
# tb/unit/link_engine.mk: the link engine's unit testbenches (bridge/rtl/link_*), each under
# Icarus and Verilator through unit_tb (tb/unit/unit.mk): link_crc32 against zlib's values,
# link_engine against a testbench host speaking bridge/PROTOCOL.md. Included by the top Makefile.
LINK_RTL_DIR := bridge/rtl
LINK_ENGINE_RTL := $(addprefix $(LINK_RTL_DIR)/,link_crc32.v link_ram.v link_rx_align.v \
    link_rx.v link_tx.v link_dispatch.v link_host_slave.v link_engine.v)
$(eval $(call unit_tb,link_crc32,$(LINK_RTL_DIR)/link_crc32.v))
$(eval $(call unit_tb,link_engine,$(LINK_ENGINE_RTL)))

# ---- what a board carries: Verilator -Wall, Icarus elaboration, Yosys synthesis -----------
# fpga_core (gpu_core + link_engine) with a 32-bit and (fpga_core-b1) an 8-bit stream, and each
# PHY on its own, as a board top instantiates them.
#   make lint-bridge                  every unit with all three tools (Yosys: minutes for fpga_core)
#   make lint-bridge-fpga_core-b1     one unit, Verilator and Icarus only
#   make synth-bridge-fpga_core       one unit through Yosys; cell counts in
#                                     $(BUILD)/lint-bridge/<unit>.stat
# Yosys keeps the engine's buffers as memories ($mem_v2, block RAM on an FPGA) instead of
# mapping them to flip-flops: synth up to memory -nomap, then generic gates.
# make test runs test-bridge-lint: Verilator and Icarus for every unit, Yosys for fpga_core and
# link_phy_ft601, there with gpu_core as a black box (BRIDGE_SYNTH_BB: suite lint synthesizes
# gpu_core itself, and doing it again inside fpga_core took most of this suite's 3.5 minutes).
BRIDGE_SYNTH_BB ?=
BRIDGE_TOPS := fpga_core fpga_core-b1 link_phy_ft601 link_phy_ft245 link_phy_uart
BRIDGE_SYNTH_TEST := fpga_core link_phy_ft601
# unit -> its module and parameter overrides (name=value)
BRIDGE_MOD = $(firstword $(subst -, ,$(1)))
BRIDGE_PARAMS_fpga_core-b1 := PhyBytes=1 MaxPayload=256 RxWindowLog2=10 ReplayLog2=11 LinkKind=2
BRIDGE_RTL := $(sort $(wildcard $(LINK_RTL_DIR)/*.v))
BRIDGE_LINT := $(BUILD)/lint-bridge
BRIDGE_SRCS = $(RTL_SRCS) $(BRIDGE_RTL)

.PHONY: lint-bridge $(addprefix lint-bridge-,$(BRIDGE_TOPS)) $(addprefix synth-bridge-,$(BRIDGE_TOPS))
$(addprefix lint-bridge-,$(BRIDGE_TOPS)): lint-bridge-%:
	$(VERILATOR) --lint-only -Wall -I$(RTL_INC) --top-module $(call BRIDGE_MOD,$*) \
	  $(addprefix -G,$(BRIDGE_PARAMS_$*)) $(RTL_ROOT)/lint.vlt $(BRIDGE_SRCS)
	@mkdir -p $(BRIDGE_LINT)
	$(IVERILOG) -g2012 -I$(RTL_INC) -s $(call BRIDGE_MOD,$*) \
	  $(addprefix -P$(call BRIDGE_MOD,$*).,$(BRIDGE_PARAMS_$*)) -o $(BRIDGE_LINT)/$*.vvp $(BRIDGE_SRCS)
	@echo "$*: verilator -Wall clean, icarus elaborated"
$(addprefix synth-bridge-,$(BRIDGE_TOPS)): synth-bridge-%:
	@mkdir -p $(BRIDGE_LINT)
	$(YOSYS) -q -l $(BRIDGE_LINT)/$*.yosys.log -p "read_verilog -sv -I$(RTL_INC) $(BRIDGE_SRCS); \
	  $(if $(BRIDGE_SYNTH_BB),blackbox $(BRIDGE_SYNTH_BB);) \
	  $(if $(BRIDGE_PARAMS_$*),chparam $(foreach p,$(BRIDGE_PARAMS_$*),-set $(subst =, ,$(p))) $(call BRIDGE_MOD,$*);) \
	  synth -top $(call BRIDGE_MOD,$*) -run begin:fine; opt -fast -full; techmap; opt -fast; abc -fast; opt -fast; \
	  check -assert; tee -o $(BRIDGE_LINT)/$*.stat stat"
	@grep -E "Number of cells" $(BRIDGE_LINT)/$*.stat | tail -1 | sed 's/^ */$*: yosys: /'
lint-bridge: $(addprefix lint-bridge-,$(BRIDGE_TOPS)) $(addprefix synth-bridge-,$(BRIDGE_TOPS))

TEST_SUITES += bridge-lint
BRIDGE_TAP_N := $(words $(BRIDGE_TOPS) $(BRIDGE_SYNTH_TEST))
test-bridge-lint:
	@mkdir -p $(BRIDGE_LINT)
	$(call tap_run,bridge-lint,echo 1..$(BRIDGE_TAP_N); n=0; \
	  for t in $(BRIDGE_TOPS); do n=$$((n + 1)); \
	    if $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) lint-bridge-$$t \
	       >$(BRIDGE_LINT)/$$t.log 2>&1; \
	    then echo "ok $$n - $$t: verilator -Wall clean and icarus elaborates"; \
	    else echo "not ok $$n - $$t: verilator or icarus (log: $(BRIDGE_LINT)/$$t.log)"; fi; done; \
	  for t in $(BRIDGE_SYNTH_TEST); do n=$$((n + 1)); \
	    if $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) synth-bridge-$$t BRIDGE_SYNTH_BB=gpu_core \
	       >$(BRIDGE_LINT)/$$t.synth.log 2>&1; \
	    then echo "ok $$n - $$t: yosys synthesizes and check -assert passes"; \
	      grep -E "Number of cells" $(BRIDGE_LINT)/$$t.stat | tail -1 | sed "s/^ */# /"; \
	    else echo "not ok $$n - $$t: yosys (log: $(BRIDGE_LINT)/$$t.synth.log)"; fi; done)

# the same testbench on an 8-bit PHY (it includes tb/unit/link_engine/tb_link_engine.sv)
UNIT_INCS_link_engine_b1 := tb/unit/link_engine
UNIT_DEPS_link_engine_b1 := tb/unit/link_engine/tb_link_engine.sv
$(eval $(call unit_tb,link_engine_b1,$(LINK_ENGINE_RTL)))
# Icarus runs the engine benches at about 3k cycles a second (minutes a seed); one seed there
# shows both simulators agree, and Verilator runs all of UNIT_SEEDS.
UNIT_ICARUS_SEEDS_link_engine := 1
UNIT_ICARUS_SEEDS_link_engine_b1 := 1
