/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_flag_rules.c: the documented rules on what DxgkDdiCreateAllocation returns in a
 * DXGK_ALLOCATIONINFO (see vidmm_flag_rules.h).
 *
 * Each predicate below implements exactly one rule and quotes, next to it, the sentence of
 * Microsoft's documentation it comes from (pages named by their learn.microsoft.com file name,
 * under windows-hardware/drivers/ddi/ or windows-hardware/drivers/display/).  Flags are read
 * through the WDK member names, never through hand-written masks.  Candidate rules that the
 * documentation does not state are not here; host/dxgk/README.md lists them and why.
 */
#include "vidmm_flag_rules.h"

#include <stddef.h>

_Static_assert(GR_VIDMM_FLAG_RULE_COUNT <= 64, "a disabled_rules_mask has 64 bits");

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, Reserved00: "For WDDM versions earlier than
 * WDDM 2.1, this member is reserved and should be set to zero."  Bit 10 is CreateInVpr only
 * for WDDM 2.1 and later.  The driver's WDDM version is the interface version it is built
 * for, which d3dkmddi.h fixes; DXGK_DRIVERCAPS.WDDMVersion cannot tell (ns-d3dkmddi-
 * _dxgk_drivercaps: "If a driver supports Windows 7 or later features ... this member is
 * reserved and should be set to zero").  So the rule is kept at compile time.
 */
_Static_assert(DXGKDDI_INTERFACE_VERSION >= DXGKDDI_INTERFACE_VERSION_WDDM2_1,
               "CreateInVpr (bit 10) is reserved before WDDM 2.1");

/* ---- Flags (DXGK_ALLOCATIONINFOFLAGS_WDDM2_0) ------------------------------------------- */

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, DXGK_ALLOC_RESERVED17, Reserved02 and
 * DXGK_ALLOC_RESERVED16 ... DXGK_ALLOC_RESERVED0: "[in] This member is reserved and should be
 * set to zero."  (Bits 11, 12 and 19-31.  Reserved00 and Reserved03 are the older names of
 * bits 10 and 13, now CreateInVpr and MapApertureCpuVisible.)
 */
