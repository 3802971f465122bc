// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// gpu_core: the gpuref device, as a chip would contain it: BAR0 registers and interrupts
// (rtl/csr), the memory controller (rtl/mc) and the DMA engine (rtl/dma).
// Contract at the ports (one clock domain, synchronous active-high reset):
//   s_csr_*   AXI4-Lite slave, 32-bit, BAR0 (see rtl/csr/REGISTERS.md).
//   s_ap_*    AXI4 slave, BAR1 CPU aperture: a movable window into VRAM with the VPR enforced
//             (rtl/mc/mc_aperture).
//   m_host_*  AXI4 master into host memory, 64-bit addresses: the DMA engine (rings, DMA
//             buffers, fences, system-memory pages). ID 0, INCR bursts of at most 16 beats that
//             never cross 4 KiB; BREADY and RREADY are always high.
//   m_vram_*  AXI4 master to VRAM: aperture, page walker and DMA engine through the memory
//             controller's arbiter. VRAM answers from address 0 up to its size (below).
//   vram_bytes_i  strap: the bytes of VRAM behind m_vram, taken while rst_i is high (as a chip
//             samples its straps at reset) and held until the next rst_i; change it only then.
//             Rounded down to 64 KiB and clipped to the parameter VramBytes (the most this
//             build addresses). The register MC_VRAM_SIZE reports the result; the memory
//             controller treats every VRAM address at or past it as out of range (BAR1 answers
//             DECERR, the MMU and the DMA engine fault; rtl/mc/README.md "VRAM size"). Boards
//             tie it to their memory's size; the simulation sets it per run.
//   irq_o     level interrupt (see IRQ_STATE / IRQ_ENABLE / IRQ_TEST).
//   Write order on every port, against any legal partner (AXI4 IHI0022 A3.3.1): m_host and
//   m_vram present a burst's W without waiting for AWREADY (the slave may hold AWREADY until it
//   has W, or the whole burst), and AWVALID never waits for WREADY; s_csr takes AW and W in
//   either order; s_ap takes an AW without waiting for W, and W that came first once its AW is in.
module gpu_core #(
    parameter CsrAddrBits  = 16,      // BAR0: 64 KiB
    parameter ApAddrBits   = 28,      // BAR1: 256 MiB aperture
    parameter HostAddrBits = 64,      // host bus addresses
    parameter VramAddrBits = 32,      // VRAM: up to 4 GiB
    parameter DataBytes    = 8,       // AXI4 data bus width in bytes (s_ap, m_host, m_vram): 8
    parameter IdBits       = 4,       // AXI4 ID width
    parameter VramBytes    = 48'h2000_0000,  // most VRAM vram_bytes_i may strap (512 MiB: twice BAR1)
    parameter TlbEntries   = 16,      // GPU MMU TLB entries
    parameter DmaFifoBeats = 128,     // DMA data mover buffer, 8-byte beats (32..256, power of two)
    parameter DmaMaxReads  = 8,       // DMA read bursts in flight (power of two >= 4)
    parameter DmaMaxWrites = 8,       // DMA write bursts awaiting B (power of two >= 2)
    parameter BoardId      = 8'd0,    // ID_BUILD.BOARD
    parameter BuildStamp   = 24'd0,   // ID_BUILD.STAMP (24 bits; a wider value, e.g. an integer
                                      // from Verilator's -G, is cut to them)
    parameter BuildDate    = 32'd0    // ID_DATE: the build's date as BCD YYYYMMDD, 0 for none
) (
    input  wire                    clk_i,
    input  wire                    rst_i,  // synchronous, active high
    input  wire [47:0]             vram_bytes_i,  // strap: VRAM bytes, taken during rst_i
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
    // AXI4 master into host memory (the DMA engine)
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
    // AXI4 master to VRAM (through the memory controller's arbiter)
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
    if (DataBytes != 8) begin : g_bad_data_bytes
        `CMN_PARAM_ERROR("gpu_core: DataBytes must be 8 (the DMA engine moves 8-byte beats)")
    end

    if (VramAddrBits != 32) begin : g_bad_vram_bits
        `CMN_PARAM_ERROR("gpu_core: VramAddrBits must be 32 (the MC_*, VPR_* and MMU_ROOT fields)")
    end
    // 64 KiB granules: VramBytes / 16 (the VPR the driver sets aside) stays page-aligned.
    localparam [48:0] VramMax = {1'b0, VramBytes};
    if (VramMax < 49'h2_0000 || VramMax[15:0] != 16'd0 || VramMax > (49'd1 << VramAddrBits)) begin : g_bad_vram_bytes
        `CMN_PARAM_ERROR("gpu_core: VramBytes must be a multiple of 64 KiB, 128 KiB..2^VramAddrBits")
    end
    if (HostAddrBits != 64) begin : g_bad_host_bits
        `CMN_PARAM_ERROR("gpu_core: HostAddrBits must be 64 (the DMA_* host address registers)")
    end
    if (IdBits < 4) begin : g_bad_id_bits
        `CMN_PARAM_ERROR("gpu_core: IdBits must be at least 4 (VRAM arbiter: 2 select + 2)")
    end

    wire soft_rst;

    // The VRAM size strap, in 64 KiB units, clipped to VramBytes and held from reset on.
    localparam [31:0] VramMaxUnits = VramMax[47:16];
    wire [31:0] strap_units = vram_bytes_i[47:16];
    wire [31:0] vram_units = (strap_units > VramMaxUnits) ? VramMaxUnits : strap_units;
    logic [16:0] vram_units_q;  // VramAddrBits is 32: at most 2^16 units
    always_ff @(posedge clk_i) begin
        if (rst_i) vram_units_q <= vram_units[16:0];
    end
    wire [VramAddrBits-12:0] vram_pages = {vram_units_q, 4'h0};
    // Bits below 64 KiB are rounded away; above 2^16 units VramMax has clipped them to zero.
    wire unused_strap = ^{vram_bytes_i[15:0], vram_units[31:17]};
    wire mc_idle, dma_idle;

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
    // Register fields between csr_block and dma_top.
    wire        dma_fence_irq, dma_preempted_irq, dma_fault_irq;
    wire        dma_enable, dma_preempt, dma_reset, dma_ts_lo_read;
    wire        dma_preempted, dma_hung, dma_faulted, dma_resetting, dma_fault_write;
    wire [3:0]  dma_state, dma_ring_log2, dma_fault_type;
    wire [2:0]  dma_fault_mmu_type;
    wire [15:0] dma_ring_head, dma_ring_tail, dma_stop_head, dma_stop_tail, dma_fault_entry;
    wire [63:0] dma_ring_base, dma_fence_addr, dma_fault_addr, dma_timestamp, dma_perf_bytes;
    wire [31:0] dma_completed_fence, dma_preempt_fence, dma_stop_offset, dma_stop_done;
    wire [31:0] dma_watchdog, dma_perf_busy, dma_perf_stalls, dma_perf_cmds, dma_perf_last_cmd;
    // DMA engine and memory controller.
    wire        dma_req_valid, dma_req_ready, dma_req_write, dma_req_use_root;
    wire [47:0] dma_req_va;
    wire [VramAddrBits-1:0] dma_req_root;
    wire        dma_rsp_valid, dma_rsp_ready, dma_rsp_system, dma_rsp_cacheable, dma_rsp_fault;
    wire [51:0] dma_rsp_pa;
    wire [2:0]  dma_rsp_fault_type;
    wire        dma_tlb_invalidate, dma_mc_fault, dma_mc_fault_write;
    wire [2:0]  dma_mc_fault_type;
    wire [47:0] dma_mc_fault_addr;
    localparam DmaIdBits = 2;  // an arbiter master's ID bits (mc_top LocalIdBits)
    wire [DmaIdBits-1:0]    dv_awid, dv_bid, dv_arid, dv_rid;
    wire [VramAddrBits-1:0] dv_awaddr, dv_araddr;
    wire [7:0]  dv_awlen, dv_arlen;
    wire [2:0]  dv_awsize, dv_arsize, dv_awprot, dv_arprot;
    wire [1:0]  dv_awburst, dv_arburst, dv_bresp, dv_rresp;
    wire [3:0]  dv_awcache, dv_arcache;
    wire        dv_awvalid, dv_awready, dv_wlast, dv_wvalid, dv_wready, dv_bvalid, dv_bready;
    wire        dv_arvalid, dv_arready, dv_rlast, dv_rvalid, dv_rready;
    wire [63:0] dv_wdata, dv_rdata;
    wire [7:0]  dv_wstrb;

    csr_block #(
        .AddrBits(CsrAddrBits),
        .BoardId(BoardId),
        .BuildStamp(BuildStamp[23:0]),
        .BuildDate(BuildDate[31:0])
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
        .idle_i(mc_idle && dma_idle),
        .soft_rst_o(soft_rst),
        .irq_o(irq_o),
        .mc_vram_bytes_i({15'd0, vram_units_q, 16'h0000}),
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
        .probe_pa_i(probe_pa),
        .dma_fence_irq_i(dma_fence_irq),
        .dma_preempted_irq_i(dma_preempted_irq),
        .dma_fault_irq_i(dma_fault_irq),
        .dma_enable_o(dma_enable),
        .dma_preempt_o(dma_preempt),
        .dma_reset_o(dma_reset),
        .dma_idle_i(dma_idle),
        .dma_preempted_i(dma_preempted),
        .dma_hung_i(dma_hung),
        .dma_faulted_i(dma_faulted),
        .dma_resetting_i(dma_resetting),
        .dma_state_i(dma_state),
        .dma_ring_base_o(dma_ring_base),
        .dma_ring_log2_o(dma_ring_log2),
        .dma_ring_head_i(dma_ring_head),
        .dma_ring_tail_o(dma_ring_tail),
        .dma_fence_addr_o(dma_fence_addr),
        .dma_completed_fence_i(dma_completed_fence),
        .dma_preempt_fence_o(dma_preempt_fence),
        .dma_stop_head_i(dma_stop_head),
        .dma_stop_tail_i(dma_stop_tail),
        .dma_stop_offset_i(dma_stop_offset),
        .dma_stop_done_i(dma_stop_done),
        .dma_watchdog_o(dma_watchdog),
        .dma_fault_type_i(dma_fault_type),
        .dma_fault_mmu_type_i(dma_fault_mmu_type),
        .dma_fault_write_i(dma_fault_write),
        .dma_fault_entry_i(dma_fault_entry),
        .dma_fault_addr_i(dma_fault_addr),
        .dma_ts_lo_read_o(dma_ts_lo_read),
        .dma_timestamp_i(dma_timestamp),
        .dma_perf_busy_i(dma_perf_busy),
        .dma_perf_bytes_i(dma_perf_bytes),
        .dma_perf_stalls_i(dma_perf_stalls),
        .dma_perf_cmds_i(dma_perf_cmds),
        .dma_perf_last_cmd_i(dma_perf_last_cmd)
    );

    mc_top #(
        .ApAddrBits(ApAddrBits), .VramAddrBits(VramAddrBits), .DataBytes(DataBytes),
        .IdBits(IdBits), .TlbEntries(TlbEntries), .LocalIdBits(DmaIdBits)
    ) u_mc (
        .clk_i(clk_i), .rst_i(rst_i), .soft_rst_i(soft_rst),
        .ap_base_i({ap_base_page, 12'h000}), .vpr_en_i(vpr_enable),
        .vpr_base_i(vpr_base_page), .vpr_limit_i(vpr_limit_page), .vram_pages_i(vram_pages),
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
        .dma_req_valid_i(dma_req_valid), .dma_req_ready_o(dma_req_ready),
        .dma_req_va_i(dma_req_va), .dma_req_write_i(dma_req_write),
        .dma_req_use_root_i(dma_req_use_root), .dma_req_root_i(dma_req_root),
        .dma_rsp_valid_o(dma_rsp_valid), .dma_rsp_ready_i(dma_rsp_ready),
        .dma_rsp_pa_o(dma_rsp_pa), .dma_rsp_system_o(dma_rsp_system),
        .dma_rsp_cacheable_o(dma_rsp_cacheable), .dma_rsp_fault_o(dma_rsp_fault),
        .dma_rsp_fault_type_o(dma_rsp_fault_type), .dma_tlb_invalidate_i(dma_tlb_invalidate),
        .dma_fault_i(dma_mc_fault), .dma_fault_type_i(dma_mc_fault_type),
        .dma_fault_addr_i(dma_mc_fault_addr), .dma_fault_write_i(dma_mc_fault_write),
        .s_dma_awid_i(dv_awid), .s_dma_awaddr_i(dv_awaddr), .s_dma_awlen_i(dv_awlen),
        .s_dma_awsize_i(dv_awsize), .s_dma_awburst_i(dv_awburst), .s_dma_awcache_i(dv_awcache),
        .s_dma_awprot_i(dv_awprot), .s_dma_awvalid_i(dv_awvalid), .s_dma_awready_o(dv_awready),
        .s_dma_wdata_i(dv_wdata), .s_dma_wstrb_i(dv_wstrb), .s_dma_wlast_i(dv_wlast),
        .s_dma_wvalid_i(dv_wvalid), .s_dma_wready_o(dv_wready),
        .s_dma_bid_o(dv_bid), .s_dma_bresp_o(dv_bresp), .s_dma_bvalid_o(dv_bvalid),
        .s_dma_bready_i(dv_bready),
        .s_dma_arid_i(dv_arid), .s_dma_araddr_i(dv_araddr), .s_dma_arlen_i(dv_arlen),
        .s_dma_arsize_i(dv_arsize), .s_dma_arburst_i(dv_arburst), .s_dma_arcache_i(dv_arcache),
        .s_dma_arprot_i(dv_arprot), .s_dma_arvalid_i(dv_arvalid), .s_dma_arready_o(dv_arready),
        .s_dma_rid_o(dv_rid), .s_dma_rdata_o(dv_rdata), .s_dma_rresp_o(dv_rresp),
        .s_dma_rlast_o(dv_rlast), .s_dma_rvalid_o(dv_rvalid), .s_dma_rready_i(dv_rready),
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

    dma_top #(
        .HostIdBits(IdBits), .VramIdBits(DmaIdBits), .VramAddrBits(VramAddrBits),
        .FifoBeats(DmaFifoBeats), .MaxReads(DmaMaxReads), .MaxWrites(DmaMaxWrites)
    ) u_dma (
        .clk_i(clk_i), .rst_i(rst_i), .soft_rst_i(soft_rst),
        .enable_i(dma_enable), .preempt_i(dma_preempt), .reset_i(dma_reset),
        .ring_base_i(dma_ring_base), .ring_log2_i(dma_ring_log2), .ring_tail_i(dma_ring_tail),
        .fence_addr_i(dma_fence_addr), .preempt_fence_i(dma_preempt_fence),
        .watchdog_i(dma_watchdog), .ts_lo_read_i(dma_ts_lo_read),
        .idle_o(dma_idle), .preempted_o(dma_preempted), .hung_o(dma_hung),
        .faulted_o(dma_faulted), .resetting_o(dma_resetting), .state_o(dma_state),
        .ring_head_o(dma_ring_head), .completed_fence_o(dma_completed_fence),
        .stop_head_o(dma_stop_head), .stop_tail_o(dma_stop_tail),
        .stop_offset_o(dma_stop_offset), .stop_done_o(dma_stop_done),
        .fault_type_o(dma_fault_type), .fault_mmu_type_o(dma_fault_mmu_type),
        .fault_write_o(dma_fault_write), .fault_entry_o(dma_fault_entry),
        .fault_addr_o(dma_fault_addr), .timestamp_o(dma_timestamp),
        .perf_busy_o(dma_perf_busy), .perf_bytes_o(dma_perf_bytes),
        .perf_stalls_o(dma_perf_stalls), .perf_cmds_o(dma_perf_cmds),
        .perf_last_cmd_o(dma_perf_last_cmd),
        .irq_fence_o(dma_fence_irq), .irq_preempted_o(dma_preempted_irq),
        .irq_fault_o(dma_fault_irq),
        .vpr_en_i(vpr_enable), .vpr_base_i(vpr_base_page), .vpr_limit_i(vpr_limit_page),
        .vram_pages_i(vram_pages),
        .mmu_req_valid_o(dma_req_valid), .mmu_req_ready_i(dma_req_ready),
        .mmu_req_va_o(dma_req_va), .mmu_req_write_o(dma_req_write),
        .mmu_req_use_root_o(dma_req_use_root), .mmu_req_root_o(dma_req_root),
        .mmu_rsp_valid_i(dma_rsp_valid), .mmu_rsp_ready_o(dma_rsp_ready),
        .mmu_rsp_pa_i(dma_rsp_pa), .mmu_rsp_system_i(dma_rsp_system),
        .mmu_rsp_cacheable_i(dma_rsp_cacheable), .mmu_rsp_fault_i(dma_rsp_fault),
        .mmu_rsp_fault_type_i(dma_rsp_fault_type), .tlb_invalidate_o(dma_tlb_invalidate),
        .mc_fault_o(dma_mc_fault), .mc_fault_type_o(dma_mc_fault_type),
        .mc_fault_addr_o(dma_mc_fault_addr), .mc_fault_write_o(dma_mc_fault_write),
        .m_host_awid_o(m_host_awid_o), .m_host_awaddr_o(m_host_awaddr_o),
        .m_host_awlen_o(m_host_awlen_o), .m_host_awsize_o(m_host_awsize_o),
        .m_host_awburst_o(m_host_awburst_o), .m_host_awlock_o(m_host_awlock_o),
        .m_host_awcache_o(m_host_awcache_o), .m_host_awprot_o(m_host_awprot_o),
        .m_host_awvalid_o(m_host_awvalid_o), .m_host_awready_i(m_host_awready_i),
        .m_host_wdata_o(m_host_wdata_o), .m_host_wstrb_o(m_host_wstrb_o),
        .m_host_wlast_o(m_host_wlast_o), .m_host_wvalid_o(m_host_wvalid_o),
        .m_host_wready_i(m_host_wready_i), .m_host_bid_i(m_host_bid_i),
        .m_host_bresp_i(m_host_bresp_i), .m_host_bvalid_i(m_host_bvalid_i),
        .m_host_bready_o(m_host_bready_o), .m_host_arid_o(m_host_arid_o),
        .m_host_araddr_o(m_host_araddr_o), .m_host_arlen_o(m_host_arlen_o),
        .m_host_arsize_o(m_host_arsize_o), .m_host_arburst_o(m_host_arburst_o),
        .m_host_arlock_o(m_host_arlock_o), .m_host_arcache_o(m_host_arcache_o),
        .m_host_arprot_o(m_host_arprot_o), .m_host_arvalid_o(m_host_arvalid_o),
        .m_host_arready_i(m_host_arready_i), .m_host_rid_i(m_host_rid_i),
        .m_host_rdata_i(m_host_rdata_i), .m_host_rresp_i(m_host_rresp_i),
        .m_host_rlast_i(m_host_rlast_i), .m_host_rvalid_i(m_host_rvalid_i),
        .m_host_rready_o(m_host_rready_o),
        .m_vram_awid_o(dv_awid), .m_vram_awaddr_o(dv_awaddr), .m_vram_awlen_o(dv_awlen),
        .m_vram_awsize_o(dv_awsize), .m_vram_awburst_o(dv_awburst),
        .m_vram_awcache_o(dv_awcache), .m_vram_awprot_o(dv_awprot),
        .m_vram_awvalid_o(dv_awvalid), .m_vram_awready_i(dv_awready),
        .m_vram_wdata_o(dv_wdata), .m_vram_wstrb_o(dv_wstrb), .m_vram_wlast_o(dv_wlast),
        .m_vram_wvalid_o(dv_wvalid), .m_vram_wready_i(dv_wready),
        .m_vram_bid_i(dv_bid), .m_vram_bresp_i(dv_bresp), .m_vram_bvalid_i(dv_bvalid),
        .m_vram_bready_o(dv_bready),
        .m_vram_arid_o(dv_arid), .m_vram_araddr_o(dv_araddr), .m_vram_arlen_o(dv_arlen),
        .m_vram_arsize_o(dv_arsize), .m_vram_arburst_o(dv_arburst),
        .m_vram_arcache_o(dv_arcache), .m_vram_arprot_o(dv_arprot),
        .m_vram_arvalid_o(dv_arvalid), .m_vram_arready_i(dv_arready),
        .m_vram_rid_i(dv_rid), .m_vram_rdata_i(dv_rdata), .m_vram_rresp_i(dv_rresp),
        .m_vram_rlast_i(dv_rlast), .m_vram_rvalid_i(dv_rvalid), .m_vram_rready_o(dv_rready)
    );
endmodule
`default_nettype wire
