# tb/system/gpuva.mk: host/dxgk/vidmm/vidmm_gpuva (page tables) on the real RTL MMU over sim://:
# tables written through the BAR1 aperture, checked with the MMU probe, the fault unit and the
# TLB counters (tb/system/test_gpuva_sim.c). Included by the top Makefile after system.mk.
GPUVA_SIM_TEST := $(BUILD)/tb/system/test_gpuva_sim
GPUVA_SIM_OBJS := $(HOST_OBJ_DIR)/tb/system/test_gpuva_sim.o

$(GPUVA_SIM_TEST): $(GPUVA_SIM_OBJS) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(GPUVA_SIM_OBJS) $(GPUREF_LINK) -lcmocka

all: $(GPUVA_SIM_TEST)

# Two seeds: the bus models' timing and the random mappings differ, the results must not.
TEST_SUITES += system-gpuva
test-system-gpuva: $(GPUVA_SIM_TEST)
	$(call tap_run,system-gpuva,CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 1 && CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 2)

-include $(GPUVA_SIM_OBJS:.o=.d)
