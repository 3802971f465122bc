# tb/system/link_proto.mk: the byte-stream link protocol's C ends over a socketpair, with faults
# injected (tb/system/test_link_proto.c). Included by the top Makefile after system.mk.
LINK_PROTO_TEST := $(BUILD)/tb/system/test_link_proto
LINK_PROTO_OBJS := $(HOST_OBJ_DIR)/tb/system/test_link_proto.o

$(LINK_PROTO_TEST): $(LINK_PROTO_OBJS) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(LINK_PROTO_OBJS) $(GPUREF_LINK) -lcmocka

all: $(LINK_PROTO_TEST)

# Two seeds: the faults fall elsewhere, the results must not change. gpuref-simd --connect
# puts the server's switch in front of the C device end.
TEST_SUITES += system-link-proto
test-system-link-proto: $(LINK_PROTO_TEST) $(GPUREF_SIMD)
	$(call tap_run,system-link-proto,CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 1 --simd $(GPUREF_SIMD) && CMOCKA_MESSAGE_OUTPUT=TAP $< --seed 2 --simd $(GPUREF_SIMD))

-include $(LINK_PROTO_OBJS:.o=.d)

# gpuref-simd and gpuctl over simd:// and uart:// against the RTL of every board built
# (tb/system/test_simd.sh; kinds without a board top in this tree are skipped).
TEST_SUITES += system-simd
test-system-simd: $(GPUREF_SIMD) $(GPUCTL)
	$(call tap_run,system-simd,tb/system/test_simd.sh $(GPUREF_SIMD) $(GPUCTL) 1)

# The demo on simulated boards (tb/system/test_demo_links.sh, scripts/demo.sh): the FT601 one,
# within the CI budget (the stream board's link runs the system suites in system-links). The
# stream board (about 40 s), the FT2232H one (about 2 minutes) and uart (the simulated 3 Mbaud
# line is slow in wall time: a 4 KiB frame is 1.4M core cycles) run by hand:
# `make test-demo-links DEMO_LINK_KINDS="stream ft2232h uart"` or `make demo DEVICE=uart`.
DEMO_LINK_KINDS ?= ft601
TEST_SUITES += demo-links
test-demo-links: $(GR_DEMO) $(GPUREF_SIMD)
	$(call tap_run,demo-links,tb/system/test_demo_links.sh $(GR_DEMO) $(GPUREF_SIMD) $(DEMO_LINK_KINDS))
