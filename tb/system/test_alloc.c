/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_alloc: the allocation path over sim://: the miniport's DDIs (host/kmd) driven by the OS
 * stand-in (host/dxgk) behind the gr_alloc API, on the real RTL (gpu_core with 512 MiB of VRAM
 * and a 256 MiB BAR1 window: two segments).
 * Usage: test_alloc [--seed N] (default $GR_TEST_SEED, else 1). The seed picks the bus models'
 * timing and the random sizes of the concurrent test.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "d3dkmddi.h"
#include "dxgk_testing.h"
#include "gpuref/gr_alloc.h"
#include "gpuref/gr_alloc_private.h"
#include "gpuref/gr_regmap.h"
#include "gr_link.h"
#include "kmd.h"
#include "sched_fixture.h"

#define KIB UINT64_C(1024)
#define MIB (KIB * 1024)

static unsigned long long seed = 1;
static char uri[160];

typedef struct fx {
    gr_adapter_t *ad;
    gr_process_t *proc;
    gr_gpu_device_t *dev;
    gr_segment_info_t seg[GR_ALLOC_MAX_SEGMENTS];
    uint32_t nseg;
} fx_t;

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    int rc = gr_adapter_open(uri, &f->ad);
    if (rc) {
        print_error("gr_adapter_open(%s): %s (%s)\n", uri, gr_status_name(rc), gr_link_error());
        free(f);
        return -1;
    }
    if (gr_process_create(f->ad, &f->proc) || gr_gpu_device_create(f->proc, &f->dev) ||
        gr_adapter_segments(f->ad, f->seg, GR_ALLOC_MAX_SEGMENTS, &f->nseg)) {
        gr_adapter_close(f->ad);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    gr_adapter_close(f->ad);
    free(f);
    return 0;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static gr_alloc_private_t buffer_priv(uint64_t bytes, uint32_t cpu, uint32_t flags)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_BUFFER;
    p.flags = flags;
    p.cpu_access = cpu;
    p.buffer_bytes = bytes;
    return p;
}

static gr_alloc_private_t surface_priv(uint32_t fmt, uint32_t w, uint32_t h, uint32_t mips, uint32_t slices,
                                       uint32_t cpu, uint32_t flags)
{
    gr_alloc_private_t p;
    memset(&p, 0, sizeof p);
    p.version = GR_ALLOC_PRIVATE_VERSION;
    p.struct_size = sizeof p;
    p.kind = GR_ALLOC_KIND_SURFACE2D;
    p.flags = flags;
    p.cpu_access = cpu;
    p.format = fmt;
    p.width = w;
    p.height = h;
    p.mip_levels = mips;
    p.array_size = slices;
    return p;
}

static gr_alloc_desc_t desc_of(const gr_alloc_private_t *p)
{
    gr_alloc_desc_t d = {.private_data = p, .private_size = sizeof *p};
    return d;
}

static int create1(gr_gpu_device_t *dev, gr_alloc_private_t p, gr_alloc_t *out)
{
    gr_alloc_desc_t d = desc_of(&p);
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

static gr_alloc_info_t query(gr_gpu_device_t *dev, gr_alloc_t h)
{
    gr_alloc_info_t i;
    memset(&i, 0, sizeof i);
    assert_int_equal(gr_alloc_query(dev, h, &i), GR_OK);
    return i;
}

static gr_segment_info_t segment(fx_t *f, uint32_t id)
{
    gr_segment_info_t s[GR_ALLOC_MAX_SEGMENTS];
    uint32_t n = 0;
    assert_int_equal(gr_adapter_segments(f->ad, s, GR_ALLOC_MAX_SEGMENTS, &n), GR_OK);
    assert_true(id >= 1 && id <= n);
    return s[id - 1];
}

/* Where VidMm's Overlay/Capture range starts in a segment: 4/5 of it, in whole pages. */
static uint64_t overlay_floor_of(gr_segment_info_t s)
{
    return (s.size / 5 * 4 + 4095) & ~UINT64_C(4095);
}

static gr_adapter_stats_t stats(fx_t *f)
{
    gr_adapter_stats_t s;
    assert_int_equal(gr_adapter_stats(f->ad, &s), GR_OK);
    return s;
}

/* Raw device access, as gpuctl does it (BAR0 registers, BAR1 bytes), under the link lock. */
typedef struct raw_op {
    int kind; /* 0 read32, 1 write32, 2 ap_read, 3 ap_write */
    uint64_t offset;
    uint32_t value;
    void *buf;
    size_t bytes;
} raw_op_t;

static int raw_fn(gr_link_t *link, void *ctx)
{
    raw_op_t *o = ctx;
    switch (o->kind) {
    case 0:
        return gr_link_read32(link, (uint32_t)o->offset, &o->value);
    case 1:
        return gr_link_write32(link, (uint32_t)o->offset, o->value);
    case 2:
        return gr_link_ap_read(link, o->offset, o->buf, o->bytes);
    default:
        return gr_link_ap_write(link, o->offset, o->buf, o->bytes);
    }
}

static uint32_t reg_read(fx_t *f, uint32_t off)
{
    raw_op_t o = {.kind = 0, .offset = off};
    assert_int_equal(gr_adapter_with_link(f->ad, raw_fn, &o), GR_OK);
    return o.value;
}

static void reg_write(fx_t *f, uint32_t off, uint32_t v)
{
    raw_op_t o = {.kind = 1, .offset = off, .value = v};
    assert_int_equal(gr_adapter_with_link(f->ad, raw_fn, &o), GR_OK);
}

/* Reads VRAM through BAR1 like a tool would: window moved onto addr, read, window back to 0. */
static void vram_read_raw(fx_t *f, uint64_t addr, void *buf, size_t bytes)
{
    reg_write(f, GR_REG_MC_AP_BASE, (uint32_t)(addr & ~UINT64_C(0xfff)));
    raw_op_t o = {.kind = 2, .offset = addr & 0xfff, .buf = buf, .bytes = bytes};
    assert_int_equal(gr_adapter_with_link(f->ad, raw_fn, &o), GR_OK);
    reg_write(f, GR_REG_MC_AP_BASE, 0);
}

static void vram_write_raw(fx_t *f, uint64_t addr, const void *buf, size_t bytes)
{
    reg_write(f, GR_REG_MC_AP_BASE, (uint32_t)(addr & ~UINT64_C(0xfff)));
    raw_op_t o = {.kind = 3, .offset = addr & 0xfff, .buf = (void *)buf, .bytes = bytes};
    assert_int_equal(gr_adapter_with_link(f->ad, raw_fn, &o), GR_OK);
    reg_write(f, GR_REG_MC_AP_BASE, 0);
}

static void fill_pattern(uint8_t *p, size_t n, uint32_t salt)
{
    uint32_t x = salt * 2654435761u + (uint32_t)seed;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

/* ---- adapter start: caps and segments ------------------------------------------------------ */

static void segments_come_from_the_mc_registers(void **state)
{
    fx_t *f = *state;
    uint64_t vram = ((uint64_t)reg_read(f, GR_REG_MC_VRAM_SIZE_HI) << 32) | reg_read(f, GR_REG_MC_VRAM_SIZE_LO);
    uint64_t ap = reg_read(f, GR_REG_MC_AP_SIZE);
    assert_true(vram > ap); /* this suite's simulation: 512 MiB VRAM, 256 MiB BAR1 */
    assert_int_equal(f->nseg, 2);
    assert_int_equal(f->seg[0].id, 1);
    assert_int_equal(f->seg[0].base, 0);
    assert_int_equal(f->seg[0].size, ap);
    assert_true(f->seg[0].cpu_visible);
    assert_false(f->seg[0].vpr);
    assert_int_equal(f->seg[1].base, ap);
    assert_int_equal(f->seg[1].size, vram - ap);
    assert_false(f->seg[1].cpu_visible);
    /* The VPR: top 1/16 of the VprSupported segment, programmed and enabled. */
    assert_true(f->seg[1].vpr);
    assert_int_equal(f->seg[1].vpr_size, f->seg[1].size / 16);
    assert_int_equal(f->seg[1].vpr_offset + f->seg[1].vpr_size, f->seg[1].size);
    assert_int_equal(reg_read(f, GR_REG_VPR_BASE), f->seg[1].base + f->seg[1].vpr_offset);
    assert_int_equal(reg_read(f, GR_REG_VPR_LIMIT), f->seg[1].base + f->seg[1].size);
    assert_int_equal(reg_read(f, GR_REG_VPR_CTRL) & 1u, 1u);
    assert_int_equal(reg_read(f, GR_REG_MC_AP_BASE), 0);
    assert_int_equal(f->seg[0].free_bytes, f->seg[0].size);
    /* What is neither free nor VPR holds the device's page tables (4 KiB pages). */
    assert_int_equal(f->seg[1].size - f->seg[1].vpr_size - f->seg[1].free_bytes, f->seg[1].allocations * 4096);
    assert_true(f->seg[1].allocations >= 1); /* the root table of the fixture's device */
}

static void query_adapter_info_follows_the_two_call_pattern(void **state)
{
    fx_t *f = *state;
    HANDLE ha = gr_dxgk_test_hadapter(f->ad);
    DXGK_QUERYSEGMENTOUT4 out;
    memset(&out, 0, sizeof out);
    out.PagingBufferSize = 0x5a5a; /* the count-only call must not touch it */
    DXGKARG_QUERYADAPTERINFO q = {.Type = DXGKQAITYPE_QUERYSEGMENT4, .pOutputData = &out,
                                  .OutputDataSize = sizeof out};
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &q), STATUS_SUCCESS);
    assert_int_equal(out.NbSegment, 2);
    assert_int_equal(out.PagingBufferSize, 0x5a5a);
    DXGK_SEGMENTDESCRIPTOR4 d[2];
    out.NbSegment = 1; /* too few */
    out.pSegmentDescriptor = (BYTE *)d;
    out.SegmentDescriptorStride = sizeof d[0];
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &q), STATUS_BUFFER_TOO_SMALL);
    out.NbSegment = 2;
    out.SegmentDescriptorStride = sizeof d[0] - 8;
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &q), STATUS_INVALID_PARAMETER);
    out.SegmentDescriptorStride = sizeof d[0];
    q.OutputDataSize = sizeof out - 1;
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &q), STATUS_BUFFER_TOO_SMALL);
    q.OutputDataSize = sizeof out;
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &q), STATUS_SUCCESS);
    assert_int_equal(d[0].Flags.CpuVisible, 1);
    assert_int_equal(d[1].Flags.CpuVisible, 0);
    assert_int_equal(d[1].Flags.VprSupported, 1);
    assert_int_equal(d[0].Flags.VprSupported, 0);
    assert_int_equal((uint64_t)d[1].BaseAddress.QuadPart, d[0].Size);
    DXGK_QUERYSEGMENTIN4 in = {.PhysicalAdapterIndex = 1};
    q.pInputData = &in;
    q.InputDataSize = sizeof in;
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &q), STATUS_INVALID_PARAMETER);

    DXGK_DRIVERCAPS caps;
    DXGKARG_QUERYADAPTERINFO qc = {.Type = DXGKQAITYPE_DRIVERCAPS, .pOutputData = &caps,
                                   .OutputDataSize = sizeof caps - 1};
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &qc), STATUS_BUFFER_TOO_SMALL);
    qc.OutputDataSize = sizeof caps;
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &qc), STATUS_SUCCESS);
    assert_int_equal(caps.MemoryManagementCaps.GpuMmuSupported, 1);
    assert_int_equal(caps.MemoryManagementCaps.VirtualAddressingSupported, 1);
    assert_int_equal(caps.MemoryManagementCaps.MapAperture2Supported, 0);
    assert_int_equal(caps.MemoryManagementCaps.IoMmuSupported, 0);
    assert_int_equal(caps.PresentationCaps.NoCacheCoherentApertureMemory, 1);
    assert_int_equal(caps.WDDMVersion, 0);
    DXGKARG_QUERYADAPTERINFO qu = {.Type = DXGKQAITYPE_GPUMMUCAPS, .pOutputData = &caps,
                                   .OutputDataSize = sizeof caps};
    assert_int_equal(DxgkDdiQueryAdapterInfo(ha, &qu), STATUS_NOT_SUPPORTED);
}

