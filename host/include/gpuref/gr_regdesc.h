/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gr_regdesc.h: the register map as data, generated from rtl/csr/gpu_regs.rdl into
 * host/lib/gr_regdesc.c. gpuctl decodes registers with it; the conformance suite walks it.
 */
#ifndef GPUREF_GR_REGDESC_H
#define GPUREF_GR_REGDESC_H

#include <stdint.h>

#include "gpuref/gr_regmap.h"
#include "gpuref/gr_regs.h"
#include "gpuref/gr_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How software and hardware see a field (regtool's field kinds). */
typedef enum gr_access {
    GR_ACCESS_CONST, /**< read-only constant: always its reset value */
    GR_ACCESS_HW_RO, /**< read-only, driven by hardware (value depends on the build) */
    GR_ACCESS_RW,    /**< read-write storage */
    GR_ACCESS_W1C,   /**< set by hardware, cleared by writing 1 (interrupt state) */
    GR_ACCESS_PULSE, /**< write 1 for a one-cycle strobe; reads zero */
    GR_ACCESS_W1S,   /**< sticky: writing 1 sets it, only a hard reset clears it (a lock) */
} gr_access_t;

typedef struct gr_field_desc {
    const char *name;
    uint8_t lsb;
    uint8_t width;
    gr_access_t access;
    uint32_t reset; /**< reset value, right-aligned */
    const char *desc;
    unsigned flags; /**< GR_FIELD_* */
} gr_field_desc_t;

/** gr_field_desc_t.flags: a core soft reset leaves the field alone (only a hard reset resets it). */
#define GR_FIELD_KEEPS_SOFT_RESET 1u
/** gr_field_desc_t.flags: the field changes by itself (a free-running counter); two reads
 *  differ with nothing written in between. */
#define GR_FIELD_VOLATILE 2u
/** gr_field_desc_t.flags: a strobe whose 1 makes the device access memory (DMA_CTRL.PREEMPT
 *  writes the preemption fence); register checks never write 1 to it. */
#define GR_FIELD_ACTION 4u

typedef struct gr_reg_desc {
    const char *name;
    uint32_t offset;
    const gr_field_desc_t *fields;
    unsigned field_count;
    const char *title;
} gr_reg_desc_t;

extern const gr_reg_desc_t gr_regdesc[];
extern const unsigned gr_regdesc_count;

/** The register with that name (case-insensitive), or NULL. */
const gr_reg_desc_t *gr_regdesc_find(const char *name);

/** The register at that offset, or NULL for a hole. */
const gr_reg_desc_t *gr_regdesc_at(uint32_t offset);

/** The field with that name (case-insensitive) in a register, or NULL. */
const gr_field_desc_t *gr_regdesc_field(const gr_reg_desc_t *reg, const char *name);

/** Bits of the register covered by fields (the rest is reserved and reads zero). */
uint32_t gr_regdesc_mask(const gr_reg_desc_t *reg);

/** Bits of the register covered by fields of one access kind. */
uint32_t gr_regdesc_mask_of(const gr_reg_desc_t *reg, gr_access_t access);

/** The register's reset value assembled from its fields. */
uint32_t gr_regdesc_reset(const gr_reg_desc_t *reg);

/** Bits of the register covered by fields a soft reset leaves alone. */
uint32_t gr_regdesc_mask_kept(const gr_reg_desc_t *reg);

/** The field's mask in place. */
uint32_t gr_field_mask(const gr_field_desc_t *field);

/** "const", "hw-ro", "rw", "w1c", "pulse". */
const char *gr_access_name(gr_access_t access);

/**
 * Parses a register offset: a register name ("SCRATCH", any case) or a number (0x20, 32).
 * @param[out] out_offset  untouched on failure
 * @return GR_OK, GR_E_NOT_FOUND (no such name), GR_E_INVALID (not a number), GR_E_ALIGN,
 *         GR_E_RANGE (past BAR0)
 */
gr_status_t gr_regdesc_parse_offset(const char *text, uint32_t *out_offset);

/** Field accessors over the generated masks: GR_FIELD_GET(ID_VERSION, MAJOR, value). */
#define GR_FIELD_GET(reg, field, value) \
    (((value) & GPU_REGS__##reg##__##field##_bm) >> GPU_REGS__##reg##__##field##_bp)
#define GR_FIELD_SET(reg, field, value) \
    (((uint32_t)(value) << GPU_REGS__##reg##__##field##_bp) & GPU_REGS__##reg##__##field##_bm)

#ifdef __cplusplus
}
#endif

#endif
