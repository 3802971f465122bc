/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_ddi_layout: host/include/d3dkmddi.h has the x64 layout of the WDK (newest interface
 * version, DXGKDDI_INTERFACE_VERSION_WDDM3_2) that Microsoft documents.
 *
 * Checks, in order, each as TAP lines (one per structure or group):
 *   1. sizeof and every member offset listed in ddi_layout_list.h (also _Static_assert'ed, so a
 *      wrong layout does not even build);
 *   2. every named bit-field in ddi_flags_list.h sets exactly its documented bits, and each
 *      flags word is covered by its fields with no overlap;
 *   3. NTSTATUS codes, interface versions and enum values are the WDK's numbers;
 *   4. the DDI and callback types accept definitions written the way WDK drivers write them.
 * Usage: test_ddi_layout  (no arguments; exits 1 if any test failed)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "d3dkmddi.h"

/* ---- 1. compile-time layout ---------------------------------------------------------- */

#define S(T, n) _Static_assert(sizeof(T) == (n), "sizeof(" #T ") == " #n);
#define O(T, m, n) _Static_assert(offsetof(T, m) == (n), "offsetof(" #T ", " #m ") == " #n);
#include "ddi_layout_list.h"
#undef S
#undef O

/* ---- TAP ----------------------------------------------------------------------------- */

static int g_test;   /* number of the last test printed */
static int g_failed; /* tests that failed */

static void tap(int ok, const char *what)
{
    g_test++;
    if (!ok)
        g_failed++;
    printf("%s %d - %s\n", ok ? "ok" : "not ok", g_test, what);
}

/* ---- 1. runtime layout (so every structure counts in the test summary) ---------------- */

struct layout_entry {
    const char *type;
    const char *member; /* NULL: the entry is the structure's size */
    size_t actual;
    size_t expected;
};

static const struct layout_entry g_layout[] = {
#define S(T, n) {#T, NULL, sizeof(T), (n)},
#define O(T, m, n) {#T, #m, offsetof(T, m), (n)},
#include "ddi_layout_list.h"
#undef S
#undef O
};

static int count_layout_tests(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof g_layout / sizeof g_layout[0]; i++)
        n += g_layout[i].member == NULL;
    return n;
}

static void run_layout_tests(void)
{
    const size_t count = sizeof g_layout / sizeof g_layout[0];
    for (size_t i = 0; i < count;) {
        const struct layout_entry *s = &g_layout[i++];
        int ok = s->actual == s->expected;
        int members = 0;
        if (!ok)
            printf("# sizeof(%s) is %zu, expected %zu\n", s->type, s->actual, s->expected);
        for (; i < count && g_layout[i].member != NULL; i++, members++) {
            const struct layout_entry *o = &g_layout[i];
            if (o->actual != o->expected) {
                ok = 0;
                printf("# offsetof(%s, %s) is %zu, expected %zu\n", o->type, o->member,
                       o->actual, o->expected);
            }
        }
        char what[160];
        if (members > 0)
            snprintf(what, sizeof what, "sizeof(%s) == %zu, %d member offset%s", s->type,
                     s->expected, members, members == 1 ? "" : "s");
        else
            snprintf(what, sizeof what, "sizeof(%s) == %zu", s->type, s->expected);
        tap(ok, what);
    }
}

/* ---- 2. bit-field positions ---------------------------------------------------------- */

/*
 * All ones, read at run time so that storing it into a narrow bit-field is a plain truncating
 * conversion rather than a constant the compiler warns about.  Each object is copied into a
 * buffer with slack so that read_word() never reads past it, whatever the group's word size.
 */
static volatile uint64_t g_ones = ~(uint64_t)0;

static uint64_t read_word(const void *obj, size_t offset, int bits)
{
    const unsigned char *p = (const unsigned char *)obj + offset;
    if (bits == 64) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        return w;
    }
    uint32_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

struct bit_group {
    const char *type;
    size_t offset;
    int bits;
    int exact;
    int fields;
    int ok;
    uint64_t covered;
};

static struct bit_group g_group;

static void group_finish(void)
{
    if (g_group.type == NULL)
        return;
    const uint64_t full = g_group.bits == 64 ? ~(uint64_t)0 : 0xFFFFFFFFu;
    if (g_group.exact && g_group.covered != full) {
        g_group.ok = 0;
        printf("# %s: the fields cover 0x%llX, not the whole %d-bit word\n", g_group.type,
               (unsigned long long)g_group.covered, g_group.bits);
    }
    char what[200];
    snprintf(what, sizeof what, "%s: %d bit-fields at their documented bits (word at byte %zu%s)",
             g_group.type, g_group.fields, g_group.offset,
             g_group.exact ? ", fully covered" : ", overlapping views");
    tap(g_group.ok, what);
    g_group.type = NULL;
}