/* ---- CreateAllocation: private data, flags, size, alignment, segment sets ----------------- */

static void create_maps_requests_to_wddm2_flags(void **state)
{
    fx_t *f = *state;
    struct {
        gr_alloc_private_t p;
        uint32_t want_flags;
        uint32_t want_set;
    } cases[] = {
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, 0), 0, 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_WRITE, 0), 1u << 0, 0x1},                        /* CpuVisible */
        {buffer_priv(4096, GR_CPU_ACCESS_READ, 0), (1u << 0) | (1u << 2), 0x1},            /* + Cached */
        {buffer_priv(4096, GR_CPU_ACCESS_ON_DEMAND, 0), 1u << 18, 0x3},                   /* OnDemand */
        {buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_PERMANENT_SYSMEM), 0x3, 0x1},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_PROTECTED), 1u << 3, 0x2},   /* the VPR's */
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_FROM_END), 1u << 6, 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_NO_LARGE_PAGES), 1u << 7, 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_OVERLAY), 1u << 8, 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_CAPTURE), 1u << 9, 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_IN_VPR), (1u << 10) | (1u << 17), 0x2},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_HISTORY_BUFFER), (1u << 0) | (1u << 14), 0x1},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_PHYSICAL), 1u << 15, 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_PHYSICAL | GR_ALLOC_PRIV_EXPLICIT_RESIDENCY),
         (1u << 15) | (1u << 16), 0x3},
        {buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_CACHED), (1u << 0) | (1u << 2), 0x1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gr_alloc_t h = 0;
        assert_int_equal(create1(f->dev, cases[i].p, &h), GR_OK);
        assert_int_not_equal(h, 0);
        gr_alloc_info_t info = query(f->dev, h);
        if (info.flags_wddm2 != cases[i].want_flags)
            fail_msg("case %zu: flags 0x%x, want 0x%x", i, info.flags_wddm2, cases[i].want_flags);
        assert_int_equal(info.supported_segments, cases[i].want_set);
        assert_true(info.creator);
        assert_false(info.read_only);
        assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    }
    gr_adapter_stats_t s = stats(f);
    assert_int_equal(s.kmd_allocations, 0);
    assert_int_equal(s.kmd_opens, 0);
}

static void size_and_alignment_follow_kind_and_size(void **state)
{
    fx_t *f = *state;
    struct {
        gr_alloc_private_t p;
        uint64_t size;
        uint32_t align;
    } cases[] = {
        {buffer_priv(1, 0, 0), 4096, 4096},
        {buffer_priv(4097, 0, 0), 8192, 4096},
        {buffer_priv(64 * KIB, 0, 0), 64 * KIB, 64 * KIB},
        {buffer_priv(2 * MIB, 0, 0), 2 * MIB, 2 * MIB},
        {buffer_priv(3 * MIB + 5, 0, GR_ALLOC_PRIV_NO_LARGE_PAGES), 3 * MIB + 4096, 4096},
        /* 100 x 10 A8R8G8B8: pitch 512 (400 rounded to 256), 5120 bytes, two pages, 64 KiB aligned */
        {surface_priv(D3DDDIFMT_A8R8G8B8, 100, 10, 1, 1, 0, 0), 8192, 64 * KIB},
        /* 1024 x 1024 x 4 bytes = 4 MiB per slice, 2 slices */
        {surface_priv(D3DDDIFMT_X8R8G8B8, 1024, 1024, 1, 2, 0, 0), 8 * MIB, 2 * MIB},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gr_alloc_t h = 0;
        assert_int_equal(create1(f->dev, cases[i].p, &h), GR_OK);
        gr_alloc_info_t info = query(f->dev, h);
        if (info.size != cases[i].size || info.alignment != cases[i].align)
            fail_msg("case %zu: size %llu align %u", i, (unsigned long long)info.size, info.alignment);
        assert_int_equal(info.vram_address % info.alignment, 0);
        assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    }
}

static void bad_private_data_is_refused_and_changes_nothing(void **state)
{
    fx_t *f = *state;
    gr_adapter_stats_t before = stats(f);
    gr_segment_info_t s1 = segment(f, 1), s2 = segment(f, 2);
    gr_alloc_private_t bad[20];
    int n = 0;
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].version = 2;
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].struct_size = 60;
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].kind = 3;
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].flags = 1u << 13; /* unknown bit */
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].reserved[2] = 1;
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].cpu_access = 5;
    bad[n++] = buffer_priv(0, 0, 0);
    bad[n] = buffer_priv(4096, 0, 0), bad[n++].width = 4; /* surface field on a buffer */
    bad[n++] = buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_PERMANENT_SYSMEM);
    bad[n++] = buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_CACHED);
    bad[n++] = buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_EXPLICIT_RESIDENCY);
    bad[n++] = buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_IN_VPR);
    bad[n++] = buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_HISTORY_BUFFER | GR_ALLOC_PRIV_OVERLAY);
    bad[n++] = buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_PROTECTED | GR_ALLOC_PRIV_PERMANENT_SYSMEM);
    bad[n++] = surface_priv(D3DDDIFMT_INDEX16, 16, 16, 1, 1, 0, 0);
    bad[n++] = surface_priv(D3DDDIFMT_A8, 16, 16, 6, 1, 0, 0); /* a 16x16 chain has 5 levels */
    bad[n++] = surface_priv(D3DDDIFMT_A8, 0, 16, 1, 1, 0, 0);
    bad[n++] = surface_priv(D3DDDIFMT_A8, 16, 16, 1, 0, 0, 0);
    bad[n++] = surface_priv(D3DDDIFMT_A8R8G8B8, 16384, 16384, 1, 8, 0, 0); /* 8 GiB */
    for (int i = 0; i < n; i++) {
        gr_alloc_t h = 0x1234;
        if (create1(f->dev, bad[i], &h) != GR_E_INVALID)
            fail_msg("bad private data %d was accepted", i);
        assert_int_equal(h, 0x1234);
    }
    /* Wrong size of the blob itself. */
    gr_alloc_private_t ok = buffer_priv(4096, 0, 0);
    gr_alloc_desc_t d = {.private_data = &ok, .private_size = sizeof ok - 4};
    gr_alloc_t h = 0;
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_E_INVALID);
    /* Bad resource data. */
    gr_resource_private_t rp = {.version = 9, .struct_size = sizeof rp};
    gr_resource_desc_t rd = {.private_data = &rp, .private_size = sizeof rp};
    d.private_size = sizeof ok;
    assert_int_equal(gr_alloc_create(f->dev, &rd, &d, 1, &h, NULL), GR_E_INVALID);
    gr_adapter_stats_t after = stats(f);
    assert_int_equal(after.kmd_allocations, before.kmd_allocations);
    assert_int_equal(after.kmd_resources, before.kmd_resources);
    assert_int_equal(after.ddi_create_allocation, before.ddi_create_allocation + (uint64_t)n + 2);
    assert_int_equal(segment(f, 1).free_bytes, s1.free_bytes);
    assert_int_equal(segment(f, 2).free_bytes, s2.free_bytes);
}

/* ---- flag rules on the miniport's answer ------------------------------------------------- */

static int hook_mode;
static void break_answer(void *ctx, DXGK_ALLOCATIONINFO *infos, UINT count)
{
    (void)ctx;
    DXGK_ALLOCATIONINFO *i = &infos[count - 1];
    switch (hook_mode) {
    case 1: /* PermanentSysMem without CpuVisible */
        i->FlagsWddm2.PermanentSysMem = 1;
        i->FlagsWddm2.CpuVisible = 0;
        break;
    case 2: /* a preference for a segment outside the supported set */
        i->SupportedWriteSegmentSet = 0x1;
        i->PreferredSegment.SegmentId0 = 2;
        break;
    case 3:
        i->AllocationPriority = 0;
        break;
    case 4: /* MapApertureCpuVisible without MapAperture2Supported */
        i->FlagsWddm2.MapApertureCpuVisible = 1;
        break;
    case 5: /* a reserved bit */
        i->FlagsWddm2.Value |= 1u << 20;
        break;
    default:
        break;
    }
}

