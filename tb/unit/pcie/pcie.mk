# SPDX-License-Identifier: Apache-2.0
# tb/unit/pcie/pcie.mk: the PCIe shell (bridge/rtl/pcie). Included by the top Makefile.
#   make lint-pcie            pcie_shell: Verilator -Wall, Icarus -g2012, Yosys (also part of make lint)
#   make test-pcie            pcie_shell + gpu_core under cocotb and Icarus against cocotbext-pcie's
#                             UltraScale+ hard IP model (tb/unit/pcie/run.py; GR_TEST_SEED=N or
#                             PCIE_SEED=N replays a seed), and the shell's lint without Yosys
#   make test-pcie-verilator  the same cocotb test under Verilator (suite pcie-verilator)
#   make test-unit-pcie_req-icarus / -verilator   the shell's blocks alone (tb/unit/unit.mk's table)
PCIE_RTL_DIR := bridge/rtl/pcie
PCIE_RTL := $(sort $(wildcard $(PCIE_RTL_DIR)/*.v))
PCIE_OUT := $(BUILD)/unit/pcie
PCIE_SEED ?= $(or $(GR_TEST_SEED),1)

.PHONY: lint-pcie lint-pcie-fast
lint-pcie-fast:
	$(VERILATOR) --lint-only -Wall -I$(RTL_INC) --top-module pcie_shell $(RTL_ROOT)/lint.vlt $(PCIE_RTL)
	@mkdir -p $(PCIE_OUT)
	$(IVERILOG) -g2012 -I$(RTL_INC) -s pcie_shell -o $(PCIE_OUT)/pcie_shell.vvp $(PCIE_RTL)
	@echo "pcie_shell: verilator -Wall clean, icarus elaborated"
lint-pcie: lint-pcie-fast
	$(YOSYS) -q -l $(PCIE_OUT)/yosys.log -p "read_verilog -sv -I$(RTL_INC) $(PCIE_RTL); \
	  synth -top pcie_shell -run begin:fine; opt -fast -full; techmap; opt -fast; abc -fast; opt -fast; \
	  check -assert; tee -o $(PCIE_OUT)/pcie_shell.stat stat"
	@grep -E "Number of cells" $(PCIE_OUT)/pcie_shell.stat | tail -1 | sed 's/^ */pcie_shell: yosys: /'
lint: lint-pcie

TEST_SUITES += pcie
test-pcie: $(VENV)/.stamp
	@mkdir -p $(PCIE_OUT)
	$(call tap_run,pcie,set -o pipefail; \
	  if $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) lint-pcie-fast >$(PCIE_OUT)/lint.log 2>&1; \
	  then lint="ok"; else lint="not ok"; fi; \
	  $(VENV_PY) tb/unit/pcie/run.py $(PCIE_OUT)/cocotb --seed $(PCIE_SEED) --extra "$$lint" \
	    "pcie_shell: verilator -Wall clean and icarus elaborates (log: $(PCIE_OUT)/lint.log)")

# The same cocotb test under Verilator (tb_pcie_shell inside the port-less top run.py writes for
# it): the whole test, about 55 s of CPU to build and 6 s to run.
TEST_SUITES += pcie-verilator
test-pcie-verilator: $(VENV)/.stamp
	@mkdir -p $(PCIE_OUT)
	$(call tap_run,pcie-verilator,$(VENV_PY) tb/unit/pcie/run.py $(PCIE_OUT)/verilator --seed $(PCIE_SEED) --sim verilator)