static void group_start(const char *type, size_t offset, int bits, int exact)
{
    group_finish();
    g_group = (struct bit_group){type, offset, bits, exact, 0, 1, 0};
}

static void field_result(const char *member, uint64_t got, uint64_t mask)
{
    g_group.fields++;
    if (got != mask) {
        g_group.ok = 0;
        printf("# %s.%s sets 0x%llX, expected 0x%llX\n", g_group.type, member,
               (unsigned long long)got, (unsigned long long)mask);
    }
    if (g_group.exact && (g_group.covered & mask) != 0) {
        g_group.ok = 0;
        printf("# %s.%s overlaps an earlier field (0x%llX)\n", g_group.type, member,
               (unsigned long long)(g_group.covered & mask));
    }
    g_group.covered |= mask;
}

static int count_bit_tests(void)
{
    int n = 0;
#define G(T, off, bits, exact) n++;
#define B(T, m, mask)
#include "ddi_flags_list.h"
#undef G
#undef B
    return n;
}

static void run_bit_tests(void)
{
#define G(T, off, bits, exact) group_start(#T, (off), (bits), (exact));
#define B(T, m, mask)                                                                   \
    {                                                                                   \
        T obj_;                                                                         \
        unsigned char bytes_[sizeof(T) + sizeof(uint64_t)] = {0};                       \
        memset(&obj_, 0, sizeof obj_);                                                  \
        obj_.m = g_ones;                                                                \
        memcpy(bytes_, &obj_, sizeof obj_);                                             \
        field_result(#m, read_word(bytes_, g_group.offset, g_group.bits), (mask));      \
    }
#include "ddi_flags_list.h"
#undef G
#undef B
    group_finish();
}

/* The WDK's DXGK_ALLOCATIONINFOFLAGS_EXT block renames DXGK_ALLOC_RESERVEDn to Reservedn. */
static void test_reserved_bit_names(void)
{
    DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 f;
    int ok = 1;
    memset(&f, 0, sizeof f);
    f.Reserved0 = 1;
    ok &= f.Value == 0x80000000u;
    memset(&f, 0, sizeof f);
    f.Reserved15 = 1;
    ok &= f.Value == 0x00100000u;
    memset(&f, 0, sizeof f);
    f.DXGK_ALLOC_RESERVED16 = 1; /* 16 and 17 keep their DXGK_ALLOC_ spelling */
    ok &= f.Value == 0x00080000u;
    tap(ok, "DXGK_ALLOC_RESERVEDn members answer to the WDK's Reservedn names (n <= 15)");
}

/* ---- 3. numbers ---------------------------------------------------------------------- */

struct value_entry {
    const char *name;
    long long actual;
    long long expected;
};

static void check_values(const char *what, const struct value_entry *v, size_t n)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].actual != v[i].expected) {
            ok = 0;
            printf("# %s is %lld (0x%llX), expected %lld (0x%llX)\n", v[i].name, v[i].actual,
                   (unsigned long long)v[i].actual, v[i].expected,
                   (unsigned long long)v[i].expected);
        }
    }
    char line[200];
    snprintf(line, sizeof line, "%s (%zu values)", what, n);
    tap(ok, line);
}

#define V(name, value) {#name, (long long)(name), (long long)(value)}
#define CHECK_VALUES(what, ...)                                                         \
    do {                                                                                \
        static const struct value_entry v_[] = {__VA_ARGS__};                           \
        check_values(what, v_, sizeof v_ / sizeof v_[0]);                               \
    } while (0)

/* NTSTATUS is 32-bit signed: each code compares as the WDK's (NTSTATUS)0x...L value. */
#define NT(name, value) {#name, (long long)(name), (long long)(int32_t)(uint32_t)(value)}