static void flag_rules_are_checked_on_the_miniports_answer(void **state)
{
    fx_t *f = *state;
    gr_dxgk_test_set_create_hook(f->ad, break_answer, NULL);
    gr_segment_info_t s1 = segment(f, 1), s2 = segment(f, 2);
    for (hook_mode = 1; hook_mode <= 5; hook_mode++) {
        gr_adapter_stats_t before = stats(f);
        gr_alloc_private_t p[2] = {buffer_priv(8192, GR_CPU_ACCESS_WRITE, 0), buffer_priv(4096, 0, 0)};
        gr_alloc_desc_t d[2] = {desc_of(&p[0]), desc_of(&p[1])};
        gr_resource_desc_t rd = {0};
        gr_alloc_t h[2] = {0, 0};
        assert_int_equal(gr_alloc_create(f->dev, &rd, d, 2, h, NULL), GR_E_INVALID);
        assert_int_equal(h[0], 0);
        gr_adapter_stats_t after = stats(f);
        /* Rolled back through the DDI: both allocations and the resource went back. */
        assert_int_equal(after.ddi_destroy_allocation, before.ddi_destroy_allocation + 1);
        assert_int_equal(after.ddi_destroy_resource, before.ddi_destroy_resource + 1);
        assert_int_equal(after.kmd_allocations, 0);
        assert_int_equal(after.kmd_resources, 0);
        assert_int_equal(after.ddi_open_allocation, before.ddi_open_allocation);
    }
    hook_mode = 0;
    gr_dxgk_test_set_create_hook(f->ad, NULL, NULL);
    assert_int_equal(segment(f, 1).free_bytes, s1.free_bytes);
    assert_int_equal(segment(f, 2).free_bytes, s2.free_bytes);
}

/* ---- resources, DestroyResource --------------------------------------------------------- */

static void destroy_resource_comes_with_the_last_allocation(void **state)
{
    fx_t *f = *state;
    gr_resource_private_t rp = {.version = GR_ALLOC_PRIVATE_VERSION, .struct_size = sizeof rp, .tag = 7};
    gr_resource_desc_t rd = {.private_data = &rp, .private_size = sizeof rp};
    gr_alloc_private_t p = buffer_priv(4096, 0, 0);
    gr_alloc_desc_t d[3] = {desc_of(&p), desc_of(&p), desc_of(&p)};
    gr_alloc_t h[3];
    gr_adapter_stats_t s0 = stats(f);
    assert_int_equal(gr_alloc_create(f->dev, &rd, d, 3, h, NULL), GR_OK);
    gr_adapter_stats_t s = stats(f);
    assert_int_equal(s.kmd_resources, 1);
    assert_int_equal(s.kmd_allocations, 3);
    assert_int_equal(s.kmd_opens, 3);
    assert_int_equal(s.ddi_open_allocation, s0.ddi_open_allocation + 1); /* one Create open */
    assert_int_not_equal(h[0], h[1]);
    assert_int_equal(gr_alloc_destroy(f->dev, h[1]), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h[0]), GR_OK);
    s = stats(f);
    assert_int_equal(s.kmd_resources, 1);
    assert_int_equal(s.ddi_destroy_resource, s0.ddi_destroy_resource);
    assert_int_equal(s.ddi_close_allocation, s0.ddi_close_allocation + 2);
    assert_int_equal(gr_alloc_destroy(f->dev, h[2]), GR_OK);
    s = stats(f);
    assert_int_equal(s.kmd_resources, 0);
    assert_int_equal(s.kmd_allocations, 0);
    assert_int_equal(s.kmd_opens, 0);
    assert_int_equal(s.ddi_destroy_resource, s0.ddi_destroy_resource + 1);
    assert_int_equal(s.ddi_destroy_allocation, s0.ddi_destroy_allocation + 3);
    /* Without a resource: never DestroyResource. */
    gr_alloc_t h1;
    assert_int_equal(create1(f->dev, p, &h1), GR_OK);
    assert_int_equal(stats(f).kmd_resources, 0);
    assert_int_equal(gr_alloc_destroy(f->dev, h1), GR_OK);
    assert_int_equal(stats(f).ddi_destroy_resource, s0.ddi_destroy_resource + 1);
}

/* ---- placement ---------------------------------------------------------------------------- */

static void placement_honours_preference_and_supported_set(void **state)
{
    fx_t *f = *state;
    gr_alloc_t a, b, c;
    assert_int_equal(create1(f->dev, buffer_priv(MIB, GR_CPU_ACCESS_NONE, 0), &a), GR_OK);
    assert_int_equal(query(f->dev, a).segment, 2); /* preferred: keep the visible VRAM free */
    assert_int_equal(create1(f->dev, buffer_priv(MIB, GR_CPU_ACCESS_WRITE, 0), &b), GR_OK);
    assert_int_equal(query(f->dev, b).segment, 1);
    /* Fill segment 2 (outside the VPR); a GPU-only allocation then goes to segment 1. */
    assert_int_equal(gr_alloc_destroy(f->dev, a), GR_OK);
    gr_segment_info_t s2 = segment(f, 2);
    gr_alloc_t big;
    assert_int_equal(create1(f->dev, buffer_priv(s2.largest_free, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_NO_LARGE_PAGES), &big),
                     GR_OK);
    assert_int_equal(query(f->dev, big).segment, 2);
    assert_true(segment(f, 2).largest_free < MIB); /* page-table pages may come and go */
    assert_int_equal(create1(f->dev, buffer_priv(MIB, GR_CPU_ACCESS_NONE, 0), &c), GR_OK);
    assert_int_equal(query(f->dev, c).segment, 1);
    assert_int_equal(query(f->dev, c).offset % (64 * KIB), 0);
    assert_int_equal(gr_alloc_destroy(f->dev, c), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, b), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, big), GR_OK);
}

static void from_end_of_segment_places_top_down(void **state)
{
    fx_t *f = *state;
    gr_alloc_t lo, hi, hi2;
    assert_int_equal(create1(f->dev, buffer_priv(64 * KIB, GR_CPU_ACCESS_WRITE, 0), &lo), GR_OK);
    assert_int_equal(create1(f->dev, buffer_priv(64 * KIB, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_FROM_END), &hi), GR_OK);
    assert_int_equal(create1(f->dev, buffer_priv(12 * KIB, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_FROM_END), &hi2), GR_OK);
    gr_segment_info_t s1 = segment(f, 1);
    gr_alloc_info_t l = query(f->dev, lo), h = query(f->dev, hi), h2 = query(f->dev, hi2);
    assert_int_equal(l.offset, 0);
    assert_int_equal(h.segment, 1);
    /* The top of the segment below the Overlay/Capture range (which stays for those), as
     * high as its 64 KiB alignment allows. */
    assert_true(h.offset + h.size <= overlay_floor_of(s1));
    assert_true(overlay_floor_of(s1) - (h.offset + h.size) < 64 * KIB);
    /* The smallest free range that holds it, at its top: the gap h's alignment left, if any. */
    if (overlay_floor_of(s1) - (h.offset + h.size) >= h2.size)
        assert_int_equal(h2.offset + h2.size, overlay_floor_of(s1));
    else
        assert_int_equal(h2.offset + h2.size, h.offset);
    /* In segment 2 the VPR holds the top: top-down stops under it, or under the range. */
    gr_alloc_t g;
    assert_int_equal(create1(f->dev, buffer_priv(64 * KIB, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_FROM_END), &g), GR_OK);
    gr_alloc_info_t gi = query(f->dev, g);
    gr_segment_info_t s2 = segment(f, 2);
    uint64_t top2 = overlay_floor_of(s2) < s2.vpr_offset ? overlay_floor_of(s2) : s2.vpr_offset;
    assert_int_equal(gi.segment, 2);
    assert_true(gi.offset + gi.size <= top2);
    assert_true(top2 - (gi.offset + gi.size) < 64 * KIB);
    assert_int_equal(gr_alloc_destroy(f->dev, lo), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, hi), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, hi2), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, g), GR_OK);
}

/*
 * A FromEndOfSegment allocation that a lock pins (VidMm evicts no locked allocation) used to
 * take the top of the segment, inside the Overlay/Capture range, and an overlay that needed
 * most of that range then failed. VidMm now keeps it below the range, and the overlay fits.
 */
static void from_end_of_segment_leaves_the_overlay_range_to_overlays(void **state)
{
    fx_t *f = *state;
    gr_segment_info_t s1 = segment(f, 1);
    const uint64_t range = s1.size - overlay_floor_of(s1); /* 51.2 MiB */
    gr_alloc_t top, ov;
    void *ptr = NULL;
    assert_int_equal(create1(f->dev, buffer_priv(range / 2, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_FROM_END), &top),
                     GR_OK);
    assert_int_equal(gr_alloc_lock(f->dev, top, 0, &ptr), GR_OK);
    assert_int_equal(create1(f->dev, buffer_priv(range - range / 8, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_OVERLAY), &ov),
                     GR_OK);
    gr_alloc_info_t t = query(f->dev, top);
    assert_int_equal(t.segment, 1);
    assert_true(t.offset + t.size <= overlay_floor_of(s1)); /* below the range, as high as */
    assert_true(overlay_floor_of(s1) - (t.offset + t.size) < 2 * MIB); /* its alignment allows */
    gr_alloc_info_t o = query(f->dev, ov);
    assert_int_equal(o.segment, 1);
    assert_true(o.offset >= overlay_floor_of(s1));
    assert_int_equal(gr_alloc_destroy(f->dev, ov), GR_OK);
    assert_int_equal(gr_alloc_unlock(f->dev, top), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, top), GR_OK);
}

static void overlay_and_capture_live_in_the_last_fifth(void **state)
{
    fx_t *f = *state;
    uint32_t kinds[2] = {GR_ALLOC_PRIV_OVERLAY, GR_ALLOC_PRIV_CAPTURE};
    for (int k = 0; k < 2; k++)
        for (uint32_t cpu = 0; cpu <= GR_CPU_ACCESS_WRITE; cpu += GR_CPU_ACCESS_WRITE) {
            gr_alloc_t h;
            assert_int_equal(create1(f->dev, buffer_priv(256 * KIB, cpu, kinds[k]), &h), GR_OK);
            gr_alloc_info_t i = query(f->dev, h);
            gr_segment_info_t s = segment(f, i.segment);
            assert_true(i.offset * 5 >= s.size * 4);
            assert_true(i.offset + i.size <= s.size);
            assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
        }
    /* The last fifth of segment 1 is 51.2 MiB: a 52 MiB CPU-visible overlay cannot fit. */
    gr_alloc_t h;
    assert_int_equal(create1(f->dev, buffer_priv(52 * MIB, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_OVERLAY), &h),
                     GR_E_NO_MEMORY);
    assert_int_equal(create1(f->dev, buffer_priv(50 * MIB, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_OVERLAY), &h), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
}

static void vpr_allocations_land_inside_the_vpr(void **state)
{
    fx_t *f = *state;
    gr_segment_info_t s2 = segment(f, 2);
    uint64_t vbase = reg_read(f, GR_REG_VPR_BASE), vlimit = reg_read(f, GR_REG_VPR_LIMIT);
    uint64_t base_allocs = s2.allocations;
    gr_alloc_t h[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(create1(f->dev, buffer_priv(MIB, 0, GR_ALLOC_PRIV_IN_VPR), &h[i]), GR_OK);
        gr_alloc_info_t info = query(f->dev, h[i]);
        assert_int_equal(info.segment, 2);
        assert_true(info.vram_address >= vbase && info.vram_address + info.size <= vlimit);
    }
    /* Ordinary allocations never land in the VPR. */
    gr_alloc_t o;
    assert_int_equal(create1(f->dev, buffer_priv(MIB, 0, GR_ALLOC_PRIV_FROM_END), &o), GR_OK);
    assert_true(query(f->dev, o).vram_address + MIB <= vbase);
    /* The VPR is full at its size. */
    gr_alloc_t big;
    assert_int_equal(create1(f->dev, buffer_priv(s2.vpr_size, 0, GR_ALLOC_PRIV_IN_VPR), &big), GR_E_NO_MEMORY);
    assert_true(segment(f, 2).allocations >= base_allocs + 4); /* + page tables */
    for (int i = 0; i < 3; i++)
        assert_int_equal(gr_alloc_destroy(f->dev, h[i]), GR_OK);
    assert_int_equal(create1(f->dev, buffer_priv(s2.vpr_size, 0, GR_ALLOC_PRIV_IN_VPR), &big), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, big), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, o), GR_OK);
}

