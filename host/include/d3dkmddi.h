/* SPDX-License-Identifier: Apache-2.0 */
/*
 * d3dkmddi.h: WDK-compatible types for the WDDM display miniport DDIs that gpuref implements.
 *
 * What this is
 *   gpuref's own declaration of the Windows Driver Kit names a display miniport uses for the
 *   allocation, context, submission, paging, interrupt, cancellation and TDR DDIs (DXGKARG_*,
 *   DXGK_*, DXGKDDI_*, DXGKCB_*, D3DDDI_*, NTSTATUS codes), so that host/kmd is written against
 *   the WDK's names and can be lifted into a real WDDM driver unchanged.  It was written from
 *   Microsoft's public documentation (learn.microsoft.com, windows-hardware/drivers/ddi:
 *   d3dkmddi, d3dukmdt, d3dkmdt, dispmprt and wdm pages), one structure at a time; field order,
 *   bit positions, union nesting and enum values were then cross-checked against public copies
 *   and bindings of the WDK headers.  No WDK text is reproduced here.
 *
 * Which interface version and layout
 *   The newest published interface: DXGKDDI_INTERFACE_VERSION_WDDM3_2 (0x11007, Windows 11
 *   24H2, WDK 10.0.26100).  The documentation's syntax blocks drop the WDK's
 *   "#if (DXGKDDI_INTERFACE_VERSION >= ...)" conditionals; every member a later version adds is
 *   present here, and every "#else Reserved" alternative is resolved to the newest branch.
 *   Older layouts are not provided: defining DXGKDDI_INTERFACE_VERSION to anything else is an
 *   error.  The layout is the WDK's for x64 (LLP64: INT/UINT/LONG/ULONG 32-bit, pointers,
 *   HANDLE, SIZE_T and ULONG_PTR 64-bit, BOOLEAN 8-bit, natural alignment, no packing pragmas).
 *   Every bit-field word here uses a single 4- or 8-byte type, the case in which GCC and MSVC
 *   allocate bit-fields alike, so the same layout results on any LP64 Linux host (x86-64,
 *   AArch64); 32-bit hosts are refused.  Anonymous structs and unions are used as in the WDK
 *   (each anonymous struct marked GR_ANON_STRUCT, so that -pedantic is clean in C++ too).
 *   tb/unit/ddi_layout checks every size, offset and flag bit.
 *
 * How it is split
 *   One header.  Sections are labelled with the WDK header each name lives in (d3dukmdt.h,
 *   d3dkmdt.h, d3dkmddi.h, dispmprt.h); host/include/dispmprt.h only includes this file, so
 *   code that includes the WDK's <dispmprt.h> builds here too.  Off Windows (no _WIN32) it also
 *   defines the Windows base types, SAL annotations and calling-convention macros it needs,
 *   and the documented members of the WDM MDL with MmGetMdlPfnArray (paging transfers name
 *   system pages through MDLs); on Windows those come from the system headers.
 *
 * What it deliberately leaves out
 *   - Every DDI gpuref does not implement: display (VidPN, present, flip, MPO, pointer, gamma,
 *     brightness, I2C, OPM, Miracast DDIs), hardware queues, GPU-P/SR-IOV, power
 *     management, native fences, user-mode submission, escape, GDI render, and their argument
 *     structures.  Types those DDIs need only by pointer are declared incomplete.
 *   - DRIVER_INITIALIZATION_DATA (the DDI table): the OS stand-in calls the miniport through
 *     gpuref's own table.  The PDXGKDDI_* pointer types it would hold are provided.
 *   - DXGKRNL_INTERFACE is complete in layout and member names, but only the callbacks gpuref
 *     provides carry the WDK prototype; the others are typed gr_dxgkcb_untyped_t (same size).
 *   - D3DDDIFORMAT lists only the formats gpuref names; the type is the WDK's 32-bit enum.
 *   - Four WDDM 3.2 members of DXGKARG_BUILDPAGINGBUFFER's operation union (NotifyFenceResidency,
 *     MmapMmu, UnmapMmu, NotifyResidency2) whose types Microsoft does not document; their bytes
 *     are covered by the union's Reserved array, so the structure's layout is unaffected.
 *   - IRQL and buffer-size SAL annotations (defined away); the levels are in the comments.
 *   - There is no DXGKARG_RESETFROMTIMEOUT, DXGKARG_RESTARTFROMTIMEOUT, DXGK_MEMORYMANAGEMENTCAPS
 *     or DXGK_PREEMPTIONCAPS in the WDK: the TDR DDIs take only the adapter handle, memory caps
 *     are DXGK_VIDMMCAPS (DXGK_DRIVERCAPS.MemoryManagementCaps) and preemption caps are
 *     D3DKMDT_PREEMPTION_CAPS.
 */
#ifndef _D3DKMDDI_H_
#define _D3DKMDDI_H_

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The WDK nests anonymous structs in its unions. C11 has them; ISO C++ has anonymous unions but
 * not anonymous structs, which GCC and Clang (as MSVC) accept as an extension: __extension__
 * says so, and the header is clean under -pedantic as C11 and as C++17 (tb/unit/headers).
 */
#if defined(__GNUC__)
#define GR_ANON_STRUCT __extension__ struct
#else
#define GR_ANON_STRUCT struct
#endif

/* ==== Interface version ================================================================ */

#define DXGKDDI_INTERFACE_VERSION_VISTA                             0x1052
#define DXGKDDI_INTERFACE_VERSION_VISTA_SP1                         0x1053
#define DXGKDDI_INTERFACE_VERSION_WIN7                              0x2005
#define DXGKDDI_INTERFACE_VERSION_WIN8                              0x300E
#define DXGKDDI_INTERFACE_VERSION_WDDM1_3                           0x4002
#define DXGKDDI_INTERFACE_VERSION_WDDM1_3_PATH_INDEPENDENT_ROTATION 0x4003
#define DXGKDDI_INTERFACE_VERSION_WDDM2_0                           0x5023
#define DXGKDDI_INTERFACE_VERSION_WDDM2_1                           0x6003
#define DXGKDDI_INTERFACE_VERSION_WDDM2_1_5                         0x6010
#define DXGKDDI_INTERFACE_VERSION_WDDM2_1_6                         0x6011
#define DXGKDDI_INTERFACE_VERSION_WDDM2_2                           0x700A
#define DXGKDDI_INTERFACE_VERSION_WDDM2_3                           0x8001
#define DXGKDDI_INTERFACE_VERSION_WDDM2_4                           0x9006
#define DXGKDDI_INTERFACE_VERSION_WDDM2_5                           0xA00B
#define DXGKDDI_INTERFACE_VERSION_WDDM2_6                           0xB004
#define DXGKDDI_INTERFACE_VERSION_WDDM2_7                           0xC004
#define DXGKDDI_INTERFACE_VERSION_WDDM2_8                           0xD001
#define DXGKDDI_INTERFACE_VERSION_WDDM2_9                           0xE003
#define DXGKDDI_INTERFACE_VERSION_WDDM3_0                           0xF003
#define DXGKDDI_INTERFACE_VERSION_WDDM3_1                           0x10004
#define DXGKDDI_INTERFACE_VERSION_WDDM3_2                           0x11007

#ifndef DXGKDDI_INTERFACE_VERSION
#define DXGKDDI_INTERFACE_VERSION DXGKDDI_INTERFACE_VERSION_WDDM3_2
#endif
#if DXGKDDI_INTERFACE_VERSION != DXGKDDI_INTERFACE_VERSION_WDDM3_2
#error "gpuref's d3dkmddi.h provides only the DXGKDDI_INTERFACE_VERSION_WDDM3_2 layout"
#endif

/* ==== Portability: assertions, calling conventions, SAL ================================ */

#ifdef __cplusplus
#define GR_DDI_STATIC_ASSERT(expr, msg) static_assert(expr, msg)
#else
#define GR_DDI_STATIC_ASSERT(expr, msg) _Static_assert(expr, msg)
#endif

#ifndef _WIN32
/* x64 Windows has one calling convention; these keep the WDK's spelling compiling. */
#ifndef __stdcall
#define __stdcall
#endif
#ifndef APIENTRY
#define APIENTRY
#endif
#ifndef CALLBACK
#define CALLBACK
#endif
#endif /* !_WIN32 */

/* SAL annotations describe contracts to the WDK's static analysis; they have no code effect. */
#ifndef _In_
#define _In_
#endif
#ifndef _In_opt_
#define _In_opt_
#endif
#ifndef _Out_
#define _Out_
#endif
#ifndef _Out_opt_
#define _Out_opt_
#endif
#ifndef _Inout_
#define _Inout_
#endif
#ifndef _Inout_opt_
#define _Inout_opt_
#endif
#ifndef _Outptr_
#define _Outptr_
#endif
#ifndef _Check_return_
#define _Check_return_
#endif
#ifndef _Success_
#define _Success_(expr)
#endif
#ifndef _IRQL_requires_
#define _IRQL_requires_(level)
#endif
#ifndef _IRQL_requires_max_
#define _IRQL_requires_max_(level)
#endif
#ifndef _Function_class_
#define _Function_class_(name)
#endif
#ifndef _Function_class_DXGK_
#define _Function_class_DXGK_(name)
#endif
#ifndef _Field_size_
#define _Field_size_(count)
#endif
#ifndef _Field_size_bytes_
#define _Field_size_bytes_(bytes)
#endif
#ifndef _In_reads_bytes_
#define _In_reads_bytes_(bytes)
#endif
#ifndef _Out_writes_bytes_
#define _Out_writes_bytes_(bytes)
#endif

/* ==== Windows base types (ntdef.h, basetsd.h, wdm.h) ==================================== */

#ifndef _WIN32
#include <stddef.h>
#include <stdint.h>

#ifndef VOID
#define VOID void
#endif
#ifndef CONST
#define CONST const
#endif
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

/* Fixed widths from <stdint.h>, so LLP64's 32-bit LONG/ULONG hold on an LP64 host. */
typedef void *PVOID;
typedef void *HANDLE;
typedef HANDLE *PHANDLE;
typedef char CHAR;
typedef unsigned char UCHAR;
typedef unsigned char BYTE;
typedef unsigned char BOOLEAN;
typedef BOOLEAN *PBOOLEAN;
typedef int16_t SHORT;
typedef uint16_t USHORT;
typedef uint16_t WORD;
typedef int INT;
typedef unsigned int UINT;
typedef int BOOL;
typedef int32_t LONG;
typedef uint32_t ULONG;
typedef ULONG *PULONG;
typedef uint32_t DWORD;
typedef int64_t LONGLONG;
typedef uint64_t ULONGLONG;
typedef int8_t INT8;
typedef uint8_t UINT8;
typedef int16_t INT16;
typedef uint16_t UINT16;
typedef int32_t INT32;
typedef uint32_t UINT32;
typedef int64_t INT64;
typedef uint64_t UINT64;
typedef int64_t LONG64;
typedef uint64_t ULONG64;
typedef intptr_t INT_PTR;
typedef uintptr_t UINT_PTR;
typedef intptr_t LONG_PTR;
typedef uintptr_t ULONG_PTR;
typedef ULONG_PTR SIZE_T;
typedef SIZE_T *PSIZE_T;

/* NT status: negative is an error, 0 and positive values succeed (see NT_SUCCESS). */
typedef LONG NTSTATUS;

/* A signed 64-bit value addressable as two 32-bit halves. */
typedef union _LARGE_INTEGER {
    GR_ANON_STRUCT {
        ULONG LowPart;
        LONG  HighPart;
    };
    struct {
        ULONG LowPart;
        LONG  HighPart;
    } u;
    LONGLONG QuadPart;
} LARGE_INTEGER, *PLARGE_INTEGER;

/* A bus (CPU physical) address. */
typedef LARGE_INTEGER PHYSICAL_ADDRESS, *PPHYSICAL_ADDRESS;

/* A physical page frame number (the page's bus address >> 12 on x64). */
typedef ULONG_PTR PFN_NUMBER, *PPFN_NUMBER;

/*
 * Memory descriptor list (wdm.h): a buffer's description in physical pages. The structure is
 * "partially opaque": the members are the documented ones, in the WDK's order and x64 layout
 * (48 bytes); the page-frame array (one PFN_NUMBER per page spanned by ByteOffset + ByteCount)
 * follows the structure in memory, which is where MmGetMdlPfnArray points. A miniport reads
 * the pages of a paging operation through MmGetMdlPfnArray(pMdl)[MdlOffset + i].
 */
typedef struct _MDL {
    struct _MDL      *Next;     /* next MDL of a chain */
    SHORT             Size;     /* bytes of this MDL including its PFN array */
    SHORT             MdlFlags;
    struct _EPROCESS *Process;  /* owning process of a user buffer, else NULL */
    PVOID             MappedSystemVa;
    PVOID             StartVa;  /* page-aligned virtual address of the buffer */
    ULONG             ByteCount;
    ULONG             ByteOffset; /* offset of the buffer in its first page */
} MDL, *PMDL;

#ifndef MmGetMdlPfnArray
#define MmGetMdlPfnArray(Mdl)   ((PPFN_NUMBER)((Mdl) + 1))
#endif
#ifndef MmGetMdlByteCount
#define MmGetMdlByteCount(Mdl)  ((Mdl)->ByteCount)
#endif
#ifndef MmGetMdlByteOffset
#define MmGetMdlByteOffset(Mdl) ((Mdl)->ByteOffset)
#endif

/* A routine run synchronized with the interrupt (DxgkCbSynchronizeExecution). */
typedef BOOLEAN KSYNCHRONIZE_ROUTINE(_In_ PVOID SynchronizeContext);
typedef KSYNCHRONIZE_ROUTINE *PKSYNCHRONIZE_ROUTINE;
#endif /* !_WIN32 */

GR_DDI_STATIC_ASSERT(sizeof(void *) == 8, "d3dkmddi.h describes the x64 layout; build for LP64");
GR_DDI_STATIC_ASSERT(sizeof(UINT) == 4 && sizeof(ULONG) == 4 && sizeof(LONG) == 4,
                     "LLP64: UINT, ULONG and LONG are 32 bits");
GR_DDI_STATIC_ASSERT(sizeof(BOOLEAN) == 1, "BOOLEAN is one byte");
GR_DDI_STATIC_ASSERT(sizeof(SIZE_T) == 8 && sizeof(ULONG_PTR) == 8 && sizeof(HANDLE) == 8,
                     "SIZE_T, ULONG_PTR and HANDLE are 64 bits");
GR_DDI_STATIC_ASSERT(sizeof(LARGE_INTEGER) == 8, "LARGE_INTEGER is 64 bits");

/* ==== NTSTATUS codes (ntstatus.h) ======================================================= */

#ifndef NT_SUCCESS
#define NT_SUCCESS(Status) (((NTSTATUS)(Status)) >= 0)
#endif

/* General codes the DDIs and the OS stand-in return. */
#ifndef STATUS_SUCCESS
#define STATUS_SUCCESS                  ((NTSTATUS)0x00000000L)
#endif
#ifndef STATUS_TIMEOUT
#define STATUS_TIMEOUT                  ((NTSTATUS)0x00000102L)
#endif
#ifndef STATUS_PENDING
#define STATUS_PENDING                  ((NTSTATUS)0x00000103L)
#endif
#ifndef STATUS_UNSUCCESSFUL
#define STATUS_UNSUCCESSFUL             ((NTSTATUS)0xC0000001L)
#endif
#ifndef STATUS_NOT_IMPLEMENTED
#define STATUS_NOT_IMPLEMENTED          ((NTSTATUS)0xC0000002L)
#endif
#ifndef STATUS_INVALID_HANDLE
#define STATUS_INVALID_HANDLE           ((NTSTATUS)0xC0000008L)
#endif
#ifndef STATUS_INVALID_PARAMETER
#define STATUS_INVALID_PARAMETER        ((NTSTATUS)0xC000000DL)
#endif
#ifndef STATUS_NO_MEMORY
#define STATUS_NO_MEMORY                ((NTSTATUS)0xC0000017L)
#endif
#ifndef STATUS_ACCESS_DENIED
#define STATUS_ACCESS_DENIED            ((NTSTATUS)0xC0000022L)
#endif
#ifndef STATUS_BUFFER_TOO_SMALL
#define STATUS_BUFFER_TOO_SMALL         ((NTSTATUS)0xC0000023L)
#endif
#ifndef STATUS_INTEGER_OVERFLOW
#define STATUS_INTEGER_OVERFLOW         ((NTSTATUS)0xC0000095L)
#endif
#ifndef STATUS_PRIVILEGED_INSTRUCTION
#define STATUS_PRIVILEGED_INSTRUCTION   ((NTSTATUS)0xC0000096L)
#endif
#ifndef STATUS_INSUFFICIENT_RESOURCES
#define STATUS_INSUFFICIENT_RESOURCES   ((NTSTATUS)0xC000009AL)
#endif
#ifndef STATUS_DEVICE_NOT_READY
#define STATUS_DEVICE_NOT_READY         ((NTSTATUS)0xC00000A3L)
#endif
#ifndef STATUS_NOT_SUPPORTED
#define STATUS_NOT_SUPPORTED            ((NTSTATUS)0xC00000BBL)
#endif
#ifndef STATUS_INVALID_DEVICE_STATE
#define STATUS_INVALID_DEVICE_STATE     ((NTSTATUS)0xC0000184L)
#endif

