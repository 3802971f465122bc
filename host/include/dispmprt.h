/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dispmprt.h: the WDK's miniport/port header name, for code that includes <dispmprt.h>.
 * gpuref keeps the dispmprt.h names it provides (DXGKRNL_INTERFACE, DXGKCB_QUEUE_DPC,
 * DXGKDDI_INTERRUPT_ROUTINE, DXGKDDI_DPC_ROUTINE, PDXGKDDI_*) in d3dkmddi.h; see its header
 * comment for what is and is not provided.
 */
#ifndef _DISPMPRT_H_
#define _DISPMPRT_H_

#include "d3dkmddi.h"

#endif /* _DISPMPRT_H_ */
