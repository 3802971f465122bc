/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dxgk_ddi_table.h: the table through which the OS stand-in calls every DDI of the miniport, as
 * dxgkrnl calls through the DRIVER_INITIALIZATION_DATA the miniport registered. Each adapter
 * holds one (gr_adapter.ddi), filled with host/kmd's functions by dxgk_ddi_init (dxgk_ddi.h); a
 * test may replace an entry with a shim that records its arguments and calls the original (never
 * a mock: the real miniport still runs). A type of its own, apart from dxgk_ddi.h, because the
 * adapter holds it and dxgk_ddi.c uses the adapter. Private to host/dxgk and its tests.
 */
#ifndef GPUREF_DXGK_DDI_TABLE_H
#define GPUREF_DXGK_DDI_TABLE_H

#include "d3dkmddi.h"

typedef struct gr_dxgk_ddi_table {
    PDXGKDDI_QUERYADAPTERINFO QueryAdapterInfo;
    PDXGKDDI_CREATEALLOCATION CreateAllocation;
    PDXGKDDI_OPENALLOCATIONINFO OpenAllocation;
    PDXGKDDI_CLOSEALLOCATION CloseAllocation;
    PDXGKDDI_DESTROYALLOCATION DestroyAllocation;
    PDXGKDDI_CREATECONTEXT CreateContext;
    PDXGKDDI_DESTROYCONTEXT DestroyContext;
    PDXGKDDI_SETROOTPAGETABLE SetRootPageTable;
    PDXGKDDI_PATCH Patch;
    PDXGKDDI_SUBMITCOMMAND SubmitCommand;
    PDXGKDDI_PREEMPTCOMMAND PreemptCommand;
    PDXGKDDI_CANCELCOMMAND CancelCommand;
    PDXGKDDI_QUERYCURRENTFENCE QueryCurrentFence;
    PDXGKDDI_RESETFROMTIMEOUT ResetFromTimeout;
    PDXGKDDI_RESTARTFROMTIMEOUT RestartFromTimeout;
    PDXGKDDI_INTERRUPT_ROUTINE InterruptRoutine;
    PDXGKDDI_DPC_ROUTINE DpcRoutine;
    PDXGKDDI_BUILDPAGINGBUFFER BuildPagingBuffer;
} gr_dxgk_ddi_table_t;

#endif