/* Graphics kernel (facility 0x1E): common codes 0x000-0x0FF. */
#ifndef STATUS_GRAPHICS_NOT_EXCLUSIVE_MODE_OWNER
#define STATUS_GRAPHICS_NOT_EXCLUSIVE_MODE_OWNER        ((NTSTATUS)0xC01E0000L)
#endif
#ifndef STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER
#define STATUS_GRAPHICS_INSUFFICIENT_DMA_BUFFER         ((NTSTATUS)0xC01E0001L)
#endif
#ifndef STATUS_GRAPHICS_INVALID_DISPLAY_ADAPTER
#define STATUS_GRAPHICS_INVALID_DISPLAY_ADAPTER         ((NTSTATUS)0xC01E0002L)
#endif
#ifndef STATUS_GRAPHICS_ADAPTER_WAS_RESET
#define STATUS_GRAPHICS_ADAPTER_WAS_RESET               ((NTSTATUS)0xC01E0003L)
#endif
#ifndef STATUS_GRAPHICS_INVALID_DRIVER_MODEL
#define STATUS_GRAPHICS_INVALID_DRIVER_MODEL            ((NTSTATUS)0xC01E0004L)
#endif
#ifndef STATUS_GRAPHICS_PRESENT_MODE_CHANGED
#define STATUS_GRAPHICS_PRESENT_MODE_CHANGED            ((NTSTATUS)0xC01E0005L)
#endif
#ifndef STATUS_GRAPHICS_PRESENT_OCCLUDED
#define STATUS_GRAPHICS_PRESENT_OCCLUDED                ((NTSTATUS)0xC01E0006L)
#endif
#ifndef STATUS_GRAPHICS_PRESENT_DENIED
#define STATUS_GRAPHICS_PRESENT_DENIED                  ((NTSTATUS)0xC01E0007L)
#endif
#ifndef STATUS_GRAPHICS_CANNOTCOLORCONVERT
#define STATUS_GRAPHICS_CANNOTCOLORCONVERT              ((NTSTATUS)0xC01E0008L)
#endif
#ifndef STATUS_GRAPHICS_DRIVER_MISMATCH
#define STATUS_GRAPHICS_DRIVER_MISMATCH                 ((NTSTATUS)0xC01E0009L)
#endif
#ifndef STATUS_GRAPHICS_PARTIAL_DATA_POPULATED
#define STATUS_GRAPHICS_PARTIAL_DATA_POPULATED          ((NTSTATUS)0x401E000AL)
#endif
/* Graphics kernel, video memory manager (VidMm) codes 0x100-0x1FF. */
#ifndef STATUS_GRAPHICS_NO_VIDEO_MEMORY
#define STATUS_GRAPHICS_NO_VIDEO_MEMORY                 ((NTSTATUS)0xC01E0100L)
#endif
#ifndef STATUS_GRAPHICS_CANT_LOCK_MEMORY
#define STATUS_GRAPHICS_CANT_LOCK_MEMORY                ((NTSTATUS)0xC01E0101L)
#endif
#ifndef STATUS_GRAPHICS_ALLOCATION_BUSY
#define STATUS_GRAPHICS_ALLOCATION_BUSY                 ((NTSTATUS)0xC01E0102L)
#endif
#ifndef STATUS_GRAPHICS_TOO_MANY_REFERENCES
#define STATUS_GRAPHICS_TOO_MANY_REFERENCES             ((NTSTATUS)0xC01E0103L)
#endif
#ifndef STATUS_GRAPHICS_TRY_AGAIN_LATER
#define STATUS_GRAPHICS_TRY_AGAIN_LATER                 ((NTSTATUS)0xC01E0104L)
#endif
#ifndef STATUS_GRAPHICS_TRY_AGAIN_NOW
#define STATUS_GRAPHICS_TRY_AGAIN_NOW                   ((NTSTATUS)0xC01E0105L)
#endif
#ifndef STATUS_GRAPHICS_ALLOCATION_INVALID
#define STATUS_GRAPHICS_ALLOCATION_INVALID              ((NTSTATUS)0xC01E0106L)
#endif
#ifndef STATUS_GRAPHICS_UNSWIZZLING_APERTURE_UNAVAILABLE
#define STATUS_GRAPHICS_UNSWIZZLING_APERTURE_UNAVAILABLE ((NTSTATUS)0xC01E0107L)
#endif
#ifndef STATUS_GRAPHICS_UNSWIZZLING_APERTURE_UNSUPPORTED
#define STATUS_GRAPHICS_UNSWIZZLING_APERTURE_UNSUPPORTED ((NTSTATUS)0xC01E0108L)
#endif
#ifndef STATUS_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION
#define STATUS_GRAPHICS_CANT_EVICT_PINNED_ALLOCATION    ((NTSTATUS)0xC01E0109L)
#endif
#ifndef STATUS_GRAPHICS_INVALID_ALLOCATION_USAGE
#define STATUS_GRAPHICS_INVALID_ALLOCATION_USAGE        ((NTSTATUS)0xC01E0110L)
#endif
#ifndef STATUS_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION
#define STATUS_GRAPHICS_CANT_RENDER_LOCKED_ALLOCATION   ((NTSTATUS)0xC01E0111L)
#endif
#ifndef STATUS_GRAPHICS_ALLOCATION_CLOSED
#define STATUS_GRAPHICS_ALLOCATION_CLOSED               ((NTSTATUS)0xC01E0112L)
#endif
#ifndef STATUS_GRAPHICS_INVALID_ALLOCATION_INSTANCE
#define STATUS_GRAPHICS_INVALID_ALLOCATION_INSTANCE     ((NTSTATUS)0xC01E0113L)
#endif
#ifndef STATUS_GRAPHICS_INVALID_ALLOCATION_HANDLE
#define STATUS_GRAPHICS_INVALID_ALLOCATION_HANDLE       ((NTSTATUS)0xC01E0114L)
#endif
#ifndef STATUS_GRAPHICS_WRONG_ALLOCATION_DEVICE
#define STATUS_GRAPHICS_WRONG_ALLOCATION_DEVICE         ((NTSTATUS)0xC01E0115L)
#endif
#ifndef STATUS_GRAPHICS_ALLOCATION_CONTENT_LOST
#define STATUS_GRAPHICS_ALLOCATION_CONTENT_LOST         ((NTSTATUS)0xC01E0116L)
#endif
/* Graphics kernel, GPU scheduler (VidSch) codes 0x200-0x2FF. */
#ifndef STATUS_GRAPHICS_GPU_EXCEPTION_ON_DEVICE
#define STATUS_GRAPHICS_GPU_EXCEPTION_ON_DEVICE         ((NTSTATUS)0xC01E0200L)
#endif
#ifndef STATUS_GRAPHICS_SKIP_ALLOCATION_PREPARATION
#define STATUS_GRAPHICS_SKIP_ALLOCATION_PREPARATION     ((NTSTATUS)0x401E0201L)
#endif

/* ==== User/kernel shared types (d3dukmdt.h) ============================================= */

/* Handles dxgkrnl hands out (allocations, resources, devices): 32-bit, 0 is never valid. */
typedef UINT D3DKMT_HANDLE;
/* An address in a GPU virtual address space, and a size in one. */
typedef ULONGLONG D3DGPU_VIRTUAL_ADDRESS;
typedef ULONGLONG D3DGPU_SIZE_T;
#define D3DGPU_NULL 0
/* Display sources and targets of the video present network, by index. */
typedef UINT D3DDDI_VIDEO_PRESENT_SOURCE_ID;
typedef UINT D3DDDI_VIDEO_PRESENT_TARGET_ID;

/* Starting residency priority of an allocation (DXGK_ALLOCATIONINFO.AllocationPriority). */
#define D3DDDI_ALLOCATIONPRIORITY_MINIMUM 0x28000000
#define D3DDDI_ALLOCATIONPRIORITY_LOW     0x50000000
#define D3DDDI_ALLOCATIONPRIORITY_NORMAL  0x78000000
#define D3DDDI_ALLOCATIONPRIORITY_HIGH    0xa0000000
#define D3DDDI_ALLOCATIONPRIORITY_MAXIMUM 0xc8000000

/*
 * Surface format of an allocation.  The WDK lists the whole Direct3D 9 format set; gpuref
 * names only these, and FORCE_UINT keeps the type 32 bits wide as in the WDK.
 */
typedef enum _D3DDDIFORMAT {
    D3DDDIFMT_UNKNOWN      = 0,
    D3DDDIFMT_R8G8B8       = 20,
    D3DDDIFMT_A8R8G8B8     = 21,
    D3DDDIFMT_X8R8G8B8     = 22,
    D3DDDIFMT_R5G6B5       = 23,
    D3DDDIFMT_A8           = 28,
    D3DDDIFMT_A8B8G8R8     = 32,
    D3DDDIFMT_X8B8G8R8     = 33,
    D3DDDIFMT_R8           = 92,
    D3DDDIFMT_VERTEXDATA   = 100,
    D3DDDIFMT_INDEX16      = 101,
    D3DDDIFMT_INDEX32      = 102,
    D3DDDIFMT_BINARYBUFFER = 199,
    D3DDDIFMT_FORCE_UINT   = 0x7fffffff
} D3DDDIFORMAT;

/* A rational number, e.g. a refresh rate. */
typedef struct _D3DDDI_RATIONAL {
    UINT Numerator;
    UINT Denominator;
} D3DDDI_RATIONAL;

/* A multisampling method: sample count and number of quality levels. */
typedef struct _D3DDDI_MULTISAMPLINGMETHOD {
    UINT NumSamples;
    UINT NumQualityLevels;
} D3DDDI_MULTISAMPLINGMETHOD;

/* Clockwise display rotation (starts at 1 in the WDK). */
typedef enum _D3DDDI_ROTATION {
    D3DDDI_ROTATION_IDENTITY = 1,
    D3DDDI_ROTATION_90       = 2,
    D3DDDI_ROTATION_180      = 3,
    D3DDDI_ROTATION_270      = 4
} D3DDDI_ROTATION;

/* How many vertical syncs a flip waits for. */
typedef enum D3DDDI_FLIPINTERVAL_TYPE {
    D3DDDI_FLIPINTERVAL_IMMEDIATE               = 0,
    D3DDDI_FLIPINTERVAL_ONE                     = 1,
    D3DDDI_FLIPINTERVAL_TWO                     = 2,
    D3DDDI_FLIPINTERVAL_THREE                   = 3,
    D3DDDI_FLIPINTERVAL_FOUR                    = 4,
    D3DDDI_FLIPINTERVAL_IMMEDIATE_ALLOW_TEARING = 5
} D3DDDI_FLIPINTERVAL_TYPE;

/* A GPU physical address: a driver segment id and a byte offset inside the segment. */
typedef struct _D3DGPU_PHYSICAL_ADDRESS {
    UINT   SegmentId;
    UINT   Padding;
    UINT64 SegmentOffset;
} D3DGPU_PHYSICAL_ADDRESS;

/* Page size that a page-table entry's PageTablePageSize field selects. */
typedef enum _DXGK_PTE_PAGE_SIZE {
    DXGK_PTE_PAGE_TABLE_PAGE_4KB  = 0,
    DXGK_PTE_PAGE_TABLE_PAGE_64KB = 1
} DXGK_PTE_PAGE_SIZE;

/* One GPU page-table entry as VidMm describes it to UpdatePageTable (bits, then address). */
typedef struct _DXGK_PTE {
    union {
        GR_ANON_STRUCT {
            ULONGLONG Valid                : 1;  /* bit 0 */
            ULONGLONG Zero                 : 1;  /* bit 1 */
            ULONGLONG CacheCoherent        : 1;  /* bit 2 */
            ULONGLONG ReadOnly             : 1;  /* bit 3 */
            ULONGLONG NoExecute            : 1;  /* bit 4 */
            ULONGLONG Segment              : 5;  /* bits 5-9 */
            ULONGLONG LargePage            : 1;  /* bit 10 */
            ULONGLONG PhysicalAdapterIndex : 6;  /* bits 11-16 */
            ULONGLONG PageTablePageSize    : 2;  /* bits 17-18, DXGK_PTE_PAGE_SIZE */
            ULONGLONG SystemReserved0      : 1;  /* bit 19 */
            ULONGLONG Reserved             : 44; /* bits 20-63 */
        };
        ULONGLONG Flags;
    };
    union {
        ULONGLONG PageAddress;      /* page frame: address >> 12 */
        ULONGLONG PageTableAddress; /* page frame of the next-level table */
    };
} DXGK_PTE;

/* Up to five preferred segments, most preferred first; DirectionN 0 lets VidMm pick the end. */
typedef struct _D3DDDI_SEGMENTPREFERENCE {
    union {
        GR_ANON_STRUCT {
            UINT SegmentId0 : 5; /* bits 0-4 */
            UINT Direction0 : 1; /* bit 5 */
            UINT SegmentId1 : 5; /* bits 6-10 */
            UINT Direction1 : 1; /* bit 11 */
            UINT SegmentId2 : 5; /* bits 12-16 */
            UINT Direction2 : 1; /* bit 17 */
            UINT SegmentId3 : 5; /* bits 18-22 */
            UINT Direction3 : 1; /* bit 23 */
            UINT SegmentId4 : 5; /* bits 24-28 */
            UINT Direction4 : 1; /* bit 29 */
            UINT Reserved   : 2; /* bits 30-31 */
        };
        UINT Value;
    };
} D3DDDI_SEGMENTPREFERENCE;

/* One patch-location entry: where in a DMA buffer an allocation's address must be written. */
typedef struct _D3DDDI_PATCHLOCATIONLIST {
    UINT AllocationIndex; /* index into the allocation list */
    union {
        GR_ANON_STRUCT {
            UINT SlotId   : 24; /* bits 0-23 */
            UINT Reserved : 8;  /* bits 24-31 */
        };
        UINT Value;
    };
    UINT DriverId;
    UINT AllocationOffset; /* byte offset added to the allocation's address */
    UINT PatchOffset;      /* byte offset in the DMA buffer to patch */
    UINT SplitOffset;      /* where to split the DMA buffer if the allocation can't be resident */
} D3DDDI_PATCHLOCATIONLIST;

/* Miracast encode-chunk identification (only reached through DXGKARGCB_NOTIFY_INTERRUPT_DATA). */
typedef union {
    GR_ANON_STRUCT {
        UINT64 FrameNumber : 40;
        UINT64 PartNumber  : 24;
    };
    UINT64 Value;
} DXGK_MIRACAST_CHUNK_ID;

typedef enum _DXGK_MIRACAST_CHUNK_TYPE {
    DXGK_MIRACAST_CHUNK_TYPE_UNKNOWN                 = 0,
    DXGK_MIRACAST_CHUNK_TYPE_COLOR_CONVERT_COMPLETE  = 1,
    DXGK_MIRACAST_CHUNK_TYPE_ENCODE_COMPLETE         = 2,
    DXGK_MIRACAST_CHUNK_TYPE_FRAME_START             = 3,
    DXGK_MIRACAST_CHUNK_TYPE_FRAME_DROPPED           = 4,
    /* The WDK writes 0x80000000 and 0x80000001. An enumerator must fit an int in ISO C, and
     * MSVC's enums are int: these are the same 32 bits as INT_MIN and INT_MIN + 1. */
    DXGK_MIRACAST_CHUNK_TYPE_ENCODE_DRIVER_DEFINED_1 = -0x7fffffff - 1,
    DXGK_MIRACAST_CHUNK_TYPE_ENCODE_DRIVER_DEFINED_2 = -0x7fffffff
} DXGK_MIRACAST_CHUNK_TYPE;

typedef struct {
    DXGK_MIRACAST_CHUNK_TYPE ChunkType;
    DXGK_MIRACAST_CHUNK_ID   ChunkId;
    UINT                     ProcessingTime; /* microseconds */
    UINT                     EncodeRate;     /* kbit/s */
} DXGK_MIRACAST_CHUNK_INFO;

/* ==== Kernel-mode shared types (d3dkmdt.h) ============================================== */

/* Finest point at which the GPU can preempt graphics work. */
typedef enum _D3DKMDT_GRAPHICS_PREEMPTION_GRANULARITY {
    D3DKMDT_GRAPHICS_PREEMPTION_NONE                = 0,
    D3DKMDT_GRAPHICS_PREEMPTION_DMA_BUFFER_BOUNDARY = 100,
    D3DKMDT_GRAPHICS_PREEMPTION_PRIMITIVE_BOUNDARY  = 200,
    D3DKMDT_GRAPHICS_PREEMPTION_TRIANGLE_BOUNDARY   = 300,
    D3DKMDT_GRAPHICS_PREEMPTION_PIXEL_BOUNDARY      = 400,
    D3DKMDT_GRAPHICS_PREEMPTION_SHADER_BOUNDARY     = 500
} D3DKMDT_GRAPHICS_PREEMPTION_GRANULARITY;

/* Finest point at which the GPU can preempt compute work. */
typedef enum _D3DKMDT_COMPUTE_PREEMPTION_GRANULARITY {
    D3DKMDT_COMPUTE_PREEMPTION_NONE                  = 0,
    D3DKMDT_COMPUTE_PREEMPTION_DMA_BUFFER_BOUNDARY   = 100,
    D3DKMDT_COMPUTE_PREEMPTION_DISPATCH_BOUNDARY     = 200,
    D3DKMDT_COMPUTE_PREEMPTION_THREAD_GROUP_BOUNDARY = 300,
    D3DKMDT_COMPUTE_PREEMPTION_THREAD_BOUNDARY       = 400,
    D3DKMDT_COMPUTE_PREEMPTION_SHADER_BOUNDARY       = 500
} D3DKMDT_COMPUTE_PREEMPTION_GRANULARITY;

/* Preemption capabilities reported in DXGK_DRIVERCAPS.PreemptionCaps. */
typedef struct _D3DKMDT_PREEMPTION_CAPS {
    D3DKMDT_GRAPHICS_PREEMPTION_GRANULARITY GraphicsPreemptionGranularity;
    D3DKMDT_COMPUTE_PREEMPTION_GRANULARITY  ComputePreemptionGranularity;
} D3DKMDT_PREEMPTION_CAPS;

/* Pipeline stage a page fault happened in, when the hardware knows. */
typedef enum _DXGK_RENDER_PIPELINE_STAGE {
    DXGK_RENDER_PIPELINE_STAGE_UNKNOWN         = 0,
    DXGK_RENDER_PIPELINE_STAGE_INPUT_ASSEMBLER = 1,
    DXGK_RENDER_PIPELINE_STAGE_VERTEX_SHADER   = 2,
    DXGK_RENDER_PIPELINE_STAGE_GEOMETRY_SHADER = 3,
    DXGK_RENDER_PIPELINE_STAGE_STREAM_OUTPUT   = 4,
    DXGK_RENDER_PIPELINE_STAGE_RASTERIZER      = 5,
    DXGK_RENDER_PIPELINE_STAGE_PIXEL_SHADER    = 6,
    DXGK_RENDER_PIPELINE_STAGE_OUTPUT_MERGER   = 7
} DXGK_RENDER_PIPELINE_STAGE;

/* Nature of a GPU page fault and the recovery it needs (a bit mask). */
typedef enum _DXGK_PAGE_FAULT_FLAGS {
    DXGK_PAGE_FAULT_WRITE                  = 0x01,
    DXGK_PAGE_FAULT_FENCE_INVALID          = 0x02,
    DXGK_PAGE_FAULT_ADAPTER_RESET_REQUIRED = 0x04,
    DXGK_PAGE_FAULT_ENGINE_RESET_REQUIRED  = 0x08,
    DXGK_PAGE_FAULT_FATAL_HARDWARE_ERROR   = 0x10,
    DXGK_PAGE_FAULT_IOMMU                  = 0x20,
    DXGK_PAGE_FAULT_HW_CONTEXT_VALID       = 0x40,
    DXGK_PAGE_FAULT_PROCESS_HANDLE_VALID   = 0x80
} DXGK_PAGE_FAULT_FLAGS;

/* Error codes defined by the OS for DXGK_FAULT_ERROR_CODE. */
typedef enum _DXGK_GENERAL_ERROR_CODE {
    DXGK_GENERAL_ERROR_PAGE_FAULT          = 0,
    DXGK_GENERAL_ERROR_INVALID_INSTRUCTION = 1
} DXGK_GENERAL_ERROR_CODE;