static bool count_ranges(void *ctx, uint64_t offset, uint64_t size, gr_segment_range_kind_t kind)
{
    uint64_t *c = ctx;
    (void)offset;
    c[kind] += size;
    return true;
}

static void no_memory_when_nothing_fits_changes_nothing(void **state)
{
    fx_t *f = *state;
    gr_alloc_t keep;
    assert_int_equal(create1(f->dev, buffer_priv(MIB, GR_CPU_ACCESS_WRITE, 0), &keep), GR_OK);
    gr_segment_info_t s1 = segment(f, 1), s2 = segment(f, 2);
    gr_adapter_stats_t before = stats(f);
    /* The second allocation cannot fit anywhere, even with everything evicted (it is larger
     * than segment 1, the only one it may use): the first, which fits, must be undone, and
     * nothing may be evicted for it. */
    gr_alloc_private_t p[2] = {buffer_priv(MIB, 0, 0), buffer_priv(s1.size + 64 * KIB, GR_CPU_ACCESS_WRITE, 0)};
    gr_alloc_desc_t d[2] = {desc_of(&p[0]), desc_of(&p[1])};
    gr_alloc_t h[2] = {0x77, 0x77};
    assert_int_equal(gr_alloc_create(f->dev, NULL, d, 2, h, NULL), GR_E_NO_MEMORY);
    assert_int_equal(h[0], 0x77);
    gr_adapter_stats_t after = stats(f);
    assert_int_equal(after.kmd_allocations, before.kmd_allocations);
    assert_int_equal(after.ddi_destroy_allocation, before.ddi_destroy_allocation + 1);
    assert_int_equal(segment(f, 1).free_bytes, s1.free_bytes);
    assert_int_equal(segment(f, 2).free_bytes, s2.free_bytes);
    assert_int_equal(segment(f, 1).allocations, s1.allocations);
    uint64_t c[3] = {0, 0, 0};
    assert_int_equal(gr_segment_walk(f->ad, 1, count_ranges, c), GR_OK);
    assert_int_equal(c[GR_RANGE_ALLOCATION], MIB);
    assert_int_equal(c[GR_RANGE_FREE], s1.size - MIB);
    uint64_t c2[3] = {0, 0, 0};
    assert_int_equal(gr_segment_walk(f->ad, 2, count_ranges, c2), GR_OK);
    assert_int_equal(c2[GR_RANGE_VPR_FREE], s2.vpr_size);
    assert_int_equal(c2[GR_RANGE_FREE] + c2[GR_RANGE_VPR_FREE] + c2[GR_RANGE_ALLOCATION], s2.size);
    assert_int_equal(c2[GR_RANGE_FREE], s2.free_bytes);
    assert_int_equal(gr_alloc_destroy(f->dev, keep), GR_OK);
}

/* ---- lock / unlock ------------------------------------------------------------------------ */

static void lock_round_trips_through_the_aperture(void **state)
{
    fx_t *f = *state;
    gr_alloc_t h;
    const size_t n = 3 * 4096 + 100;
    assert_int_equal(create1(f->dev, buffer_priv(n, GR_CPU_ACCESS_READ_WRITE, 0), &h), GR_OK);
    gr_alloc_info_t info = query(f->dev, h);
    assert_int_equal(info.segment, 1);
    uint8_t *want = malloc(n), *got = malloc(n);
    fill_pattern(want, n, 1);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &ptr), GR_OK);
    assert_non_null(ptr);
    assert_int_equal((uintptr_t)ptr % 4096, 0);
    assert_true(query(f->dev, h).locked);
    void *again = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &again), GR_E_BUSY);
    memcpy(ptr, want, n);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_E_INVALID);
    /* The bytes are in VRAM: read them the way gpuctl would, and with a second lock. */
    vram_read_raw(f, info.vram_address, got, n);
    assert_memory_equal(got, want, n);
    assert_int_equal(gr_alloc_lock(f->dev, h, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    assert_memory_equal(ptr, want, n);
    memset(ptr, 0, n); /* read-only lock: not written back */
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    vram_read_raw(f, info.vram_address, got, n);
    assert_memory_equal(got, want, n);
    /* And data written into VRAM behind the driver's back shows up at the next lock. */
    fill_pattern(want, 64, 9);
    vram_write_raw(f, info.vram_address + 4096, want, 64);
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &ptr), GR_OK);
    assert_memory_equal((uint8_t *)ptr + 4096, want, 64);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(stats(f).lock_window_moves, 0); /* segment 1 is in the default window */
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    free(want);
    free(got);
}

/* The device's cycle counter (DMA_TIMESTAMP: reading LO latches HI). */
static uint64_t device_cycles(fx_t *f)
{
    uint32_t lo = reg_read(f, GR_REG_DMA_TIMESTAMP_LO);
    return (uint64_t)reg_read(f, GR_REG_DMA_TIMESTAMP_LO + 4) << 32 | lo;
}

/*
 * gr_alloc_lock_range moves only the pages it locks through BAR1: reading 8 bytes of a 1 MiB
 * allocation costs a small fraction of the device cycles a whole lock costs; a write lock of a
 * few bytes writes back its page only (the rest of VRAM is as it was); bad ranges are refused
 * and lock nothing.
 */
static void range_lock_moves_only_its_pages(void **state)
{
    fx_t *f = *state;
    gr_alloc_t h;
    const size_t n = MIB;
    assert_int_equal(create1(f->dev, buffer_priv(n, GR_CPU_ACCESS_READ_WRITE, 0), &h), GR_OK);
    gr_alloc_info_t info = query(f->dev, h);
    uint8_t *want = malloc(n), *got = malloc(n);
    assert_non_null(want);
    assert_non_null(got);
    fill_pattern(want, n, 5);
    void *ptr = NULL;
    uint64_t c0 = device_cycles(f);
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &ptr), GR_OK);
    const uint64_t whole = device_cycles(f) - c0;
    memcpy(ptr, want, n);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    /* 8 bytes in the middle of a page: the pointer is at them, and they are right. */
    const uint64_t at = 5 * 4096 + 12;
    c0 = device_cycles(f);
    assert_int_equal(gr_alloc_lock_range(f->dev, h, GR_LOCK_READ_ONLY, at, 8, &ptr), GR_OK);
    const uint64_t part = device_cycles(f) - c0;
    assert_memory_equal(ptr, want + at, 8);
    assert_true(query(f->dev, h).locked);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    print_message("# whole lock of 1 MiB: %llu cycles; 8 bytes: %llu\n", (unsigned long long)whole,
                  (unsigned long long)part);
    assert_true(whole >= n / 8); /* at least a beat a qword */
    assert_true(part * 16 < whole);
    /* A write lock of 16 bytes across nothing else: only they change in VRAM. */
    const uint64_t wat = 3 * 4096 + 8;
    assert_int_equal(gr_alloc_lock_range(f->dev, h, 0, wat, 16, &ptr), GR_OK);
    memset(ptr, 0xee, 16);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    memset(want + wat, 0xee, 16);
    vram_read_raw(f, info.vram_address, got, n);
    assert_memory_equal(got, want, n);
    /* Bad ranges: GR_E_RANGE, nothing locked, the pointer untouched. */
    void *keep = (void *)&keep;
    ptr = keep;
    assert_int_equal(gr_alloc_lock_range(f->dev, h, 0, 0, 0, &ptr), GR_E_RANGE);
    assert_int_equal(gr_alloc_lock_range(f->dev, h, 0, n, 8, &ptr), GR_E_RANGE);
    assert_int_equal(gr_alloc_lock_range(f->dev, h, 0, n - 8, 16, &ptr), GR_E_RANGE);
    assert_int_equal(gr_alloc_lock_range(f->dev, h, 0, 8, UINT64_MAX, &ptr), GR_E_RANGE);
    assert_ptr_equal(ptr, keep);
    assert_false(query(f->dev, h).locked);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    free(want);
    free(got);
}

static void on_demand_lock_moves_the_window_and_puts_it_back(void **state)
{
    fx_t *f = *state;
    gr_alloc_t h;
    const size_t n = 2 * 4096;
    assert_int_equal(create1(f->dev, buffer_priv(n, GR_CPU_ACCESS_ON_DEMAND, 0), &h), GR_OK);
    gr_alloc_info_t info = query(f->dev, h);
    assert_int_equal(info.segment, 2); /* not CPU visible without the window moving */
    assert_true(info.vram_address >= segment(f, 1).size);
    uint8_t want[2 * 4096], got[2 * 4096];
    fill_pattern(want, n, 2);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, h, GR_LOCK_DISCARD, &ptr), GR_OK);
    assert_int_equal(reg_read(f, GR_REG_MC_AP_BASE), 0); /* released after the copy */
    memcpy(ptr, want, n);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(reg_read(f, GR_REG_MC_AP_BASE), 0);
    assert_true(stats(f).lock_window_moves >= 1);
    vram_read_raw(f, info.vram_address, got, n);
    assert_memory_equal(got, want, n);
    assert_int_equal(gr_alloc_lock(f->dev, h, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    assert_memory_equal(ptr, want, n);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
}

static void lock_refuses_gpu_only_protected_and_vpr_allocations(void **state)
{
    fx_t *f = *state;
    gr_alloc_private_t cases[] = {
        buffer_priv(4096, GR_CPU_ACCESS_NONE, 0),
        buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_PROTECTED),
        buffer_priv(4096, GR_CPU_ACCESS_ON_DEMAND, GR_ALLOC_PRIV_PROTECTED),
        buffer_priv(4096, GR_CPU_ACCESS_NONE, GR_ALLOC_PRIV_IN_VPR),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gr_alloc_t h;
        assert_int_equal(create1(f->dev, cases[i], &h), GR_OK);
        void *ptr = (void *)0x1;
        assert_int_equal(gr_alloc_lock(f->dev, h, 0, &ptr), GR_E_INVALID);
        assert_int_equal(gr_alloc_lock(f->dev, h, GR_LOCK_READ_ONLY, &ptr), GR_E_INVALID);
        assert_ptr_equal(ptr, (void *)0x1);
        assert_false(query(f->dev, h).locked);
        assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    }
}

