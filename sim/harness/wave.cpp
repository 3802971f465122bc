/* SPDX-License-Identifier: Apache-2.0 */
// wave.cpp: the VCD made from a recorded FST, and the GTKWave save file (see wave.h).
#include "wave.h"

#include <gtkwave/fstapi.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <strings.h>

#include "gpuref/gr_status.h"

namespace gr {

namespace {

std::string errno_text()
{
    return std::strerror(errno);
}

// One line of the save file: a signal (with its bit range, as GTKWave names vectors), or a group.
struct GtkwLine {
    const char *name; // NULL ends a group
    bool group;       // name starts a group
};

// Ports first (what the host side drives and sees), then the DMA engine and the MMU inside.
// Widths are gpu_core's defaults (DataBytes 8, VramAddrBits 32, 40-bit host addresses).
const GtkwLine kLines[] = {
    {"s_csr: BAR0 (AXI4-Lite)", true},
    {"TOP.gpu_core.clk_i", false},
    {"TOP.gpu_core.rst_i", false},
    {"TOP.gpu_core.irq_o", false},
    {"TOP.gpu_core.s_csr_awvalid_i", false},
    {"TOP.gpu_core.s_csr_awready_o", false},
    {"TOP.gpu_core.s_csr_awaddr_i[15:0]", false},
    {"TOP.gpu_core.s_csr_wvalid_i", false},
    {"TOP.gpu_core.s_csr_wdata_i[31:0]", false},
    {"TOP.gpu_core.s_csr_bvalid_o", false},
    {"TOP.gpu_core.s_csr_bresp_o[1:0]", false},
    {"TOP.gpu_core.s_csr_arvalid_i", false},
    {"TOP.gpu_core.s_csr_arready_o", false},
    {"TOP.gpu_core.s_csr_araddr_i[15:0]", false},
    {"TOP.gpu_core.s_csr_rvalid_o", false},
    {"TOP.gpu_core.s_csr_rdata_o[31:0]", false},
    {"TOP.gpu_core.s_csr_rresp_o[1:0]", false},
    {nullptr, false},
    {"m_host: host memory (AXI4 master)", true},
    {"TOP.gpu_core.m_host_arvalid_o", false},
    {"TOP.gpu_core.m_host_arready_i", false},
    {"TOP.gpu_core.m_host_araddr_o[63:0]", false},
    {"TOP.gpu_core.m_host_arlen_o[7:0]", false},
    {"TOP.gpu_core.m_host_rvalid_i", false},
    {"TOP.gpu_core.m_host_rready_o", false},
    {"TOP.gpu_core.m_host_rdata_i[63:0]", false},
    {"TOP.gpu_core.m_host_rlast_i", false},
    {"TOP.gpu_core.m_host_awvalid_o", false},
    {"TOP.gpu_core.m_host_awready_i", false},
    {"TOP.gpu_core.m_host_awaddr_o[63:0]", false},
    {"TOP.gpu_core.m_host_awlen_o[7:0]", false},
    {"TOP.gpu_core.m_host_wvalid_o", false},
    {"TOP.gpu_core.m_host_wready_i", false},
    {"TOP.gpu_core.m_host_wdata_o[63:0]", false},
    {"TOP.gpu_core.m_host_wlast_o", false},
    {"TOP.gpu_core.m_host_bvalid_i", false},
    {"TOP.gpu_core.m_host_bresp_i[1:0]", false},
    {nullptr, false},
    {"m_vram: VRAM (AXI4 master)", true},
    {"TOP.gpu_core.m_vram_arvalid_o", false},
    {"TOP.gpu_core.m_vram_arready_i", false},
    {"TOP.gpu_core.m_vram_araddr_o[31:0]", false},
    {"TOP.gpu_core.m_vram_arlen_o[7:0]", false},
    {"TOP.gpu_core.m_vram_rvalid_i", false},
    {"TOP.gpu_core.m_vram_rready_o", false},
    {"TOP.gpu_core.m_vram_rdata_i[63:0]", false},
    {"TOP.gpu_core.m_vram_rlast_i", false},
    {"TOP.gpu_core.m_vram_awvalid_o", false},
    {"TOP.gpu_core.m_vram_awready_i", false},
    {"TOP.gpu_core.m_vram_awaddr_o[31:0]", false},
    {"TOP.gpu_core.m_vram_awlen_o[7:0]", false},
    {"TOP.gpu_core.m_vram_wvalid_o", false},
    {"TOP.gpu_core.m_vram_wready_i", false},
    {"TOP.gpu_core.m_vram_wdata_o[63:0]", false},
    {"TOP.gpu_core.m_vram_wlast_o", false},
    {"TOP.gpu_core.m_vram_bvalid_i", false},
    {"TOP.gpu_core.m_vram_bresp_i[1:0]", false},
    {nullptr, false},
    {"s_ap: BAR1 aperture (AXI4 slave)", true},
    {"TOP.gpu_core.s_ap_arvalid_i", false},
    {"TOP.gpu_core.s_ap_arready_o", false},
    {"TOP.gpu_core.s_ap_araddr_i[27:0]", false},
    {"TOP.gpu_core.s_ap_rvalid_o", false},
    {"TOP.gpu_core.s_ap_rdata_o[63:0]", false},
    {"TOP.gpu_core.s_ap_awvalid_i", false},
    {"TOP.gpu_core.s_ap_awready_o", false},
    {"TOP.gpu_core.s_ap_awaddr_i[27:0]", false},
    {"TOP.gpu_core.s_ap_wvalid_i", false},
    {"TOP.gpu_core.s_ap_wready_o", false},
    {nullptr, false},
    {"DMA engine (u_dma)", true},
    {"TOP.gpu_core.u_dma.enable_i", false},
    {"TOP.gpu_core.u_dma.idle_o", false},
    {"TOP.gpu_core.u_dma.state_o[3:0]", false},
    {"TOP.gpu_core.u_dma.ring_head_o[15:0]", false},
    {"TOP.gpu_core.u_dma.ring_tail_i[15:0]", false},
    {"TOP.gpu_core.u_dma.completed_fence_o[31:0]", false},
    {"TOP.gpu_core.u_dma.preempt_i", false},
    {"TOP.gpu_core.u_dma.preempted_o", false},
    {"TOP.gpu_core.u_dma.faulted_o", false},
    {"TOP.gpu_core.u_dma.fault_type_o[3:0]", false},
    {"TOP.gpu_core.u_dma.fault_addr_o[63:0]", false},
    {"TOP.gpu_core.u_dma.mmu_req_valid_o", false},
    {"TOP.gpu_core.u_dma.mmu_req_ready_i", false},
    {"TOP.gpu_core.u_dma.mmu_req_va_o[47:0]", false},
    {"TOP.gpu_core.u_dma.mmu_req_write_o", false},
    {"TOP.gpu_core.u_dma.mmu_rsp_valid_i", false},
    {"TOP.gpu_core.u_dma.mmu_rsp_pa_i[51:0]", false},
    {"TOP.gpu_core.u_dma.mmu_rsp_fault_i", false},
    {"TOP.gpu_core.u_dma.perf_bytes_o[63:0]", false},
    {"TOP.gpu_core.u_dma.irq_fence_o", false},
    {nullptr, false},
    {"MMU (u_mc.u_mmu)", true},
    {"TOP.gpu_core.u_mc.u_mmu.enable_i", false},
    {"TOP.gpu_core.u_mc.u_mmu.root_i[31:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.req_valid_i", false},
    {"TOP.gpu_core.u_mc.u_mmu.req_ready_o", false},
    {"TOP.gpu_core.u_mc.u_mmu.req_va_i[47:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.req_write_i", false},
    {"TOP.gpu_core.u_mc.u_mmu.rsp_valid_o", false},
    {"TOP.gpu_core.u_mc.u_mmu.rsp_pa_o[51:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.rsp_fault_o", false},
    {"TOP.gpu_core.u_mc.u_mmu.rsp_fault_type_o[2:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.tlb_invalidate_i", false},
    {"TOP.gpu_core.u_mc.u_mmu.tlb_hits_o[31:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.tlb_misses_o[31:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.walks_o[31:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.m_pt_arvalid_o", false},
    {"TOP.gpu_core.u_mc.u_mmu.m_pt_arready_i", false},
    {"TOP.gpu_core.u_mc.u_mmu.m_pt_araddr_o[31:0]", false},
    {"TOP.gpu_core.u_mc.u_mmu.m_pt_rvalid_i", false},
    {nullptr, false},
};

// GTKWave's trace flags in a save file (analyzer.h): hex display, right-justified; binary for
// single bits; a blank comment line that opens (GRP_BEGIN) or closes (GRP_END) a group.
constexpr const char *kFlagsVector = "@22";
constexpr const char *kFlagsBit = "@28";
constexpr const char *kFlagsGroupBegin = "@800200";
constexpr const char *kFlagsGroupEnd = "@1000200";

} // namespace

bool wave_is_vcd(const std::string &path)
{
    return path.size() >= 4 && strcasecmp(path.c_str() + path.size() - 4, ".vcd") == 0;
}

std::string wave_gtkw_path(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    const std::size_t dot = path.find_last_of('.');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash + 1))
        return path.substr(0, dot) + ".gtkw";
    return path + ".gtkw";
}

