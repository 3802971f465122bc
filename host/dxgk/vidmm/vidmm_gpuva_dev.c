/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vidmm_gpuva_dev.c: gr_gpuva_ops_t over a gr_device_t (see vidmm_gpuva_dev.h).
 */
#include "vidmm_gpuva_dev.h"

#include <stdlib.h>

#include "gpuref/gr_regdesc.h"
#include "gr_link.h"

struct gr_gpuva_dev {
    gr_device_t *dev;
    uint64_t ap_base, ap_size;
    uint64_t pt_base, pt_limit;
    uint64_t *free_pages; /* a stack; the lowest page on top */
    uint64_t nfree, npages;
};

static gr_status_t dev_ap_write(gr_gpuva_dev_t *p, uint64_t pa, const void *src, size_t bytes)
{
    if (pa < p->ap_base || bytes > p->ap_size || pa - p->ap_base > p->ap_size - bytes)
        return GR_E_RANGE;
    return (gr_status_t)gr_link_ap_write(gr_device_link(p->dev), pa - p->ap_base, src, bytes);
}

static gr_status_t dev_write_vram(void *user, uint64_t pa, const void *src, size_t bytes)
{
    return dev_ap_write(user, pa, src, bytes);
}

static gr_status_t dev_read_vram(void *user, uint64_t pa, void *dst, size_t bytes)
{
    gr_gpuva_dev_t *p = user;
    if (pa < p->ap_base || bytes > p->ap_size || pa - p->ap_base > p->ap_size - bytes)
        return GR_E_RANGE;
    return (gr_status_t)gr_link_ap_read(gr_device_link(p->dev), pa - p->ap_base, dst, bytes);
}

static gr_status_t dev_alloc_pt_page(void *user, uint64_t *out_vram_pa)
{
    static const uint8_t zeros[GR_GPUVA_PAGE_SIZE];
    gr_gpuva_dev_t *p = user;
    if (!p->nfree)
        return GR_E_NO_MEMORY;
    uint64_t pa = p->free_pages[p->nfree - 1];
    /* The page may hold an old table: the library relies on a zeroed page. */
    gr_status_t rc = dev_ap_write(p, pa, zeros, sizeof(zeros));
    if (rc)
        return rc;
    p->nfree--;
    *out_vram_pa = pa;
    return GR_OK;
}

static void dev_free_pt_page(void *user, uint64_t pa)
{
    gr_gpuva_dev_t *p = user;
    /* Only pages of this pool, and never more than it has: a bad free must not corrupt it. */
    if (pa >= p->pt_base && pa < p->pt_limit && !(pa & 0xfff) && p->nfree < p->npages)
        p->free_pages[p->nfree++] = pa;
}

static gr_status_t dev_invalidate(void *user)
{
    gr_gpuva_dev_t *p = user;
    return (gr_status_t)gr_reg_write(p->dev, GR_REG_MMU_INVALIDATE,
                                     GR_FIELD_SET(MMU_INVALIDATE, ALL, 1));
}

const gr_gpuva_ops_t gr_gpuva_dev_ops = {
    .alloc_pt_page = dev_alloc_pt_page,
    .free_pt_page = dev_free_pt_page,
    .write_vram = dev_write_vram,
    .read_vram = dev_read_vram,
    .invalidate = dev_invalidate,
};

gr_status_t gr_gpuva_dev_create(gr_device_t *dev, uint64_t pt_base, uint64_t pt_limit,
                                gr_gpuva_dev_t **out_pool)
{
    if (!dev || !out_pool || pt_limit <= pt_base || ((pt_base | pt_limit) & 0xfff))
        return GR_E_INVALID;
    uint32_t base = 0, size = 0;
    gr_status_t rc = (gr_status_t)gr_reg_read(dev, GR_REG_MC_AP_BASE, &base);
    if (!rc)
        rc = (gr_status_t)gr_reg_read(dev, GR_REG_MC_AP_SIZE, &size);
    if (rc)
        return rc;
    uint64_t ap_base = GR_FIELD_GET(MC_AP_BASE, PAGE, base) << GPU_REGS__MC_AP_BASE__PAGE_bp;
    uint64_t ap_size = GR_FIELD_GET(MC_AP_SIZE, BYTES, size);
    if (pt_base < ap_base || pt_limit > ap_base + ap_size)
        return GR_E_RANGE;
    gr_gpuva_dev_t *p = calloc(1, sizeof(*p));
    uint64_t npages = (pt_limit - pt_base) / GR_GPUVA_PAGE_SIZE;
    if (p)
        p->free_pages = malloc(npages * sizeof(uint64_t));
    if (!p || !p->free_pages) {
        free(p);
        return GR_E_NO_MEMORY;
    }
    p->dev = dev;
    p->ap_base = ap_base;
    p->ap_size = ap_size;
    p->pt_base = pt_base;
    p->pt_limit = pt_limit;
    p->npages = p->nfree = npages;
    for (uint64_t i = 0; i < npages; i++)
        p->free_pages[i] = pt_limit - (i + 1) * GR_GPUVA_PAGE_SIZE;
    *out_pool = p;
    return GR_OK;
}

void gr_gpuva_dev_destroy(gr_gpuva_dev_t *pool)
{
    if (!pool)
        return;
    free(pool->free_pages);
    free(pool);
}

uint64_t gr_gpuva_dev_free_pages(const gr_gpuva_dev_t *pool)
{
    return pool ? pool->nfree : 0;
}

gr_status_t gr_gpuva_dev_activate(gr_device_t *dev, const gr_gpuva_space_t *space)
{
    if (!dev || !space)
        return GR_E_INVALID;
    uint64_t root = gr_gpuva_root(space);
    if (root >> 32)
        return GR_E_RANGE;
    gr_status_t rc = (gr_status_t)gr_reg_write(dev, GR_REG_MMU_ROOT,
                                               GR_FIELD_SET(MMU_ROOT, PAGE, root >> 12));
    if (!rc)
        rc = (gr_status_t)gr_reg_write(dev, GR_REG_MMU_INVALIDATE,
                                       GR_FIELD_SET(MMU_INVALIDATE, ALL, 1));
    if (!rc)
        rc = (gr_status_t)gr_reg_write(dev, GR_REG_MMU_CTRL, GR_FIELD_SET(MMU_CTRL, ENABLE, 1));
    return rc;
}

gr_status_t gr_gpuva_dev_deactivate(gr_device_t *dev)
{
    if (!dev)
        return GR_E_INVALID;
    gr_status_t rc = (gr_status_t)gr_reg_write(dev, GR_REG_MMU_CTRL, 0);
    if (!rc)
        rc = (gr_status_t)gr_reg_write(dev, GR_REG_MMU_INVALIDATE,
                                       GR_FIELD_SET(MMU_INVALIDATE, ALL, 1));
    return rc;
}
