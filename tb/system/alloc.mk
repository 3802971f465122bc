# tb/system/alloc.mk: the allocation path (host/kmd miniport + host/dxgk VidMm) over sim://.
# Included by the top Makefile after tb/system/system.mk (BUILD, CC, CSTD, WARN, CFLAGS,
# DEBUG_FLAGS, LIBGPUREF, SIM_* and tap_run come from there).
#   make test-system-alloc                  build and run (seeds ALLOC_SEEDS, default 1 2)
#   make test-system-alloc ALLOC_SEEDS=7    replay one seed

ALLOC_SEEDS ?= 1 2

ALLOC_DIR := $(BUILD)/alloc
ALLOC_SRCS := host/kmd/kmd_adapter.c host/kmd/kmd_alloc.c host/dxgk/dxgk_adapter.c host/dxgk/dxgk_alloc.c \
              host/dxgk/dxgk_handle.c host/dxgk/vidmm_flag_rules.c host/dxgk/vidmm_segment.c \
              host/dxgk/vidmm_gpuva.c
ALLOC_OBJS := $(patsubst %.c,$(ALLOC_DIR)/%.o,$(ALLOC_SRCS))
ALLOC_LIB := $(ALLOC_DIR)/libgpuref_alloc.a
ALLOC_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) $(DEBUG_FLAGS) $(CPPFLAGS_HOST) -Ihost/kmd -Ihost/dxgk -MMD -MP -pthread
ALLOC_TEST := $(BUILD)/tb/system/test_alloc

$(ALLOC_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALLOC_CFLAGS) -c $< -o $@

$(ALLOC_LIB): $(ALLOC_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(ALLOC_DIR)/tb/system/test_alloc.o: tb/system/test_alloc.c
	@mkdir -p $(@D)
	$(CC) $(ALLOC_CFLAGS) -c $< -o $@

$(ALLOC_TEST): $(ALLOC_DIR)/tb/system/test_alloc.o $(ALLOC_LIB) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $< $(ALLOC_LIB) $(LIBGPUREF) $(SIM_LIB) $(SIM_LDLIBS) -lcmocka

all: $(ALLOC_TEST)

TEST_SUITES += system-alloc
test-system-alloc: $(ALLOC_TEST)
	$(call tap_run,system-alloc,for s in $(ALLOC_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(ALLOC_OBJS:.o=.d) $(ALLOC_DIR)/tb/system/test_alloc.d