static void vpr_refuses_the_aperture(void **state)
{
    fx_t *f = *state;
    gr_alloc_t h;
    assert_int_equal(create1(f->dev, buffer_priv(64 * KIB, 0, GR_ALLOC_PRIV_IN_VPR), &h), GR_OK);
    gr_alloc_info_t info = query(f->dev, h);
    reg_write(f, GR_REG_MC_FAULT_STATUS, 1); /* release any held fault */
    uint8_t pat[256], got[256];
    fill_pattern(pat, sizeof pat, 3);
    vram_write_raw(f, info.vram_address + 512, pat, sizeof pat);
    uint32_t fs = reg_read(f, GR_REG_MC_FAULT_STATUS);
    assert_int_equal(fs & 1u, 1u);
    assert_int_equal((fs >> 4) & 7u, 4u); /* TYPE 4: VPR */
    assert_int_equal((fs >> 12) & 1u, 1u); /* a write */
    uint64_t fa = ((uint64_t)reg_read(f, GR_REG_MC_FAULT_ADDR_HI) << 32) | reg_read(f, GR_REG_MC_FAULT_ADDR_LO);
    assert_true(fa >= info.vram_address && fa < info.vram_address + info.size);
    reg_write(f, GR_REG_MC_FAULT_STATUS, 1);
    memset(got, 0xee, sizeof got);
    vram_read_raw(f, info.vram_address + 512, got, sizeof got);
    uint8_t zero[256] = {0};
    assert_memory_equal(got, zero, sizeof got);
    fs = reg_read(f, GR_REG_MC_FAULT_STATUS);
    assert_int_equal((fs >> 4) & 7u, 4u);
    reg_write(f, GR_REG_MC_FAULT_STATUS, 1);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
}

static void permanent_and_existing_sysmem_lock_system_memory(void **state)
{
    fx_t *f = *state;
    /* PermanentSysMem: lock returns the system copy, unlock pages it into VRAM. */
    gr_alloc_t h;
    assert_int_equal(create1(f->dev, buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_PERMANENT_SYSMEM), &h),
                     GR_OK);
    gr_alloc_info_t info = query(f->dev, h);
    void *p1 = NULL, *p2 = NULL;
    uint8_t want[4096], got[4096];
    fill_pattern(want, sizeof want, 4);
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &p1), GR_OK);
    memcpy(p1, want, sizeof want);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    vram_read_raw(f, info.vram_address, got, sizeof got);
    assert_memory_equal(got, want, sizeof got);
    assert_int_equal(gr_alloc_lock(f->dev, h, GR_LOCK_READ_ONLY, &p2), GR_OK);
    assert_ptr_equal(p1, p2); /* the same copy, kept */
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);

    /* ExistingSysMem: the caller's pages (memory the device reaches), validated. */
    gr_sysmem_t sm;
    assert_int_equal(gr_sysmem_alloc(f->proc, 3 * 4096, &sm), GR_OK);
    uint8_t *mem = sm.cpu;
    gr_alloc_private_t p = buffer_priv(2 * 4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_EXISTING_SYSMEM);
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p, .sysmem = mem, .sysmem_bytes = 2 * 4096};
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_OK);
    info = query(f->dev, h);
    assert_int_equal(info.segment, GR_SEGMENT_SYSTEM);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &ptr), GR_OK);
    assert_ptr_equal(ptr, mem);
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    gr_adapter_stats_t before = stats(f);
    d.sysmem = mem + 8; /* not page aligned */
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_E_INVALID);
    d.sysmem = mem;
    d.sysmem_bytes = 2 * 4096 - 1; /* not whole pages */
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_E_INVALID);
    d.sysmem_bytes = 4096; /* smaller than the allocation */
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_E_INVALID);
    d.sysmem = NULL;
    d.sysmem_bytes = 0;
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_E_INVALID);
    p = buffer_priv(4096, GR_CPU_ACCESS_WRITE, 0); /* memory given, but not ExistingSysMem */
    d.sysmem = mem;
    d.sysmem_bytes = 4096;
    assert_int_equal(gr_alloc_create(f->dev, NULL, &d, 1, &h, NULL), GR_E_INVALID);
    gr_adapter_stats_t after = stats(f);
    assert_int_equal(after.kmd_allocations, 0);
    assert_int_equal(after.ddi_destroy_allocation, before.ddi_destroy_allocation + 5);
    assert_int_equal(gr_sysmem_free(f->proc, mem), GR_OK);
}

/* ---- sharing, OpenAllocation, CloseAllocation -------------------------------------------- */

static void shared_resource_opens_read_only_in_another_process(void **state)
{
    fx_t *f = *state;
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    /* Resource: a 64x32 A8R8G8B8 surface with 3 mips and 2 slices, plus a buffer. */
    gr_alloc_private_t ps = surface_priv(D3DDDIFMT_A8R8G8B8, 64, 32, 3, 2, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_SHARED);
    gr_alloc_private_t pb = buffer_priv(4096, GR_CPU_ACCESS_WRITE, GR_ALLOC_PRIV_SHARED);
    gr_alloc_desc_t d[2] = {desc_of(&ps), desc_of(&pb)};
    gr_resource_desc_t rd = {.flags = GR_RESOURCE_SHARED};
    gr_alloc_t h[2];
    gr_shared_t sh = 0;
    assert_int_equal(gr_alloc_create(f->dev, &rd, d, 2, h, &sh), GR_OK);
    assert_int_not_equal(sh, 0);
    void *ptr;
    assert_int_equal(gr_alloc_lock(f->dev, h[1], 0, &ptr), GR_OK);
    memset(ptr, 0x5c, 4096);
    assert_int_equal(gr_alloc_unlock(f->dev, h[1]), GR_OK);

    gr_adapter_stats_t s0 = stats(f);
    gr_alloc_t o[2];
    uint32_t n = 0;
    gr_alloc_info_t oi;
    /* Subresource 4 = mip 1 of slice 1: slice stride 8192+... computed by the layout rules:
     * mip0 64x32x4 = pitch 256, 8192 B; mip1 32x16: pitch 256 (128 rounded), 4096 B at 8192;
     * mip2 16x8: pitch 256, 2048 B at 12288; slice = 14336 -> 16384. */
    assert_int_equal(gr_alloc_open(d2, sh, GR_OPEN_READ_ONLY, 4, o, 2, &n, &oi), GR_OK);
    assert_int_equal(n, 2);
    assert_int_equal(oi.subresource_offset, 16384 + 8192);
    assert_int_equal(oi.pitch, 256);
    assert_true(oi.read_only);
    assert_false(oi.creator);
    assert_true(oi.shared);
    assert_int_equal(oi.vram_address, query(f->dev, h[0]).vram_address);
    gr_adapter_stats_t s1 = stats(f);
    assert_int_equal(s1.ddi_open_allocation, s0.ddi_open_allocation + 1);
    assert_int_equal(s1.kmd_opens, s0.kmd_opens + 2);
    /* Read-only: the CPU may read, not write. */
    assert_int_equal(gr_alloc_lock(d2, o[1], 0, &ptr), GR_E_INVALID);
    assert_int_equal(gr_alloc_lock(d2, o[1], GR_LOCK_READ_ONLY, &ptr), GR_OK);
    assert_int_equal(((uint8_t *)ptr)[100], 0x5c);
    assert_int_equal(gr_alloc_unlock(d2, o[1]), GR_OK);
    /* Read-only for the GPU too, enforced by the RTL MMU: through process 2's mapping a read
     * translates to the buffer, a write faults (write to read-only); the creator's own
     * mapping of the same buffer takes writes. */
    gr_gpu_probe_t pr;
    gr_alloc_info_t bi = query(d2, o[1]);
    assert_int_not_equal(bi.gpu_va, 0);
    assert_int_equal(gr_gpu_device_probe(d2, bi.gpu_va + 100, false, &pr), GR_OK);
    assert_false(pr.fault);
    assert_int_equal(pr.pa, bi.vram_address + 100);
    assert_int_equal(gr_gpu_device_probe(d2, bi.gpu_va + 100, true, &pr), GR_OK);
    assert_true(pr.fault);
    assert_int_equal(pr.fault_type, 2);
    gr_alloc_info_t ci = query(f->dev, h[1]);
    assert_int_equal(gr_gpu_device_probe(f->dev, ci.gpu_va + 100, true, &pr), GR_OK);
    assert_false(pr.fault);
    assert_int_equal(pr.pa, ci.vram_address + 100);
    /* Index past the last subresource (3 mips x 2 slices = 6): refused, nothing opened. */
    assert_int_equal(gr_alloc_open(d2, sh, 0, 6, o, 2, &n, NULL), GR_E_INVALID);
    assert_int_equal(stats(f).kmd_opens, s1.kmd_opens);
    /* Too small a handle array. */
    assert_int_equal(gr_alloc_open(d2, sh, 0, 0, o, 1, &n, NULL), GR_E_RANGE);
    assert_int_equal(n, 2);
    /* destroy/close are not interchangeable. */
    assert_int_equal(gr_alloc_destroy(d2, o[0]), GR_E_INVALID);
    assert_int_equal(gr_alloc_close(f->dev, h[0]), GR_E_INVALID);
    /* The creator destroys: the allocations live on while process 2 holds them. */
    assert_int_equal(gr_alloc_destroy(f->dev, h[0]), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h[1]), GR_OK);
    gr_adapter_stats_t s2 = stats(f);
    assert_int_equal(s2.kmd_allocations, 2);
    assert_int_equal(s2.ddi_close_allocation, s1.ddi_close_allocation + 2);
    assert_int_equal(query(d2, o[0]).vram_address, oi.vram_address);
    assert_int_equal(gr_alloc_close(d2, o[0]), GR_OK);
    assert_int_equal(gr_alloc_close(d2, o[1]), GR_OK);
    gr_adapter_stats_t s3 = stats(f);
    assert_int_equal(s3.kmd_allocations, 0);
    assert_int_equal(s3.kmd_resources, 0);
    assert_int_equal(s3.kmd_opens, 0);
    assert_int_equal(s3.ddi_destroy_resource, s2.ddi_destroy_resource + 1);
    /* The shared handle died with the resource. */
    assert_int_equal(gr_alloc_open(d2, sh, 0, 0, o, 2, &n, NULL), GR_E_INVALID);
    gr_process_destroy(p2);
}

