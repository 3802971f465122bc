// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// dma_top: gpuref's DMA engine: a ring of entries in host memory, each running a DMA buffer of
// commands (NOP, COPY, FILL, FENCE, INDIRECT, TLB_INVALIDATE, TIMESTAMP, WAIT) with fences,
// preemption, a watchdog and engine reset. rtl/dma/README.md is the contract.
// Blocks: dma_seq (sequencer) with dma_ring (pointers, entry check) and dma_decode (command
// check); dma_mover (every memory access: bursts, beat buffer, VPR copy check) with its
// dma_agen read and write sides; dma_xlate (addresses to ports, through the MMU); dma_perf
// (timestamp, watchdog, counters).
// Contract at the ports:
//   - cfg/status: the DMA_* register fields (rtl/csr/REGISTERS.md); preempt_i and reset_i
//     are one-cycle strobes; ts_lo_read_i pulses when DMA_TIMESTAMP_LO is read (latches the
//     high word shown in timestamp_o). irq_*_o: one-cycle interrupt source pulses.
//   - soft_rst_i (core soft reset): the engine resets as for reset_i (draining the bus) and
//     then holds its registers at their reset values; idle_o tells the soft-reset sequencer.
//   - mmu_*: translation requests to the memory controller's MMU (valid/ready both ways), with
//     the ring entry's root when mmu_req_use_root_o. tlb_invalidate_o: one-cycle strobe.
//   - mc_fault_*: a one-cycle report for the memory controller's fault unit (MMU, VPR).
//   - m_host_*: AXI4 master, 64-bit addresses, ID 0. m_vram_*: AXI4 master toward the VRAM
//     arbiter (no AxLOCK), ID 0. INCR bursts of 8-byte beats, at most 16, never across 4 KiB.
module dma_top #(
    parameter HostIdBits   = 4,
    parameter VramIdBits   = 2,
    parameter VramAddrBits = 32,
    parameter FifoBeats    = 128,  // data mover buffer (8-byte beats), 32..256
    parameter MaxReads     = 8,    // read bursts in flight
    parameter MaxWrites    = 8     // write bursts awaiting B
) (
    input  wire                    clk_i,
    input  wire                    rst_i,       // synchronous, active high
    input  wire                    soft_rst_i,
    // registers
    input  wire                    enable_i,
    input  wire                    preempt_i,
    input  wire                    reset_i,
    input  wire [63:0]             ring_base_i,
    input  wire [3:0]              ring_log2_i,
    input  wire [15:0]             ring_tail_i,
    input  wire [63:0]             fence_addr_i,
    input  wire [31:0]             preempt_fence_i,
    input  wire [31:0]             watchdog_i,
    input  wire                    ts_lo_read_i,
    output wire                    idle_o,
    output wire                    preempted_o,
    output wire                    hung_o,
    output wire                    faulted_o,
    output wire                    resetting_o,
    output wire [3:0]              state_o,
    output wire [15:0]             ring_head_o,
    output wire [31:0]             completed_fence_o,
    output wire [15:0]             stop_head_o,
    output wire [15:0]             stop_tail_o,
    output wire [31:0]             stop_offset_o,
    output wire [31:0]             stop_done_o,
    output wire [3:0]              fault_type_o,
    output wire [2:0]              fault_mmu_type_o,
    output wire                    fault_write_o,
    output wire [15:0]             fault_entry_o,
    output wire [63:0]             fault_addr_o,
    output wire [63:0]             timestamp_o,
    output wire [31:0]             perf_busy_o,
    output wire [63:0]             perf_bytes_o,
    output wire [31:0]             perf_stalls_o,
    output wire [31:0]             perf_cmds_o,
    output wire [31:0]             perf_last_cmd_o,
    output wire                    irq_fence_o,
    output wire                    irq_preempted_o,
    output wire                    irq_fault_o,
    // VPR (VPR_BASE, VPR_LIMIT, VPR_CTRL.ENABLE)
    input  wire                    vpr_en_i,
    input  wire [VramAddrBits-13:0] vpr_base_i,
    input  wire [VramAddrBits-13:0] vpr_limit_i,
    input  wire [VramAddrBits-12:0] vram_pages_i,  // VRAM size in 4 KiB pages (a strap)
    // memory controller
    output wire                    mmu_req_valid_o,
    input  wire                    mmu_req_ready_i,
    output wire [47:0]             mmu_req_va_o,
    output wire                    mmu_req_write_o,
    output wire                    mmu_req_use_root_o,
    output wire [VramAddrBits-1:0] mmu_req_root_o,
    input  wire                    mmu_rsp_valid_i,
    output wire                    mmu_rsp_ready_o,
    input  wire [51:0]             mmu_rsp_pa_i,
    input  wire                    mmu_rsp_system_i,
    input  wire                    mmu_rsp_cacheable_i,
    input  wire                    mmu_rsp_fault_i,
    input  wire [2:0]              mmu_rsp_fault_type_i,
    output wire                    tlb_invalidate_o,
    output wire                    mc_fault_o,
    output wire [2:0]              mc_fault_type_o,
    output wire [47:0]             mc_fault_addr_o,
    output wire                    mc_fault_write_o,
    // AXI4 master into host memory
    output wire [HostIdBits-1:0]   m_host_awid_o,
    output wire [63:0]             m_host_awaddr_o,
    output wire [7:0]              m_host_awlen_o,
    output wire [2:0]              m_host_awsize_o,
    output wire [1:0]              m_host_awburst_o,
    output wire                    m_host_awlock_o,
    output wire [3:0]              m_host_awcache_o,
    output wire [2:0]              m_host_awprot_o,
    output wire                    m_host_awvalid_o,
    input  wire                    m_host_awready_i,
    output wire [63:0]             m_host_wdata_o,
    output wire [7:0]              m_host_wstrb_o,
    output wire                    m_host_wlast_o,
    output wire                    m_host_wvalid_o,
    input  wire                    m_host_wready_i,
    input  wire [HostIdBits-1:0]   m_host_bid_i,
    input  wire [1:0]              m_host_bresp_i,
    input  wire                    m_host_bvalid_i,
    output wire                    m_host_bready_o,
    output wire [HostIdBits-1:0]   m_host_arid_o,
    output wire [63:0]             m_host_araddr_o,
    output wire [7:0]              m_host_arlen_o,
    output wire [2:0]              m_host_arsize_o,
    output wire [1:0]              m_host_arburst_o,
    output wire                    m_host_arlock_o,
    output wire [3:0]              m_host_arcache_o,
    output wire [2:0]              m_host_arprot_o,
    output wire                    m_host_arvalid_o,
    input  wire                    m_host_arready_i,
    input  wire [HostIdBits-1:0]   m_host_rid_i,
    input  wire [63:0]             m_host_rdata_i,
    input  wire [1:0]              m_host_rresp_i,
    input  wire                    m_host_rlast_i,
    input  wire                    m_host_rvalid_i,
    output wire                    m_host_rready_o,
    // AXI4 master toward VRAM (the memory controller's arbiter)
    output wire [VramIdBits-1:0]   m_vram_awid_o,
    output wire [VramAddrBits-1:0] m_vram_awaddr_o,
    output wire [7:0]              m_vram_awlen_o,
    output wire [2:0]              m_vram_awsize_o,
    output wire [1:0]              m_vram_awburst_o,
    output wire [3:0]              m_vram_awcache_o,
    output wire [2:0]              m_vram_awprot_o,
    output wire                    m_vram_awvalid_o,
    input  wire                    m_vram_awready_i,
    output wire [63:0]             m_vram_wdata_o,
    output wire [7:0]              m_vram_wstrb_o,
    output wire                    m_vram_wlast_o,
    output wire                    m_vram_wvalid_o,
    input  wire                    m_vram_wready_i,
    input  wire [VramIdBits-1:0]   m_vram_bid_i,
    input  wire [1:0]              m_vram_bresp_i,
    input  wire                    m_vram_bvalid_i,
    output wire                    m_vram_bready_o,
    output wire [VramIdBits-1:0]   m_vram_arid_o,
    output wire [VramAddrBits-1:0] m_vram_araddr_o,
    output wire [7:0]              m_vram_arlen_o,
    output wire [2:0]              m_vram_arsize_o,
    output wire [1:0]              m_vram_arburst_o,
    output wire [3:0]              m_vram_arcache_o,
    output wire [2:0]              m_vram_arprot_o,
    output wire                    m_vram_arvalid_o,
    input  wire                    m_vram_arready_i,
    input  wire [VramIdBits-1:0]   m_vram_rid_i,
    input  wire [63:0]             m_vram_rdata_i,
    input  wire [1:0]              m_vram_rresp_i,
    input  wire                    m_vram_rlast_i,
    input  wire                    m_vram_rvalid_i,
    output wire                    m_vram_rready_o
);
    // ring and decode
    wire [15:0]  head, tail;
    wire         work, advance, drop;
    wire [63:0]  entry_addr, entry_buf;
    wire [255:0] entry, cmd;
    wire         entry_bad, entry_use_root, entry_irq, entry_priv, priv;
    wire [31:0]  entry_len, entry_fence;
    wire [51:0]  entry_root, root;
    wire         use_root;
    wire [2:0]   avail, dec_nq;
    wire         in_indirect, dec_irq, dec_bad, dec_unpriv;
    wire [7:0]   dec_op;
    wire [1:0]   dec_src, dec_dst;
    wire [31:0]  dec_imm;
    // data mover
    wire         op_valid, op_ready, op_src_mem, op_dst_sink, op_vpr, op_data, op_prog;
    wire [1:0]   op_src_space, op_dst_space;
    wire [63:0]  op_src_addr, op_dst_addr, op_pattern;
    wire [60:0]  op_beats;
    wire         stop, zero_strb, op_active, op_done, op_stopped;
    wire         sink_valid, sink_ready, wr_pending, mover_idle;
    wire [63:0]  sink_data;
    wire [31:0]  done_bytes;
    wire         mv_progress, mv_bytes, mv_stall;
    wire         mv_fault, mv_fault_write;
    wire [3:0]   mv_fault_type;
    wire [2:0]   mv_fault_mmu;
    wire [63:0]  mv_fault_addr;
    // translation
    wire [1:0]   xreq_valid, xreq_ready, xreq_write, xrsp_valid;
    wire [3:0]   xreq_space;
    wire [127:0] xreq_addr;
    wire         xrsp_host, xrsp_cacheable, xrsp_vpr, xrsp_fault, xlate_idle;
    wire [63:0]  xrsp_pa;
    wire [3:0]   xrsp_type;
    wire [2:0]   xrsp_mmu;
    // clocks and counters
    wire         hang, busy, armed, seq_progress, cmd_done;
    wire [63:0]  ts, cmd_start;

    dma_ring u_ring (
        .clk_i(clk_i), .rst_i(rst_i), .clear_i(soft_rst_i && idle_o),
        .base_i(ring_base_i), .log2_i(ring_log2_i), .tail_i(ring_tail_i),
        .advance_i(advance), .drop_i(drop), .head_o(head), .tail_o(tail), .work_o(work),
        .entry_addr_o(entry_addr), .entry_i(entry), .bad_o(entry_bad), .buf_addr_o(entry_buf),
        .buf_len_o(entry_len), .fence_o(entry_fence), .use_root_o(entry_use_root),
        .root_o(entry_root), .irq_o(entry_irq), .priv_o(entry_priv)
    );

    dma_decode u_decode (
        .cmd_i(cmd), .avail_i(avail), .in_indirect_i(in_indirect), .priv_i(priv),
        .op_o(dec_op), .nq_o(dec_nq), .src_space_o(dec_src), .dst_space_o(dec_dst),
        .irq_o(dec_irq), .imm_o(dec_imm), .bad_o(dec_bad), .unpriv_o(dec_unpriv)
    );

    dma_seq u_seq (
        .clk_i(clk_i), .rst_i(rst_i), .soft_rst_i(soft_rst_i),
        .enable_i(enable_i), .preempt_i(preempt_i), .reset_i(reset_i),
        .fence_addr_i(fence_addr_i), .preempt_fence_i(preempt_fence_i),
        .idle_o(idle_o), .preempted_o(preempted_o), .hung_o(hung_o), .faulted_o(faulted_o),
        .resetting_o(resetting_o), .state_o(state_o), .completed_fence_o(completed_fence_o),
        .stop_head_o(stop_head_o), .stop_tail_o(stop_tail_o), .stop_offset_o(stop_offset_o),
        .stop_done_o(stop_done_o), .fault_type_o(fault_type_o), .fault_mmu_type_o(fault_mmu_type_o),
        .fault_write_o(fault_write_o), .fault_entry_o(fault_entry_o), .fault_addr_o(fault_addr_o),
        .irq_fence_o(irq_fence_o), .irq_preempted_o(irq_preempted_o), .irq_fault_o(irq_fault_o),
        .mc_fault_o(mc_fault_o), .mc_fault_type_o(mc_fault_type_o),
        .mc_fault_addr_o(mc_fault_addr_o), .mc_fault_write_o(mc_fault_write_o),
        .tlb_invalidate_o(tlb_invalidate_o),
        .head_i(head), .tail_i(tail), .work_i(work), .entry_addr_i(entry_addr), .entry_o(entry),
        .entry_bad_i(entry_bad), .entry_buf_i(entry_buf), .entry_len_i(entry_len),
        .entry_fence_i(entry_fence), .entry_use_root_i(entry_use_root),
        .entry_root_i(entry_root), .entry_irq_i(entry_irq), .entry_priv_i(entry_priv),
        .advance_o(advance), .drop_o(drop), .use_root_o(use_root), .root_o(root), .priv_o(priv),
        .cmd_o(cmd), .avail_o(avail), .in_indirect_o(in_indirect), .dec_op_i(dec_op),
        .dec_nq_i(dec_nq), .dec_src_i(dec_src), .dec_dst_i(dec_dst), .dec_irq_i(dec_irq),
        .dec_imm_i(dec_imm), .dec_bad_i(dec_bad), .dec_unpriv_i(dec_unpriv),
        .op_valid_o(op_valid), .op_ready_i(op_ready), .op_src_mem_o(op_src_mem),
        .op_src_space_o(op_src_space), .op_src_addr_o(op_src_addr), .op_dst_sink_o(op_dst_sink),
        .op_dst_space_o(op_dst_space), .op_dst_addr_o(op_dst_addr), .op_beats_o(op_beats),
        .op_pattern_o(op_pattern), .op_vpr_check_o(op_vpr), .op_data_o(op_data),
        .op_progress_o(op_prog), .stop_o(stop), .zero_strb_o(zero_strb),
        .op_active_i(op_active), .op_done_i(op_done), .sink_valid_i(sink_valid),
        .sink_data_i(sink_data), .sink_ready_o(sink_ready), .wr_pending_i(wr_pending),
        .mover_idle_i(mover_idle), .xlate_idle_i(xlate_idle), .done_bytes_i(done_bytes),
        .fault_i(mv_fault), .fault_type_i(mv_fault_type), .fault_mmu_type_i(mv_fault_mmu),
        .fault_write_i(mv_fault_write), .fault_addr_i(mv_fault_addr),
        .hang_i(hang), .timestamp_i(ts), .busy_o(busy), .armed_o(armed),
        .progress_o(seq_progress), .cmd_done_o(cmd_done), .cmd_start_o(cmd_start)
    );

    dma_mover #(
        .FifoBeats(FifoBeats), .MaxReads(MaxReads), .MaxWrites(MaxWrites), .HostIdBits(HostIdBits),
        .VramIdBits(VramIdBits), .VramAddrBits(VramAddrBits)
    ) u_mover (
        .clk_i(clk_i), .rst_i(rst_i),
        .op_valid_i(op_valid), .op_ready_o(op_ready), .op_src_mem_i(op_src_mem),
        .op_src_space_i(op_src_space), .op_src_addr_i(op_src_addr), .op_dst_sink_i(op_dst_sink),
        .op_dst_space_i(op_dst_space), .op_dst_addr_i(op_dst_addr), .op_beats_i(op_beats),
        .op_pattern_i(op_pattern), .op_vpr_check_i(op_vpr), .op_data_i(op_data),
        .op_progress_i(op_prog), .stop_i(stop), .zero_strb_i(zero_strb),
        .op_active_o(op_active), .op_done_o(op_done), .op_stopped_o(op_stopped),
        .sink_valid_o(sink_valid), .sink_data_o(sink_data), .sink_ready_i(sink_ready),
        .wr_pending_o(wr_pending), .idle_o(mover_idle), .done_bytes_o(done_bytes),
        .progress_o(mv_progress), .bytes_o(mv_bytes), .stall_o(mv_stall),
        .fault_o(mv_fault), .fault_type_o(mv_fault_type), .fault_mmu_type_o(mv_fault_mmu),
        .fault_write_o(mv_fault_write), .fault_addr_o(mv_fault_addr),
        .xreq_valid_o(xreq_valid), .xreq_ready_i(xreq_ready), .xreq_space_o(xreq_space),
        .xreq_addr_o(xreq_addr), .xreq_write_o(xreq_write), .xrsp_valid_i(xrsp_valid),
        .xrsp_host_i(xrsp_host), .xrsp_pa_i(xrsp_pa), .xrsp_cacheable_i(xrsp_cacheable),
        .xrsp_vpr_i(xrsp_vpr), .xrsp_fault_i(xrsp_fault), .xrsp_type_i(xrsp_type),
        .xrsp_mmu_type_i(xrsp_mmu),
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
        .m_vram_awid_o(m_vram_awid_o), .m_vram_awaddr_o(m_vram_awaddr_o),
        .m_vram_awlen_o(m_vram_awlen_o), .m_vram_awsize_o(m_vram_awsize_o),
        .m_vram_awburst_o(m_vram_awburst_o), .m_vram_awcache_o(m_vram_awcache_o),
        .m_vram_awprot_o(m_vram_awprot_o), .m_vram_awvalid_o(m_vram_awvalid_o),
        .m_vram_awready_i(m_vram_awready_i), .m_vram_wdata_o(m_vram_wdata_o),
        .m_vram_wstrb_o(m_vram_wstrb_o), .m_vram_wlast_o(m_vram_wlast_o),
        .m_vram_wvalid_o(m_vram_wvalid_o), .m_vram_wready_i(m_vram_wready_i),
        .m_vram_bid_i(m_vram_bid_i), .m_vram_bresp_i(m_vram_bresp_i),
        .m_vram_bvalid_i(m_vram_bvalid_i), .m_vram_bready_o(m_vram_bready_o),
        .m_vram_arid_o(m_vram_arid_o), .m_vram_araddr_o(m_vram_araddr_o),
        .m_vram_arlen_o(m_vram_arlen_o), .m_vram_arsize_o(m_vram_arsize_o),
        .m_vram_arburst_o(m_vram_arburst_o), .m_vram_arcache_o(m_vram_arcache_o),
        .m_vram_arprot_o(m_vram_arprot_o), .m_vram_arvalid_o(m_vram_arvalid_o),
        .m_vram_arready_i(m_vram_arready_i), .m_vram_rid_i(m_vram_rid_i),
        .m_vram_rdata_i(m_vram_rdata_i), .m_vram_rresp_i(m_vram_rresp_i),
        .m_vram_rlast_i(m_vram_rlast_i), .m_vram_rvalid_i(m_vram_rvalid_i),
        .m_vram_rready_o(m_vram_rready_o)
    );

    dma_xlate #(.VramAddrBits(VramAddrBits)) u_xlate (
        .clk_i(clk_i), .rst_i(rst_i), .use_root_i(use_root), .root_i(root),
        .vpr_en_i(vpr_en_i), .vpr_base_i(vpr_base_i), .vpr_limit_i(vpr_limit_i),
        .vram_pages_i(vram_pages_i),
        .req_valid_i(xreq_valid), .req_ready_o(xreq_ready), .req_space_i(xreq_space),
        .req_addr_i(xreq_addr), .req_write_i(xreq_write), .rsp_valid_o(xrsp_valid),
        .rsp_host_o(xrsp_host), .rsp_pa_o(xrsp_pa), .rsp_cacheable_o(xrsp_cacheable),
        .rsp_vpr_o(xrsp_vpr), .rsp_fault_o(xrsp_fault), .rsp_type_o(xrsp_type),
        .rsp_mmu_type_o(xrsp_mmu), .idle_o(xlate_idle),
        .mmu_req_valid_o(mmu_req_valid_o), .mmu_req_ready_i(mmu_req_ready_i),
        .mmu_req_va_o(mmu_req_va_o), .mmu_req_write_o(mmu_req_write_o),
        .mmu_req_use_root_o(mmu_req_use_root_o), .mmu_req_root_o(mmu_req_root_o),
        .mmu_rsp_valid_i(mmu_rsp_valid_i), .mmu_rsp_ready_o(mmu_rsp_ready_o),
        .mmu_rsp_pa_i(mmu_rsp_pa_i), .mmu_rsp_system_i(mmu_rsp_system_i),
        .mmu_rsp_cacheable_i(mmu_rsp_cacheable_i), .mmu_rsp_fault_i(mmu_rsp_fault_i),
        .mmu_rsp_fault_type_i(mmu_rsp_fault_type_i)
    );

    dma_perf u_perf (
        .clk_i(clk_i), .rst_i(rst_i), .clear_i(soft_rst_i),
        .busy_i(busy), .armed_i(armed), .progress_i(mv_progress || seq_progress),
        .watchdog_i(watchdog_i), .hang_o(hang), .bytes_i(mv_bytes), .stall_i(mv_stall),
        .cmd_done_i(cmd_done), .cmd_start_i(cmd_start), .ts_lo_read_i(ts_lo_read_i),
        .timestamp_o(ts), .timestamp_reg_o(timestamp_o), .busy_o(perf_busy_o),
        .bytes_o(perf_bytes_o), .stalls_o(perf_stalls_o), .cmds_o(perf_cmds_o),
        .last_cmd_o(perf_last_cmd_o)
    );

    assign ring_head_o = head;

    wire unused_ok = ^{op_stopped};  // the sequencer tells stops from their cause, not this
endmodule
`default_nettype wire
