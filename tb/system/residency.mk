# tb/system/residency.mk: VidMm's residency and eviction (host/dxgk/vidmm/vidmm_residency.c) with the
# real miniport's paging buffers on the DMA engine, over sim://. Included by the top Makefile
# after host/host.mk and tb/system/system.mk.
#   make test-system-residency                      build and run (seeds RESIDENCY_SEEDS, default 1 2)
#   make test-system-residency RESIDENCY_SEEDS=7    replay one seed
# Environment: GR_TEST_FILTER='*pinned*' runs a subset, GR_VIDSCH_TRACE=1 traces the scheduler.
RESIDENCY_SEEDS ?= 1 2
RESIDENCY_TEST := $(BUILD)/tb/system/test_residency

$(RESIDENCY_TEST): $(HOST_OBJ_DIR)/tb/system/test_residency.o $(SCHED_FIXTURE_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK) -lcmocka

all: $(RESIDENCY_TEST)

TEST_SUITES += system-residency
test-system-residency: $(RESIDENCY_TEST)
	$(call tap_run,system-residency,for s in $(RESIDENCY_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_residency.d