static void opening_an_allocation_not_laid_out_for_sharing_fails(void **state)
{
    fx_t *f = *state;
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    gr_alloc_private_t pb = buffer_priv(4096, 0, 0); /* no GR_ALLOC_PRIV_SHARED */
    gr_alloc_desc_t d = desc_of(&pb);
    gr_resource_desc_t rd = {.flags = GR_RESOURCE_SHARED};
    gr_alloc_t h;
    gr_shared_t sh;
    assert_int_equal(gr_alloc_create(f->dev, &rd, &d, 1, &h, &sh), GR_OK);
    gr_alloc_t o;
    uint32_t n;
    gr_adapter_stats_t s0 = stats(f);
    assert_int_equal(gr_alloc_open(d2, sh, 0, 0, &o, 1, &n, NULL), GR_E_INVALID);
    assert_int_equal(stats(f).kmd_opens, s0.kmd_opens);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    assert_int_equal(stats(f).kmd_allocations, 0);
    /* A resource created without GR_RESOURCE_SHARED has no shared handle to open. */
    assert_int_equal(gr_alloc_open(d2, 0, 0, 0, &o, 1, &n, NULL), GR_E_INVALID);
    gr_process_destroy(p2);
}

/* ---- what VRAM holds when an allocation is handed out --------------------------------------- */

/* A new allocation reads zeroes, never what an allocation of another process left in the same
 * VRAM (host/dxgk/README.md, "Stale VRAM"); pages nothing has used cost no zeroing. */
static void new_allocation_never_holds_what_another_process_left(void **state)
{
    fx_t *f = *state;
    const size_t n = 5 * 4096;
    gr_process_t *pb;
    gr_gpu_device_t *db;
    assert_int_equal(gr_process_create(f->ad, &pb), GR_OK);
    assert_int_equal(gr_gpu_device_create(pb, &db), GR_OK);
    /* A writes its secret through the aperture and destroys the allocation. */
    gr_alloc_t ha;
    assert_int_equal(create1(f->dev, buffer_priv(n, GR_CPU_ACCESS_READ_WRITE, 0), &ha), GR_OK);
    const uint64_t where = query(f->dev, ha).vram_address;
    const uint64_t zeroed0 = stats(f).bytes_zeroed;
    uint8_t *secret = malloc(n), *got = malloc(n), *zero = calloc(1, n);
    fill_pattern(secret, n, 77);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, ha, 0, &ptr), GR_OK);
    memcpy(ptr, secret, n);
    assert_int_equal(gr_alloc_unlock(f->dev, ha), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, ha), GR_OK);
    /* The bytes are still in VRAM: nothing erases memory when it is freed. */
    vram_read_raw(f, where, got, n);
    assert_memory_equal(got, secret, n);
    /* B gets the same VRAM (the first fit) and reads zeroes through its lock and raw VRAM. */
    gr_alloc_t hb;
    assert_int_equal(create1(db, buffer_priv(n, GR_CPU_ACCESS_READ_WRITE, 0), &hb), GR_OK);
    assert_int_equal(query(db, hb).vram_address, where);
    assert_int_equal(gr_alloc_lock(db, hb, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    assert_memory_equal(ptr, zero, n);
    assert_int_equal(gr_alloc_unlock(db, hb), GR_OK);
    vram_read_raw(f, where, got, n);
    assert_memory_equal(got, zero, n);
    assert_int_equal(stats(f).bytes_zeroed - zeroed0, n);
    /* Pages nothing has used since the device was made are not zeroed (on a link to a device
     * that outlives its users every page starts stale). */
    gr_alloc_t hc;
    assert_int_equal(create1(db, buffer_priv(n, GR_CPU_ACCESS_READ_WRITE, 0), &hc), GR_OK);
    if (gr_link_caps(gr_adapter_link(f->ad)) & GR_LINK_CAP_FRESH_VRAM)
        assert_int_equal(stats(f).bytes_zeroed - zeroed0, n);
    assert_int_equal(gr_alloc_destroy(db, hc), GR_OK);
    assert_int_equal(gr_alloc_destroy(db, hb), GR_OK);
    gr_process_destroy(pb);
    free(secret);
    free(got);
    free(zero);
}

/* ---- handle security ---------------------------------------------------------------------- */

static void handles_of_other_processes_forged_or_stale_are_rejected(void **state)
{
    fx_t *f = *state;
    gr_process_t *p2;
    gr_gpu_device_t *d2, *d1b;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    assert_int_equal(gr_gpu_device_create(f->proc, &d1b), GR_OK);
    gr_alloc_t h, h2;
    assert_int_equal(create1(f->dev, buffer_priv(4096, GR_CPU_ACCESS_WRITE, 0), &h), GR_OK);
    assert_int_equal(create1(d2, buffer_priv(4096, GR_CPU_ACCESS_WRITE, 0), &h2), GR_OK);
    gr_alloc_info_t before = query(f->dev, h);
    gr_adapter_stats_t s0 = stats(f);
    gr_alloc_info_t junk;
    void *ptr;
    /* Another process's handle: rejected by every call, and nothing changes. */
    assert_int_equal(gr_alloc_query(d2, h, &junk), GR_E_INVALID);
    assert_int_equal(gr_alloc_lock(d2, h, 0, &ptr), GR_E_INVALID);
    assert_int_equal(gr_alloc_destroy(d2, h), GR_E_INVALID);
    assert_int_equal(gr_alloc_close(d2, h), GR_E_INVALID);
    assert_int_equal(gr_alloc_query(f->dev, h2, &junk), GR_E_INVALID);
    /* Another device of the same process: also not its handle. */
    assert_int_equal(gr_alloc_destroy(d1b, h), GR_E_INVALID);
    /* Forged values. */
    unsigned long long x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        gr_alloc_t forged = (gr_alloc_t)x;
        if (forged == h)
            continue;
        assert_int_equal(gr_alloc_query(f->dev, forged, &junk), GR_E_INVALID);
    }
    for (int b = 0; b < 32; b++)
        assert_int_equal(gr_alloc_destroy(f->dev, h ^ (1u << b)), GR_E_INVALID);
    assert_int_equal(gr_alloc_query(f->dev, 0, &junk), GR_E_INVALID);
    gr_adapter_stats_t s1 = stats(f);
    assert_int_equal(s1.ddi_close_allocation, s0.ddi_close_allocation);
    assert_int_equal(s1.ddi_destroy_allocation, s0.ddi_destroy_allocation);
    gr_alloc_info_t after = query(f->dev, h);
    assert_memory_equal(&before, &after, sizeof before);
    /* Stale after destroy, and not handed out again at once. */
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_E_INVALID);
    assert_int_equal(gr_alloc_query(f->dev, h, &junk), GR_E_INVALID);
    for (int i = 0; i < 200; i++) {
        gr_alloc_t n;
        assert_int_equal(create1(f->dev, buffer_priv(4096, 0, 0), &n), GR_OK);
        assert_int_not_equal(n, h);
        assert_int_not_equal(n, 0);
        assert_int_equal(gr_alloc_query(f->dev, h, &junk), GR_E_INVALID);
        assert_int_equal(gr_alloc_destroy(f->dev, n), GR_OK);
    }
    gr_process_destroy(p2); /* destroys h2 with it */
    gr_gpu_device_destroy(d1b);
    assert_int_equal(stats(f).kmd_allocations, 0);
    assert_int_equal(stats(f).kmd_devices, 1);
}

static void destroying_a_process_releases_everything(void **state)
{
    fx_t *f = *state;
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    gr_segment_info_t s1 = segment(f, 1);
    for (int i = 0; i < 10; i++) {
        gr_alloc_t h;
        assert_int_equal(create1(d2, buffer_priv(64 * KIB, GR_CPU_ACCESS_WRITE, 0), &h), GR_OK);
        if (i == 3) {
            void *ptr;
            assert_int_equal(gr_alloc_lock(d2, h, 0, &ptr), GR_OK); /* left locked */
        }
    }
    gr_process_destroy(p2);
    gr_adapter_stats_t s = stats(f);
    assert_int_equal(s.kmd_allocations, 0);
    assert_int_equal(s.kmd_opens, 0);
    assert_int_equal(s.kmd_devices, 1);
    assert_int_equal(segment(f, 1).free_bytes, s1.free_bytes);
}

/* ---- GPU virtual addresses --------------------------------------------------------------- */

static void opens_are_mapped_in_the_device_gpu_va_space(void **state)
{
    fx_t *f = *state;
    gr_alloc_t big, small4k, nolarge;
    assert_int_equal(create1(f->dev, buffer_priv(4 * MIB, 0, GR_ALLOC_PRIV_SHARED), &big), GR_OK);
    assert_int_equal(create1(f->dev, buffer_priv(64 * KIB, GR_CPU_ACCESS_WRITE, 0), &small4k), GR_OK);
    assert_int_equal(create1(f->dev, buffer_priv(4 * MIB, 0, GR_ALLOC_PRIV_NO_LARGE_PAGES), &nolarge), GR_OK);
    gr_alloc_info_t b = query(f->dev, big), s = query(f->dev, small4k), n = query(f->dev, nolarge);
    assert_int_not_equal(b.gpu_va, 0);
    assert_int_equal(b.gpu_va % (2 * MIB), 0);
    uint64_t pa = 0;
    unsigned fl = 0, shift = 0;
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, b.gpu_va + 12345, &pa, &fl, &shift), GR_OK);
    assert_int_equal(pa, b.vram_address + 12345);
    assert_int_equal(shift, 21); /* 2 MiB pages */
    assert_true(fl & 1u);        /* writable */
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, s.gpu_va, &pa, &fl, &shift), GR_OK);
    assert_int_equal(pa, s.vram_address);
    assert_int_equal(shift, 16); /* 64 KiB pages */
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, n.gpu_va + 2 * MIB, &pa, &fl, &shift), GR_OK);
    assert_int_equal(pa, n.vram_address + 2 * MIB);
    assert_int_equal(shift, 12); /* DisableLargePageMapping: 4 KiB PTEs only */
    /* The tables in VRAM equal the library's shadow (read back through BAR1). */
    assert_int_equal(gr_dxgk_test_gpuva_check(f->dev), GR_OK);
    /* A read-only open elsewhere maps without write permission. */
    gr_resource_desc_t rd = {.flags = GR_RESOURCE_SHARED};
    gr_alloc_private_t ps = buffer_priv(2 * MIB, 0, GR_ALLOC_PRIV_SHARED);
    gr_alloc_desc_t d = desc_of(&ps);
    gr_alloc_t h, o;
    gr_shared_t sh;
    assert_int_equal(gr_alloc_create(f->dev, &rd, &d, 1, &h, &sh), GR_OK);
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    uint32_t cnt;
    gr_alloc_info_t oi;
    assert_int_equal(gr_alloc_open(d2, sh, GR_OPEN_READ_ONLY, 0, &o, 1, &cnt, &oi), GR_OK);
    assert_int_not_equal(oi.gpu_va, 0);
    assert_int_equal(gr_dxgk_test_gpuva_lookup(d2, oi.gpu_va, &pa, &fl, &shift), GR_OK);
    assert_int_equal(pa, oi.vram_address);
    assert_false(fl & 1u);
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, query(f->dev, h).gpu_va, &pa, &fl, &shift), GR_OK);
    assert_true(fl & 1u);
    /* Closing unmaps. */
    uint64_t va = oi.gpu_va;
    assert_int_equal(gr_alloc_close(d2, o), GR_OK);
    assert_int_equal(gr_dxgk_test_gpuva_lookup(d2, va, &pa, &fl, &shift), GR_E_NOT_FOUND);
    assert_int_equal(gr_dxgk_test_gpuva_check(d2), GR_OK);
    gr_process_destroy(p2);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, big), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, small4k), GR_OK);
    assert_int_equal(gr_alloc_destroy(f->dev, nolarge), GR_OK);
    assert_int_equal(gr_dxgk_test_gpuva_check(f->dev), GR_OK);
}

