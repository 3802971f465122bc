# SPDX-License-Identifier: Apache-2.0
# tb/system/system.mk: the system suites, the whole host stack over sim:// (cmocka suites and
# shell suites). Included by the top Makefile after host/host.mk (HOST_OBJ_DIR, LIBGPUREF,
# GPUREF_LINK, GPUCTL, GPUREF_SIMD, GR_DEMO) and sim/harness/harness.mk (SIM_LIB, SIM_LDLIBS).
# A new cmocka suite: tb/system/test_<name>.c, then one line in the table below.
#   make test-system-alloc                  build and run (seeds ALLOC_SEEDS, default 1 2)
#   make test-system-alloc ALLOC_SEEDS=7    replay one seed (every seeded suite: <VAR>_SEEDS)
# Environment: GR_TEST_FILTER='*pinned*' runs a subset, GR_VIDSCH_TRACE=1 traces the scheduler.

# What the VidSch suites share (the table's link "sched"; usb.mk links it too): the start of
# main, raw registers, gates, the scheduler's counters and one DMA buffer per submission.
SCHED_FIXTURE_OBJ := $(HOST_OBJ_DIR)/tb/system/sched_fixture.o
-include $(SCHED_FIXTURE_OBJ:.o=.d)

# $(call system_suite,SUITE,NAME,VAR,LINK,SEEDS): tb/system/test_NAME.c built into
# $(BUILD)/tb/system/test_NAME (VAR_TEST) and run as suite SUITE: once for each seed in VAR_SEEDS
# (default SEEDS), or once without --seed when SEEDS is empty. LINK: gpuref (libgpuref and the
# harness), sched (that and the VidSch fixture) or sim (the harness alone: the engine is driven
# through its registers, not the host library). Optional: SYSTEM_ENV_<suite> a shell prefix,
# SYSTEM_ARGS_<suite> more arguments, SYSTEM_DEPS_<suite> more prerequisites of the run.
define system_suite
$(3)_TEST := $(BUILD)/tb/system/test_$(2)
$(3)_SEEDS ?= $(5)
$$($(3)_TEST): $(HOST_OBJ_DIR)/tb/system/test_$(2).o $(if $(filter sched,$(4)),$$(SCHED_FIXTURE_OBJ)) \
               $(if $(filter sim,$(4)),,$$(LIBGPUREF)) $$(SIM_LIB)
	@mkdir -p $$(@D)
	$$(call quiet,LD,$$@)$$(CC) -o $$@ $$(filter %.o,$$^) $(if $(filter sim,$(4)),$$(SIM_LIB) $$(SIM_LDLIBS),$$(GPUREF_LINK)) -lcmocka
