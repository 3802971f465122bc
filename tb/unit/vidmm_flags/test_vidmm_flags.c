/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_vidmm_flags: host/dxgk/vidmm/vidmm_flag_rules.c accepts exactly the DXGK_ALLOCATIONINFO
 * values that Microsoft's documentation allows, and names the rule an invalid one breaks.
 *
 * The expected verdicts are written a second way, not by calling the checker: the flag rules
 * as a declarative list of relations over the bit values the documentation prints ("Setting
 * this member is equivalent to setting the ... bit (0x...)"), evaluated by a small evaluator
 * of its own; the field rules as hand-written cases, each saying which rule it breaks.
 *
 * Checks, as TAP:
 *   - the test's bit values are the header's named members (so both sides talk of one layout);
 *   - the rule table is well formed and the truth table names exactly its rules;
 *   - every combination of the 17 defined WDDM 2.0 flag bits, times the two capability bits
 *     the rules read (MapAperture2Supported, NoCacheCoherentApertureMemory), times every field
 *     case, plus every reserved bit set on every combination: the checker's verdict equals the
 *     truth table's, the named rule is the first broken one in table order, and out_rule is
 *     untouched on success;
 *   - each reserved bit on its own makes every combination invalid;
 *   - each rule matters: with that rule masked off, some combination disagrees with the truth;
 *   - named spot checks with real values.
 * Exhaustive and deterministic (no seed).  Usage: test_vidmm_flags (exit 1 if a test failed).
 *
 * Built a second time with VIDMM_FLAGS_VIA_VIDMM (test_vidmm_flags_vidmm), the same checks run
 * at the VidMm level instead of on the rule table: every verdict comes from the check VidMm's
 * gr_alloc_create makes on each answer of DxgkDdiCreateAllocation (gr_dxgk_test_check_answer:
 * the adapter's caps, its switched-off rules through the masked entry point, then VidMm's own
 * checks), on an adapter started on sim://, with the caps environment set on the adapter
 * (gr_dxgk_test_set_caps) and rules switched off there (gr_dxgk_test_set_disabled_rules).
 * "Each rule matters" then goes end to end: the disagreeing combination is put into the
 * miniport's answer of a real gr_alloc_create (the create hook), which must succeed with the
 * rule off and fail, creating nothing, with it on.
 * Usage: test_vidmm_flags_vidmm [--seed N] (default $GR_TEST_SEED, else 1: the bus models'
 * timing).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "d3dkmddi.h"
#include "vidmm_flag_rules.h"
#ifdef VIDMM_FLAGS_VIA_VIDMM
#include <stdlib.h>

#include "dxgk_testing.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#endif

/* ---- The documentation's bit values (ns-d3dkmddi-_dxgk_allocationinfoflags_wddm2_0) ------ */

/*
 * From the "equivalent to setting the Nth bit of the 32-bit Value member (0x...)" sentences.
 * HardwareProtected and CpuVisibleOnDemand have no such sentence; they take the next two
 * positions of the page's syntax block (bits 17 and 18).  MapApertureCpuVisible shares bit 13
 * with the older Reserved03 ("fourteenth bit (0x00002000)").
 */
#define CPU_VISIBLE 0x00000001u
#define PERMANENT_SYSMEM 0x00000002u
#define CACHED 0x00000004u
#define PROTECTED 0x00000008u
#define EXISTING_SYSMEM 0x00000010u
#define EXISTING_KERNEL_SYSMEM 0x00000020u
#define FROM_END_OF_SEGMENT 0x00000040u
#define DISABLE_LARGE_PAGE_MAPPING 0x00000080u
#define OVERLAY 0x00000100u
#define CAPTURE 0x00000200u
#define CREATE_IN_VPR 0x00000400u
#define MAP_APERTURE_CPU_VISIBLE 0x00002000u
#define HISTORY_BUFFER 0x00004000u
#define ACCESSED_PHYSICALLY 0x00008000u
#define EXPLICIT_RESIDENCY_NOTIFICATION 0x00010000u
#define HARDWARE_PROTECTED 0x00020000u
#define CPU_VISIBLE_ON_DEMAND 0x00040000u
/* DXGK_ALLOC_RESERVED17 (twelfth bit), Reserved02 (thirteenth), DXGK_ALLOC_RESERVED16..0. */
#define RESERVED_BITS 0xfff81800u

struct named_bit {
    const char *name;
    uint32_t bit;
};

static const struct named_bit g_defined[] = {
    {"CpuVisible", CPU_VISIBLE},
    {"PermanentSysMem", PERMANENT_SYSMEM},
    {"Cached", CACHED},
    {"Protected", PROTECTED},
    {"ExistingSysMem", EXISTING_SYSMEM},
    {"ExistingKernelSysMem", EXISTING_KERNEL_SYSMEM},
    {"FromEndOfSegment", FROM_END_OF_SEGMENT},
    {"DisableLargePageMapping", DISABLE_LARGE_PAGE_MAPPING},
    {"Overlay", OVERLAY},
    {"Capture", CAPTURE},
    {"CreateInVpr", CREATE_IN_VPR},
    {"MapApertureCpuVisible", MAP_APERTURE_CPU_VISIBLE},
    {"HistoryBuffer", HISTORY_BUFFER},
    {"AccessedPhysically", ACCESSED_PHYSICALLY},
    {"ExplicitResidencyNotification", EXPLICIT_RESIDENCY_NOTIFICATION},
    {"HardwareProtected", HARDWARE_PROTECTED},
    {"CpuVisibleOnDemand", CPU_VISIBLE_ON_DEMAND},
};
#define N_DEFINED (sizeof g_defined / sizeof g_defined[0])
#define N_COMBOS (1u << N_DEFINED)
#define N_RESERVED 15 /* bits 11, 12, 19..31 */

/* ---- The truth table, part 1: flag relations --------------------------------------------- */

/* The adapter facts the flag rules depend on. */
struct env {
    bool map_aperture2;        /* DXGK_VIDMMCAPS.MapAperture2Supported */
    bool no_coherent_aperture; /* DXGK_PRESENTATIONCAPS.NoCacheCoherentApertureMemory */
};
#define N_ENVS 4

enum cond { ALWAYS, IF_COHERENT_APERTURE, IF_NO_MAP_APERTURE2 };
enum kind {
    REQUIRES, /* every bit of when_set set -> every bit of bits set */
    EXCLUDES, /* a bit of when_set set -> no bit of bits set */
    ONLY,     /* a bit of when_set set -> nothing outside bits set */
    FORBIDS,  /* no bit of bits set */
};

struct relation {
    const char *rule;
    enum kind kind;
    uint32_t when_set;
    uint32_t bits;
    enum cond cond;
};

/* Each relation is one sentence of the WDDM 2.0 flags page (MapApertureCpuVisible's also on
 * display/iommu-dma-remapping); the names are the rules' names in the checker's table. */
static const struct relation g_relations[] = {
    /* "This member is reserved and should be set to zero." */
    {"reserved_bits_zero", FORBIDS, 0, RESERVED_BITS, ALWAYS},
    /* "When the driver sets PermanentSysMem, the driver must also set the CpuVisible member." */
    {"permanent_sysmem_requires_cpu_visible", REQUIRES, PERMANENT_SYSMEM, CPU_VISIBLE, ALWAYS},
    /* Cached: "When the driver sets this member, the driver must also set the CpuVisible
     * member." */
    {"cached_requires_cpu_visible", REQUIRES, CACHED, CPU_VISIBLE, ALWAYS},
    /* Protected: "cannot set this member in combination with the PermanentSysMem,
     * ExistingSysMem, or ExistingKernelSysMem member." */
    {"protected_excludes_sysmem_backing", EXCLUDES, PROTECTED,
     PERMANENT_SYSMEM | EXISTING_SYSMEM | EXISTING_KERNEL_SYSMEM, ALWAYS},
    /* "cannot set ExistingSysMem in combination with the PermanentSysMem, Protected, or
     * ExistingKernelSysMem member." */
    {"existing_sysmem_exclusive", EXCLUDES, EXISTING_SYSMEM,
     PERMANENT_SYSMEM | PROTECTED | EXISTING_KERNEL_SYSMEM, ALWAYS},
    /* "cannot set ExistingKernelSysMem in combination with the PermanentSysMem, Protected, or
     * ExistingSysMem member." */
    {"existing_kernel_sysmem_exclusive", EXCLUDES, EXISTING_KERNEL_SYSMEM,
     PERMANENT_SYSMEM | PROTECTED | EXISTING_SYSMEM, ALWAYS},
    /* "When ... sets HistoryBuffer, it must also set the CpuVisible flag." */
    {"history_buffer_requires_cpu_visible", REQUIRES, HISTORY_BUFFER, CPU_VISIBLE, ALWAYS},
    /* "If the driver supports cache-coherent aperture segments, it must also set Cached" */
    {"history_buffer_requires_cached_on_coherent_aperture", REQUIRES, HISTORY_BUFFER, CACHED,
     IF_COHERENT_APERTURE},
    /* "..., and all other members must be set to zero." */
    {"history_buffer_no_other_flags", ONLY, HISTORY_BUFFER, HISTORY_BUFFER | CPU_VISIBLE | CACHED,
     ALWAYS},
    /* ExplicitResidencyNotification: "The flag can only be set when the AccessedPhysically flag
     * is set." */
    {"explicit_residency_requires_accessed_physically", REQUIRES, EXPLICIT_RESIDENCY_NOTIFICATION,
     ACCESSED_PHYSICALLY, ALWAYS},
    /* "If MapAperature2Supported is not set but the driver specifies MapApertureCpuVisible,
     * the call to DxgkDdiCreateAllocation will fail." */
    {"map_aperture_cpu_visible_requires_map_aperture2", FORBIDS, 0, MAP_APERTURE_CPU_VISIBLE,
     IF_NO_MAP_APERTURE2},
};
#define N_RELATIONS (sizeof g_relations / sizeof g_relations[0])

static bool relation_broken(const struct relation *r, uint32_t flags, const struct env *env)
{
    if (r->cond == IF_COHERENT_APERTURE && env->no_coherent_aperture)
        return false;
    if (r->cond == IF_NO_MAP_APERTURE2 && env->map_aperture2)
        return false;
    switch (r->kind) {
    case REQUIRES:
        return (flags & r->when_set) == r->when_set && (flags & r->bits) != r->bits;
    case EXCLUDES:
        return (flags & r->when_set) != 0 && (flags & r->bits) != 0;
    case ONLY:
        return (flags & r->when_set) != 0 && (flags & ~r->bits) != 0;
    case FORBIDS:
        return (flags & r->bits) != 0;
    }
    return true;
}

/* ---- The truth table, part 2: field cases (ns-d3dkmddi-_dxgk_allocationinfo etc.) -------- */

/* D3DDDI_SEGMENTPREFERENCE as its page lays out Value: SegmentIdN 5 bits, DirectionN 1 bit. */
#define PREF(n, id) ((uint32_t)(id) << (6 * (n)))
#define PREF_DIRECTION(n) (1u << (6 * (n) + 5))
#define SIZE_64K ((SIZE_T)65536)

struct field_case {
    const char *what;
    UINT priority;
    SIZE_T size;
    SIZE_T pitch_aligned_size;
    UINT preferred; /* PreferredSegment.Value */
    UINT write_set; /* SupportedWriteSegmentSet (bit n: segment n+1) */
    UINT read_set;  /* SupportedReadSegmentSet: ignored by WDDM 2 VidMm */
    UINT flags2;    /* Flags2.Value */
    const char *breaks[2];
};

static const struct field_case g_fields[] = {
    {"fields valid", 0x78000000u, SIZE_64K, 0, PREF(0, 1), 0x1, 0x1, 0, {NULL, NULL}},
    /* "Note that 0 is an invalid initial allocation priority." */
    {"AllocationPriority 0",
     0,
     SIZE_64K,
     0,
     PREF(0, 1),
     0x1,
     0x1,
     0,
     {"allocation_priority_nonzero", NULL}},
    {"AllocationPriority 1", 1, SIZE_64K, 0, PREF(0, 1), 0x1, 0x1, 0, {NULL, NULL}},
    /* "If ... nonzero value in PitchAlignedSize, the value must be greater than or equal to
     * the value in the Size member." */
    {"PitchAlignedSize == Size",
     0x78000000u,
     SIZE_64K,
     SIZE_64K,
     PREF(0, 1),
     0x1,
     0x1,
     0,
     {NULL, NULL}},
    {"PitchAlignedSize > Size",
     0x78000000u,
     SIZE_64K,
     2 * SIZE_64K,
     PREF(0, 1),
     0x1,
     0x1,
     0,
     {NULL, NULL}},
    {"PitchAlignedSize == Size - 1",
     0x78000000u,
     SIZE_64K,
     SIZE_64K - 1,
     PREF(0, 1),
     0x1,
     0x1,
     0,
     {"pitch_aligned_size_covers_size", NULL}},
    /* "can set preferences only for segments that are supported for write operations" */
    {"no preferred segment, empty sets", 0x78000000u, SIZE_64K, 0, 0, 0, 0, 0, {NULL, NULL}},
    {"SegmentId0 2 not in write set {1} (in read set)",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 2),
     0x1,
     0x2,
     0,
     {"preferred_segment_supported", NULL}},
    {"SegmentId1 5 not in write set {1,2}",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1) | PREF(1, 5),
     0x3,
     0x1f,
     0,
     {"preferred_segment_supported", NULL}},
    {"SegmentId2 5 not in write set {1,2}",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1) | PREF(2, 5),
     0x3,
     0x1f,
     0,
     {"preferred_segment_supported", NULL}},
    {"SegmentId3 3 not in write set {1,2}",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1) | PREF(3, 3),
     0x3,
     0x7,
     0,
     {"preferred_segment_supported", NULL}},
    {"SegmentId4 31 not in write set {1..30}",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1) | PREF(4, 31),
     0x3fffffffu,
     0x7fffffffu,
     0,
     {"preferred_segment_supported", NULL}},
    {"SegmentId0..4 = 1..5 all in write set {1..5}",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1) | PREF(1, 2) | PREF(2, 3) | PREF(3, 4) | PREF(4, 5),
     0x1f,
     0,
     0,
     {NULL, NULL}},
    {"SegmentId4 31 in write set {31}",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(4, 31),
     0x40000000u,
     0,
     0,
     {NULL, NULL}},
    {"read set ignored: SegmentId0 1 in write set only",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1),
     0x1,
     0,
     0,
     {NULL, NULL}},
    {"Direction bits do not name segments",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1) | PREF_DIRECTION(0) | PREF_DIRECTION(4),
     0x1,
     0x1,
     0,
     {NULL, NULL}},
    /* DXGK_ALLOCATIONINFOFLAGS2: six defined bits, "Reserved; do not use." */
    {"Flags2 defined bits 0-5 set",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1),
     0x1,
     0x1,
     0x3f,
     {NULL, NULL}},
    {"Flags2 bit 6 set",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1),
     0x1,
     0x1,
     0x40,
     {"flags2_reserved_zero", NULL}},
    {"Flags2 bit 31 set",
     0x78000000u,
     SIZE_64K,
     0,
     PREF(0, 1),
     0x1,
     0x1,
     0x80000000u,
     {"flags2_reserved_zero", NULL}},
    {"AllocationPriority 0 and PitchAlignedSize < Size",
     0,
     SIZE_64K,
     4096,
     PREF(0, 1),
     0x1,
     0x1,
     0,
     {"allocation_priority_nonzero", "pitch_aligned_size_covers_size"}},
};
#define N_FIELDS (sizeof g_fields / sizeof g_fields[0])