/* ---- GPU VA of system memory (ExistingSysMem, ExistingKernelSysMem) ------------------------ */

static gr_status_t create_existing(gr_gpu_device_t *dev, uint64_t bytes, uint32_t cpu, void *mem, uint64_t mem_bytes,
                                   gr_alloc_t *out)
{
    gr_alloc_private_t p = buffer_priv(bytes, cpu, GR_ALLOC_PRIV_EXISTING_SYSMEM);
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p, .sysmem = mem, .sysmem_bytes = mem_bytes};
    return gr_alloc_create(dev, NULL, &d, 1, out, NULL);
}

/* The hardware MMU's answer for a read (or write) at va, which must translate. */
static gr_gpu_probe_t probe_ok(gr_gpu_device_t *dev, uint64_t va, bool write)
{
    gr_gpu_probe_t pr;
    memset(&pr, 0, sizeof pr);
    assert_int_equal(gr_gpu_device_probe(dev, va, write, &pr), GR_OK);
    if (pr.fault)
        fail_msg("va 0x%llx faults (type %u)", (unsigned long long)va, pr.fault_type);
    return pr;
}

static void existing_sysmem_is_mapped_with_system_ptes_at_its_bus_address(void **state)
{
    fx_t *f = *state;
    gr_sysmem_t sm;
    assert_int_equal(gr_sysmem_alloc(f->proc, 5 * 4096 - 100, &sm), GR_OK);
    assert_int_equal(sm.bytes, 5 * 4096); /* whole pages */
    assert_int_equal((uintptr_t)sm.cpu % 4096, 0);
    assert_int_equal(sm.bus % 4096, 0);
    assert_true(sm.bus >= (UINT64_C(1) << 32)); /* sim://: the private bus space above 4 GiB */
    /* Three pages starting one page into the buffer: the bus address moves with the pointer. */
    uint8_t *mem = (uint8_t *)sm.cpu + 4096;
    gr_alloc_t h;
    assert_int_equal(create_existing(f->dev, 3 * 4096, GR_CPU_ACCESS_WRITE, mem, 3 * 4096, &h), GR_OK);
    gr_alloc_info_t i = query(f->dev, h);
    assert_int_equal(i.segment, GR_SEGMENT_SYSTEM);
    assert_int_equal(i.vram_address, 0);
    assert_int_equal(i.bus_address, sm.bus + 4096);
    assert_int_not_equal(i.gpu_va, 0);
    assert_int_equal(i.gpu_va % (2 * MIB), 0);
    /* The RTL MMU routes the VA to host memory: SYSTEM set, PA = bus address + offset. */
    const uint64_t offs[] = {0, 100, 4096 + 5, 2 * 4096, 3 * 4096 - 4};
    for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++) {
        gr_gpu_probe_t pr = probe_ok(f->dev, i.gpu_va + offs[k], false);
        assert_true(pr.system);
        assert_int_equal(pr.pa, sm.bus + 4096 + offs[k]);
        assert_false(pr.cacheable); /* write-only CPU access: not Cached */
        assert_int_equal(pr.page_shift, 12);
    }
    assert_int_equal(probe_ok(f->dev, i.gpu_va + 8, true).pa, sm.bus + 4096 + 8); /* writable */
    /* Nothing past the caller's three pages is mapped. */
    gr_gpu_probe_t pr;
    assert_int_equal(gr_gpu_device_probe(f->dev, i.gpu_va + 3 * 4096, false, &pr), GR_OK);
    assert_true(pr.fault);
    assert_int_equal(pr.fault_type, 1);
    /* The tables in VRAM match the shadow, whose leaf carries SYSTEM. */
    uint64_t pa = 0;
    unsigned fl = 0, shift = 0;
    assert_int_equal(gr_dxgk_test_gpuva_lookup(f->dev, i.gpu_va + 4096, &pa, &fl, &shift), GR_OK);
    assert_int_equal(pa, sm.bus + 2 * 4096);
    assert_int_equal(fl & 2u, 2u); /* GR_GPUVA_SYSTEM */
    assert_int_equal(gr_dxgk_test_gpuva_check(f->dev), GR_OK);

    /* Cached: the PTE is cacheable too. A second allocation in the same buffer's last page. */
    gr_alloc_t hc;
    uint8_t *last = (uint8_t *)sm.cpu + 4 * 4096;
    assert_int_equal(create_existing(f->dev, 4096, GR_CPU_ACCESS_READ_WRITE, last, 4096, &hc), GR_OK);
    gr_alloc_info_t ic = query(f->dev, hc);
    assert_int_equal(ic.bus_address, sm.bus + 4 * 4096);
    pr = probe_ok(f->dev, ic.gpu_va + 0x123, false);
    assert_true(pr.system);
    assert_true(pr.cacheable);
    assert_int_equal(pr.pa, sm.bus + 4 * 4096 + 0x123);

    /* The buffer cannot be given back while allocations are backed by it. */
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_E_BUSY);
    assert_int_equal(probe_ok(f->dev, i.gpu_va, false).pa, sm.bus + 4096);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    assert_int_equal(gr_gpu_device_probe(f->dev, i.gpu_va, false, &pr), GR_OK);
    assert_true(pr.fault); /* destroyed: unmapped */
    assert_int_equal(pr.fault_type, 1);
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_E_BUSY); /* hc still uses it */
    assert_int_equal(gr_alloc_destroy(f->dev, hc), GR_OK);
    assert_int_equal(gr_sysmem_free(f->proc, (uint8_t *)sm.cpu + 4096), GR_E_NOT_FOUND); /* not its start */
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_OK);
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_E_NOT_FOUND);
    assert_int_equal(gr_dxgk_test_gpuva_check(f->dev), GR_OK);
    assert_int_equal(stats(f).kmd_allocations, 0);
}

/* The miniport answers ExistingKernelSysMem instead of ExistingSysMem. */
static void to_kernel_sysmem(void *ctx, DXGK_ALLOCATIONINFO *infos, UINT count)
{
    (void)ctx;
    for (UINT k = 0; k < count; k++)
        if (infos[k].FlagsWddm2.ExistingSysMem) {
            infos[k].FlagsWddm2.ExistingSysMem = 0;
            infos[k].FlagsWddm2.ExistingKernelSysMem = 1;
        }
}

static void existing_kernel_sysmem_is_backed_and_mapped_the_same_way(void **state)
{
    fx_t *f = *state;
    gr_sysmem_t sm;
    assert_int_equal(gr_sysmem_alloc(f->proc, 2 * 4096, &sm), GR_OK);
    gr_dxgk_test_set_create_hook(f->ad, to_kernel_sysmem, NULL);
    gr_alloc_t h;
    gr_status_t rc = create_existing(f->dev, 2 * 4096, GR_CPU_ACCESS_WRITE, sm.cpu, sm.bytes, &h);
    gr_dxgk_test_set_create_hook(f->ad, NULL, NULL);
    assert_int_equal(rc, GR_OK);
    gr_alloc_info_t i = query(f->dev, h);
    assert_int_equal(i.flags_wddm2 & 0x30u, 0x20u); /* ExistingKernelSysMem, not ExistingSysMem */
    assert_int_equal(i.segment, GR_SEGMENT_SYSTEM);
    assert_int_equal(segment(f, 1).free_bytes, f->seg[0].free_bytes); /* no VRAM taken */
    assert_int_equal(i.bus_address, sm.bus);
    gr_gpu_probe_t pr = probe_ok(f->dev, i.gpu_va + 4096 + 9, false);
    assert_true(pr.system);
    assert_int_equal(pr.pa, sm.bus + 4096 + 9);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, h, 0, &ptr), GR_OK);
    assert_ptr_equal(ptr, sm.cpu); /* the caller's memory itself */
    assert_int_equal(gr_alloc_unlock(f->dev, h), GR_OK);
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_E_BUSY);
    assert_int_equal(gr_alloc_destroy(f->dev, h), GR_OK);
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_OK);
}

