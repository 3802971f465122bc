# SPDX-License-Identifier: Apache-2.0
# tb/system/dma.mk: the DMA engine on gpu_core over the gr_sim C API, against the contract
# (rtl/dma/README.md). Included by the top Makefile after system.mk and tb/models/dma_ref/dma_ref.mk.
#   system-dma-ref  tb/system/test_dma_ref.c: random command streams checked byte for byte against
#                   the C reference model (tb/models/dma_ref); DMA_REF_STREAMS streams of each kind
#                   from seed DMA_REF_SEED (stream i: seed + i)
#   system-dma      tb/system/test_dma.c: directed tests of the stops (preemption, watchdog, engine
#                   reset), interrupts, counters and faults; seeds DMA_SEEDS
# Replay: build/tb/system/test_dma_ref --seed S --streams 1   (the seed a failure printed)
#         build/tb/system/test_dma --seed S
DMA_REF_SEED ?= 1
DMA_REF_STREAMS ?= 10
DMA_SEEDS ?= 1 2 3
DMA_SYS_DIR := $(BUILD)/tb/system
DMA_SYS_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) $(SIM_CPPFLAGS) -Itb/models/dma_ref -Itb/models/mmu_ref -MMD -MP

$(DMA_SYS_DIR)/obj/%.o: tb/system/%.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(DMA_SYS_CFLAGS) -c $< -o $@

# Only the harness and the model: the engine is driven through its registers, not the host library.
$(DMA_SYS_DIR)/test_dma_ref: $(DMA_SYS_DIR)/obj/test_dma_ref.o $(DMA_REF_OBJS) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(SIM_LIB) $(SIM_LDLIBS) -lcmocka

$(DMA_SYS_DIR)/test_dma: $(DMA_SYS_DIR)/obj/test_dma.o $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(SIM_LIB) $(SIM_LDLIBS) -lcmocka

all: $(DMA_SYS_DIR)/test_dma_ref $(DMA_SYS_DIR)/test_dma

TEST_SUITES += system-dma-ref system-dma
test-system-dma-ref: $(DMA_SYS_DIR)/test_dma_ref
	$(call tap_run,system-dma-ref,CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $(DMA_REF_SEED) --streams $(DMA_REF_STREAMS))
test-system-dma: $(DMA_SYS_DIR)/test_dma
	$(call tap_run,system-dma,for s in $(DMA_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

.PHONY: test-system-dma-ref test-system-dma
-include $(DMA_SYS_DIR)/obj/test_dma_ref.d $(DMA_SYS_DIR)/obj/test_dma.d