static void test_values(void)
{
    CHECK_VALUES("NTSTATUS codes have their ntstatus.h values",
                 NT(STATUS_SUCCESS, 0x00000000u), NT(STATUS_TIMEOUT, 0x00000102u),
                 NT(STATUS_PENDING, 0x00000103u), NT(STATUS_UNSUCCESSFUL, 0xC0000001u),
                 NT(STATUS_NOT_IMPLEMENTED, 0xC0000002u), NT(STATUS_INVALID_HANDLE, 0xC0000008u),
                 NT(STATUS_INVALID_PARAMETER, 0xC000000Du), NT(STATUS_NO_MEMORY, 0xC0000017u),
                 NT(STATUS_ACCESS_DENIED, 0xC0000022u), NT(STATUS_BUFFER_TOO_SMALL, 0xC0000023u),
                 NT(STATUS_INTEGER_OVERFLOW, 0xC0000095u),
                 NT(STATUS_PRIVILEGED_INSTRUCTION, 0xC0000096u),
                 NT(STATUS_INSUFFICIENT_RESOURCES, 0xC000009Au),
                 NT(STATUS_DEVICE_NOT_READY, 0xC00000A3u), NT(STATUS_NOT_SUPPORTED, 0xC00000BBu),
                 NT(STATUS_INVALID_DEVICE_STATE, 0xC0000184u),
                 NT(STATUS_GRAPHICS_NOT_EXCLUSIVE_MODE_OWNER, 0xC01E0000u),
                 NT(STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER, 0xC01E0001u),
                 NT(STATUS_GRAPHICS_INVALID_DISPLAY_ADAPTER, 0xC01E0002u),
                 NT(STATUS_GRAPHICS_ADAPTER_WAS_RESET, 0xC01E0003u),
                 NT(STATUS_GRAPHICS_INVALID_DRIVER_MODEL, 0xC01E0004u),
                 NT(STATUS_GRAPHICS_PRESENT_MODE_CHANGED, 0xC01E0005u),
                 NT(STATUS_GRAPHICS_PRESENT_OCCLUDED, 0xC01E0006u),
                 NT(STATUS_GRAPHICS_PRESENT_DENIED, 0xC01E0007u),
                 NT(STATUS_GRAPHICS_CANNOTCOLORCONVERT, 0xC01E0008u),
                 NT(STATUS_GRAPHICS_DRIVER_MISMATCH, 0xC01E0009u),
                 NT(STATUS_GRAPHICS_PARTIAL_DATA_POPULATED, 0x401E000Au),
                 NT(STATUS_GRAPHICS_NO_VIDEO_MEMORY, 0xC01E0100u),
                 NT(STATUS_GRAPHICS_CANT_LOCK_MEMORY, 0xC01E0101u),
                 NT(STATUS_GRAPHICS_ALLOCATION_BUSY, 0xC01E0102u),
                 NT(STATUS_GRAPHICS_TOO_MANY_REFERENCES, 0xC01E0103u),
                 NT(STATUS_GRAPHICS_TRY_AGAIN_LATER, 0xC01E0104u),
                 NT(STATUS_GRAPHICS_TRY_AGAIN_NOW, 0xC01E0105u),
                 NT(STATUS_GRAPHICS_ALLOCATION_INVALID, 0xC01E0106u),
                 NT(STATUS_GRAPHICS_UNSWIZZLING_APERTURE_UNAVAILABLE, 0xC01E0107u),
                 NT(STATUS_GRAPHICS_UNSWIZZLING_APERTURE_UNSUPPORTED, 0xC01E0108u),
                 NT(STATUS_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION, 0xC01E0109u),
                 NT(STATUS_GRAPHICS_INVALID_ALLOCATION_USAGE, 0xC01E0110u),
                 NT(STATUS_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION, 0xC01E0111u),
                 NT(STATUS_GRAPHICS_ALLOCATION_CLOSED, 0xC01E0112u),
                 NT(STATUS_GRAPHICS_INVALID_ALLOCATION_INSTANCE, 0xC01E0113u),
                 NT(STATUS_GRAPHICS_INVALID_ALLOCATION_HANDLE, 0xC01E0114u),
                 NT(STATUS_GRAPHICS_WRONG_ALLOCATION_DEVICE, 0xC01E0115u),
                 NT(STATUS_GRAPHICS_ALLOCATION_CONTENT_LOST, 0xC01E0116u),
                 NT(STATUS_GRAPHICS_GPU_EXCEPTION_ON_DEVICE, 0xC01E0200u),
                 NT(STATUS_GRAPHICS_SKIP_ALLOCATION_PREPARATION, 0x401E0201u));

    tap(NT_SUCCESS(STATUS_SUCCESS) && NT_SUCCESS(STATUS_PENDING) &&
            NT_SUCCESS(STATUS_GRAPHICS_PARTIAL_DATA_POPULATED) && !NT_SUCCESS(STATUS_NO_MEMORY) &&
            !NT_SUCCESS(STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER) && sizeof(NTSTATUS) == 4,
        "NTSTATUS is 32-bit signed: NT_SUCCESS holds for success and informational codes only");

    CHECK_VALUES("interface and WDDM version numbers",
                 V(DXGKDDI_INTERFACE_VERSION, 0x11007),
                 V(DXGKDDI_INTERFACE_VERSION_WDDM2_0, 0x5023),
                 V(DXGKDDI_INTERFACE_VERSION_WDDM2_9, 0xE003),
                 V(DXGKDDI_INTERFACE_VERSION_WDDM3_0, 0xF003),
                 V(DXGKDDI_INTERFACE_VERSION_WDDM3_1, 0x10004),
                 V(DXGKDDI_INTERFACE_VERSION_WDDM3_2, 0x11007), V(DXGKDDI_WDDMv2, 0x2000),
                 V(DXGKDDI_WDDMv3_2, 0x3200), V(DXGKDDI_WDDM_LATEST, 0x3200));

    CHECK_VALUES("DXGK_BUILDPAGINGBUFFER_OPERATION values",
                 V(DXGK_OPERATION_TRANSFER, 0), V(DXGK_OPERATION_FILL, 1),
                 V(DXGK_OPERATION_DISCARD_CONTENT, 2), V(DXGK_OPERATION_MAP_APERTURE_SEGMENT, 5),
                 V(DXGK_OPERATION_UNMAP_APERTURE_SEGMENT, 6), V(DXGK_OPERATION_VIRTUAL_TRANSFER, 8),
                 V(DXGK_OPERATION_VIRTUAL_FILL, 9), V(DXGK_OPERATION_UPDATE_PAGE_TABLE, 11),
                 V(DXGK_OPERATION_FLUSH_TLB, 12), V(DXGK_OPERATION_UPDATE_CONTEXT_ALLOCATION, 13),
                 V(DXGK_OPERATION_COPY_PAGE_TABLE_ENTRIES, 14),
                 V(DXGK_OPERATION_NOTIFY_RESIDENCY, 15),
                 V(DXGK_OPERATION_SIGNAL_MONITORED_FENCE, 16),
                 V(DXGK_OPERATION_MAP_APERTURE_SEGMENT2, 17), V(DXGK_OPERATION_NOTIFY_ALLOC, 22));

    CHECK_VALUES("DXGK_INTERRUPT_TYPE values", V(DXGK_INTERRUPT_DMA_COMPLETED, 1),
                 V(DXGK_INTERRUPT_DMA_PREEMPTED, 2), V(DXGK_INTERRUPT_DMA_FAULTED, 4),
                 V(DXGK_INTERRUPT_DMA_PAGE_FAULTED, 9),
                 V(DXGK_INTERRUPT_MONITORED_FENCE_SIGNALED, 11),
                 V(DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT, 16),
                 V(DXGK_INTERRUPT_GPU_ENGINE_STATE_CHANGE, 20));

    CHECK_VALUES("DXGK_QUERYADAPTERINFOTYPE values", V(DXGKQAITYPE_UMDRIVERPRIVATE, 0),
                 V(DXGKQAITYPE_DRIVERCAPS, 1), V(DXGKQAITYPE_QUERYSEGMENT, 2),
                 V(DXGKQAITYPE_QUERYSEGMENT3, 5), V(DXGKQAITYPE_QUERYSEGMENT4, 11),
                 V(DXGKQAITYPE_GPUMMUCAPS, 13), V(DXGKQAITYPE_PAGETABLELEVELDESC, 14),
                 V(DXGKQAITYPE_PHYSICALADAPTERCAPS, 15), V(DXGKQAITYPE_SCANOUT_CAPS, 33),
                 V(DXGKQAITYPE_PAGINGPROCESSGPUVASIZE, 48));

    CHECK_VALUES("D3DDDI/D3DKMDT enum and constant values", V(D3DDDI_ROTATION_IDENTITY, 1),
                 V(D3DDDI_ROTATION_270, 4), V(DXGK_HANDLE_ALLOCATION, 1),
                 V(DXGK_HANDLE_RESOURCE, 2), V(DXGK_PAGE_FAULT_WRITE, 0x1),
                 V(DXGK_PAGE_FAULT_PROCESS_HANDLE_VALID, 0x80),
                 V(D3DKMDT_GRAPHICS_PREEMPTION_DMA_BUFFER_BOUNDARY, 100),
                 V(D3DKMDT_COMPUTE_PREEMPTION_SHADER_BOUNDARY, 500),
                 V(D3DDDI_ALLOCATIONPRIORITY_NORMAL, 0x78000000),
                 V(DXGK_SEGMENT_ID_SYSTEMMEMORY, 31),
                 V(DXGK_SEGMENT_SET_SYSTEMMEMORY, 0x80000000u),
                 V(DXGK_MAX_ASYMETRICAL_PROCESSING_NODES, 64));

    /* The WDK's 0x80000000 and 0x80000001, written so that ISO C (-pedantic) takes them: the
     * same 32 bits in a 4-byte enum, as MSVC's int enum holds them. */
    tap(sizeof(DXGK_MIRACAST_CHUNK_TYPE) == 4 &&
            (uint32_t)DXGK_MIRACAST_CHUNK_TYPE_ENCODE_DRIVER_DEFINED_1 == 0x80000000u &&
            (uint32_t)DXGK_MIRACAST_CHUNK_TYPE_ENCODE_DRIVER_DEFINED_2 == 0x80000001u,
        "DXGK_MIRACAST_CHUNK_TYPE_ENCODE_DRIVER_DEFINED_1/2 are 0x80000000 and 0x80000001 in a 4-byte enum");
}