/* Why the GPU faulted: an OS-defined code, or (bit 0 set) a device-specific one. */
typedef struct _DXGK_FAULT_ERROR_CODE {
    union {
        GR_ANON_STRUCT {
            UINT                    IsDeviceSpecificCode : 1;  /* bit 0 = 0 */
            DXGK_GENERAL_ERROR_CODE GeneralErrorCode     : 31; /* bits 1-31 */
        };
        GR_ANON_STRUCT {
            UINT IsDeviceSpecificCodeReservedBit : 1;  /* bit 0 = 1 */
            UINT DeviceSpecificCode              : 31; /* bits 1-31 */
        };
    };
} DXGK_FAULT_ERROR_CODE;

/* ==== Miniport DDI types (d3dkmddi.h) =================================================== */

/* The WDK renames most allocation-flag reserved bits; the member names follow that mapping. */
#ifndef DXGK_ALLOCATIONINFOFLAGS_EXT
#define DXGK_ALLOCATIONINFOFLAGS_EXT
#define DXGK_ALLOC_RESERVED0  Reserved0
#define DXGK_ALLOC_RESERVED1  Reserved1
#define DXGK_ALLOC_RESERVED2  Reserved2
#define DXGK_ALLOC_RESERVED3  Reserved3
#define DXGK_ALLOC_RESERVED4  Reserved4
#define DXGK_ALLOC_RESERVED5  Reserved5
#define DXGK_ALLOC_RESERVED6  Reserved6
#define DXGK_ALLOC_RESERVED7  Reserved7
#define DXGK_ALLOC_RESERVED8  Reserved8
#define DXGK_ALLOC_RESERVED9  Reserved9
#define DXGK_ALLOC_RESERVED10 Reserved10
#define DXGK_ALLOC_RESERVED11 Reserved11
#define DXGK_ALLOC_RESERVED12 Reserved12
#define DXGK_ALLOC_RESERVED13 Reserved13
#define DXGK_ALLOC_RESERVED14 Reserved14
#define DXGK_ALLOC_RESERVED15 Reserved15
#endif

/* Parameter types naming each DDI argument's SAL contract and constness, as the WDK spells them. */
typedef _In_ BOOLEAN IN_BOOLEAN;
typedef _In_ UCHAR IN_UCHAR;
typedef _In_ CONST HANDLE IN_CONST_HANDLE;
typedef _Inout_ UINT *INOUT_PUINT;
typedef _Out_ UINT *OUT_PUINT;
typedef _In_ ULONG IN_ULONG;
typedef _Out_ PULONG OUT_PULONG;
typedef _In_ PVOID IN_PVOID;
typedef _In_ CONST PVOID IN_CONST_PVOID;
typedef _Outptr_ PVOID *OUT_PPVOID;
typedef _In_ CONST SIZE_T IN_CONST_SIZE_T;
typedef _Out_ SIZE_T *OUT_PSIZE_T;
typedef _In_ D3DKMT_HANDLE IN_D3DKMT_HANDLE;

/* ---- Allocation creation ------------------------------------------------------------- */

/*
 * Allocation properties for drivers before WDDM 2.0 (DXGK_ALLOCATIONINFO.Flags).  Bits 15-18
 * are the WDDM 2.0 additions that DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 shares.
 */
typedef struct _DXGK_ALLOCATIONINFOFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT CpuVisible                    : 1; /* bit 0 */
            UINT PermanentSysMem               : 1; /* bit 1 */
            UINT Cached                        : 1; /* bit 2 */
            UINT Protected                     : 1; /* bit 3 */
            UINT ExistingSysMem                : 1; /* bit 4 */
            UINT ExistingKernelSysMem          : 1; /* bit 5 */
            UINT FromEndOfSegment              : 1; /* bit 6 */
            UINT Swizzled                      : 1; /* bit 7 */
            UINT Overlay                       : 1; /* bit 8 */
            UINT Capture                       : 1; /* bit 9 */
            UINT UseAlternateVA                : 1; /* bit 10 */
            UINT SynchronousPaging             : 1; /* bit 11 */
            UINT LinkMirrored                  : 1; /* bit 12 */
            UINT LinkInstanced                 : 1; /* bit 13 */
            UINT HistoryBuffer                 : 1; /* bit 14 */
            UINT AccessedPhysically            : 1; /* bit 15 */
            UINT ExplicitResidencyNotification : 1; /* bit 16 */
            UINT HardwareProtected             : 1; /* bit 17 */
            UINT CpuVisibleOnDemand            : 1; /* bit 18 */
            UINT DXGK_ALLOC_RESERVED16         : 1; /* bit 19 */
            UINT DXGK_ALLOC_RESERVED15         : 1; /* bit 20 */
            UINT DXGK_ALLOC_RESERVED14         : 1; /* bit 21 */
            UINT DXGK_ALLOC_RESERVED13         : 1; /* bit 22 */
            UINT DXGK_ALLOC_RESERVED12         : 1; /* bit 23 */
            UINT DXGK_ALLOC_RESERVED11         : 1; /* bit 24 */
            UINT DXGK_ALLOC_RESERVED10         : 1; /* bit 25 */
            UINT DXGK_ALLOC_RESERVED9          : 1; /* bit 26 */
            UINT DXGK_ALLOC_RESERVED4          : 1; /* bit 27 */
            UINT DXGK_ALLOC_RESERVED3          : 1; /* bit 28 */
            UINT DXGK_ALLOC_RESERVED2          : 1; /* bit 29 */
            UINT DXGK_ALLOC_RESERVED1          : 1; /* bit 30 */
            UINT DXGK_ALLOC_RESERVED0          : 1; /* bit 31 */
        };
        UINT Value;
    };
} DXGK_ALLOCATIONINFOFLAGS;

/*
 * Allocation properties for WDDM 2.0 and later drivers (DXGK_ALLOCATIONINFO.FlagsWddm2).
 * Bit 10 is Reserved00 before WDDM 2.1 and bit 13 is Reserved03 before WDDM 2.9; the docs list
 * both names, the newest header has only CreateInVpr and MapApertureCpuVisible there.
 */
typedef struct _DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 {
    union {
        GR_ANON_STRUCT {
            UINT CpuVisible                    : 1; /* bit 0 */
            UINT PermanentSysMem               : 1; /* bit 1 */
            UINT Cached                        : 1; /* bit 2 */
            UINT Protected                     : 1; /* bit 3 */
            UINT ExistingSysMem                : 1; /* bit 4 */
            UINT ExistingKernelSysMem          : 1; /* bit 5 */
            UINT FromEndOfSegment              : 1; /* bit 6 */
            UINT DisableLargePageMapping       : 1; /* bit 7 */
            UINT Overlay                       : 1; /* bit 8 */
            UINT Capture                       : 1; /* bit 9 */
            UINT CreateInVpr                   : 1; /* bit 10 */
            UINT DXGK_ALLOC_RESERVED17         : 1; /* bit 11 */
            UINT Reserved02                    : 1; /* bit 12 */
            UINT MapApertureCpuVisible         : 1; /* bit 13 */
            UINT HistoryBuffer                 : 1; /* bit 14 */
            UINT AccessedPhysically            : 1; /* bit 15 */
            UINT ExplicitResidencyNotification : 1; /* bit 16 */
            UINT HardwareProtected             : 1; /* bit 17 */
            UINT CpuVisibleOnDemand            : 1; /* bit 18 */
            UINT DXGK_ALLOC_RESERVED16         : 1; /* bit 19 */
            UINT DXGK_ALLOC_RESERVED15         : 1; /* bit 20 */
            UINT DXGK_ALLOC_RESERVED14         : 1; /* bit 21 */
            UINT DXGK_ALLOC_RESERVED13         : 1; /* bit 22 */
            UINT DXGK_ALLOC_RESERVED12         : 1; /* bit 23 */
            UINT DXGK_ALLOC_RESERVED11         : 1; /* bit 24 */
            UINT DXGK_ALLOC_RESERVED10         : 1; /* bit 25 */
            UINT DXGK_ALLOC_RESERVED9          : 1; /* bit 26 */
            UINT DXGK_ALLOC_RESERVED4          : 1; /* bit 27 */
            UINT DXGK_ALLOC_RESERVED3          : 1; /* bit 28 */
            UINT DXGK_ALLOC_RESERVED2          : 1; /* bit 29 */
            UINT DXGK_ALLOC_RESERVED1          : 1; /* bit 30 */
            UINT DXGK_ALLOC_RESERVED0          : 1; /* bit 31 */
        };
        UINT Value;
    };
} DXGK_ALLOCATIONINFOFLAGS_WDDM2_0;

/* More allocation properties, WDDM 3.0 and later (DXGK_ALLOCATIONINFO.Flags2). */
typedef struct _DXGK_ALLOCATIONINFOFLAGS2 {
    union {
        GR_ANON_STRUCT {
            UINT ShareBackingStoreWithKmd  : 1;  /* bit 0 */
            UINT NoImplicitSynchronization : 1;  /* bit 1 */
            UINT DisablePartialResidency   : 1;  /* bit 2 */
            UINT RestrictedToSingleSegment : 1;  /* bit 3 */
            UINT NotifyEviction            : 1;  /* bit 4 */
            UINT NotifyIoMmuUnmap          : 1;  /* bit 5 */
            UINT Reserved                  : 26; /* bits 6-31 */
        };
        UINT Value;
    };
} DXGK_ALLOCATIONINFOFLAGS2;

/* Preferred segments for placing an allocation (the d3dukmdt.h structure, renamed). */
typedef D3DDDI_SEGMENTPREFERENCE DXGK_SEGMENTPREFERENCE;

/* Up to four preferred banks inside the most preferred segment. */
typedef struct _DXGK_SEGMENTBANKPREFERENCE {
    union {
        GR_ANON_STRUCT {
            UINT Bank0      : 7; /* bits 0-6 */
            UINT Direction0 : 1; /* bit 7 */
            UINT Bank1      : 7; /* bits 8-14 */
            UINT Direction1 : 1; /* bit 15 */
            UINT Bank2      : 7; /* bits 16-22 */
            UINT Direction2 : 1; /* bit 23 */
            UINT Bank3      : 7; /* bits 24-30 */
            UINT Direction3 : 1; /* bit 31 */
        };
        UINT Value;
    };
} DXGK_SEGMENTBANKPREFERENCE;

/* Version 1 of the usage hint: what the allocation holds, so VidMm can place and copy it. */
typedef struct _DXGK_ALLOCATIONUSAGEINFO1 {
    union {
        GR_ANON_STRUCT {
            UINT PrivateFormat : 1;  /* bit 0: Format holds an IHV format */
            UINT Swizzled      : 1;  /* bit 1 */
            UINT MipMap        : 1;  /* bit 2 */
            UINT Cube          : 1;  /* bit 3 */
            UINT Volume        : 1;  /* bit 4 */
            UINT Vertex        : 1;  /* bit 5 */
            UINT Index         : 1;  /* bit 6 */
            UINT Reserved      : 25; /* bits 7-31 */
        };
        UINT Value;
    } Flags;
    union {
        D3DDDIFORMAT Format;        /* Flags.PrivateFormat == 0 */
        UINT         PrivateFormat; /* Flags.PrivateFormat == 1 */
    };
    UINT SwizzledFormat;
    UINT ByteOffset;
    UINT Width;
    UINT Height;
    UINT Pitch;
    UINT Depth;
    UINT SlicePitch;
} DXGK_ALLOCATIONUSAGEINFO1;

/* Usage hint the miniport may attach to an allocation (DXGK_ALLOCATIONINFO.pAllocationUsageHint) */
typedef struct _DXGK_ALLOCATIONUSAGEHINT {
    UINT                      Version; /* 1: v1 is valid */
    DXGK_ALLOCATIONUSAGEINFO1 v1;
} DXGK_ALLOCATIONUSAGEHINT;

/*
 * One allocation of a DxgkDdiCreateAllocation request: the UMD's private data in, and the
 * miniport's answer out (size, alignment, segment sets, flags, its own handle).
 */
typedef struct _DXGK_ALLOCATIONINFO {
    VOID *pPrivateDriverData;   /* in */
    UINT  PrivateDriverDataSize;
    union {
        UINT Alignment; /* out: bytes */
        GR_ANON_STRUCT {
            UINT16 MinimumPageSize;
            UINT16 RecommendedPageSize;
        };
    };
    SIZE_T                     Size;             /* out: bytes */
    SIZE_T                     PitchAlignedSize; /* out: size in a pitch-aligned segment, or 0 */
    DXGK_SEGMENTBANKPREFERENCE HintedBank;
    DXGK_SEGMENTPREFERENCE     PreferredSegment;
    union {
        UINT SupportedReadSegmentSet; /* bit n = segment n+1 */
        UINT MmuSet;
    };
    UINT SupportedWriteSegmentSet;
    UINT EvictionSegmentSet;
    union {
        UINT MaximumRenamingListLength; /* before WDDM 2.0 */
        UINT PhysicalAdapterIndex;      /* WDDM 2.0 and later */
    };
    HANDLE hAllocation; /* out: the miniport's handle for its tracking structure */
    union {
        DXGK_ALLOCATIONINFOFLAGS         Flags;
        DXGK_ALLOCATIONINFOFLAGS_WDDM2_0 FlagsWddm2;
    };
    DXGK_ALLOCATIONUSAGEHINT *pAllocationUsageHint;
    UINT                      AllocationPriority; /* D3DDDI_ALLOCATIONPRIORITY_*; 0 is invalid */
    DXGK_ALLOCATIONINFOFLAGS2 Flags2;             /* WDDM 3.0; fills the x64 tail padding */
} DXGK_ALLOCATIONINFO;

/* Flags of a DxgkDdiCreateAllocation call. */
typedef struct _DXGK_CREATEALLOCATIONFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Resource : 1;  /* bit 0: the call creates or adds to a resource (hResource) */
            UINT Reserved : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGK_CREATEALLOCATIONFLAGS;

/* Arguments of DxgkDdiCreateAllocation. */
typedef struct _DXGKARG_CREATEALLOCATION {
    CONST VOID           *pPrivateDriverData; /* in: the resource's UMD private data */
    UINT                  PrivateDriverDataSize;
    UINT                  NumAllocations;
    DXGK_ALLOCATIONINFO  *pAllocationInfo; /* in/out: NumAllocations entries */
    HANDLE                hResource;       /* in/out: the miniport's resource handle */
    DXGK_CREATEALLOCATIONFLAGS Flags;
} DXGKARG_CREATEALLOCATION;

typedef _Inout_ DXGKARG_CREATEALLOCATION *INOUT_PDXGKARG_CREATEALLOCATION;

/* ---- Opening, closing, destroying, describing ---------------------------------------- */

/* One allocation a device opens: dxgkrnl's handle and data in, the device's handle out. */
typedef struct _DXGK_OPENALLOCATIONINFO {
    D3DKMT_HANDLE hAllocation;               /* in */
    VOID         *pPrivateDriverData;        /* in/out */
    UINT          PrivateDriverDataSize;     /* in */
    HANDLE        hDeviceSpecificAllocation; /* out */
} DXGK_OPENALLOCATIONINFO;

/* Flags of a DxgkDdiOpenAllocationInfo call. */
typedef struct _DXGK_OPENALLOCATIONFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Create   : 1;  /* bit 0: the creating device opens its own allocation */
            UINT ReadOnly : 1;  /* bit 1 */
            UINT Reserved : 30; /* bits 2-31 */
        };
        UINT Value;
    };
} DXGK_OPENALLOCATIONFLAGS;

/*
 * Arguments of DxgkDdiOpenAllocationInfo.  The WDK passes them through a pointer to const even
 * though SubresourceOffset and Pitch are outputs; drivers write them through a cast.
 */
typedef struct _DXGKARG_OPENALLOCATION {
    UINT                     NumAllocations;
    DXGK_OPENALLOCATIONINFO *pOpenAllocation;
    VOID                    *pPrivateDriverData; /* in: the resource's private data */
    UINT                     PrivateDriverSize;
    DXGK_OPENALLOCATIONFLAGS Flags;
    UINT                     SubresourceIndex;  /* in */
    SIZE_T                   SubresourceOffset; /* out */
    UINT                     Pitch;             /* out */
} DXGKARG_OPENALLOCATION;

typedef _In_ CONST DXGKARG_OPENALLOCATION *IN_CONST_PDXGKARG_OPENALLOCATION;

/* Arguments of DxgkDdiCloseAllocation: device-specific handles from OpenAllocationInfo. */
typedef struct _DXGKARG_CLOSEALLOCATION {
    UINT          NumAllocations;
    CONST HANDLE *pOpenHandleList;
} DXGKARG_CLOSEALLOCATION;

typedef _In_ CONST DXGKARG_CLOSEALLOCATION *IN_CONST_PDXGKARG_CLOSEALLOCATION;

/* Flags of a DxgkDdiDestroyAllocation call. */
typedef struct _DXGK_DESTROYALLOCATIONFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT DestroyResource : 1;  /* bit 0: release hResource too */
            UINT Reserved        : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGK_DESTROYALLOCATIONFLAGS;

/* Arguments of DxgkDdiDestroyAllocation: the miniport's allocation handles. */
typedef struct _DXGKARG_DESTROYALLOCATION {
    UINT                        NumAllocations;
    CONST HANDLE               *pAllocationList;
    HANDLE                      hResource;
    DXGK_DESTROYALLOCATIONFLAGS Flags;
} DXGKARG_DESTROYALLOCATION;

typedef _In_ CONST DXGKARG_DESTROYALLOCATION *IN_CONST_PDXGKARG_DESTROYALLOCATION;

/* Flags of a DxgkDdiDescribeAllocation call. */
typedef struct _DXGK_DESCRIBEALLOCATIONFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT CheckDisplayMode : 1;  /* bit 0 */
            UINT Reserved         : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGK_DESCRIBEALLOCATIONFLAGS;

/* Arguments of DxgkDdiDescribeAllocation: what a (primary) allocation looks like. */
typedef struct _DXGKARG_DESCRIBEALLOCATION {
    HANDLE                       hAllocation; /* in */
    UINT                         Width;
    UINT                         Height;
    D3DDDIFORMAT                 Format;
    D3DDDI_MULTISAMPLINGMETHOD   MultisampleMethod;
    D3DDDI_RATIONAL              RefreshRate;
    UINT                         PrivateDriverFormatAttribute;
    DXGK_DESCRIBEALLOCATIONFLAGS Flags;
    D3DDDI_ROTATION              Rotation;
} DXGKARG_DESCRIBEALLOCATION;

typedef _Inout_ DXGKARG_DESCRIBEALLOCATION *INOUT_PDXGKARG_DESCRIBEALLOCATION;

/* ---- Command submission ------------------------------------------------------------- */

