# tb/unit/vidmm_segment: VidMm's segment allocator (host/dxgk/vidmm/vidmm_segment.c) against a
# reference model that is a bitmap of 4 KiB pages: randomized ops checked for placement policy,
# alignment, range, overlap, coalescing and queries; every error case; a 64 GiB segment.
# TAP; the seed is printed ("# seed=N") and replayed with GR_TEST_SEED=N or --seed N.
VIDMM_SEG_DIR  := $(BUILD)/tb/unit/vidmm_segment
VIDMM_SEG_TEST := $(VIDMM_SEG_DIR)/test_vidmm_segment
VIDMM_SEG_SRCS := tb/unit/vidmm_segment/test_vidmm_segment.c host/dxgk/vidmm/vidmm_segment.c \
                  host/lib/gr_status.c
VIDMM_SEG_OBJS := $(patsubst %.c,$(VIDMM_SEG_DIR)/obj/%.o,$(VIDMM_SEG_SRCS))

$(VIDMM_SEG_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm -MMD -MP -c $< -o $@

$(VIDMM_SEG_TEST): $(VIDMM_SEG_OBJS)
	$(call quiet,LD,$@)$(CC) -o $@ $^

all: $(VIDMM_SEG_TEST)

TEST_SUITES += vidmm-segment
test-vidmm-segment: $(VIDMM_SEG_TEST)
	$(call tap_run,vidmm-segment,$(VIDMM_SEG_TEST))

-include $(VIDMM_SEG_OBJS:.o=.d)
