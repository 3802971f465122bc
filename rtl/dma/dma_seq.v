`default_nettype none
// dma_seq: the DMA engine's command sequencer: fetches ring entries and their commands (through
// the data mover's sink), runs each command as data mover operations, writes fences, and
// handles preemption, faults, the watchdog's hang and engine resets (rtl/dma/README.md).
// Contract:
//   - Registers in: enable_i, the preempt_i / reset_i strobes (DMA_CTRL), fence and preempt
//     fence. Status out: the DMA_STATUS, DMA_COMPLETED_FENCE, DMA_STOP_* and DMA_FAULT_*
//     fields. irq_*_o are one-cycle interrupt source pulses.
//   - Preemption is taken at a command boundary; inside a COPY or FILL (stop_o makes the mover
//     stop at a burst boundary) and between two reads of a WAIT. An entry whose commands have
//     all run completes before a preemption stops the engine.
//   - A fault, bad command, bad ring entry, privilege fault or hang halts it (stop_o) until an
//     engine reset. A privilege fault: an entry without PRIV (a user context's) that lacks
//     USE_ROOT, or a command of one that needs PRIV (dma_decode's unpriv); nothing of it runs.
//   - soft_rst_i (core soft reset) acts as an engine reset, then holds every register at its
//     reset value while it stays high; idle_o tells the soft-reset sequencer when it is drained.
module dma_seq (
    input  wire         clk_i,
    input  wire         rst_i,          // synchronous, active high
    input  wire         soft_rst_i,
    // registers
    input  wire         enable_i,
    input  wire         preempt_i,      // strobe
    input  wire         reset_i,        // strobe
    input  wire [63:0]  fence_addr_i,
    input  wire [31:0]  preempt_fence_i,
    output wire         idle_o,
    output wire         preempted_o,
    output wire         hung_o,
    output wire         faulted_o,
    output wire         resetting_o,
    output wire [3:0]   state_o,
    output wire [31:0]  completed_fence_o,
    output wire [15:0]  stop_head_o,
    output wire [15:0]  stop_tail_o,
    output wire [31:0]  stop_offset_o,
    output wire [31:0]  stop_done_o,
    output wire [3:0]   fault_type_o,
    output wire [2:0]   fault_mmu_type_o,
    output wire         fault_write_o,
    output wire [15:0]  fault_entry_o,
    output wire [63:0]  fault_addr_o,
    output wire         irq_fence_o,
    output wire         irq_preempted_o,
    output wire         irq_fault_o,
    // memory controller fault log (MMU and VPR faults)
    output wire         mc_fault_o,
    output wire [2:0]   mc_fault_type_o,
    output wire [47:0]  mc_fault_addr_o,
    output wire         mc_fault_write_o,
    output wire         tlb_invalidate_o,
    // ring (dma_ring)
    input  wire [15:0]  head_i,
    input  wire [15:0]  tail_i,
    input  wire         work_i,
    input  wire [63:0]  entry_addr_i,
    output wire [255:0] entry_o,
    input  wire         entry_bad_i,
    input  wire [63:0]  entry_buf_i,
    input  wire [31:0]  entry_len_i,
    input  wire [31:0]  entry_fence_i,
    input  wire         entry_use_root_i,
    input  wire [51:0]  entry_root_i,
    input  wire         entry_irq_i,
    input  wire         entry_priv_i,
    output wire         advance_o,
    output wire         drop_o,
    output wire         use_root_o,
    output wire [51:0]  root_o,
    output wire         priv_o,         // the entry in progress is privileged
    // command decode (dma_decode)
    output wire [255:0] cmd_o,
    output wire [2:0]   avail_o,
    output wire         in_indirect_o,
    input  wire [7:0]   dec_op_i,
    input  wire [2:0]   dec_nq_i,
    input  wire [1:0]   dec_src_i,
    input  wire [1:0]   dec_dst_i,
    input  wire         dec_irq_i,
    input  wire [31:0]  dec_imm_i,
    input  wire         dec_bad_i,
    input  wire         dec_unpriv_i,
    // data mover (dma_mover)
    output wire         op_valid_o,
    input  wire         op_ready_i,
    output wire         op_src_mem_o,
    output wire [1:0]   op_src_space_o,
    output wire [63:0]  op_src_addr_o,
    output wire         op_dst_sink_o,
    output wire [1:0]   op_dst_space_o,
    output wire [63:0]  op_dst_addr_o,
    output wire [60:0]  op_beats_o,
    output wire [63:0]  op_pattern_o,
    output wire         op_vpr_check_o,
    output wire         op_data_o,
    output wire         op_progress_o,
    output wire         stop_o,
    output wire         zero_strb_o,
    input  wire         op_active_i,
    input  wire         op_done_i,
    input  wire         sink_valid_i,
    input  wire [63:0]  sink_data_i,
    output wire         sink_ready_o,
    input  wire         wr_pending_i,
    input  wire         mover_idle_i,
    input  wire         xlate_idle_i,
    input  wire [31:0]  done_bytes_i,
    input  wire         fault_i,
    input  wire [3:0]   fault_type_i,
    input  wire [2:0]   fault_mmu_type_i,
    input  wire         fault_write_i,
    input  wire [63:0]  fault_addr_i,
    // clocks and counters (dma_perf)
    input  wire         hang_i,
    input  wire [63:0]  timestamp_i,
    output wire         busy_o,         // an entry is in progress (DMA_PERF_BUSY)
    output wire         armed_o,        // the watchdog counts
    output wire         progress_o,     // a command completed
    output wire         cmd_done_o,
    output wire [63:0]  cmd_start_o
);
    typedef enum logic [3:0] {
        StIdle    = 4'd0,   // no entry in progress
        StEntry   = 4'd1,   // reading the ring entry
        StCmd     = 4'd2,   // at a command boundary
        StCmdRd   = 4'd3,   // reading a command
        StData    = 4'd4,   // COPY or FILL moving, or WAIT reading
        StWrDrain = 4'd5,   // a qword write waits for the earlier writes' responses
        StWrOp    = 4'd6,   // the qword write is sent
        StWrResp  = 4'd7,   // ... and waits for its response
        StPoll    = 4'd8,   // WAIT between two reads
        StStop    = 4'd9,   // preemption: draining
        StHalt    = 4'd10,  // hung or faulted: waiting for an engine reset
        StReset   = 4'd11   // engine reset: draining
    } state_e;

    localparam [7:0] OP_NOP = 8'h00, OP_COPY = 8'h01, OP_FILL = 8'h02, OP_FENCE = 8'h03,
                     OP_INDIRECT = 8'h04, OP_TLB_INV = 8'h05, OP_TIMESTAMP = 8'h06,
                     OP_WAIT = 8'h07;
    localparam [1:0] WR_FENCE = 2'd0, WR_TS = 2'd1, WR_DONE = 2'd2, WR_PREEMPT = 2'd3;
    localparam [1:0] SPACE_HOST = 2'd2;
    localparam [3:0] T_HANG = 4'd1, T_MMU = 4'd2, T_BAD_CMD = 4'd4, T_VPR = 4'd5,
                     T_BAD_ENTRY = 4'd6, T_PRIV = 4'd7;
    localparam [2:0] MC_VPR = 3'd4;

    state_e      state_q, state_d;
    // the qwords read into the sequencer
    logic [63:0] q_q [0:3];
    logic [2:0]  qn_q, qn_d;
    // the entry
    logic        active_q, active_d;          // an entry is in progress
    logic [63:0] buf_q, buf_d;
    logic [31:0] len_q, len_d, pos_q, pos_d;
    logic [31:0] fence_id_q, fence_id_d;
    logic        use_root_q, use_root_d;
    logic [51:0] root_q, root_d;
    logic        eirq_q, eirq_d;
    logic        priv_q, priv_d;              // the entry is privileged (PRIV)
    logic        ind_q, ind_d;                // inside an INDIRECT buffer
    logic [63:0] ibuf_q, ibuf_d;
    logic [31:0] ilen_q, ilen_d, ipos_q, ipos_d;
    logic [63:0] ind_ts_q, ind_ts_d;          // the INDIRECT's fetch time
    // the command
    logic [63:0] cur_q, cur_d;                // host address of the command (or entry)
    logic [2:0]  avail_q, avail_d;
    logic [2:0]  nq_q, nq_d;
    logic [63:0] cmd_ts_q, cmd_ts_d;
    logic        data_cmd_q, data_cmd_d;      // the command is a COPY or FILL
    logic        wait_q, wait_d;              // the command is a WAIT
    logic [63:0] wval_q, wval_d;
    logic [1:0]  wspace_q, wspace_d;
    logic [63:0] waddr_q, waddr_d;
    logic [5:0]  poll_q, poll_d;
    // a qword write
    logic [1:0]  wr_kind_q, wr_kind_d;
    logic [1:0]  wr_space_q, wr_space_d;
    logic [63:0] wr_addr_q, wr_addr_d;
    logic [63:0] wr_value_q, wr_value_d;
    logic        wr_irq_q, wr_irq_d;
    // state seen by the host
    logic        pend_q, pend_d;              // a preemption is requested
    logic        stop_data_q, stop_data_d;    // the preemption stopped a COPY or FILL
    logic        preempted_q, preempted_d, hung_q, hung_d, faulted_q, faulted_d;
    logic [31:0] completed_q, completed_d;
    logic [15:0] stop_head_q, stop_head_d, stop_tail_q, stop_tail_d;
    logic [31:0] stop_off_q, stop_off_d, stop_done_q, stop_done_d;
    logic [3:0]  ftype_q, ftype_d;
    logic [2:0]  fmmu_q, fmmu_d;
    logic        fwrite_q, fwrite_d;
    logic [15:0] fentry_q, fentry_d;
    logic [63:0] faddr_q, faddr_d;
    // pulses
    logic        irq_fence_d, irq_pre_d, irq_fault_d, mc_fault_d, tlb_inv_d, advance_d, drop_d;
    logic        progress_d, cmd_done_d;
    logic [63:0] cmd_start_d;
    logic        irq_fence_q, irq_pre_q, irq_fault_q, mc_fault_q, tlb_inv_q;
    logic        progress_q, cmd_done_q;
    logic [63:0] cmd_start_q;
    logic [2:0]  mc_type_q, mc_type_d;
    logic [47:0] mc_addr_q, mc_addr_d;
    logic        mc_write_q, mc_write_d;
    // the data mover operation being handed over
    logic        op_valid_q, op_valid_d;
    logic        op_src_mem_q, op_src_mem_d, op_dst_sink_q, op_dst_sink_d;
    logic [1:0]  op_src_space_q, op_src_space_d, op_dst_space_q, op_dst_space_d;
    logic [63:0] op_src_addr_q, op_src_addr_d, op_dst_addr_q, op_dst_addr_d;
    logic [60:0] op_beats_q, op_beats_d;
    logic [63:0] op_pattern_q, op_pattern_d;
    logic        op_vpr_q, op_vpr_d, op_data_q, op_data_d, op_prog_q, op_prog_d;

    wire [63:0]  q0 = q_q[0], q1 = q_q[1], q2 = q_q[2], q3 = q_q[3];
    wire [255:0] qwords = {q3, q2, q1, q0};
    wire         size_nz = (dec_op_i == OP_COPY) ? q3[63:3] != 61'd0 : q2[63:3] != 61'd0;
    wire sink_fire = sink_valid_i && sink_ready_o;
    wire quiet = !op_valid_q && !op_active_i && mover_idle_i && xlate_idle_i;
    // Where the next command is: in the INDIRECT buffer or the entry's.
    wire [31:0] rest = ind_q ? ilen_q - ipos_q : len_q - pos_q;
    wire [2:0]  avail = (rest[31:3] >= 29'd4) ? 3'd4 : rest[5:3];
    wire [63:0] cmd_addr = ind_q ? ibuf_q + {32'd0, ipos_q} : buf_q + {32'd0, pos_q};
    wire [31:0] nq_bytes = {26'd0, nq_q, 3'b000};
    wire        unused_ok = ^{rest[2:0]};  // lengths and offsets are multiples of 8

    always_comb begin
        state_d = state_q;
        qn_d = qn_q;
        active_d = active_q;
        buf_d = buf_q;
        len_d = len_q;
        pos_d = pos_q;
        fence_id_d = fence_id_q;
        use_root_d = use_root_q;
        root_d = root_q;
        eirq_d = eirq_q;
        priv_d = priv_q;
        ind_d = ind_q;
        ibuf_d = ibuf_q;
        ilen_d = ilen_q;
        ipos_d = ipos_q;
        ind_ts_d = ind_ts_q;
        cur_d = cur_q;
        avail_d = avail_q;
        nq_d = nq_q;
        cmd_ts_d = cmd_ts_q;
        data_cmd_d = data_cmd_q;
        wait_d = wait_q;
        wval_d = wval_q;
        wspace_d = wspace_q;
        waddr_d = waddr_q;
        poll_d = poll_q;
        wr_kind_d = wr_kind_q;
        wr_space_d = wr_space_q;
        wr_addr_d = wr_addr_q;
        wr_value_d = wr_value_q;
        wr_irq_d = wr_irq_q;
        pend_d = pend_q || preempt_i;
        stop_data_d = stop_data_q;
        preempted_d = preempted_q;
        hung_d = hung_q;
        faulted_d = faulted_q;
        completed_d = completed_q;
        stop_head_d = stop_head_q;
        stop_tail_d = stop_tail_q;
        stop_off_d = stop_off_q;
        stop_done_d = stop_done_q;
        ftype_d = ftype_q;
        fmmu_d = fmmu_q;
        fwrite_d = fwrite_q;
        fentry_d = fentry_q;
        faddr_d = faddr_q;
        irq_fence_d = 1'b0;
        irq_pre_d = 1'b0;
        irq_fault_d = 1'b0;
        mc_fault_d = 1'b0;
        mc_type_d = mc_type_q;
        mc_addr_d = mc_addr_q;
        mc_write_d = mc_write_q;
        tlb_inv_d = 1'b0;
        advance_d = 1'b0;
        drop_d = 1'b0;
        progress_d = 1'b0;
        cmd_done_d = 1'b0;
        cmd_start_d = cmd_ts_q;
        op_valid_d = op_valid_q && !op_ready_i;
        op_src_mem_d = op_src_mem_q;
        op_src_space_d = op_src_space_q;
        op_src_addr_d = op_src_addr_q;
        op_dst_sink_d = op_dst_sink_q;
        op_dst_space_d = op_dst_space_q;
        op_dst_addr_d = op_dst_addr_q;
        op_beats_d = op_beats_q;
        op_pattern_d = op_pattern_q;
        op_vpr_d = op_vpr_q;
        op_data_d = op_data_q;
        op_prog_d = op_prog_q;

        if (sink_fire) qn_d = qn_q + 3'd1;

        // Payload registers that only their own state reads later: they load in every cycle of
        // the state that fetches them, so their enables are a state compare and not the end of
        // the priority chain below (reset, fault, hang, then the state's branch). The last load
        // is in the cycle the state ends, with the values the branch used to take; when a
        // reset, fault or hang ends it instead, nothing reads them before the next fetch.
        // The entry's buffer, length, fence and interrupt bit: read from StCmd on.
        if (state_q == StEntry) begin
            buf_d = entry_buf_i;
            len_d = entry_len_i;
            fence_id_d = entry_fence_i;
            eirq_d = entry_irq_i;
        end
        if (state_q == StCmdRd) begin
            // A FENCE or TIMESTAMP's target, read in StWrDrain and StWrResp (wr_kind_q says).
            wr_space_d = dec_dst_i;
            wr_addr_d = q1;
            wr_value_d = q2;
            wr_irq_d = dec_irq_i;
            // A WAIT's address and value, read in StData and StPoll (wait_q says).
            wspace_d = dec_src_i;
            waddr_d = q1;
            wval_d = q2;
            // An INDIRECT's buffer: not while inside one (dma_decode refuses a nested INDIRECT).
            if (!ind_q) begin
                ibuf_d = q1;
                ilen_d = q2[31:0];
                ind_ts_d = cmd_ts_q;
            end
        end

        if (reset_i || (soft_rst_i && state_q != StIdle && state_q != StReset)) begin
            // Engine reset: drain, then drop the queue (StReset).
            state_d = StReset;
            pend_d = 1'b0;
        end else if (state_q == StReset) begin
            pend_d = 1'b0;
            if (quiet) begin
                stop_head_d = head_i;
                stop_tail_d = tail_i;
                stop_off_d = active_q ? pos_q : 32'd0;
                stop_done_d = data_cmd_q ? done_bytes_i : 32'd0;
                drop_d = 1'b1;
                active_d = 1'b0;
                ind_d = 1'b0;
                data_cmd_d = 1'b0;
                preempted_d = 1'b0;
                hung_d = 1'b0;
                faulted_d = 1'b0;
                state_d = StIdle;
            end
        end else if (state_q == StHalt) begin
            pend_d = 1'b0;  // a halted engine takes no preemption; the reset clears it
        end else if (fault_i) begin
            ftype_d = fault_type_i;
            fmmu_d = fault_mmu_type_i;
            fwrite_d = fault_write_i;
            fentry_d = head_i;
            faddr_d = fault_addr_i;
            faulted_d = 1'b1;
            irq_fault_d = 1'b1;
            mc_fault_d = fault_type_i == T_MMU || fault_type_i == T_VPR;
            mc_type_d = fault_type_i == T_VPR ? MC_VPR : fault_mmu_type_i;
            mc_addr_d = fault_addr_i[47:0];
            mc_write_d = fault_write_i;
            state_d = StHalt;
        end else if (hang_i) begin
            ftype_d = T_HANG;
            fmmu_d = 3'd0;
            fwrite_d = 1'b0;
            fentry_d = head_i;
            faddr_d = cur_q;
            hung_d = 1'b1;
            irq_fault_d = 1'b1;
            state_d = StHalt;
        end else begin
            case (state_q)
                StIdle: if (!soft_rst_i) begin
                    if (pend_q) begin
                        // Nothing in progress: the preemption completes at once.
                        stop_head_d = head_i;
                        stop_tail_d = tail_i;
                        stop_off_d = 32'd0;
                        stop_done_d = 32'd0;
                        drop_d = 1'b1;
                        pend_d = preempt_i;
                        wr_kind_d = WR_PREEMPT;
                        state_d = StWrDrain;
                    end else if (enable_i && work_i) begin
                        active_d = 1'b1;
                        preempted_d = 1'b0;
                        ind_d = 1'b0;
                        pos_d = 32'd0;
                        cur_d = entry_addr_i;
                        qn_d = 3'd0;
                        op_valid_d = 1'b1;
                        op_src_mem_d = 1'b1;
                        op_src_space_d = SPACE_HOST;
                        op_src_addr_d = entry_addr_i;
                        op_dst_sink_d = 1'b1;
                        op_beats_d = 61'd4;
                        op_vpr_d = 1'b0;
                        op_data_d = 1'b0;
                        op_prog_d = 1'b1;
                        state_d = StEntry;
                    end
                end
                StEntry: if (op_done_i) begin
                    if (entry_bad_i) begin
                        ftype_d = T_BAD_ENTRY;
                        fmmu_d = 3'd0;
                        fwrite_d = 1'b0;
                        fentry_d = head_i;
                        faddr_d = cur_q;
                        faulted_d = 1'b1;
                        irq_fault_d = 1'b1;
                        state_d = StHalt;
                    end else if (!entry_priv_i && !entry_use_root_i) begin
                        // A user entry without its own root would translate through MMU_ROOT
                        // (another address space) or, with the MMU off, not at all.
                        ftype_d = T_PRIV;
                        fmmu_d = 3'd0;
                        fwrite_d = 1'b0;
                        fentry_d = head_i;
                        faddr_d = cur_q;
                        faulted_d = 1'b1;
                        irq_fault_d = 1'b1;
                        state_d = StHalt;
                    end else begin
                        pos_d = 32'd0;
                        use_root_d = entry_use_root_i;
                        root_d = entry_root_i;
                        priv_d = entry_priv_i;
                        state_d = StCmd;
                    end
                end
                StCmd: begin
                    if (ind_q && ipos_q == ilen_q) begin
                        // The INDIRECT buffer is done: so is the INDIRECT command.
                        ind_d = 1'b0;
                        pos_d = pos_q + 32'd24;
                        cmd_done_d = 1'b1;
                        cmd_start_d = ind_ts_q;
                        progress_d = 1'b1;
                    end else if (!ind_q && pos_q == len_q) begin
                        wr_kind_d = WR_DONE;
                        state_d = StWrDrain;
                    end else if (pend_q) begin
                        stop_data_d = 1'b0;
                        state_d = StStop;
                    end else begin
                        cur_d = cmd_addr;
                        avail_d = avail;
                        cmd_ts_d = timestamp_i;
                        qn_d = 3'd0;
                        op_valid_d = 1'b1;
                        op_src_mem_d = 1'b1;
                        op_src_space_d = SPACE_HOST;
                        op_src_addr_d = cmd_addr;
                        op_dst_sink_d = 1'b1;
                        op_beats_d = {58'd0, avail};
                        op_vpr_d = 1'b0;
                        op_data_d = 1'b0;
                        op_prog_d = 1'b1;
                        state_d = StCmdRd;
                    end
                end
                StCmdRd: if (op_done_i) begin
                    nq_d = dec_nq_i;
                    wait_d = 1'b0;
                    data_cmd_d = 1'b0;
                    state_d = StCmd;
                    if (dec_bad_i || dec_unpriv_i) begin
                        ftype_d = dec_bad_i ? T_BAD_CMD : T_PRIV;
                        fmmu_d = 3'd0;
                        fwrite_d = 1'b0;
                        fentry_d = head_i;
                        faddr_d = cur_q;
                        faulted_d = 1'b1;
                        irq_fault_d = 1'b1;
                        state_d = StHalt;
                    end else begin
                        case (dec_op_i)
                            OP_COPY, OP_FILL: if (size_nz) begin
                                data_cmd_d = 1'b1;
                                op_valid_d = 1'b1;
                                op_src_mem_d = dec_op_i == OP_COPY;
                                op_src_space_d = dec_src_i;
                                op_src_addr_d = q1;
                                op_dst_sink_d = 1'b0;
                                op_dst_space_d = dec_dst_i;
                                op_dst_addr_d = dec_op_i == OP_COPY ? q2 : q1;
                                op_beats_d = dec_op_i == OP_COPY ? q3[63:3] : q2[63:3];
                                op_pattern_d = {dec_imm_i, dec_imm_i};
                                op_vpr_d = dec_op_i == OP_COPY;
                                op_data_d = 1'b1;
                                op_prog_d = 1'b1;
                                state_d = StData;
                            end
                            OP_FENCE, OP_TIMESTAMP: begin
                                wr_kind_d = dec_op_i == OP_FENCE ? WR_FENCE : WR_TS;
                                state_d = StWrDrain;
                            end
                            OP_INDIRECT: begin
                                ind_d = 1'b1;
                                ipos_d = 32'd0;
                            end
                            OP_TLB_INV: tlb_inv_d = 1'b1;
                            OP_WAIT: begin
                                wait_d = 1'b1;
                                qn_d = 3'd0;
                                op_valid_d = 1'b1;
                                op_src_mem_d = 1'b1;
                                op_src_space_d = dec_src_i;
                                op_src_addr_d = q1;
                                op_dst_sink_d = 1'b1;
                                op_beats_d = 61'd1;
                                op_vpr_d = 1'b0;
                                op_data_d = 1'b0;
                                op_prog_d = 1'b0;  // WAIT's reads are not progress
                                state_d = StData;
                            end
                            OP_NOP: ;
                            default: ;  // dma_decode refused every other opcode
                        endcase
                        // Commands with nothing (left) to move complete here.
                        if (dec_op_i != OP_INDIRECT && state_d == StCmd) begin
                            cmd_done_d = 1'b1;
                            cmd_start_d = cmd_ts_q;
                            progress_d = 1'b1;
                            if (ind_q) ipos_d = ipos_q + {26'd0, dec_nq_i, 3'b000};
                            else pos_d = pos_q + {26'd0, dec_nq_i, 3'b000};
                        end
                    end
                end
                StData: begin
                    if (op_done_i) begin
                        if (wait_q && q0 < wval_q) begin
                            poll_d = 6'd0;
                            state_d = StPoll;
                        end else begin
                            cmd_done_d = 1'b1;
                            progress_d = 1'b1;
                            data_cmd_d = 1'b0;
                            wait_d = 1'b0;
                            if (ind_q) ipos_d = ipos_q + nq_bytes;
                            else pos_d = pos_q + nq_bytes;
                            state_d = StCmd;
                        end
                    end else if (pend_q && data_cmd_q) begin
                        stop_data_d = 1'b1;
                        state_d = StStop;
                    end
                end
                StPoll: begin
                    if (pend_q) begin
                        stop_data_d = 1'b0;
                        state_d = StStop;
                    end else if (poll_q == 6'd63) begin
                        qn_d = 3'd0;
                        op_valid_d = 1'b1;
                        op_src_mem_d = 1'b1;
                        op_src_space_d = wspace_q;
                        op_src_addr_d = waddr_q;
                        op_dst_sink_d = 1'b1;
                        op_beats_d = 61'd1;
                        op_vpr_d = 1'b0;
                        op_data_d = 1'b0;
                        op_prog_d = 1'b0;
                        state_d = StData;
                    end else begin
                        poll_d = poll_q + 6'd1;
                    end
                end
                StWrDrain: if (!op_valid_q && !op_active_i && !wr_pending_i) begin
                    op_valid_d = 1'b1;
                    op_src_mem_d = 1'b0;
                    op_dst_sink_d = 1'b0;
                    op_beats_d = 61'd1;
                    op_vpr_d = 1'b0;
                    op_data_d = 1'b0;
                    op_prog_d = 1'b1;
                    case (wr_kind_q)
                        WR_FENCE: begin
                            op_dst_space_d = wr_space_q;
                            op_dst_addr_d = wr_addr_q;
                            op_pattern_d = wr_value_q;
                        end
                        WR_TS: begin
                            op_dst_space_d = wr_space_q;
                            op_dst_addr_d = wr_addr_q;
                            op_pattern_d = timestamp_i;
                        end
                        WR_DONE: begin
                            op_dst_space_d = SPACE_HOST;
                            op_dst_addr_d = fence_addr_i;
                            op_pattern_d = {32'd0, fence_id_q};
                        end
                        default: begin
                            op_dst_space_d = SPACE_HOST;
                            op_dst_addr_d = fence_addr_i + 64'd8;
                            op_pattern_d = {32'd0, preempt_fence_i};
                        end
                    endcase
                    state_d = StWrOp;
                end
                StWrOp: if (op_done_i) state_d = StWrResp;
                StWrResp: if (!wr_pending_i) begin
                    case (wr_kind_q)
                        WR_FENCE, WR_TS: begin
                            irq_fence_d = wr_kind_q == WR_FENCE && wr_irq_q;
                            cmd_done_d = 1'b1;
                            progress_d = 1'b1;
                            if (ind_q) ipos_d = ipos_q + nq_bytes;
                            else pos_d = pos_q + nq_bytes;
                            state_d = StCmd;
                        end
                        WR_DONE: begin
                            completed_d = fence_id_q;
                            irq_fence_d = eirq_q;
                            advance_d = 1'b1;
                            active_d = 1'b0;
                            progress_d = 1'b1;
                            state_d = StIdle;
                        end
                        default: begin
                            preempted_d = 1'b1;
                            irq_pre_d = 1'b1;
                            state_d = StIdle;
                        end
                    endcase
                end
                StStop: if (quiet && !wr_pending_i) begin
                    stop_head_d = head_i;
                    stop_tail_d = tail_i;
                    stop_off_d = pos_q;
                    stop_done_d = stop_data_q ? done_bytes_i : 32'd0;
                    drop_d = 1'b1;
                    active_d = 1'b0;
                    ind_d = 1'b0;
                    data_cmd_d = 1'b0;
                    wait_d = 1'b0;
                    pend_d = preempt_i;
                    wr_kind_d = WR_PREEMPT;
                    state_d = StWrDrain;
                end
                default: state_d = StIdle;
            endcase
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i || (soft_rst_i && state_q == StIdle)) begin
            // A soft reset takes effect here once the engine is drained (idle).
            state_q <= StIdle;
            qn_q <= 3'd0;
            active_q <= 1'b0;
            ind_q <= 1'b0;
            data_cmd_q <= 1'b0;
            wait_q <= 1'b0;
            pend_q <= 1'b0;
            stop_data_q <= 1'b0;
            preempted_q <= 1'b0;
            hung_q <= 1'b0;
            faulted_q <= 1'b0;
            completed_q <= 32'd0;
            stop_head_q <= 16'd0;
            stop_tail_q <= 16'd0;
            stop_off_q <= 32'd0;
            stop_done_q <= 32'd0;
            ftype_q <= 4'd0;
            fmmu_q <= 3'd0;
            fwrite_q <= 1'b0;
            fentry_q <= 16'd0;
            faddr_q <= 64'd0;
            irq_fence_q <= 1'b0;
            irq_pre_q <= 1'b0;
            irq_fault_q <= 1'b0;
            mc_fault_q <= 1'b0;
            tlb_inv_q <= 1'b0;
            progress_q <= 1'b0;
            cmd_done_q <= 1'b0;
            op_valid_q <= 1'b0;
            use_root_q <= 1'b0;
            root_q <= 52'd0;
            priv_q <= 1'b0;
        end else begin
            state_q <= state_d;
            qn_q <= qn_d;
            active_q <= active_d;
            ind_q <= ind_d;
            data_cmd_q <= data_cmd_d;
            wait_q <= wait_d;
            pend_q <= pend_d;
            stop_data_q <= stop_data_d;
            preempted_q <= preempted_d;
            hung_q <= hung_d;
            faulted_q <= faulted_d;
            completed_q <= completed_d;
            stop_head_q <= stop_head_d;
            stop_tail_q <= stop_tail_d;
            stop_off_q <= stop_off_d;
            stop_done_q <= stop_done_d;
            ftype_q <= ftype_d;
            fmmu_q <= fmmu_d;
            fwrite_q <= fwrite_d;
            fentry_q <= fentry_d;
            faddr_q <= faddr_d;
            irq_fence_q <= irq_fence_d;
            irq_pre_q <= irq_pre_d;
            irq_fault_q <= irq_fault_d;
            mc_fault_q <= mc_fault_d;
            tlb_inv_q <= tlb_inv_d;
            progress_q <= progress_d;
            cmd_done_q <= cmd_done_d;
            op_valid_q <= op_valid_d;
            use_root_q <= use_root_d;
            root_q <= root_d;
            priv_q <= priv_d;
        end
        // Data registers, qualified by the state above.
        if (sink_fire) q_q[qn_q[1:0]] <= sink_data_i;
        buf_q <= buf_d;
        len_q <= len_d;
        pos_q <= pos_d;
        fence_id_q <= fence_id_d;
        eirq_q <= eirq_d;
        ibuf_q <= ibuf_d;
        ilen_q <= ilen_d;
        ipos_q <= ipos_d;
        ind_ts_q <= ind_ts_d;
        cur_q <= cur_d;
        avail_q <= avail_d;
        nq_q <= nq_d;
        cmd_ts_q <= cmd_ts_d;
        wval_q <= wval_d;
        wspace_q <= wspace_d;
        waddr_q <= waddr_d;
        poll_q <= poll_d;
        wr_kind_q <= wr_kind_d;
        wr_space_q <= wr_space_d;
        wr_addr_q <= wr_addr_d;
        wr_value_q <= wr_value_d;
        wr_irq_q <= wr_irq_d;
        mc_type_q <= mc_type_d;
        mc_addr_q <= mc_addr_d;
        mc_write_q <= mc_write_d;
        cmd_start_q <= cmd_start_d;
        op_src_mem_q <= op_src_mem_d;
        op_src_space_q <= op_src_space_d;
        op_src_addr_q <= op_src_addr_d;
        op_dst_sink_q <= op_dst_sink_d;
        op_dst_space_q <= op_dst_space_d;
        op_dst_addr_q <= op_dst_addr_d;
        op_beats_q <= op_beats_d;
        op_pattern_q <= op_pattern_d;
        op_vpr_q <= op_vpr_d;
        op_data_q <= op_data_d;
        op_prog_q <= op_prog_d;
    end

    wire halted = state_q == StHalt || state_q == StReset;
    assign idle_o = state_q == StIdle && quiet;
    assign preempted_o = preempted_q;
    assign hung_o = hung_q;
    assign faulted_o = faulted_q;
    assign resetting_o = state_q == StReset;
    assign state_o = state_q;
    assign completed_fence_o = completed_q;
    assign stop_head_o = stop_head_q;
    assign stop_tail_o = stop_tail_q;
    assign stop_offset_o = stop_off_q;
    assign stop_done_o = stop_done_q;
    assign fault_type_o = ftype_q;
    assign fault_mmu_type_o = fmmu_q;
    assign fault_write_o = fwrite_q;
    assign fault_entry_o = fentry_q;
    assign fault_addr_o = faddr_q;
    assign irq_fence_o = irq_fence_q;
    assign irq_preempted_o = irq_pre_q;
    assign irq_fault_o = irq_fault_q;
    assign mc_fault_o = mc_fault_q;
    assign mc_fault_type_o = mc_type_q;
    assign mc_fault_addr_o = mc_addr_q;
    assign mc_fault_write_o = mc_write_q;
    assign tlb_invalidate_o = tlb_inv_q;
    assign entry_o = qwords;
    assign advance_o = advance_d;
    assign drop_o = drop_d;
    assign use_root_o = use_root_q;
    assign root_o = root_q;
    assign priv_o = priv_q;
    assign cmd_o = qwords;
    assign avail_o = avail_q;
    assign in_indirect_o = ind_q;
    assign op_valid_o = op_valid_q;
    assign op_src_mem_o = op_src_mem_q;
    assign op_src_space_o = op_src_space_q;
    assign op_src_addr_o = op_src_addr_q;
    assign op_dst_sink_o = op_dst_sink_q;
    assign op_dst_space_o = op_dst_space_q;
    assign op_dst_addr_o = op_dst_addr_q;
    assign op_beats_o = op_beats_q;
    assign op_pattern_o = op_pattern_q;
    assign op_vpr_check_o = op_vpr_q;
    assign op_data_o = op_data_q;
    assign op_progress_o = op_prog_q;
    assign stop_o = state_q == StStop || halted;
    assign zero_strb_o = state_q == StReset;
    assign sink_ready_o = 1'b1;
    assign busy_o = active_q && !halted;
    assign armed_o = state_q != StIdle && !halted;
    assign progress_o = progress_q;
    assign cmd_done_o = cmd_done_q;
    assign cmd_start_o = cmd_start_q;
endmodule
`default_nettype wire
