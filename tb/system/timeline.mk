# tb/system/timeline.mk: VidSch's timeline (gr_adapter_timeline) with the real miniport and DMA
# engine over sim://. Included by the top Makefile after host/host.mk and tb/system/system.mk.
#   make test-system-timeline                    build and run (seeds TIMELINE_SEEDS, default 1 2)
#   make test-system-timeline TIMELINE_SEEDS=7   replay one seed
# Environment: GR_VIDSCH_TRACE=1 traces the scheduler beside the timeline it records.
TIMELINE_SEEDS ?= 1 2
TIMELINE_TEST := $(BUILD)/tb/system/test_timeline

$(TIMELINE_TEST): $(HOST_OBJ_DIR)/tb/system/test_timeline.o $(SCHED_FIXTURE_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK) -lcmocka

all: $(TIMELINE_TEST)

TEST_SUITES += system-timeline
test-system-timeline: $(TIMELINE_TEST)
	$(call tap_run,system-timeline,for s in $(TIMELINE_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_timeline.d
