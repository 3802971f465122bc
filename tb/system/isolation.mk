# tb/system/isolation.mk: one process attacking another's memory through the DMA engine (every
# command, every address space, INDIRECT, the read-only open, page tables, the ring, the fence
# record, the VPR, patch lists), over sim:// with the real miniport, VidSch and RTL.
# Included by the top Makefile after host/host.mk and tb/system/system.mk.
#   make test-system-isolation                      build and run (seeds ISOLATION_SEEDS, default 1 2)
#   make test-system-isolation ISOLATION_SEEDS=7    replay one seed
ISOLATION_SEEDS ?= 1 2
ISOLATION_TEST := $(BUILD)/tb/system/test_isolation

$(ISOLATION_TEST): $(HOST_OBJ_DIR)/tb/system/test_isolation.o $(SCHED_FIXTURE_OBJ) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK) -lcmocka

all: $(ISOLATION_TEST)

TEST_SUITES += system-isolation
test-system-isolation: $(ISOLATION_TEST)
	$(call tap_run,system-isolation,for s in $(ISOLATION_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_isolation.d