/* One allocation a DMA buffer references, with where it currently lives. */
typedef struct _DXGK_ALLOCATIONLIST {
    HANDLE hDeviceSpecificAllocation;
    GR_ANON_STRUCT {
        UINT WriteOperation : 1;  /* bit 0 */
        UINT SegmentId      : 5;  /* bits 1-5; 0 = no pre-patch information */
        UINT Reserved       : 26; /* bits 6-31 */
    };
    union {
        PHYSICAL_ADDRESS       PhysicalAddress;
        D3DGPU_VIRTUAL_ADDRESS VirtualAddress;
    };
} DXGK_ALLOCATIONLIST;

/* Flags of a DxgkDdiPatch call. */
typedef struct _DXGK_PATCHFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Paging            : 1;  /* bit 0 */
            UINT Present           : 1;  /* bit 1 */
            UINT RedirectedPresent : 1;  /* bit 2 */
            UINT NullRendering     : 1;  /* bit 3 */
            UINT Reserved          : 28; /* bits 4-31 */
        };
        UINT Value;
    };
} DXGK_PATCHFLAGS;

/* Arguments of DxgkDdiPatch: write final addresses into a DMA buffer before submission. */
typedef struct _DXGKARG_PATCH {
    union {
        HANDLE hDevice;  /* drivers that are not MultiEngineAware */
        HANDLE hContext; /* MultiEngineAware drivers */
    };
    UINT                            DmaBufferSegmentId;
    PHYSICAL_ADDRESS                DmaBufferPhysicalAddress;
    VOID                           *pDmaBuffer;
    UINT                            DmaBufferSize;
    UINT                            DmaBufferSubmissionStartOffset;
    UINT                            DmaBufferSubmissionEndOffset;
    VOID                           *pDmaBufferPrivateData;
    UINT                            DmaBufferPrivateDataSize;
    UINT                            DmaBufferPrivateDataSubmissionStartOffset;
    UINT                            DmaBufferPrivateDataSubmissionEndOffset;
    CONST DXGK_ALLOCATIONLIST      *pAllocationList;
    UINT                            AllocationListSize;
    CONST D3DDDI_PATCHLOCATIONLIST *pPatchLocationList;
    UINT                            PatchLocationListSize;
    UINT                            PatchLocationListSubmissionStart;
    UINT                            PatchLocationListSubmissionLength;
    UINT                            SubmissionFenceId;
    DXGK_PATCHFLAGS                 Flags;
    UINT                            EngineOrdinal;
} DXGKARG_PATCH;

typedef _In_ CONST DXGKARG_PATCH *IN_CONST_PDXGKARG_PATCH;

/* Flags of a DxgkDdiSubmitCommand call. */
typedef struct _DXGK_SUBMITCOMMANDFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Paging             : 1;  /* bit 0 */
            UINT Present            : 1;  /* bit 1 */
            UINT RedirectedPresent  : 1;  /* bit 2 */
            UINT NullRendering      : 1;  /* bit 3 */
            UINT Flip               : 1;  /* bit 4 */
            UINT FlipWithNoWait     : 1;  /* bit 5 */
            UINT ContextSwitch      : 1;  /* bit 6 */
            UINT Resubmission       : 1;  /* bit 7: resubmitted after a preemption */
            UINT VirtualMachineData : 1;  /* bit 8 */
            UINT Reserved           : 23; /* bits 9-31 */
        };
        UINT Value;
    };
} DXGK_SUBMITCOMMANDFLAGS;

/* Arguments of DxgkDdiSubmitCommand: queue a patched DMA buffer to the hardware with its fence. */
typedef struct _DXGKARG_SUBMITCOMMAND {
    union {
        HANDLE hDevice;
        HANDLE hContext;
    };
    UINT                           DmaBufferSegmentId;
    PHYSICAL_ADDRESS               DmaBufferPhysicalAddress;
    UINT                           DmaBufferSize;
    UINT                           DmaBufferSubmissionStartOffset;
    UINT                           DmaBufferSubmissionEndOffset;
    VOID                          *pDmaBufferPrivateData;
    UINT                           DmaBufferPrivateDataSize;
    UINT                           DmaBufferPrivateDataSubmissionStartOffset;
    UINT                           DmaBufferPrivateDataSubmissionEndOffset;
    UINT                           SubmissionFenceId;
    D3DDDI_VIDEO_PRESENT_SOURCE_ID VidPnSourceId; /* flips only */
    D3DDDI_FLIPINTERVAL_TYPE       FlipInterval;  /* flips only */
    DXGK_SUBMITCOMMANDFLAGS        Flags;
    UINT                           EngineOrdinal;
    D3DGPU_VIRTUAL_ADDRESS         DmaBufferVirtualAddress;
    UINT                           NodeOrdinal;
} DXGKARG_SUBMITCOMMAND;

typedef _In_ CONST DXGKARG_SUBMITCOMMAND *IN_CONST_PDXGKARG_SUBMITCOMMAND;

/* Flags of a DxgkDdiPreemptCommand call (none defined). */
typedef struct _DXGK_PREEMPTCOMMANDFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Reserved : 32;
        };
        UINT Value;
    };
} DXGK_PREEMPTCOMMANDFLAGS;

/* Arguments of DxgkDdiPreemptCommand: preempt an engine, signalling PreemptionFenceId. */
typedef struct _DXGKARG_PREEMPTCOMMAND {
    UINT                     PreemptionFenceId;
    UINT                     NodeOrdinal;
    UINT                     EngineOrdinal;
    DXGK_PREEMPTCOMMANDFLAGS Flags;
} DXGKARG_PREEMPTCOMMAND;

typedef _In_ CONST DXGKARG_PREEMPTCOMMAND *IN_CONST_PDXGKARG_PREEMPTCOMMAND;

/*
 * Arguments of DxgkDdiCancelCommand (CancelCommandAware drivers): a patched packet that was
 * removed from the hardware queue and will never run; the miniport frees its per-packet state.
 */
typedef struct _DXGKARG_CANCELCOMMAND {
    HANDLE                          hContext;
    VOID                           *pDmaBuffer;
    UINT                            DmaBufferSize;
    UINT                            DmaBufferSubmissionStartOffset;
    UINT                            DmaBufferSubmissionEndOffset;
    VOID                           *pDmaBufferPrivateData;
    UINT                            DmaBufferPrivateDataSize;
    UINT                            DmaBufferPrivateDataSubmissionStartOffset;
    UINT                            DmaBufferPrivateDataSubmissionEndOffset;
    CONST DXGK_ALLOCATIONLIST      *pAllocationList;
    UINT                            AllocationListSize;
    CONST D3DDDI_PATCHLOCATIONLIST *pPatchLocationList;
    UINT                            PatchLocationListSize;
    UINT                            PatchLocationListSubmissionStart;
    UINT                            PatchLocationListSubmissionLength;
    D3DGPU_VIRTUAL_ADDRESS          DmaBufferVirtualAddress;
    UINT                            DmaBufferUmdPrivateDataSize;
} DXGKARG_CANCELCOMMAND;

typedef _In_ CONST DXGKARG_CANCELCOMMAND *IN_CONST_PDXGKARG_CANCELCOMMAND;

/* Arguments of DxgkDdiQueryCurrentFence: the last completed submission fence of an engine. */
typedef struct _DXGKARG_QUERYCURRENTFENCE {
    UINT CurrentFence; /* out */
    UINT NodeOrdinal;
    UINT EngineOrdinal;
} DXGKARG_QUERYCURRENTFENCE;

typedef _Inout_ DXGKARG_QUERYCURRENTFENCE *INOUT_PDXGKARG_QUERYCURRENTFENCE;

/* ---- GPU contexts ------------------------------------------------------------------- */

/* How DxgkDdiCreateContext is asked to create a context. */
typedef struct _DXGK_CREATECONTEXTFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT SystemContext          : 1;  /* bit 0: the paging engine's system context */
            UINT GdiContext             : 1;  /* bit 1 */
            UINT VirtualAddressing      : 1;  /* bit 2: the context uses a GPU VA space */
            UINT SystemProtectedContext : 1;  /* bit 3 */
            UINT HwQueueSupported       : 1;  /* bit 4 */
            UINT TestContext            : 1;  /* bit 5 */
            UINT Reserved               : 26; /* bits 6-31 */
        };
        UINT Value;
    };
} DXGK_CREATECONTEXTFLAGS;

/* Optional features of a context (DXGK_CONTEXTINFO.Caps). */
typedef struct _DXGK_CONTEXTINFO_CAPS {
    union {
        GR_ANON_STRUCT {
            UINT NoPatchingRequired     : 1;  /* bit 0 */
            UINT DriverManagesResidency : 1;  /* bit 1 */
            UINT UseIoMmu               : 1;  /* bit 2 */
            UINT Reserved               : 29; /* bits 3-31 */
        };
        UINT Value;
    };
} DXGK_CONTEXTINFO_CAPS;

/* What the miniport tells the OS about a new context's DMA buffers and lists. */
typedef struct _DXGK_CONTEXTINFO {
    UINT                  DmaBufferSize;            /* starting DMA buffer size, bytes */
    UINT                  DmaBufferSegmentSet;      /* 0: contiguous system memory */
    UINT                  DmaBufferPrivateDataSize; /* per-DMA-buffer private data, bytes */
    UINT                  AllocationListSize;       /* starting allocation-list entries */
    UINT                  PatchLocationListSize;    /* starting patch-location entries */
    UINT                  Reserved;
    DXGK_CONTEXTINFO_CAPS Caps;
    ULONG                 PagingCompanionNodeId;
} DXGK_CONTEXTINFO;

/* Arguments of DxgkDdiCreateContext. */
typedef struct _DXGKARG_CREATECONTEXT {
    HANDLE                  hContext;       /* out */
    UINT                    NodeOrdinal;
    UINT                    EngineAffinity;
    DXGK_CREATECONTEXTFLAGS Flags;
    VOID                   *pPrivateDriverData; /* from the user-mode driver */
    UINT                    PrivateDriverDataSize;
    DXGK_CONTEXTINFO        ContextInfo;    /* out */
} DXGKARG_CREATECONTEXT;

typedef _Inout_ DXGKARG_CREATECONTEXT *INOUT_PDXGKARG_CREATECONTEXT;

/* Arguments of DxgkDdiSetRootPageTable: where a context's root page table now lives. */
typedef struct _DXGKARG_SETROOTPAGETABLE {
    HANDLE                  hContext;
    D3DGPU_PHYSICAL_ADDRESS Address;    /* segment id + offset of the root table */
    UINT                    NumEntries; /* root entries in use; higher indices must fault */
} DXGKARG_SETROOTPAGETABLE;

typedef _In_ CONST DXGKARG_SETROOTPAGETABLE *IN_CONST_PDXGKARG_SETROOTPAGETABLE;

/* ---- Paging buffers ----------------------------------------------------------------- */

/* Paging operation DxgkDdiBuildPagingBuffer is asked to encode. */
typedef enum _DXGK_BUILDPAGINGBUFFER_OPERATION {
    DXGK_OPERATION_TRANSFER                  = 0,
    DXGK_OPERATION_FILL                      = 1,
    DXGK_OPERATION_DISCARD_CONTENT           = 2,
    DXGK_OPERATION_READ_PHYSICAL             = 3,
    DXGK_OPERATION_WRITE_PHYSICAL            = 4,
    DXGK_OPERATION_MAP_APERTURE_SEGMENT      = 5,
    DXGK_OPERATION_UNMAP_APERTURE_SEGMENT    = 6,
    DXGK_OPERATION_SPECIAL_LOCK_TRANSFER     = 7,
    DXGK_OPERATION_VIRTUAL_TRANSFER          = 8,
    DXGK_OPERATION_VIRTUAL_FILL              = 9,
    DXGK_OPERATION_INIT_CONTEXT_RESOURCE     = 10,
    DXGK_OPERATION_UPDATE_PAGE_TABLE         = 11,
    DXGK_OPERATION_FLUSH_TLB                 = 12,
    DXGK_OPERATION_UPDATE_CONTEXT_ALLOCATION = 13,
    DXGK_OPERATION_COPY_PAGE_TABLE_ENTRIES   = 14,
    DXGK_OPERATION_NOTIFY_RESIDENCY          = 15,
    DXGK_OPERATION_SIGNAL_MONITORED_FENCE    = 16,
    DXGK_OPERATION_MAP_APERTURE_SEGMENT2     = 17,
    DXGK_OPERATION_NOTIFY_FENCE_RESIDENCY    = 18,
    DXGK_OPERATION_MAP_MMU                   = 19,
    DXGK_OPERATION_UNMAP_MMU                 = 20,
    DXGK_OPERATION_NOTIFY_RESIDENCY2         = 21,
    DXGK_OPERATION_NOTIFY_ALLOC              = 22
} DXGK_BUILDPAGINGBUFFER_OPERATION;

/* Flags of a Transfer (and SpecialLockTransfer) operation. */
typedef struct _DXGK_TRANSFERFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Swizzle          : 1;  /* bit 0 */
            UINT Unswizzle        : 1;  /* bit 1 */
            UINT AllocationIsIdle : 1;  /* bit 2 */
            UINT TransferStart    : 1;  /* bit 3 */
            UINT TransferEnd      : 1;  /* bit 4 */
            UINT Reserved         : 27; /* bits 5-31 */
        };
        UINT Value;
    };
} DXGK_TRANSFERFLAGS;

/* Flags of a DiscardContent operation. */
typedef struct _DXGK_DISCARDCONTENTFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT AllocationIsIdle : 1;  /* bit 0 */
            UINT Reserved         : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGK_DISCARDCONTENTFLAGS;

/* Flags of a MapApertureSegment operation. */
typedef struct _DXGK_MAPAPERTUREFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT CacheCoherent : 1;  /* bit 0 */
            UINT Reserved      : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGK_MAPAPERTUREFLAGS;

/* Where a page table being updated is reachable, per DXGK_PAGETABLEUPDATEMODE. */
typedef enum _DXGK_PAGETABLEUPDATEMODE {
    DXGK_PAGETABLEUPDATE_CPU_VIRTUAL  = 0,
    DXGK_PAGETABLEUPDATE_GPU_VIRTUAL  = 1,
    DXGK_PAGETABLEUPDATE_GPU_PHYSICAL = 2
} DXGK_PAGETABLEUPDATEMODE;

/* The address of a page table in the form UpdateMode says. */
typedef struct _DXGK_PAGETABLEUPDATEADDRESS {
    union {
        PVOID                   CpuVirtual;
        D3DGPU_PHYSICAL_ADDRESS GpuPhysical;
        D3DGPU_VIRTUAL_ADDRESS  GpuVirtual;
    };
} DXGK_PAGETABLEUPDATEADDRESS;

/* Flags of an UpdatePageTable operation (a plain bit-field struct, no Value member). */
typedef struct _DXGK_UPDATEPAGETABLEFLAGS {
    UINT Repeat         : 1;  /* bit 0: one PTE repeated NumPageTableEntries times */
    UINT InitialUpdate  : 1;  /* bit 1 */
    UINT NotifyEviction : 1;  /* bit 2 */
    UINT Use64KBPages   : 1;  /* bit 3 */
    UINT NativeFence    : 1;  /* bit 4 */
    UINT Reserved       : 27; /* bits 5-31 */
} DXGK_UPDATEPAGETABLEFLAGS;

/* Direction of a TransferVirtual operation. */
typedef enum _DXGK_MEMORY_TRANSFER_DIRECTION {
    DXGK_MEMORY_TRANSFER_LOCAL_TO_SYSTEM = 0,
    DXGK_MEMORY_TRANSFER_SYSTEM_TO_LOCAL = 1,
    DXGK_MEMORY_TRANSFER_LOCAL_TO_LOCAL  = 2
} DXGK_MEMORY_TRANSFER_DIRECTION;

/* Flags of a TransferVirtual operation. */
typedef struct _DXGK_TRANSFERVIRTUALFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Src64KBPages : 1;  /* bit 0 */
            UINT Dst64KBPages : 1;  /* bit 1 */
            UINT Reserved     : 30; /* bits 2-31 */
        };
        UINT Flags;
    };
} DXGK_TRANSFERVIRTUALFLAGS;

/* One range of CopyPageTableEntries. */
typedef struct _DXGK_BUILDPAGINGBUFFER_COPY_RANGE {
    UINT                   NumPageTableEntries;
    D3DGPU_VIRTUAL_ADDRESS SrcPageTableAddress;
    D3DGPU_VIRTUAL_ADDRESS DstPageTableAddress;
    UINT                   SrcStartPteIndex;
    UINT                   DstStartPteIndex;
} DXGK_BUILDPAGINGBUFFER_COPY_RANGE;

/* Operation: invalidate a process's TLB entries for a virtual range. */
typedef struct _DXGK_BUILDPAGINGBUFFER_FLUSHTLB {
    D3DGPU_PHYSICAL_ADDRESS RootPageTableAddress;
    HANDLE                  hProcess;
    D3DGPU_VIRTUAL_ADDRESS  StartVirtualAddress;
    D3DGPU_VIRTUAL_ADDRESS  EndVirtualAddress;
} DXGK_BUILDPAGINGBUFFER_FLUSHTLB;

/* Operation: write NumPageTableEntries PTEs into one page table. */
typedef struct _DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE {
    UINT                        PageTableLevel;
    HANDLE                      hAllocation;
    DXGK_PAGETABLEUPDATEADDRESS PageTableAddress;
    DXGK_PTE                   *pPageTableEntries;
    UINT                        StartIndex;
    UINT                        NumPageTableEntries;
    UINT                        Reserved0;
    DXGK_UPDATEPAGETABLEFLAGS   Flags;
    UINT64                      DriverProtection;
    UINT64                      AllocationOffsetInBytes;
    HANDLE                      hProcess;
    DXGK_PAGETABLEUPDATEMODE    UpdateMode;
    DXGK_PTE                   *pPageTableEntries64KB;
    D3DGPU_VIRTUAL_ADDRESS      FirstPteVirtualAddress;
} DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE;

/* Operation: fill a range of an allocation through the GPU virtual address space. */
typedef struct _DXGK_BUILDPAGINGBUFFER_FILLVIRTUAL {
    HANDLE                 hAllocation;
    UINT64                 AllocationOffsetInBytes;
    UINT64                 FillSizeInBytes;
    UINT                   FillPattern;
    D3DGPU_VIRTUAL_ADDRESS DestinationVirtualAddress;
} DXGK_BUILDPAGINGBUFFER_FILLVIRTUAL;

