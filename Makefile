# SPDX-License-Identifier: Apache-2.0
# gpuref top Makefile. Every build product goes under $(BUILD).
#   make          build everything buildable here
#   make demo     the co-simulation demo on sim:// (builds gpuctl too)
#   make gpuctl   build/bin/gpuctl and only what it needs
#   make install  libgpuref (.so, .a, gpuref.pc), headers, gpuctl, gpuref-simd under PREFIX
#                 (default /usr/local; DESTDIR honoured); make install-lib: the library alone
#   make test     every test suite; ends with "N passed, N failed, N skipped" (under CI=true
#                 a skip fails: tb/README.md)
#   make lint     Verilator -Wall, Icarus elaboration, Yosys synthesis of gpu_core
#   make regs     regenerate the register map outputs (make regs-check: fail if stale)
#   make deps     install the Debian packages and the pinned Python tools
#   make bench    benchmarks under bench/
#   make V=1      print the build commands (default: a short line per step)
#   make test SAN=address,undefined   the C/C++ suites built with those sanitizers (see SAN below)
#   make test SAN=thread              the multi-threaded suites under ThreadSanitizer
SHELL := /bin/bash
# A sanitizer build goes into its own directory (build/san-address-undefined, build/san-thread)
# unless BUILD is given, so it never mixes objects with the normal build.
SAN ?=
comma := ,
ifneq ($(SAN),)
ifeq ($(origin BUILD),undefined)
BUILD := build/san-$(subst $(comma),-,$(SAN))
endif
endif
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
CPPFLAGS_HOST := -Ihost/include -Ibridge/host -Isim/harness
# libgpuref.so is made of the objects the tests and tools link (host/install.mk), so those are
# position-independent; without semantic interposition the code is what -fPIE (gcc's default
# here) gives, calls inside a file direct and inlinable.
PIC_CFLAGS := -fPIC -fno-semantic-interposition
DEBUG_FLAGS ?= -DGR_DEBUG

# ---- sanitizers ----------------------------------------------------------------------------
# SAN=address,undefined (or thread, or any -fsanitize= list gcc takes) puts -fsanitize into the
# compiler commands themselves, so every object and every link gets it: the host library, the
# harness, the Verilated model and Verilator's run-time (harness.mk hands CXX to its sub-make),
# the tests and the tools. `make test` then builds only what its suites need and runs the suites
# that exercise C and C++ (SAN_TEST_SUITES below; the RTL unit tests, lint and the RTL mutants
# run no host code). A report fails the suite: UBSan halts, ASan and TSan exit 66. The one
# suppression (sim/harness/ubsan.supp) is third-party code: Verilator's bundled FST writer.
# Sanitized code runs several times slower: GR_TEST_TIMEOUT_SCALE (exported here, override it
# on the command line) multiplies the system suites' hang alarm.
ifneq ($(SAN),)
# UBSan reports stay recoverable so that sim/harness/ubsan.supp can suppress those in Verilator's
# waveform writer (third-party code); UBSAN_OPTIONS halt_on_error=1 still ends the run on any other.
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer
CC := $(CC) $(SAN_FLAGS)
CXX := $(CXX) $(SAN_FLAGS)
# ThreadSanitizer slows the instrumented simulation far more than ASan (every memory access of
# the Verilated model is checked): residency's paging workloads need a longer hang alarm there.
ifneq ($(findstring thread,$(SAN)),)
GR_TEST_TIMEOUT_SCALE ?= 40
endif
GR_TEST_TIMEOUT_SCALE ?= 10
export GR_TEST_TIMEOUT_SCALE
export ASAN_OPTIONS ?= exitcode=66:detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/sim/harness/ubsan.supp
export TSAN_OPTIONS ?= exitcode=66:halt_on_error=1:second_deadlock_stack=1
endif

# ---- output --------------------------------------------------------------------------------
# Quiet by default, in the Linux kernel's style: one short line per step (`  CC       host/lib/
# gr_device.c`, `  LD       build/bin/gpuctl`); `make V=1` prints the commands themselves. A build
# recipe starts with $(call quiet,TAG,WHAT), or $(Q) where the step needs no line of its own. The
# Verilator builds run through scripts/build-step.sh: a line per stage with its time, the log's
# path, progress while the model compiles, and the log's tail when it fails.
V ?= 0
export V
ifeq ($(V),1)
Q :=
quiet =
else
Q := @
quiet = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

