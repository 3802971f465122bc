/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_flag_rules.h: the check VidMm (the OS stand-in, host/dxgk) makes on what a miniport's
 * DxgkDdiCreateAllocation returned in one DXGK_ALLOCATIONINFO: the WDDM 2.0 allocation flags
 * (FlagsWddm2), the fields next to them and the driver capabilities they depend on, exactly
 * the rules Microsoft's public documentation states.
 *
 * The rules are data: gr_vidmm_flag_rules[] holds one entry per documented rule, in the order
 * they are checked, each with the page and sentence it comes from.  The check stops at the
 * first broken rule and names it.  host/dxgk/README.md lists the candidate rules that were
 * considered and rejected, and why.  Tested exhaustively by tb/unit/vidmm_flags.
 *
 * Private to host/dxgk (and its tests): the interface is DXGK_* types in, gr_status_t out.
 */
#ifndef GPUREF_DXGK_VIDMM_FLAG_RULES_H
#define GPUREF_DXGK_VIDMM_FLAG_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "d3dkmddi.h"
#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GR_API
#define GR_API __attribute__((warn_unused_result))
#endif

/*
 * The rules, in check order: X(id, name).  The id is the rule's index in gr_vidmm_flag_rules[]
 * and its bit in a disabled_rules_mask; the name is what the check reports.  Ids are not
 * stable across versions of this file: use the name in logs and scripts.
 */
#define GR_VIDMM_FLAG_RULE_LIST(X)                                                              \
    X(GR_VIDMM_RULE_RESERVED_BITS_ZERO, "reserved_bits_zero")                                   \
    X(GR_VIDMM_RULE_PERMANENT_SYSMEM_REQUIRES_CPU_VISIBLE,                                      \
      "permanent_sysmem_requires_cpu_visible")                                                  \
    X(GR_VIDMM_RULE_CACHED_REQUIRES_CPU_VISIBLE, "cached_requires_cpu_visible")                 \
    X(GR_VIDMM_RULE_PROTECTED_EXCLUDES_SYSMEM_BACKING, "protected_excludes_sysmem_backing")     \
    X(GR_VIDMM_RULE_EXISTING_SYSMEM_EXCLUSIVE, "existing_sysmem_exclusive")                     \
    X(GR_VIDMM_RULE_EXISTING_KERNEL_SYSMEM_EXCLUSIVE, "existing_kernel_sysmem_exclusive")       \
    X(GR_VIDMM_RULE_HISTORY_BUFFER_REQUIRES_CPU_VISIBLE, "history_buffer_requires_cpu_visible") \
    X(GR_VIDMM_RULE_HISTORY_BUFFER_REQUIRES_CACHED_ON_COHERENT_APERTURE,                        \
      "history_buffer_requires_cached_on_coherent_aperture")                                    \
    X(GR_VIDMM_RULE_HISTORY_BUFFER_NO_OTHER_FLAGS, "history_buffer_no_other_flags")             \
    X(GR_VIDMM_RULE_EXPLICIT_RESIDENCY_REQUIRES_ACCESSED_PHYSICALLY,                            \
      "explicit_residency_requires_accessed_physically")                                        \
    X(GR_VIDMM_RULE_MAP_APERTURE_CPU_VISIBLE_REQUIRES_MAP_APERTURE2,                            \
      "map_aperture_cpu_visible_requires_map_aperture2")                                        \
    X(GR_VIDMM_RULE_FLAGS2_RESERVED_ZERO, "flags2_reserved_zero")                               \
    X(GR_VIDMM_RULE_ALLOCATION_PRIORITY_NONZERO, "allocation_priority_nonzero")                 \
    X(GR_VIDMM_RULE_PITCH_ALIGNED_SIZE_COVERS_SIZE, "pitch_aligned_size_covers_size")           \
    X(GR_VIDMM_RULE_PREFERRED_SEGMENT_SUPPORTED, "preferred_segment_supported")

typedef enum gr_vidmm_flag_rule_id {
#define GR_VIDMM_FLAG_RULE_ENUM(id, name) id,
    GR_VIDMM_FLAG_RULE_LIST(GR_VIDMM_FLAG_RULE_ENUM)
#undef GR_VIDMM_FLAG_RULE_ENUM
        GR_VIDMM_FLAG_RULE_COUNT
} gr_vidmm_flag_rule_id_t;

/** The mask bit that disables one rule in gr_vidmm_check_allocation_flags_masked(). */
#define GR_VIDMM_RULE_BIT(id) (UINT64_C(1) << (id))

/** One documented rule. */
typedef struct gr_vidmm_flag_rule {
    gr_vidmm_flag_rule_id_t id; /**< equal to the entry's index */
    const char *name;           /**< as in GR_VIDMM_FLAG_RULE_LIST */
    const char *doc_page;       /**< learn.microsoft.com page (file name) and member it is under */
    const char *doc_quote;      /**< the sentence(s) of that page the rule implements */
    /** true when the allocation breaks the rule; both pointers are non-NULL. */
    bool (*violated)(const DXGK_ALLOCATIONINFO *info, const DXGK_DRIVERCAPS *caps);
} gr_vidmm_flag_rule_t;

/** Every rule, in check order; entry i has id i. */
extern const gr_vidmm_flag_rule_t gr_vidmm_flag_rules[GR_VIDMM_FLAG_RULE_COUNT];

/**
 * Checks one allocation as DxgkDdiCreateAllocation returned it, against the driver's caps.
 * Reads info->FlagsWddm2 (the driver is WDDM 2.0 or later: d3dkmddi.h provides only the
 * newest interface), Flags2, AllocationPriority, Size, PitchAlignedSize, PreferredSegment and
 * SupportedWriteSegmentSet; caps->MemoryManagementCaps and caps->PresentationCaps.
 *
 * @param[out] out_rule  may be NULL; on GR_E_INVALID, the name of the first broken rule in
 *                       table order (NULL when info or caps is NULL); untouched on GR_OK
 * @return GR_OK (every rule holds), GR_E_INVALID (a rule is broken, or info or caps is NULL)
 */
GR_API int gr_vidmm_check_allocation_flags(const DXGK_ALLOCATIONINFO *info,
                                           const DXGK_DRIVERCAPS *caps, const char **out_rule);

/**
 * gr_vidmm_check_allocation_flags() with some rules switched off, so tests can show that
 * each rule matters.  Bit GR_VIDMM_RULE_BIT(id) of disabled_rules_mask skips rule id; bits
 * past GR_VIDMM_FLAG_RULE_COUNT are ignored; 0 checks every rule.
 *
 * @param[out] out_rule  as for gr_vidmm_check_allocation_flags()
 * @return as for gr_vidmm_check_allocation_flags()
 */
GR_API int gr_vidmm_check_allocation_flags_masked(const DXGK_ALLOCATIONINFO *info,
                                                  const DXGK_DRIVERCAPS *caps,
                                                  uint64_t disabled_rules_mask,
                                                  const char **out_rule);

#ifdef __cplusplus
}
#endif

#endif /* GPUREF_DXGK_VIDMM_FLAG_RULES_H */