/* Operation: copy a range of an allocation through the GPU virtual address space. */
typedef struct _DXGK_BUILDPAGINGBUFFER_TRANSFERVIRTUAL {
    HANDLE                         hAllocation;
    UINT64                         AllocationOffsetInBytes;
    UINT64                         TransferSizeInBytes;
    D3DGPU_VIRTUAL_ADDRESS         SourceVirtualAddress;
    D3DGPU_VIRTUAL_ADDRESS         DestinationVirtualAddress;
    D3DGPU_VIRTUAL_ADDRESS         SourcePageTable;
    DXGK_MEMORY_TRANSFER_DIRECTION TransferDirection;
    DXGK_TRANSFERVIRTUALFLAGS      Flags;
    D3DGPU_VIRTUAL_ADDRESS         DestinationPageTable;
} DXGK_BUILDPAGINGBUFFER_TRANSFERVIRTUAL;

/*
 * Operation: an ExplicitResidencyNotification allocation became resident or was evicted.
 * The WDK puts both bit-fields in a union, so each starts at bit 0.
 */
typedef struct _DXGK_BUILDPAGINGBUFFER_NOTIFYRESIDENCY {
    HANDLE                  hAllocation;
    D3DGPU_PHYSICAL_ADDRESS PhysicalAddress;
    union {
        UINT Resident : 1;
        UINT Reserved : 31;
    };
} DXGK_BUILDPAGINGBUFFER_NOTIFYRESIDENCY;

/* Operation: copy page-table entries between page tables. */
typedef struct _DXGK_BUILDPAGINGBUFFER_COPYPAGETABLEENTRIES {
    UINT                               NumRanges;
    DXGK_BUILDPAGINGBUFFER_COPY_RANGE *pRanges;
} DXGK_BUILDPAGINGBUFFER_COPYPAGETABLEENTRIES;

/* Operation: a context allocation moved; update the hardware's pointer to it. */
typedef struct _DXGK_BUILDPAGINGBUFFER_UPDATECONTEXTALLOCATION {
    D3DGPU_VIRTUAL_ADDRESS ContextAllocation;
    UINT64                 ContextAllocationSize;
    PVOID                  pDriverPrivateData;
    UINT                   DriverPrivateDataSize;
} DXGK_BUILDPAGINGBUFFER_UPDATECONTEXTALLOCATION;

/* Operation: write a monitored-fence value from the paging engine. */
typedef struct _DXGK_BUILDPAGINGBUFFER_SIGNALMONITOREDFENCE {
    D3DGPU_VIRTUAL_ADDRESS MonitoredFenceGpuVa;
    UINT64                 MonitoredFenceValue;
} DXGK_BUILDPAGINGBUFFER_SIGNALMONITOREDFENCE;

/* A page frame number (same width as the kernel's PFN_NUMBER). */
typedef ULONG_PTR DXGK_PAGE_NUMBER;

/* Flags of an address descriptor list. */
typedef struct _DXGK_ADL_FLAGS {
    union {
        GR_ANON_STRUCT {
            UINT32 Contiguous : 1;  /* bit 0: BasePageNumber is valid, else Pages */
            UINT32 Reserved   : 31; /* bits 1-31 */
        };
        UINT32 Value;
    };
} DXGK_ADL_FLAGS;

/* Address descriptor list: the pages backing an allocation, contiguous or listed. */
typedef struct _DXGK_ADL {
    UINT32         PageCount;
    DXGK_ADL_FLAGS Flags;
    union {
        DXGK_PAGE_NUMBER        BasePageNumber;
        CONST DXGK_PAGE_NUMBER *Pages;
    };
} DXGK_ADL;

/* Flags of a NotifyAllocation operation. */
typedef struct _DXGK_NOTIFYALLOCFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Eviction   : 1;  /* bit 0 */
            UINT IoMmuUnmap : 1;  /* bit 1 */
            UINT Reserved   : 30; /* bits 2-31 */
        };
        UINT Value;
    };
} DXGK_NOTIFYALLOCFLAGS;

/* Operation: part of an allocation that asked for NotifyEviction/NotifyIoMmuUnmap is going. */
typedef struct _DXGK_BUILDPAGINGBUFFER_NOTIFYALLOC {
    HANDLE                hAllocation;
    HANDLE                hKmdProcessHandle;
    DXGK_NOTIFYALLOCFLAGS Flags;
    UINT64                OffsetInBytes;
    UINT64                SizeInBytes;
    UINT64                GpuVirtualAddressAtOffset;
} DXGK_BUILDPAGINGBUFFER_NOTIFYALLOC;

/*
 * Arguments of DxgkDdiBuildPagingBuffer: encode one paging operation into pDmaBuffer.  The
 * operation union is 256 bytes (its Reserved member); the four undocumented WDDM 3.2 members
 * (NotifyFenceResidency, MmapMmu, UnmapMmu, NotifyResidency2) are left out and live in it.
 */
typedef struct _DXGKARG_BUILDPAGINGBUFFER {
    VOID                            *pDmaBuffer; /* in/out: advanced past what was written */
    UINT                             DmaSize;    /* in/out: bytes left */
    VOID                            *pDmaBufferPrivateData;
    UINT                             DmaBufferPrivateDataSize;
    DXGK_BUILDPAGINGBUFFER_OPERATION Operation;
    UINT                             MultipassOffset;
    union {
        struct {
            HANDLE hAllocation;
            UINT   TransferOffset;
            SIZE_T TransferSize;
            struct {
                UINT SegmentId; /* 0: system memory, pMdl is valid */
                union {
                    LARGE_INTEGER SegmentAddress;
                    MDL          *pMdl;
                };
            } Source;
            struct {
                UINT SegmentId;
                union {
                    LARGE_INTEGER SegmentAddress;
                    MDL          *pMdl;
                };
            } Destination;
            DXGK_TRANSFERFLAGS Flags;
            UINT               MdlOffset;
        } Transfer;
        struct {
            HANDLE hAllocation;
            SIZE_T FillSize;
            UINT   FillPattern;
            struct {
                UINT          SegmentId;
                LARGE_INTEGER SegmentAddress;
            } Destination;
        } Fill;
        struct {
            HANDLE                   hAllocation;
            DXGK_DISCARDCONTENTFLAGS Flags;
            UINT                     SegmentId;
            PHYSICAL_ADDRESS         SegmentAddress;
        } DiscardContent;
        struct {
            UINT             SegmentId;
            PHYSICAL_ADDRESS PhysicalAddress;
        } ReadPhysical;
        struct {
            UINT             SegmentId;
            PHYSICAL_ADDRESS PhysicalAddress;
        } WritePhysical;
        struct {
            HANDLE                hDevice;
            HANDLE                hAllocation;
            UINT                  SegmentId;
            SIZE_T                OffsetInPages;
            SIZE_T                NumberOfPages;
            PMDL                  pMdl;
            DXGK_MAPAPERTUREFLAGS Flags;
            ULONG                 MdlOffset;
        } MapApertureSegment;
        struct {
            HANDLE           hDevice;
            HANDLE           hAllocation;
            UINT             SegmentId;
            SIZE_T           OffsetInPages;
            SIZE_T           NumberOfPages;
            PHYSICAL_ADDRESS DummyPage;
        } UnmapApertureSegment;
        struct {
            HANDLE hAllocation;
            UINT   TransferOffset;
            SIZE_T TransferSize;
            struct {
                UINT SegmentId;
                union {
                    LARGE_INTEGER SegmentAddress;
                    MDL          *pMdl;
                };
            } Source;
            struct {
                UINT SegmentId;
                union {
                    LARGE_INTEGER SegmentAddress;
                    MDL          *pMdl;
                };
            } Destination;
            DXGK_TRANSFERFLAGS Flags;
            UINT               SwizzlingRangeId;
            UINT               SwizzlingRangeData;
        } SpecialLockTransfer;
        struct {
            HANDLE hAllocation;
            struct {
                UINT SegmentId;
                union {
                    LARGE_INTEGER SegmentAddress;
                    MDL          *pMdl;
                };
                PVOID                  VirtualAddress;
                D3DGPU_VIRTUAL_ADDRESS GpuVirtualAddress;
            } Destination;
        } InitContextResource;
        DXGK_BUILDPAGINGBUFFER_TRANSFERVIRTUAL         TransferVirtual;
        DXGK_BUILDPAGINGBUFFER_FILLVIRTUAL             FillVirtual;
        DXGK_BUILDPAGINGBUFFER_UPDATEPAGETABLE         UpdatePageTable;
        DXGK_BUILDPAGINGBUFFER_FLUSHTLB                FlushTlb;
        DXGK_BUILDPAGINGBUFFER_COPYPAGETABLEENTRIES    CopyPageTableEntries;
        DXGK_BUILDPAGINGBUFFER_UPDATECONTEXTALLOCATION UpdateContextAllocation;
        DXGK_BUILDPAGINGBUFFER_NOTIFYRESIDENCY         NotifyResidency;
        DXGK_BUILDPAGINGBUFFER_SIGNALMONITOREDFENCE    SignalMonitoredFence;
        struct {
            HANDLE                hDevice;
            HANDLE                hAllocation;
            UINT                  SegmentId;
            SIZE_T                OffsetInPages;
            SIZE_T                NumberOfPages;
            DXGK_ADL              Adl;
            DXGK_MAPAPERTUREFLAGS Flags;
            ULONG                 AdlOffset;
            PVOID                 CpuVisibleAddress;
        } MapApertureSegment2;
        DXGK_BUILDPAGINGBUFFER_NOTIFYALLOC NotifyAllocation;
        struct {
            UINT Reserved[64];
        } Reserved;
    };
    HANDLE                 hSystemContext;
    D3DGPU_VIRTUAL_ADDRESS DmaBufferGpuVirtualAddress;
    UINT                   DmaBufferWriteOffset;
} DXGKARG_BUILDPAGINGBUFFER;

/* Non-const on purpose: the miniport advances pDmaBuffer and MultipassOffset in place. */
typedef _In_ DXGKARG_BUILDPAGINGBUFFER *IN_PDXGKARG_BUILDPAGINGBUFFER;

/* ---- Adapter queries and capabilities ----------------------------------------------- */

/* What DxgkDdiQueryAdapterInfo is asked for (there is no value 32). */
typedef enum _DXGK_QUERYADAPTERINFOTYPE {
    DXGKQAITYPE_UMDRIVERPRIVATE                = 0,
    DXGKQAITYPE_DRIVERCAPS                     = 1,
    DXGKQAITYPE_QUERYSEGMENT                   = 2,
    DXGKQAITYPE_RESERVED                       = 3,
    DXGKQAITYPE_QUERYSEGMENT2                  = 4,
    DXGKQAITYPE_QUERYSEGMENT3                  = 5,
    DXGKQAITYPE_NUMPOWERCOMPONENTS             = 6,
    DXGKQAITYPE_POWERCOMPONENTINFO             = 7,
    DXGKQAITYPE_PREFERREDGPUNODE               = 8,
    DXGKQAITYPE_POWERCOMPONENTPSTATEINFO       = 9,
    DXGKQAITYPE_HISTORYBUFFERPRECISION         = 10,
    DXGKQAITYPE_QUERYSEGMENT4                  = 11,
    DXGKQAITYPE_SEGMENTMEMORYSTATE             = 12,
    DXGKQAITYPE_GPUMMUCAPS                     = 13,
    DXGKQAITYPE_PAGETABLELEVELDESC             = 14,
    DXGKQAITYPE_PHYSICALADAPTERCAPS            = 15,
    DXGKQAITYPE_DISPLAY_DRIVERCAPS_EXTENSION   = 16,
    DXGKQAITYPE_INTEGRATED_DISPLAY_DESCRIPTOR  = 17,
    DXGKQAITYPE_UEFIFRAMEBUFFERRANGES          = 18,
    DXGKQAITYPE_QUERYCOLORIMETRYOVERRIDES      = 19,
    DXGKQAITYPE_DISPLAYID_DESCRIPTOR           = 20,
    DXGKQAITYPE_FRAMEBUFFERSAVESIZE            = 21,
    DXGKQAITYPE_HARDWARERESERVEDRANGES         = 22,
    DXGKQAITYPE_INTEGRATED_DISPLAY_DESCRIPTOR2 = 23,
    DXGKQAITYPE_NODEPERFDATA                   = 24,
    DXGKQAITYPE_ADAPTERPERFDATA                = 25,
    DXGKQAITYPE_ADAPTERPERFDATA_CAPS           = 26,
    DXGKQAITYPE_GPUVERSION                     = 27,
    DXGKQAITYPE_DEVICE_TYPE_CAPS               = 28,
    DXGKQAITYPE_WDDMDEVICECAPS                 = 29,
    DXGKQAITYPE_GPUPCAPS                       = 30,
    DXGKQAITYPE_QUERYTARGETGAMMACAPS           = 31,
    DXGKQAITYPE_SCANOUT_CAPS                   = 33,
    DXGKQAITYPE_PHYSICAL_MEMORY_CAPS           = 34,
    DXGKQAITYPE_IOMMU_CAPS                     = 35,
    DXGKQAITYPE_HARDWARERESERVEDRANGES2        = 36,
    DXGKQAITYPE_NATIVE_FENCE_CAPS              = 37,
    DXGKQAITYPE_USERMODESUBMISSION_CAPS        = 38,
    DXGKQAITYPE_DIRTYBITTRACKINGCAPS           = 39,
    DXGKQAITYPE_DIRTYBITTRACKINGSEGMENTCAPS    = 40,
    DXGKQAITYPE_SCATTER_RESERVE                = 41,
    DXGKQAITYPE_QUERYPAGINGBUFFERINFO          = 42,
    DXGKQAITYPE_QUERYSEGMENTCOUNT              = 43,
    DXGKQAITYPE_QUERYSEGMENT5                  = 44,
    DXGKQAITYPE_QUERYMMUCOUNT                  = 45,
    DXGKQAITYPE_QUERYMMUS                      = 46,
    DXGKQAITYPE_64BITONLYCAPS                  = 47,
    DXGKQAITYPE_PAGINGPROCESSGPUVASIZE         = 48
} DXGK_QUERYADAPTERINFOTYPE;

/* Flags of a DxgkDdiQueryAdapterInfo call. */
typedef struct _DXGK_QUERYADAPTERINFOFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT VirtualMachineData   : 1;  /* bit 0 */
            UINT SecureVirtualMachine : 1;  /* bit 1 */
            UINT Reserved             : 30; /* bits 2-31 */
        };
        UINT Value;
    };
} DXGK_QUERYADAPTERINFOFLAGS;

/* Arguments of DxgkDdiQueryAdapterInfo; the output buffer's layout depends on Type. */
typedef struct _DXGKARG_QUERYADAPTERINFO {
    DXGK_QUERYADAPTERINFOTYPE  Type;
    VOID                      *pInputData;
    UINT                       InputDataSize;
    VOID                      *pOutputData;
    UINT                       OutputDataSize;
    DXGK_QUERYADAPTERINFOFLAGS Flags;
    HANDLE                     hKmdProcessHandle;
} DXGKARG_QUERYADAPTERINFO;

typedef _In_ CONST DXGKARG_QUERYADAPTERINFO *IN_CONST_PDXGKARG_QUERYADAPTERINFO;

/* Hardware cursor shapes supported (DXGK_DRIVERCAPS.PointerCaps). */
typedef struct _DXGK_POINTERFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Monochrome  : 1;  /* bit 0 */
            UINT Color       : 1;  /* bit 1 */
            UINT MaskedColor : 1;  /* bit 2 */
            UINT Reserved    : 29; /* bits 3-31 */
        };
        UINT Value;
    };
} DXGK_POINTERFLAGS;

