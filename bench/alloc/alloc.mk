# SPDX-License-Identifier: Apache-2.0
# bench/alloc: gpuref's segment allocator (host/dxgk/vidmm/vidmm_segment.c) against Linux's drm_mm and
# drm_buddy on the same GPU-like traces (bench/alloc/README.md).
#
# The two kernel allocators are never copied into the repository: at build time drm_mm.c,
# drm_buddy.c, lib/rbtree.c and the headers they need are extracted from Debian's
# linux-source-6.1 tarball into $(BUILD)/bench/linux/ and compiled in user space against the
# kernel shim in bench/alloc/kshim/. Nothing is installed here: bench/alloc/DEPS lists the
# Debian packages (make deps).
BALLOC_BENCH_DIR     := $(BUILD)/bench/alloc
BALLOC_BENCH         := $(BALLOC_BENCH_DIR)/bench_alloc
BALLOC_BENCH_ARGS    ?=
BALLOC_LINUX_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
BALLOC_LINUX_TOP     := linux-source-6.1
BALLOC_LINUX_DIR     := $(BUILD)/bench/linux
BALLOC_LINUX_STAMP   := $(BALLOC_LINUX_DIR)/.extracted
BALLOC_LINUX_FILES   := drivers/gpu/drm/drm_mm.c drivers/gpu/drm/drm_buddy.c lib/rbtree.c \
                        include/drm/drm_mm.h include/drm/drm_buddy.h include/linux/rbtree.h \
                        include/linux/rbtree_types.h include/linux/rbtree_augmented.h \
                        include/linux/interval_tree_generic.h
BALLOC_MISSING_SRC   := bench-alloc: $(BALLOC_LINUX_TARBALL) is missing. Install the Debian \
                        packages listed in bench/alloc/DEPS (make deps, or apt-get install \
                        linux-source-6.1 gnuplot-nox).

# Ours, C11 with the project's warnings.
BALLOC_C11_SRCS := bench/alloc/bench_alloc.c bench/alloc/backend_gpuref.c \
                   host/dxgk/vidmm/vidmm_segment.c host/dxgk/vidmm/vidmm_policy.c host/lib/gr_status.c
# Ours too, but they include kernel headers: GNU C (typeof, statement expressions).
BALLOC_KBE_SRCS := bench/alloc/backend_drm_mm.c bench/alloc/backend_drm_buddy.c
# The kernel's, as extracted: built with the kernel's own -Wall, never -Werror.
BALLOC_KSRC     := drivers/gpu/drm/drm_mm.c drivers/gpu/drm/drm_buddy.c lib/rbtree.c

BALLOC_C11_OBJS := $(patsubst %.c,$(BALLOC_BENCH_DIR)/obj/%.o,$(BALLOC_C11_SRCS))
BALLOC_KBE_OBJS := $(patsubst %.c,$(BALLOC_BENCH_DIR)/obj/%.o,$(BALLOC_KBE_SRCS))
BALLOC_KOBJS    := $(patsubst %.c,$(BALLOC_BENCH_DIR)/linux/%.o,$(BALLOC_KSRC))
BALLOC_KINC     := -Ibench/alloc/kshim/include -I$(BALLOC_LINUX_DIR)/include

$(BALLOC_LINUX_STAMP): $(wildcard $(BALLOC_LINUX_TARBALL))
	@test -f $(BALLOC_LINUX_TARBALL) || { echo "$(BALLOC_MISSING_SRC)" >&2; exit 1; }
	rm -rf $(BALLOC_LINUX_DIR) && mkdir -p $(BALLOC_LINUX_DIR)
	tar -xJf $(BALLOC_LINUX_TARBALL) -C $(BALLOC_LINUX_DIR) --strip-components=1 \
	    $(addprefix $(BALLOC_LINUX_TOP)/,$(BALLOC_LINUX_FILES))
	touch $@

$(BALLOC_C11_OBJS): $(BALLOC_BENCH_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm -Ibench/alloc -MMD -MP -c $< -o $@

$(BALLOC_KBE_OBJS): $(BALLOC_BENCH_DIR)/obj/%.o: %.c $(BALLOC_LINUX_STAMP)
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) -std=gnu11 $(WARN) $(CFLAGS) -Ibench/alloc $(BALLOC_KINC) -MMD -MP -c $< -o $@

$(BALLOC_KOBJS): $(BALLOC_BENCH_DIR)/linux/%.o: $(BALLOC_LINUX_STAMP)
	@mkdir -p $(@D)
	$(call quiet,CC,$(BALLOC_LINUX_DIR)/$*.c)$(CC) -std=gnu11 -Wall $(CFLAGS) $(BALLOC_KINC) -c $(BALLOC_LINUX_DIR)/$*.c -o $@

$(BALLOC_BENCH): $(BALLOC_C11_OBJS) $(BALLOC_KBE_OBJS) $(BALLOC_KOBJS)
	$(call quiet,LD,$@)$(CC) -o $@ $^ -lm

# Prints the table, writes $(BUILD)/bench/alloc.md, alloc.dat and the plot alloc.png.
.PHONY: bench-alloc
bench: bench-alloc
bench-alloc:
	@test -f $(BALLOC_LINUX_TARBALL) || { echo "$(BALLOC_MISSING_SRC)" >&2; exit 1; }
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) $(BALLOC_BENCH)
	@mkdir -p $(BUILD)/bench
	$(BALLOC_BENCH) --out $(BUILD)/bench $(BALLOC_BENCH_ARGS)
	@command -v gnuplot >/dev/null || { echo "bench-alloc: gnuplot is missing, no plot drawn. Install gnuplot-nox (bench/alloc/DEPS; make deps)." >&2; exit 1; }
	gnuplot -e "datafile='$(BUILD)/bench/alloc.dat'; outfile='$(BUILD)/bench/alloc.png'" bench/alloc/alloc.gp
	@echo "bench-alloc: $(BUILD)/bench/alloc.md, $(BUILD)/bench/alloc.png"

-include $(BALLOC_C11_OBJS:.o=.d) $(BALLOC_KBE_OBJS:.o=.d)
