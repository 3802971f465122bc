# tb/system/alloc.mk: the allocation path (host/kmd miniport + host/dxgk VidMm) over sim://.
# Included by the top Makefile after host/host.mk and tb/system/system.mk.
#   make test-system-alloc                  build and run (seeds ALLOC_SEEDS, default 1 2)
#   make test-system-alloc ALLOC_SEEDS=7    replay one seed
ALLOC_SEEDS ?= 1 2
ALLOC_TEST := $(BUILD)/tb/system/test_alloc

$(ALLOC_TEST): $(HOST_OBJ_DIR)/tb/system/test_alloc.o $(SCHED_FIXTURE_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK) -lcmocka

all: $(ALLOC_TEST)

TEST_SUITES += system-alloc
test-system-alloc: $(ALLOC_TEST)
	$(call tap_run,system-alloc,for s in $(ALLOC_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_alloc.d