TEST_SUITES :=
# $(call suite,NAME,PREREQUISITES,COMMAND): suite NAME, test-NAME running COMMAND (which prints
# TAP) through tap_run. A table line in a fragment: $(eval $(call suite,...)).
define suite
TEST_SUITES += $(1)
.PHONY: test-$(1)
test-$(1): $(2)
	$$(call tap_run,$(1),$(3))
endef

.PHONY: all demo test lint regs regs-check deps bench clean
all:

include sim/harness/harness.mk
include tb/unit/harness/harness.mk
include sim/board/board.mk
include tb/system/board.mk
include tb/unit/unit.mk
include tb/unit/link_engine.mk
include tb/unit/link_phy.mk
include tb/unit/pcie/pcie.mk
include boards/alveo_u200/u200.mk
include tb/unit/mc_mmu/mc_mmu.mk
include tb/models/dma_ref/dma_ref.mk
include host/host.mk
include tb/unit/host.mk
include host/install.mk
include tb/unit/pcie/pcie_driver.mk
include host/layers.mk
include examples/examples.mk
include tb/conformance/conformance.mk
include tb/system/system.mk
include sim/usb/usb.mk
include tb/system/usb.mk
include tb/system/dma.mk
include tb/system/links.mk
include tb/boards/boards.mk
include bench/bench.mk
include bench/alloc/alloc.mk
include bench/dma/dma.mk
include tb/fuzz/fuzz.mk
include synth/synth.mk
include boards/boards.mk


# ---- register map --------------------------------------------------------------------------
$(VENV)/.stamp: requirements.txt
	$(call quiet,VENV,$(VENV): the pinned Python tools of requirements.txt)python3 -m venv $(VENV)
	$(Q)$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	$(Q)touch $@

regs: $(VENV)/.stamp
	$(Q)$(REGTOOL)

regs-check: $(VENV)/.stamp
	$(Q)$(REGTOOL) --check

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
# status as a last "# exit N" line; tb/tap_summary.py sums them into the closing line (a skip is
# counted as skipped, and fails under CI=true).
# $(call tap_run,name,command)
define tap_run
	@mkdir -p $(BUILD)/test
	@echo "== $(1)"
	@t0=$$(date +%s); set -o pipefail; ( $(2) ) 2>&1 | tee $(BUILD)/test/$(1).tap | grep -E "^(not ok|ok|Bail out)" ; \
	  echo "# exit $${PIPESTATUS[0]}" >> $(BUILD)/test/$(1).tap; \
	  echo "# wall seconds $$(( $$(date +%s) - t0 ))" >> $(BUILD)/test/$(1).tap; true
endef

# Two lanes, one per core: the RTL's own suites (unit tests under Icarus and Verilator, lint, the
# PCIe shell's cocotb tests; each builds into its own directory), the ECP5 boards' place and route
# check (suite boards), gpu_core's own place and route (suite timing, about six minutes), the
# link engine's (suite link-timing) and regtool run beside the host suites (the library, the
# miniport, VidMm, VidSch, the links, the fuzzers, gpuctl). Each lane is one make, one suite at a time; everything both lanes
# share (the simulation library, libgpuref, gpuctl, the venv) is built by "all" before they
# start. The RTL lane's output is printed after the host lane's, and every suite's wall seconds
# in the summary. TEST_LANES=1 runs every suite in one lane.
TEST_LANES ?= 2
TEST_LANE_RTL = $(if $(filter 2,$(TEST_LANES)),$(filter-out unit-mc_mmu unit-mc_mmu-gpu_core,\
  $(filter unit-% lint lint-% bridge-lint pcie pcie-verilator u200-vram regtool boards timing link-timing,$(TEST_SUITES))))
