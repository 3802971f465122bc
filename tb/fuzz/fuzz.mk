# SPDX-License-Identifier: Apache-2.0
# tb/fuzz/fuzz.mk: libFuzzer harnesses (tb/fuzz/README.md). Included by the top Makefile after
# host/host.mk and sim/harness/harness.mk.
#   make test-fuzz                       each harness for a short fixed run over its corpus
#   make fuzz-build                      just the harnesses, in $(BUILD)/fuzz/
#   $(BUILD)/fuzz/fuzz_uri -seed=7 -max_total_time=600 $(BUILD)/fuzz/work/fuzz_uri tb/fuzz/corpus/fuzz_uri
# The harnesses and the host library under them are built by clang with ASan, UBSan and
# libFuzzer's coverage; the simulation library (the Verilated model) is the normal gcc build,
# linked as it is.
FUZZ_CC ?= clang-14
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := $(CSTD) -O1 -g $(WARN) $(DEBUG_FLAGS) $(CPPFLAGS_HOST) -Ihost/kmd -Ihost/dxgk -Ihost/dxgk/vidmm -Ihost/dxgk/vidsch -pthread \
               $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP
FUZZERS := fuzz_uri fuzz_alloc_private fuzz_submit
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/,$(FUZZERS))
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(LIBGPUREF_SRCS))

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

.SECONDARY: $(patsubst %,$(FUZZ_DIR)/obj/tb/fuzz/%.o,$(FUZZERS))
$(FUZZ_DIR)/%: $(FUZZ_DIR)/obj/tb/fuzz/%.o $(FUZZ_LIB_OBJS) $(SIM_LIB)
	$(call quiet,LD,$@)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(SIM_LIB) $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread

.PHONY: fuzz-build test-fuzz
fuzz-build: $(FUZZ_BINS)

# Fixed seed and run counts: the same inputs every time (FUZZ_RUNS_<harness> to change them).
FUZZ_SEED ?= 1
FUZZ_RUNS_fuzz_uri ?= 50000
FUZZ_RUNS_fuzz_alloc_private ?= 4000
FUZZ_RUNS_fuzz_submit ?= 300
$(eval $(call suite,fuzz,$(FUZZ_BINS),tb/fuzz/run_fuzz.sh $$(FUZZ_DIR) $$(FUZZ_SEED) $$(foreach f,$$(FUZZERS),$$(f):$$(FUZZ_RUNS_$$(f)))))

-include $(FUZZ_LIB_OBJS:.o=.d) $(patsubst %,$(FUZZ_DIR)/obj/tb/fuzz/%.d,$(FUZZERS))

# wire-fuzz: a hostile client of gpuref-simd in Python, written from bridge/PROTOCOL.md alone
# (tb/fuzz/README.md): every attack class, then another client's round trip; fixed seed and count.
WIRE_FUZZ_SEED ?= 1
WIRE_FUZZ_COUNT ?= 600
$(eval $(call suite,wire-fuzz,$(GPUREF_SIMD),python3 tb/fuzz/wire_fuzz.py $(GPUREF_SIMD) --seed $$(WIRE_FUZZ_SEED) --count $$(WIRE_FUZZ_COUNT) --dir $$(BUILD)/wire-fuzz))