all: $$($(3)_TEST)
TEST_SUITES += $(1)
.PHONY: test-$(1)
test-$(1): $$($(3)_TEST) $$(SYSTEM_DEPS_$(1))
	$$(call tap_run,$(1),$$(SYSTEM_ENV_$(1))$(if $(5),for s in $$($(3)_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $$< --seed $$$$s$$(SYSTEM_ARGS_$(1)) || exit 1; done,CMOCKA_MESSAGE_OUTPUT=TAP $$<))
-include $(HOST_OBJ_DIR)/tb/system/test_$(2).d
endef


# ID_BUILD.STAMP must be the stamp the model was verilated with (harness.mk). Two seeds (gpuva,
# dma-smoke, device, link-proto): the bus models' timing, the random mappings, where the faults
# fall differ, the results must not. gpuref-simd --connect puts the server's switch in front of
# link-proto's C device end.
SYSTEM_ENV_system-device = export GR_EXPECT_BUILD_STAMP=$(SIM_BUILD_STAMP);$(space)
SYSTEM_ARGS_system-link-proto = $(space)--simd $(GPUREF_SIMD)
SYSTEM_DEPS_system-link-proto = $(GPUREF_SIMD)
empty :=
space := $(empty) $(empty)

# suite                                what (tb/system/test_<name>.c)
$(eval $(call system_suite,system-link,link,LINK,gpuref,))
$(eval $(call system_suite,system-device,device,DEVICE,gpuref,1 2))
# What a failed open says through the public API.
$(eval $(call system_suite,system-errors,errors,ERRORS,gpuref,))
# pcie:// on fixture sysfs and /dev trees, without a board: address parsing, discovery, the open
# errors, the uio fallback.
$(eval $(call system_suite,system-pcie-host,pcie_host,PCIE_HOST,gpuref,))
# The convenience layer (gpuref/gr_easy.h).
$(eval $(call system_suite,system-easy,easy,EASY,gpuref,1 2))
# host/dxgk/vidmm/vidmm_gpuva (page tables) on the real RTL MMU: tables written through the BAR1
# aperture, checked with the MMU probe, the fault unit and the TLB counters.
$(eval $(call system_suite,system-gpuva,gpuva_sim,GPUVA_SIM,gpuref,1 2))
# The DMA engine end to end on gpu_core over the gr_sim C API.
$(eval $(call system_suite,system-dma-smoke,dma_smoke,DMA_SMOKE,sim,1 2))
# gpu_core's AXI4 write masters (DMA engine on m_host and m_vram, BAR1 aperture through the VRAM
# arbiter) against memory models in every write order a legal slave may impose.
$(eval $(call system_suite,system-axi-slaves,axi_slaves,AXI_SLAVES,sim,1 2))
# The allocation path (host/kmd miniport + host/dxgk VidMm).
$(eval $(call system_suite,system-alloc,alloc,ALLOC,sched,1 2))
# The miniport's command path (host/kmd DDIs called directly); the tests that need the DMA
# engine are skipped (and say so) on a build without ID_CAPS.DMA.
$(eval $(call system_suite,system-kmd-submit,kmd_submit,KMD_SUBMIT,sched,1 2))
# VidSch (host/dxgk's GPU scheduler) with the real miniport and DMA engine.
$(eval $(call system_suite,system-vidsch,vidsch,VIDSCH,sched,1 2))
# VidMm's residency and eviction (vidmm_residency.c) with the miniport's paging buffers on the DMA engine.
$(eval $(call system_suite,system-residency,residency,RESIDENCY,sched,1 2))
# VidSch's timeline (gr_adapter_timeline) with the real miniport and DMA engine.
$(eval $(call system_suite,system-timeline,timeline,TIMELINE,sched,1 2))
# The byte-stream link protocol's C ends over a socketpair, with faults injected.
$(eval $(call system_suite,system-link-proto,link_proto,LINK_PROTO,gpuref,1 2))
# One process attacking another's memory through the DMA engine (every command, every address
# space, INDIRECT, the read-only open, page tables, the ring, the fence record, the VPR, patch lists).
$(eval $(call system_suite,system-isolation,isolation,ISOLATION,sched,1 2))
# gpu_core's VRAM size strap (sim://?vram=) and the driver at 128 KiB and 512 MiB.
$(eval $(call system_suite,system-vram-size,vram_size,VRAM_SIZE,gpuref,1))

# The shell suites.
$(eval $(call suite,system-gpuctl,$(GPUCTL),tb/system/test_gpuctl.sh $(GPUCTL)))
# Waveforms a gpuctl user aims on sim://: trace on/off, the URI's window, VCD and FST, the
# GTKWave save file, the printed path, the errors.
$(eval $(call suite,system-trace,$(GPUCTL),tb/system/test_trace.sh $(GPUCTL) $(BUILD)/test-trace))
# gpuref-simd and gpuctl over simd:// and uart:// against the RTL of every board built (kinds
# without a board top in this tree are skipped).
$(eval $(call suite,system-simd,$(GPUREF_SIMD) $(GPUCTL),tb/system/test_simd.sh $(GPUREF_SIMD) $(GPUCTL) 1))
# The demo on simulated boards (scripts/demo.sh): the FT601 one, within the CI budget (the stream
# board's link runs the system suites in system-links). The stream board (about 40 s), the
# FT2232H one (about 2 minutes) and uart (the simulated 3 Mbaud line is slow in wall time: a 4 KiB
# frame is 1.4M core cycles) run by hand: `make test-demo-links DEMO_LINK_KINDS="stream ft2232h
# uart"` or `make demo DEVICE=uart`.
DEMO_LINK_KINDS ?= ft601
$(eval $(call suite,demo-links,$(GR_DEMO) $(GPUREF_SIMD),tb/system/test_demo_links.sh $(GR_DEMO) $(GPUREF_SIMD) $$(DEMO_LINK_KINDS)))
