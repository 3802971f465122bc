# synth/synth.mk: gpu_core through the open ECP5 flow, and its timing check (synth/README.md).
# Included by the top Makefile (BUILD, VENV and tap_run come from there).
#   make timing                      synth_ecp5 + nextpnr-ecp5 (LFE5U-45F, speed 8, seed 1)
#   make timing TIMING_ARGS="--speed 6 --no-synth"   another speed grade on the same netlist
#   make test-timing                 the same as a TAP suite in make test: fails below TIMING_FLOOR
# The YoWASP tools compile their WebAssembly on the first run (about two minutes of CPU) and
# cache it here, in the build tree, not in the user's home.
TIMING_DIR := $(BUILD)/timing
TIMING_ARGS ?=
export YOWASP_CACHE_DIR := $(CURDIR)/build/yowasp-cache

.PHONY: timing test-timing
timing: $(VENV)/.stamp
	VENV=$(VENV) synth/timing.sh --out $(TIMING_DIR) $(TIMING_ARGS)

# In make test: the same synthesis, place and route, failing below TIMING_FLOOR, which is the
# 100 MHz target (synth/README.md, "Status"). The result is deterministic for the pinned tools
# and seed, but any change to the RTL places it anew and moves the Fmax by several percent, and
# today's 100.15 MHz has no margin: a change that fails here needs a shorter path, not a seed.
TIMING_FLOOR ?= 100
TEST_SUITES += timing
test-timing: $(VENV)/.stamp
	$(call tap_run,timing,VENV=$(VENV) synth/timing.sh --out $(TIMING_DIR) --floor $(TIMING_FLOOR))
