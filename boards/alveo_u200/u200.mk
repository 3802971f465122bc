# SPDX-License-Identifier: Apache-2.0
# boards/alveo_u200/u200.mk: the Alveo U200 PCIe board top (boards/alveo_u200/README.md).
# Included by the top Makefile.
#   make test-u200-vram  u200_vram against cocotbext-axi (suite u200-vram, part of make test)
#   make lint-u200    u200_top with stubs of the Vivado IP and primitive (boards/alveo_u200/sim):
#                     Verilator -Wall, Icarus -g2012; u200_vram also through Yosys, its
#                     RAM kept as a memory (part of make lint)
# The bitstream needs Vivado: vivado -mode batch -source boards/alveo_u200/build.tcl
U200_DIR := boards/alveo_u200
U200_OUT := $(BUILD)/boards/alveo_u200
U200_SRCS := $(U200_DIR)/u200_top.v boards/common/vram_ram.v $(U200_DIR)/sim/u200_pcie.v \
             $(U200_DIR)/sim/IBUFDS_GTE4.v $(RTL_SRCS) $(sort $(wildcard bridge/rtl/pcie/*.v))

.PHONY: lint-u200
lint-u200:
	$(VERILATOR) --lint-only -Wall -I$(RTL_INC) --top-module u200_top $(RTL_ROOT)/lint.vlt $(U200_SRCS)
	@mkdir -p $(U200_OUT)
	$(IVERILOG) -g2012 -I$(RTL_INC) -s u200_top -o $(U200_OUT)/u200_top.vvp $(U200_SRCS)
	$(YOSYS) -q -l $(U200_OUT)/yosys.log -p "read_verilog -sv -I$(RTL_INC) boards/common/vram_ram.v; \
	  chparam -set RamStyle \"ultra\" vram_ram; synth -top vram_ram -run begin:fine; opt -fast -full; techmap; opt -fast; abc -fast; opt -fast; \
	  check -assert; tee -o $(U200_OUT)/u200_vram.stat stat"
	@grep -E "Number of cells|mem_v2" $(U200_OUT)/u200_vram.stat | sed 's/^ */u200_vram: yosys: /'
	@echo "u200_top: verilator -Wall clean, icarus elaborated (stubs for the IP); u200_vram: yosys synthesized"
lint: lint-u200

# u200_vram under cocotb and Icarus against cocotbext-axi's AxiMaster and a byte model
# (tb/unit/u200_vram; GR_TEST_SEED=N replays a seed): about 15 s of CPU.
U200_VRAM_SEED ?= $(or $(GR_TEST_SEED),1)
$(eval $(call suite,u200-vram,$(VENV)/.stamp,$$(VENV_PY) tb/unit/u200_vram/run.py $$(BUILD)/unit/u200_vram --seed $$(U200_VRAM_SEED)))
