# synth/synth.mk: gpu_core through the open ECP5 flow, and its timing check (synth/README.md).
# Included by the top Makefile (BUILD, VENV and tap_run come from there).
#   make timing                      synth_ecp5 + nextpnr-ecp5 (LFE5U-45F, speed 8, seed 1)
#   make timing TIMING_ARGS="--speed 6 --no-synth"   another speed grade on the same netlist
#   make test-timing                 the same as a TAP suite: fails below 100 MHz
# The YoWASP tools compile their WebAssembly on the first run (about two minutes of CPU) and
# cache it here, in the build tree, not in the user's home.
TIMING_DIR := $(BUILD)/timing
TIMING_ARGS ?=
export YOWASP_CACHE_DIR := $(CURDIR)/build/yowasp-cache

.PHONY: timing test-timing
timing: $(VENV)/.stamp
	VENV=$(VENV) synth/timing.sh --out $(TIMING_DIR) $(TIMING_ARGS)

# Not yet in make test: gpu_core does not meet 100 MHz (synth/README.md, "Status"); the suite
# joins TEST_SUITES once it does. make test-timing runs it by hand.
test-timing: $(VENV)/.stamp
	$(call tap_run,timing,VENV=$(VENV) synth/timing.sh --out $(TIMING_DIR))
