// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_rx: the receiving half of the link layer (bridge/PROTOCOL.md, "The link layer"). Takes
// the frames link_rx_align finds (with its PCRC verdict on the last beat), and:
//   - a good reliable frame with SEQ = rx_next is stored whole in the receive buffer (a
//     RxWindow-word simple dual-port RAM: one descriptor word {LEN[31:16], class[15:8],
//     TYPE[7:0]}, then the payload; the class is link_dispatch's first decision, decoded
//     here: bit 8 a request with parameters (TYPE 0x10-0x14), bit 9 a DMA answer (0xA0, 0xA1)
//     with LEN > 0) and rx_next increments; the frame becomes visible to the reader
//     (buf_wptr_o) only after its PCRC matched, so nothing acts on part of a frame;
//   - one with an older SEQ is a duplicate: dropped, send_ack_o;
//   - one with a newer SEQ, or a reliable frame with a bad PCRC: dropped and NAKed, at most
//     once per rx_next until it moves or NakRetry cycles pass; the NAK is requested
//     (send_nak_o) only once every accepted frame has been consumed, so that its ACK field
//     (ack_seq_o) names rx_next and acknowledges no frame that still holds buffer space;
//   - a good reliable frame with SEQ = rx_next that does not fit the free space (a host
//     overrunning its credit) is dropped silently; the host's replay timer recovers it;
//   - control frames act as they pass: ACK (peer_ack), NAK (peer_nak_o), KEEPALIVE
//     (send_ack_o), RESET (lreset_o with its EPOCH), RESET_ACK (ignored: the device never
//     sends RESET); an unknown non-reliable TYPE pulses bad_frame_o;
//   - every good frame's ACK field is passed on (peer_ack_valid_o, peer_ack_o).
// Contract:
//   - fr_ready_o is always 1: the buffer space is checked at the header.
//   - The reader (link_dispatch) reads two words at a time through buf_re_i/buf_raddr_i (next
//     cycle: words a = buf_raddr_i and a + 1, the even one of them on buf_rdata_o[31:0] and the
//     odd one on [63:32]: the buffer is two banks of even and odd words, so any two neighbours
//     come in one cycle, each from its bank, and the reader puts them in order), reports the
//     end of the consumed area (buf_rptr_i) and pulses consumed_i once per frame
//     that left the buffer: ack_seq_o counts those (the ACK field the device sends).
//   - lreset_o (one cycle, a good RESET): rx_next, ack_seq and the NAK state restart at 0;
//     lreset_ptr_o is buf_wptr_o at that moment: the reader drops the frames before it that it
//     has not begun.
module link_rx #(
    parameter RxWindowLog2 = 12,       // receive buffer: 2^RxWindowLog2 words
    parameter NakRetry     = 100000    // cycles before a NAK for the same rx_next may repeat
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    fr_valid_i,
    output wire                    fr_ready_o,
    input  wire                    fr_hdr_i,
    input  wire [63:0]             fr_data_i,
    input  wire                    fr_last_i,
    input  wire                    fr_crc_ok_i,
    // receive buffer, read side
    input  wire                    buf_re_i,
    input  wire [RxWindowLog2-1:0] buf_raddr_i,
    output wire [63:0]             buf_rdata_o,
    output wire [RxWindowLog2:0]   buf_wptr_o,
    input  wire [RxWindowLog2:0]   buf_rptr_i,
    input  wire                    consumed_i,
    // link state
    output wire [15:0]             ack_seq_o,
    output reg                     peer_ack_valid_o,
    output reg  [15:0]             peer_ack_o,
    output reg                     peer_nak_o,
    output reg                     send_ack_o,
    output wire                    send_nak_o,
    output reg                     lreset_o,
    output wire [15:0]             lreset_epoch_o,
    output wire [RxWindowLog2:0]   lreset_ptr_o,
    output reg                     crc_err_o,
    output reg                     bad_frame_o
);
    localparam integer PB = RxWindowLog2 + 1;   // pointer bits (one more than the address)
    localparam [PB-1:0] RX_WINDOW = {1'b1, {RxWindowLog2{1'b0}}};

    generate
        if (RxWindowLog2 < 6 || RxWindowLog2 > 15) begin : g_bad_0
            `CMN_PARAM_ERROR("link_rx: RxWindowLog2 must be 6..15")
        end
    endgenerate

    reg  [PB-1:0] wptr_q, wptr_d;       // committed
    reg  [PB-1:0] wr_q, wr_d;           // next payload word of the frame being received
    reg  [15:0]   rx_next_q, rx_next_d;
    reg  [15:0]   ack_seq_q;
    reg  [7:0]    type_q, type_d;
    reg           rel_q, rel_d;
    reg  [15:0]   len_q, len_d;
    reg  [15:0]   seq_q, seq_d;
    reg  [15:0]   ackf_q, ackf_d;
    reg           acc_q, acc_d;         // being stored
    reg           first_q, first_d;     // next payload word is word 0
    reg  [15:0]   epoch_q, epoch_d;
    reg           nak_done_q, nak_done_d;
    reg           nak_pend_q, nak_pend_d;
    localparam integer NTW = $clog2(NakRetry + 1);          // NAK timer bits
    localparam [31:0] NRT32 = NakRetry;
    localparam [NTW-1:0] NRT = NRT32[NTW-1:0];
    reg  [NTW-1:0] nak_tmr_q, nak_tmr_d;

    reg           we;
    reg  [PB-1:0] waddr;   // pointer; its low RxWindowLog2 bits address the RAM
    reg  [31:0]   wdata;

    wire [RxWindowLog2-1:0] waddr_a = waddr[RxWindowLog2-1:0];
    wire                    unused_waddr = waddr[PB-1];

    // two banks: even words in u_buf0, odd words in u_buf1; a read of words a and a + 1 reads
    // row (a + 1) / 2 of the even bank and row a / 2 of the odd one. The write is registered
    // (it lands a cycle after its beat), and so is the committed end the reader sees
    // (buf_wptr_o): the reader takes only words written in earlier cycles (the word after the
    // last one it may read, it throws away), so the banks need no collision logic
    // (OldOnCollision 0) and the frame decode does not reach the block RAMs' inputs.
    localparam integer RB = RxWindowLog2 - 1;
    reg                    we_q;
    reg [RxWindowLog2-1:0] wa_q;
    reg [31:0]             wd_q;
    reg [PB-1:0]           wptr_vis_q;
    always @(posedge clk_i) begin
        we_q <= we;
        wa_q <= waddr_a;
        wd_q <= wdata;
        wptr_vis_q <= rst_i ? {PB{1'b0}} : wptr_q;
    end
    wire [RB-1:0] rrow_odd = buf_raddr_i[RxWindowLog2-1:1];
    wire [RB-1:0] rrow_even = rrow_odd + {{(RB-1){1'b0}}, buf_raddr_i[0]};
    wire [31:0]   bank0_q, bank1_q;
    link_ram #(.AddrBits(RB), .DataBits(32), .OldOnCollision(0)) u_buf0 (
        .clk_i(clk_i), .we_i(we_q && !wa_q[0]), .waddr_i(wa_q[RxWindowLog2-1:1]), .wdata_i(wd_q),
        .re_i(buf_re_i), .raddr_i(rrow_even), .rdata_o(bank0_q));
    link_ram #(.AddrBits(RB), .DataBits(32), .OldOnCollision(0)) u_buf1 (
        .clk_i(clk_i), .we_i(we_q && wa_q[0]), .waddr_i(wa_q[RxWindowLog2-1:1]), .wdata_i(wd_q),
        .re_i(buf_re_i), .raddr_i(rrow_odd), .rdata_o(bank1_q));
    assign buf_rdata_o = {bank1_q, bank0_q};

    assign fr_ready_o = 1'b1;
    assign buf_wptr_o = wptr_vis_q;
    assign lreset_ptr_o = wptr_vis_q;   // no frame commits in the 4 cycles after a RESET's PCRC
    assign lreset_epoch_o = epoch_q;
    assign ack_seq_o = ack_seq_q;
    assign send_nak_o = nak_pend_q && (ack_seq_q == rx_next_q);

    // the header fields of the frame a beat belongs to
    wire [7:0]  cur_type = fr_hdr_i ? fr_data_i[7:0] : type_q;
    wire        cur_rel  = fr_hdr_i ? fr_data_i[8] : rel_q;
    wire [15:0] cur_len  = fr_hdr_i ? fr_data_i[31:16] : len_q;
    wire [15:0] cur_seq  = fr_hdr_i ? fr_data_i[47:32] : seq_q;
    wire [15:0] cur_ackf = fr_hdr_i ? fr_data_i[63:48] : ackf_q;
    wire          h_next = (fr_data_i[47:32] == rx_next_q);
    wire          cls_req = (cur_type >= 8'h10) && (cur_type <= 8'h14);
    wire          cls_dma = (cur_type[7:1] == 7'h50) && (cur_len != 16'd0);
    // free words, registered: a frame commits at its last beat, and the next header comes at
    // least four cycles later (its SYNC, words 1-2 and HCRC pass link_rx_align first), so
    // room_q has seen that commit by then; buf_rptr_i only grows the room
    reg  [PB-1:0] room_q;
    wire [16:0]   need = {1'b0, fr_data_i[31:16]} + 17'd1;
    wire          fits = (need <= {{(17 - PB){1'b0}}, room_q});
    wire [15:0]   c_dist = cur_seq - rx_next_q;

    // the pulses to the other blocks, registered (lreset_o one cycle after the RESET's PCRC:
    // the link state here restarts with it, so that every block sees the reset in one cycle)
    reg           pav_d, pnak_d, sack_d, lrst_d, cerr_d, bad_d;
    reg  [15:0]   pa_d;

    always @(*) begin
        wptr_d = wptr_q;
        wr_d = wr_q;
        rx_next_d = rx_next_q;
        type_d = type_q;
        rel_d = rel_q;
        len_d = len_q;
        seq_d = seq_q;
        ackf_d = ackf_q;
        acc_d = acc_q;
        first_d = first_q;
        epoch_d = epoch_q;
        nak_done_d = nak_done_q;
        nak_pend_d = nak_pend_q;
        nak_tmr_d = nak_tmr_q;
        we = 1'b0;
        waddr = wr_q;
        wdata = fr_data_i[31:0];
        pav_d = 1'b0;
        pa_d = cur_ackf;
        pnak_d = 1'b0;
        sack_d = 1'b0;
        lrst_d = 1'b0;
        cerr_d = 1'b0;
        bad_d = 1'b0;

        if (nak_done_q) begin
            nak_tmr_d = nak_tmr_q + {{(NTW-1){1'b0}}, 1'b1};
            if (nak_tmr_q >= NRT) nak_done_d = 1'b0;
        end
        if (send_nak_o) nak_pend_d = 1'b0;

        if (fr_valid_i) begin
            if (fr_hdr_i) begin
                type_d = fr_data_i[7:0];
                rel_d = fr_data_i[8];
                len_d = fr_data_i[31:16];
                seq_d = fr_data_i[47:32];
                ackf_d = fr_data_i[63:48];
                acc_d = fr_data_i[8] && (h_next) && fits;
                first_d = 1'b1;
                wr_d = wptr_q + {{(PB-1){1'b0}}, 1'b1};
                epoch_d = 16'd0;
            end else if (!fr_last_i) begin
                first_d = 1'b0;
                if (first_q) epoch_d = fr_data_i[15:0];
                if (acc_q) begin
                    we = 1'b1;
                    wr_d = wr_q + {{(PB-1){1'b0}}, 1'b1};
                end
            end
            if (fr_last_i) begin
                if (!fr_hdr_i && !fr_crc_ok_i) begin
                    cerr_d = 1'b1;
                    if (cur_rel && !nak_done_q) begin
                        nak_done_d = 1'b1;
                        nak_pend_d = 1'b1;
                        nak_tmr_d = {NTW{1'b0}};
                    end
                end else begin
                    pav_d = 1'b1;
                    if (cur_rel) begin
                        if (fr_hdr_i ? (fr_data_i[8] && h_next && fits) : acc_q) begin
                            we = 1'b1;
                            waddr = wptr_q;
                            wdata = {cur_len, 6'd0, cls_dma, cls_req, cur_type};
                            wptr_d = wptr_q + cur_len[PB-1:0] + {{(PB-1){1'b0}}, 1'b1};
                            rx_next_d = rx_next_q + 16'd1;
                            nak_done_d = 1'b0;
                            nak_pend_d = 1'b0;
                        end else if (c_dist == 16'd0) begin
                            // no room: dropped, the peer replays on its timer
                        end else if (!c_dist[15]) begin
                            if (!nak_done_q) begin
                                nak_done_d = 1'b1;
                                nak_pend_d = 1'b1;
                                nak_tmr_d = {NTW{1'b0}};
                            end
                        end else begin
                            sack_d = 1'b1;
                        end
                    end else begin
                        case (cur_type)
                            8'h01: ;
                            8'h02: pnak_d = 1'b1;
                            8'h03: sack_d = 1'b1;
                            8'h04: begin
                                if (cur_len != 16'd0) begin
                                    lrst_d = 1'b1;
                                end else begin
                                    bad_d = 1'b1;
                                end
                            end
                            8'h05: ;
                            default: bad_d = 1'b1;
                        endcase
                    end
                end
            end
        end
        if (lreset_o) begin
            rx_next_d = 16'd0;
            nak_done_d = 1'b0;
            nak_pend_d = 1'b0;
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            wptr_q <= {PB{1'b0}};
            wr_q <= {PB{1'b0}};
            rx_next_q <= 16'd0;
            ack_seq_q <= 16'd0;
            type_q <= 8'd0;
            rel_q <= 1'b0;
            len_q <= 16'd0;
            seq_q <= 16'd0;
            ackf_q <= 16'd0;
            acc_q <= 1'b0;
            first_q <= 1'b0;
            epoch_q <= 16'd0;
            nak_done_q <= 1'b0;
            nak_pend_q <= 1'b0;
            nak_tmr_q <= {NTW{1'b0}};
            room_q <= RX_WINDOW;
            peer_ack_valid_o <= 1'b0;
            peer_ack_o <= 16'd0;
            peer_nak_o <= 1'b0;
            send_ack_o <= 1'b0;
            lreset_o <= 1'b0;
            crc_err_o <= 1'b0;
            bad_frame_o <= 1'b0;
        end else begin
            room_q <= RX_WINDOW - (wptr_q - buf_rptr_i);
            peer_ack_valid_o <= pav_d;
            peer_ack_o <= pa_d;
            peer_nak_o <= pnak_d;
            send_ack_o <= sack_d;
            lreset_o <= lrst_d;
            crc_err_o <= cerr_d;
            bad_frame_o <= bad_d;
            wptr_q <= wptr_d;
            wr_q <= wr_d;
            rx_next_q <= rx_next_d;
            ack_seq_q <= lreset_o ? 16'd0 : ack_seq_q + {15'd0, consumed_i};
            type_q <= type_d;
            rel_q <= rel_d;
            len_q <= len_d;
            seq_q <= seq_d;
            ackf_q <= ackf_d;
            acc_q <= acc_d;
            first_q <= first_d;
            epoch_q <= epoch_d;
            nak_done_q <= nak_done_d;
            nak_pend_q <= nak_pend_d;
            nak_tmr_q <= nak_tmr_d;
        end
    end
endmodule
`default_nettype wire
