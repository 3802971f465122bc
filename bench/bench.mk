# bench/: performance measurements, printed as tables (never asserted: machines are noisy).
MMIO_BENCH := $(BUILD)/bench/mmio_bench

$(MMIO_BENCH): $(HOST_OBJ_DIR)/bench/mmio_bench.o $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) -o $@ $< $(SIM_LIB) $(SIM_LDLIBS)

all: $(MMIO_BENCH)
bench: $(MMIO_BENCH)
	$(MMIO_BENCH)

-include $(HOST_OBJ_DIR)/bench/mmio_bench.d
