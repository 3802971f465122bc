# tb/system: the whole host stack over sim:// (cmocka suites and the gpuctl command line).
SYSTEM_TESTS := test_link test_device
SYSTEM_BINS := $(addprefix $(BUILD)/tb/system/,$(SYSTEM_TESTS))

$(BUILD)/tb/system/%: $(HOST_OBJ_DIR)/tb/system/%.o $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(GPUREF_LINK) -lcmocka

all: $(SYSTEM_BINS)

# What the VidSch suites share (vidsch.mk, timeline.mk, residency.mk link it): the start of main,
# raw registers, gates, the scheduler's counters and one DMA buffer per submission.
SCHED_FIXTURE_OBJ := $(HOST_OBJ_DIR)/tb/system/sched_fixture.o

TEST_SUITES += system-link system-device system-gpuctl
test-system-link: $(BUILD)/tb/system/test_link
	$(call tap_run,system-link,CMOCKA_MESSAGE_OUTPUT=TAP $<)
# Two seeds: the bus models' timing differs, the results must not. ID_BUILD.STAMP must be the
# stamp the model was verilated with (harness.mk).
test-system-device: $(BUILD)/tb/system/test_device
	$(call tap_run,system-device,export GR_EXPECT_BUILD_STAMP=$(SIM_BUILD_STAMP); CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 1 && CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 2)
test-system-gpuctl: $(GPUCTL)
	$(call tap_run,system-gpuctl,tb/system/test_gpuctl.sh $(GPUCTL))

-include $(patsubst %,$(HOST_OBJ_DIR)/tb/system/%.d,$(SYSTEM_TESTS)) $(SCHED_FIXTURE_OBJ:.o=.d)
