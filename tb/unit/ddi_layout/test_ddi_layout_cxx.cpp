/* SPDX-License-Identifier: Apache-2.0 */
// test_ddi_layout_cxx: host/include/d3dkmddi.h compiles as C++17 (-Wall -Wextra -Werror) and
// gives C++ code the same x64 layout as C: every size and offset of ddi_layout_list.h is
// static_assert'ed here too, and a DDI and a callback are defined with C++ linkage.
// Usage: test_ddi_layout_cxx  (no arguments; prints TAP, exits 1 on failure)
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "d3dkmddi.h"
#include "dispmprt.h" // the WDK's include name works too

#define S(T, n) static_assert(sizeof(T) == (n), "sizeof(" #T ") == " #n);
#define O(T, m, n) static_assert(offsetof(T, m) == (n), "offsetof(" #T ", " #m ") == " #n);
#include "ddi_layout_list.h"
#undef S
#undef O

namespace {

constexpr int kStructures = 0
#define S(T, n) +1
#define O(T, m, n)
#include "ddi_layout_list.h"
#undef S
#undef O
    ;

constexpr int kOffsets = 0
#define S(T, n)
#define O(T, m, n) +1
#include "ddi_layout_list.h"
#undef S
#undef O
    ;

NTSTATUS APIENTRY CxxSubmitCommand(IN_CONST_HANDLE hAdapter, IN_CONST_PDXGKARG_SUBMITCOMMAND pArgs)
{
    return (hAdapter != nullptr && pArgs->Flags.Paging) ? STATUS_SUCCESS : STATUS_INVALID_PARAMETER;
}

UINT g_fence;

VOID APIENTRY CxxNotifyInterrupt(IN_CONST_HANDLE, IN_CONST_PDXGKARGCB_NOTIFY_INTERRUPT_DATA pData)
{
    g_fence = pData->DmaCompleted.SubmissionFenceId;
}

} // namespace

int main()
{
    std::printf("1..2\n");
    std::printf("ok 1 - C++17: %d structure sizes and %d member offsets match C (static_assert)\n",
                kStructures, kOffsets);

    PDXGKDDI_SUBMITCOMMAND submit = CxxSubmitCommand;
    DXGKARG_SUBMITCOMMAND args;
    std::memset(&args, 0, sizeof args);
    args.Flags.Paging = 1;
    DXGKRNL_INTERFACE kif;
    std::memset(&kif, 0, sizeof kif);
    kif.DxgkCbNotifyInterrupt = CxxNotifyInterrupt;
    DXGKARGCB_NOTIFY_INTERRUPT_DATA irq;
    std::memset(&irq, 0, sizeof irq);
    irq.InterruptType = DXGK_INTERRUPT_DMA_COMPLETED;
    irq.DmaCompleted.SubmissionFenceId = 9;
    kif.DxgkCbNotifyInterrupt(&kif, &irq);
    const bool ok = submit(&kif, &args) == STATUS_SUCCESS && args.Flags.Value == 1 && g_fence == 9;
    std::printf("%s 2 - C++17: a DDI and a callback defined in C++ match the WDK prototypes\n",
                ok ? "ok" : "not ok");
    return ok ? 0 : 1;
}