/* ---- Building one case ------------------------------------------------------------------- */

static struct env env_of(unsigned e)
{
    struct env env = {(e & 1u) != 0, (e & 2u) != 0};
    return env;
}

static void build_caps(DXGK_DRIVERCAPS *caps, const struct env *env)
{
    memset(caps, 0, sizeof *caps);
    caps->MemoryManagementCaps.MapAperture2Supported = env->map_aperture2;
    caps->PresentationCaps.NoCacheCoherentApertureMemory = env->no_coherent_aperture;
    caps->WDDMVersion = DXGKDDI_WDDM_LATEST;
}

static void build_info(DXGK_ALLOCATIONINFO *info, uint32_t flags, const struct field_case *fc)
{
    memset(info, 0, sizeof *info);
    info->FlagsWddm2.Value = flags;
    info->AllocationPriority = fc->priority;
    info->Size = fc->size;
    info->PitchAlignedSize = fc->pitch_aligned_size;
    info->PreferredSegment.Value = fc->preferred;
    info->SupportedWriteSegmentSet = fc->write_set;
    info->SupportedReadSegmentSet = fc->read_set;
    info->Flags2.Value = fc->flags2;
}

static void build(DXGK_ALLOCATIONINFO *info, DXGK_DRIVERCAPS *caps, uint32_t flags,
                  const struct env *env, const struct field_case *fc)
{
    build_caps(caps, env);
    build_info(info, flags, fc);
}

