# SPDX-License-Identifier: Apache-2.0
# bench/: performance measurements, printed as tables (never asserted: machines are noisy);
# bench/README.md lists them. `make bench` runs them all (BDMA_ARGS, BLINK_ARGS: --quick); the
# smoke tests are suites of make test. PCIe in simulation: make bench-link-pcie (tb/tb.mk).
# mmio_bench: register round trips on sim://; bar1_bench: the CPU's BAR1 stream on sim://
# against the data bus (what a lock's pages cost).
$(foreach b,mmio bar1,$(eval $(call program,$(BUILD)/bench/$(b)_bench,$(HOST_OBJ_DIR)/bench/$(b)_bench.o $(SIM_LIB),\
  $$(SIM_LIB) $$(SIM_LDLIBS))))
.PHONY: bench-bar1 bench-dma bench-link bench-alloc
bench: $(BUILD)/bench/mmio_bench
	$(BUILD)/bench/mmio_bench
bench: bench-bar1
bench-bar1: $(BUILD)/bench/bar1_bench
	$(BUILD)/bench/bar1_bench
# fair_bench: a client's register read beside two flooding gpuref-simd clients (bench/README.md).
FAIR_BENCH      := $(BUILD)/bench/fair_bench
FAIR_BENCH_ARGS ?=
$(eval $(call program,$(FAIR_BENCH),$(HOST_OBJ_DIR)/bench/fair_bench.o $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
.PHONY: bench-fair
bench: bench-fair
bench-fair: $(FAIR_BENCH) $(GPUREF_SIMD)
	$(FAIR_BENCH) --simd $(GPUREF_SIMD) $(FAIR_BENCH_ARGS)
# ---- dma: copy efficiency, preemption and submit-to-fence latency, simulation speed ------------
BDMA_BENCH := $(BUILD)/bench/dma/bench_dma
BDMA_VVP   := $(BUILD)/bench/dma/bdma_tb.vvp
BDMA_TB    := bench/dma/bdma_tb.v bench/dma/bdma_axi_mem.v
BDMA_ARGS  ?=
# The miniport and sim:// for the driver-in-the-loop numbers, gr_sim directly for the rest.
$(eval $(call program,$(BDMA_BENCH),$(HOST_OBJ_DIR)/bench/dma/bench_dma.o $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
# The same gpu_core under Icarus, with the testbench's behavioural memories.
$(BDMA_VVP): $(BDMA_TB) $(RTL_SRCS) $(wildcard $(RTL_INC)/*.vh)
	@mkdir -p $(@D)
	$(call quiet,IVERILOG,$@)$(IVERILOG) -g2012 -I$(RTL_INC) -s bdma_tb -o $@ $(BDMA_TB) $(RTL_SRCS) 2>$(@D)/iverilog.log \
	  || { cat $(@D)/iverilog.log; exit 1; }
# Prints the tables, writes $(BUILD)/bench/dma.md, dma.dat and the plot dma.png.
bench: bench-dma
bench-dma: $(BDMA_BENCH) $(BDMA_VVP)
	@mkdir -p $(BUILD)/bench
	$(BDMA_BENCH) --out $(BUILD)/bench --vvp $(BDMA_VVP) $(BDMA_ARGS)
	$(call bench_plot,dma)
# A tiny run of every measurement, twice: bytes exact, cycles positive and repeatable.
$(eval $(call suite,bench-dma-smoke,$(BDMA_BENCH) $(BDMA_VVP),$$(BDMA_BENCH) --smoke --vvp $$(BDMA_VVP)))
# $(call bench_plot,NAME): the recipe lines that plot $(BUILD)/bench/NAME.dat into NAME.png.
define bench_plot
	@command -v gnuplot >/dev/null || { echo "bench-$(1): gnuplot is missing, no plot drawn. Install gnuplot-nox (bench/$(1)/DEPS; make deps)." >&2; exit 1; }
	gnuplot -e "datafile='$(BUILD)/bench/$(1).dat'; outfile='$(BUILD)/bench/$(1).png'" bench/$(1)/$(1).gp
	@echo "bench-$(1): $(BUILD)/bench/$(1).md, $(BUILD)/bench/$(1).png"
endef
# ---- link: every transport's round trips, throughput and costs (bench/link/README.md) ---------
BLINK_BENCH   := $(BUILD)/bench/link/bench_link
BLINK_USB     := $(BUILD)/bench/link/bench_link_usb
BLINK_USB_OBJ := $(BUILD)/bench/link/bench_link_usb.o
BLINK_ARGS    ?=
$(eval $(call program,$(BLINK_BENCH),$(HOST_OBJ_DIR)/bench/link/bench_link.o $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
# The USB links need umockdev's preload library in the process: a binary of their own.
$(BLINK_USB_OBJ): bench/link/bench_link.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(HOST_CFLAGS) -DGR_BENCH_USB -Isim/usb -Isim/board -c $< -o $@
$(eval $(call program,$(BLINK_USB),$(BLINK_USB_OBJ) $(USB_EMU_OBJ) $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB),\
  $$(BOARD_LIB) $$(GPUREF_LINK) $$(USB_LDLIBS)))
-include $(BLINK_USB_OBJ:.o=.d)
# pcie:// on the VFIO emulation: linked with its preload library before libc (sim/vfio), the
# emulation's tree in a directory of the run's own ($GR_VFIO_EMU, read when the program starts).
BLINK_VFIO     := $(BUILD)/bench/link/bench_link_vfio
BLINK_VFIO_OBJ := $(BUILD)/bench/link/bench_link_vfio.o
$(BLINK_VFIO_OBJ): bench/link/bench_link.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(HOST_CFLAGS) -DGR_BENCH_VFIO -Isim/vfio -c $< -o $@
$(eval $(call program,$(BLINK_VFIO),$(BLINK_VFIO_OBJ) $(VFIO_EMU_SO) $(LIBGPUREF) $(SIM_LIB),\
  $$(VFIO_EMU_SO) -Wl$$(comma)-rpath$$(comma)$$(abspath $$(VFIO_DIR)) $$(GPUREF_LINK)))
-include $(BLINK_VFIO_OBJ:.o=.d)
blink_vfio = d=$$(mktemp -d) && GR_VFIO_EMU=$$d/tree $(BLINK_VFIO) $(1); rc=$$?; rm -rf $$d; exit $$rc
# Prints the tables and writes them to $(BUILD)/bench/link.md.
bench: bench-link
bench-link: $(BLINK_BENCH) $(BLINK_USB) $(BLINK_VFIO) $(GPUREF_SIMD)
	@mkdir -p $(BUILD)/bench && rm -f $(BUILD)/bench/link.md
	$(BLINK_BENCH) --simd $(GPUREF_SIMD) --out $(BUILD)/bench/link.md $(BLINK_ARGS)
	$(BLINK_USB) --out $(BUILD)/bench/link.md $(BLINK_ARGS)
	$(call blink_vfio,--only pcie --out $(BUILD)/bench/link.md $(BLINK_ARGS))
	@echo "bench-link: $(BUILD)/bench/link.md"
# The pcie:// row alone, sim:// beside it: $(BUILD)/bench/link-vfio.md.
.PHONY: bench-link-vfio
bench-link-vfio: $(BLINK_VFIO)
	@mkdir -p $(BUILD)/bench && rm -f $(BUILD)/bench/link-vfio.md
	$(call blink_vfio,--out $(BUILD)/bench/link-vfio.md $(BLINK_ARGS))
	@echo "bench-link-vfio: $(BUILD)/bench/link-vfio.md"
$(eval $(call suite,bench-link-vfio-smoke,$(BLINK_VFIO),d=$$$$(mktemp -d) && GR_VFIO_EMU=$$$$d/tree $(BLINK_VFIO) \
  --smoke --only pcie; rc=$$$$?; rm -rf $$$$d; exit $$$$rc))
# A tiny run over sim:// and the stream board: bytes read back exact, cycles counted.
# (The list is a variable: a comma written inside $(call ...) would split its arguments.)
BLINK_SMOKE_LINKS := sim,stream
$(eval $(call suite,bench-link-smoke,$(BLINK_BENCH) $(GPUREF_SIMD),$$(BLINK_BENCH) --smoke --only $$(BLINK_SMOKE_LINKS) --simd $$(GPUREF_SIMD)))
# Round trips of gr_alloc_create (1 MiB) and a 4 KiB copy: at most 6 each (bench/link/README.md).
BLINK_RTRIPS_LINKS := stream,uart
$(eval $(call suite,bench-link-rtrips,$(BLINK_BENCH) $(GPUREF_SIMD),$$(BLINK_BENCH) --rtrips --only $$(BLINK_RTRIPS_LINKS) --simd $$(GPUREF_SIMD)))
# ---- alloc: the segment allocator (host/dxgk/vidmm/vidmm_segment.c) against Linux's drm_mm and
# drm_buddy on the same GPU-like traces ---------------------------------------------------------
# The two kernel allocators are never copied into the repository: at build time drm_mm.c,
# drm_buddy.c, lib/rbtree.c and the headers they need are extracted from Debian's
# linux-source-6.1 tarball into $(BUILD)/bench/linux/ and compiled in user space against the
# kernel shim in bench/alloc/kshim/. Nothing is installed here: bench/alloc/DEPS lists the
# Debian packages (make deps).
BALLOC_BENCH_DIR     := $(BUILD)/bench/alloc
BALLOC_BENCH         := $(BALLOC_BENCH_DIR)/bench_alloc
BALLOC_BENCH_ARGS    ?=
BALLOC_LINUX_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
BALLOC_LINUX_DIR     := $(BUILD)/bench/linux
BALLOC_LINUX_STAMP   := $(BALLOC_LINUX_DIR)/.extracted
BALLOC_LINUX_FILES   := drivers/gpu/drm/drm_mm.c drivers/gpu/drm/drm_buddy.c lib/rbtree.c \
                        include/drm/drm_mm.h include/drm/drm_buddy.h include/linux/rbtree.h \
                        include/linux/rbtree_types.h include/linux/rbtree_augmented.h \
                        include/linux/interval_tree_generic.h
BALLOC_MISSING_SRC   := bench-alloc: $(BALLOC_LINUX_TARBALL) is missing. Install the Debian \
                        packages listed in bench/alloc/DEPS (make deps, or apt-get install \
                        linux-source-6.1 gnuplot-nox).
# Ours, C11 with the project's warnings; ours too but including kernel headers, GNU C (typeof,
# statement expressions); the kernel's, as extracted, with the kernel's own -Wall, never -Werror.
BALLOC_C11_OBJS := $(patsubst %.c,$(BALLOC_BENCH_DIR)/obj/%.o,bench/alloc/bench_alloc.c bench/alloc/backend_gpuref.c \
                     host/dxgk/vidmm/vidmm_segment.c host/dxgk/vidmm/vidmm_policy.c host/lib/gr_status.c)
BALLOC_KBE_OBJS := $(patsubst %.c,$(BALLOC_BENCH_DIR)/obj/%.o,bench/alloc/backend_drm_mm.c bench/alloc/backend_drm_buddy.c)
BALLOC_KOBJS    := $(patsubst %.c,$(BALLOC_BENCH_DIR)/linux/%.o,drivers/gpu/drm/drm_mm.c drivers/gpu/drm/drm_buddy.c lib/rbtree.c)
BALLOC_KINC     := -Ibench/alloc/kshim/include -I$(BALLOC_LINUX_DIR)/include
$(BALLOC_LINUX_STAMP): $(wildcard $(BALLOC_LINUX_TARBALL))
	@test -f $(BALLOC_LINUX_TARBALL) || { echo "$(BALLOC_MISSING_SRC)" >&2; exit 1; }
	rm -rf $(BALLOC_LINUX_DIR) && mkdir -p $(BALLOC_LINUX_DIR)
	tar -xJf $(BALLOC_LINUX_TARBALL) -C $(BALLOC_LINUX_DIR) --strip-components=1 \
	    $(addprefix linux-source-6.1/,$(BALLOC_LINUX_FILES))
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
-include $(BALLOC_C11_OBJS:.o=.d) $(BALLOC_KBE_OBJS:.o=.d)
# Prints the table, writes $(BUILD)/bench/alloc.md, alloc.dat and the plot alloc.png.
bench: bench-alloc
bench-alloc:
	@test -f $(BALLOC_LINUX_TARBALL) || { echo "$(BALLOC_MISSING_SRC)" >&2; exit 1; }
	@$(MAKE) $(SELF) $(BALLOC_BENCH)
	@mkdir -p $(BUILD)/bench
	$(BALLOC_BENCH) --out $(BUILD)/bench $(BALLOC_BENCH_ARGS)
	$(call bench_plot,alloc)
