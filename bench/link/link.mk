# SPDX-License-Identifier: Apache-2.0
# bench/link: what each gr_link transport costs (bench/link/README.md): MMIO round trips, BAR1
# and DMA throughput against each link's ceiling, the round trips and bytes of public calls,
# simulation speed, and the FT601 FIFO's payload share.
# Included by the top Makefile after host.mk, board.mk and usb.mk.
#   make bench-link                        the full run (about 14 min on two loaded cores), tables
#   make bench-link BLINK_ARGS=--quick     smaller DMA copies
#   make test-bench-link-smoke             the smoke test (TAP), in make test
#   (PCIe in simulation: make bench-link-pcie, tb/unit/pcie/pcie_driver.mk)
BLINK_DIR     := $(BUILD)/bench/link
BLINK_BENCH   := $(BLINK_DIR)/bench_link
BLINK_USB     := $(BLINK_DIR)/bench_link_usb
BLINK_OBJ     := $(HOST_OBJ_DIR)/bench/link/bench_link.o
BLINK_USB_OBJ := $(BLINK_DIR)/bench_link_usb.o
BLINK_ARGS    ?=

$(BLINK_BENCH): $(BLINK_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(BLINK_OBJ) $(GPUREF_LINK)

# The USB links need umockdev's preload library in the process: a binary of their own.
$(BLINK_USB_OBJ): bench/link/bench_link.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(HOST_CFLAGS) -DGR_BENCH_USB -I$(USB_SRC) -I$(BOARD_SRC) -c $< -o $@

$(BLINK_USB): $(BLINK_USB_OBJ) $(USB_EMU_OBJ) $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(BLINK_USB_OBJ) $(USB_EMU_OBJ) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

all: $(BLINK_BENCH) $(BLINK_USB)

# Prints the tables and writes them to $(BUILD)/bench/link.md.
.PHONY: bench-link test-bench-link-smoke
bench: bench-link
bench-link: $(BLINK_BENCH) $(BLINK_USB) $(GPUREF_SIMD)
	@mkdir -p $(BUILD)/bench && rm -f $(BUILD)/bench/link.md
	$(BLINK_BENCH) --simd $(GPUREF_SIMD) --out $(BUILD)/bench/link.md $(BLINK_ARGS)
	$(BLINK_USB) --out $(BUILD)/bench/link.md $(BLINK_ARGS)
	@echo "bench-link: $(BUILD)/bench/link.md"

# A tiny run over sim:// and the stream board: bytes read back exact, cycles counted.
# (The list is a variable: a comma written inside $(call ...) would split its arguments.)
BLINK_SMOKE_LINKS := sim,stream
$(eval $(call suite,bench-link-smoke,$(BLINK_BENCH) $(GPUREF_SIMD),$$(BLINK_BENCH) --smoke --only $$(BLINK_SMOKE_LINKS) --simd $$(GPUREF_SIMD)))

-include $(BLINK_OBJ:.o=.d) $(BLINK_USB_OBJ:.o=.d)
