# tb/system/axi_slaves.mk: gpu_core's AXI4 write masters (DMA engine on m_host and m_vram, BAR1
# aperture through the VRAM arbiter) against memory models in every write order a legal slave
# may impose (tb/system/test_axi_slaves.c). Included by the top Makefile after system.mk.
#   make test-system-axi-slaves                  seeds AXI_SLAVES_SEEDS (default 1 2)
#   build/tb/system/test_axi_slaves --seed S      replay one seed
AXI_SLAVES_TEST := $(BUILD)/tb/system/test_axi_slaves
AXI_SLAVES_OBJS := $(HOST_OBJ_DIR)/tb/system/test_axi_slaves.o
AXI_SLAVES_SEEDS ?= 1 2

# Only the harness: the engine is driven through its registers, not the host library.
$(AXI_SLAVES_TEST): $(AXI_SLAVES_OBJS) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(AXI_SLAVES_OBJS) $(SIM_LIB) $(SIM_LDLIBS) -lcmocka

all: $(AXI_SLAVES_TEST)

TEST_SUITES += system-axi-slaves
test-system-axi-slaves: $(AXI_SLAVES_TEST)
	$(call tap_run,system-axi-slaves,for s in $(AXI_SLAVES_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

.PHONY: test-system-axi-slaves
-include $(AXI_SLAVES_OBJS:.o=.d)
