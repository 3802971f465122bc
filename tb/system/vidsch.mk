# tb/system/vidsch.mk: VidSch (host/dxgk's GPU scheduler) with the real miniport and DMA engine
# over sim://. Included by the top Makefile after host/host.mk and tb/system/system.mk.
#   make test-system-vidsch                   build and run (seeds VIDSCH_SEEDS, default 1 2)
#   make test-system-vidsch VIDSCH_SEEDS=7    replay one seed
# Environment: GR_TEST_FILTER='*tdr*' runs a subset, GR_VIDSCH_TRACE=1 traces the scheduler.
VIDSCH_SEEDS ?= 1 2
VIDSCH_TEST := $(BUILD)/tb/system/test_vidsch

$(VIDSCH_TEST): $(HOST_OBJ_DIR)/tb/system/test_vidsch.o $(SCHED_FIXTURE_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK) -lcmocka

all: $(VIDSCH_TEST)

TEST_SUITES += system-vidsch
test-system-vidsch: $(VIDSCH_TEST)
	$(call tap_run,system-vidsch,for s in $(VIDSCH_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_vidsch.d
