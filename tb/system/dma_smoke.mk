# tb/system/dma_smoke.mk: the DMA engine end to end on gpu_core over the gr_sim C API
# (tb/system/test_dma_smoke.c). Included by the top Makefile after system.mk.
DMA_SMOKE_TEST := $(BUILD)/tb/system/test_dma_smoke
DMA_SMOKE_OBJS := $(HOST_OBJ_DIR)/tb/system/test_dma_smoke.o

# Only the harness: the engine is driven by hand, not through the host library.
$(DMA_SMOKE_TEST): $(DMA_SMOKE_OBJS) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(DMA_SMOKE_OBJS) $(SIM_LIB) $(SIM_LDLIBS) -lcmocka

all: $(DMA_SMOKE_TEST)

# Two seeds: the bus models' stalls and latencies differ, the results must not.
TEST_SUITES += system-dma-smoke
test-system-dma-smoke: $(DMA_SMOKE_TEST)
	$(call tap_run,system-dma-smoke,CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 1 && CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 2)

-include $(DMA_SMOKE_OBJS:.o=.d)
