// SPDX-License-Identifier: Apache-2.0
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
        StCmdRd   = 4'd3,   // reading a command, then (cmd_in_q) acting on its decode
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

    // Timing: the priority chain below (reset, halt, fault, hang, then the state's branch)
    // decides the state and the control bits only. Every wide register loads through an
    // enable of its own (its state and, at most, one event), in the always_ff blocks after
    // the chain: the operation's payload, the entry's and the command's fields, the fault
    // record and the stop registers (synth/README.md).
    state_e      state_q, state_d;
    // the qwords read into the sequencer
    logic [63:0] q_q [0:3];
    logic [2:0]  qn_q;
    // the command's decode (dma_decode), registered: StCmdRd acts in the cycle after its read
    logic        cmd_in_q;
    logic [7:0]  dop_q;
    logic [1:0]  dsrc_q, ddst_q;
    logic        dirq_q, dbad_q, dunpriv_q, dsize_nz_q;
    logic [31:0] dimm_q;
    // the entry
    logic        active_q, active_d;          // an entry is in progress
    logic [63:0] buf_q;
    logic [31:0] len_q, pos_q;
    logic [31:0] fence_id_q;
    logic        use_root_q;
    logic [51:0] root_q;
    logic        eirq_q;
    logic        priv_q;                      // the entry is privileged (PRIV)
    logic        ind_q, ind_d;                // inside an INDIRECT buffer
    logic [63:0] ibuf_q;
    logic [31:0] ilen_q, ipos_q;
    logic [63:0] ind_ts_q;                    // the INDIRECT's fetch time
    // the command
    logic [63:0] cur_q;                       // host address of the command (or entry)
    logic [2:0]  avail_q;
    logic [2:0]  nq_q;                        // the command's qwords
    logic [63:0] cmd_ts_q;
    logic        data_cmd_q, data_cmd_d;      // the command is a COPY or FILL
    logic        wait_q, wait_d;              // the command is a WAIT
    logic [63:0] wval_q;
    logic [1:0]  wspace_q;
    logic [63:0] waddr_q;
    logic [5:0]  poll_q;
    // a qword write
    logic [1:0]  wr_kind_q;
    logic [1:0]  wr_space_q;
    logic [63:0] wr_addr_q;
    logic [63:0] wr_value_q;
    logic        wr_irq_q;
    // state seen by the host
    logic        pend_q, pend_d;              // a preemption is requested
    logic        stop_data_q, stop_data_d;    // the preemption stopped a COPY or FILL
    logic        preempted_q, preempted_d, hung_q, hung_d, faulted_q, faulted_d;
    logic [31:0] completed_q;
    logic [15:0] stop_head_q, stop_tail_q;
    logic [31:0] stop_off_q, stop_done_q;
    // ... and their candidates, loaded in every cycle: the host's copy takes them in the cycle
    // after the one that removes the queue (stop_en_q)
    logic [15:0] sc_head_q, sc_tail_q;
    logic [31:0] sc_off_q, sc_done_q;
    logic        stop_en_q;
    logic        done_en_q;                   // an entry completed: COMPLETED_FENCE loads
    // the fault record: what a halt in this cycle would record (fc_*, loaded in every cycle
    // before the halt), and what the host sees (loaded from fc_* in the halt's first cycle)
    logic [3:0]  fc_type_q, ftype_q;
    logic [2:0]  fc_mmu_q, fmmu_q;
    logic        fc_write_q, fwrite_q;
    logic [15:0] fc_entry_q, fentry_q;
    logic [63:0] fc_addr_q, faddr_q;
    logic        fc_mc_q;                     // ... an MMU or VPR fault (MC_FAULT_*)
    logic        halt_prev_q;
    // pulses
    logic        irq_fence_d, irq_pre_d, tlb_inv_d, advance_d, drop_d;
    logic        progress_d, cmd_done_d;
    logic        irq_fence_q, irq_pre_q, tlb_inv_q, advance_q, drop_q;
    logic        progress_q, cmd_done_q;
    logic [63:0] cmd_start_q;
    // the data mover operation being handed over
    logic        op_valid_q, op_valid_d;
    logic        op_src_mem_q, op_dst_sink_q;
    logic [1:0]  op_src_space_q, op_dst_space_q;
    logic [63:0] op_src_addr_q, op_dst_addr_q;
    logic [60:0] op_beats_q;
    logic [63:0] op_pattern_q;
    logic        op_vpr_q, op_data_q, op_prog_q;

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
    // StCmd's own outcome, before the chain: the INDIRECT ends, the entry ends, or the
    // next command is fetched (when no preemption is pending).
    wire ind_end = ind_q && ipos_q == ilen_q;
    wire buf_end = !ind_q && pos_q == len_q;
    wire fetch = state_q == StCmd && !ind_end && !buf_end && !pend_q;
    // The ring's head moves a cycle after advance_d or drop_d (registered for timing): StIdle
    // acts (a new entry, or a preemption's stop registers) only once head_i and work_i show it.
    wire ring_moving = advance_q || drop_q;
    wire halt_first = state_q == StHalt && !halt_prev_q;
    // The chain's head takes none of this cycle (no engine reset, halt, fault or hang): the
    // state's own branch runs. The counters below use it beside their state's condition.
    wire go = !reset_i && !soft_rst_i && state_q != StReset && state_q != StHalt && !fault_i &&
              !hang_i;
    // A command of the current buffer completes and its qwords are passed: one with nothing
    // to move (after its decode), a COPY, FILL or WAIT that ended, a FENCE or TIMESTAMP
    // written.
    wire quick_cmd = dop_q == OP_NOP || dop_q == OP_TLB_INV ||
                     ((dop_q == OP_COPY || dop_q == OP_FILL) && !dsize_nz_q);
    wire step = go && (
        (state_q == StCmdRd && cmd_in_q && !dbad_q && !dunpriv_q && quick_cmd) ||
        (state_q == StData && op_done_i && !(wait_q && q0 < wval_q)) ||
        (state_q == StWrResp && !wr_pending_i && (wr_kind_q == WR_FENCE || wr_kind_q == WR_TS)));

    always_comb begin
        state_d = state_q;
        active_d = active_q;
        ind_d = ind_q;
        data_cmd_d = data_cmd_q;
        wait_d = wait_q;
        pend_d = pend_q || preempt_i;
        stop_data_d = stop_data_q;
        preempted_d = preempted_q;
        hung_d = hung_q;
        faulted_d = faulted_q;
        irq_fence_d = 1'b0;
        irq_pre_d = 1'b0;
        tlb_inv_d = 1'b0;
        advance_d = 1'b0;
        drop_d = 1'b0;
        progress_d = 1'b0;
        cmd_done_d = 1'b0;
        op_valid_d = op_valid_q && !op_ready_i;

        if (reset_i || (soft_rst_i && state_q != StIdle && state_q != StReset)) begin
            // Engine reset: drain, then drop the queue (StReset).
            state_d = StReset;
            pend_d = 1'b0;
        end else if (state_q == StReset) begin
            pend_d = 1'b0;
            if (quiet) begin
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
            faulted_d = 1'b1;
            state_d = StHalt;
        end else if (hang_i) begin
            hung_d = 1'b1;
            state_d = StHalt;
        end else begin
            case (state_q)
                StIdle: if (!soft_rst_i && !ring_moving) begin
                    if (pend_q) begin
                        // Nothing in progress: the preemption completes at once.
                        drop_d = 1'b1;
                        pend_d = preempt_i;
                        state_d = StWrDrain;
                    end else if (enable_i && work_i) begin
                        active_d = 1'b1;
                        preempted_d = 1'b0;
                        ind_d = 1'b0;
                        op_valid_d = 1'b1;
                        state_d = StEntry;
                    end
                end
                StEntry: if (op_done_i) begin
                    if (entry_bad_i || (!entry_priv_i && !entry_use_root_i)) begin
                        // A user entry without its own root would translate through MMU_ROOT
                        // (another address space) or, with the MMU off, not at all.
                        faulted_d = 1'b1;
                        state_d = StHalt;
                    end else begin
                        state_d = StCmd;
                    end
                end
                StCmd: begin
                    if (ind_end) begin
                        // The INDIRECT buffer is done: so is the INDIRECT command.
                        ind_d = 1'b0;
                        cmd_done_d = 1'b1;
                        progress_d = 1'b1;
                    end else if (buf_end) begin
                        state_d = StWrDrain;
                    end else if (pend_q) begin
                        stop_data_d = 1'b0;
                        state_d = StStop;
                    end else begin
                        op_valid_d = 1'b1;
                        state_d = StCmdRd;
                    end
                end
                StCmdRd: if (cmd_in_q) begin
                    wait_d = 1'b0;
                    data_cmd_d = 1'b0;
                    state_d = StCmd;
                    if (dbad_q || dunpriv_q) begin
                        faulted_d = 1'b1;
                        state_d = StHalt;
                    end else begin
                        case (dop_q)
                            OP_COPY, OP_FILL: if (dsize_nz_q) begin
                                data_cmd_d = 1'b1;
                                op_valid_d = 1'b1;
                                state_d = StData;
                            end
                            OP_FENCE, OP_TIMESTAMP: state_d = StWrDrain;
                            OP_INDIRECT: ind_d = 1'b1;
                            OP_TLB_INV: tlb_inv_d = 1'b1;
                            OP_WAIT: begin
                                wait_d = 1'b1;
                                op_valid_d = 1'b1;
                                state_d = StData;
                            end
                            OP_NOP: ;
                            default: ;  // dma_decode refused every other opcode
                        endcase
                        // Commands with nothing (left) to move complete here.
                        if (dop_q != OP_INDIRECT && state_d == StCmd) begin
                            cmd_done_d = 1'b1;
                            progress_d = 1'b1;
                        end
                    end
                end
                StData: begin
                    if (op_done_i) begin
                        if (wait_q && q0 < wval_q) begin
                            state_d = StPoll;
                        end else begin
                            cmd_done_d = 1'b1;
                            progress_d = 1'b1;
                            data_cmd_d = 1'b0;
                            wait_d = 1'b0;
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
                        op_valid_d = 1'b1;
                        state_d = StData;
                    end
                end
                StWrDrain: if (!op_valid_q && !op_active_i && !wr_pending_i) begin
                    op_valid_d = 1'b1;
                    state_d = StWrOp;
                end
                StWrOp: if (op_done_i) state_d = StWrResp;
                StWrResp: if (!wr_pending_i) begin
                    case (wr_kind_q)
                        WR_FENCE, WR_TS: begin
                            irq_fence_d = wr_kind_q == WR_FENCE && wr_irq_q;
                            cmd_done_d = 1'b1;
                            progress_d = 1'b1;
                            state_d = StCmd;
                        end
                        WR_DONE: begin
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
                    drop_d = 1'b1;
                    active_d = 1'b0;
                    ind_d = 1'b0;
                    data_cmd_d = 1'b0;
                    wait_d = 1'b0;
                    pend_d = preempt_i;
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
            cmd_in_q <= 1'b0;
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
            done_en_q <= 1'b0;
            halt_prev_q <= 1'b0;
            irq_fence_q <= 1'b0;
            irq_pre_q <= 1'b0;
            tlb_inv_q <= 1'b0;
            advance_q <= 1'b0;
            drop_q <= 1'b0;
            progress_q <= 1'b0;
            cmd_done_q <= 1'b0;
            op_valid_q <= 1'b0;
        end else begin
            state_q <= state_d;
            // The qword counter restarts when the mover takes an operation: a sink
            // operation's beats all come after that.
            if (op_valid_q && op_ready_i) qn_q <= 3'd0;
            else if (sink_fire) qn_q <= qn_q + 3'd1;
            cmd_in_q <= state_q == StCmdRd && op_done_i && !cmd_in_q;
            active_q <= active_d;
            ind_q <= ind_d;
            data_cmd_q <= data_cmd_d;
            wait_q <= wait_d;
            pend_q <= pend_d;
            stop_data_q <= stop_data_d;
            preempted_q <= preempted_d;
            hung_q <= hung_d;
            faulted_q <= faulted_d;
            // A cycle after the entry completes (fence_id_q holds until the next entry's
            // StEntry, at least two cycles on), so that the enable is a register.
            done_en_q <= go && state_q == StWrResp && !wr_pending_i && wr_kind_q == WR_DONE;
            if (done_en_q) completed_q <= fence_id_q;
            halt_prev_q <= state_q == StHalt;
            irq_fence_q <= irq_fence_d;
            irq_pre_q <= irq_pre_d;
            tlb_inv_q <= tlb_inv_d;
            advance_q <= advance_d;
            drop_q <= drop_d;
            progress_q <= progress_d;
            cmd_done_q <= cmd_done_d;
            op_valid_q <= op_valid_d;
        end
        // Data registers, qualified by the state above.
        if (sink_fire) q_q[qn_q[1:0]] <= sink_data_i;
        // The offsets: the entry's buffer from 0 (an ended INDIRECT counts its 24 bytes there),
        // the INDIRECT's from 0 while inside one.
        if (state_q == StIdle) pos_q <= 32'd0;
        else if (go && state_q == StCmd && ind_end) pos_q <= pos_q + 32'd24;
        else if (step && !ind_q) pos_q <= pos_q + nq_bytes;
        if (!ind_q) ipos_q <= 32'd0;
        else if (step) ipos_q <= ipos_q + nq_bytes;
        // The command's size: loaded through its read, so that it holds the decode's in the
        // cycle StCmdRd acts (cmd_in_q), and after.
        if (state_q == StCmdRd) nq_q <= dec_nq_i;
        poll_q <= state_q == StPoll ? poll_q + 6'd1 : 6'd0;
        // The kind of qword write StWrDrain makes, from the state that goes there.
        case (state_q)
            StIdle, StStop: wr_kind_q <= WR_PREEMPT;
            StCmd: wr_kind_q <= WR_DONE;
            StCmdRd: wr_kind_q <= dop_q == OP_FENCE ? WR_FENCE : WR_TS;
            default: ;
        endcase
        // Read with cmd_done_q only: an INDIRECT completes at StCmd's ind_end, every other
        // command with its own fetch time.
        cmd_start_q <= (state_q == StCmd && ind_end) ? ind_ts_q : cmd_ts_q;
        // The decode of the qwords as they stand: read in StCmdRd's cycle after the read.
        dop_q <= dec_op_i;
        dsrc_q <= dec_src_i;
        ddst_q <= dec_dst_i;
        dirq_q <= dec_irq_i;
        dimm_q <= dec_imm_i;
        dbad_q <= dec_bad_i;
        dunpriv_q <= dec_unpriv_i;
        dsize_nz_q <= size_nz;
    end

    // Payload registers that only their own state reads later: they load in every cycle of
    // the state that fetches them, so their enables are a state compare and not the end of
    // the priority chain. The last load is in the cycle the state ends, with the values the
    // branch acts on; when a reset, fault or hang ends it instead, nothing reads them before
    // the next fetch loads them again.
    always_ff @(posedge clk_i) begin
        if (rst_i || (soft_rst_i && state_q == StIdle)) begin
            use_root_q <= 1'b0;
            root_q <= 52'd0;
            priv_q <= 1'b0;
        end else if (state_q == StEntry) begin
            // The entry's root and privilege: the commands' translation and decode use them.
            use_root_q <= entry_use_root_i;
            root_q <= entry_root_i;
            priv_q <= entry_priv_i;
        end
        if (state_q == StEntry) begin
            // The entry's buffer, length, fence and interrupt bit: read from StCmd on.
            buf_q <= entry_buf_i;
            len_q <= entry_len_i;
            fence_id_q <= entry_fence_i;
            eirq_q <= entry_irq_i;
        end
        // The command's address, size in the buffer and fetch time: loaded at each fetch
        // (and the entry's address when an entry starts), read by a hang's fault record and
        // DMA_PERF_LAST_CMD.
        if (state_q == StIdle) cur_q <= entry_addr_i;
        if (fetch) begin
            cur_q <= cmd_addr;
            avail_q <= avail;
            cmd_ts_q <= timestamp_i;
        end
        if (state_q == StCmdRd) begin
            // A FENCE or TIMESTAMP's target, read in StWrDrain and StWrResp (wr_kind_q says).
            wr_space_q <= ddst_q;
            wr_addr_q <= q1;
            wr_value_q <= q2;
            wr_irq_q <= dirq_q;
            // A WAIT's address and value, read in StData and StPoll (wait_q says).
            wspace_q <= dsrc_q;
            waddr_q <= q1;
            wval_q <= q2;
            // An INDIRECT's buffer: not while inside one (dma_decode refuses a nested INDIRECT).
            if (!ind_q) begin
                ibuf_q <= q1;
                ilen_q <= q2[31:0];
                ind_ts_q <= cmd_ts_q;
            end
        end
    end

    // The data mover operation's payload loads while no operation waits to be taken (the mover
    // copies it when it takes one), chosen by the state alone: the chain sets only op_valid_q,
    // in the cycle of the payload's last load.
    always_ff @(posedge clk_i) begin
        if (!op_valid_q) begin
            case (state_q)
                StIdle: begin  // the ring entry
                    op_src_mem_q <= 1'b1;
                    op_src_space_q <= SPACE_HOST;
                    op_src_addr_q <= entry_addr_i;
                    op_dst_sink_q <= 1'b1;
                    op_beats_q <= 61'd4;
                    op_vpr_q <= 1'b0;
                    op_data_q <= 1'b0;
                    op_prog_q <= 1'b1;
                end
                StCmd: begin  // the next command's qwords
                    op_src_mem_q <= 1'b1;
                    op_src_space_q <= SPACE_HOST;
                    op_src_addr_q <= cmd_addr;
                    op_dst_sink_q <= 1'b1;
                    op_beats_q <= {58'd0, avail};
                    op_vpr_q <= 1'b0;
                    op_data_q <= 1'b0;
                    op_prog_q <= 1'b1;
                end
                StCmdRd: if (dop_q == OP_WAIT) begin  // a WAIT's first read
                    op_src_mem_q <= 1'b1;
                    op_src_space_q <= dsrc_q;
                    op_src_addr_q <= q1;
                    op_dst_sink_q <= 1'b1;
                    op_beats_q <= 61'd1;
                    op_vpr_q <= 1'b0;
                    op_data_q <= 1'b0;
                    op_prog_q <= 1'b0;  // WAIT's reads are not progress
                end else begin  // a COPY or FILL
                    op_src_mem_q <= dop_q == OP_COPY;
                    op_src_space_q <= dsrc_q;
                    op_src_addr_q <= q1;
                    op_dst_sink_q <= 1'b0;
                    op_dst_space_q <= ddst_q;
                    op_dst_addr_q <= dop_q == OP_COPY ? q2 : q1;
                    op_beats_q <= dop_q == OP_COPY ? q3[63:3] : q2[63:3];
                    op_pattern_q <= {dimm_q, dimm_q};
                    op_vpr_q <= dop_q == OP_COPY;
                    op_data_q <= 1'b1;
                    op_prog_q <= 1'b1;
                end
                StPoll: begin  // a WAIT's next read
                    op_src_mem_q <= 1'b1;
                    op_src_space_q <= wspace_q;
                    op_src_addr_q <= waddr_q;
                    op_dst_sink_q <= 1'b1;
                    op_beats_q <= 61'd1;
                    op_vpr_q <= 1'b0;
                    op_data_q <= 1'b0;
                    op_prog_q <= 1'b0;
                end
                StWrDrain: begin  // a qword write
                    op_src_mem_q <= 1'b0;
                    op_dst_sink_q <= 1'b0;
                    op_beats_q <= 61'd1;
                    op_vpr_q <= 1'b0;
                    op_data_q <= 1'b0;
                    op_prog_q <= 1'b1;
                    case (wr_kind_q)
                        WR_FENCE: begin
                            op_dst_space_q <= wr_space_q;
                            op_dst_addr_q <= wr_addr_q;
                            op_pattern_q <= wr_value_q;
                        end
                        WR_TS: begin
                            op_dst_space_q <= wr_space_q;
                            op_dst_addr_q <= wr_addr_q;
                            op_pattern_q <= timestamp_i;
                        end
                        WR_DONE: begin
                            op_dst_space_q <= SPACE_HOST;
                            op_dst_addr_q <= fence_addr_i;
                            op_pattern_q <= {32'd0, fence_id_q};
                        end
                        default: begin
                            op_dst_space_q <= SPACE_HOST;
                            op_dst_addr_q <= fence_addr_i + 64'd8;
                            op_pattern_q <= {32'd0, preempt_fence_i};
                        end
                    endcase
                end
                default: ;
            endcase
        end
    end

    // The stop registers: they take what the cycle that removes the queue (a preemption's or
    // engine reset's, the cycle that sets drop_d) saw, in the cycle after it. The enables
    // leave out the chain's reset and halt terms: a reset that lands in the same cycle loads
    // them again when its own drain ends.
    wire stop_reset = state_q == StReset && quiet;
    wire stop_idle = state_q == StIdle && pend_q && !soft_rst_i && !ring_moving;
    wire stop_pre = go && state_q == StStop && quiet && !wr_pending_i;
    always_ff @(posedge clk_i) begin
        // (by the state alone: stop_en_q chooses the cycle)
        sc_head_q <= head_i;
        sc_tail_q <= tail_i;
        sc_off_q <= (state_q == StIdle || (state_q == StReset && !active_q)) ? 32'd0 : pos_q;
        sc_done_q <= (state_q == StReset ? data_cmd_q : state_q == StStop && stop_data_q) ?
                     done_bytes_i : 32'd0;
        if (rst_i || (soft_rst_i && state_q == StIdle)) begin
            stop_en_q <= 1'b0;
            stop_head_q <= 16'd0;
            stop_tail_q <= 16'd0;
            stop_off_q <= 32'd0;
            stop_done_q <= 32'd0;
        end else begin
            stop_en_q <= stop_reset || stop_idle || stop_pre;
            if (stop_en_q) begin
                stop_head_q <= sc_head_q;
                stop_tail_q <= sc_tail_q;
                stop_off_q <= sc_off_q;
                stop_done_q <= sc_done_q;
            end
        end
    end

    // The fault record. fc_* hold what a halt in this cycle records, in the chain's order
    // (a data mover fault, the watchdog, a bad or unprivileged entry, a bad or unprivileged
    // command), and stop loading once halted; the host's copy takes them in the halt's first
    // cycle, with the interrupt.
    always_ff @(posedge clk_i) begin
        if (state_q != StHalt) begin
            fc_type_q <= fault_i ? fault_type_i :
                         hang_i ? T_HANG :
                         state_q == StEntry ? (entry_bad_i ? T_BAD_ENTRY : T_PRIV) :
                         dbad_q ? T_BAD_CMD : T_PRIV;
            fc_mmu_q <= fault_i ? fault_mmu_type_i : 3'd0;
            fc_write_q <= fault_i && fault_write_i;
            fc_entry_q <= head_i;
            fc_addr_q <= fault_i ? fault_addr_i : cur_q;
            fc_mc_q <= fault_i && (fault_type_i == T_MMU || fault_type_i == T_VPR);
        end
        if (rst_i || (soft_rst_i && state_q == StIdle)) begin
            ftype_q <= 4'd0;
            fmmu_q <= 3'd0;
            fwrite_q <= 1'b0;
            fentry_q <= 16'd0;
            faddr_q <= 64'd0;
        end else if (halt_first) begin
            ftype_q <= fc_type_q;
            fmmu_q <= fc_mmu_q;
            fwrite_q <= fc_write_q;
            fentry_q <= fc_entry_q;
            faddr_q <= fc_addr_q;
        end
    end

    wire halted = state_q == StHalt || state_q == StReset;
    assign idle_o = state_q == StIdle && quiet && !ring_moving;
    assign preempted_o = preempted_q;
    assign hung_o = hung_q;
    assign faulted_o = faulted_q;
    // The reset's last step is the head moving to the tail, in the cycle after StReset ends.
    assign resetting_o = state_q == StReset || (state_q == StIdle && drop_q);
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
    assign irq_fault_o = halt_first;
    assign mc_fault_o = halt_first && fc_mc_q;
    assign mc_fault_type_o = fc_type_q == T_VPR ? MC_VPR : fc_mmu_q;
    assign mc_fault_addr_o = fc_addr_q[47:0];
    assign mc_fault_write_o = fc_write_q;
    assign tlb_invalidate_o = tlb_inv_q;
    assign entry_o = qwords;
    assign advance_o = advance_q;
    assign drop_o = drop_q;
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
