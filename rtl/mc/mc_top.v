// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_top: the memory controller: BAR1 aperture with the VPR (mc_aperture), the GPU MMU
// (mc_mmu) shared by its register probe (mc_mmu_probe) and the DMA engine, the fault unit
// (mc_fault), and the arbiter that joins the aperture, the page walker and the DMA engine on
// the VRAM port (mc_vram_arb).
// Contract at the ports:
//   s_ap_*    AXI4 slave, BAR1 (see mc_aperture).
//   s_dma_*   AXI4 slave for the DMA engine's VRAM accesses (no AxLOCK), LocalIdBits-bit IDs.
//   dma_req_*/dma_rsp_*: the DMA engine's translations (valid/ready), in order. With
//             dma_req_use_root_i they walk dma_req_root_i with the MMU on, else MMU_ROOT while
//             MMU_CTRL.ENABLE. The probe and the DMA engine share the MMU (the probe first).
//             The TLB and the page-walk cache hold one address space: a translated request
//             whose root differs from the one the TLB was filled for drops both first.
//   dma_fault_*: a DMA engine fault for the fault unit (SOURCE 2).
//   m_vram_*  AXI4 master to VRAM. IDs: {master, id}: master 0 aperture, 1 page walker, 2 DMA.
//   cfg/status ports: the MC_*, VPR_* and MMU_* register fields (rtl/csr/REGISTERS.md).
//   vram_pages_i: VRAM present, in 4 KiB pages (gpu_core's strap, static after reset): BAR1
//             bursts at or past it answer DECERR, page tables and VRAM pages at or past it are
//             MMU decode errors (see mc_aperture, mc_walker).
//   soft_rst_i empties the TLB and clears the fault unit; nothing on a bus is cut short (AXI
//   cannot abort a burst), which is why the aperture, walker and probe reset on rst_i only.
//   idle_o: nothing in flight on either bus or in the MMU.
module mc_top #(
    parameter ApAddrBits   = 28,
    parameter VramAddrBits = 32,
    parameter DataBytes    = 8,
    parameter IdBits       = 4,   // s_ap_* and m_vram_* ID width
    parameter TlbEntries   = 16,
    parameter PwcEntries   = 4,   // the MMU's page-walk cache (0: none)
    parameter LocalIdBits  = 2    // ID bits of each arbiter master (s_dma_*)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,       // synchronous, active high
    input  wire                    soft_rst_i,  // core soft reset
    input  wire [VramAddrBits-12:0] vram_pages_i,  // VRAM size in 4 KiB pages (a strap)
    // configuration (registers)
    input  wire [VramAddrBits-1:0] ap_base_i,
    input  wire                    vpr_en_i,
    input  wire [VramAddrBits-13:0] vpr_base_i,
    input  wire [VramAddrBits-13:0] vpr_limit_i,
    input  wire                    mmu_enable_i,
    input  wire [VramAddrBits-1:0] mmu_root_i,
    input  wire                    mmu_invalidate_i,
    input  wire                    probe_go_i,
    input  wire [47:0]             probe_va_i,
    input  wire                    probe_write_i,
    input  wire                    probe_physical_i,
    // status (registers)
    output wire                    probe_busy_o,
    output wire                    probe_done_o,
    output wire                    probe_fault_o,
    output wire [2:0]              probe_fault_type_o,
    output wire                    probe_system_o,
    output wire                    probe_cacheable_o,
    output wire [4:0]              probe_page_shift_o,
    output wire [51:0]             probe_pa_o,
    output wire [31:0]             tlb_hits_o,
    output wire [31:0]             tlb_misses_o,
    input  wire                    fault_held_i,    // MC_FAULT_STATUS.VALID
    output wire                    fault_set_o,     // to its hardware set
    output wire [2:0]              fault_type_o,
    output wire [2:0]              fault_source_o,  // 0 aperture, 1 MMU probe, 2 DMA engine
    output wire                    fault_write_o,
    output wire [47:0]             fault_addr_o,
    output wire [31:0]             fault_count_o,
    output wire                    fault_irq_o,     // one cycle per faulting cycle
    output wire                    idle_o,
    // DMA engine: translations, TLB invalidate, faults
    input  wire                    dma_req_valid_i,
    output wire                    dma_req_ready_o,
    input  wire [47:0]             dma_req_va_i,
    input  wire                    dma_req_write_i,
    input  wire                    dma_req_use_root_i,
    input  wire [VramAddrBits-1:0] dma_req_root_i,
    output wire                    dma_rsp_valid_o,
    input  wire                    dma_rsp_ready_i,
    output wire [51:0]             dma_rsp_pa_o,
    output wire                    dma_rsp_system_o,
    output wire                    dma_rsp_cacheable_o,
    output wire                    dma_rsp_fault_o,
    output wire [2:0]              dma_rsp_fault_type_o,
    input  wire                    dma_tlb_invalidate_i,  // one-cycle strobe
    input  wire                    dma_fault_i,           // one-cycle report
    input  wire [2:0]              dma_fault_type_i,
    input  wire [47:0]             dma_fault_addr_i,
    input  wire                    dma_fault_write_i,
    // DMA engine: VRAM accesses
    input  wire [LocalIdBits-1:0]  s_dma_awid_i,
    input  wire [VramAddrBits-1:0] s_dma_awaddr_i,
    input  wire [7:0]              s_dma_awlen_i,
    input  wire [2:0]              s_dma_awsize_i,
    input  wire [1:0]              s_dma_awburst_i,
    input  wire [3:0]              s_dma_awcache_i,
    input  wire [2:0]              s_dma_awprot_i,
    input  wire                    s_dma_awvalid_i,
    output wire                    s_dma_awready_o,
    input  wire [DataBytes*8-1:0]  s_dma_wdata_i,
    input  wire [DataBytes-1:0]    s_dma_wstrb_i,
    input  wire                    s_dma_wlast_i,
    input  wire                    s_dma_wvalid_i,
    output wire                    s_dma_wready_o,
    output wire [LocalIdBits-1:0]  s_dma_bid_o,
    output wire [1:0]              s_dma_bresp_o,
    output wire                    s_dma_bvalid_o,
    input  wire                    s_dma_bready_i,
    input  wire [LocalIdBits-1:0]  s_dma_arid_i,
    input  wire [VramAddrBits-1:0] s_dma_araddr_i,
    input  wire [7:0]              s_dma_arlen_i,
    input  wire [2:0]              s_dma_arsize_i,
    input  wire [1:0]              s_dma_arburst_i,
    input  wire [3:0]              s_dma_arcache_i,
    input  wire [2:0]              s_dma_arprot_i,
    input  wire                    s_dma_arvalid_i,
    output wire                    s_dma_arready_o,
    output wire [LocalIdBits-1:0]  s_dma_rid_o,
    output wire [DataBytes*8-1:0]  s_dma_rdata_o,
    output wire [1:0]              s_dma_rresp_o,
    output wire                    s_dma_rlast_o,
    output wire                    s_dma_rvalid_o,
    input  wire                    s_dma_rready_i,
    // BAR1
    input  wire [IdBits-1:0]       s_ap_awid_i,
    input  wire [ApAddrBits-1:0]   s_ap_awaddr_i,
    input  wire [7:0]              s_ap_awlen_i,
    input  wire [2:0]              s_ap_awsize_i,
    input  wire [1:0]              s_ap_awburst_i,
    input  wire                    s_ap_awlock_i,
    input  wire [3:0]              s_ap_awcache_i,
    input  wire [2:0]              s_ap_awprot_i,
    input  wire                    s_ap_awvalid_i,
    output wire                    s_ap_awready_o,
    input  wire [DataBytes*8-1:0]  s_ap_wdata_i,
    input  wire [DataBytes-1:0]    s_ap_wstrb_i,
    input  wire                    s_ap_wlast_i,
    input  wire                    s_ap_wvalid_i,
    output wire                    s_ap_wready_o,
    output wire [IdBits-1:0]       s_ap_bid_o,
    output wire [1:0]              s_ap_bresp_o,
    output wire                    s_ap_bvalid_o,
    input  wire                    s_ap_bready_i,
    input  wire [IdBits-1:0]       s_ap_arid_i,
    input  wire [ApAddrBits-1:0]   s_ap_araddr_i,
    input  wire [7:0]              s_ap_arlen_i,
    input  wire [2:0]              s_ap_arsize_i,
    input  wire [1:0]              s_ap_arburst_i,
    input  wire                    s_ap_arlock_i,
    input  wire [3:0]              s_ap_arcache_i,
    input  wire [2:0]              s_ap_arprot_i,
    input  wire                    s_ap_arvalid_i,
    output wire                    s_ap_arready_o,
    output wire [IdBits-1:0]       s_ap_rid_o,
    output wire [DataBytes*8-1:0]  s_ap_rdata_o,
    output wire [1:0]              s_ap_rresp_o,
    output wire                    s_ap_rlast_o,
    output wire                    s_ap_rvalid_o,
    input  wire                    s_ap_rready_i,
    // VRAM
    output wire [IdBits-1:0]       m_vram_awid_o,
    output wire [VramAddrBits-1:0] m_vram_awaddr_o,
    output wire [7:0]              m_vram_awlen_o,
    output wire [2:0]              m_vram_awsize_o,
    output wire [1:0]              m_vram_awburst_o,
    output wire                    m_vram_awlock_o,
    output wire [3:0]              m_vram_awcache_o,
    output wire [2:0]              m_vram_awprot_o,
    output wire                    m_vram_awvalid_o,
    input  wire                    m_vram_awready_i,
    output wire [DataBytes*8-1:0]  m_vram_wdata_o,
    output wire [DataBytes-1:0]    m_vram_wstrb_o,
    output wire                    m_vram_wlast_o,
    output wire                    m_vram_wvalid_o,
    input  wire                    m_vram_wready_i,
    input  wire [IdBits-1:0]       m_vram_bid_i,
    input  wire [1:0]              m_vram_bresp_i,
    input  wire                    m_vram_bvalid_i,
    output wire                    m_vram_bready_o,
    output wire [IdBits-1:0]       m_vram_arid_o,
    output wire [VramAddrBits-1:0] m_vram_araddr_o,
    output wire [7:0]              m_vram_arlen_o,
    output wire [2:0]              m_vram_arsize_o,
    output wire [1:0]              m_vram_arburst_o,
    output wire                    m_vram_arlock_o,
    output wire [3:0]              m_vram_arcache_o,
    output wire [2:0]              m_vram_arprot_o,
    output wire                    m_vram_arvalid_o,
    input  wire                    m_vram_arready_i,
    input  wire [IdBits-1:0]       m_vram_rid_i,
    input  wire [DataBytes*8-1:0]  m_vram_rdata_i,
    input  wire [1:0]              m_vram_rresp_i,
    input  wire                    m_vram_rlast_i,
    input  wire                    m_vram_rvalid_i,
    output wire                    m_vram_rready_o
);
    localparam ArbIdBits = LocalIdBits + 2;  // the arbiter prepends a 2-bit master index
    localparam DW = DataBytes * 8;

    if (LocalIdBits != 2) begin : g_bad_local_id_bits
        `CMN_PARAM_ERROR("mc_top: LocalIdBits must be 2 (the page walker's and DMA's IDs)")
    end
    if (IdBits < ArbIdBits) begin : g_bad_id_bits
        `CMN_PARAM_ERROR("mc_top: IdBits must be at least 4 (arbiter select 2 + 2)")
    end

    // ---- aperture --------------------------------------------------------------------------
    wire [VramAddrBits-1:0] ap_awaddr, ap_araddr;
    wire [7:0]  ap_awlen, ap_arlen;
    wire [2:0]  ap_awsize, ap_arsize, ap_awprot, ap_arprot;
    wire [1:0]  ap_awburst, ap_arburst, ap_bresp, ap_rresp;
    wire        ap_awlock, ap_arlock;
    wire [3:0]  ap_awcache, ap_arcache;
    wire        ap_awvalid, ap_awready, ap_wvalid, ap_wready, ap_wlast, ap_bvalid, ap_bready;
    wire        ap_arvalid, ap_arready, ap_rvalid, ap_rready, ap_rlast;
    wire [DW-1:0] ap_wdata, ap_rdata;
    wire [DataBytes-1:0] ap_wstrb;
    wire        ap_fault_wr, ap_fault_rd, ap_idle;
    wire [VramAddrBits-1:0] ap_fault_wr_addr, ap_fault_rd_addr;

    mc_aperture #(
        .ApAddrBits(ApAddrBits), .VramAddrBits(VramAddrBits), .DataBytes(DataBytes),
        .IdBits(IdBits), .Outstanding(4)
    ) u_aperture (
        .clk_i(clk_i), .rst_i(rst_i),
        .window_base_i(ap_base_i), .vpr_en_i(vpr_en_i), .vpr_base_i(vpr_base_i),
        .vpr_limit_i(vpr_limit_i), .vram_pages_i(vram_pages_i),
        .fault_wr_o(ap_fault_wr), .fault_wr_addr_o(ap_fault_wr_addr),
        .fault_rd_o(ap_fault_rd), .fault_rd_addr_o(ap_fault_rd_addr), .idle_o(ap_idle),
        .s_ap_awid_i(s_ap_awid_i), .s_ap_awaddr_i(s_ap_awaddr_i), .s_ap_awlen_i(s_ap_awlen_i),
        .s_ap_awsize_i(s_ap_awsize_i), .s_ap_awburst_i(s_ap_awburst_i),
        .s_ap_awlock_i(s_ap_awlock_i), .s_ap_awcache_i(s_ap_awcache_i),
        .s_ap_awprot_i(s_ap_awprot_i), .s_ap_awvalid_i(s_ap_awvalid_i),
        .s_ap_awready_o(s_ap_awready_o),
        .s_ap_wdata_i(s_ap_wdata_i), .s_ap_wstrb_i(s_ap_wstrb_i), .s_ap_wlast_i(s_ap_wlast_i),
        .s_ap_wvalid_i(s_ap_wvalid_i), .s_ap_wready_o(s_ap_wready_o),
        .s_ap_bid_o(s_ap_bid_o), .s_ap_bresp_o(s_ap_bresp_o), .s_ap_bvalid_o(s_ap_bvalid_o),
        .s_ap_bready_i(s_ap_bready_i),
        .s_ap_arid_i(s_ap_arid_i), .s_ap_araddr_i(s_ap_araddr_i), .s_ap_arlen_i(s_ap_arlen_i),
        .s_ap_arsize_i(s_ap_arsize_i), .s_ap_arburst_i(s_ap_arburst_i),
        .s_ap_arlock_i(s_ap_arlock_i), .s_ap_arcache_i(s_ap_arcache_i),
        .s_ap_arprot_i(s_ap_arprot_i), .s_ap_arvalid_i(s_ap_arvalid_i),
        .s_ap_arready_o(s_ap_arready_o),
        .s_ap_rid_o(s_ap_rid_o), .s_ap_rdata_o(s_ap_rdata_o), .s_ap_rresp_o(s_ap_rresp_o),
        .s_ap_rlast_o(s_ap_rlast_o), .s_ap_rvalid_o(s_ap_rvalid_o), .s_ap_rready_i(s_ap_rready_i),
        .m_vram_awaddr_o(ap_awaddr), .m_vram_awlen_o(ap_awlen), .m_vram_awsize_o(ap_awsize),
        .m_vram_awburst_o(ap_awburst), .m_vram_awlock_o(ap_awlock), .m_vram_awcache_o(ap_awcache),
        .m_vram_awprot_o(ap_awprot), .m_vram_awvalid_o(ap_awvalid), .m_vram_awready_i(ap_awready),
        .m_vram_wdata_o(ap_wdata), .m_vram_wstrb_o(ap_wstrb), .m_vram_wlast_o(ap_wlast),
        .m_vram_wvalid_o(ap_wvalid), .m_vram_wready_i(ap_wready),
        .m_vram_bresp_i(ap_bresp), .m_vram_bvalid_i(ap_bvalid), .m_vram_bready_o(ap_bready),
        .m_vram_araddr_o(ap_araddr), .m_vram_arlen_o(ap_arlen), .m_vram_arsize_o(ap_arsize),
        .m_vram_arburst_o(ap_arburst), .m_vram_arlock_o(ap_arlock), .m_vram_arcache_o(ap_arcache),
        .m_vram_arprot_o(ap_arprot), .m_vram_arvalid_o(ap_arvalid), .m_vram_arready_i(ap_arready),
        .m_vram_rdata_i(ap_rdata), .m_vram_rresp_i(ap_rresp), .m_vram_rlast_i(ap_rlast),
        .m_vram_rvalid_i(ap_rvalid), .m_vram_rready_o(ap_rready)
    );

    // ---- MMU and its probe -----------------------------------------------------------------
    wire        req_valid, req_ready, req_write, req_physical;
    wire [47:0] req_va;
    wire        rsp_valid, rsp_ready, rsp_system, rsp_cacheable, rsp_fault;
    wire [51:0] rsp_pa;
    wire [4:0]  rsp_page_shift;
    wire [2:0]  rsp_fault_type;
    wire [0:0]  rsp_id;
    wire [31:0] walks;
    wire        mmu_idle;
    wire [LocalIdBits-1:0] pt_arid, pt_rid;
    wire [VramAddrBits-1:0] pt_araddr;
    wire [7:0]  pt_arlen;
    wire [2:0]  pt_arsize, pt_arprot;
    wire [1:0]  pt_arburst, pt_rresp;
    wire [3:0]  pt_arcache;
    wire        pt_arvalid, pt_arready, pt_rvalid, pt_rready, pt_rlast;
    wire [DW-1:0] pt_rdata;
    wire        probe_fault_pulse, probe_fault_write;
    wire [47:0] probe_fault_va;

    // Two requesters share the MMU: the probe (ID 0) and the DMA engine (ID 1). A request
    // waiting for req_ready keeps the grant, so what the MMU sees never changes under it.
    wire        pr_valid, pr_ready, pr_write, pr_physical;
    wire [47:0] pr_va;
    wire        pr_rsp_valid, pr_rsp_ready;
    logic       grant_hold_q, grant_q;
    logic [VramAddrBits-13:0] tlb_root_q;  // the root the TLB was filled for
    wire        grant = grant_hold_q ? grant_q : !pr_valid;  // 1: DMA engine
    wire        sel_enable = grant ? (dma_req_use_root_i || mmu_enable_i) : mmu_enable_i;
    wire [VramAddrBits-13:0] sel_root = (grant && dma_req_use_root_i) ?
                                        dma_req_root_i[VramAddrBits-1:12] : mmu_root_i[VramAddrBits-1:12];
    assign req_valid = grant ? dma_req_valid_i : pr_valid;
    assign req_va = grant ? dma_req_va_i : pr_va;
    assign req_write = grant ? dma_req_write_i : pr_write;
    assign req_physical = grant ? 1'b0 : pr_physical;
    assign pr_ready = !grant && req_ready;
    assign dma_req_ready_o = grant && req_ready;
    wire req_go = req_valid && req_ready;
    wire translated = sel_enable && !req_physical;
    // The walk starts after the request is taken, with the root registered here.
    wire root_change = req_go && translated && sel_root != tlb_root_q;

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            grant_hold_q <= 1'b0;
            grant_q <= 1'b0;
            tlb_root_q <= {(VramAddrBits-12){1'b0}};
        end else begin
            grant_hold_q <= req_valid && !req_ready;
            grant_q <= grant;
            if (req_go && translated) tlb_root_q <= sel_root;
        end
    end

    assign pr_rsp_valid = rsp_valid && !rsp_id[0];
    assign dma_rsp_valid_o = rsp_valid && rsp_id[0];
    assign rsp_ready = rsp_id[0] ? dma_rsp_ready_i : pr_rsp_ready;
    assign dma_rsp_pa_o = rsp_pa;
    assign dma_rsp_system_o = rsp_system;
    assign dma_rsp_cacheable_o = rsp_cacheable;
    assign dma_rsp_fault_o = rsp_fault;
    assign dma_rsp_fault_type_o = rsp_fault_type;

    mc_mmu #(
        .VramAddrBits(VramAddrBits), .IdBits(1), .TlbEntries(TlbEntries),
        .DataBytes(DataBytes), .PtIdBits(LocalIdBits), .PwcEntries(PwcEntries)
    ) u_mmu (
        .clk_i(clk_i), .rst_i(rst_i),
        .enable_i(sel_enable), .root_i({tlb_root_q, 12'h000}), .vram_pages_i(vram_pages_i),
        .tlb_invalidate_i(mmu_invalidate_i | soft_rst_i | dma_tlb_invalidate_i | root_change),
        .tlb_inv_page_i(1'b0), .tlb_inv_page_va_i(48'd0),
        .req_valid_i(req_valid), .req_ready_o(req_ready), .req_va_i(req_va),
        .req_write_i(req_write), .req_physical_i(req_physical), .req_id_i(grant),
        .rsp_valid_o(rsp_valid), .rsp_ready_i(rsp_ready), .rsp_id_o(rsp_id),
        .rsp_pa_o(rsp_pa), .rsp_system_o(rsp_system), .rsp_cacheable_o(rsp_cacheable),
        .rsp_page_shift_o(rsp_page_shift), .rsp_fault_o(rsp_fault),
        .rsp_fault_type_o(rsp_fault_type),
        .tlb_hits_o(tlb_hits_o), .tlb_misses_o(tlb_misses_o), .walks_o(walks),
        .idle_o(mmu_idle),
        .m_pt_arid_o(pt_arid), .m_pt_araddr_o(pt_araddr), .m_pt_arlen_o(pt_arlen),
        .m_pt_arsize_o(pt_arsize), .m_pt_arburst_o(pt_arburst), .m_pt_arcache_o(pt_arcache),
        .m_pt_arprot_o(pt_arprot), .m_pt_arvalid_o(pt_arvalid), .m_pt_arready_i(pt_arready),
        .m_pt_rid_i(pt_rid), .m_pt_rdata_i(pt_rdata), .m_pt_rresp_i(pt_rresp),
        .m_pt_rlast_i(pt_rlast), .m_pt_rvalid_i(pt_rvalid), .m_pt_rready_o(pt_rready)
    );

    mc_mmu_probe u_probe (
        .clk_i(clk_i), .rst_i(rst_i),
        .go_i(probe_go_i), .va_i(probe_va_i), .write_i(probe_write_i),
        .physical_i(probe_physical_i),
        .busy_o(probe_busy_o), .done_o(probe_done_o), .pa_o(probe_pa_o),
        .system_o(probe_system_o), .cacheable_o(probe_cacheable_o),
        .page_shift_o(probe_page_shift_o), .fault_o(probe_fault_o),
        .fault_type_o(probe_fault_type_o), .fault_pulse_o(probe_fault_pulse),
        .fault_va_o(probe_fault_va), .fault_write_o(probe_fault_write),
        .req_valid_o(pr_valid), .req_ready_i(pr_ready), .req_va_o(pr_va),
        .req_write_o(pr_write), .req_physical_o(pr_physical),
        .rsp_valid_i(pr_rsp_valid), .rsp_ready_o(pr_rsp_ready), .rsp_pa_i(rsp_pa),
        .rsp_system_i(rsp_system), .rsp_cacheable_i(rsp_cacheable),
        .rsp_page_shift_i(rsp_page_shift), .rsp_fault_i(rsp_fault),
        .rsp_fault_type_i(rsp_fault_type)
    );

    // ---- faults: aperture write, aperture read, MMU probe, DMA engine -----------------------
    localparam [2:0] FAULT_VPR = 3'd4;
    wire [2:0] fault_index;
    mc_fault #(.Sources(4), .AddrBits(48)) u_fault (
        .clk_i(clk_i), .rst_i(rst_i | soft_rst_i),
        .src_valid_i({dma_fault_i, probe_fault_pulse, ap_fault_rd, ap_fault_wr}),
        .src_type_i({dma_fault_type_i, probe_fault_type_o, FAULT_VPR, FAULT_VPR}),
        .src_addr_i({dma_fault_addr_i, probe_fault_va, {(48-VramAddrBits){1'b0}}, ap_fault_rd_addr,
                     {(48-VramAddrBits){1'b0}}, ap_fault_wr_addr}),
        .src_write_i({dma_fault_write_i, probe_fault_write, 1'b0, 1'b1}),
        .held_i(fault_held_i), .set_valid_o(fault_set_o), .type_o(fault_type_o),
        .source_o(fault_index), .write_o(fault_write_o), .addr_o(fault_addr_o),
        .count_o(fault_count_o), .irq_o(fault_irq_o)
    );
    // Register encoding: 0 aperture (either direction), 1 MMU probe, 2 DMA engine.
    assign fault_source_o = (fault_index == 3'd3) ? 3'd2 : (fault_index == 3'd2) ? 3'd1 : 3'd0;

    // ---- VRAM arbiter: master 0 aperture, 1 page walker, 2 DMA engine ------------------------
    wire [3*LocalIdBits-1:0] arb_bid, arb_rid;
    wire [5:0]  arb_bresp, arb_rresp;
    wire [2:0]  arb_bvalid, arb_rvalid, arb_rlast, arb_awready, arb_wready, arb_arready;
    wire [3*DW-1:0] arb_rdata;
    wire [ArbIdBits-1:0] vram_awid, vram_arid;
    localparam [LocalIdBits-1:0] ID0 = {LocalIdBits{1'b0}};

    mc_vram_arb #(
        .Masters(3), .AddrBits(VramAddrBits), .DataBytes(DataBytes), .IdBits(LocalIdBits),
        .WOutstanding(4)
    ) u_arb (
        .clk_i(clk_i), .rst_i(rst_i),
        .s_awid_i({s_dma_awid_i, ID0, ID0}),
        .s_awaddr_i({s_dma_awaddr_i, {VramAddrBits{1'b0}}, ap_awaddr}),
        .s_awlen_i({s_dma_awlen_i, 8'd0, ap_awlen}),
        .s_awsize_i({s_dma_awsize_i, 3'd0, ap_awsize}),
        .s_awburst_i({s_dma_awburst_i, 2'd0, ap_awburst}),
        .s_awcache_i({s_dma_awcache_i, 4'd0, ap_awcache}),
        .s_awprot_i({s_dma_awprot_i, 3'd0, ap_awprot}),
        .s_awvalid_i({s_dma_awvalid_i, 1'b0, ap_awvalid}),
        .s_awready_o(arb_awready),
        .s_wdata_i({s_dma_wdata_i, {DW{1'b0}}, ap_wdata}),
        .s_wstrb_i({s_dma_wstrb_i, {DataBytes{1'b0}}, ap_wstrb}),
        .s_wlast_i({s_dma_wlast_i, 1'b0, ap_wlast}),
        .s_wvalid_i({s_dma_wvalid_i, 1'b0, ap_wvalid}),
        .s_wready_o(arb_wready),
        .s_bid_o(arb_bid),
        .s_bresp_o(arb_bresp),
        .s_bvalid_o(arb_bvalid),
        .s_bready_i({s_dma_bready_i, 1'b1, ap_bready}),
        .s_arid_i({s_dma_arid_i, pt_arid, ID0}),
        .s_araddr_i({s_dma_araddr_i, pt_araddr, ap_araddr}),
        .s_arlen_i({s_dma_arlen_i, pt_arlen, ap_arlen}),
        .s_arsize_i({s_dma_arsize_i, pt_arsize, ap_arsize}),
        .s_arburst_i({s_dma_arburst_i, pt_arburst, ap_arburst}),
        .s_arcache_i({s_dma_arcache_i, pt_arcache, ap_arcache}),
        .s_arprot_i({s_dma_arprot_i, pt_arprot, ap_arprot}),
        .s_arvalid_i({s_dma_arvalid_i, pt_arvalid, ap_arvalid}),
        .s_arready_o(arb_arready),
        .s_rid_o(arb_rid),
        .s_rdata_o(arb_rdata),
        .s_rresp_o(arb_rresp),
        .s_rlast_o(arb_rlast),
        .s_rvalid_o(arb_rvalid),
        .s_rready_i({s_dma_rready_i, pt_rready, ap_rready}),
        .m_awid_o(vram_awid), .m_awaddr_o(m_vram_awaddr_o), .m_awlen_o(m_vram_awlen_o),
        .m_awsize_o(m_vram_awsize_o), .m_awburst_o(m_vram_awburst_o),
        .m_awcache_o(m_vram_awcache_o), .m_awprot_o(m_vram_awprot_o),
        .m_awvalid_o(m_vram_awvalid_o), .m_awready_i(m_vram_awready_i),
        .m_wdata_o(m_vram_wdata_o), .m_wstrb_o(m_vram_wstrb_o), .m_wlast_o(m_vram_wlast_o),
        .m_wvalid_o(m_vram_wvalid_o), .m_wready_i(m_vram_wready_i),
        .m_bid_i(m_vram_bid_i[ArbIdBits-1:0]), .m_bresp_i(m_vram_bresp_i),
        .m_bvalid_i(m_vram_bvalid_i), .m_bready_o(m_vram_bready_o),
        .m_arid_o(vram_arid), .m_araddr_o(m_vram_araddr_o), .m_arlen_o(m_vram_arlen_o),
        .m_arsize_o(m_vram_arsize_o), .m_arburst_o(m_vram_arburst_o),
        .m_arcache_o(m_vram_arcache_o), .m_arprot_o(m_vram_arprot_o),
        .m_arvalid_o(m_vram_arvalid_o), .m_arready_i(m_vram_arready_i),
        .m_rid_i(m_vram_rid_i[ArbIdBits-1:0]), .m_rdata_i(m_vram_rdata_i),
        .m_rresp_i(m_vram_rresp_i), .m_rlast_i(m_vram_rlast_i), .m_rvalid_i(m_vram_rvalid_i),
        .m_rready_o(m_vram_rready_o)
    );

    if (IdBits > ArbIdBits) begin : g_id_pad
        assign m_vram_awid_o = {{(IdBits-ArbIdBits){1'b0}}, vram_awid};
        assign m_vram_arid_o = {{(IdBits-ArbIdBits){1'b0}}, vram_arid};
        wire unused_id = ^{m_vram_bid_i[IdBits-1:ArbIdBits], m_vram_rid_i[IdBits-1:ArbIdBits]};
    end else begin : g_id_exact
        assign m_vram_awid_o = vram_awid;
        assign m_vram_arid_o = vram_arid;
    end
    // BAR1 is mapped uncached or write-combined: a CPU issues no exclusive accesses there, and
    // the aperture passes none on (AxLOCK is dropped); the DMA engine issues none.
    assign m_vram_awlock_o = 1'b0;
    assign m_vram_arlock_o = 1'b0;

    assign ap_awready = arb_awready[0];
    assign ap_wready = arb_wready[0];
    assign ap_bresp = m_vram_bresp_i;
    assign ap_bvalid = arb_bvalid[0];
    assign ap_arready = arb_arready[0];
    assign ap_rdata = arb_rdata[0 +: DW];
    assign ap_rresp = arb_rresp[1:0];
    assign ap_rlast = arb_rlast[0];
    assign ap_rvalid = arb_rvalid[0];
    assign pt_arready = arb_arready[1];
    assign pt_rid = arb_rid[LocalIdBits +: LocalIdBits];
    assign pt_rdata = arb_rdata[DW +: DW];
    assign pt_rresp = arb_rresp[3:2];
    assign pt_rlast = arb_rlast[1];
    assign pt_rvalid = arb_rvalid[1];
    assign s_dma_awready_o = arb_awready[2];
    assign s_dma_wready_o = arb_wready[2];
    assign s_dma_bid_o = arb_bid[2*LocalIdBits +: LocalIdBits];
    assign s_dma_bresp_o = arb_bresp[5:4];
    assign s_dma_bvalid_o = arb_bvalid[2];
    assign s_dma_arready_o = arb_arready[2];
    assign s_dma_rid_o = arb_rid[2*LocalIdBits +: LocalIdBits];
    assign s_dma_rdata_o = arb_rdata[2*DW +: DW];
    assign s_dma_rresp_o = arb_rresp[5:4];
    assign s_dma_rlast_o = arb_rlast[2];
    assign s_dma_rvalid_o = arb_rvalid[2];

    assign idle_o = ap_idle & mmu_idle & ~probe_busy_o;

    wire unused_ok = ^{rsp_id, walks, arb_bid[2*LocalIdBits-1:0], arb_bresp[3:0],
                       arb_rid[0 +: LocalIdBits], arb_awready[1], arb_wready[1], arb_bvalid[1],
                       ap_awlock, ap_arlock, dma_req_root_i[11:0], mmu_root_i[11:0]};
endmodule
`default_nettype wire
