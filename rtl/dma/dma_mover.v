// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// dma_mover: the DMA engine's data mover. Every memory access of the engine is one of its
// operations: COPY (memory to memory), FILL (a 64-bit pattern to memory), a qword write (FENCE,
// TIMESTAMP, fence records: a one-beat FILL) and reads into the sequencer (ring entries,
// commands, WAIT: destination "sink").
// How: a read side (dma_agen) issues INCR bursts (<= 16 beats, 128-byte aligned, never across
// 4 KiB) while the beat buffer (dma_fifo) has room reserved for all their data, up to MaxReads
// in flight, so R is never stalled; a write side (dma_agen) loads a burst's AW only once all its
// data is buffered and presents its W beats from then on, with the AW or after it but never
// waiting for AWREADY, so W streams without waiting for the read side or the slave's AW.
// Contract:
//   - op_*: one operation at a time (op_ready_o while none is active). A new operation's first
//     read waits for every earlier write's response (a command sees the writes of the ones
//     before it). op_done_o pulses when it ends: all beats written (their responses may still
//     be due: wr_pending_o) or delivered to the sink; or early, with op_stopped_o, after
//     stop_i or a fault, once nothing it issued is outstanding except write responses.
//   - stop_i (level): no new address on either side (a COPY or FILL stops at a burst
//     boundary); bursts already sent complete; read data not yet written is dropped.
//   - zero_strb_i (level): W beats still owed to loaded AWs go with zero strobes (engine reset).
//   - AXI write order (IHI0022 A3.3.1): a burst's data is buffered before its AW is loaded, so
//     its W beats are presented from the cycle its AWVALID rises (behind the beats of earlier
//     bursts), whether AWREADY has come or not; AWVALID never waits for WREADY. W follows the
//     AWs in order. Any legal slave works, one that takes W before AW or holds AWREADY until
//     the whole burst's W is in included.
//   - Reads and writes each stay on one port at a time: a side waits for its outstanding bursts
//     before using the other port (AXI orders responses per port only). One ID per port.
//   - A COPY with op_vpr_check_i: a write burst whose data was read from a VRAM page inside the
//     VPR and whose destination is host memory or VRAM outside the VPR is not sent: fault 5,
//     address = source address of its first qword. Write bursts are cut where the source pages
//     enter or leave the VPR, so everything before that qword can be written.
//   - fault_o (one cycle, first fault of an operation): translation (agen), error response
//     (3; R: the beat's address, B: the burst's), VPR (5). The faulting operation stops as with
//     stop_i. fault_addr_o is in the command's space.
//   - stall_o: a bubble in the write stream of a COPY or FILL (op_data_i): a cycle after the
//     operation's first W beat, before the cycle it ends, without a W handshake. For an
//     operation that runs to completion these are the cycles between its first and last W
//     beats that carried none, whatever held them (a translation, READY low, the read side
//     behind); the cycles before its first beat (read latency, first translations) are not.
//   - idle_o: no operation and nothing outstanding.
module dma_mover #(
    parameter FifoBeats    = 128,  // beat buffer, power of two >= 32
    parameter MaxReads     = 8,    // read bursts in flight, power of two >= 4
    parameter MaxWrites    = 8,    // write bursts awaiting B, power of two >= 2
    parameter HostIdBits   = 4,
    parameter VramIdBits   = 2,
    parameter VramAddrBits = 32
) (
    input  wire                    clk_i,
    input  wire                    rst_i,       // synchronous, active high
    // operation
    input  wire                    op_valid_i,
    output wire                    op_ready_o,
    input  wire                    op_src_mem_i,    // 0: the pattern
    input  wire [1:0]              op_src_space_i,
    input  wire [63:0]             op_src_addr_i,
    input  wire                    op_dst_sink_i,   // 1: to the sink stream
    input  wire [1:0]              op_dst_space_i,
    input  wire [63:0]             op_dst_addr_i,
    input  wire [BeatBits-1:0]     op_beats_i,
    input  wire [63:0]             op_pattern_i,
    input  wire                    op_vpr_check_i,
    input  wire                    op_data_i,       // COPY/FILL: counted in bytes_o
    input  wire                    op_progress_i,   // its beats are watchdog progress
    input  wire                    stop_i,
    input  wire                    zero_strb_i,
    output wire                    op_active_o,
    output wire                    op_done_o,
    output wire                    op_stopped_o,
    output wire                    sink_valid_o,
    output wire [63:0]             sink_data_o,
    input  wire                    sink_ready_i,
    output wire                    wr_pending_o,
    output wire                    idle_o,
    output wire [31:0]             done_bytes_o,   // bytes the current/last operation wrote
    output wire                    progress_o,
    output wire                    bytes_o,        // 8 bytes of a COPY/FILL written
    output wire                    stall_o,        // a bubble in a COPY/FILL's write stream
    output wire                    fault_o,
    output wire [3:0]              fault_type_o,
    output wire [2:0]              fault_mmu_type_o,
    output wire                    fault_write_o,
    output wire [63:0]             fault_addr_o,
    // translation (dma_xlate): requester 0 read side, 1 write side
    output wire [1:0]              xreq_valid_o,
    input  wire [1:0]              xreq_ready_i,
    output wire [3:0]              xreq_space_o,
    output wire [127:0]            xreq_addr_o,
    output wire [1:0]              xreq_write_o,
    input  wire [1:0]              xrsp_valid_i,
    input  wire                    xrsp_host_i,
    input  wire [63:0]             xrsp_pa_i,
    input  wire                    xrsp_cacheable_i,
    input  wire                    xrsp_vpr_i,
    input  wire                    xrsp_fault_i,
    input  wire [3:0]              xrsp_type_i,
    input  wire [2:0]              xrsp_mmu_type_i,
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
    localparam BeatBits = 61;  // beat counts: a 64-bit byte size in qwords
    localparam CntBits = $clog2(FifoBeats) + 1;
    localparam BndBits = 11;   // rd_page_idx - wr_bst_idx in [-512, FifoBeats]: FifoBeats < 512
    localparam RPtr = $clog2(MaxReads);
    localparam WPtr = $clog2(MaxWrites);
    localparam [3:0] T_BUS = 4'd3;
    localparam [3:0] T_VPR = 4'd5;

    if (FifoBeats < 32 || FifoBeats > 256 || (FifoBeats & (FifoBeats - 1)) != 0) begin : g_bad_fifo
        `CMN_PARAM_ERROR("dma_mover: FifoBeats must be a power of two, 32..256")
    end
    if (MaxReads < 4 || (MaxReads & (MaxReads - 1)) != 0) begin : g_bad_reads
        `CMN_PARAM_ERROR("dma_mover: MaxReads must be a power of two >= 4")
    end
    if (MaxWrites < 2 || (MaxWrites & (MaxWrites - 1)) != 0) begin : g_bad_writes
        `CMN_PARAM_ERROR("dma_mover: MaxWrites must be a power of two >= 2")
    end
    if (VramAddrBits < 13 || VramAddrBits > 64) begin : g_bad_vram
        `CMN_PARAM_ERROR("dma_mover: VramAddrBits must be 13..64")
    end

    // ---- operation ---------------------------------------------------------------------------
    logic                op_q;
    logic                src_mem_q, dst_sink_q, vpr_check_q, data_q, progress_q;
    logic [63:0]         src_addr_q, pattern_q;
    logic [BeatBits-1:0] pat_left_q, sink_left_q;
    logic                rd_started_q;   // the operation's first read was issued
    logic                wr_started_q;   // the operation's first W beat was sent
    logic                fault_q;        // the operation faulted
    logic [31:0]         done_bytes_q;
    logic                done_q, stopped_q;

    wire op_start = op_valid_i && !op_q;
    wire stop_any = stop_i || fault_q;

    // ---- beat buffer ---------------------------------------------------------------------------
    wire               fifo_push, fifo_pop, fifo_flush;
    wire [63:0]        fifo_in, fifo_out;
    wire               fifo_empty, fifo_full;
    // A counter's step: +1 (up alone), -1 (down alone) or 0.
    function automatic [CntBits-1:0] step(input up, input down);
        step = {{(CntBits-1){down && !up}}, up ^ down};
    endfunction

    // ---- read side ---------------------------------------------------------------------------
    wire                rd_bst_valid, rd_bst_host, rd_done, rd_busy, rd_fault, rd_faulted;
    wire [63:0]         rd_bst_addr, rd_bst_vaddr, rd_fault_addr;
    wire [4:0]          rd_bst_len;
    wire [3:0]          rd_bst_cache, rd_fault_type;
    wire [2:0]          rd_fault_mmu;
    wire [BeatBits-1:0] rd_bst_idx, rd_page_idx;
    wire                rd_bst_vpr, rd_page_vpr, rd_prev_vpr;

    logic               ar_valid_q, ar_host_q;
    logic [63:0]        ar_addr_q;
    logic [4:0]         ar_len_q;
    logic [3:0]         ar_cache_q;
    logic [63:0]        rtrk_q [0:MaxReads-1];   // command-space address of each read burst
    logic [RPtr:0]      rtrk_wr_q, rtrk_rd_q;
    logic               rd_port_q;               // 1: host
    logic [CntBits-1:0] rd_credit_q;             // beats asked for and not yet received
    logic [CntBits-1:0] rd_free_q;               // FifoBeats - buffered beats - rd_credit_q
    logic [3:0]         r_beat_q;
    logic [BeatBits-1:0] pat_left_d;

    logic [WPtr:0]      wtrk_wr_q, wtrk_w_q, wtrk_b_q;  // write bursts: loaded, W sent, B taken
    // The trackers' fill as pointer compares, not a subtraction and a compare (they sit at the
    // start of ar_load and aw_load): none when the pointers are equal, full when they differ
    // only in the wrap bit.
    wire wr_none = wtrk_wr_q == wtrk_b_q;
    wire wr_full = wtrk_wr_q[WPtr] != wtrk_b_q[WPtr] && wtrk_wr_q[WPtr-1:0] == wtrk_b_q[WPtr-1:0];
    wire rd_none = rtrk_wr_q == rtrk_rd_q;
    wire rd_full = rtrk_wr_q[RPtr] != rtrk_rd_q[RPtr] && rtrk_wr_q[RPtr-1:0] == rtrk_rd_q[RPtr-1:0];
    // Buffer room not yet reserved is kept as its own counter (rd_free_q), so that ar_load
    // compares a register with the burst length instead of summing three counts first.
    wire ar_load = !ar_valid_q && rd_bst_valid && !stop_any && op_q && (rd_started_q || wr_none) &&
                   !rd_full && (rd_none || rd_bst_host == rd_port_q) &&
                   {{(CntBits-5){1'b0}}, rd_bst_len} <= rd_free_q;
    wire ar_ready = ar_host_q ? m_host_arready_i : m_vram_arready_i;
    wire ar_go = ar_valid_q && ar_ready;

    wire        r_valid = rd_port_q ? m_host_rvalid_i : m_vram_rvalid_i;
    wire [63:0] r_data = rd_port_q ? m_host_rdata_i : m_vram_rdata_i;
    wire [1:0]  r_resp = rd_port_q ? m_host_rresp_i : m_vram_rresp_i;
    wire        r_last = rd_port_q ? m_host_rlast_i : m_vram_rlast_i;
    wire        r_fire = r_valid && !rd_none;
    wire [63:0] r_addr = rtrk_q[rtrk_rd_q[RPtr-1:0]] + {57'd0, r_beat_q, 3'b000};

    wire pat_push = op_q && !src_mem_q && pat_left_q != {BeatBits{1'b0}} && !stop_any &&
                    !fifo_full;

    // ---- write side --------------------------------------------------------------------------
    wire                wr_bst_valid, wr_bst_host, wr_done, wr_busy, wr_fault, wr_faulted;
    wire [63:0]         wr_bst_addr, wr_bst_vaddr, wr_fault_addr;
    wire [4:0]          wr_bst_len, wr_bst_len0, rd_bst_len0_unused;
    wire [3:0]          wr_bst_cache, wr_fault_type;
    wire [2:0]          wr_fault_mmu;
    wire [BeatBits-1:0] wr_bst_idx, wr_page_idx_unused;
    wire                wr_bst_vpr, wr_page_vpr_unused, wr_prev_vpr_unused;

    // Two loaded AWs: the one presented (aw_*) and the next (aw1_*), so that a slave holding
    // AWREADY until it has a burst's last W beat still gets the next burst's W right behind it.
    logic               aw_valid_q, aw_host_q, aw1_valid_q, aw1_host_q;
    logic [63:0]        aw_addr_q, aw1_addr_q;
    logic [4:0]         aw_len_q, aw1_len_q;
    logic [3:0]         aw_cache_q, aw1_cache_q;
    logic [CntBits-1:0] unclaimed_q;             // buffered beats not promised to loaded AWs
    // One entry per write burst, from its AW load to its B: address, beats, port.
    logic [63:0]        wtrk_addr_q [0:MaxWrites-1];
    logic [4:0]         wtrk_len_q [0:MaxWrites-1];
    logic               wtrk_host_q [0:MaxWrites-1];
    logic               wr_port_q;
    logic [3:0]         w_beat_q;
    logic               w_wait_q;                // a W beat waited for WREADY last cycle
    logic [7:0]         w_strb_q;

    // Where the read side's source pages enter or leave the VPR: the write side cuts its bursts
    // there and knows which beats came from inside it. The read side runs at most FifoBeats
    // (< one page) ahead of the write side, so one boundary is enough.
    // The indices are compared modulo 2^BndBits: the read side's current page began at most one
    // page (512 beats) before the beats it has asked for, and the write side is at most
    // FifoBeats behind those, so rd_page_idx - wr_bst_idx lies in [-512, FifoBeats] and its
    // BndBits-bit difference is exact. The result is registered (bnd_*_q): it is one cycle
    // behind an index that moved, so the write side loads no burst of a COPY in the cycle after
    // its own load, an operation's start, or the read side's translation answer (bnd_stale_q).
    // This keeps the wide index arithmetic off the path into aw_load.
    wire [BndBits-1:0]  to_bound = rd_page_idx[BndBits-1:0] - wr_bst_idx[BndBits-1:0];
    wire                in_prev = vpr_check_q && !to_bound[BndBits-1] && to_bound != {BndBits{1'b0}};
    logic [4:0]         wr_limit;
    logic               bnd_tag_vpr_q, bnd_stale_q;
    logic [4:0]         bnd_limit_q;
    always_comb begin
        wr_limit = 5'd16;
        if (in_prev && to_bound[BndBits-2:4] == {(BndBits-5){1'b0}}) wr_limit = {1'b0, to_bound[3:0]};
    end
    wire                vpr_leak = bnd_tag_vpr_q && (wr_bst_host || !wr_bst_vpr);

    // unclaimed_q >= wr_bst_len, where wr_bst_len is min(wr_bst_len0, bnd_limit_q): two compares
    // of registers side by side instead of one behind the other (aw_load drives the enables of
    // a few hundred flip-flops, so it must come early in the cycle).
    wire ucl_ok = unclaimed_q >= {{(CntBits-5){1'b0}}, wr_bst_len0} ||
                  unclaimed_q >= {{(CntBits-5){1'b0}}, bnd_limit_q};
    wire wtrk_free = !wr_full;
    wire aw_ok = !aw1_valid_q && wr_bst_valid && !stop_any && op_q && !dst_sink_q &&
                 !(bnd_stale_q && vpr_check_q) && ucl_ok && wtrk_free &&
                 (wr_none || wr_bst_host == wr_port_q);
    wire aw_load = aw_ok && !vpr_leak;
    wire vpr_fault = aw_ok && vpr_leak;
    wire aw_ready = aw_host_q ? m_host_awready_i : m_vram_awready_i;
    wire aw_go = aw_valid_q && aw_ready;

    // W for the oldest loaded burst whose beats are not all sent, its AW accepted or not: a
    // burst is loaded only with all its data buffered, so W goes with (or after) its AW and never
    // waits for AWREADY (AXI A3.3.1: a slave may hold AWREADY until it has seen WVALID).
    wire          w_valid = wtrk_w_q != wtrk_wr_q;
    wire [4:0]    w_len = wtrk_len_q[wtrk_w_q[WPtr-1:0]];
    wire          w_host = wtrk_host_q[wtrk_w_q[WPtr-1:0]];
    wire          w_last = {1'b0, w_beat_q} == w_len - 5'd1;
    wire [7:0]    w_strb = w_wait_q ? w_strb_q : (zero_strb_i ? 8'h00 : 8'hff);
    wire          w_ready = w_host ? m_host_wready_i : m_vram_wready_i;
    wire          w_fire = w_valid && w_ready;

    wire          b_valid = wr_port_q ? m_host_bvalid_i : m_vram_bvalid_i;
    wire [1:0]    b_resp = wr_port_q ? m_host_bresp_i : m_vram_bresp_i;
    wire          b_fire = b_valid && !wr_none;
    wire [63:0]   b_addr = wtrk_addr_q[wtrk_b_q[WPtr-1:0]];

    // ---- sink ----------------------------------------------------------------------------------
    assign sink_valid_o = op_q && dst_sink_q && !fifo_empty &&
                          sink_left_q != {BeatBits{1'b0}};
    assign sink_data_o = fifo_out;
    wire sink_fire = sink_valid_o && sink_ready_i;

    // ---- end of an operation -------------------------------------------------------------------
    wire all_w_sent = !aw_valid_q && wtrk_w_q == wtrk_wr_q;
    wire normal_end = op_q && (dst_sink_q ? sink_left_q == {BeatBits{1'b0}} : (wr_done && all_w_sent));
    wire stop_end = op_q && stop_any && !ar_valid_q && rd_none && all_w_sent &&
                    !rd_busy && !wr_busy;
    wire op_end = normal_end || stop_end;

    assign fifo_push = r_fire || pat_push;
    assign fifo_in = r_fire ? r_data : pattern_q;
    assign fifo_pop = w_fire || sink_fire;
    assign fifo_flush = op_end;

    // The counters' next values before a load takes its burst's beats (aw_load and ar_load
    // come late in the cycle: they only pick between two sums).
    // Each adds one step of -1, 0 or +1 (one carry chain, not two in series).
    wire [CntBits-1:0] unclaimed_base = unclaimed_q + step(fifo_push, sink_fire);
    wire [CntBits-1:0] rd_free_base = rd_free_q + step(fifo_pop, pat_push);

    // ---- faults: the first of an operation -----------------------------------------------------
    // fault_now decides only fault_q and the pulse. The fault's fields (f_*) are the candidate of
    // the highest-priority source, the VPR fault when no other: they are taken every cycle until
    // the operation faults (fault_q), so the cycle of the fault leaves them holding its own, and
    // the late VPR decision (aw_ok) drives no enable of the 70-odd fault registers. Their value
    // matters only with fault_o.
    wire fault_now = (b_fire && b_resp[1]) || (r_fire && r_resp[1]) || rd_fault || wr_fault ||
                     vpr_fault;
    logic [3:0]  f_type;
    logic [2:0]  f_mmu;
    logic        f_write;
    logic [63:0] f_addr;
    always_comb begin
        f_type = T_BUS;
        f_mmu = 3'd0;
        f_write = 1'b0;
        if (b_fire && b_resp[1]) begin
            f_write = 1'b1;
            f_addr = b_addr;
        end else if (r_fire && r_resp[1]) begin
            f_addr = r_addr;
        end else if (rd_fault) begin
            f_type = rd_fault_type;
            f_mmu = rd_fault_mmu;
            f_addr = rd_fault_addr;
        end else if (wr_fault) begin
            f_type = wr_fault_type;
            f_mmu = wr_fault_mmu;
            f_write = 1'b1;
            f_addr = wr_fault_addr;
        end else begin
            f_type = T_VPR;
            f_addr = src_addr_q + {wr_bst_idx, 3'b000};
        end
    end
    logic        fault_pulse_q;
    logic [3:0]  fault_type_q;
    logic [2:0]  fault_mmu_q;
    logic        fault_write_q;
    logic [63:0] fault_addr_q;

    // ---- state -----------------------------------------------------------------------------------
    always_comb begin
        pat_left_d = pat_left_q;
        if (op_start) pat_left_d = op_src_mem_i ? {BeatBits{1'b0}} : op_beats_i;
        else if (pat_push) pat_left_d = pat_left_q - 1'b1;
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            op_q <= 1'b0;
            fault_q <= 1'b0;
            done_q <= 1'b0;
            stopped_q <= 1'b0;
            pat_left_q <= {BeatBits{1'b0}};
            sink_left_q <= {BeatBits{1'b0}};
            ar_valid_q <= 1'b0;
            rtrk_wr_q <= {(RPtr+1){1'b0}};
            rtrk_rd_q <= {(RPtr+1){1'b0}};
            rd_credit_q <= {CntBits{1'b0}};
            rd_free_q <= FifoBeats[CntBits-1:0];
            r_beat_q <= 4'd0;
            rd_port_q <= 1'b0;
            aw_valid_q <= 1'b0;
            aw1_valid_q <= 1'b0;
            unclaimed_q <= {CntBits{1'b0}};
            bnd_stale_q <= 1'b1;
            wtrk_wr_q <= {(WPtr+1){1'b0}};
            wtrk_w_q <= {(WPtr+1){1'b0}};
            wtrk_b_q <= {(WPtr+1){1'b0}};
            wr_port_q <= 1'b0;
            w_beat_q <= 4'd0;
            w_wait_q <= 1'b0;
            fault_pulse_q <= 1'b0;
            done_bytes_q <= 32'd0;
            rd_started_q <= 1'b0;
            wr_started_q <= 1'b0;
        end else begin
            done_q <= op_end;
            stopped_q <= op_end && !normal_end;
            pat_left_q <= pat_left_d;
            if (op_start) begin
                op_q <= 1'b1;
                fault_q <= fault_now;
                sink_left_q <= op_dst_sink_i ? op_beats_i : {BeatBits{1'b0}};
                done_bytes_q <= 32'd0;
                rd_started_q <= 1'b0;
                wr_started_q <= 1'b0;
            end else begin
                if (op_end) op_q <= 1'b0;
                if (sink_fire) sink_left_q <= sink_left_q - 1'b1;
                if (bytes_o) done_bytes_q <= done_bytes_q + 32'd8;
                if (fault_now) fault_q <= 1'b1;
            end
            fault_pulse_q <= fault_now && !fault_q;

            // Reads: load an AR (its buffer room reserved), send it, take R.
            if (ar_load) begin
                ar_valid_q <= 1'b1;
                rtrk_wr_q <= rtrk_wr_q + 1'b1;
                rd_port_q <= rd_bst_host;
                rd_started_q <= 1'b1;
            end else if (ar_go) begin
                ar_valid_q <= 1'b0;
            end
            // Room: taken by a loaded AR's beats and by each pattern beat, given back by each
            // beat leaving the buffer; all of it at the end (no read is outstanding then).
            if (op_end) rd_free_q <= FifoBeats[CntBits-1:0];
            else if (ar_load) rd_free_q <= rd_free_base - {{(CntBits-5){1'b0}}, rd_bst_len};
            else rd_free_q <= rd_free_base;
            rd_credit_q <= rd_credit_q + (ar_load ? {{(CntBits-5){1'b0}}, rd_bst_len} : {CntBits{1'b0}})
                                       - {{(CntBits-1){1'b0}}, r_fire};
            if (r_fire) begin
                r_beat_q <= r_last ? 4'd0 : r_beat_q + 4'd1;
                if (r_last) rtrk_rd_q <= rtrk_rd_q + 1'b1;
            end

            // Writes: load an AW once its data is buffered; W from then on (not after AWREADY); B.
            if (aw_load) begin
                wtrk_wr_q <= wtrk_wr_q + 1'b1;
                wr_port_q <= wr_bst_host;
            end
            if (aw_go) begin
                aw_valid_q <= aw1_valid_q || aw_load;
                aw1_valid_q <= aw1_valid_q && aw_load;
            end else if (aw_load) begin
                aw_valid_q <= 1'b1;
                aw1_valid_q <= aw_valid_q;
            end
            // The buffer's beats not yet promised to a loaded AW: fifo_count - (beats of loaded
            // AWs not yet sent), kept as its own counter so that aw_load compares a register.
            if (op_end) unclaimed_q <= {CntBits{1'b0}};
            else if (aw_load) unclaimed_q <= unclaimed_base - {{(CntBits-5){1'b0}}, wr_bst_len};
            else unclaimed_q <= unclaimed_base;
            bnd_stale_q <= op_start || aw_load || xrsp_valid_i[0];
            if (w_fire) begin
                wr_started_q <= 1'b1;
                w_beat_q <= w_last ? 4'd0 : w_beat_q + 4'd1;
                if (w_last) wtrk_w_q <= wtrk_w_q + 1'b1;
            end
            w_wait_q <= w_valid && !w_ready;
            if (b_fire) wtrk_b_q <= wtrk_b_q + 1'b1;
        end
        // Payload registers: qualified by the valid bits above.
        if (op_start) begin
            src_mem_q <= op_src_mem_i;
            dst_sink_q <= op_dst_sink_i;
            vpr_check_q <= op_vpr_check_i && op_src_mem_i && !op_dst_sink_i;
            data_q <= op_data_i;
            progress_q <= op_progress_i;
            src_addr_q <= op_src_addr_i;
            pattern_q <= op_pattern_i;
        end
        if (ar_load) begin
            ar_host_q <= rd_bst_host;
            ar_addr_q <= rd_bst_addr;
            ar_len_q <= rd_bst_len;
            ar_cache_q <= rd_bst_cache;
            rtrk_q[rtrk_wr_q[RPtr-1:0]] <= rd_bst_vaddr;
        end
        // The AW slots and the free tracker entry take the write side's burst whenever they are
        // free, whether or not aw_load takes it (their valid bits and wtrk_wr_q say whether it
        // did), so that aw_load enables none of them. The presented slot, when it may change,
        // takes the next slot's AW if that one is held, else the burst on offer; the next slot
        // is loaded only while empty (aw_ok requires that), and a loaded burst lands in it only
        // when the presented slot stays.
        if (!aw_valid_q || aw_go) begin
            aw_host_q <= aw1_valid_q ? aw1_host_q : wr_bst_host;
            aw_addr_q <= aw1_valid_q ? aw1_addr_q : wr_bst_addr;
            aw_len_q <= aw1_valid_q ? aw1_len_q : wr_bst_len;
            aw_cache_q <= aw1_valid_q ? aw1_cache_q : wr_bst_cache;
        end
        if (!aw1_valid_q) begin
            aw1_host_q <= wr_bst_host;
            aw1_addr_q <= wr_bst_addr;
            aw1_len_q <= wr_bst_len;
            aw1_cache_q <= wr_bst_cache;
        end
        if (wtrk_free) begin
            wtrk_addr_q[wtrk_wr_q[WPtr-1:0]] <= wr_bst_vaddr;
            wtrk_len_q[wtrk_wr_q[WPtr-1:0]] <= wr_bst_len;
            wtrk_host_q[wtrk_wr_q[WPtr-1:0]] <= wr_bst_host;
        end
        w_strb_q <= w_strb;
        bnd_limit_q <= wr_limit;
        bnd_tag_vpr_q <= vpr_check_q && (in_prev ? rd_prev_vpr : rd_page_vpr);
        if (!fault_q) begin
            fault_type_q <= f_type;
            fault_mmu_q <= f_mmu;
            fault_write_q <= f_write;
            fault_addr_q <= f_addr;
        end
    end

    // ---- blocks ----------------------------------------------------------------------------------
    dma_fifo #(.Width(64), .Depth(FifoBeats)) u_fifo (
        .clk_i(clk_i), .rst_i(rst_i), .flush_i(fifo_flush),
        .push_i(fifo_push), .data_i(fifo_in),
        .pop_i(fifo_pop), .data_o(fifo_out), .empty_o(fifo_empty),
        .full_o(fifo_full)
    );

    dma_agen #(.BeatBits(BeatBits)) u_rd (
        .clk_i(clk_i), .rst_i(rst_i),
        .start_i(op_start), .space_i(op_src_space_i), .addr_i(op_src_addr_i),
        .beats_i(op_src_mem_i ? op_beats_i : {BeatBits{1'b0}}), .write_i(1'b0), .stop_i(stop_any), .limit_i(5'd16),
        .xreq_valid_o(xreq_valid_o[0]), .xreq_ready_i(xreq_ready_i[0]),
        .xreq_space_o(xreq_space_o[1:0]), .xreq_addr_o(xreq_addr_o[63:0]),
        .xreq_write_o(xreq_write_o[0]),
        .xrsp_valid_i(xrsp_valid_i[0]), .xrsp_host_i(xrsp_host_i), .xrsp_pa_i(xrsp_pa_i),
        .xrsp_cacheable_i(xrsp_cacheable_i), .xrsp_vpr_i(xrsp_vpr_i), .xrsp_fault_i(xrsp_fault_i),
        .xrsp_type_i(xrsp_type_i), .xrsp_mmu_type_i(xrsp_mmu_type_i),
        .bst_valid_o(rd_bst_valid), .bst_ready_i(ar_load), .bst_host_o(rd_bst_host),
        .bst_addr_o(rd_bst_addr), .bst_len_o(rd_bst_len), .bst_len0_o(rd_bst_len0_unused), .bst_cache_o(rd_bst_cache),
        .bst_vaddr_o(rd_bst_vaddr), .bst_idx_o(rd_bst_idx), .bst_vpr_o(rd_bst_vpr),
        .done_o(rd_done), .busy_o(rd_busy), .page_idx_o(rd_page_idx), .page_vpr_o(rd_page_vpr),
        .prev_vpr_o(rd_prev_vpr), .fault_o(rd_fault), .faulted_o(rd_faulted),
        .fault_type_o(rd_fault_type), .fault_mmu_type_o(rd_fault_mmu), .fault_addr_o(rd_fault_addr)
    );

    dma_agen #(.BeatBits(BeatBits)) u_wr (
        .clk_i(clk_i), .rst_i(rst_i),
        .start_i(op_start), .space_i(op_dst_space_i), .addr_i(op_dst_addr_i),
        .beats_i(op_dst_sink_i ? {BeatBits{1'b0}} : op_beats_i), .write_i(1'b1), .stop_i(stop_any), .limit_i(bnd_limit_q),
        .xreq_valid_o(xreq_valid_o[1]), .xreq_ready_i(xreq_ready_i[1]),
        .xreq_space_o(xreq_space_o[3:2]), .xreq_addr_o(xreq_addr_o[127:64]),
        .xreq_write_o(xreq_write_o[1]),
        .xrsp_valid_i(xrsp_valid_i[1]), .xrsp_host_i(xrsp_host_i), .xrsp_pa_i(xrsp_pa_i),
        .xrsp_cacheable_i(xrsp_cacheable_i), .xrsp_vpr_i(xrsp_vpr_i), .xrsp_fault_i(xrsp_fault_i),
        .xrsp_type_i(xrsp_type_i), .xrsp_mmu_type_i(xrsp_mmu_type_i),
        .bst_valid_o(wr_bst_valid), .bst_ready_i(aw_load), .bst_host_o(wr_bst_host),
        .bst_addr_o(wr_bst_addr), .bst_len_o(wr_bst_len), .bst_len0_o(wr_bst_len0), .bst_cache_o(wr_bst_cache),
        .bst_vaddr_o(wr_bst_vaddr), .bst_idx_o(wr_bst_idx), .bst_vpr_o(wr_bst_vpr),
        .done_o(wr_done), .busy_o(wr_busy), .page_idx_o(wr_page_idx_unused),
        .page_vpr_o(wr_page_vpr_unused), .prev_vpr_o(wr_prev_vpr_unused), .fault_o(wr_fault),
        .faulted_o(wr_faulted), .fault_type_o(wr_fault_type), .fault_mmu_type_o(wr_fault_mmu),
        .fault_addr_o(wr_fault_addr)
    );

    // ---- outputs ---------------------------------------------------------------------------------
    assign op_ready_o = !op_q;
    assign op_active_o = op_q;
    assign op_done_o = done_q;
    assign op_stopped_o = stopped_q;
    assign wr_pending_o = !wr_none;
    assign idle_o = !op_q && wr_none && rd_none &&
                    !ar_valid_q && !aw_valid_q && !rd_busy && !wr_busy;
    assign done_bytes_o = done_bytes_q;
    assign progress_o = progress_q && (r_fire || w_fire);
    assign bytes_o = data_q && w_fire && w_strb != 8'h00;
    assign stall_o = op_q && data_q && wr_started_q && !w_fire && !op_end;
    assign fault_o = fault_pulse_q;
    assign fault_type_o = fault_type_q;
    assign fault_mmu_type_o = fault_mmu_q;
    assign fault_write_o = fault_write_q;
    assign fault_addr_o = fault_addr_q;

    assign m_host_awid_o = {HostIdBits{1'b0}};
    assign m_host_awaddr_o = aw_addr_q;
    assign m_host_awlen_o = {3'd0, aw_len_q - 5'd1};
    assign m_host_awsize_o = 3'd3;
    assign m_host_awburst_o = 2'b01;
    assign m_host_awlock_o = 1'b0;
    assign m_host_awcache_o = aw_cache_q;
    assign m_host_awprot_o = 3'd0;
    assign m_host_awvalid_o = aw_valid_q && aw_host_q;
    assign m_host_wdata_o = fifo_out;
    assign m_host_wstrb_o = w_strb;
    assign m_host_wlast_o = w_last;
    assign m_host_wvalid_o = w_valid && w_host;
    assign m_host_bready_o = 1'b1;
    assign m_host_arid_o = {HostIdBits{1'b0}};
    assign m_host_araddr_o = ar_addr_q;
    assign m_host_arlen_o = {3'd0, ar_len_q - 5'd1};
    assign m_host_arsize_o = 3'd3;
    assign m_host_arburst_o = 2'b01;
    assign m_host_arlock_o = 1'b0;
    assign m_host_arcache_o = ar_cache_q;
    assign m_host_arprot_o = 3'd0;
    assign m_host_arvalid_o = ar_valid_q && ar_host_q;
    assign m_host_rready_o = 1'b1;  // room for every beat was reserved when its AR was loaded

    assign m_vram_awid_o = {VramIdBits{1'b0}};
    assign m_vram_awaddr_o = aw_addr_q[VramAddrBits-1:0];
    assign m_vram_awlen_o = {3'd0, aw_len_q - 5'd1};
    assign m_vram_awsize_o = 3'd3;
    assign m_vram_awburst_o = 2'b01;
    assign m_vram_awcache_o = aw_cache_q;
    assign m_vram_awprot_o = 3'd0;
    assign m_vram_awvalid_o = aw_valid_q && !aw_host_q;
    assign m_vram_wdata_o = fifo_out;
    assign m_vram_wstrb_o = w_strb;
    assign m_vram_wlast_o = w_last;
    assign m_vram_wvalid_o = w_valid && !w_host;
    assign m_vram_bready_o = 1'b1;
    assign m_vram_arid_o = {VramIdBits{1'b0}};
    assign m_vram_araddr_o = ar_addr_q[VramAddrBits-1:0];
    assign m_vram_arlen_o = {3'd0, ar_len_q - 5'd1};
    assign m_vram_arsize_o = 3'd3;
    assign m_vram_arburst_o = 2'b01;
    assign m_vram_arcache_o = ar_cache_q;
    assign m_vram_arprot_o = 3'd0;
    assign m_vram_arvalid_o = ar_valid_q && !ar_host_q;
    assign m_vram_rready_o = 1'b1;

    // IDs are constant (one per port); upper address bits of a VRAM burst are zero by
    // construction (dma_xlate refuses VRAM addresses past VramAddrBits).
    wire unused_ok = ^{m_host_bid_i, m_host_rid_i, m_vram_bid_i, m_vram_rid_i, rd_done, rd_faulted,
                       wr_faulted, rd_bst_idx, rd_bst_vpr, rd_page_idx[BeatBits-1:BndBits], wr_page_idx_unused, wr_page_vpr_unused,
                       wr_prev_vpr_unused, rd_bst_len0_unused, b_resp[0], r_resp[0]};

`ifdef GR_ASSERT
    always @(posedge clk_i) begin
        if (!rst_i && ar_valid_q && ar_addr_q[11:0] + {4'd0, ar_len_q, 3'b000} > 13'h1000)
            $error("dma_mover %m: read burst crosses 4 KiB");
        if (!rst_i && aw_valid_q && aw_addr_q[11:0] + {4'd0, aw_len_q, 3'b000} > 13'h1000)
            $error("dma_mover %m: write burst crosses 4 KiB");
        if (!rst_i && w_valid && fifo_empty)
            $error("dma_mover %m: W beat without data");
        if (!rst_i && r_fire && {1'b0, rd_credit_q} == {(CntBits+1){1'b0}})
            $error("dma_mover %m: R beat without reserved room");
    end
`endif
endmodule
`default_nettype wire
