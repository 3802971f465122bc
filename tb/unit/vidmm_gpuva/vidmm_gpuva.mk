# tb/unit/vidmm_gpuva: host/dxgk/vidmm/vidmm_gpuva.c (the GPU VA space's page tables) against an
# in-memory VRAM, every translation predicted by the reference walker of tb/models/mmu_ref
# (written from rtl/mc/README.md): page-size policy, bad arguments, rollback on injected
# alloc/write/invalidate failures, and a seeded random map/unmap/protect walk.
# The library's source is compiled straight into the test (no device, no link).
VIDMM_GPUVA_DIR  := $(BUILD)/tb/unit/vidmm_gpuva
VIDMM_GPUVA_TEST := $(VIDMM_GPUVA_DIR)/test_vidmm_gpuva
VIDMM_GPUVA_SRCS := tb/unit/vidmm_gpuva/test_vidmm_gpuva.c host/dxgk/vidmm/vidmm_gpuva.c \
                    tb/models/mmu_ref/ref_walker.c host/lib/gr_status.c
VIDMM_GPUVA_INC  := -Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm -Itb/models/mmu_ref

$(VIDMM_GPUVA_TEST): $(VIDMM_GPUVA_SRCS)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CSTD) $(WARN) $(CFLAGS) $(DEBUG_FLAGS) $(VIDMM_GPUVA_INC) -MMD -MP -o $@ $(VIDMM_GPUVA_SRCS) -lcmocka

all: $(VIDMM_GPUVA_TEST)

# Two seeds of the random walk; each prints "# seed=N" and replays with --seed N.
TEST_SUITES += vidmm-gpuva
test-vidmm-gpuva: $(VIDMM_GPUVA_TEST)
	$(call tap_run,vidmm-gpuva,CMOCKA_MESSAGE_OUTPUT=TAP $(VIDMM_GPUVA_TEST) --seed 1 && CMOCKA_MESSAGE_OUTPUT=TAP $(VIDMM_GPUVA_TEST) --seed 2)

-include $(VIDMM_GPUVA_TEST).d