/* ---- 4. DDI and callback signatures -------------------------------------------------- */

/*
 * Declared through the WDK's function types and defined with the parameter types spelled
 * out, as WDK drivers do; -Werror turns any prototype mismatch into a build failure.
 */
static DXGKDDI_CREATEALLOCATION test_create_allocation;
static DXGKDDI_OPENALLOCATIONINFO test_open_allocation;
static DXGKDDI_CLOSEALLOCATION test_close_allocation;
static DXGKDDI_DESTROYALLOCATION test_destroy_allocation;
static DXGKDDI_DESCRIBEALLOCATION test_describe_allocation;
static DXGKDDI_PATCH test_patch;
static DXGKDDI_SUBMITCOMMAND test_submit_command;
static DXGKDDI_PREEMPTCOMMAND test_preempt_command;
static DXGKDDI_CANCELCOMMAND test_cancel_command;
static DXGKDDI_QUERYCURRENTFENCE test_query_current_fence;
static DXGKDDI_BUILDPAGINGBUFFER test_build_paging_buffer;
static DXGKDDI_QUERYADAPTERINFO test_query_adapter_info;
static DXGKDDI_RESETFROMTIMEOUT test_reset_from_timeout;
static DXGKDDI_RESTARTFROMTIMEOUT test_restart_from_timeout;
static DXGKDDI_INTERRUPT_ROUTINE test_interrupt_routine;
static DXGKDDI_DPC_ROUTINE test_dpc_routine;