/* Gamma ramp formats supported. */
typedef struct _DXGK_GAMMARAMPCAPS {
    union {
        GR_ANON_STRUCT {
            UINT Gamma_Rgb256x3x16 : 1;  /* bit 0 */
            UINT Reserved          : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGK_GAMMARAMPCAPS;

/* Color transforms supported (WDDM 2.2+ meaning of the same DXGK_DRIVERCAPS word). */
typedef struct _DXGK_COLORTRANSFORMCAPS {
    union {
        GR_ANON_STRUCT {
            UINT Gamma_Rgb256x3x16             : 1;  /* bit 0 */
            UINT Gamma_Dxgi1                   : 1;  /* bit 1 */
            UINT Transform_3x4Matrix           : 1;  /* bit 2 */
            UINT Transform_3x4Matrix_WideColor : 1;  /* bit 3 */
            UINT Transform_3x4Matrix_HighColor : 1;  /* bit 4 */
            UINT Transform_Matrix_V2           : 1;  /* bit 5 */
            UINT Reserved                      : 26; /* bits 6-31 */
        };
        UINT Value;
    };
} DXGK_COLORTRANSFORMCAPS;

/* Kernel-mode present (GDI acceleration) capabilities. */
typedef struct _DXGK_PRESENTATIONCAPS {
    union {
        GR_ANON_STRUCT {
            UINT NoScreenToScreenBlt              : 1; /* bit 0 */
            UINT NoOverlapScreenBlt               : 1; /* bit 1 */
            UINT SupportKernelModeCommandBuffer   : 1; /* bit 2 */
            UINT NoSameBitmapAlphaBlend           : 1; /* bit 3 */
            UINT NoSameBitmapStretchBlt           : 1; /* bit 4 */
            UINT NoSameBitmapTransparentBlt       : 1; /* bit 5 */
            UINT NoSameBitmapOverlappedAlphaBlend : 1; /* bit 6 */
            UINT NoSameBitmapOverlappedStretchBlt : 1; /* bit 7 */
            UINT DriverSupportsCddDwmInterop      : 1; /* bit 8 */
            UINT Reserved0                        : 1; /* bit 9 */
            UINT AlignmentShift                   : 4; /* bits 10-13 */
            UINT MaxTextureWidthShift             : 3; /* bits 14-16 */
            UINT MaxTextureHeightShift            : 3; /* bits 17-19 */
            UINT SupportAllBltRops                : 1; /* bit 20 */
            UINT SupportMirrorStretchBlt          : 1; /* bit 21 */
            UINT SupportMonoStretchBltModes       : 1; /* bit 22 */
            UINT StagingRectStartPitchAligned     : 1; /* bit 23 */
            UINT NoSameBitmapBitBlt               : 1; /* bit 24 */
            UINT NoSameBitmapOverlappedBitBlt     : 1; /* bit 25 */
            UINT Reserved1                        : 1; /* bit 26 */
            UINT NoTempSurfaceForClearTypeBlend   : 1; /* bit 27 */
            UINT SupportSoftwareDeviceBitmaps     : 1; /* bit 28 */
            UINT NoCacheCoherentApertureMemory    : 1; /* bit 29 */
            UINT SupportLinearHeap                : 1; /* bit 30 */
            UINT Reserved                         : 1; /* bit 31 */
        };
        UINT Value;
    };
} DXGK_PRESENTATIONCAPS;

/* Flip capabilities. */
typedef struct _DXGK_FLIPCAPS {
    union {
        GR_ANON_STRUCT {
            UINT FlipOnVSyncWithNoWait : 1;  /* bit 0 */
            UINT FlipOnVSyncMmIo       : 1;  /* bit 1 */
            UINT FlipInterval          : 1;  /* bit 2 */
            UINT FlipImmediateMmIo     : 1;  /* bit 3 */
            UINT FlipIndependent       : 1;  /* bit 4 */
            UINT DdiPresentForIFlip    : 1;  /* bit 5 */
            UINT FlipImmediateOnHSync  : 1;  /* bit 6 */
            UINT Reserved              : 25; /* bits 7-31 */
        };
        UINT Value;
    };
} DXGK_FLIPCAPS;

/* GPU scheduler capabilities (DXGK_DRIVERCAPS.SchedulingCaps). */
typedef struct _DXGK_VIDSCHCAPS {
    union {
        GR_ANON_STRUCT {
            UINT MultiEngineAware                      : 1;  /* bit 0 */
            UINT VSyncPowerSaveAware                   : 1;  /* bit 1 */
            UINT PreemptionAware                       : 1;  /* bit 2 */
            UINT NoDmaPatching                         : 1;  /* bit 3 */
            UINT CancelCommandAware                    : 1;  /* bit 4 */
            UINT No64BitAtomics                        : 1;  /* bit 5 */
            UINT LowIrqlPreemptCommand                 : 1;  /* bit 6 */
            UINT HwQueuePacketCap                      : 4;  /* bits 7-10 */
            UINT NativeGpuFence                        : 1;  /* bit 11 */
            UINT OptimizedNativeFenceSignaledInterrupt : 1;  /* bit 12 */
            UINT Reserved                              : 19; /* bits 13-31 */
        };
        UINT Value;
    };
} DXGK_VIDSCHCAPS;

/* Video memory manager capabilities (DXGK_DRIVERCAPS.MemoryManagementCaps). */
typedef struct _DXGK_VIDMMCAPS {
    union {
        GR_ANON_STRUCT {
            UINT OutOfOrderLock              : 1;  /* bit 0 */
            UINT DedicatedPagingEngine       : 1;  /* bit 1 */
            UINT PagingEngineCanSwizzle      : 1;  /* bit 2 */
            UINT SectionBackedPrimary        : 1;  /* bit 3 */
            UINT CrossAdapterResource        : 1;  /* bit 4 */
            UINT VirtualAddressingSupported  : 1;  /* bit 5 */
            UINT GpuMmuSupported             : 1;  /* bit 6 */
            UINT IoMmuSupported              : 1;  /* bit 7 */
            UINT ReplicateGdiContent         : 1;  /* bit 8 */
            UINT NonCpuVisiblePrimary        : 1;  /* bit 9 */
            UINT ParavirtualizationSupported : 1;  /* bit 10 */
            UINT IoMmuSecureModeSupported    : 1;  /* bit 11 */
            UINT DisableSelfRefreshVRAMInS3  : 1;  /* bit 12 */
            UINT IoMmuSecureModeRequired     : 1;  /* bit 13 */
            UINT MapAperture2Supported       : 1;  /* bit 14 */
            UINT CrossAdapterResourceTexture : 1;  /* bit 15 */
            UINT CrossAdapterResourceScanout : 1;  /* bit 16 */
            UINT AlwaysPoweredVRAM           : 1;  /* bit 17 */
            UINT Reserved                    : 14; /* bits 18-31 */
        };
        UINT Value;
    };
    UINT PagingNode; /* engine ordinal of the paging engine */
} DXGK_VIDMMCAPS;

/* Engine topology; only the node count is used. */
#define DXGK_MAX_ASYMETRICAL_PROCESSING_NODES 64
typedef struct _DXGK_GPUENGINETOPOLOGY {
    UINT NbAsymetricProcessingNodes;
    UINT Reserved[DXGK_MAX_ASYMETRICAL_PROCESSING_NODES];
} DXGK_GPUENGINETOPOLOGY;

/* WDDM version a driver implements (DXGK_DRIVERCAPS.WDDMVersion). */
typedef enum _DXGK_WDDMVERSION {
    DXGKDDI_WDDMv1      = 0x1000,
    DXGKDDI_WDDMv1_2    = 0x1200,
    DXGKDDI_WDDMv1_3    = 0x1300,
    DXGKDDI_WDDMv2      = 0x2000,
    DXGKDDI_WDDMv2_1    = 0x2100,
    DXGKDDI_WDDMv2_1_5  = 0x2105,
    DXGKDDI_WDDMv2_1_6  = 0x2106,
    DXGKDDI_WDDMv2_2    = 0x2200,
    DXGKDDI_WDDMv2_3    = 0x2300,
    DXGKDDI_WDDMv2_4    = 0x2400,
    DXGKDDI_WDDMv2_5    = 0x2500,
    DXGKDDI_WDDMv2_6    = 0x2600,
    DXGKDDI_WDDMv2_7    = 0x2700,
    DXGKDDI_WDDMv2_8    = 0x2800,
    DXGKDDI_WDDMv2_9    = 0x2900,
    DXGKDDI_WDDMv3_0    = 0x3000,
    DXGKDDI_WDDMv3_1    = 0x3100,
    DXGKDDI_WDDMv3_2    = 0x3200,
    DXGKDDI_WDDM_LATEST = 0x3200
} DXGK_WDDMVERSION;

/* Obsolete advanced-scheduler caps, kept for layout (DXGK_DRIVERCAPS.Reserved). */
typedef struct _DXGK_VIRTUALADDRESSCAPS_DEPRECATED {
    union {
        GR_ANON_STRUCT {
            UINT PrivilegedMemorySupported : 1;  /* bit 0 */
            UINT ReadOnlyMemorySupported   : 1;  /* bit 1 */
            UINT Reserved                  : 30; /* bits 2-31 */
        };
        UINT Value;
    };
    UINT VirtualAddressBitCount;
    UINT PageTableCoverageBitCount;
    UINT PageDirectoryEntrySize;
    UINT PageDirectorySegment;
    UINT PageTableSegment;
    UINT IdealGPUPageSize;
} DXGK_VIRTUALADDRESSCAPS_DEPRECATED;

/* Obsolete DMA buffer caps, kept for layout (DXGK_DRIVERCAPS.Reserved1). */
typedef struct _DXGK_DMABUFFERCAPS_DEPRECATED {
    struct {
        UINT Size;
        UINT PrivateDriverDataSize;
        UINT SegmentId;
        UINT Reserved1;
        UINT Reserved[16];
    } PresentDmaBuffer;
    struct {
        UINT Size;
        UINT PrivateDriverDataSize;
        UINT SegmentId;
        UINT Reserved1;
        UINT Reserved[16];
    } PagingDmaBuffer;
} DXGK_DMABUFFERCAPS_DEPRECATED;

/* Hardware-queued flip capabilities (none defined yet). */
typedef struct _DXGK_HWQUEUEDFLIP_CAPS {
    union {
        GR_ANON_STRUCT {
            UINT Reserved : 32;
        };
        UINT Value;
    };
} DXGK_HWQUEUEDFLIP_CAPS;

/* The driver's capabilities (DXGKQAITYPE_DRIVERCAPS output). */
typedef struct _DXGK_DRIVERCAPS {
    PHYSICAL_ADDRESS HighestAcceptableAddress;
    UINT             MaxAllocationListSlotId;
    SIZE_T           ApertureSegmentCommitLimit;
    UINT             MaxPointerWidth;
    UINT             MaxPointerHeight;
    DXGK_POINTERFLAGS PointerCaps;
    UINT             InterruptMessageNumber;
    UINT             NumberOfSwizzlingRanges;
    UINT             MaxOverlays;
    union {
        DXGK_GAMMARAMPCAPS      GammaRampCaps;
        DXGK_COLORTRANSFORMCAPS ColorTransformCaps;
    };
    DXGK_PRESENTATIONCAPS              PresentationCaps;
    UINT                               MaxQueuedFlipOnVSync;
    DXGK_FLIPCAPS                      FlipCaps;
    DXGK_VIDSCHCAPS                    SchedulingCaps;
    DXGK_VIDMMCAPS                     MemoryManagementCaps;
    DXGK_GPUENGINETOPOLOGY             GpuEngineTopology;
    DXGK_WDDMVERSION                   WDDMVersion;
    DXGK_VIRTUALADDRESSCAPS_DEPRECATED Reserved;
    DXGK_DMABUFFERCAPS_DEPRECATED      Reserved1;
    D3DKMDT_PREEMPTION_CAPS            PreemptionCaps;
    BOOLEAN                            SupportNonVGA;
    BOOLEAN                            SupportSmoothRotation;
    BOOLEAN                            SupportPerEngineTDR;
    BOOLEAN                            SupportDirectFlip;
    BOOLEAN                            SupportMultiPlaneOverlay;
    BOOLEAN                            SupportRuntimePowerManagement;
    BOOLEAN                            SupportSurpriseRemovalInHibernation;
    BOOLEAN                            HybridDiscrete;
    UINT                               MaxOverlayPlanes;
    BOOLEAN                            HybridIntegrated;
    D3DGPU_VIRTUAL_ADDRESS             InternalGpuVirtualAddressRangeStart;
    D3DGPU_VIRTUAL_ADDRESS             InternalGpuVirtualAddressRangeEnd;
    BOOLEAN                            SupportSurpriseRemoval;
    BOOLEAN                            SupportMultiPlaneOverlayImmediateFlip;
    BOOLEAN                            CursorScaledWithMultiPlaneOverlayPlane0;
    BOOLEAN                            HybridAcpiChainingRequired;
    UINT                               MaxQueuedMultiPlaneOverlayFlipVSync;
    union {
        GR_ANON_STRUCT {
            UINT SupportContextlessPresent                         : 1;  /* bit 0 */
            UINT Detachable                                        : 1;  /* bit 1 */
            UINT VirtualGpuOnly                                    : 1;  /* bit 2 */
            UINT ComputeOnly                                       : 1;  /* bit 3 */
            UINT IndependentVidPnVSyncControl                      : 1;  /* bit 4 */
            UINT NoHybridDiscreteDListDllSupport                   : 1;  /* bit 5 */
            UINT DisplayableSupport                                : 1;  /* bit 6 */
            UINT NoHybridDiscreteDListDllMuxSupport                : 1;  /* bit 7 */
            UINT CursorDoesNotSupportXorBlendWithMultiPlaneOverlay : 1;  /* bit 8 */
            UINT Reserved                                          : 23; /* bits 9-31 */
        };
        UINT Value;
    } MiscCaps;
    UINT                   MaxHwQueuedFlips;
    DXGK_HWQUEUEDFLIP_CAPS HwQueuedFlipCaps;
} DXGK_DRIVERCAPS;

/* ---- Segments ----------------------------------------------------------------------- */

/* Segment ids and the system-memory bit of a segment set, for WDDM 2.0 drivers. */
#define DXGK_SEGMENT_ID_INVALID       0
#define DXGK_SEGMENT_ID_SYSTEMMEMORY  31
#define DXGK_SEGMENT_SET_SYSTEMMEMORY 0x80000000

/* Properties of a memory or aperture segment. */
typedef struct _DXGK_SEGMENTFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT Aperture                          : 1;  /* bit 0 */
            UINT Agp                               : 1;  /* bit 1 */
            UINT CpuVisible                        : 1;  /* bit 2 */
            UINT UseBanking                        : 1;  /* bit 3 */
            UINT CacheCoherent                     : 1;  /* bit 4 */
            UINT PitchAlignment                    : 1;  /* bit 5 */
            UINT PopulatedFromSystemMemory         : 1;  /* bit 6 */
            UINT PreservedDuringStandby            : 1;  /* bit 7 */
            UINT PreservedDuringHibernate          : 1;  /* bit 8 */
            UINT PartiallyPreservedDuringHibernate : 1;  /* bit 9 */
            UINT DirectFlip                        : 1;  /* bit 10 */
            UINT Use64KBPages                      : 1;  /* bit 11 */
            UINT ReservedSysMem                    : 1;  /* bit 12 */
            UINT SupportsCpuHostAperture           : 1;  /* bit 13 */
            UINT SupportsCachedCpuHostAperture     : 1;  /* bit 14 */
            UINT ApplicationTarget                 : 1;  /* bit 15 */
            UINT VprSupported                      : 1;  /* bit 16 */
            UINT VprPreservedDuringStandby         : 1;  /* bit 17 */
            UINT EncryptedPagingSupported          : 1;  /* bit 18 */
            UINT LocalBudgetGroup                  : 1;  /* bit 19 */
            UINT NonLocalBudgetGroup               : 1;  /* bit 20 */
            UINT PopulatedByReservedDDRByFirmware  : 1;  /* bit 21 */
            UINT Reserved                          : 10; /* bits 22-31 */
        };
        UINT Value;
    };
} DXGK_SEGMENTFLAGS;

/* One segment (DXGKQAITYPE_QUERYSEGMENT). */
typedef struct _DXGK_SEGMENTDESCRIPTOR {
    PHYSICAL_ADDRESS  BaseAddress;          /* GPU address of the segment's start */
    PHYSICAL_ADDRESS  CpuTranslatedAddress; /* CPU physical address, if CpuVisible */
    SIZE_T            Size;
    UINT              NbOfBanks;
    SIZE_T           *pBankRangeTable;
    SIZE_T            CommitLimit; /* aperture segments */
    DXGK_SEGMENTFLAGS Flags;
} DXGK_SEGMENTDESCRIPTOR;

/* Input of DXGKQAITYPE_QUERYSEGMENT. */
typedef struct _DXGK_QUERYSEGMENTIN {
    PHYSICAL_ADDRESS  AgpApertureBase;
    LARGE_INTEGER     AgpApertureSize;
    DXGK_SEGMENTFLAGS AgpFlags;
} DXGK_QUERYSEGMENTIN;

/* Output of DXGKQAITYPE_QUERYSEGMENT. */
typedef struct _DXGK_QUERYSEGMENTOUT {
    UINT                    NbSegment;
    DXGK_SEGMENTDESCRIPTOR *pSegmentDescriptor; /* NULL on the first call: count only */
    UINT                    PagingBufferSegmentId;
    UINT                    PagingBufferSize;
    UINT                    PagingBufferPrivateDataSize;
} DXGK_QUERYSEGMENTOUT;

/* One segment (DXGKQAITYPE_QUERYSEGMENT3). */
typedef struct _DXGK_SEGMENTDESCRIPTOR3 {
    DXGK_SEGMENTFLAGS Flags;
    PHYSICAL_ADDRESS  BaseAddress;
    PHYSICAL_ADDRESS  CpuTranslatedAddress;
    SIZE_T            Size;
    UINT              NbOfBanks;
    SIZE_T           *pBankRangeTable;
    SIZE_T            CommitLimit;
    SIZE_T            SystemMemoryEndAddress;
    SIZE_T            Reserved;
} DXGK_SEGMENTDESCRIPTOR3;

/* Output of DXGKQAITYPE_QUERYSEGMENT3. */
typedef struct _DXGK_QUERYSEGMENTOUT3 {
    UINT                     NbSegment;
    DXGK_SEGMENTDESCRIPTOR3 *pSegmentDescriptor;
    UINT                     PagingBufferSegmentId;
    UINT                     PagingBufferSize;
    UINT                     PagingBufferPrivateDataSize;
} DXGK_QUERYSEGMENTOUT3;

/* Input of DXGKQAITYPE_QUERYSEGMENT4. */
typedef struct _DXGK_QUERYSEGMENTIN4 {
    UINT PhysicalAdapterIndex;
} DXGK_QUERYSEGMENTIN4;

/* A CPU window onto a segment that is not directly CPU visible. */
typedef struct _DXGK_CPUHOSTAPERTURE {
    UINT64 PhysicalAddress; /* CPU physical address */
    UINT32 SizeInPages;
} DXGK_CPUHOSTAPERTURE;

/* One segment (DXGKQAITYPE_QUERYSEGMENT4, WDDM 2.0 and later). */
typedef struct _DXGK_SEGMENTDESCRIPTOR4 {
    DXGK_SEGMENTFLAGS Flags;
    PHYSICAL_ADDRESS  BaseAddress;
    SIZE_T            Size;
    SIZE_T            CommitLimit;
    SIZE_T            SystemMemoryEndAddress;
    union {
        PHYSICAL_ADDRESS     CpuTranslatedAddress; /* Flags.SupportsCpuHostAperture == 0 */
        DXGK_CPUHOSTAPERTURE CpuHostAperture;      /* Flags.SupportsCpuHostAperture == 1 */
    };
    UINT   NumInvalidMemoryRanges;
    SIZE_T VprRangeStartOffset;
    SIZE_T VprRangeSize;
    UINT   VprAlignment;
    UINT   NumVprSupported;
    UINT   VprReserveSize;
    UINT   NumUEFIFrameBufferRanges;
} DXGK_SEGMENTDESCRIPTOR4;

/* Output of DXGKQAITYPE_QUERYSEGMENT4: descriptors SegmentDescriptorStride bytes apart. */
typedef struct _DXGK_QUERYSEGMENTOUT4 {
    UINT   NbSegment;
    BYTE  *pSegmentDescriptor;
    UINT   PagingBufferSegmentId;
    UINT   PagingBufferSize;
    UINT   PagingBufferPrivateDataSize;
    SIZE_T SegmentDescriptorStride;
} DXGK_QUERYSEGMENTOUT4;

/* ---- GPU MMU and physical adapter --------------------------------------------------- */

/* Input of DXGKQAITYPE_GPUMMUCAPS. */
typedef struct _DXGK_QUERYGPUMMUCAPSIN {
    UINT PhysicalAdapterIndex;
} DXGK_QUERYGPUMMUCAPSIN;

/* GPU MMU capabilities (DXGKQAITYPE_GPUMMUCAPS output). */
typedef struct _DXGK_GPUMMUCAPS {
    union {
        GR_ANON_STRUCT {
            UINT ReadOnlyMemorySupported                : 1;  /* bit 0 */
            UINT NoExecuteMemorySupported               : 1;  /* bit 1 */
            UINT ZeroInPteSupported                     : 1;  /* bit 2 */
            UINT ExplicitPageTableInvalidation          : 1;  /* bit 3 */
            UINT CacheCoherentMemorySupported           : 1;  /* bit 4 */
            UINT PageTableUpdateRequireAddressSpaceIdle : 1;  /* bit 5 */
            UINT LargePageSupported                     : 1;  /* bit 6 */
            UINT DualPteSupported                       : 1;  /* bit 7 */
            UINT AllowNonAlignedLargePageAddress        : 1;  /* bit 8 */
            UINT SysMem64KBPageSupported                : 1;  /* bit 9 */
            UINT InvalidTlbEntriesNotCached             : 1;  /* bit 10 */
            UINT SysMemLargePageSupported               : 1;  /* bit 11 */
            UINT CachedPageTables                       : 1;  /* bit 12 */
            UINT Reserved                               : 19; /* bits 13-31 */
        };
        UINT Value;
    };
    DXGK_PAGETABLEUPDATEMODE PageTableUpdateMode;
    UINT                     VirtualAddressBitCount;
    UINT                     LeafPageTableSizeFor64KPagesInBytes;
    UINT                     PageTableLevelCount;
    struct {
        UINT SourcePageTableVaInTransfer : 1;  /* bit 0 */
        UINT Reserved                    : 31; /* bits 1-31 */
    } LegacyBehaviors;
} DXGK_GPUMMUCAPS;

