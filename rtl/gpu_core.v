`default_nettype none
`include "cmn_param.vh"
// gpu_core: the gpuref device, as a chip would contain it: BAR0 registers and interrupts
// (rtl/csr), the memory controller (rtl/mc); the DMA engine (rtl/dma) plugs into m_host_*.
// Contract at the ports (one clock domain, synchronous active-high reset):
//   s_csr_*   AXI4-Lite slave, 32-bit, BAR0 (see rtl/csr/REGISTERS.md).
//   s_ap_*    AXI4 slave, BAR1 CPU aperture: a movable window into VRAM with the VPR enforced
//             (rtl/mc/mc_aperture).
//   m_host_*  AXI4 master into host memory, 64-bit addresses. Idle until rtl/dma is built in:
//             no requests, BREADY and RREADY held high.
//   m_vram_*  AXI4 master to VRAM (aperture and page walker today). VramBytes of VRAM answer
//             from address 0; the register MC_VRAM_SIZE tells the host.
//   irq_o     level interrupt (see IRQ_STATE / IRQ_ENABLE / IRQ_TEST).
module gpu_core #(
    parameter CsrAddrBits  = 16,      // BAR0: 64 KiB
    parameter ApAddrBits   = 28,      // BAR1: 256 MiB aperture
    parameter HostAddrBits = 64,      // host bus addresses
    parameter VramAddrBits = 32,      // VRAM: up to 4 GiB
    parameter DataBytes    = 8,       // AXI4 data bus width in bytes (s_ap, m_host, m_vram)
    parameter IdBits       = 4,       // AXI4 ID width
    parameter VramBytes    = 48'h2000_0000,  // VRAM behind m_vram_* (512 MiB: twice BAR1)
    parameter TlbEntries   = 16,      // GPU MMU TLB entries
    parameter BoardId      = 8'd0,    // ID_BUILD.BOARD
    parameter BuildStamp   = 24'd0    // ID_BUILD.STAMP
) (
    input  wire                    clk_i,
    input  wire                    rst_i,  // synchronous, active high
    // BAR0: AXI4-Lite CSR slave
    input  wire [CsrAddrBits-1:0]  s_csr_awaddr_i,
    input  wire [2:0]              s_csr_awprot_i,
    input  wire                    s_csr_awvalid_i,
    output wire                    s_csr_awready_o,
    input  wire [31:0]             s_csr_wdata_i,
    input  wire [3:0]              s_csr_wstrb_i,
    input  wire                    s_csr_wvalid_i,
    output wire                    s_csr_wready_o,
    output wire [1:0]              s_csr_bresp_o,
    output wire                    s_csr_bvalid_o,
    input  wire                    s_csr_bready_i,
    input  wire [CsrAddrBits-1:0]  s_csr_araddr_i,
    input  wire [2:0]              s_csr_arprot_i,
    input  wire                    s_csr_arvalid_i,
    output wire                    s_csr_arready_o,
    output wire [31:0]             s_csr_rdata_o,
    output wire [1:0]              s_csr_rresp_o,
    output wire                    s_csr_rvalid_o,
    input  wire                    s_csr_rready_i,
    // BAR1: AXI4 CPU aperture into VRAM (answers DECERR until rtl/mc is built in)
    input  wire [IdBits-1:0]       s_ap_awid_i,
    input  wire [ApAddrBits-1:0]    s_ap_awaddr_i,
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
    input  wire [ApAddrBits-1:0]    s_ap_araddr_i,
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
    // AXI4 master into host memory (idle until rtl/dma is built in)
    output wire [IdBits-1:0]       m_host_awid_o,
    output wire [HostAddrBits-1:0]    m_host_awaddr_o,
    output wire [7:0]              m_host_awlen_o,
    output wire [2:0]              m_host_awsize_o,
    output wire [1:0]              m_host_awburst_o,
    output wire                    m_host_awlock_o,
    output wire [3:0]              m_host_awcache_o,
    output wire [2:0]              m_host_awprot_o,
    output wire                    m_host_awvalid_o,
    input  wire                    m_host_awready_i,
    output wire [DataBytes*8-1:0]  m_host_wdata_o,
    output wire [DataBytes-1:0]    m_host_wstrb_o,
    output wire                    m_host_wlast_o,
    output wire                    m_host_wvalid_o,
    input  wire                    m_host_wready_i,
    input  wire [IdBits-1:0]       m_host_bid_i,
    input  wire [1:0]              m_host_bresp_i,
    input  wire                    m_host_bvalid_i,
    output wire                    m_host_bready_o,
    output wire [IdBits-1:0]       m_host_arid_o,
    output wire [HostAddrBits-1:0]    m_host_araddr_o,
    output wire [7:0]              m_host_arlen_o,
    output wire [2:0]              m_host_arsize_o,
    output wire [1:0]              m_host_arburst_o,
    output wire                    m_host_arlock_o,
    output wire [3:0]              m_host_arcache_o,
    output wire [2:0]              m_host_arprot_o,
    output wire                    m_host_arvalid_o,
    input  wire                    m_host_arready_i,
    input  wire [IdBits-1:0]       m_host_rid_i,
    input  wire [DataBytes*8-1:0]  m_host_rdata_i,
    input  wire [1:0]              m_host_rresp_i,
    input  wire                    m_host_rlast_i,
    input  wire                    m_host_rvalid_i,
    output wire                    m_host_rready_o,
    // AXI4 master to VRAM (idle until rtl/mc is built in)
    output wire [IdBits-1:0]       m_vram_awid_o,
    output wire [VramAddrBits-1:0]    m_vram_awaddr_o,
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
    output wire [VramAddrBits-1:0]    m_vram_araddr_o,
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
    output wire                    m_vram_rready_o,
    output wire                    irq_o   // level, high while an enabled interrupt is pending
);
    if (DataBytes != 8 && DataBytes != 16 && DataBytes != 32) begin : g_bad_data_bytes
        `CMN_PARAM_ERROR("gpu_core: DataBytes must be 8, 16 or 32")
    end

    if (VramAddrBits != 32) begin : g_bad_vram_bits
        `CMN_PARAM_ERROR("gpu_core: VramAddrBits must be 32 (the MC_*, VPR_* and MMU_ROOT fields)")
    end
    if (IdBits < 3) begin : g_bad_id_bits
        `CMN_PARAM_ERROR("gpu_core: IdBits must be at least 3")
    end

    wire soft_rst;
    wire mc_idle;

    // Register fields between csr_block and mc_top.
    wire [19:0] ap_base_page, vpr_base_page, vpr_limit_page, mmu_root_page;
    wire        vpr_enable, mmu_enable, mmu_invalidate;
    wire        fault_irq, fault_set, fault_valid, fault_write;
    wire [2:0]  fault_type, fault_source;
    wire [47:0] fault_addr;
    wire [31:0] fault_count, tlb_hits, tlb_misses;
    wire [47:0] probe_va;
    wire        probe_go, probe_write, probe_physical;
    wire        probe_busy, probe_done, probe_fault, probe_system, probe_cacheable;
    wire [2:0]  probe_fault_type;
    wire [4:0]  probe_page_shift;
    wire [51:0] probe_pa;

    csr_block #(
        .AddrBits(CsrAddrBits),
        .BoardId(BoardId),
        .BuildStamp(BuildStamp)
    ) u_csr (
        .clk_i(clk_i), .rst_i(rst_i),
        .s_csr_awaddr_i(s_csr_awaddr_i), .s_csr_awprot_i(s_csr_awprot_i),
        .s_csr_awvalid_i(s_csr_awvalid_i), .s_csr_awready_o(s_csr_awready_o),
        .s_csr_wdata_i(s_csr_wdata_i), .s_csr_wstrb_i(s_csr_wstrb_i),
        .s_csr_wvalid_i(s_csr_wvalid_i), .s_csr_wready_o(s_csr_wready_o),
        .s_csr_bresp_o(s_csr_bresp_o), .s_csr_bvalid_o(s_csr_bvalid_o),
        .s_csr_bready_i(s_csr_bready_i),
        .s_csr_araddr_i(s_csr_araddr_i), .s_csr_arprot_i(s_csr_arprot_i),
        .s_csr_arvalid_i(s_csr_arvalid_i), .s_csr_arready_o(s_csr_arready_o),
        .s_csr_rdata_o(s_csr_rdata_o), .s_csr_rresp_o(s_csr_rresp_o),
        .s_csr_rvalid_o(s_csr_rvalid_o), .s_csr_rready_i(s_csr_rready_i),
        .idle_i(mc_idle),
        .soft_rst_o(soft_rst),
        .irq_o(irq_o),
        .mc_vram_bytes_i(VramBytes),
        .mc_ap_bytes_i(32'd1 << ApAddrBits),
        .mc_ap_base_page_o(ap_base_page),
        .vpr_base_page_o(vpr_base_page),
        .vpr_limit_page_o(vpr_limit_page),
        .vpr_enable_o(vpr_enable),
        .mc_fault_irq_i(fault_irq),
        .mc_fault_set_i(fault_set),
        .mc_fault_valid_o(fault_valid),
        .mc_fault_type_i(fault_type),
        .mc_fault_source_i(fault_source),
        .mc_fault_write_i(fault_write),
        .mc_fault_addr_i(fault_addr),
        .mc_fault_count_i(fault_count),
        .mmu_enable_o(mmu_enable),
        .mmu_root_page_o(mmu_root_page),
        .mmu_invalidate_o(mmu_invalidate),
        .mmu_tlb_hits_i(tlb_hits),
        .mmu_tlb_misses_i(tlb_misses),
        .probe_va_o(probe_va),
        .probe_go_o(probe_go),
        .probe_write_o(probe_write),
        .probe_physical_o(probe_physical),
        .probe_busy_i(probe_busy),
        .probe_done_i(probe_done),
        .probe_fault_i(probe_fault),
        .probe_fault_type_i(probe_fault_type),
        .probe_system_i(probe_system),
        .probe_cacheable_i(probe_cacheable),
        .probe_page_shift_i(probe_page_shift),
        .probe_pa_i(probe_pa)
    );

    mc_top #(
        .ApAddrBits(ApAddrBits), .VramAddrBits(VramAddrBits), .DataBytes(DataBytes),
        .IdBits(IdBits), .TlbEntries(TlbEntries)
    ) u_mc (
        .clk_i(clk_i), .rst_i(rst_i), .soft_rst_i(soft_rst),
        .ap_base_i({ap_base_page, 12'h000}), .vpr_en_i(vpr_enable),
        .vpr_base_i(vpr_base_page), .vpr_limit_i(vpr_limit_page),
        .mmu_enable_i(mmu_enable), .mmu_root_i({mmu_root_page, 12'h000}),
        .mmu_invalidate_i(mmu_invalidate),
        .probe_go_i(probe_go), .probe_va_i(probe_va), .probe_write_i(probe_write),
        .probe_physical_i(probe_physical),
        .probe_busy_o(probe_busy), .probe_done_o(probe_done), .probe_fault_o(probe_fault),
        .probe_fault_type_o(probe_fault_type), .probe_system_o(probe_system),
        .probe_cacheable_o(probe_cacheable), .probe_page_shift_o(probe_page_shift),
        .probe_pa_o(probe_pa), .tlb_hits_o(tlb_hits), .tlb_misses_o(tlb_misses),
        .fault_held_i(fault_valid), .fault_set_o(fault_set), .fault_type_o(fault_type),
        .fault_source_o(fault_source), .fault_write_o(fault_write), .fault_addr_o(fault_addr),
        .fault_count_o(fault_count), .fault_irq_o(fault_irq), .idle_o(mc_idle),
        .s_ap_awid_i(s_ap_awid_i), .s_ap_awaddr_i(s_ap_awaddr_i), .s_ap_awlen_i(s_ap_awlen_i),
        .s_ap_awsize_i(s_ap_awsize_i), .s_ap_awburst_i(s_ap_awburst_i), .s_ap_awlock_i(s_ap_awlock_i),
        .s_ap_awcache_i(s_ap_awcache_i), .s_ap_awprot_i(s_ap_awprot_i), .s_ap_awvalid_i(s_ap_awvalid_i),
        .s_ap_awready_o(s_ap_awready_o), .s_ap_arid_i(s_ap_arid_i), .s_ap_araddr_i(s_ap_araddr_i),
        .s_ap_arlen_i(s_ap_arlen_i), .s_ap_arsize_i(s_ap_arsize_i), .s_ap_arburst_i(s_ap_arburst_i),
        .s_ap_arlock_i(s_ap_arlock_i), .s_ap_arcache_i(s_ap_arcache_i), .s_ap_arprot_i(s_ap_arprot_i),
        .s_ap_arvalid_i(s_ap_arvalid_i), .s_ap_arready_o(s_ap_arready_o), .s_ap_wdata_i(s_ap_wdata_i),
        .s_ap_wstrb_i(s_ap_wstrb_i), .s_ap_wlast_i(s_ap_wlast_i), .s_ap_wvalid_i(s_ap_wvalid_i),
        .s_ap_wready_o(s_ap_wready_o), .s_ap_bid_o(s_ap_bid_o), .s_ap_bresp_o(s_ap_bresp_o),
        .s_ap_bvalid_o(s_ap_bvalid_o), .s_ap_bready_i(s_ap_bready_i), .s_ap_rid_o(s_ap_rid_o),
        .s_ap_rdata_o(s_ap_rdata_o), .s_ap_rresp_o(s_ap_rresp_o), .s_ap_rlast_o(s_ap_rlast_o),
        .s_ap_rvalid_o(s_ap_rvalid_o), .s_ap_rready_i(s_ap_rready_i), .m_vram_awid_o(m_vram_awid_o),
        .m_vram_awaddr_o(m_vram_awaddr_o), .m_vram_awlen_o(m_vram_awlen_o), .m_vram_awsize_o(m_vram_awsize_o),
        .m_vram_awburst_o(m_vram_awburst_o), .m_vram_awlock_o(m_vram_awlock_o), .m_vram_awcache_o(m_vram_awcache_o),
        .m_vram_awprot_o(m_vram_awprot_o), .m_vram_awvalid_o(m_vram_awvalid_o), .m_vram_awready_i(m_vram_awready_i),
        .m_vram_arid_o(m_vram_arid_o), .m_vram_araddr_o(m_vram_araddr_o), .m_vram_arlen_o(m_vram_arlen_o),
        .m_vram_arsize_o(m_vram_arsize_o), .m_vram_arburst_o(m_vram_arburst_o), .m_vram_arlock_o(m_vram_arlock_o),
        .m_vram_arcache_o(m_vram_arcache_o), .m_vram_arprot_o(m_vram_arprot_o), .m_vram_arvalid_o(m_vram_arvalid_o),
        .m_vram_arready_i(m_vram_arready_i), .m_vram_wdata_o(m_vram_wdata_o), .m_vram_wstrb_o(m_vram_wstrb_o),
        .m_vram_wlast_o(m_vram_wlast_o), .m_vram_wvalid_o(m_vram_wvalid_o), .m_vram_wready_i(m_vram_wready_i),
        .m_vram_bid_i(m_vram_bid_i), .m_vram_bresp_i(m_vram_bresp_i), .m_vram_bvalid_i(m_vram_bvalid_i),
        .m_vram_bready_o(m_vram_bready_o), .m_vram_rid_i(m_vram_rid_i), .m_vram_rdata_i(m_vram_rdata_i),
        .m_vram_rresp_i(m_vram_rresp_i), .m_vram_rlast_i(m_vram_rlast_i), .m_vram_rvalid_i(m_vram_rvalid_i),
        .m_vram_rready_o(m_vram_rready_o)
    );

    assign m_host_awid_o = {IdBits{1'b0}};
    assign m_host_awaddr_o = {HostAddrBits{1'b0}};
    assign m_host_awlen_o = 8'd0;
    assign m_host_awsize_o = 3'd0;
    assign m_host_awburst_o = 2'b01;
    assign m_host_awlock_o = 1'b0;
    assign m_host_awcache_o = 4'd0;
    assign m_host_awprot_o = 3'd0;
    assign m_host_awvalid_o = 1'b0;
    assign m_host_arid_o = {IdBits{1'b0}};
    assign m_host_araddr_o = {HostAddrBits{1'b0}};
    assign m_host_arlen_o = 8'd0;
    assign m_host_arsize_o = 3'd0;
    assign m_host_arburst_o = 2'b01;
    assign m_host_arlock_o = 1'b0;
    assign m_host_arcache_o = 4'd0;
    assign m_host_arprot_o = 3'd0;
    assign m_host_arvalid_o = 1'b0;
    assign m_host_wdata_o = {DataBytes*8{1'b0}};
    assign m_host_wstrb_o = {DataBytes{1'b0}};
    assign m_host_wlast_o = 1'b0;
    assign m_host_wvalid_o = 1'b0;
    assign m_host_bready_o = 1'b1;  // a stray response is drained, never blocks
    assign m_host_rready_o = 1'b1;


    // Responses on the idle host master are drained and ignored.
    wire unused_ok = ^{m_host_awready_i, m_host_wready_i, m_host_bid_i, m_host_bresp_i,
                       m_host_bvalid_i, m_host_arready_i, m_host_rid_i, m_host_rdata_i,
                       m_host_rresp_i, m_host_rlast_i, m_host_rvalid_i};
endmodule
`default_nettype wire
