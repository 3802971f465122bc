// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_tx: the sending half of the link layer (bridge/PROTOCOL.md). Frames are built in a
// replay buffer (2^ReplayLog2 words of simple dual-port RAM) by producers and sent from it; it
// keeps them until the host acknowledges them, and replays them go-back-N.
// Producers: port 0 (link_dispatch: responses), port 1 (link_host_slave: DMA requests) and an
// internal one for IRQ messages (one per irq_i change, LEVEL and an incrementing IRQSEQ, and
// one with the current level after irq_resend_i: the engine pulses it as HELLO_RSP commits,
// so that message follows HELLO_RSP).
// Contract of a producer port (tw<N>_*):
//   - tw_req_i asks for the writer for a frame of at most MaxPayload payload words; tw_gnt_o
//     rises once the replay buffer has room for such a frame and a slot (whatever the frame's
//     own size: one constant compare instead of one per producer) and the port owns the writer
//     (one owner at a time; IRQ first, then the two ports in turn). The producer then writes payload words
//     1, 2, ... in order (tw_wvalid_i, always taken; port 0 may give two in a cycle, the next
//     one on tw0_wdata2_i with tw0_wvalid2_i, only beside tw0_wvalid_i) and ends with one
//     tw_done_i cycle (no write
//     in it) that gives word 0 (tw_head_i), TYPE and LEN (<= MaxPayload) and tw_commit_i: 1 sends
//     the frame, 0 drops it (a posted write that needs no answer). tw_gnt_o falls after done.
//   - lreset_i takes the writer from its owner at once; that port's writes and its done are then
//     ignored until that done (the producer must still give it), and it gets no grant before.
// Sending: control frames first (RESET_ACK, then NAK, then an ACK asked for by send_ack_i),
// then reliable frames in SEQ order, then an ACK owed for AckDelay cycles. Every frame carries
// ACK = ack_seq_i. A received ACK value a (peer_ack_valid_i) inside [acked, next_seq] releases
// the frames before a; peer_nak_i (with its ACK value on peer_ack_i in the same cycle) and
// ReplayTimeout cycles with unacknowledged frames sent and no release restart sending at the
// oldest unacknowledged frame, at the next frame boundary (replay_o pulses). A frame being sent
// is always finished. lreset_i (a RESET received): the buffer is emptied, every sequence number
// restarts at 0, and RESET_ACK with lreset_epoch_i goes out after the current frame.
// Output: one 32-bit word per cycle while tx_ready_i is high (frames back to back).
module link_tx #(
    parameter ReplayLog2    = 12,       // replay buffer: 2^ReplayLog2 words
    parameter MaxPayload    = 1024,     // the most payload words of a frame (< 2^ReplayLog2 - 1)
    parameter SlotLog2      = 5,        // at most 2^SlotLog2 - 1 frames unacknowledged
    parameter ReplayTimeout = 100000,   // cycles
    parameter AckDelay      = 256       // cycles
) (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        lreset_i,
    input  wire [15:0] lreset_epoch_i,
    input  wire [15:0] ack_seq_i,
    input  wire        peer_ack_valid_i,
    input  wire [15:0] peer_ack_i,
    input  wire        peer_nak_i,
    input  wire        send_ack_i,
    input  wire        send_nak_i,
    input  wire        irq_i,
    input  wire        irq_resend_i,    // one cycle: send the current level again (after HELLO_RSP)
    // producer 0
    input  wire        tw0_req_i,
    output wire        tw0_gnt_o,
    input  wire        tw0_wvalid_i,
    input  wire [31:0] tw0_wdata_i,
    input  wire        tw0_wvalid2_i,
    input  wire [31:0] tw0_wdata2_i,
    input  wire        tw0_done_i,
    input  wire        tw0_commit_i,
    input  wire [7:0]  tw0_type_i,
    input  wire [15:0] tw0_len_i,
    input  wire [31:0] tw0_head_i,
    // producer 1
    input  wire        tw1_req_i,
    output wire        tw1_gnt_o,
    input  wire        tw1_wvalid_i,
    input  wire [31:0] tw1_wdata_i,
    input  wire        tw1_done_i,
    input  wire        tw1_commit_i,
    input  wire [7:0]  tw1_type_i,
    input  wire [15:0] tw1_len_i,
    input  wire [31:0] tw1_head_i,
    // word stream to the PHY
    output wire [31:0] tx_data_o,
    output wire        tx_valid_o,
    input  wire        tx_ready_i,
    output reg         replay_o,
    output reg         nak_sent_o
);
    localparam integer PB = ReplayLog2 + 1;
    localparam integer NS = 1 << SlotLog2;
    localparam [PB-1:0] RP_WORDS = {1'b1, {ReplayLog2{1'b0}}};
    localparam [31:0] SYNC = 32'h5AA5_5247;
    localparam [2:0] T_IDLE = 3'd0, T_SYNC = 3'd1, T_W1 = 3'd2, T_W2 = 3'd3, T_HC = 3'd4,
                     T_PL = 3'd5, T_PC = 3'd6;
    localparam [1:0] K_CONST = 2'd0, K_RAM = 2'd1, K_CRC = 2'd2;

    generate
        if (ReplayLog2 < 6 || ReplayLog2 > 16) begin : g_bad_0
            `CMN_PARAM_ERROR("link_tx: ReplayLog2 must be 6..16")
        end
        if (SlotLog2 < 2 || SlotLog2 > 10) begin : g_bad_1
            `CMN_PARAM_ERROR("link_tx: SlotLog2 must be 2..10")
        end
        if (MaxPayload < 1 || MaxPayload + 1 >= (1 << ReplayLog2)) begin : g_bad_2
            `CMN_PARAM_ERROR("link_tx: the replay buffer must hold a frame of MaxPayload words")
        end
    endgenerate

    // ---- replay buffer and frame slots ---------------------------------------------------
    reg  [PB-1:0] head_q, tail_q, wp_q;     // oldest unacked frame, end of committed, writer
    localparam integer DW = SlotLog2 + 1;   // sequence distances (see send_dist)
    reg  [15:0]   acked_q, next_q, send_q;
    reg  [DW-1:0] rel_to_q;                  // low bits of the ACK value to release up to
    reg  [PB-1:0] sptr_q;                    // start of frame send_q
    reg  [ReplayLog2-1:0] slot_len [0:NS-1]; // LEN < 2^ReplayLog2: a frame fits the buffer
    reg  [7:0]    slot_type [0:NS-1];
    reg           own_q;
    reg  [1:0]    owner_q;
    reg  [1:0]    pois_q;
    reg           rr_q;
    reg           irq_lvl_q;
    reg           irq_again_q;
    reg  [15:0]   irqseq_q;

    // free words and free slots, registered from the pointers of the cycle before, and whether
    // a frame of MaxPayload words fits, registered from those: a release only adds room, and
    // for the two cycles after the tail moves (hold_q, hold2_q) nothing is granted
    localparam [PB-1:0] MAXP = MaxPayload[PB-1:0];
    reg  [PB-1:0] free_q;
    reg           slot_ok_q, hold_q, hold2_q, irq_ok_q, fit_q;
    wire          fit0 = fit_q;
    wire          fit1 = fit_q;
    wire          irq_go = !own_q && !hold_q && !hold2_q && ((irq_i != irq_lvl_q) || irq_again_q) &&
                           irq_ok_q;
    wire          g0 = !own_q && !hold_q && !hold2_q && !irq_go && tw0_req_i && !pois_q[0] &&
                       fit0 && (!rr_q || !(tw1_req_i && !pois_q[1] && fit1));
    wire          g1 = !own_q && !hold_q && !hold2_q && !irq_go && !g0 && tw1_req_i &&
                       !pois_q[1] && fit1;
    assign tw0_gnt_o = own_q && owner_q == 2'd0;
    assign tw1_gnt_o = own_q && owner_q == 2'd1;

    wire          w_act = own_q ? (owner_q == 2'd0 ? tw0_wvalid_i : tw1_wvalid_i) : 1'b0;
    wire [31:0]   w_data = owner_q == 2'd0 ? tw0_wdata_i : tw1_wdata_i;
    wire          d_act = own_q ? (owner_q == 2'd0 ? tw0_done_i : tw1_done_i) : 1'b0;
    wire          d_commit = owner_q == 2'd0 ? tw0_commit_i : tw1_commit_i;
    wire [7:0]    d_type = owner_q == 2'd0 ? tw0_type_i : tw1_type_i;
    wire [15:0]   d_len = owner_q == 2'd0 ? tw0_len_i : tw1_len_i;
    wire [31:0]   unused_d_len = {16'd0, d_len};    // LEN < 2^ReplayLog2
    wire [31:0]   d_head = owner_q == 2'd0 ? tw0_head_i : tw1_head_i;

    reg           we;
    reg  [PB-1:0] waddr;
    reg  [31:0]   wdata;
    reg           re;
    reg  [PB-1:0] raddr;
    wire [31:0]   rdata;
    always @(*) begin
        we = 1'b0;
        waddr = wp_q;
        wdata = w_data;
        if (irq_go) begin
            we = 1'b1;
            waddr = tail_q;
            wdata = {15'd0, irq_i, irqseq_q};
        end else if (d_act && d_commit) begin
            we = 1'b1;
            waddr = tail_q;
            wdata = d_head;
        end else if (w_act) begin
            we = 1'b1;
        end
    end
    wire [ReplayLog2-1:0] waddr_a = waddr[ReplayLog2-1:0];
    wire [ReplayLog2-1:0] raddr_a = raddr[ReplayLog2-1:0];
    wire unused_ptr_msb = waddr[PB-1] ^ raddr[PB-1];
    // two banks, even words in u_rpl0 and odd ones in u_rpl1, so that port 0 can write two
    // neighbouring words in one cycle (one in each bank); the sender reads one word a cycle
    localparam integer RB = ReplayLog2 - 1;
    wire          w2 = own_q && owner_q == 2'd0 && w_act && tw0_wvalid2_i && !irq_go && !d_act;
    wire [RB-1:0] wrow = waddr_a[ReplayLog2-1:1];
    wire [RB-1:0] wrow2 = wrow + {{(RB-1){1'b0}}, waddr_a[0]};  // row of the word after waddr
    wire          we0 = (we && !waddr_a[0]) || (w2 && waddr_a[0]);
    wire          we1 = (we && waddr_a[0]) || (w2 && !waddr_a[0]);
    wire [RB-1:0] wa0 = waddr_a[0] ? wrow2 : wrow;
    wire [31:0]   wd0 = waddr_a[0] ? tw0_wdata2_i : wdata;
    wire [31:0]   wd1 = waddr_a[0] ? wdata : tw0_wdata2_i;
    wire [31:0]   rbank0, rbank1;
    reg           rsel_q;
    link_ram #(.AddrBits(RB), .DataBits(32)) u_rpl0 (
        .clk_i(clk_i), .we_i(we0), .waddr_i(wa0), .wdata_i(wd0),
        .re_i(re), .raddr_i(raddr_a[ReplayLog2-1:1]), .rdata_o(rbank0));
    link_ram #(.AddrBits(RB), .DataBits(32)) u_rpl1 (
        .clk_i(clk_i), .we_i(we1), .waddr_i(wrow), .wdata_i(wd1),
        .re_i(re), .raddr_i(raddr_a[ReplayLog2-1:1]), .rdata_o(rbank1));
    always @(posedge clk_i) begin
        if (re) rsel_q <= raddr_a[0];
    end
    assign rdata = rsel_q ? rbank1 : rbank0;

    // ---- output FIFO (8 words) fed through two pipeline stages -----------------------------
    // stage A (st_*): the sender's word, or a replay buffer read; stage B (b_*): the word
    // registered, folded into the one CRC register as it is pushed (header words 1-2, then the
    // payload); the HCRC and PCRC words are made in stage B from that register, which then
    // restarts, so one CRC-32 unit serves both
    reg  [31:0] ff_q [0:7];
    reg  [2:0]  ff_rd_q, ff_wr_q;
    reg  [3:0]  ff_cnt_q;
    reg         st_v_q;
    reg  [1:0]  st_k_q;
    reg  [31:0] st_c_q;
    reg         st_crc_q;              // fold the word into the CRC
    reg         b_v_q, b_crc_q, b_pc_q;
    reg  [31:0] b_w_q;
    reg  [31:0] pcrc_q;
    wire [31:0] push_w = b_pc_q ? ~pcrc_q : b_w_q;
    wire [31:0] pcrc_n;
    link_crc32 u_pcrc (.crc_i(pcrc_q), .data_i(b_w_q), .crc_o(pcrc_n));
    assign tx_valid_o = ff_cnt_q != 4'd0;
    assign tx_data_o = ff_q[ff_rd_q];
    wire pop = tx_valid_o && tx_ready_i;
    wire room = (ff_cnt_q + {3'd0, st_v_q} + {3'd0, b_v_q}) < 4'd5;

    // ---- sender ---------------------------------------------------------------------------
    reg  [2:0]    ts_q;
    reg  [31:0]   f_w1_q, f_w2_q;
    reg  [PB-1:0] f_ptr_q;
    reg  [ReplayLog2-1:0] f_left_q;
    reg           f_ram_q;
    reg  [15:0]   f_const_q;
    reg           rack_pend_q, nak_pend_q, ack_pend_q;
    reg  [15:0]   rack_epoch_q;
    reg  [15:0]   last_ack_q;
    localparam integer ADW = $clog2(AckDelay + 2);     // ACK delay counter bits
    localparam [31:0] ADLY32 = AckDelay;
    localparam [ADW-1:0] ADLY = ADLY32[ADW-1:0];
    reg  [ADW-1:0] adly_q;                                // saturates at AckDelay
    localparam integer RTW = $clog2(ReplayTimeout + 1);    // replay timer bits
    localparam [31:0] RTO32 = ReplayTimeout;
    localparam [RTW-1:0] RTO = RTO32[RTW-1:0];
    reg  [RTW-1:0] rtmr_q;
    reg           tmr_clr_q;
    reg           rpl_pend_q;

    wire [SlotLog2-1:0] s_idx = send_q[SlotLog2-1:0];
    wire [SlotLog2-1:0] a_idx = acked_q[SlotLog2-1:0];
    // the sender's position against [acked, next], in SlotLog2 + 1 bits: fewer than 2^SlotLog2
    // frames are ever unacknowledged, and send_q never trails acked_q or leads next_q by more,
    // so these low bits decide as the whole numbers would
    wire [DW-1:0] send_dist = send_q[DW-1:0] - acked_q[DW-1:0];
    wire [DW-1:0] inflight_s = next_q[DW-1:0] - acked_q[DW-1:0];
    wire          send_in = send_dist <= inflight_s;
    wire          have_data = send_in && (send_q[DW-1:0] != next_q[DW-1:0]);
    wire          ack_due = (ack_seq_i != last_ack_q) && (adly_q == ADLY);
    wire          released = (acked_q[DW-1:0] == rel_to_q);
    // a peer's ACK value a is valid inside [acked, next]: a - acked in the window of DW bits
    wire [15:0]   peer_dist = peer_ack_i - acked_q;
    wire          peer_in = (peer_dist[15:DW] == {(16 - DW){1'b0}}) &&
                            (peer_dist[DW-1:0] <= inflight_s);
    wire [31:0]   s_len32 = {{(32 - ReplayLog2){1'b0}}, slot_len[s_idx]};
    wire [15:0]   s_len = s_len32[15:0];
    wire          unused_s_len = ^s_len32[31:16];
    wire          unacked_sent = send_in ? (send_q[DW-1:0] != acked_q[DW-1:0]) : 1'b1;

    always @(posedge clk_i) begin
        replay_o <= 1'b0;
        nak_sent_o <= 1'b0;
        free_q <= RP_WORDS - (tail_q - head_q);
        slot_ok_q <= {{(32 - DW){1'b0}}, inflight_s} < NS - 1;
        hold_q <= irq_go || (own_q && d_act && d_commit) || lreset_i;
        hold2_q <= hold_q;
        irq_ok_q <= (free_q > {{(PB-1){1'b0}}, 1'b1}) && slot_ok_q;
        fit_q <= (free_q > MAXP) && slot_ok_q;
        if (rst_i) begin
            head_q <= {PB{1'b0}};
            tail_q <= {PB{1'b0}};
            wp_q <= {PB{1'b0}};
            acked_q <= 16'd0;
            rel_to_q <= {DW{1'b0}};
            next_q <= 16'd0;
            send_q <= 16'd0;
            sptr_q <= {PB{1'b0}};
            own_q <= 1'b0;
            owner_q <= 2'd0;
            pois_q <= 2'b00;
            rr_q <= 1'b0;
            irq_lvl_q <= 1'b0;
            irq_again_q <= 1'b0;
            irqseq_q <= 16'd0;
            ff_rd_q <= 3'd0;
            ff_wr_q <= 3'd0;
            ff_cnt_q <= 4'd0;
            b_v_q <= 1'b0;
            b_crc_q <= 1'b0;
            b_pc_q <= 1'b0;
            b_w_q <= 32'd0;
            st_v_q <= 1'b0;
            st_k_q <= K_CONST;
            st_c_q <= 32'd0;
            st_crc_q <= 1'b0;
            pcrc_q <= 32'hFFFF_FFFF;
            ts_q <= T_IDLE;
            f_w1_q <= 32'd0;
            f_w2_q <= 32'd0;
            f_ptr_q <= {PB{1'b0}};
            f_left_q <= {ReplayLog2{1'b0}};
            f_ram_q <= 1'b0;
            f_const_q <= 16'd0;
            rack_pend_q <= 1'b0;
            nak_pend_q <= 1'b0;
            ack_pend_q <= 1'b0;
            rack_epoch_q <= 16'd0;
            last_ack_q <= 16'd0;
            adly_q <= {ADW{1'b0}};
            rtmr_q <= {RTW{1'b0}};
            rpl_pend_q <= 1'b0;
            tmr_clr_q <= 1'b1;
        end else begin
            // ---- writer ----
            if (irq_go) begin
                slot_len[next_q[SlotLog2-1:0]] <= {{(ReplayLog2-1){1'b0}}, 1'b1};
                slot_type[next_q[SlotLog2-1:0]] <= 8'h22;
                tail_q <= tail_q + {{(PB-1){1'b0}}, 1'b1};
                next_q <= next_q + 16'd1;
                irq_lvl_q <= irq_i;
                irq_again_q <= 1'b0;
                irqseq_q <= irqseq_q + 16'd1;
            end else if (g0 || g1) begin
                own_q <= 1'b1;
                owner_q <= g0 ? 2'd0 : 2'd1;
                rr_q <= g0;
                wp_q <= tail_q + {{(PB-1){1'b0}}, 1'b1};
            end
            if (own_q && w_act) wp_q <= wp_q + {{(PB-2){1'b0}}, w2, !w2};
            if (own_q && d_act) begin
                own_q <= 1'b0;
                if (d_commit) begin
                    slot_len[next_q[SlotLog2-1:0]] <= d_len[ReplayLog2-1:0];
                    slot_type[next_q[SlotLog2-1:0]] <= d_type;
                    tail_q <= tail_q + d_len[PB-1:0];
                    next_q <= next_q + 16'd1;
                end
            end
            if (irq_resend_i) irq_again_q <= 1'b1;
            if (pois_q[0] && tw0_done_i) pois_q[0] <= 1'b0;
            if (pois_q[1] && tw1_done_i) pois_q[1] <= 1'b0;

            // ---- acknowledgements ----
            if (peer_ack_valid_i && peer_in) rel_to_q <= peer_ack_i[DW-1:0];
            if (!released) begin
                head_q <= head_q + {1'b0, slot_len[a_idx]};
                acked_q <= acked_q + 16'd1;
            end
            if (peer_nak_i) rpl_pend_q <= 1'b1;
            // the replay timer restarts on release progress or with nothing unacknowledged sent
            // (seen a cycle late: registered, off the sequence-number compares' path)
            tmr_clr_q <= !released || !unacked_sent;
            if (tmr_clr_q) begin
                rtmr_q <= {RTW{1'b0}};
            end else begin
                rtmr_q <= rtmr_q + {{(RTW-1){1'b0}}, 1'b1};
                if (rtmr_q >= RTO) begin
                    rpl_pend_q <= 1'b1;
                    rtmr_q <= {RTW{1'b0}};
                end
            end
            if (send_ack_i) ack_pend_q <= 1'b1;
            if (send_nak_i) nak_pend_q <= 1'b1;
            if (ack_seq_i != last_ack_q) begin
                if (adly_q != ADLY) adly_q <= adly_q + {{(ADW-1){1'b0}}, 1'b1};
            end else begin
                adly_q <= {ADW{1'b0}};
            end

            // ---- output FIFO ----
            b_v_q <= st_v_q;
            b_crc_q <= st_v_q && st_crc_q;
            b_pc_q <= st_v_q && (st_k_q == K_CRC);
            b_w_q <= (st_k_q == K_RAM) ? rdata : st_c_q;
            if (b_v_q) begin
                ff_q[ff_wr_q] <= push_w;
                ff_wr_q <= ff_wr_q + 3'd1;
            end
            if (b_crc_q) pcrc_q <= pcrc_n;
            if (b_pc_q) pcrc_q <= 32'hFFFF_FFFF;
            ff_cnt_q <= ff_cnt_q + {3'd0, b_v_q} - {3'd0, pop};
            if (pop) ff_rd_q <= ff_rd_q + 3'd1;
            st_v_q <= 1'b0;
            st_crc_q <= 1'b0;
            st_k_q <= K_CONST;

            // ---- sender ----
            case (ts_q)
                T_IDLE: begin
                    if (rack_pend_q) begin
                        rack_pend_q <= 1'b0;
                        f_w1_q <= {16'd1, 8'h00, 8'h05};
                        f_w2_q <= {ack_seq_i, 16'd0};
                        last_ack_q <= ack_seq_i;
                        adly_q <= {ADW{1'b0}};
                        f_ram_q <= 1'b0;
                        f_const_q <= rack_epoch_q;
                        f_left_q <= {{(ReplayLog2-1){1'b0}}, 1'b1};
                        ts_q <= T_SYNC;
                    end else if (nak_pend_q) begin
                        nak_pend_q <= 1'b0;
                        nak_sent_o <= 1'b1;
                        f_w1_q <= {16'd0, 8'h00, 8'h02};
                        f_w2_q <= {ack_seq_i, 16'd0};
                        last_ack_q <= ack_seq_i;
                        adly_q <= {ADW{1'b0}};
                        f_left_q <= {ReplayLog2{1'b0}};
                        ts_q <= T_SYNC;
                    end else if (ack_pend_q) begin
                        ack_pend_q <= 1'b0;
                        f_w1_q <= {16'd0, 8'h00, 8'h01};
                        f_w2_q <= {ack_seq_i, 16'd0};
                        last_ack_q <= ack_seq_i;
                        adly_q <= {ADW{1'b0}};
                        f_left_q <= {ReplayLog2{1'b0}};
                        ts_q <= T_SYNC;
                    end else if ((rpl_pend_q && released) || !send_in) begin
                        // go back to the oldest unacknowledged frame
                        rpl_pend_q <= 1'b0;
                        if (rpl_pend_q && released && send_q != acked_q) replay_o <= 1'b1;
                        send_q <= acked_q;
                        sptr_q <= head_q;
                        rtmr_q <= {RTW{1'b0}};
                    end else if (have_data) begin
                        f_w1_q <= {s_len, 8'h01, slot_type[s_idx]};
                        f_w2_q <= {ack_seq_i, send_q};
                        last_ack_q <= ack_seq_i;
                        adly_q <= {ADW{1'b0}};
                        f_ram_q <= 1'b1;
                        f_ptr_q <= sptr_q;
                        f_left_q <= slot_len[s_idx];
                        sptr_q <= sptr_q + s_len[PB-1:0];
                        send_q <= send_q + 16'd1;
                        ts_q <= T_SYNC;
                    end else if (ack_due) begin
                        f_w1_q <= {16'd0, 8'h00, 8'h01};
                        f_w2_q <= {ack_seq_i, 16'd0};
                        last_ack_q <= ack_seq_i;
                        adly_q <= {ADW{1'b0}};
                        f_left_q <= {ReplayLog2{1'b0}};
                        ts_q <= T_SYNC;
                    end
                end
                T_SYNC: if (room) begin
                    st_v_q <= 1'b1;
                    st_c_q <= SYNC;
                    ts_q <= T_W1;
                end
                T_W1: if (room) begin
                    st_v_q <= 1'b1;
                    st_crc_q <= 1'b1;
                    st_c_q <= f_w1_q;
                    ts_q <= T_W2;
                end
                T_W2: if (room) begin
                    st_v_q <= 1'b1;
                    st_crc_q <= 1'b1;
                    st_c_q <= f_w2_q;
                    ts_q <= T_HC;
                end
                T_HC: if (room) begin
                    st_v_q <= 1'b1;
                    st_k_q <= K_CRC;
                    ts_q <= (f_left_q == {ReplayLog2{1'b0}}) ? T_IDLE : T_PL;
                end
                T_PL: if (room) begin
                    st_v_q <= 1'b1;
                    st_crc_q <= 1'b1;
                    st_k_q <= f_ram_q ? K_RAM : K_CONST;
                    st_c_q <= {16'd0, f_const_q};
                    f_ptr_q <= f_ptr_q + {{(PB-1){1'b0}}, 1'b1};
                    f_left_q <= f_left_q - {{(ReplayLog2-1){1'b0}}, 1'b1};
                    if (f_left_q == {{(ReplayLog2-1){1'b0}}, 1'b1}) ts_q <= T_PC;
                end
                T_PC: if (room) begin
                    st_v_q <= 1'b1;
                    st_k_q <= K_CRC;
                    ts_q <= T_IDLE;
                end
                default: ts_q <= T_IDLE;
            endcase

            // ---- link reset ----
            if (lreset_i) begin
                head_q <= {PB{1'b0}};
                tail_q <= {PB{1'b0}};
                acked_q <= 16'd0;
                rel_to_q <= {DW{1'b0}};
                next_q <= 16'd0;
                send_q <= 16'd0;
                sptr_q <= {PB{1'b0}};
                own_q <= 1'b0;
                if (own_q) pois_q[owner_q[0]] <= !d_act;
                rack_pend_q <= 1'b1;
                rack_epoch_q <= lreset_epoch_i;
                nak_pend_q <= 1'b0;
                ack_pend_q <= 1'b0;
                rpl_pend_q <= 1'b0;
                last_ack_q <= 16'd0;
                rtmr_q <= {RTW{1'b0}};
            end
        end
    end

    always @(*) begin
        re = (ts_q == T_PL) && room && f_ram_q;
        raddr = f_ptr_q;
    end
endmodule
`default_nettype wire