TEST_LANE_HOST = $(filter-out $(TEST_LANE_RTL),$(TEST_SUITES))
test: $(if $(SAN),,all)
	@rm -rf $(BUILD)/test $(BUILD)/test-lane-rtl.log
	@mkdir -p $(BUILD)
	@rrc=0; $(if $(TEST_LANE_RTL),$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) \
	  $(addprefix test-,$(TEST_LANE_RTL)) >$(BUILD)/test-lane-rtl.log 2>&1 & rtl=$$!;) \
	  $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(addprefix test-,$(TEST_LANE_HOST)); hrc=$$?; \
	  $(if $(TEST_LANE_RTL),wait $$rtl; rrc=$$?; echo "== the RTL lane (beside the host suites)"; \
	  cat $(BUILD)/test-lane-rtl.log;) \
	  python3 tb/tap_summary.py $(addprefix $(BUILD)/test/,$(addsuffix .tap,$(TEST_SUITES))); src=$$?; \
	  exit $$(( hrc | rrc | src ))

# The generated register files are fresh, and regtool catches a stale or unsupported map.
$(eval $(call suite,regtool,$(VENV)/.stamp,tb/unit/regtool/test_regtool.sh $$(VENV_PY)))

# tap_summary.py's own counts, on fixture TAP files.
$(eval $(call suite,tap-summary,,python3 tb/unit/tap_summary/test_tap_summary.py))

# Every source file names its licence (scripts/spdx.py: which files, which comment), and the
# check fails on a file without the line.
$(eval $(call suite,spdx,,tb/unit/spdx/test_spdx.sh))

# Every relative link in the Markdown points to a file a fresh clone has (scripts/check_links.py).
$(eval $(call suite,readme-links,,tb/unit/readme_links/test_readme_links.sh))

$(eval $(call suite,lint,,echo 1..1; if $$(MAKE) --no-print-directory -f $$(firstword $$(MAKEFILE_LIST)) lint; then echo "ok 1 - lint: verilator -Wall and icarus and yosys"; else echo "not ok 1 - lint"; fi))

# The sanitizer runs under their usual names, for CI or by hand (each takes tens of minutes on two
# cores: not part of the default `make test`).
.PHONY: test-asan test-tsan
test-asan:
	$(MAKE) --no-print-directory test SAN=address,undefined
test-tsan:
	$(MAKE) --no-print-directory test SAN=thread

# Users get the benchmark's packages too (a kernel source tarball); CI, which runs no benchmark,
# installs the base set only (.ci/run).
deps:
	bash scripts/install-deps.sh --bench

clean:
	rm -rf $(BUILD)

# ---- sanitizer suites (after every TEST_SUITES +=) -----------------------------------------
# Under SAN, the suites that run C and C++ (the host library, the harness, the tools). ThreadSanitizer
# takes the ones where threads meet: two adapters (two models) in one process, VidSch's worker
# and interrupt threads beside the test thread.
ifneq ($(SAN),)
# The demo, as a suite: a sanitizer report (or any failure) makes it exit non-zero.
$(eval $(call suite,demo,$(GR_DEMO),echo 1..1; if $$(GR_DEMO) > $$(BUILD)/demo.log 2>&1; then echo "ok 1 - gr_demo"; \
	  else s=$$$$?; tail -40 $$(BUILD)/demo.log | sed 's/^/# /'; echo "not ok 1 - gr_demo exit $$$$s (log: $$(BUILD)/demo.log)"; fi))
ifneq ($(findstring thread,$(SAN)),)
SAN_TEST_SUITES ?= harness system-kmd-submit system-alloc system-vidsch system-residency system-timeline
# ThreadSanitizer slows the simulation tenfold and more: one seed of each VidSch suite (a seed
# given on the command line still wins).
$(foreach v,VIDSCH_SEEDS RESIDENCY_SEEDS TIMELINE_SEEDS,$(if $(filter file,$(origin $(v))),$(eval $(v) := 1)))
else
SAN_TEST_SUITES ?= harness harness-models ddi-layout vidmm-flags vidmm-gpuva vidmm-segment vidmm-policy models-dma_ref \
                   conformance system-% demo
endif
TEST_SUITES := $(filter $(SAN_TEST_SUITES),$(TEST_SUITES))
endif
