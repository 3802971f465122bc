# SPDX-License-Identifier: Apache-2.0
# bench/: performance measurements, printed as tables (never asserted: machines are noisy).
MMIO_BENCH := $(BUILD)/bench/mmio_bench

$(MMIO_BENCH): $(HOST_OBJ_DIR)/bench/mmio_bench.o $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(SIM_LIB) $(SIM_LDLIBS)

all: $(MMIO_BENCH)
bench: $(MMIO_BENCH)
	$(MMIO_BENCH)

-include $(HOST_OBJ_DIR)/bench/mmio_bench.d

# bar1_bench: the CPU's BAR1 stream on sim:// against the data bus (what a lock's pages cost).
BAR1_BENCH := $(BUILD)/bench/bar1_bench

$(BAR1_BENCH): $(HOST_OBJ_DIR)/bench/bar1_bench.o $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(SIM_LIB) $(SIM_LDLIBS)

all: $(BAR1_BENCH)
bench: bench-bar1
.PHONY: bench-bar1
bench-bar1: $(BAR1_BENCH)
	$(BAR1_BENCH)

-include $(HOST_OBJ_DIR)/bench/bar1_bench.d
include bench/link/link.mk
