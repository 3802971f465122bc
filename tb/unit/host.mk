# SPDX-License-Identifier: Apache-2.0
# tb/unit/host.mk: the host code's unit tests, without a device (host_unit builds each, suite
# runs it; one table line a test). Included by the top Makefile after host/host.mk.

# $(call host_unit,NAME,SRCS,FLAGS,LIBS): $(BUILD)/tb/unit/NAME/test_NAME (HOST_UNIT_NAME) compiled
# and linked from SRCS in one command (the library's source straight into the test: no device,
# no link), its .d beside it.
define host_unit
HOST_UNIT_$(1) := $(BUILD)/tb/unit/$(1)/test_$(1)
$$(HOST_UNIT_$(1)): $(2)
	@mkdir -p $$(@D)
	$$(call quiet,LD,$$@)$$(CC) $$(CSTD) $$(WARN) $$(CFLAGS) $(3) -MMD -MP -o $$@ $(2) $(4)
all: $$(HOST_UNIT_$(1))
-include $$(HOST_UNIT_$(1)).d
endef

# host/include/d3dkmddi.h has the WDK's x64 layout (sizes, offsets, flag bits, status codes, DDI
# prototypes), built as C11 and as C++17 with the project's warnings and -pedantic (the header
# holds to ISO C11 and C++17, GR_ANON_STRUCT aside: d3dkmddi.h). The layout is also
# _Static_assert'ed, so a wrong header fails to build as well as to run. Both programs always
# run; the suite fails if either does.
$(eval $(call host_unit,ddi_layout,tb/unit/ddi_layout/test_ddi_layout.c,-pedantic -Ihost/include -Itb/unit/ddi_layout))
DDI_LAYOUT_CXX := $(BUILD)/tb/unit/ddi_layout/test_ddi_layout_cxx
$(DDI_LAYOUT_CXX): tb/unit/ddi_layout/test_ddi_layout_cxx.cpp
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CXX) -std=c++17 $(WARN) -pedantic $(CFLAGS) -Ihost/include -Itb/unit/ddi_layout -MMD -MP -o $@ $<
all: $(DDI_LAYOUT_CXX)
-include $(DDI_LAYOUT_CXX).d
$(eval $(call suite,ddi-layout,$(HOST_UNIT_ddi_layout) $(DDI_LAYOUT_CXX),$(HOST_UNIT_ddi_layout); s=$$$$?; $(DDI_LAYOUT_CXX) || s=1; exit $$$$s))

# host/dxgk/vidmm/vidmm_flag_rules.c (the documented DXGK_ALLOCATIONINFO rules VidMm checks after
# DxgkDdiCreateAllocation) against a truth table written from the docs, over every combination of
# the defined WDDM 2.0 flag bits, the caps bits the rules read and the field cases, plus each rule
# masked off in turn. The same test built with VIDMM_FLAGS_VIA_VIDMM (test_vidmm_flags_vidmm)
# runs every check at the VidMm level: through the check gr_alloc_create makes, on an adapter on
# sim://, and each rule switched off end to end through gr_alloc_create; it links the library and
# the sim. `make test-vidmm-flags VIDMM_FLAGS_SEED=7` replays the VidMm level with another bus seed.
$(eval $(call host_unit,vidmm_flags,tb/unit/vidmm_flags/test_vidmm_flags.c host/dxgk/vidmm/vidmm_flag_rules.c \
  host/lib/gr_status.c,-Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm))
VIDMM_FLAGS_VIDMM_TEST := $(BUILD)/tb/unit/vidmm_flags/test_vidmm_flags_vidmm
VIDMM_FLAGS_SEED ?= 1
$(VIDMM_FLAGS_VIDMM_TEST): tb/unit/vidmm_flags/test_vidmm_flags.c $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(HOST_CFLAGS) -DVIDMM_FLAGS_VIA_VIDMM -o $@ $< $(GPUREF_LINK)
all: $(VIDMM_FLAGS_VIDMM_TEST)
-include $(VIDMM_FLAGS_VIDMM_TEST).d
$(eval $(call suite,vidmm-flags,$(HOST_UNIT_vidmm_flags) $(VIDMM_FLAGS_VIDMM_TEST),$(HOST_UNIT_vidmm_flags); rc=$$$$?; \
  $(VIDMM_FLAGS_VIDMM_TEST) --seed $$(VIDMM_FLAGS_SEED) || rc=1; exit $$$$rc))

# host/dxgk/vidmm/vidmm_gpuva.c (the GPU VA space's page tables) against an in-memory VRAM, every
# translation predicted by the reference walker of tb/models/mmu_ref (written from
# rtl/mc/README.md): page-size policy, bad arguments, rollback on injected alloc/write/invalidate
# failures, and a seeded random map/unmap/protect walk (two seeds; --seed N replays one).
$(eval $(call host_unit,vidmm_gpuva,tb/unit/vidmm_gpuva/test_vidmm_gpuva.c host/dxgk/vidmm/vidmm_gpuva.c \
  tb/models/mmu_ref/ref_walker.c host/lib/gr_status.c,$$(DEBUG_FLAGS) -Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm \
  -Itb/models/mmu_ref,-lcmocka))
$(eval $(call suite,vidmm-gpuva,$(HOST_UNIT_vidmm_gpuva),CMOCKA_MESSAGE_OUTPUT=TAP $(HOST_UNIT_vidmm_gpuva) --seed 1 && \
  CMOCKA_MESSAGE_OUTPUT=TAP $(HOST_UNIT_vidmm_gpuva) --seed 2))

# VidMm's segment allocator (host/dxgk/vidmm/vidmm_segment.c) against a reference model that is a
# bitmap of 4 KiB pages: randomized ops checked for placement policy, alignment, range, overlap,
# coalescing and queries; every error case; a 64 GiB segment. The seed is printed ("# seed=N")
# and replayed with GR_TEST_SEED=N or --seed N.
$(eval $(call host_unit,vidmm_segment,tb/unit/vidmm_segment/test_vidmm_segment.c host/dxgk/vidmm/vidmm_segment.c \
  host/lib/gr_status.c,-Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm))
$(eval $(call suite,vidmm-segment,$(HOST_UNIT_vidmm_segment),$(HOST_UNIT_vidmm_segment)))

# VidMm's placement around pinned ranges (host/dxgk/vidmm/vidmm_policy.c) on the real segment
# allocator: the keep window, room made by moving movable blocks (which window, what moves, what
# a failure leaves), and a randomized run where an owner's table follows every move.
$(eval $(call host_unit,vidmm_policy,tb/unit/vidmm_policy/test_vidmm_policy.c host/dxgk/vidmm/vidmm_policy.c \
  host/dxgk/vidmm/vidmm_segment.c host/lib/gr_status.c,-Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm))
$(eval $(call suite,vidmm-policy,$(HOST_UNIT_vidmm_policy),$(HOST_UNIT_vidmm_policy) --seed 1 && \
  $(HOST_UNIT_vidmm_policy) --seed 2))

# Every public header compiles alone as C11 and as C++17 (check_headers.sh; the list is what
# `make install` installs).
HEADERS_CHECKED := $(patsubst host/include/%,%,$(sort $(wildcard host/include/gpuref/*.h)) \
                     host/include/d3dkmddi.h host/include/dispmprt.h)
$(eval $(call suite,headers,,CC=$$(CC) CXX=$$(CXX) tb/unit/headers/check_headers.sh $(BUILD)/headers $(HEADERS_CHECKED)))