int wave_fst_to_vcd(const std::string &fst_path, const std::string &vcd_path, std::string *err)
{
    void *r = fstReaderOpen(fst_path.c_str());
    if (!r) {
        *err = "cannot read back the recorded waveform '" + fst_path + "' to make the VCD";
        return GR_E_IO;
    }
    FILE *f = std::fopen(vcd_path.c_str(), "w");
    if (!f) {
        *err = "cannot open VCD file '" + vcd_path + "': " + errno_text();
        fstReaderClose(r);
        return GR_E_IO;
    }
    // The reader writes the VCD itself: the hierarchy as $scope/$var, then every value change.
    fstReaderProcessHier(r, f);
    fstReaderSetFacProcessMaskAll(r);
    fstReaderIterBlocks(r, nullptr, nullptr, f);
    fstReaderClose(r);
    const bool write_failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || write_failed) {
        *err = "cannot write VCD file '" + vcd_path + "': " + errno_text();
        return GR_E_IO;
    }
    return GR_OK;
}

int wave_write_gtkw(const std::string &gtkw_path, const std::string &wave_path, std::string *err)
{
    FILE *f = std::fopen(gtkw_path.c_str(), "w");
    if (!f) {
        *err = "cannot open GTKWave save file '" + gtkw_path + "': " + errno_text();
        return GR_E_IO;
    }
    std::fprintf(f, "[*] gpuref: gpu_core's ports, DMA engine and MMU (written with the waveform)\n");
    std::fprintf(f, "[dumpfile] \"%s\"\n", wave_path.c_str());
    std::fprintf(f, "[savefile] \"%s\"\n", gtkw_path.c_str());
    std::fprintf(f, "[timestart] 0\n");
    std::fprintf(f, "[sst_expanded] 1\n");
    std::fprintf(f, "[signals_width] 320\n");
    std::fprintf(f, "*-10.000000 0\n");
    const char *group = nullptr;
    for (const GtkwLine &l : kLines) {
        if (l.group) {
            group = l.name;
            std::fprintf(f, "%s\n-%s\n", kFlagsGroupBegin, group);
        } else if (!l.name) {
            std::fprintf(f, "%s\n-%s\n", kFlagsGroupEnd, group ? group : "");
            group = nullptr;
        } else {
            std::fprintf(f, "%s\n%s\n", std::strchr(l.name, '[') ? kFlagsVector : kFlagsBit, l.name);
        }
    }
    std::fprintf(f, "[pattern_trace] 1\n[pattern_trace] 0\n");
    const bool write_failed = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || write_failed) {
        *err = "cannot write GTKWave save file '" + gtkw_path + "': " + errno_text();
        return GR_E_IO;
    }
    return GR_OK;
}

} // namespace gr
