/* SPDX-License-Identifier: Apache-2.0 */
/* gr_regdesc_query.c: look-ups over the generated register description table. */
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "gpuref/gr_regdesc.h"
#include "gpuref/gr_status.h"

const gr_reg_desc_t *gr_regdesc_find(const char *name)
{
    if (!name)
        return NULL;
    for (unsigned i = 0; i < gr_regdesc_count; i++)
        if (strcasecmp(gr_regdesc[i].name, name) == 0)
            return &gr_regdesc[i];
    return NULL;
}

const gr_reg_desc_t *gr_regdesc_at(uint32_t offset)
{
    for (unsigned i = 0; i < gr_regdesc_count; i++)
        if (gr_regdesc[i].offset == offset)
            return &gr_regdesc[i];
    return NULL;
}

const gr_field_desc_t *gr_regdesc_field(const gr_reg_desc_t *reg, const char *name)
{
    if (!reg || !name)
        return NULL;
    for (unsigned i = 0; i < reg->field_count; i++)
        if (strcasecmp(reg->fields[i].name, name) == 0)
            return &reg->fields[i];
    return NULL;
}

uint32_t gr_field_mask(const gr_field_desc_t *field)
{
    uint32_t ones = field->width >= 32 ? 0xffffffffu : ((1u << field->width) - 1u);
    return ones << field->lsb;
}

uint32_t gr_regdesc_mask_of(const gr_reg_desc_t *reg, gr_access_t access)
{
    uint32_t mask = 0;
    for (unsigned i = 0; i < reg->field_count; i++)
        if (reg->fields[i].access == access)
            mask |= gr_field_mask(&reg->fields[i]);
    return mask;
}

uint32_t gr_regdesc_mask_kept(const gr_reg_desc_t *reg)
{
    uint32_t mask = 0;
    for (unsigned i = 0; i < reg->field_count; i++)
        if (reg->fields[i].flags & GR_FIELD_KEEPS_SOFT_RESET)
            mask |= gr_field_mask(&reg->fields[i]);
    return mask;
}

uint32_t gr_regdesc_mask(const gr_reg_desc_t *reg)
{
    uint32_t mask = 0;
    for (unsigned i = 0; i < reg->field_count; i++)
        mask |= gr_field_mask(&reg->fields[i]);
    return mask;
}

uint32_t gr_regdesc_reset(const gr_reg_desc_t *reg)
{
    uint32_t value = 0;
    for (unsigned i = 0; i < reg->field_count; i++)
        value |= (reg->fields[i].reset << reg->fields[i].lsb) & gr_field_mask(&reg->fields[i]);
    return value;
}

const char *gr_access_name(gr_access_t access)
{
    switch (access) {
    case GR_ACCESS_CONST:
        return "const";
    case GR_ACCESS_HW_RO:
        return "hw-ro";
    case GR_ACCESS_RW:
        return "rw";
    case GR_ACCESS_W1C:
        return "w1c";
    case GR_ACCESS_PULSE:
        return "pulse";
    case GR_ACCESS_W1S:
        return "w1s";
    }
    return "?";
}

gr_status_t gr_regdesc_parse_offset(const char *text, uint32_t *out_offset)
{
    if (!text || !*text || !out_offset)
        return GR_E_INVALID;
    const gr_reg_desc_t *reg = gr_regdesc_find(text);
    if (reg) {
        *out_offset = reg->offset;
        return GR_OK;
    }
    if (text[0] < '0' || text[0] > '9')
        return GR_E_NOT_FOUND; /* looks like a name, and no register has it */
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 0);
    if (errno || *end)
        return GR_E_INVALID;
    if (value >= GR_REGMAP_BAR0_BYTES)
        return GR_E_RANGE;
    if (value & 3u)
        return GR_E_ALIGN;
    *out_offset = (uint32_t)value;
    return GR_OK;
}