static void existing_sysmem_refuses_memory_the_device_cannot_reach(void **state)
{
    fx_t *f = *state;
    gr_sysmem_t sm, other;
    assert_int_equal(gr_sysmem_alloc(f->proc, 4 * 4096, &sm), GR_OK);
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    assert_int_equal(gr_sysmem_alloc(p2, 4 * 4096, &other), GR_OK);
    uint8_t *foreign = aligned_alloc(4096, 4 * 4096); /* ordinary process memory */
    assert_non_null(foreign);
    gr_sysmem_t gone;
    assert_int_equal(gr_sysmem_alloc(f->proc, 2 * 4096, &gone), GR_OK);
    uintptr_t stale = (uintptr_t)gone.cpu;
    assert_int_equal(gr_sysmem_free(f->proc, gone.cpu), GR_OK);

    gr_adapter_stats_t before = stats(f);
    gr_segment_info_t s1 = segment(f, 1), s2 = segment(f, 2);
    uint8_t *base = sm.cpu;
    const struct {
        const char *what;
        void *mem;
        uint64_t bytes;
        gr_status_t want;
    } cases[] = {
        {"misaligned by 8 bytes", base + 8, 2 * 4096, GR_E_INVALID},
        {"misaligned by 2 KiB", base + 2048, 2 * 4096, GR_E_INVALID},
        {"a partial page", base, 2 * 4096 - 1, GR_E_INVALID},
        {"a page and a half", base, 4096 + 2048, GR_E_INVALID},
        {"smaller than the allocation", base, 4096, GR_E_INVALID},
        {"no memory", NULL, 0, GR_E_INVALID},
        {"ordinary process memory", foreign, 2 * 4096, GR_E_NOT_FOUND},
        {"running past the buffer's end", base + 3 * 4096, 2 * 4096, GR_E_NOT_FOUND},
        {"another process's buffer", other.cpu, 2 * 4096, GR_E_NOT_FOUND},
        {"a buffer already given back", (void *)stale, 2 * 4096, GR_E_NOT_FOUND},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gr_alloc_t h = 0x4242;
        gr_status_t rc = create_existing(f->dev, 2 * 4096, GR_CPU_ACCESS_WRITE, cases[k].mem, cases[k].bytes, &h);
        if (rc != cases[k].want)
            fail_msg("%s: %s, want %s", cases[k].what, gr_status_name(rc), gr_status_name(cases[k].want));
        assert_int_equal(h, 0x4242);
    }
    /* Each was undone through DxgkDdiDestroyAllocation; nothing is left anywhere. */
    gr_adapter_stats_t after = stats(f);
    assert_int_equal(after.kmd_allocations, before.kmd_allocations);
    assert_int_equal(after.ddi_destroy_allocation,
                     before.ddi_destroy_allocation + sizeof cases / sizeof cases[0]);
    assert_int_equal(after.ddi_open_allocation, before.ddi_open_allocation);
    assert_int_equal(segment(f, 1).free_bytes, s1.free_bytes);
    assert_int_equal(segment(f, 2).free_bytes, s2.free_bytes);
    assert_int_equal(gr_sysmem_free(f->proc, sm.cpu), GR_OK); /* no reference was kept */
    /* The other process's buffer serves its own device, and frees are per process too. */
    gr_alloc_t h2;
    assert_int_equal(create_existing(d2, 2 * 4096, GR_CPU_ACCESS_WRITE, other.cpu, 2 * 4096, &h2), GR_OK);
    assert_int_equal(query(d2, h2).bus_address, other.bus);
    assert_int_equal(gr_sysmem_free(f->proc, other.cpu), GR_E_NOT_FOUND);
    gr_process_destroy(p2); /* its allocation and buffer with it */
    assert_int_equal(stats(f).kmd_allocations, 0);
    assert_int_equal(gr_sysmem_alloc(f->proc, 0, &gone), GR_E_INVALID);
    assert_int_equal(gr_sysmem_free(f->proc, NULL), GR_E_INVALID);
    free(foreign);
}

/* A shared system-memory allocation outlives its creator: its buffer must live on with it. */
static void shared_existing_sysmem_keeps_its_buffer_past_the_creator(void **state)
{
    fx_t *f = *state;
    gr_process_t *p2;
    gr_gpu_device_t *d2;
    assert_int_equal(gr_process_create(f->ad, &p2), GR_OK);
    assert_int_equal(gr_gpu_device_create(p2, &d2), GR_OK);
    gr_sysmem_t sm;
    assert_int_equal(gr_sysmem_alloc(p2, 2 * 4096, &sm), GR_OK);
    memset(sm.cpu, 0x6b, 2 * 4096);
    gr_alloc_private_t p = buffer_priv(2 * 4096, GR_CPU_ACCESS_WRITE,
                                       GR_ALLOC_PRIV_EXISTING_SYSMEM | GR_ALLOC_PRIV_SHARED);
    gr_alloc_desc_t d = {.private_data = &p, .private_size = sizeof p, .sysmem = sm.cpu, .sysmem_bytes = sm.bytes};
    gr_resource_desc_t rd = {.flags = GR_RESOURCE_SHARED};
    gr_alloc_t h, o;
    gr_shared_t sh;
    assert_int_equal(gr_alloc_create(d2, &rd, &d, 1, &h, &sh), GR_OK);
    uint32_t n;
    gr_alloc_info_t oi;
    assert_int_equal(gr_alloc_open(f->dev, sh, GR_OPEN_READ_ONLY, 0, &o, 1, &n, &oi), GR_OK);
    assert_int_equal(oi.bus_address, sm.bus);
    gr_process_destroy(p2); /* the creator ends; the open keeps the allocation and its memory */
    gr_gpu_probe_t pr = probe_ok(f->dev, oi.gpu_va + 4096 + 1, false);
    assert_true(pr.system);
    assert_int_equal(pr.pa, sm.bus + 4096 + 1);
    assert_int_equal(gr_gpu_device_probe(f->dev, oi.gpu_va, true, &pr), GR_OK);
    assert_true(pr.fault); /* the read-only open's mapping refuses writes */
    assert_int_equal(pr.fault_type, 2);
    void *ptr = NULL;
    assert_int_equal(gr_alloc_lock(f->dev, o, GR_LOCK_READ_ONLY, &ptr), GR_OK);
    assert_int_equal(((uint8_t *)ptr)[4096 + 7], 0x6b); /* still the buffer's bytes */
    assert_int_equal(gr_alloc_unlock(f->dev, o), GR_OK);
    assert_int_equal(gr_alloc_close(f->dev, o), GR_OK);
    gr_adapter_stats_t s = stats(f);
    assert_int_equal(s.kmd_allocations, 0);
    assert_int_equal(s.kmd_resources, 0);
}

/* ---- concurrency ------------------------------------------------------------------------ */

typedef struct worker {
    gr_adapter_t *ad;
    unsigned long long rng;
    int failures;
    int created;
} worker_t;

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    gr_process_t *p;
    gr_gpu_device_t *d;
    if (gr_process_create(w->ad, &p) || gr_gpu_device_create(p, &d)) {
        w->failures++;
        return NULL;
    }
    gr_alloc_t live[16];
    int n = 0;
    for (int it = 0; it < 300; it++) {
        w->rng ^= w->rng << 13;
        w->rng ^= w->rng >> 7;
        w->rng ^= w->rng << 17;
        unsigned r = (unsigned)(w->rng >> 11);
        if (n < 16 && (r & 1)) {
            uint32_t cpu = (r >> 1) % 3 == 0 ? GR_CPU_ACCESS_WRITE : GR_CPU_ACCESS_NONE;
            uint32_t fl = (r >> 3) & 1 ? GR_ALLOC_PRIV_FROM_END : 0;
            /* up to 128 KiB: the VRAM one process frees, another's next allocation gets zeroed */
            uint64_t size = 4096u * (1 + (r >> 5) % 32);
            gr_alloc_private_t pr = buffer_priv(size, cpu, fl);
            gr_alloc_desc_t dd = desc_of(&pr);
            if (gr_alloc_create(d, NULL, &dd, 1, &live[n], NULL)) {
                w->failures++;
                continue;
            }
            n++;
            w->created++;
        } else if (n > 0) {
            int k = (int)((r >> 1) % (unsigned)n);
            if (gr_alloc_destroy(d, live[k]))
                w->failures++;
            live[k] = live[--n];
        }
    }
    while (n > 0)
        if (gr_alloc_destroy(d, live[--n]))
            w->failures++;
    gr_process_destroy(p);
    return NULL;
}

static void concurrent_create_and_destroy_from_several_processes(void **state)
{
    fx_t *f = *state;
    gr_segment_info_t s1 = segment(f, 1), s2 = segment(f, 2);
    enum { N = 4 };
    pthread_t t[N];
    worker_t w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (worker_t){.ad = f->ad, .rng = seed * 1000003ull + (unsigned long long)i * 7919ull + 1};
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    int created = 0;
    for (int i = 0; i < N; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(w[i].failures, 0);
        created += w[i].created;
    }
    assert_true(created > N * 50);
    gr_adapter_stats_t s = stats(f);
    assert_int_equal(s.kmd_allocations, 0);
    assert_int_equal(s.kmd_opens, 0);
    assert_int_equal(s.kmd_devices, 1);
    assert_int_equal(segment(f, 1).free_bytes, s1.free_bytes);
    assert_int_equal(segment(f, 2).free_bytes, s2.free_bytes);
    assert_int_equal(segment(f, 1).allocations, 0);
}

int main(int argc, char **argv)
{
    seed = sf_start(argc, argv, "test_alloc", uri, sizeof uri);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(segments_come_from_the_mc_registers),
        T(query_adapter_info_follows_the_two_call_pattern),
        T(create_maps_requests_to_wddm2_flags),
        T(size_and_alignment_follow_kind_and_size),
        T(bad_private_data_is_refused_and_changes_nothing),
        T(flag_rules_are_checked_on_the_miniports_answer),
        T(destroy_resource_comes_with_the_last_allocation),
        T(placement_honours_preference_and_supported_set),
        T(from_end_of_segment_places_top_down),
        T(from_end_of_segment_leaves_the_overlay_range_to_overlays),
        T(overlay_and_capture_live_in_the_last_fifth),
        T(vpr_allocations_land_inside_the_vpr),
        T(no_memory_when_nothing_fits_changes_nothing),
        T(lock_round_trips_through_the_aperture),
        T(new_allocation_never_holds_what_another_process_left),
        T(range_lock_moves_only_its_pages),
        T(on_demand_lock_moves_the_window_and_puts_it_back),
        T(lock_refuses_gpu_only_protected_and_vpr_allocations),
        T(vpr_refuses_the_aperture),
        T(permanent_and_existing_sysmem_lock_system_memory),
        T(shared_resource_opens_read_only_in_another_process),
        T(opening_an_allocation_not_laid_out_for_sharing_fails),
        T(handles_of_other_processes_forged_or_stale_are_rejected),
        T(destroying_a_process_releases_everything),
        T(opens_are_mapped_in_the_device_gpu_va_space),
        T(existing_sysmem_is_mapped_with_system_ptes_at_its_bus_address),
        T(existing_kernel_sysmem_is_backed_and_mapped_the_same_way),
        T(existing_sysmem_refuses_memory_the_device_cannot_reach),
        T(shared_existing_sysmem_keeps_its_buffer_past_the_creator),
        T(concurrent_create_and_destroy_from_several_processes),
    };
    return sf_run_tests("alloc", tests, sizeof tests / sizeof tests[0], NULL, NULL);
}
