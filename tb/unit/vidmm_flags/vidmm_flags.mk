# tb/unit/vidmm_flags: host/dxgk/vidmm/vidmm_flag_rules.c (the documented DXGK_ALLOCATIONINFO rules
# VidMm checks after DxgkDdiCreateAllocation) against a truth table written from the docs,
# over every combination of the defined WDDM 2.0 flag bits, the caps bits the rules read and
# the field cases, plus each rule masked off in turn.  The rules' source is compiled straight
# into the test (no library), with gr_status.c for status names.
# The same test built with VIDMM_FLAGS_VIA_VIDMM (test_vidmm_flags_vidmm) runs every check at
# the VidMm level: through the check gr_alloc_create makes, on an adapter on sim://, and each
# rule switched off end to end through gr_alloc_create.  It links the library and the sim.
#   make test-vidmm-flags VIDMM_FLAGS_SEED=7    replay the VidMm level with another bus seed
VIDMM_FLAGS_DIR  := $(BUILD)/tb/unit/vidmm_flags
VIDMM_FLAGS_TEST := $(VIDMM_FLAGS_DIR)/test_vidmm_flags
VIDMM_FLAGS_SRCS := tb/unit/vidmm_flags/test_vidmm_flags.c host/dxgk/vidmm/vidmm_flag_rules.c \
                    host/lib/gr_status.c
VIDMM_FLAGS_INC  := -Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm

$(VIDMM_FLAGS_TEST): $(VIDMM_FLAGS_SRCS)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CSTD) $(WARN) $(CFLAGS) $(VIDMM_FLAGS_INC) -MMD -MP -o $@ $(VIDMM_FLAGS_SRCS)

VIDMM_FLAGS_VIDMM_TEST := $(VIDMM_FLAGS_DIR)/test_vidmm_flags_vidmm
VIDMM_FLAGS_SEED ?= 1
# host.mk comes later: its variables are spelled out here where make reads them at once.
$(VIDMM_FLAGS_VIDMM_TEST): tb/unit/vidmm_flags/test_vidmm_flags.c $(BUILD)/lib/libgpuref.a $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(HOST_CFLAGS) -DVIDMM_FLAGS_VIA_VIDMM -o $@ $< $(GPUREF_LINK)

all: $(VIDMM_FLAGS_TEST) $(VIDMM_FLAGS_VIDMM_TEST)

TEST_SUITES += vidmm-flags
test-vidmm-flags: $(VIDMM_FLAGS_TEST) $(VIDMM_FLAGS_VIDMM_TEST)
	$(call tap_run,vidmm-flags,$(VIDMM_FLAGS_TEST); rc=$$?; $(VIDMM_FLAGS_VIDMM_TEST) --seed $(VIDMM_FLAGS_SEED) || rc=1; exit $$rc)

-include $(VIDMM_FLAGS_TEST).d $(VIDMM_FLAGS_VIDMM_TEST).d