static NTSTATUS test_create_allocation(const HANDLE hAdapter, DXGKARG_CREATEALLOCATION *pArgs)
{
    (void)hAdapter;
    pArgs->pAllocationInfo[0].FlagsWddm2.CpuVisible = 1;
    return STATUS_SUCCESS;
}

static NTSTATUS test_open_allocation(const HANDLE hDevice, const DXGKARG_OPENALLOCATION *pArgs)
{
    (void)hDevice;
    return pArgs->NumAllocations ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

static NTSTATUS test_close_allocation(const HANDLE hDevice, const DXGKARG_CLOSEALLOCATION *pArgs)
{
    (void)hDevice;
    (void)pArgs;
    return STATUS_SUCCESS;
}

static NTSTATUS test_destroy_allocation(const HANDLE hAdapter,
                                        const DXGKARG_DESTROYALLOCATION *pArgs)
{
    (void)hAdapter;
    (void)pArgs;
    return STATUS_SUCCESS;
}

static NTSTATUS test_describe_allocation(const HANDLE hAdapter, DXGKARG_DESCRIBEALLOCATION *pArgs)
{
    (void)hAdapter;
    pArgs->Format = D3DDDIFMT_A8R8G8B8;
    return STATUS_SUCCESS;
}

static NTSTATUS test_patch(const HANDLE hAdapter, const DXGKARG_PATCH *pArgs)
{
    (void)hAdapter;
    (void)pArgs;
    return STATUS_SUCCESS;
}

static NTSTATUS test_submit_command(const HANDLE hAdapter, const DXGKARG_SUBMITCOMMAND *pArgs)
{
    (void)hAdapter;
    (void)pArgs;
    return STATUS_SUCCESS;
}

static NTSTATUS test_preempt_command(const HANDLE hAdapter, const DXGKARG_PREEMPTCOMMAND *pArgs)
{
    (void)hAdapter;
    (void)pArgs;
    return STATUS_SUCCESS;
}

static NTSTATUS test_cancel_command(const HANDLE hAdapter, const DXGKARG_CANCELCOMMAND *pArgs)
{
    (void)hAdapter;
    (void)pArgs;
    return STATUS_SUCCESS;
}

static NTSTATUS test_query_current_fence(const HANDLE hAdapter, DXGKARG_QUERYCURRENTFENCE *pArgs)
{
    (void)hAdapter;
    pArgs->CurrentFence = 7;
    return STATUS_SUCCESS;
}

static NTSTATUS test_build_paging_buffer(const HANDLE hAdapter, DXGKARG_BUILDPAGINGBUFFER *pArgs)
{
    (void)hAdapter;
    pArgs->MultipassOffset = 1;
    return STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER;
}

static NTSTATUS test_query_adapter_info(const HANDLE hAdapter,
                                        const DXGKARG_QUERYADAPTERINFO *pArgs)
{
    (void)hAdapter;
    return pArgs->Type == DXGKQAITYPE_DRIVERCAPS ? STATUS_SUCCESS : STATUS_NOT_SUPPORTED;
}

static NTSTATUS test_reset_from_timeout(const HANDLE hAdapter)
{
    (void)hAdapter;
    return STATUS_SUCCESS;
}

static NTSTATUS test_restart_from_timeout(const HANDLE hAdapter)
{
    (void)hAdapter;
    return STATUS_SUCCESS;
}

static BOOLEAN test_interrupt_routine(void *const MiniportDeviceContext, ULONG MessageNumber)
{
    (void)MiniportDeviceContext;
    return MessageNumber == 0;
}

static void test_dpc_routine(void *const MiniportDeviceContext)
{
    (void)MiniportDeviceContext;
}

/* Callbacks as the OS stand-in implements them. */
static int g_notified;

static VOID APIENTRY test_notify_interrupt(const HANDLE hAdapter,
                                           DXGKARGCB_NOTIFY_INTERRUPT_DATA *pData)
{
    (void)hAdapter;
    g_notified = pData->InterruptType == DXGK_INTERRUPT_DMA_COMPLETED &&
                 pData->DmaCompleted.SubmissionFenceId == 42;
}

static VOID APIENTRY test_notify_dpc(const HANDLE hAdapter)
{
    (void)hAdapter;
}

static BOOLEAN APIENTRY test_queue_dpc(HANDLE DeviceHandle)
{
    return DeviceHandle != NULL;
}

static VOID *APIENTRY test_get_handle_data(const DXGKARGCB_GETHANDLEDATA *pArgs)
{
    return pArgs->Type == DXGK_HANDLE_ALLOCATION ? (VOID *)&g_notified : NULL;
}

static D3DKMT_HANDLE APIENTRY test_get_handle_parent(D3DKMT_HANDLE hAllocation)
{
    return hAllocation + 1;
}

static D3DKMT_HANDLE APIENTRY test_enum_handle_children(const DXGKARGCB_ENUMHANDLECHILDREN *pArgs)
{
    return pArgs->Index == 0 ? pArgs->hObject + 1 : 0;
}

static void test_signatures(void)
{
    const PDXGKDDI_CREATEALLOCATION create = test_create_allocation;
    const PDXGKDDI_OPENALLOCATIONINFO open = test_open_allocation;
    const PDXGKDDI_CLOSEALLOCATION close = test_close_allocation;
    const PDXGKDDI_DESTROYALLOCATION destroy = test_destroy_allocation;
    const PDXGKDDI_DESCRIBEALLOCATION describe = test_describe_allocation;
    const PDXGKDDI_PATCH patch = test_patch;
    const PDXGKDDI_SUBMITCOMMAND submit = test_submit_command;
    const PDXGKDDI_PREEMPTCOMMAND preempt = test_preempt_command;
    const PDXGKDDI_CANCELCOMMAND cancel = test_cancel_command;
    const PDXGKDDI_QUERYCURRENTFENCE fence = test_query_current_fence;
    const PDXGKDDI_BUILDPAGINGBUFFER paging = test_build_paging_buffer;
    const PDXGKDDI_QUERYADAPTERINFO query = test_query_adapter_info;
    const PDXGKDDI_RESETFROMTIMEOUT reset = test_reset_from_timeout;
    const PDXGKDDI_RESTARTFROMTIMEOUT restart = test_restart_from_timeout;
    const PDXGKDDI_INTERRUPT_ROUTINE isr = test_interrupt_routine;
    const PDXGKDDI_DPC_ROUTINE dpc = test_dpc_routine;

    DXGK_ALLOCATIONINFO info;
    DXGKARG_CREATEALLOCATION create_args;
    DXGK_OPENALLOCATIONINFO open_info;
    DXGKARG_OPENALLOCATION open_args;
    DXGKARG_CLOSEALLOCATION close_args;
    DXGKARG_DESTROYALLOCATION destroy_args;
    DXGKARG_DESCRIBEALLOCATION describe_args;
    DXGKARG_PATCH patch_args;
    DXGKARG_SUBMITCOMMAND submit_args;
    DXGKARG_PREEMPTCOMMAND preempt_args;
    DXGKARG_CANCELCOMMAND cancel_args;
    DXGKARG_QUERYCURRENTFENCE fence_args;
    DXGKARG_BUILDPAGINGBUFFER paging_args;
    DXGKARG_QUERYADAPTERINFO query_args;
    memset(&info, 0, sizeof info);
    memset(&create_args, 0, sizeof create_args);
    memset(&open_info, 0, sizeof open_info);
    memset(&open_args, 0, sizeof open_args);
    memset(&close_args, 0, sizeof close_args);
    memset(&destroy_args, 0, sizeof destroy_args);
    memset(&describe_args, 0, sizeof describe_args);
    memset(&patch_args, 0, sizeof patch_args);
    memset(&submit_args, 0, sizeof submit_args);
    memset(&preempt_args, 0, sizeof preempt_args);
    memset(&cancel_args, 0, sizeof cancel_args);
    memset(&fence_args, 0, sizeof fence_args);
    memset(&paging_args, 0, sizeof paging_args);
    memset(&query_args, 0, sizeof query_args);
    create_args.NumAllocations = 1;
    create_args.pAllocationInfo = &info;
    open_args.NumAllocations = 1;
    open_args.pOpenAllocation = &open_info;
    query_args.Type = DXGKQAITYPE_DRIVERCAPS;

    HANDLE adapter = &info;
    int ok = 1;
    ok &= create(adapter, &create_args) == STATUS_SUCCESS && info.FlagsWddm2.Value == 1;
    ok &= open(adapter, &open_args) == STATUS_SUCCESS;
    ok &= close(adapter, &close_args) == STATUS_SUCCESS;
    ok &= destroy(adapter, &destroy_args) == STATUS_SUCCESS;
    ok &= describe(adapter, &describe_args) == STATUS_SUCCESS &&
          describe_args.Format == D3DDDIFMT_A8R8G8B8;
    ok &= patch(adapter, &patch_args) == STATUS_SUCCESS;
    ok &= submit(adapter, &submit_args) == STATUS_SUCCESS;
    ok &= preempt(adapter, &preempt_args) == STATUS_SUCCESS;
    ok &= cancel(adapter, &cancel_args) == STATUS_SUCCESS;
    ok &= fence(adapter, &fence_args) == STATUS_SUCCESS && fence_args.CurrentFence == 7;
    ok &= paging(adapter, &paging_args) == STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER &&
          paging_args.MultipassOffset == 1;
    ok &= query(adapter, &query_args) == STATUS_SUCCESS;
    ok &= reset(adapter) == STATUS_SUCCESS && restart(adapter) == STATUS_SUCCESS;
    ok &= isr(adapter, 0) == TRUE;
    dpc(adapter);
    tap(ok, "DXGKDDI_* function types take WDK-style definitions and PDXGKDDI_* hold them");

    DXGKRNL_INTERFACE kif;
    memset(&kif, 0, sizeof kif);
    kif.Size = sizeof kif;
    kif.Version = DXGKDDI_INTERFACE_VERSION;
    kif.DeviceHandle = adapter;
    kif.DxgkCbNotifyInterrupt = test_notify_interrupt;
    kif.DxgkCbNotifyDpc = test_notify_dpc;
    kif.DxgkCbQueueDpc = test_queue_dpc;
    kif.DxgkCbGetHandleData = test_get_handle_data;
    kif.DxgkCbGetHandleParent = test_get_handle_parent;
    kif.DxgkCbEnumHandleChildren = test_enum_handle_children;

    DXGKARGCB_NOTIFY_INTERRUPT_DATA irq;
    memset(&irq, 0, sizeof irq);
    irq.InterruptType = DXGK_INTERRUPT_DMA_COMPLETED;
    irq.DmaCompleted.SubmissionFenceId = 42;
    kif.DxgkCbNotifyInterrupt(kif.DeviceHandle, &irq);
    kif.DxgkCbNotifyDpc(kif.DeviceHandle);

    DXGKARGCB_GETHANDLEDATA get;
    memset(&get, 0, sizeof get);
    get.hObject = 5;
    get.Type = DXGK_HANDLE_ALLOCATION;
    DXGKARGCB_ENUMHANDLECHILDREN children = {5, 0};
    ok = g_notified && kif.DxgkCbQueueDpc(kif.DeviceHandle) &&
         kif.DxgkCbGetHandleData(&get) == (VOID *)&g_notified &&
         kif.DxgkCbGetHandleParent(5) == 6 && kif.DxgkCbEnumHandleChildren(&children) == 6 &&
         kif.Size == 576;
    tap(ok, "DXGKRNL_INTERFACE callbacks gpuref provides have the WDK prototypes");
}

/* The context DDIs: DXGKDDI_CREATECONTEXT / DESTROYCONTEXT (NTSTATUS), SETROOTPAGETABLE (VOID). */
static DXGKDDI_CREATECONTEXT test_create_context;
static DXGKDDI_DESTROYCONTEXT test_destroy_context;
static DXGKDDI_SETROOTPAGETABLE test_set_root_page_table;

static UINT64 g_root;

static NTSTATUS test_create_context(const HANDLE hDevice, DXGKARG_CREATECONTEXT *pArgs)
{
    pArgs->hContext = hDevice;
    pArgs->ContextInfo.DmaBufferSize = 4096;
    pArgs->ContextInfo.Caps.NoPatchingRequired = 1;
    return STATUS_SUCCESS;
}

static NTSTATUS test_destroy_context(const HANDLE hContext)
{
    return hContext ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

static VOID test_set_root_page_table(const HANDLE hAdapter, const DXGKARG_SETROOTPAGETABLE *pArgs)
{
    (void)hAdapter;
    g_root = pArgs->Address.SegmentOffset + pArgs->NumEntries;
}

static void test_context_signatures(void)
{
    const PDXGKDDI_CREATECONTEXT create = test_create_context;
    const PDXGKDDI_DESTROYCONTEXT destroy = test_destroy_context;
    const PDXGKDDI_SETROOTPAGETABLE set_root = test_set_root_page_table;
    DXGKARG_CREATECONTEXT cc;
    DXGKARG_SETROOTPAGETABLE rp;
    memset(&cc, 0, sizeof cc);
    memset(&rp, 0, sizeof rp);
    HANDLE device = &cc;
    int ok = create(device, &cc) == STATUS_SUCCESS && cc.hContext == device &&
             cc.ContextInfo.DmaBufferSize == 4096 && cc.ContextInfo.Caps.Value == 1;
    rp.hContext = cc.hContext;
    rp.Address.SegmentId = 1;
    rp.Address.SegmentOffset = 0x10000;
    rp.NumEntries = 512;
    set_root(device, &rp);
    ok &= g_root == 0x10200 && destroy(cc.hContext) == STATUS_SUCCESS;
    tap(ok, "DXGKDDI_CREATECONTEXT, DESTROYCONTEXT and SETROOTPAGETABLE take WDK-style definitions");
}

/* MmGetMdlPfnArray: the page frames follow the MDL, as the WDK's macro computes it. */
static void test_mdl_pfn_array(void)
{
    struct {
        MDL mdl;
        PFN_NUMBER pfn[2];
    } m;
    memset(&m, 0, sizeof m);
    m.mdl.ByteCount = 8192;
    m.mdl.ByteOffset = 16;
    m.pfn[0] = 0x1234;
    m.pfn[1] = 0x5678;
    PMDL p = &m.mdl;
    tap((const void *)MmGetMdlPfnArray(p) == (const void *)((const unsigned char *)p + 48) &&
            MmGetMdlPfnArray(p)[1] == 0x5678 && MmGetMdlByteCount(p) == 8192 &&
            MmGetMdlByteOffset(p) == 16,
        "MDL: MmGetMdlPfnArray points just past the 48-byte MDL; byte count and offset macros");
}

/* ---- main ---------------------------------------------------------------------------- */

int main(void)
{
    /* reserved names, NT_SUCCESS, 6 value groups, the 0x8000000x enumerators, 3 signature
     * tests and the MDL test */
    const int fixed_tests = 1 + 1 + 6 + 1 + 3 + 1;
    printf("1..%d\n", count_layout_tests() + count_bit_tests() + fixed_tests);
    run_layout_tests();
    run_bit_tests();
    test_reserved_bit_names();
    test_values();
    test_signatures();
    test_context_signatures();
    test_mdl_pfn_array();
    return g_failed ? 1 : 0;
}