/* Input of DXGKQAITYPE_PAGETABLELEVELDESC. */
typedef struct _DXGK_QUERYPAGETABLELEVELDESCIN {
    WORD LevelIndex;
    WORD PhysicalAdapterIndex;
} DXGK_QUERYPAGETABLELEVELDESCIN;

/* One level of the GPU page-table tree (DXGKQAITYPE_PAGETABLELEVELDESC output). */
typedef struct _DXGK_PAGE_TABLE_LEVEL_DESC {
    UINT PageTableIndexBitCount;
    UINT PageTableSegmentId;
    UINT PagingProcessPageTableSegmentId;
    UINT PageTableSizeInBytes;
    UINT PageTableAlignmentInBytes; /* 0: the segment's page size */
} DXGK_PAGE_TABLE_LEVEL_DESC;

/* Input of DXGKQAITYPE_PHYSICALADAPTERCAPS. */
typedef struct _DXGK_QUERYPHYSICALADAPTERCAPSIN {
    UINT PhysicalAdapterIndex;
} DXGK_QUERYPHYSICALADAPTERCAPSIN;

/* Physical adapter capability bits. */
typedef struct _DXGK_PHYSICALADAPTERFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT IoMmuSupported              : 1;  /* bit 0 */
            UINT GpuMmuSupported             : 1;  /* bit 1 */
            UINT MovePagingSupported         : 1;  /* bit 2 */
            UINT VPRPagingContextRequired    : 1;  /* bit 3 */
            UINT AllowHardwareProtectedNoVpr : 1;  /* bit 4 */
            UINT VirtualCopyEngineSupported  : 1;  /* bit 5 */
            UINT GpuVaIommuRequired          : 1;  /* bit 6 */
            UINT GpuVaIommuGlobalRequired    : 1;  /* bit 7 */
            UINT GpuVaIommuCacheCoherent     : 1;  /* bit 8 */
            UINT Reserved                    : 23; /* bits 9-31 */
        };
        UINT Value;
    };
} DXGK_PHYSICALADAPTERFLAGS;

/* A physical adapter's capabilities (DXGKQAITYPE_PHYSICALADAPTERCAPS output). */
typedef struct _DXGK_PHYSICALADAPTERCAPS {
    WORD                      NumExecutionNodes;
    WORD                      PagingNodeIndex;
    HANDLE                    DxgkPhysicalAdapterHandle;
    DXGK_PHYSICALADAPTERFLAGS Flags;
    UINT                      VPRPagingNode;
    UINT                      VirtualCopyNodeIndex;
} DXGK_PHYSICALADAPTERCAPS;

/* ---- Interrupt notification --------------------------------------------------------- */

/* Event the miniport reports with DxgkCbNotifyInterrupt. */
typedef enum _DXGK_INTERRUPT_TYPE {
    DXGK_INTERRUPT_DMA_COMPLETED                      = 1,
    DXGK_INTERRUPT_DMA_PREEMPTED                      = 2,
    DXGK_INTERRUPT_CRTC_VSYNC                         = 3,
    DXGK_INTERRUPT_DMA_FAULTED                        = 4,
    DXGK_INTERRUPT_DISPLAYONLY_VSYNC                  = 5,
    DXGK_INTERRUPT_DISPLAYONLY_PRESENT_PROGRESS       = 6,
    DXGK_INTERRUPT_CRTC_VSYNC_WITH_MULTIPLANE_OVERLAY = 7,
    DXGK_INTERRUPT_MICACAST_CHUNK_PROCESSING_COMPLETE = 8, /* sic: the WDK's spelling */
    DXGK_INTERRUPT_DMA_PAGE_FAULTED                   = 9,
    DXGK_INTERRUPT_CRTC_VSYNC_WITH_MULTIPLANE_OVERLAY2 = 10,
    DXGK_INTERRUPT_MONITORED_FENCE_SIGNALED           = 11,
    DXGK_INTERRUPT_HWQUEUE_PAGE_FAULTED               = 12,
    DXGK_INTERRUPT_HWCONTEXTLIST_SWITCH_COMPLETED     = 13,
    DXGK_INTERRUPT_PERIODIC_MONITORED_FENCE_SIGNALED  = 14,
    DXGK_INTERRUPT_SCHEDULING_LOG_INTERRUPT           = 15,
    DXGK_INTERRUPT_GPU_ENGINE_TIMEOUT                 = 16,
    DXGK_INTERRUPT_SUSPEND_CONTEXT_COMPLETED          = 17,
    DXGK_INTERRUPT_CRTC_VSYNC_WITH_MULTIPLANE_OVERLAY3 = 18,
    DXGK_INTERRUPT_NATIVE_FENCE_SIGNALED              = 19,
    DXGK_INTERRUPT_GPU_ENGINE_STATE_CHANGE            = 20
} DXGK_INTERRUPT_TYPE;

/* Flags of an interrupt notification. */
typedef struct _DXGKCB_NOTIFY_INTERRUPT_DATA_FLAGS {
    union {
        GR_ANON_STRUCT {
            UINT ValidPhysicalAdapterMask      : 1;  /* bit 0 */
            UINT HsyncFlipCompletion           : 1;  /* bit 1 */
            UINT EvaluateLegacyMonitoredFences : 1;  /* bit 2 */
            UINT Reserved                      : 29; /* bits 3-31 */
        };
        UINT Value;
    };
} DXGKCB_NOTIFY_INTERRUPT_DATA_FLAGS;

/* Display-side per-plane vsync records, reached only by pointer (layouts not provided). */
typedef struct _DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO;

typedef struct _DXGKCB_NOTIFY_MPO_VSYNC_FLAGS {
    union {
        GR_ANON_STRUCT {
            UINT PostPresentNeeded : 1;  /* bit 0 */
            UINT Reserved          : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGKCB_NOTIFY_MPO_VSYNC_FLAGS;

typedef struct _DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO2 {
    DWORD                         LayerIndex;
    ULONGLONG                     PresentId;
    DXGKCB_NOTIFY_MPO_VSYNC_FLAGS Flags;
} DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO2;

typedef struct _DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO3 {
    DWORD LayerIndex;
    ULONG FirstFreeFlipQueueLogEntryIndex;
} DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO3;

/* Progress of a display-only present. */
typedef enum _DXGK_PRESENT_DISPLAY_ONLY_PROGRESS_ID {
    DXGK_PRESENT_DISPLAYONLY_PROGRESS_ID_COMPLETE = 0,
    DXGK_PRESENT_DISPLAYONLY_PROGRESS_ID_FAILED   = 1
} DXGK_PRESENT_DISPLAY_ONLY_PROGRESS_ID;

typedef struct _DXGKARGCB_PRESENT_DISPLAYONLY_PROGRESS {
    D3DDDI_VIDEO_PRESENT_SOURCE_ID        VidPnSourceId;
    DXGK_PRESENT_DISPLAY_ONLY_PROGRESS_ID ProgressId;
} DXGKARGCB_PRESENT_DISPLAYONLY_PROGRESS;

/* State an engine reports with DXGK_INTERRUPT_GPU_ENGINE_STATE_CHANGE. */
typedef enum _DXGK_ENGINE_STATE {
    DXGK_ENGINE_STATE_ACTIVE           = 0,
    DXGK_ENGINE_STATE_TRANSITION_TO_F1 = 1,
    DXGK_ENGINE_STATE_HUNG             = 2
} DXGK_ENGINE_STATE;

/*
 * What an interrupt signalled, passed to DxgkCbNotifyInterrupt from the ISR.  InterruptType
 * selects the union member; the union is 64 bytes (its Reserved member).
 */
typedef struct _DXGKARGCB_NOTIFY_INTERRUPT_DATA {
    DXGK_INTERRUPT_TYPE InterruptType;
    union {
        struct {
            UINT SubmissionFenceId;
            UINT NodeOrdinal;
            UINT EngineOrdinal;
        } DmaCompleted;
        struct {
            UINT PreemptionFenceId;
            UINT LastCompletedFenceId;
            UINT NodeOrdinal;
            UINT EngineOrdinal;
        } DmaPreempted;
        struct {
            UINT     FaultedFenceId;
            NTSTATUS Status;
            UINT     NodeOrdinal;
            UINT     EngineOrdinal;
        } DmaFaulted;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID VidPnTargetId;
            PHYSICAL_ADDRESS               PhysicalAddress;
            UINT                           PhysicalAdapterMask;
        } CrtcVsync;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID VidPnTargetId;
        } DisplayOnlyVsync;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID      VidPnTargetId;
            UINT                                PhysicalAdapterMask;
            UINT                                MultiPlaneOverlayVsyncInfoCount;
            DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO *pMultiPlaneOverlayVsyncInfo;
        } CrtcVsyncWithMultiPlaneOverlay;
        DXGKARGCB_PRESENT_DISPLAYONLY_PROGRESS DisplayOnlyPresentProgress;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID VidPnTargetId;
            DXGK_MIRACAST_CHUNK_INFO       ChunkInfo;
            PVOID                          pPrivateDriverData;
            UINT                           PrivateDataDriverSize;
            NTSTATUS                       Status;
        } MiracastEncodeChunkCompleted;
        struct {
            UINT                       FaultedFenceId;
            UINT64                     FaultedPrimitiveAPISequenceNumber;
            DXGK_RENDER_PIPELINE_STAGE FaultedPipelineStage;
            UINT                       FaultedBindTableEntry;
            DXGK_PAGE_FAULT_FLAGS      PageFaultFlags;
            D3DGPU_VIRTUAL_ADDRESS     FaultedVirtualAddress;
            UINT                       NodeOrdinal;
            UINT                       EngineOrdinal;
            UINT                       PageTableLevel;
            DXGK_FAULT_ERROR_CODE      FaultErrorCode;
            HANDLE                     FaultedProcessHandle;
        } DmaPageFaulted;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID       VidPnTargetId;
            UINT                                 PhysicalAdapterMask;
            UINT                                 MultiPlaneOverlayVsyncInfoCount;
            DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO2 *pMultiPlaneOverlayVsyncInfo;
            ULONGLONG                            GpuFrequency;
            ULONGLONG                            GpuClockCounter;
        } CrtcVsyncWithMultiPlaneOverlay2;
        struct {
            UINT NodeOrdinal;
            UINT EngineOrdinal;
        } MonitoredFenceSignaled;
        struct {
            UINT   NodeOrdinal;
            UINT   EngineOrdinal;
            UINT64 ContextSwitchFence;
        } HwContextListSwitchCompleted;
        struct {
            UINT64                 FaultedFenceId;
            D3DGPU_VIRTUAL_ADDRESS FaultedVirtualAddress;
            UINT64                 FaultedPrimitiveAPISequenceNumber;
            union {
                HANDLE FaultedHwQueue;
                HANDLE FaultedHwContext;
                HANDLE FaultedProcessHandle;
            };
            UINT                       NodeOrdinal;
            UINT                       EngineOrdinal;
            DXGK_RENDER_PIPELINE_STAGE FaultedPipelineStage;
            UINT                       FaultedBindTableEntry;
            DXGK_PAGE_FAULT_FLAGS      PageFaultFlags;
            UINT                       PageTableLevel;
            DXGK_FAULT_ERROR_CODE      FaultErrorCode;
        } HwQueuePageFaulted;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID VidPnTargetId;
            UINT                           NotificationID;
        } PeriodicMonitoredFenceSignaled;
        struct {
            UINT NodeOrdinal;
            UINT EngineOrdinal;
        } SchedulingLogInterrupt;
        struct {
            UINT NodeOrdinal;
            UINT EngineOrdinal;
        } GpuEngineTimeout;
        struct {
            HANDLE hContext;
            UINT64 ContextSuspendFence;
        } SuspendContextCompleted;
        struct {
            D3DDDI_VIDEO_PRESENT_TARGET_ID       VidPnTargetId;
            UINT                                 PhysicalAdapterMask;
            UINT                                 MultiPlaneOverlayVsyncInfoCount;
            DXGK_MULTIPLANE_OVERLAY_VSYNC_INFO3 *pMultiPlaneOverlayVsyncInfo;
            ULONGLONG                            GpuFrequency;
            ULONGLONG                            GpuClockCounter;
        } CrtcVsyncWithMultiPlaneOverlay3;
        struct {
            UINT    NodeOrdinal;
            UINT    EngineOrdinal;
            UINT    SignaledNativeFenceCount;
            HANDLE *pSignaledNativeFenceArray;
            HANDLE  hHWQueue;
        } NativeFenceSignaled;
        struct {
            UINT              NodeOrdinal;
            UINT              EngineOrdinal;
            DXGK_ENGINE_STATE NewState;
        } EngineStateChange;
        struct {
            UINT Reserved[16];
        } Reserved;
    };
    DXGKCB_NOTIFY_INTERRUPT_DATA_FLAGS Flags;
} DXGKARGCB_NOTIFY_INTERRUPT_DATA;

/* Despite its name the WDK makes this a pointer to non-const data; kept for signature match. */
typedef _Inout_ DXGKARGCB_NOTIFY_INTERRUPT_DATA *IN_CONST_PDXGKARGCB_NOTIFY_INTERRUPT_DATA;

/* ---- Callbacks into dxgkrnl (d3dkmddi.h) -------------------------------------------- */

/* Report an interrupt event; called from the ISR (DIRQL). */
typedef _Function_class_DXGK_(DXGKCB_NOTIFY_INTERRUPT)
    _IRQL_requires_(HIGH_LEVEL)
VOID (APIENTRY CALLBACK *DXGKCB_NOTIFY_INTERRUPT)(IN_CONST_HANDLE hAdapter,
                                                  IN_CONST_PDXGKARGCB_NOTIFY_INTERRUPT_DATA);

/* Tell dxgkrnl the DPC has run; called from DxgkDdiDpcRoutine (DISPATCH_LEVEL). */
typedef _Function_class_DXGK_(DXGKCB_NOTIFY_DPC)
    _IRQL_requires_(DISPATCH_LEVEL)
VOID (APIENTRY CALLBACK *DXGKCB_NOTIFY_DPC)(IN_CONST_HANDLE hAdapter);

/* The resource handle that owns an allocation handle (the docs allow any IRQL below DISPATCH). */
typedef _Check_return_ _Function_class_DXGK_(DXGKCB_GETHANDLEPARENT)
    _IRQL_requires_(PASSIVE_LEVEL)
D3DKMT_HANDLE (APIENTRY CALLBACK *DXGKCB_GETHANDLEPARENT)(IN_D3DKMT_HANDLE hAllocation);

/* Kind of object a handle names. */
typedef enum _DXGK_HANDLE_TYPE {
    DXGK_HANDLE_ALLOCATION = 1,
    DXGK_HANDLE_RESOURCE   = 2
} DXGK_HANDLE_TYPE;

/* Flags of DxgkCbGetHandleData. */
typedef struct _DXGKCB_GETHANDLEDATAFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT DeviceSpecific : 1;  /* bit 0: return the per-device (opened) data */
            UINT Reserved       : 31; /* bits 1-31 */
        };
        UINT Value;
    };
} DXGKCB_GETHANDLEDATAFLAGS;

/* Arguments of DxgkCbGetHandleData and DxgkCbAcquireHandleData. */
typedef struct _DXGKARGCB_GETHANDLEDATA {
    D3DKMT_HANDLE             hObject;
    DXGK_HANDLE_TYPE          Type;
    DXGKCB_GETHANDLEDATAFLAGS Flags;
} DXGKARGCB_GETHANDLEDATA;

typedef _In_ CONST DXGKARGCB_GETHANDLEDATA *IN_CONST_PDXGKARGCB_GETHANDLEDATA;

/* The miniport's private data (its hAllocation/hResource) behind a dxgkrnl handle. */
typedef _Check_return_ _Function_class_DXGK_(DXGKCB_GETHANDLEDATA)
    _IRQL_requires_(PASSIVE_LEVEL)
VOID *(APIENTRY CALLBACK *DXGKCB_GETHANDLEDATA)(IN_CONST_PDXGKARGCB_GETHANDLEDATA);

/* A reference taken by DxgkCbAcquireHandleData, dropped by DxgkCbReleaseHandleData. */
typedef VOID *DXGKARG_RELEASE_HANDLE;
typedef DXGKARG_RELEASE_HANDLE *PDXGKARG_RELEASE_HANDLE;

/* Like DxgkCbGetHandleData, but keeps the object alive until released. */
typedef _Check_return_ _Function_class_DXGK_(DXGKCB_ACQUIREHANDLEDATA)
    _IRQL_requires_max_(APC_LEVEL)
VOID *(APIENTRY CALLBACK *DXGKCB_ACQUIREHANDLEDATA)(IN_CONST_PDXGKARGCB_GETHANDLEDATA,
                                                    _Out_ PDXGKARG_RELEASE_HANDLE);

/* Arguments of DxgkCbReleaseHandleData (passed by value). */
typedef struct _DXGKARGCB_RELEASEHANDLEDATA {
    DXGKARG_RELEASE_HANDLE ReleaseHandle;
    DXGK_HANDLE_TYPE       Type;
} DXGKARGCB_RELEASEHANDLEDATA;

typedef _In_ CONST DXGKARGCB_RELEASEHANDLEDATA IN_CONST_DXGKARGCB_RELEASEHANDLEDATA;

typedef _Function_class_DXGK_(DXGKCB_RELEASEHANDLEDATA)
    _IRQL_requires_max_(APC_LEVEL)
VOID (APIENTRY CALLBACK *DXGKCB_RELEASEHANDLEDATA)(IN_CONST_DXGKARGCB_RELEASEHANDLEDATA);

/* Arguments of DxgkCbEnumHandleChildren: the Index-th allocation of a resource. */
typedef struct _DXGKARGCB_ENUMHANDLECHILDREN {
    D3DKMT_HANDLE hObject;
    UINT          Index;
} DXGKARGCB_ENUMHANDLECHILDREN;

typedef _In_ CONST DXGKARGCB_ENUMHANDLECHILDREN *IN_CONST_PDXGKARGCB_ENUMHANDLECHILDREN;

/* Returns 0 when Index is past the last child. */
typedef _Check_return_ _Function_class_DXGK_(DXGKCB_ENUMHANDLECHILDREN)
    _IRQL_requires_(PASSIVE_LEVEL)
D3DKMT_HANDLE (APIENTRY CALLBACK *DXGKCB_ENUMHANDLECHILDREN)(
    IN_CONST_PDXGKARGCB_ENUMHANDLECHILDREN);

