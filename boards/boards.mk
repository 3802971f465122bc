# SPDX-License-Identifier: Apache-2.0
# boards/boards.mk: the ECP5 boards' bitstreams through the open flow, and their CI check
# (boards/README.md). Included by the top Makefile (BUILD, VENV and tap_run come from there).
#   make boards                  every ECP5 board: build/boards/<board>/<board>.bit
#   make board-limesdr_mini_v2   one board (also board-ulx3s)
#   make boards BOARD_ARGS="--seed 2"   options of boards/common/build.sh
#   make boards BOARD_ARGS=--allow-timing-fail  exit 0 although a clock misses its constraint
#   make test-boards             suite boards: each top with a stand-in core, the .lpf against
#                                its ports, place, route and timing of the board's own logic
# A full board build takes tens of minutes on two cores (boards/README.md has the figures);
# `make boards` says which board missed which clock and exits non-zero (3 from build.sh) when
# one does. The boards' core clocks (35 and 30 MHz) are what the link engine meets today;
# gpu_core alone meets its 100 MHz target (synth/README.md).
ECP5_BOARDS := limesdr_mini_v2 ulx3s
BOARD_ARGS ?=

.PHONY: boards $(addprefix board-,$(ECP5_BOARDS)) test-boards
boards: $(VENV)/.stamp
	@rc=0; failed=; for b in $(ECP5_BOARDS); do \
	  VENV=$(VENV) boards/common/build.sh $$b $(BOARD_ARGS) || { s=$$?; rc=1; failed="$$failed $$b (exit $$s)"; }; \
	done; \
	if [ $$rc = 0 ]; then echo "boards: $(ECP5_BOARDS): built, every clock met"; \
	else echo "boards: FAILED:$$failed; exit 3 is a clock below its constraint (bitstream written, not trusted), 1 a tool failure"; fi; \
	exit $$rc

$(addprefix board-,$(ECP5_BOARDS)): board-%: $(VENV)/.stamp
	VENV=$(VENV) boards/common/build.sh $* $(BOARD_ARGS)

# gpuctl's board table and date format (host/tools/gpuctl_build.h) against boards/board_ids.def.
BOARD_IDS_TEST := $(BUILD)/boards/test_board_ids
$(BOARD_IDS_TEST): boards/common/test_board_ids.c host/tools/gpuctl_build.h boards/board_ids.def
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CSTD) $(WARN) $(CFLAGS) -o $@ $<
all: $(BOARD_IDS_TEST)

# Suite boards: the id table and its decode; the hardware check script on the simulation (its
# steps, on sim://); per ECP5 board, build.sh --ci (3 tests each; a missing top fails).
$(eval $(call suite,boards,$(VENV)/.stamp $(BOARD_IDS_TEST) $(GPUCTL) $(BOARD_SMOKE),rc=0; $$(BOARD_IDS_TEST) boards || rc=1; \
	  GPUCTL=$$(GPUCTL) BOARD_SMOKE=$$(BOARD_SMOKE) boards/common/hw_check.sh sim sim:// || rc=1; \
	  for b in $$(ECP5_BOARDS); do VENV=$$(VENV) boards/common/build.sh $$$$b --ci || rc=1; done; exit $$$$rc))