/* The caps of each environment, built once: DXGK_DRIVERCAPS is large. */
static DXGK_DRIVERCAPS g_caps[N_ENVS];

/* Spreads the bits of index over the defined flag bits. */
static uint32_t spread(uint32_t index)
{
    uint32_t flags = 0;
    for (unsigned i = 0; i < N_DEFINED; i++)
        if (index & (1u << i))
            flags |= g_defined[i].bit;
    return flags;
}

static uint32_t g_combo[N_COMBOS]; /* spread(i), computed once */

static uint32_t combo_flags(uint32_t index)
{
    return g_combo[index];
}

static uint32_t reserved_bit(unsigned k)
{
    return k == 0 ? 0x800u : k == 1 ? 0x1000u : 1u << (19 + (k - 2));
}

/* ---- Rule names <-> table index ---------------------------------------------------------- */

static int table_index(const char *name)
{
    for (int i = 0; i < GR_VIDMM_FLAG_RULE_COUNT; i++)
        if (gr_vidmm_flag_rules[i].name != NULL && strcmp(gr_vidmm_flag_rules[i].name, name) == 0)
            return i;
    return -1;
}

/* A mask with a bit for every rule of the table. */
#define ALL_RULES (~UINT64_C(0) >> (64 - GR_VIDMM_FLAG_RULE_COUNT))

static int g_relation_index[N_RELATIONS]; /* table index of each relation's rule */
static int g_field_index[N_FIELDS][2];    /* table index of each field case's broken rules */

/* The truth: the set of broken rules as a mask of table indices (0: valid). */
static uint64_t truth(uint32_t flags, const struct env *env, unsigned field)
{
    /* The flag part only changes with (flags, env): remember the last answer per env. */
    static struct {
        bool valid;
        uint32_t flags;
        uint64_t broken;
    } memo[N_ENVS];
    const unsigned e = (env->map_aperture2 ? 1u : 0u) | (env->no_coherent_aperture ? 2u : 0u);
    if (!memo[e].valid || memo[e].flags != flags) {
        uint64_t b = 0;
        for (unsigned i = 0; i < N_RELATIONS; i++)
            if (relation_broken(&g_relations[i], flags, env) && g_relation_index[i] >= 0)
                b |= UINT64_C(1) << g_relation_index[i];
        memo[e].valid = true;
        memo[e].flags = flags;
        memo[e].broken = b;
    }
    uint64_t broken = memo[e].broken;
    for (unsigned j = 0; j < 2; j++)
        if (g_field_index[field][j] >= 0)
            broken |= UINT64_C(1) << g_field_index[field][j];
    return broken;
}

