# SPDX-License-Identifier: Apache-2.0
# tb/system/board.mk: suite board, the board-simulation library (sim/board, gr_board.h) driven
# through its C API by test_board.c. Included by the top Makefile after sim/board/board.mk
# (BOARD_DIR, BOARD_LIB, BOARD_LDLIBS, BOARD_CPPFLAGS, SIM_LIB come from there).
BOARD_TEST := $(BOARD_DIR)/test_board
$(BOARD_DIR)/test_board.o: tb/system/test_board.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) -std=c11 $(CFLAGS) $(WARN) -MMD -MP $(BOARD_CPPFLAGS) -c $< -o $@
$(BOARD_TEST): $(BOARD_DIR)/test_board.o $(BOARD_LIB) $(SIM_LIB)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $< $(BOARD_LIB) -lcmocka $(BOARD_LDLIBS)

all: $(BOARD_TEST)

TEST_SUITES += board
BOARD_TEST_OUT := $(BOARD_DIR)/test-out
test-board: $(BOARD_TEST)
	@rm -rf $(BOARD_TEST_OUT) && mkdir -p $(BOARD_TEST_OUT)
	$(call tap_run,board,CMOCKA_MESSAGE_OUTPUT=TAP $(BOARD_TEST) --outdir $(BOARD_TEST_OUT))

-include $(BOARD_DIR)/test_board.d

.PHONY: test-board
