# tb/system/vram_size.mk: gpu_core's VRAM size strap (sim://?vram=) and the driver at 128 KiB and
# 512 MiB over sim:// (test_vram_size.c). Included by the top Makefile after host/host.mk.
#   make test-system-vram-size                          build and run (seeds VRAM_SIZE_SEEDS, default 1)
#   make test-system-vram-size VRAM_SIZE_SEEDS=7        replay one seed
VRAM_SIZE_SEEDS ?= 1
VRAM_SIZE_TEST := $(BUILD)/tb/system/test_vram_size

$(VRAM_SIZE_TEST): $(HOST_OBJ_DIR)/tb/system/test_vram_size.o $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(GPUREF_LINK) -lcmocka

all: $(VRAM_SIZE_TEST)

TEST_SUITES += system-vram-size
test-system-vram-size: $(VRAM_SIZE_TEST)
	$(call tap_run,system-vram-size,for s in $(VRAM_SIZE_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_vram_size.d

.PHONY: test-system-vram-size