static int lowest_bit(uint64_t m)
{
    for (int i = 0; i < 64; i++)
        if (m & (UINT64_C(1) << i))
            return i;
    return -1;
}

/* ---- The combination space --------------------------------------------------------------- */

/*
 * Case = (defined-bit combination, variant).  Variants 0..N_ENVS*N_FIELDS-1 are every caps
 * environment times every field case; the next N_RESERVED add one reserved bit (with the
 * fields valid and the environments in turn).  Combination-major order, so a search for a
 * disagreement meets every kind of case early.
 */
#define N_PLAIN_VARIANTS (N_ENVS * N_FIELDS)
#define N_VARIANTS (N_PLAIN_VARIANTS + N_RESERVED)
#define N_CASES ((uint64_t)N_COMBOS * N_VARIANTS)

struct one_case {
    uint32_t flags;
    unsigned env_index;
    struct env env;
    unsigned field;
    int reserved; /* index of the reserved bit added, or -1 */
};

static struct one_case case_at(uint64_t n)
{
    struct one_case c;
    const unsigned variant = (unsigned)(n % N_VARIANTS);
    c.flags = combo_flags((uint32_t)(n / N_VARIANTS));
    if (variant < N_PLAIN_VARIANTS) {
        c.env_index = variant % N_ENVS;
        c.field = variant / N_ENVS;
        c.reserved = -1;
    } else {
        c.reserved = (int)(variant - N_PLAIN_VARIANTS);
        c.env_index = (unsigned)c.reserved % N_ENVS;
        c.field = 0;
        c.flags |= reserved_bit((unsigned)c.reserved);
    }
    c.env = env_of(c.env_index);
    return c;
}

static void describe(const struct one_case *c, char *buf, size_t len)
{
    char names[512] = "";
    size_t used = 0;
    for (unsigned i = 0; i < N_DEFINED; i++)
        if ((c->flags & g_defined[i].bit) && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? "|" : "",
                                     g_defined[i].name);
    if ((c->flags & RESERVED_BITS) && used < sizeof names)
        snprintf(names + used, sizeof names - used, "%sreserved", used ? "|" : "");
    snprintf(buf, len,
             "FlagsWddm2=0x%08x (%s) MapAperture2Supported=%d NoCacheCoherentApertureMemory=%d "
             "fields=\"%s\"",
             c->flags, names[0] ? names : "none", c->env.map_aperture2, c->env.no_coherent_aperture,
             g_fields[c->field].what);
}

/* ---- The checker under test ---------------------------------------------------------------- */

#ifndef VIDMM_FLAGS_VIA_VIDMM
/* The rule table's entry points (mask 0: the unmasked one, as VidMm calls it in use). */
static int check_case(const DXGK_ALLOCATIONINFO *info, unsigned env_index, uint64_t mask,
                      const char **out_rule)
{
    if (mask == 0)
        return gr_vidmm_check_allocation_flags(info, &g_caps[env_index], out_rule);
    return gr_vidmm_check_allocation_flags_masked(info, &g_caps[env_index], mask, out_rule);
}
#else
/* VidMm on a started adapter: the check gr_alloc_create makes on the miniport's answer. */
static gr_adapter_t *g_ad;
static gr_process_t *g_proc;
static gr_gpu_device_t *g_dev;
static gr_sysmem_t g_mem;                  /* backs ExistingSysMem/ExistingKernelSysMem cases */
static DXGK_DRIVERCAPS g_adapter_caps[N_ENVS]; /* the miniport's caps with the env's two bits */
static unsigned g_env_set = N_ENVS;
static uint64_t g_mask_set = ~UINT64_C(0);
static int g_tracked_allocation; /* what hAllocation points at: VidMm only requires non-NULL */

static void vidmm_env(unsigned env_index, uint64_t mask)
{
    if (env_index != g_env_set) {
        gr_dxgk_test_set_caps(g_ad, &g_adapter_caps[env_index]);
        g_env_set = env_index;
    }
    if (mask != g_mask_set) {
        gr_dxgk_test_set_disabled_rules(g_ad, mask);
        g_mask_set = mask;
    }
}

/* The caller's memory a case needs: the buffer when the flags say the caller backs it. */
static gr_alloc_desc_t desc_for(uint32_t flags)
{
    gr_alloc_desc_t d = {0};
    if (flags & (EXISTING_SYSMEM | EXISTING_KERNEL_SYSMEM)) {
        d.sysmem = g_mem.cpu;
        d.sysmem_bytes = g_mem.bytes;
    }
    return d;
}

static int check_case(const DXGK_ALLOCATIONINFO *info, unsigned env_index, uint64_t mask,
                      const char **out_rule)
{
    vidmm_env(env_index, mask);
    DXGK_ALLOCATIONINFO answer = *info;
    answer.hAllocation = &g_tracked_allocation;
    gr_alloc_desc_t d = desc_for(info->FlagsWddm2.Value);
    return gr_dxgk_test_check_answer(g_dev, &answer, &d, out_rule);
}
#endif

/* ---- TAP --------------------------------------------------------------------------------- */

static int g_test;
static int g_failed;

