# SPDX-License-Identifier: Apache-2.0
# tb/models/dma_ref: the DMA engine's C reference model (dma_ref.c, written from rtl/dma/README.md)
# and its own unit tests (test_dma_ref_model.c: hand-computed cases, cmocka, TAP). The model is
# linked into tb/system/test_dma_ref (tb/system/dma.mk). Included by the top Makefile.
#   make test-models-dma_ref
DMA_REF_SRC := tb/models/dma_ref
MMU_REF_SRC := tb/models/mmu_ref
DMA_REF_DIR := $(BUILD)/tb/models/dma_ref
DMA_REF_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) -Ihost/include -I$(DMA_REF_SRC) -I$(MMU_REF_SRC) -MMD -MP
# The model and the walker it translates with, as objects for the tests that use them.
DMA_REF_OBJS := $(DMA_REF_DIR)/dma_ref.o $(DMA_REF_DIR)/ref_walker.o
DMA_REF_MODEL_TEST := $(DMA_REF_DIR)/test_dma_ref_model

$(DMA_REF_DIR)/%.o: $(DMA_REF_SRC)/%.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(DMA_REF_CFLAGS) -c $< -o $@
$(DMA_REF_DIR)/ref_walker.o: $(MMU_REF_SRC)/ref_walker.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(DMA_REF_CFLAGS) -c $< -o $@

$(DMA_REF_MODEL_TEST): $(DMA_REF_DIR)/test_dma_ref_model.o $(DMA_REF_OBJS)
	$(call quiet,LD,$@)$(CC) -o $@ $^ -lcmocka

all: $(DMA_REF_MODEL_TEST)

TEST_SUITES += models-dma_ref
test-models-dma_ref: $(DMA_REF_MODEL_TEST)
	$(call tap_run,models-dma_ref,CMOCKA_MESSAGE_OUTPUT=TAP $<)

.PHONY: test-models-dma_ref
-include $(DMA_REF_OBJS:.o=.d) $(DMA_REF_DIR)/test_dma_ref_model.d
