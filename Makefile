# gpuref top Makefile. Every build product goes under $(BUILD).
#   make          build everything buildable here
#   make demo     the co-simulation demo on sim://
#   make test     every test suite; ends with "N passed, N failed"
#   make lint     Verilator -Wall, Icarus elaboration, Yosys synthesis of gpu_core
#   make regs     regenerate the register map outputs (make regs-check: fail if stale)
#   make deps     install the Debian packages and the pinned Python tools
#   make bench    benchmarks under bench/
SHELL := /bin/bash
BUILD ?= build
RTL_ROOT ?= rtl
JOBS ?= 2

# Python tools (register generator) live in a venv with pinned versions (requirements.txt).
VENV := $(BUILD)/venv
VENV_PY := $(VENV)/bin/python
REGTOOL := $(VENV_PY) rtl/csr/regtool/regtool.py

# ---- RTL -----------------------------------------------------------------------------------
RTL_TOP := gpu_core
RTL_INC := $(RTL_ROOT)/common
RTL_SRCS := $(RTL_ROOT)/gpu_core.v $(sort $(wildcard $(RTL_ROOT)/*/*.v))
VERILATOR ?= verilator
IVERILOG ?= iverilog
YOSYS ?= yosys

# ---- C -------------------------------------------------------------------------------------
CC := gcc
CXX := g++
CSTD := -std=c11
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CPPFLAGS_HOST := -Ihost/include -Ibridge/host -Itb/harness
DEBUG_FLAGS ?= -DGR_DEBUG

TEST_SUITES :=

.PHONY: all demo test lint regs regs-check deps bench clean
all:

include tb/harness/harness.mk
include tb/harness/board/board.mk
include tb/unit/unit.mk
include tb/unit/link_engine.mk
include tb/unit/link_phy.mk
include tb/unit/ddi_layout/ddi_layout.mk
include tb/unit/mc_aperture/mc_aperture.mk
include tb/unit/vidmm_flags/vidmm_flags.mk
include tb/unit/mc_vram_arb/mc_vram_arb.mk
include tb/unit/vidmm_gpuva/vidmm_gpuva.mk
include tb/unit/mc_mmu/mc_mmu.mk
include tb/models/dma_ref/dma_ref.mk
include tb/unit/vidmm_segment/vidmm_segment.mk
include host/host.mk
include tb/conformance/conformance.mk
include tb/system/system.mk
include tb/harness/usb/usb.mk
include tb/system/gpuva.mk
include tb/system/dma_smoke.mk
include tb/system/dma.mk
include tb/system/alloc.mk
include tb/system/kmd_submit.mk
include tb/system/vidsch.mk
include tb/system/residency.mk
include tb/system/timeline.mk
include tb/system/link_proto.mk
include bench/bench.mk
include bench/alloc/alloc.mk
include bench/dma/dma.mk

# ---- register map --------------------------------------------------------------------------
$(VENV)/.stamp: requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

regs: $(VENV)/.stamp
	$(REGTOOL)

regs-check: $(VENV)/.stamp
	$(REGTOOL) --check

# ---- lint ----------------------------------------------------------------------------------
lint:
	$(VERILATOR) --lint-only -Wall -I$(RTL_INC) --top-module $(RTL_TOP) $(RTL_ROOT)/lint.vlt $(RTL_SRCS)
	@echo "verilator: -Wall clean"
	@mkdir -p $(BUILD)/lint
	$(IVERILOG) -g2012 -Wall -I$(RTL_INC) -s $(RTL_TOP) -o $(BUILD)/lint/gpu_core.vvp $(RTL_SRCS)
	@echo "icarus: elaborated"
	$(YOSYS) -q -l $(BUILD)/lint/yosys.log -p "read_verilog -sv -I$(RTL_INC) $(RTL_SRCS); synth -top $(RTL_TOP); check -assert; tee -o $(BUILD)/lint/gpu_core.stat stat"
	@grep -E "Number of cells" $(BUILD)/lint/gpu_core.stat | tail -1 | sed 's/^ */yosys: synthesized, /'

# ---- tests ---------------------------------------------------------------------------------
# Each suite is a target test-<name> that writes TAP to $(BUILD)/test/<name>.tap and its exit
# status as a last "# exit N" line; tb/tap_summary.py sums them into the closing line.
# $(call tap_run,name,command)
define tap_run
	@mkdir -p $(BUILD)/test
	@echo "== $(1)"
	@set -o pipefail; ( $(2) ) 2>&1 | tee $(BUILD)/test/$(1).tap | grep -E "^(not ok|ok|Bail out)" ; \
	  echo "# exit $${PIPESTATUS[0]}" >> $(BUILD)/test/$(1).tap; true
endef

test: all
	@rm -rf $(BUILD)/test
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(addprefix test-,$(TEST_SUITES))
	@python3 tb/tap_summary.py $(addprefix $(BUILD)/test/,$(addsuffix .tap,$(TEST_SUITES)))

# The generated register files are fresh, and regtool catches a stale or unsupported map.
TEST_SUITES += regtool
test-regtool: $(VENV)/.stamp
	$(call tap_run,regtool,tb/unit/regtool/test_regtool.sh $(VENV_PY))

TEST_SUITES += lint
test-lint:
	$(call tap_run,lint,echo 1..1; if $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) lint; then echo "ok 1 - lint: verilator -Wall and icarus and yosys"; else echo "not ok 1 - lint"; fi)

# Users get the benchmark's packages too (a kernel source tarball); CI, which runs no benchmark,
# installs the base set only (.ci/run).
deps:
	bash scripts/install-deps.sh --bench

clean:
	rm -rf $(BUILD)