static void tap(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void tap(bool ok, const char *fmt, ...)
{
    va_list ap;
    g_test++;
    if (!ok)
        g_failed++;
    printf("%s %d - ", ok ? "ok" : "not ok", g_test);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* ---- 1. the test's bit values are the header's members ----------------------------------- */

static void test_bits_match_header(void)
{
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f;
    bool ok = true;
    uint32_t all = 0;
#define CHECK_BIT(member, value)                                                          \
    do {                                                                                  \
        memset(&f, 0, sizeof f);                                                          \
        f.member = 1;                                                                     \
        if (f.Value != (value)) {                                                         \
            printf("# %s sets 0x%08x, the documentation says 0x%08x\n", #member, f.Value, \
                   (unsigned)(value));                                                    \
            ok = false;                                                                   \
        }                                                                                 \
    } while (0)
    CHECK_BIT(CpuVisible, CPU_VISIBLE);
    CHECK_BIT(PermanentSysMem, PERMANENT_SYSMEM);
    CHECK_BIT(Cached, CACHED);
    CHECK_BIT(Protected, PROTECTED);
    CHECK_BIT(ExistingSysMem, EXISTING_SYSMEM);
    CHECK_BIT(ExistingKernelSysMem, EXISTING_KERNEL_SYSMEM);
    CHECK_BIT(FromEndOfSegment, FROM_END_OF_SEGMENT);
    CHECK_BIT(DisableLargePageMapping, DISABLE_LARGE_PAGE_MAPPING);
    CHECK_BIT(Overlay, OVERLAY);
    CHECK_BIT(Capture, CAPTURE);
    CHECK_BIT(CreateInVpr, CREATE_IN_VPR);
    CHECK_BIT(MapApertureCpuVisible, MAP_APERTURE_CPU_VISIBLE);
    CHECK_BIT(HistoryBuffer, HISTORY_BUFFER);
    CHECK_BIT(AccessedPhysically, ACCESSED_PHYSICALLY);
    CHECK_BIT(ExplicitResidencyNotification, EXPLICIT_RESIDENCY_NOTIFICATION);
    CHECK_BIT(HardwareProtected, HARDWARE_PROTECTED);
    CHECK_BIT(CpuVisibleOnDemand, CPU_VISIBLE_ON_DEMAND);
    CHECK_BIT(DXGK_ALLOC_RESERVED17, 0x800u);
    CHECK_BIT(Reserved02, 0x1000u);
    CHECK_BIT(DXGK_ALLOC_RESERVED16, 1u << 19);
    CHECK_BIT(DXGK_ALLOC_RESERVED0, 1u << 31);
#undef CHECK_BIT
    for (unsigned i = 0; i < N_DEFINED; i++) {
        if (all & g_defined[i].bit)
            ok = false;
        all |= g_defined[i].bit;
    }
    for (unsigned k = 0; k < N_RESERVED; k++) {
        if (!(RESERVED_BITS & reserved_bit(k)))
            ok = false;
    }
    ok = ok && (all & RESERVED_BITS) == 0 && (all | RESERVED_BITS) == 0xffffffffu &&
         __builtin_popcount(RESERVED_BITS) == N_RESERVED;
    tap(ok,
        "the %u defined FlagsWddm2 bits and %u reserved bits are the header's members and "
        "cover the word",
        (unsigned)N_DEFINED, (unsigned)N_RESERVED);
}

/* ---- 2. the table and the truth name the same rules -------------------------------------- */

/* Returns false when the table cannot be used (the sweep would call a NULL predicate). */
static bool test_table(void)
{
    static const char *const list_names[] = {
#define NAME(id, name) name,
        GR_VIDMM_FLAG_RULE_LIST(NAME)
#undef NAME
    };
    bool ok = GR_VIDMM_FLAG_RULE_COUNT == sizeof list_names / sizeof list_names[0];
    for (int i = 0; ok && i < GR_VIDMM_FLAG_RULE_COUNT; i++) {
        const gr_vidmm_flag_rule_t *r = &gr_vidmm_flag_rules[i];
        if ((int)r->id != i || r->name == NULL || strcmp(r->name, list_names[i]) != 0 ||
            r->doc_page == NULL || r->doc_page[0] == '\0' || r->doc_quote == NULL ||
            r->doc_quote[0] == '\0' || r->violated == NULL || table_index(r->name) != i) {
            printf("# table entry %d is malformed or out of place\n", i);
            ok = false;
        }
    }
    tap(ok,
        "rule table: %d entries, entry i has id i, a unique name from the list, a page, a "
        "quote and a predicate",
        (int)GR_VIDMM_FLAG_RULE_COUNT);

    /* Every truth rule exists in the table, and every table rule is in the truth. */
    uint64_t seen = 0;
    bool known = true;
    for (unsigned i = 0; i < N_RELATIONS; i++) {
        g_relation_index[i] = table_index(g_relations[i].rule);
        if (g_relation_index[i] < 0) {
            printf("# truth relation \"%s\" is not in the table\n", g_relations[i].rule);
            known = false;
        } else {
            seen |= UINT64_C(1) << g_relation_index[i];
        }
    }
    for (unsigned f = 0; f < N_FIELDS; f++) {
        for (unsigned j = 0; j < 2; j++) {
            const char *name = g_fields[f].breaks[j];
            g_field_index[f][j] = name == NULL ? -1 : table_index(name);
            if (name != NULL && g_field_index[f][j] < 0) {
                printf("# field case rule \"%s\" is not in the table\n", name);
                known = false;
            } else if (name != NULL) {
                seen |= UINT64_C(1) << g_field_index[f][j];
            }
        }
    }
    for (int i = 0; i < GR_VIDMM_FLAG_RULE_COUNT; i++)
        if (!(seen & (UINT64_C(1) << i)))
            printf("# table rule \"%s\" has no truth-table counterpart\n",
                   gr_vidmm_flag_rules[i].name);
    tap(known && seen == ALL_RULES, "the truth table names exactly the table's %d rules",
        (int)GR_VIDMM_FLAG_RULE_COUNT);
    return ok && known;
}

/* ---- 3. the exhaustive sweep ------------------------------------------------------------- */

static const char g_sentinel[] = "untouched";

static void test_sweep(void)
{
    uint64_t verdict_bad = 0, name_bad = 0, untouched_bad = 0, invalid = 0;
    uint64_t reserved_checked[N_RESERVED] = {0}, reserved_valid[N_RESERVED] = {0};
    char what[768];
    bool printed = false;

    for (uint64_t n = 0; n < N_CASES; n++) {
        const struct one_case c = case_at(n);
        DXGK_ALLOCATIONINFO info;
        build_info(&info, c.flags, &g_fields[c.field]);
        const uint64_t broken = truth(c.flags, &c.env, c.field);
        const char *rule = g_sentinel;
        const int st = check_case(&info, c.env_index, 0, &rule);
        const bool want_ok = broken == 0;

        if (c.reserved >= 0) {
            reserved_checked[c.reserved]++;
            if (st == GR_OK)
                reserved_valid[c.reserved]++;
        }
        if ((st == GR_OK) != want_ok || (st != GR_OK && st != GR_E_INVALID)) {
            verdict_bad++;
            if (!printed) {
                describe(&c, what, sizeof what);
                printf("# first disagreement: %s: checker %s (%s), truth %s\n", what,
                       st == GR_OK ? "valid" : "invalid", st == GR_OK ? "-" : rule,
                       want_ok ? "valid" : "invalid");
                printed = true;
            }
            continue;
        }
        if (st == GR_OK) {
            if (rule != g_sentinel)
                untouched_bad++;
            continue;
        }
        invalid++;
        const int first = lowest_bit(broken);
        if (rule == NULL || rule == g_sentinel || first < 0 ||
            strcmp(rule, gr_vidmm_flag_rules[first].name) != 0) {
            name_bad++;
            if (name_bad == 1) {
                describe(&c, what, sizeof what);
                printf("# %s: checker names \"%s\", first broken rule is \"%s\"\n", what,
                       rule == NULL || rule == g_sentinel ? "(none)" : rule,
                       first < 0 ? "(none)" : gr_vidmm_flag_rules[first].name);
            }
        }
    }
    printf("# %llu combinations checked (%u flag combinations x (%u caps x %u field cases + %u "
           "reserved bits)); %llu invalid\n",
           (unsigned long long)N_CASES, (unsigned)N_COMBOS, (unsigned)N_ENVS, (unsigned)N_FIELDS,
           (unsigned)N_RESERVED, (unsigned long long)invalid);
    tap(verdict_bad == 0, "checker == truth table on all %llu combinations (%llu disagree)",
        (unsigned long long)N_CASES, (unsigned long long)verdict_bad);
    tap(name_bad == 0,
        "every invalid combination names its first broken rule in table order "
        "(%llu wrong)",
        (unsigned long long)name_bad);
    tap(untouched_bad == 0, "out_rule is untouched on every valid combination (%llu touched)",
        (unsigned long long)untouched_bad);
    for (unsigned k = 0; k < N_RESERVED; k++) {
        tap(reserved_checked[k] == N_COMBOS && reserved_valid[k] == 0,
            "reserved bit %2d set: all %llu flag combinations invalid (%llu valid)",
            lowest_bit(reserved_bit(k)), (unsigned long long)reserved_checked[k],
            (unsigned long long)reserved_valid[k]);
    }
}

/* ---- 4. each rule matters ---------------------------------------------------------------- */

#ifdef VIDMM_FLAGS_VIA_VIDMM
/* The case the create hook writes into the miniport's answer. */
static const struct one_case *g_hook_case;

static void answer_with_case(void *ctx, DXGK_ALLOCATIONINFO *infos, UINT count)
{
    (void)ctx;
    const struct field_case *fc = &g_fields[g_hook_case->field];
    for (UINT k = 0; k < count; k++) {
        infos[k].FlagsWddm2.Value = g_hook_case->flags;
        infos[k].AllocationPriority = fc->priority;
        infos[k].Size = fc->size;
        infos[k].PitchAlignedSize = fc->pitch_aligned_size;
        infos[k].PreferredSegment.Value = fc->preferred;
        infos[k].SupportedWriteSegmentSet = fc->write_set;
        infos[k].SupportedReadSegmentSet = fc->read_set;
        infos[k].Flags2.Value = fc->flags2;
    }
}

/* One gr_alloc_create whose miniport answer is the case, with the given rules off. */
static gr_status_t create_with_case(const struct one_case *c, uint64_t mask, gr_alloc_t *out)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.buffer_bytes = g_fields[c->field].size; /* the miniport sizes it as the case says */
    gr_alloc_desc_t d = desc_for(c->flags);
    d.private_data = &p;
    d.private_size = sizeof p;
    vidmm_env(c->env_index, mask);
    g_hook_case = c;
    gr_dxgk_test_set_create_hook(g_ad, answer_with_case, NULL);
    gr_status_t rc = gr_alloc_create(g_dev, NULL, &d, 1, out, NULL);
    gr_dxgk_test_set_create_hook(g_ad, NULL, NULL);
    return rc;
}

/*
 * A combination VidMm's check lets through with rule r off, taken end to end: 0 when
 * gr_alloc_create accepts it with r off and refuses it with r on (naming r, leaving nothing
 * behind); 1 when it cannot be placed (no room in the sets the case names: try another); -1
 * when the create path and the check disagree.
 */
static int create_witness(const struct one_case *c, int r)
{
    gr_adapter_stats_t s0, s1;
    if (gr_adapter_stats(g_ad, &s0))
        return -1;
    gr_alloc_t h = 0;
    gr_status_t rc = create_with_case(c, GR_VIDMM_RULE_BIT(r), &h);
    if (rc == GR_E_NO_MEMORY)
        return 1;
    if (rc != GR_OK || gr_alloc_destroy(g_dev, h) != GR_OK) {
        printf("# rule %s off: gr_alloc_create %s\n", gr_vidmm_flag_rules[r].name, gr_status_name(rc));
        return -1;
    }
    DXGK_ALLOCATIONINFO info;
    build_info(&info, c->flags, &g_fields[c->field]);
    const char *rule = NULL;
    if (check_case(&info, c->env_index, 0, &rule) != GR_E_INVALID || rule == NULL ||
        strcmp(rule, gr_vidmm_flag_rules[r].name) != 0) {
        printf("# rule %s on: VidMm names \"%s\"\n", gr_vidmm_flag_rules[r].name, rule ? rule : "(none)");
        return -1;
    }
    h = 0x5eed;
    rc = create_with_case(c, 0, &h);
    if (gr_adapter_stats(g_ad, &s1))
        return -1;
    /* Accepted is the bug this looks for: destroy it, so the next rule starts clean. */
    if (rc == GR_OK && gr_alloc_destroy(g_dev, h) != GR_OK)
        printf("# cannot destroy handle 0x%x\n", h);
    /* Refused, and undone through DxgkDdiDestroyAllocation: two creates and two destroys in all. */
    if (rc != GR_E_INVALID || h != 0x5eed || s1.kmd_allocations != s0.kmd_allocations ||
        s1.ddi_create_allocation != s0.ddi_create_allocation + 2 ||
        s1.ddi_destroy_allocation != s0.ddi_destroy_allocation + 2) {
        printf("# rule %s on: gr_alloc_create %s, %llu miniport allocations (%llu before)\n",
               gr_vidmm_flag_rules[r].name, gr_status_name(rc), (unsigned long long)s1.kmd_allocations,
               (unsigned long long)s0.kmd_allocations);
        return -1;
    }
    return 0;
}
#endif

static void test_each_rule_matters(void)
{
    for (int r = 0; r < GR_VIDMM_FLAG_RULE_COUNT; r++) {
        bool found = false;
        char what[768] = "";
        for (uint64_t n = 0; n < N_CASES && !found; n++) {
            const struct one_case c = case_at(n);
            DXGK_ALLOCATIONINFO info;
            build_info(&info, c.flags, &g_fields[c.field]);
            const bool want_ok = truth(c.flags, &c.env, c.field) == 0;
            const int st = check_case(&info, c.env_index, GR_VIDMM_RULE_BIT(r), NULL);
            if ((st == GR_OK) != want_ok) {
#ifdef VIDMM_FLAGS_VIA_VIDMM
                const int w = create_witness(&c, r);
                if (w > 0)
                    continue; /* VidMm cannot place this one: look for another */
                if (w < 0) {
                    describe(&c, what, sizeof what);
                    printf("# %s: gr_alloc_create disagrees with VidMm's check\n", what);
                    break;
                }
#endif
                found = true;
                describe(&c, what, sizeof what);
            }
        }
        if (found)
            printf("# without %s: %s is let through\n", gr_vidmm_flag_rules[r].name, what);
#ifdef VIDMM_FLAGS_VIA_VIDMM
        tap(found,
            "rule %s matters at the VidMm level: switched off, gr_alloc_create accepts a "
            "combination the truth table refuses, and refuses it with the rule on",
            gr_vidmm_flag_rules[r].name);
#else
        tap(found, "rule %s matters: masked off, some combination disagrees with the truth",
            gr_vidmm_flag_rules[r].name);
#endif
    }
}

/* ---- 5. spot checks ---------------------------------------------------------------------- */

struct spot {
    const char *what;
    uint32_t flags;
    bool map_aperture2;
    bool no_coherent_aperture;
    const char *field;  /* g_fields[].what; NULL: "fields valid" */
    uint64_t mask;      /* rules disabled */
    const char *expect; /* NULL: valid; else the rule named */
};

static int field_named(const char *what)
{
    for (unsigned i = 0; i < N_FIELDS; i++)
        if (strcmp(g_fields[i].what, what) == 0)
            return (int)i;
    return -1;
}

static const struct spot g_spots[] = {
    {"no flags valid", 0, false, false, NULL, 0, NULL},
    {"HistoryBuffer|CpuVisible valid without coherent aperture", HISTORY_BUFFER | CPU_VISIBLE,
     false, true, NULL, 0, NULL},
    {"HistoryBuffer|CpuVisible|Cached valid with coherent aperture",
     HISTORY_BUFFER | CPU_VISIBLE | CACHED, false, false, NULL, 0, NULL},
    {"HistoryBuffer|CpuVisible|Cached valid without coherent aperture",
     HISTORY_BUFFER | CPU_VISIBLE | CACHED, false, true, NULL, 0, NULL},
    {"HistoryBuffer alone invalid", HISTORY_BUFFER, false, true, NULL, 0,
     "history_buffer_requires_cpu_visible"},
    {"HistoryBuffer|CpuVisible uncached on coherent aperture invalid", HISTORY_BUFFER | CPU_VISIBLE,
     false, false, NULL, 0, "history_buffer_requires_cached_on_coherent_aperture"},
    {"HistoryBuffer|CpuVisible|Cached|AccessedPhysically invalid",
     HISTORY_BUFFER | CPU_VISIBLE | CACHED | ACCESSED_PHYSICALLY, false, false, NULL, 0,
     "history_buffer_no_other_flags"},
    {"HistoryBuffer|CpuVisible|FromEndOfSegment invalid without coherent aperture",
     HISTORY_BUFFER | CPU_VISIBLE | FROM_END_OF_SEGMENT, false, true, NULL, 0,
     "history_buffer_no_other_flags"},
    {"ExplicitResidencyNotification alone invalid", EXPLICIT_RESIDENCY_NOTIFICATION, false, false,
     NULL, 0, "explicit_residency_requires_accessed_physically"},
    {"ExplicitResidencyNotification|AccessedPhysically valid",
     EXPLICIT_RESIDENCY_NOTIFICATION | ACCESSED_PHYSICALLY, false, false, NULL, 0, NULL},
    {"MapApertureCpuVisible without MapAperture2Supported invalid", MAP_APERTURE_CPU_VISIBLE, false,
     false, NULL, 0, "map_aperture_cpu_visible_requires_map_aperture2"},
    {"MapApertureCpuVisible|AccessedPhysically with MapAperture2Supported valid",
     MAP_APERTURE_CPU_VISIBLE | ACCESSED_PHYSICALLY, true, false, NULL, 0, NULL},
    {"ExistingSysMem|ExistingKernelSysMem|CpuVisible invalid",
     EXISTING_SYSMEM | EXISTING_KERNEL_SYSMEM | CPU_VISIBLE, false, false, NULL, 0,
     "existing_sysmem_exclusive"},
    {"Protected|ExistingKernelSysMem invalid", PROTECTED | EXISTING_KERNEL_SYSMEM, false, false,
     NULL, 0, "protected_excludes_sysmem_backing"},
    {"PermanentSysMem alone invalid", PERMANENT_SYSMEM, false, false, NULL, 0,
     "permanent_sysmem_requires_cpu_visible"},
    {"Cached alone invalid", CACHED, false, false, NULL, 0, "cached_requires_cpu_visible"},
    {"Cached|CpuVisible|ExistingSysMem valid", CACHED | CPU_VISIBLE | EXISTING_SYSMEM, false, false,
     NULL, 0, NULL},
    {"CpuVisibleOnDemand alone valid", CPU_VISIBLE_ON_DEMAND, false, false, NULL, 0, NULL},
    {"HardwareProtected alone valid", HARDWARE_PROTECTED, false, false, NULL, 0, NULL},
    {"CreateInVpr|HardwareProtected valid", CREATE_IN_VPR | HARDWARE_PROTECTED, false, false, NULL,
     0, NULL},
    {"Overlay|Capture|FromEndOfSegment|DisableLargePageMapping valid",
     OVERLAY | CAPTURE | FROM_END_OF_SEGMENT | DISABLE_LARGE_PAGE_MAPPING, false, false, NULL, 0,
     NULL},
    {"reserved bit 11 (DXGK_ALLOC_RESERVED17) invalid", CPU_VISIBLE | 0x800u, false, false, NULL, 0,
     "reserved_bits_zero"},
    {"reserved bit 31 (DXGK_ALLOC_RESERVED0) invalid", 0x80000000u, false, false, NULL, 0,
     "reserved_bits_zero"},
    {"AllocationPriority 0 invalid", CPU_VISIBLE, false, false, "AllocationPriority 0", 0,
     "allocation_priority_nonzero"},
    {"PitchAlignedSize below Size invalid", CPU_VISIBLE, false, false,
     "PitchAlignedSize == Size - 1", 0, "pitch_aligned_size_covers_size"},
    {"flag rules before field rules: Cached alone with priority 0", CACHED, false, false,
     "AllocationPriority 0", 0, "cached_requires_cpu_visible"},
    {"masked: HistoryBuffer alone valid without history_buffer_requires_cpu_visible",
     HISTORY_BUFFER, false, true, NULL,
     GR_VIDMM_RULE_BIT(GR_VIDMM_RULE_HISTORY_BUFFER_REQUIRES_CPU_VISIBLE), NULL},
    {"masked: the next broken rule is named", HISTORY_BUFFER, false, false, NULL,
     GR_VIDMM_RULE_BIT(GR_VIDMM_RULE_HISTORY_BUFFER_REQUIRES_CPU_VISIBLE),
     "history_buffer_requires_cached_on_coherent_aperture"},
    {"masked: every rule off accepts anything", 0xffffffffu, false, false,
     "AllocationPriority 0 and PitchAlignedSize < Size", ~UINT64_C(0), NULL},
    {"masked: bits past the rule count are ignored", CACHED, false, false, NULL, ~ALL_RULES,
     "cached_requires_cpu_visible"},
};
#define N_SPOTS (sizeof g_spots / sizeof g_spots[0])

static void test_spots(void)
{
    for (unsigned i = 0; i < N_SPOTS; i++) {
        const struct spot *s = &g_spots[i];
        const struct env env = {s->map_aperture2, s->no_coherent_aperture};
        DXGK_ALLOCATIONINFO info;
        DXGK_DRIVERCAPS caps;
        const char *rule = g_sentinel;
        const int field = s->field == NULL ? 0 : field_named(s->field);
        if (field < 0) {
            tap(false, "%s: no field case \"%s\"", s->what, s->field);
            continue;
        }
        build(&info, &caps, s->flags, &env, &g_fields[field]);
        const unsigned env_index = (env.map_aperture2 ? 1u : 0u) | (env.no_coherent_aperture ? 2u : 0u);
        const int st = check_case(&info, env_index, s->mask, &rule);
        bool ok;
        if (s->expect == NULL)
            ok = st == GR_OK && rule == g_sentinel;
        else
            ok = st == GR_E_INVALID && rule != NULL && rule != g_sentinel &&
                 strcmp(rule, s->expect) == 0;
        if (!ok)
            printf("# got %s, rule \"%s\"\n", gr_status_name(st),
                   rule == NULL         ? "(null)"
                   : rule == g_sentinel ? "(untouched)"
                                        : rule);
        tap(ok, "%s%s%s", s->what, s->expect ? ": " : "", s->expect ? s->expect : "");
    }
}

static void test_null_arguments(void)
{
    DXGK_ALLOCATIONINFO info;
    DXGK_DRIVERCAPS caps;
    const struct env env = {false, false};
    const char *rule = g_sentinel;
    build(&info, &caps, 0, &env, &g_fields[0]);
    bool ok = gr_vidmm_check_allocation_flags(NULL, &caps, &rule) == GR_E_INVALID && rule == NULL;
    rule = g_sentinel;
    ok = ok && gr_vidmm_check_allocation_flags(&info, NULL, &rule) == GR_E_INVALID && rule == NULL;
    ok = ok && gr_vidmm_check_allocation_flags(&info, &caps, NULL) == GR_OK;
    info.FlagsWddm2.Value = CACHED;
    ok = ok && gr_vidmm_check_allocation_flags(&info, &caps, NULL) == GR_E_INVALID;
    tap(ok, "NULL info or caps is GR_E_INVALID with no rule named; out_rule may be NULL");
}

/* ---- main ------------------------------------------------------------------------------ */

#ifdef VIDMM_FLAGS_VIA_VIDMM
/* An adapter on sim:// with one process and device, and 64 KiB the device reaches. */
static bool vidmm_start(int argc, char **argv)
{
    unsigned long long seed = 1;
    const char *env = getenv("GR_TEST_SEED");
    if (env)
        seed = strtoull(env, NULL, 0);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
    char uri[96];
    snprintf(uri, sizeof uri, "sim://?seed=%llu&vram=512M", seed);
    printf("# VidMm level on %s (replay: test_vidmm_flags_vidmm --seed %llu)\n", uri, seed);
    if (gr_adapter_open(uri, &g_ad) || gr_process_create(g_ad, &g_proc) ||
        gr_gpu_device_create(g_proc, &g_dev) || gr_sysmem_alloc(g_proc, SIZE_64K, &g_mem))
        return false;
    const DXGK_DRIVERCAPS *mine = gr_dxgk_test_caps(g_ad);
    for (unsigned e = 0; e < N_ENVS; e++) {
        const struct env ev = env_of(e);
        g_adapter_caps[e] = *mine;
        g_adapter_caps[e].MemoryManagementCaps.MapAperture2Supported = ev.map_aperture2;
        g_adapter_caps[e].PresentationCaps.NoCacheCoherentApertureMemory = ev.no_coherent_aperture;
    }
    return true;
}
#endif

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const clock_t t0 = clock();
    const int plan = 1 /* bits */ + 2 /* table */ + 3 + N_RESERVED /* sweep */ +
                     GR_VIDMM_FLAG_RULE_COUNT /* each rule matters */ + (int)N_SPOTS + 1 /* NULL */;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a crash keeps the lines printed so far */
    printf("1..%d\n", plan);
    test_bits_match_header();
    for (unsigned e = 0; e < N_ENVS; e++) {
        const struct env env = env_of(e);
        build_caps(&g_caps[e], &env);
    }
    for (uint32_t i = 0; i < N_COMBOS; i++)
        g_combo[i] = spread(i);
    if (!test_table()) {
        printf("Bail out! the rule table is malformed; nothing else can be checked\n");
        return 1;
    }
#ifdef VIDMM_FLAGS_VIA_VIDMM
    if (!vidmm_start(argc, argv)) {
        printf("Bail out! no adapter on sim://\n");
        return 1;
    }
#endif
    test_sweep();
    test_each_rule_matters();
    test_spots();
    test_null_arguments();
#ifdef VIDMM_FLAGS_VIA_VIDMM
    gr_adapter_close(g_ad); /* the process, its device and buffer with it */
#endif
    printf("# %d tests, %d failed, %.2f s\n", g_test, g_failed,
           (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (g_test != plan) {
        printf("# plan said %d tests, ran %d\n", plan, g_test);
        return 1;
    }
    return g_failed == 0 ? 0 : 1;
}