/* Arguments of DxgkCbGetCaptureAddress. */
typedef struct _DXGKARGCB_GETCAPTUREADDRESS {
    D3DKMT_HANDLE    hAllocation;     /* in */
    UINT             SegmentId;       /* out */
    PHYSICAL_ADDRESS PhysicalAddress; /* out */
} DXGKARGCB_GETCAPTUREADDRESS;

typedef _Inout_ DXGKARGCB_GETCAPTUREADDRESS *INOUT_PDXGKARGCB_GETCAPTUREADDRESS;

typedef _Check_return_ _Function_class_DXGK_(DXGKCB_GETCAPTUREADDRESS)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS (APIENTRY CALLBACK *DXGKCB_GETCAPTUREADDRESS)(INOUT_PDXGKARGCB_GETCAPTUREADDRESS);

/* Flags of DxgkCbCreateContextAllocation. */
typedef struct _DXGK_CREATECONTEXTALLOCATIONFLAGS {
    union {
        GR_ANON_STRUCT {
            UINT SharedAcrossContexts : 1;  /* bit 0 */
            UINT MapGpuVirtualAddress : 1;  /* bit 1 */
            UINT Reserved             : 30; /* bits 2-31 */
        };
        UINT Value;
    };
} DXGK_CREATECONTEXTALLOCATIONFLAGS;

/* Arguments of DxgkCbCreateContextAllocation: a driver-owned allocation for a context. */
typedef struct _DXGKARGCB_CREATECONTEXTALLOCATION {
    DXGK_CREATECONTEXTALLOCATIONFLAGS ContextAllocationFlags;
    HANDLE                            hAdapter;
    HANDLE                            hDevice;
    HANDLE                            hContext;
    HANDLE                            hDriverAllocation;
    SIZE_T                            Size;
    UINT                              Alignment;
    UINT                              SupportedSegmentSet;
    UINT                              EvictionSegmentSet;
    DXGK_SEGMENTPREFERENCE            PreferredSegment;
    DXGK_SEGMENTBANKPREFERENCE        HintedBank;
    DXGK_ALLOCATIONINFOFLAGS          Flags;
    HANDLE                            hAllocation; /* out */
    UINT                              PhysicalAdapterIndex;
} DXGKARGCB_CREATECONTEXTALLOCATION;

typedef _Inout_ DXGKARGCB_CREATECONTEXTALLOCATION *INOUT_PDXGKARGCB_CREATECONTEXTALLOCATION;

typedef _Check_return_ _Function_class_DXGK_(DXGKCB_CREATECONTEXTALLOCATION)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS (APIENTRY CALLBACK *DXGKCB_CREATECONTEXTALLOCATION)(
    INOUT_PDXGKARGCB_CREATECONTEXTALLOCATION);

typedef _Check_return_ _Function_class_DXGK_(DXGKCB_DESTROYCONTEXTALLOCATION)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS (APIENTRY CALLBACK *DXGKCB_DESTROYCONTEXTALLOCATION)(IN_CONST_HANDLE hAdapter,
                                                              IN_CONST_HANDLE hAllocation);

/* ---- DDIs the miniport implements (d3dkmddi.h) -------------------------------------- */
/*
 * Function types, as in the WDK: declare an implementation with "DXGKDDI_PATCH MyPatch;".
 * IRQL per the documentation: SubmitCommand and PreemptCommand DISPATCH_LEVEL, the rest
 * PASSIVE_LEVEL.
 */

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_CREATEALLOCATION)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_CREATEALLOCATION(IN_CONST_HANDLE hAdapter,
                                           INOUT_PDXGKARG_CREATEALLOCATION pCreateAllocation);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_OPENALLOCATIONINFO)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_OPENALLOCATIONINFO(IN_CONST_HANDLE hDevice,
                                             IN_CONST_PDXGKARG_OPENALLOCATION pOpenAllocation);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_CLOSEALLOCATION)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_CLOSEALLOCATION(IN_CONST_HANDLE hDevice,
                                          IN_CONST_PDXGKARG_CLOSEALLOCATION pCloseAllocation);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_DESTROYALLOCATION)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_DESTROYALLOCATION(IN_CONST_HANDLE hAdapter,
                                            IN_CONST_PDXGKARG_DESTROYALLOCATION pDestroyAllocation);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_DESCRIBEALLOCATION)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_DESCRIBEALLOCATION(IN_CONST_HANDLE hAdapter,
                                             INOUT_PDXGKARG_DESCRIBEALLOCATION pDescribeAllocation);

/* Create a GPU context on a device (PASSIVE_LEVEL). */
typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_CREATECONTEXT)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_CREATECONTEXT(IN_CONST_HANDLE hDevice,
                                        INOUT_PDXGKARG_CREATECONTEXT pCreateContext);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_DESTROYCONTEXT)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_DESTROYCONTEXT(IN_CONST_HANDLE hContext);

/* A context's root page table moved or was resized; no status (the WDK's prototype is VOID). */
typedef _Function_class_DXGK_(DXGKDDI_SETROOTPAGETABLE)
VOID APIENTRY DXGKDDI_SETROOTPAGETABLE(IN_CONST_HANDLE hAdapter,
                                       IN_CONST_PDXGKARG_SETROOTPAGETABLE pSetPageTable);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_PATCH)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_PATCH(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_PATCH pPatch);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_SUBMITCOMMAND)
    _IRQL_requires_(DISPATCH_LEVEL)
NTSTATUS APIENTRY DXGKDDI_SUBMITCOMMAND(IN_CONST_HANDLE hAdapter,
                                        IN_CONST_PDXGKARG_SUBMITCOMMAND pSubmitCommand);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_PREEMPTCOMMAND)
    _IRQL_requires_(DISPATCH_LEVEL)
NTSTATUS APIENTRY DXGKDDI_PREEMPTCOMMAND(IN_CONST_HANDLE hAdapter,
                                         IN_CONST_PDXGKARG_PREEMPTCOMMAND pPreemptCommand);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_CANCELCOMMAND)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_CANCELCOMMAND(IN_CONST_HANDLE hAdapter,
                                        IN_CONST_PDXGKARG_CANCELCOMMAND pCancelCommand);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_QUERYCURRENTFENCE)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_QUERYCURRENTFENCE(IN_CONST_HANDLE hAdapter,
                                            INOUT_PDXGKARG_QUERYCURRENTFENCE pCurrentFence);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_BUILDPAGINGBUFFER)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_BUILDPAGINGBUFFER(IN_CONST_HANDLE hAdapter,
                                            IN_PDXGKARG_BUILDPAGINGBUFFER pBuildPagingBuffer);

typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_QUERYADAPTERINFO)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_QUERYADAPTERINFO(IN_CONST_HANDLE hAdapter,
                                           IN_CONST_PDXGKARG_QUERYADAPTERINFO pQueryAdapterInfo);

/* TDR: reset the GPU after a timeout; there is no argument structure, only the adapter. */
typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_RESETFROMTIMEOUT)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_RESETFROMTIMEOUT(IN_CONST_HANDLE hAdapter);

/* TDR: the reset is done, resume scheduling; again only the adapter handle. */
typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_RESTARTFROMTIMEOUT)
    _IRQL_requires_(PASSIVE_LEVEL)
NTSTATUS APIENTRY DXGKDDI_RESTARTFROMTIMEOUT(IN_CONST_HANDLE hAdapter);

/* ==== Miniport/port interface (dispmprt.h) ============================================== */

/* Ask dxgkrnl to queue the miniport's DPC; callable at any IRQL, FALSE if already queued. */
typedef _Function_class_DXGK_(DXGKCB_QUEUE_DPC)
    _Success_(return != 0)
BOOLEAN (APIENTRY *DXGKCB_QUEUE_DPC)(_In_ HANDLE DeviceHandle);

/* Run SynchronizeRoutine synchronized with the ISR for MessageNumber. */
typedef _Function_class_DXGK_(DXGKCB_SYNCHRONIZE_EXECUTION)
    _IRQL_requires_max_(DISPATCH_LEVEL)
NTSTATUS (APIENTRY *DXGKCB_SYNCHRONIZE_EXECUTION)(_In_ HANDLE DeviceHandle,
                                                  _In_ PKSYNCHRONIZE_ROUTINE SynchronizeRoutine,
                                                  _In_ PVOID Context, _In_ ULONG MessageNumber,
                                                  _Out_ PBOOLEAN ReturnValue);

/*
 * Slot type for the DXGKRNL_INTERFACE callbacks gpuref does not provide: a function pointer of
 * the same size, so every member keeps its WDK name and offset.  Cast to the WDK prototype
 * before calling; the OS stand-in leaves these NULL.
 */
typedef VOID (APIENTRY *gr_dxgkcb_untyped_t)(VOID);

/*
 * The callbacks dxgkrnl gives the miniport in DxgkDdiStartDevice, in the WDK's order: 70
 * pointers after Size, Version and DeviceHandle.
 */
typedef struct _DXGKRNL_INTERFACE {
    ULONG  Size;
    ULONG  Version;
    HANDLE DeviceHandle;

    gr_dxgkcb_untyped_t             DxgkCbEvalAcpiMethod;
    gr_dxgkcb_untyped_t             DxgkCbGetDeviceInformation;
    gr_dxgkcb_untyped_t             DxgkCbIndicateChildStatus;
    gr_dxgkcb_untyped_t             DxgkCbMapMemory;
    DXGKCB_QUEUE_DPC                DxgkCbQueueDpc;
    gr_dxgkcb_untyped_t             DxgkCbQueryServices;
    gr_dxgkcb_untyped_t             DxgkCbReadDeviceSpace;
    DXGKCB_SYNCHRONIZE_EXECUTION    DxgkCbSynchronizeExecution;
    gr_dxgkcb_untyped_t             DxgkCbUnmapMemory;
    gr_dxgkcb_untyped_t             DxgkCbWriteDeviceSpace;
    gr_dxgkcb_untyped_t             DxgkCbIsDevicePresent;

    DXGKCB_GETHANDLEDATA            DxgkCbGetHandleData;
    DXGKCB_GETHANDLEPARENT          DxgkCbGetHandleParent;
    DXGKCB_ENUMHANDLECHILDREN       DxgkCbEnumHandleChildren;
    DXGKCB_NOTIFY_INTERRUPT         DxgkCbNotifyInterrupt;
    DXGKCB_NOTIFY_DPC               DxgkCbNotifyDpc;
    gr_dxgkcb_untyped_t             DxgkCbQueryVidPnInterface;
    gr_dxgkcb_untyped_t             DxgkCbQueryMonitorInterface;
    DXGKCB_GETCAPTUREADDRESS        DxgkCbGetCaptureAddress;

    gr_dxgkcb_untyped_t             DxgkCbLogEtwEvent;
    gr_dxgkcb_untyped_t             DxgkCbExcludeAdapterAccess;

    /* Windows 8 */
    DXGKCB_CREATECONTEXTALLOCATION  DxgkCbCreateContextAllocation;
    DXGKCB_DESTROYCONTEXTALLOCATION DxgkCbDestroyContextAllocation;
    gr_dxgkcb_untyped_t             DxgkCbSetPowerComponentActive;
    gr_dxgkcb_untyped_t             DxgkCbSetPowerComponentIdle;
    gr_dxgkcb_untyped_t             DxgkCbAcquirePostDisplayOwnership;
    gr_dxgkcb_untyped_t             DxgkCbPowerRuntimeControlRequest;
    gr_dxgkcb_untyped_t             DxgkCbSetPowerComponentLatency;
    gr_dxgkcb_untyped_t             DxgkCbSetPowerComponentResidency;
    gr_dxgkcb_untyped_t             DxgkCbCompleteFStateTransition;

    /* WDDM 1.3 */
    gr_dxgkcb_untyped_t             DxgkCbCompletePStateTransition;

    /* WDDM 2.0 */
    gr_dxgkcb_untyped_t             DxgkCbMapContextAllocation;
    gr_dxgkcb_untyped_t             DxgkCbUpdateContextAllocation;
    gr_dxgkcb_untyped_t             DxgkCbReserveGpuVirtualAddressRange;
    DXGKCB_ACQUIREHANDLEDATA        DxgkCbAcquireHandleData;
    DXGKCB_RELEASEHANDLEDATA        DxgkCbReleaseHandleData;
    gr_dxgkcb_untyped_t             DxgkCbHardwareContentProtectionTeardown;

    /* WDDM 2.1 */
    gr_dxgkcb_untyped_t             DxgkCbMultiPlaneOverlayDisabled;
    gr_dxgkcb_untyped_t             DxgkCbMitigatedRangeUpdate;

    /* WDDM 2.2 */
    gr_dxgkcb_untyped_t             DxgkCbInvalidateHwContext;
    gr_dxgkcb_untyped_t             DxgkCbIndicateConnectorChange;
    gr_dxgkcb_untyped_t             DxgkCbUnblockUEFIFrameBufferRanges;
    gr_dxgkcb_untyped_t             DxgkCbAcquirePostDisplayOwnership2;

    /* WDDM 2.3 */
    gr_dxgkcb_untyped_t             DxgkCbSetProtectedSessionStatus;

    /* WDDM 2.4 */
    gr_dxgkcb_untyped_t             DxgkCbAllocateContiguousMemory;
    gr_dxgkcb_untyped_t             DxgkCbFreeContiguousMemory;
    gr_dxgkcb_untyped_t             DxgkCbAllocatePagesForMdl;
    gr_dxgkcb_untyped_t             DxgkCbFreePagesFromMdl;
    gr_dxgkcb_untyped_t             DxgkCbPinFrameBufferForSave;
    gr_dxgkcb_untyped_t             DxgkCbUnpinFrameBufferForSave;
    gr_dxgkcb_untyped_t             DxgkCbMapFrameBufferPointer;
    gr_dxgkcb_untyped_t             DxgkCbUnmapFrameBufferPointer;
    gr_dxgkcb_untyped_t             DxgkCbMapMdlToIoMmu;
    gr_dxgkcb_untyped_t             DxgkCbUnmapMdlFromIoMmu;
    gr_dxgkcb_untyped_t             DxgkCbReportDiagnostic;

    /* WDDM 2.5 */
    gr_dxgkcb_untyped_t             DxgkCbSignalEvent;

    /* WDDM 2.6 */
    gr_dxgkcb_untyped_t             DxgkCbIsFeatureEnabled;
    gr_dxgkcb_untyped_t             DxgkCbSaveMemoryForHotUpdate;

    /* WDDM 2.8 */
    gr_dxgkcb_untyped_t             DxgkCbNotifyCursorSupportChange;

    /* WDDM 2.9 */
    gr_dxgkcb_untyped_t             DxgkCbQueryFeatureSupport;
    gr_dxgkcb_untyped_t             DxgkCbCreatePhysicalMemoryObject;
    gr_dxgkcb_untyped_t             DxgkCbDestroyPhysicalMemoryObject;
    gr_dxgkcb_untyped_t             DxgkCbMapPhysicalMemory;
    gr_dxgkcb_untyped_t             DxgkCbUnmapPhysicalMemory;
    gr_dxgkcb_untyped_t             DxgkCbAllocateAdl;
    gr_dxgkcb_untyped_t             DxgkCbFreeAdl;
    gr_dxgkcb_untyped_t             DxgkCbOpenPhysicalMemoryObject;
    gr_dxgkcb_untyped_t             DxgkCbClosePhysicalMemoryObject;
    gr_dxgkcb_untyped_t             DxgkCbPinFrameBufferForSave2;

    /* WDDM 3.1 */
    gr_dxgkcb_untyped_t             DxgkCbDisconnectDoorbell;
} DXGKRNL_INTERFACE, *PDXGKRNL_INTERFACE;

/* The miniport's interrupt service routine (DIRQL); TRUE if its device interrupted. */
typedef _Check_return_ _Function_class_DXGK_(DXGKDDI_INTERRUPT_ROUTINE)
    _IRQL_requires_(HIGH_LEVEL)
BOOLEAN DXGKDDI_INTERRUPT_ROUTINE(IN_CONST_PVOID MiniportDeviceContext, IN_ULONG MessageNumber);

/* The miniport's deferred procedure call (DISPATCH_LEVEL); must call DxgkCbNotifyDpc. */
typedef _Function_class_DXGK_(DXGKDDI_DPC_ROUTINE)
    _IRQL_requires_(DISPATCH_LEVEL)
VOID DXGKDDI_DPC_ROUTINE(IN_CONST_PVOID MiniportDeviceContext);

/* Pointer types, as the DDI table (DRIVER_INITIALIZATION_DATA) holds them. */
typedef DXGKDDI_INTERRUPT_ROUTINE  *PDXGKDDI_INTERRUPT_ROUTINE;
typedef DXGKDDI_DPC_ROUTINE        *PDXGKDDI_DPC_ROUTINE;
typedef DXGKDDI_QUERYADAPTERINFO   *PDXGKDDI_QUERYADAPTERINFO;
typedef DXGKDDI_CREATEALLOCATION   *PDXGKDDI_CREATEALLOCATION;
typedef DXGKDDI_DESTROYALLOCATION  *PDXGKDDI_DESTROYALLOCATION;
typedef DXGKDDI_DESCRIBEALLOCATION *PDXGKDDI_DESCRIBEALLOCATION;
typedef DXGKDDI_OPENALLOCATIONINFO *PDXGKDDI_OPENALLOCATIONINFO;
typedef DXGKDDI_CLOSEALLOCATION    *PDXGKDDI_CLOSEALLOCATION;
typedef DXGKDDI_CREATECONTEXT      *PDXGKDDI_CREATECONTEXT;
typedef DXGKDDI_DESTROYCONTEXT     *PDXGKDDI_DESTROYCONTEXT;
typedef DXGKDDI_SETROOTPAGETABLE   *PDXGKDDI_SETROOTPAGETABLE;
typedef DXGKDDI_PATCH              *PDXGKDDI_PATCH;
typedef DXGKDDI_SUBMITCOMMAND      *PDXGKDDI_SUBMITCOMMAND;
typedef DXGKDDI_PREEMPTCOMMAND     *PDXGKDDI_PREEMPTCOMMAND;
typedef DXGKDDI_CANCELCOMMAND      *PDXGKDDI_CANCELCOMMAND;
typedef DXGKDDI_QUERYCURRENTFENCE  *PDXGKDDI_QUERYCURRENTFENCE;
typedef DXGKDDI_BUILDPAGINGBUFFER  *PDXGKDDI_BUILDPAGINGBUFFER;
typedef DXGKDDI_RESETFROMTIMEOUT   *PDXGKDDI_RESETFROMTIMEOUT;
typedef DXGKDDI_RESTARTFROMTIMEOUT *PDXGKDDI_RESTARTFROMTIMEOUT;

#ifdef __cplusplus
}
#endif

#endif /* _D3DKMDDI_H_ */
