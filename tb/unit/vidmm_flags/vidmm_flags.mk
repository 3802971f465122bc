# tb/unit/vidmm_flags: host/dxgk/vidmm_flag_rules.c (the documented DXGK_ALLOCATIONINFO rules
# VidMm checks after DxgkDdiCreateAllocation) against a truth table written from the docs,
# over every combination of the defined WDDM 2.0 flag bits, the caps bits the rules read and
# the field cases, plus each rule masked off in turn.  The rules' source is compiled straight
# into the test (no library), with gr_status.c for status names.
VIDMM_FLAGS_DIR  := $(BUILD)/tb/unit/vidmm_flags
VIDMM_FLAGS_TEST := $(VIDMM_FLAGS_DIR)/test_vidmm_flags
VIDMM_FLAGS_SRCS := tb/unit/vidmm_flags/test_vidmm_flags.c host/dxgk/vidmm_flag_rules.c \
                    host/lib/gr_status.c
VIDMM_FLAGS_INC  := -Ihost/include -Ihost/dxgk

$(VIDMM_FLAGS_TEST): $(VIDMM_FLAGS_SRCS)
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(WARN) $(CFLAGS) $(VIDMM_FLAGS_INC) -MMD -MP -o $@ $(VIDMM_FLAGS_SRCS)

all: $(VIDMM_FLAGS_TEST)

TEST_SUITES += vidmm-flags
test-vidmm-flags: $(VIDMM_FLAGS_TEST)
	$(call tap_run,vidmm-flags,$(VIDMM_FLAGS_TEST))

-include $(VIDMM_FLAGS_TEST).d
