# tb/unit/mc_vram_arb: two masters contending through mc_vram_arb, under Icarus and Verilator
# (unit_tb, tb/unit/unit.mk: suites unit-mc_vram_arb-icarus and unit-mc_vram_arb-verilator).
$(eval $(call unit_tb,mc_vram_arb,$(RTL_ROOT)/mc/mc_vram_arb.v))

# The Verilator 5.006 bug the bench works around, reduced (tb/unit/mc_vram_arb/README.md):
# Icarus passes it, Verilator 5.006 fails it. Not a suite: it tests the simulator.
VL_SELW_DIR := $(BUILD)/unit/mc_vram_arb/vl_select_write
VL_SELW_SRC := tb/unit/mc_vram_arb/vl_select_write.sv
.PHONY: vl-select-write
vl-select-write:
	@mkdir -p $(VL_SELW_DIR)
	@$(IVERILOG) -g2012 -Wall -s vl_select_write -o $(VL_SELW_DIR)/icarus.vvp $(VL_SELW_SRC)
	@echo "# Icarus:"; $(VVP) -n $(VL_SELW_DIR)/icarus.vvp | grep -v '\$$finish'
	@$(VERILATOR) --binary --timing -Wall --top-module vl_select_write --Mdir $(VL_SELW_DIR)/verilator \
	  -o Vvl_select_write $(VL_SELW_SRC) >$(VL_SELW_DIR)/verilator.log 2>&1 || { cat $(VL_SELW_DIR)/verilator.log; exit 1; }
	@echo "# $$($(VERILATOR) --version):"; $(VL_SELW_DIR)/verilator/Vvl_select_write | grep -v '\$$finish'
