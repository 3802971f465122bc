# SPDX-License-Identifier: Apache-2.0
# gpuref top Makefile: the settings, the test driver, and the fragments. Every build product goes
# under $(BUILD). The targets and their variables: README.md ("Other targets"), tb/README.md.
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
VVP ?= vvp
# ---- C -------------------------------------------------------------------------------------
CC := gcc
CXX := g++
CSTD := -std=c11
WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
CPPFLAGS_HOST := -Ihost/include -Ibridge/host -Isim/harness
# libgpuref.so is made of the objects the tests and tools link, so those are position-independent;
# without semantic interposition, calls inside a file stay direct and inlinable as with -fPIE.
PIC_CFLAGS := -fPIC -fno-semantic-interposition
DEBUG_FLAGS ?= -DGR_DEBUG
# ---- sanitizers ----------------------------------------------------------------------------
# SAN=address,undefined (or thread, or any -fsanitize= list) goes into every compile and link,
# the Verilated model's too (tb/README.md, "Sanitizers and fuzzing"); a report fails the suite.
# GR_TEST_TIMEOUT_SCALE (exported; the command line wins) stretches the hang alarm.
ifneq ($(SAN),)
SAN_FLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer
CC := $(CC) $(SAN_FLAGS)
CXX := $(CXX) $(SAN_FLAGS)
# TSan slows the Verilated model far more than ASan (every access is checked).
ifneq ($(findstring thread,$(SAN)),)
GR_TEST_TIMEOUT_SCALE ?= 40
endif
GR_TEST_TIMEOUT_SCALE ?= 10
export GR_TEST_TIMEOUT_SCALE
export ASAN_OPTIONS ?= exitcode=66:detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1
export UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/sim/harness/ubsan.supp
export TSAN_OPTIONS ?= exitcode=66:halt_on_error=1:second_deadlock_stack=1
endif
# COVERAGE=1 (set by make coverage, tb/tb.mk): the C code with gcc --coverage; the simulation's C++ as is.
COVERAGE ?=
ifneq ($(COVERAGE),)
CC := $(CC) --coverage -fprofile-update=atomic
COV_LDLIBS := -lgcov
endif
# ---- output --------------------------------------------------------------------------------
# Quiet by default, as the Linux kernel: one short line per step (`  CC       host/lib/x.c`); V=1
# prints the commands. A recipe starts with $(call quiet,TAG,WHAT) or $(Q); Verilator builds run
# through scripts/build-step.sh (stages, times, the log's path, its tail on failure).
V ?= 0
export V
ifeq ($(V),1)
Q :=
quiet =
else
Q := @
quiet = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif
.PHONY: all demo test lint regs regs-check deps bench clean
all:
# mk/rules.mk first: the rule-makers, and the names of what one fragment builds and another uses.
# The fragments after it in any order.
include mk/rules.mk
include sim/sim.mk host/host.mk tb/tb.mk bench/bench.mk synth/synth.mk
# ---- register map --------------------------------------------------------------------------
$(VENV)/.stamp: requirements.txt
	$(call quiet,VENV,$(VENV): the pinned Python tools of requirements.txt)python3 -m venv $(VENV)
	$(Q)$(VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
	$(Q)touch $@
regs: $(VENV)/.stamp
	$(Q)$(REGTOOL)
regs-check: $(VENV)/.stamp
	$(Q)$(REGTOOL) --check
# ---- tests ---------------------------------------------------------------------------------
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
	@rrc=0; $(if $(TEST_LANE_RTL),$(MAKE) $(SELF) TAP_KEEP_GOING=1 $(addprefix test-,$(TEST_LANE_RTL)) >$(BUILD)/test-lane-rtl.log 2>&1 & rtl=$$!;) \
	  $(MAKE) $(SELF) TAP_KEEP_GOING=1 $(addprefix test-,$(TEST_LANE_HOST)); hrc=$$?; \
	  $(if $(TEST_LANE_RTL),wait $$rtl; rrc=$$?; echo "== the RTL lane (beside the host suites)"; \
	  cat $(BUILD)/test-lane-rtl.log;) \
	  python3 tb/tap_summary.py $(addprefix $(BUILD)/test/,$(addsuffix .tap,$(TEST_SUITES))); src=$$?; \
	  exit $$(( hrc | rrc | src ))
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