static bool reserved_bits_set(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f = info->FlagsWddm2;
    (void)caps;
    return f.DXGK_ALLOC_RESERVED17 || f.Reserved02 || f.DXGK_ALLOC_RESERVED16 ||
           f.DXGK_ALLOC_RESERVED15 || f.DXGK_ALLOC_RESERVED14 || f.DXGK_ALLOC_RESERVED13 ||
           f.DXGK_ALLOC_RESERVED12 || f.DXGK_ALLOC_RESERVED11 || f.DXGK_ALLOC_RESERVED10 ||
           f.DXGK_ALLOC_RESERVED9 || f.DXGK_ALLOC_RESERVED4 || f.DXGK_ALLOC_RESERVED3 ||
           f.DXGK_ALLOC_RESERVED2 || f.DXGK_ALLOC_RESERVED1 || f.DXGK_ALLOC_RESERVED0;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, PermanentSysMem: "When the driver sets
 * PermanentSysMem, the driver must also set the CpuVisible member."
 */
static bool permanent_sysmem_without_cpu_visible(const DXGK_ALLOCATIONINFO *info,
                                                 const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->FlagsWddm2.PermanentSysMem && !info->FlagsWddm2.CpuVisible;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, Cached: "When the driver sets this member,
 * the driver must also set the CpuVisible member."
 */
static bool cached_without_cpu_visible(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->FlagsWddm2.Cached && !info->FlagsWddm2.CpuVisible;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, Protected: "The driver cannot set this member
 * in combination with the PermanentSysMem, ExistingSysMem, or ExistingKernelSysMem member."
 */
static bool protected_with_sysmem_backing(const DXGK_ALLOCATIONINFO *info,
                                          const DXGK_DRIVERCAPS *caps)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f = info->FlagsWddm2;
    (void)caps;
    return f.Protected && (f.PermanentSysMem || f.ExistingSysMem || f.ExistingKernelSysMem);
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, ExistingSysMem: "The driver cannot set
 * ExistingSysMem in combination with the PermanentSysMem, Protected, or ExistingKernelSysMem
 * member."
 */
static bool existing_sysmem_combined(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f = info->FlagsWddm2;
    (void)caps;
    return f.ExistingSysMem && (f.PermanentSysMem || f.Protected || f.ExistingKernelSysMem);
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, ExistingKernelSysMem: "The driver cannot set
 * ExistingKernelSysMem in combination with the PermanentSysMem, Protected, or ExistingSysMem
 * member."
 */
static bool existing_kernel_sysmem_combined(const DXGK_ALLOCATIONINFO *info,
                                            const DXGK_DRIVERCAPS *caps)
{
    const DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f = info->FlagsWddm2;
    (void)caps;
    return f.ExistingKernelSysMem && (f.PermanentSysMem || f.Protected || f.ExistingSysMem);
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, HistoryBuffer: "When the display miniport
 * driver sets HistoryBuffer, it must also set the CpuVisible flag."
 */
static bool history_buffer_without_cpu_visible(const DXGK_ALLOCATIONINFO *info,
                                               const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->FlagsWddm2.HistoryBuffer && !info->FlagsWddm2.CpuVisible;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, HistoryBuffer: "If the driver supports
 * cache-coherent aperture segments, it must also set Cached".  Whether it does is what it
 * reports in ns-d3dkmddi-_dxgk_presentationcaps, NoCacheCoherentApertureMemory: "specifies that
 * the driver does not support cache-coherent aperture memory."
 */
static bool history_buffer_uncached_on_coherent_aperture(const DXGK_ALLOCATIONINFO *info,
                                                         const DXGK_DRIVERCAPS *caps)
{
    const bool coherent_aperture = !caps->PresentationCaps.NoCacheCoherentApertureMemory;
    return info->FlagsWddm2.HistoryBuffer && coherent_aperture && !info->FlagsWddm2.Cached;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, HistoryBuffer: "..., and all other members
 * must be set to zero."  "Other" than the three the paragraph names: HistoryBuffer,
 * CpuVisible and Cached.  Read as holding whether or not the aperture is coherent (the
 * sentence joins it with "and" to the coherent case; README.md records the reading).
 */
static bool history_buffer_with_other_flags(const DXGK_ALLOCATIONINFO *info,
                                            const DXGK_DRIVERCAPS *caps)
{
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 others = info->FlagsWddm2;
    (void)caps;
    if (!others.HistoryBuffer)
        return false;
    others.HistoryBuffer = 0;
    others.CpuVisible = 0;
    others.Cached = 0;
    return others.Value != 0;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, ExplicitResidencyNotification: "The flag can
 * only be set when the AccessedPhysically flag is set."
 */
static bool explicit_residency_without_accessed_physically(const DXGK_ALLOCATIONINFO *info,
                                                           const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->FlagsWddm2.ExplicitResidencyNotification && !info->FlagsWddm2.AccessedPhysically;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0, MapApertureCpuVisible: "the driver must set
 * DXGK_VIDMMCAPS MapAperature2Supported to use this field.  If MapAperature2Supported is not
 * set but the driver specifies MapApertureCpuVisible, the call to DxgkDdiCreateAllocation will
 * fail."  (Also display/iommu-dma-remapping.)
 */
static bool map_aperture_cpu_visible_without_cap(const DXGK_ALLOCATIONINFO *info,
                                                 const DXGK_DRIVERCAPS *caps)
{
    return info->FlagsWddm2.MapApertureCpuVisible &&
           !caps->MemoryManagementCaps.MapAperture2Supported;
}

/* ---- Fields next to the flags (DXGK_ALLOCATIONINFO) -------------------------------------- */

/* ns-d3dkmddi-dxgk_allocationinfoflags2, Reserved: "Reserved; do not use." */
static bool flags2_reserved_set(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->Flags2.Reserved != 0;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfo, AllocationPriority: "Note that 0 is an invalid initial
 * allocation priority."
 */
static bool allocation_priority_zero(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->AllocationPriority == 0;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfo, PitchAlignedSize: "If the driver specifies a nonzero value
 * in PitchAlignedSize, the value must be greater than or equal to the value in the Size
 * member."
 */
static bool pitch_aligned_size_below_size(const DXGK_ALLOCATIONINFO *info,
                                          const DXGK_DRIVERCAPS *caps)
{
    (void)caps;
    return info->PitchAlignedSize != 0 && info->PitchAlignedSize < info->Size;
}

/*
 * ns-d3dkmddi-_dxgk_allocationinfo, SupportedWriteSegmentSet: "The display miniport driver can
 * set preferences only for segments that are supported for write operations.  The video memory
 * manager asserts if the driver attempts to set preferences for unsupported segments in the
 * PreferredSegment member."  Bit n of a set is segment n+1 ("Setting bit 0 indicates that the
 * first segment is supported"); a SegmentIdN of 0 is no preference (ns-d3dukmdt-
 * _d3dddi_segmentpreference).  Only the write set counts: "With the WDDM v2 ... the video
 * memory manager will ignore the SupportedReadSegmentSet value and use only the segment set
 * provide by SupportedWriteSegmentSet" (remarks of the same page).
 */
static bool preferred_segment_unsupported(const DXGK_ALLOCATIONINFO *info,
                                          const DXGK_DRIVERCAPS *caps)
{
    const DXGK_SEGMENTPREFERENCE p = info->PreferredSegment;
    const UINT ids[5] = {p.SegmentId0, p.SegmentId1, p.SegmentId2, p.SegmentId3, p.SegmentId4};
    (void)caps;
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        if (ids[i] != 0 && !(info->SupportedWriteSegmentSet & (1u << (ids[i] - 1))))
            return true;
    }
    return false;
}

/* ---- The table ---------------------------------------------------------------------------- */

#define WDDM2_0 "ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0"
#define ALLOCINFO "ns-d3dkmddi-_dxgk_allocationinfo"
/* Entry id sits at index id whatever the order written here. */
#define RULE(id, name, page, quote, fn) [id] = {id, name, page, quote, fn}

const gr_vidmm_flag_rule_t gr_vidmm_flag_rules[GR_VIDMM_FLAG_RULE_COUNT] = {
    RULE(GR_VIDMM_RULE_RESERVED_BITS_ZERO, "reserved_bits_zero",
         WDDM2_0 " (DXGK_ALLOC_RESERVED17, Reserved02, DXGK_ALLOC_RESERVED16..0)",
         "This member is reserved and should be set to zero.", reserved_bits_set),
    RULE(GR_VIDMM_RULE_PERMANENT_SYSMEM_REQUIRES_CPU_VISIBLE,
         "permanent_sysmem_requires_cpu_visible", WDDM2_0 " (PermanentSysMem)",
         "When the driver sets PermanentSysMem, the driver must also set the CpuVisible member.",
         permanent_sysmem_without_cpu_visible),
    RULE(GR_VIDMM_RULE_CACHED_REQUIRES_CPU_VISIBLE, "cached_requires_cpu_visible",
         WDDM2_0 " (Cached)",
         "When the driver sets this member, the driver must also set the CpuVisible member.",
         cached_without_cpu_visible),
    RULE(GR_VIDMM_RULE_PROTECTED_EXCLUDES_SYSMEM_BACKING, "protected_excludes_sysmem_backing",
         WDDM2_0 " (Protected)",
         "The driver cannot set this member in combination with the PermanentSysMem, "
         "ExistingSysMem, or ExistingKernelSysMem member.",
         protected_with_sysmem_backing),
    RULE(GR_VIDMM_RULE_EXISTING_SYSMEM_EXCLUSIVE, "existing_sysmem_exclusive",
         WDDM2_0 " (ExistingSysMem)",
         "The driver cannot set ExistingSysMem in combination with the PermanentSysMem, Protected, "
         "or ExistingKernelSysMem member.",
         existing_sysmem_combined),
    RULE(GR_VIDMM_RULE_EXISTING_KERNEL_SYSMEM_EXCLUSIVE, "existing_kernel_sysmem_exclusive",
         WDDM2_0 " (ExistingKernelSysMem)",
         "The driver cannot set ExistingKernelSysMem in combination with the PermanentSysMem, "
         "Protected, or ExistingSysMem member.",
         existing_kernel_sysmem_combined),
    RULE(GR_VIDMM_RULE_HISTORY_BUFFER_REQUIRES_CPU_VISIBLE, "history_buffer_requires_cpu_visible",
         WDDM2_0 " (HistoryBuffer)",
         "When the display miniport driver sets HistoryBuffer, it must also set the CpuVisible "
         "flag.",
         history_buffer_without_cpu_visible),
    RULE(GR_VIDMM_RULE_HISTORY_BUFFER_REQUIRES_CACHED_ON_COHERENT_APERTURE,
         "history_buffer_requires_cached_on_coherent_aperture",
         WDDM2_0 " (HistoryBuffer); "
                 "ns-d3dkmddi-_dxgk_presentationcaps (NoCacheCoherentApertureMemory)",
         "If the driver supports cache-coherent aperture segments, it must also set Cached. / "
         "NoCacheCoherentApertureMemory: specifies that the driver does not support cache-coherent "
         "aperture memory.",
         history_buffer_uncached_on_coherent_aperture),
    RULE(GR_VIDMM_RULE_HISTORY_BUFFER_NO_OTHER_FLAGS, "history_buffer_no_other_flags",
         WDDM2_0 " (HistoryBuffer)",
         "If the driver supports cache-coherent aperture segments, it must also set Cached, and "
         "all other members must be set to zero.",
         history_buffer_with_other_flags),
    RULE(GR_VIDMM_RULE_EXPLICIT_RESIDENCY_REQUIRES_ACCESSED_PHYSICALLY,
         "explicit_residency_requires_accessed_physically",
         WDDM2_0 " (ExplicitResidencyNotification)",
         "The flag can only be set when the AccessedPhysically flag is set.",
         explicit_residency_without_accessed_physically),
    RULE(GR_VIDMM_RULE_MAP_APERTURE_CPU_VISIBLE_REQUIRES_MAP_APERTURE2,
         "map_aperture_cpu_visible_requires_map_aperture2",
         WDDM2_0 " (MapApertureCpuVisible); display/iommu-dma-remapping",
         "If MapAperature2Supported is not set but the driver specifies MapApertureCpuVisible, the "
         "call to DxgkDdiCreateAllocation will fail.",
         map_aperture_cpu_visible_without_cap),
    RULE(GR_VIDMM_RULE_FLAGS2_RESERVED_ZERO, "flags2_reserved_zero",
         "ns-d3dkmddi-dxgk_allocationinfoflags2 (Reserved)", "Reserved; do not use.",
         flags2_reserved_set),
    RULE(GR_VIDMM_RULE_ALLOCATION_PRIORITY_NONZERO, "allocation_priority_nonzero",
         ALLOCINFO " (AllocationPriority)",
         "Note that 0 is an invalid initial allocation priority.", allocation_priority_zero),
    RULE(GR_VIDMM_RULE_PITCH_ALIGNED_SIZE_COVERS_SIZE, "pitch_aligned_size_covers_size",
         ALLOCINFO " (PitchAlignedSize)",
         "If the driver specifies a nonzero value in PitchAlignedSize, the value must be greater "
         "than or equal to the value in the Size member.",
         pitch_aligned_size_below_size),
    RULE(GR_VIDMM_RULE_PREFERRED_SEGMENT_SUPPORTED, "preferred_segment_supported",
         ALLOCINFO " (SupportedWriteSegmentSet, Remarks)",
         "The display miniport driver can set preferences only for segments that are supported for "
         "write operations. The video memory manager asserts if the driver attempts to set "
         "preferences for unsupported segments in the PreferredSegment member.",
         preferred_segment_unsupported),
};

/* ---- The check ---------------------------------------------------------------------------- */

int gr_vidmm_check_allocation_flags_masked(const DXGK_ALLOCATIONINFO *info,
                                           const DXGK_DRIVERCAPS *caps,
                                           uint64_t disabled_rules_mask, const char **out_rule)
{
    if (info == NULL || caps == NULL) {
        if (out_rule != NULL)
            *out_rule = NULL;
        return GR_E_INVALID;
    }
    for (size_t i = 0; i < GR_VIDMM_FLAG_RULE_COUNT; i++) {
        const gr_vidmm_flag_rule_t *rule = &gr_vidmm_flag_rules[i];
        if (disabled_rules_mask & GR_VIDMM_RULE_BIT(i))
            continue;
        if (rule->violated(info, caps)) {
            if (out_rule != NULL)
                *out_rule = rule->name;
            return GR_E_INVALID;
        }
    }
    return GR_OK;
}

int gr_vidmm_check_allocation_flags(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps,
                                    const char **out_rule)
{
    return gr_vidmm_check_allocation_flags_masked(info, caps, 0, out_rule);
}
