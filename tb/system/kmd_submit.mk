# tb/system/kmd_submit.mk: the miniport's command path (host/kmd DDIs called directly) over sim://.
# Included by the top Makefile after host/host.mk and tb/system/system.mk.
#   make test-system-kmd-submit                       build and run (seeds KMD_SUBMIT_SEEDS, default 1 2)
#   make test-system-kmd-submit KMD_SUBMIT_SEEDS=7    replay one seed
# The tests that need the DMA engine are skipped (and say so) on a build without ID_CAPS.DMA.
KMD_SUBMIT_SEEDS ?= 1 2
KMD_SUBMIT_TEST := $(BUILD)/tb/system/test_kmd_submit

$(KMD_SUBMIT_TEST): $(HOST_OBJ_DIR)/tb/system/test_kmd_submit.o $(SCHED_FIXTURE_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK) -lcmocka

all: $(KMD_SUBMIT_TEST)

TEST_SUITES += system-kmd-submit
test-system-kmd-submit: $(KMD_SUBMIT_TEST)
	$(call tap_run,system-kmd-submit,for s in $(KMD_SUBMIT_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_kmd_submit.d
