// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_rx_align: finds frames in the received byte pipe (bridge/PROTOCOL.md, "Receiving").
// Hunts for SYNC at every PhyBytes offset (byte offsets on an 8-bit PHY, word offsets on a
// 32-bit one); when SYNC is followed by a header whose HCRC matches and whose LEN <=
// MaxPayload, it hands on the header and then the frame's LEN payload words and its PCRC word
// as they arrive; then it hunts again. A SYNC with a bad header is dropped and the hunt goes on
// from the byte after it, so the 12 header bytes are searched too.
// 32-bit PHY: a pipeline with no stall. Each word is registered on arrival; the CRC of every
// pair of neighbouring words is registered as the words pass, so the header check at the HCRC
// word is a compare of registers (SYNC three words back, LEN <= MaxPayload two back, HCRC = the
// pair's CRC). CRC-32 is linear: crc(c, d) = A c ^ B d. One register c_q serves the hunt and the
// frame: while hunting it holds crc(~0, word before x), so the pair's CRC is A c_q ^ B x; in a
// frame it is the running PCRC register, the next one A c_q ^ B x as well. So two XOR trees
// (A c_q and B x) make both CRCs. The outputs are registered; a word leaves three cycles after
// it came in.
// 8-bit PHY: a window of 16 bytes, checked as a whole (one byte per cycle is slow enough).
// Contract:
//   - rx_*: the PHY's stream in the core clock domain, least significant byte first. A 32-bit
//     PHY's words are always taken (rx_ready_o = 1).
//   - fr_*: one beat per header (fr_hdr_o = 1, fr_data_o = {header word 2, header word 1}) and
//     one per payload or PCRC word (fr_data_o[31:0]; [63:32] undefined on a 32-bit PHY, no
//     multiplexer before that half of the output register); fr_last_o marks the PCRC word, or the
//     header of a frame with LEN = 0; fr_crc_ok_o, beside fr_last_o on a PCRC word, says that
//     PCRC matched the payload.
//     The receiver takes every beat: fr_ready_i must be 1 while fr_valid_o is (link_rx's is).
//   - Frame words pass straight through: one word per cycle on a 32-bit PHY, one byte per cycle
//     on an 8-bit one. Hunting over garbage costs one cycle per word on a 32-bit PHY, two
//     cycles per byte on an 8-bit one.
//   - hcrc_err_o: one cycle per SYNC whose header was bad (HCRC or LEN).
module link_rx_align #(
    parameter PhyBytes   = 4,     // 1 or 4
    parameter MaxPayload = 1024   // largest LEN accepted, words
) (
    input  wire                  clk_i,
    input  wire                  rst_i,
    input  wire [PhyBytes*8-1:0] rx_data_i,
    input  wire                  rx_valid_i,
    output wire                  rx_ready_o,
    output wire                  fr_valid_o,
    input  wire                  fr_ready_i,
    output wire                  fr_hdr_o,
    output wire [63:0]           fr_data_o,
    output wire                  fr_last_o,
    output wire                  fr_crc_ok_o,
    output wire                  hcrc_err_o
);
    localparam [31:0] SYNC = 32'h5AA5_5247;

    generate
        if (PhyBytes != 1 && PhyBytes != 4) begin : g_bad_0
            `CMN_PARAM_ERROR("link_rx_align: PhyBytes must be 1 or 4")
        end
        if (MaxPayload < 35 || MaxPayload > 16383) begin : g_bad_1
            `CMN_PARAM_ERROR("link_rx_align: MaxPayload out of range")
        end
    endgenerate

    generate
        if (PhyBytes == 4) begin : g_word
            // ---- 32-bit PHY: registered pipeline -------------------------------------------
            reg  [31:0] x_q;                // the word that came in
            reg         xv_q;
            reg  [31:0] p1_q, p2_q;         // the two words before x_q (header words 2 and 1)
            reg  [31:0] b_q;                // CRC register after the two words before x_q
            reg  [31:0] c_q;                // hunting: crc(~0, the word before x_q); in a
                                            // frame: the running PCRC register
            reg         ok_q;
            reg         first_q;            // x_q is a frame's first payload word
            reg         y1_q, y2_q, y3_q;   // SYNC 1, 2, 3 words before x_q (while hunting)
            reg         l1_q, l2_q;         // LEN <= MaxPayload in the word 1, 2 before x_q
            reg         frm_q;              // x_q belongs to a frame's payload or PCRC
            reg  [16:0] rem_q;              // payload + PCRC words still to come
            reg         last_q;             // rem_q == 1
            reg         v_q, h_q, lst_q, err_q;
            reg  [31:0] d_lo_q, d_hi_q;     // fr_data_o; d_hi_q loads p1_q every cycle
            wire [31:0] bx, k, ac;
            link_crc32 u_bx (.crc_i(32'd0), .data_i(x_q), .crc_o(bx));          // B x
            link_crc32 u_ac (.crc_i(c_q), .data_i(32'd0), .crc_o(ac));          // A c
            link_crc32 u_k (.crc_i(32'hFFFF_FFFF), .data_i(32'd0), .crc_o(k));  // A ~0
            wire [31:0] cx = ac ^ bx;       // crc(c_q, x_q)
            wire        hunt = xv_q && !frm_q;
            wire        at_hcrc = hunt && y3_q;
            wire        hdr_good = at_hcrc && l2_q && (x_q == ~b_q);
            wire [15:0] len = p2_q[31:16];
            wire        unused_w = fr_ready_i;
            assign rx_ready_o = 1'b1;
            assign fr_valid_o = v_q;
            assign fr_hdr_o = h_q;
            assign fr_data_o = {d_hi_q, d_lo_q};
            always @(posedge clk_i) d_hi_q <= p1_q;   // header word 2 on a header beat
            assign fr_last_o = lst_q;
            assign fr_crc_ok_o = ok_q;
            assign hcrc_err_o = err_q;
            always @(posedge clk_i) begin
                if (rst_i) begin
                    x_q <= 32'd0;
                    xv_q <= 1'b0;
                    p1_q <= 32'd0;
                    p2_q <= 32'd0;
                    b_q <= 32'd0;
                    y1_q <= 1'b0;
                    y2_q <= 1'b0;
                    y3_q <= 1'b0;
                    l1_q <= 1'b0;
                    l2_q <= 1'b0;
                    frm_q <= 1'b0;
                    rem_q <= 17'd0;
                    last_q <= 1'b0;
                    v_q <= 1'b0;
                    h_q <= 1'b0;
                    lst_q <= 1'b0;
                    err_q <= 1'b0;
                    d_lo_q <= 32'd0;
                    c_q <= 32'hFFFF_FFFF;
                    ok_q <= 1'b0;
                    first_q <= 1'b0;
                end else begin
                    xv_q <= rx_valid_i;
                    if (rx_valid_i) x_q <= rx_data_i[31:0];
                    v_q <= 1'b0;
                    h_q <= 1'b0;
                    lst_q <= 1'b0;
                    err_q <= at_hcrc && !hdr_good;
                    if (hunt) begin
                        p1_q <= x_q;
                        p2_q <= p1_q;
                        c_q <= k ^ bx;
                        b_q <= cx;
                        y1_q <= (x_q == SYNC);
                        y2_q <= y1_q;
                        y3_q <= y2_q;
                        l1_q <= ({16'd0, x_q[31:16]} <= MaxPayload);
                        l2_q <= l1_q;
                    end
                    if (hdr_good) begin
                        // the header beat; the hunt restarts after the frame
                        v_q <= 1'b1;
                        h_q <= 1'b1;
                        d_lo_q <= p2_q;
                        lst_q <= (len == 16'd0);
                        y1_q <= 1'b0;
                        y2_q <= 1'b0;
                        y3_q <= 1'b0;
                        frm_q <= (len != 16'd0);
                        rem_q <= {1'b0, len} + 17'd1;
                        last_q <= 1'b0;
                        first_q <= 1'b1;
                    end
                    if (xv_q && frm_q) begin
                        v_q <= 1'b1;
                        d_lo_q <= x_q;
                        lst_q <= last_q;
                        rem_q <= rem_q - 17'd1;
                        last_q <= (rem_q == 17'd2);
                        // the first payload word starts the PCRC: crc(~0, x) = A ~0 ^ B x
                        c_q <= first_q ? (k ^ bx) : cx;
                        first_q <= 1'b0;
                        ok_q <= (x_q == ~c_q);
                        if (last_q) frm_q <= 1'b0;
                    end
                end
            end
        end else begin : g_byte
            // ---- 8-bit PHY: a 16-byte window ---------------------------------------------
            reg          b_rx_ready, b_fr_valid, b_fr_hdr, b_fr_last, b_hcrc_err;
            reg  [63:0]  b_fr_data;
            reg  [31:0]  c_q;               // the running PCRC register of the frame
            wire [31:0]  c_n;
            assign fr_crc_ok_o = (~c_q == b_fr_data[31:0]);
            assign rx_ready_o = b_rx_ready;
            assign fr_valid_o = b_fr_valid;
            assign fr_hdr_o = b_fr_hdr;
            assign fr_data_o = b_fr_data;
            assign fr_last_o = b_fr_last;
            assign hcrc_err_o = b_hcrc_err;
            reg [127:0] win_q, win_d;   // byte i at [8i+7:8i], byte 0 oldest
            reg [4:0]   cnt_q, cnt_d;   // bytes in the window
            reg         frm_q, frm_d;   // 1: inside a frame's payload
            reg [16:0]  rem_q, rem_d;   // payload + PCRC words still to come
            reg [23:0]  pk_q, pk_d;     // 8-bit PHY: bytes of the word being packed
            reg [1:0]   pkn_q, pkn_d;

            wire [31:0] w0 = win_q[31:0];
            wire [31:0] w1 = win_q[63:32];
            wire [31:0] w2 = win_q[95:64];
            wire [31:0] w3 = win_q[127:96];
            wire [31:0] c1, c2;
            link_crc32 u_crc1 (.crc_i(32'hFFFF_FFFF), .data_i(w1), .crc_o(c1));
            link_crc32 u_crc2 (.crc_i(c1), .data_i(w2), .crc_o(c2));
            wire        full = (cnt_q == 5'd16);
            wire        is_sync = (cnt_q >= 5'd4) && (w0 == SYNC);
            wire        hdr_good = full && is_sync && (~c2 == w3) && ({16'd0, w1[31:16]} <= MaxPayload);
            wire        drop = (cnt_q >= 5'd4) && (!is_sync || (full && !hdr_good));

            // the byte arriving, placed at the window's first free byte
            wire [127:0] in_ext = {120'd0, rx_data_i[7:0]};
            wire [127:0] in_sh = in_ext << {cnt_q, 3'b000};
            // the word a frame beat carries
            wire [31:0] word_in = {rx_data_i[7:0], pk_q};
            link_crc32 u_pcrc (.crc_i(c_q), .data_i(word_in), .crc_o(c_n));
            always @(posedge clk_i) begin
                if (rst_i || (!frm_q && hdr_good)) c_q <= 32'hFFFF_FFFF;
                else if (frm_q && b_fr_valid && !b_fr_last) c_q <= c_n;
            end
            wire word_full = (pkn_q == 2'd3);

            always @(*) begin
                win_d = win_q;
                cnt_d = cnt_q;
                frm_d = frm_q;
                rem_d = rem_q;
                pk_d = pk_q;
                pkn_d = pkn_q;
                b_rx_ready = 1'b0;
                b_fr_valid = 1'b0;
                b_fr_hdr = 1'b0;
                b_fr_data = 64'd0;
                b_fr_last = 1'b0;
                b_hcrc_err = 1'b0;
                if (frm_q) begin
                    b_fr_valid = rx_valid_i && word_full;
                    b_fr_data = {32'd0, word_in};
                    b_fr_last = (rem_q == 17'd1);
                    b_rx_ready = !word_full || fr_ready_i;
                    if (rx_valid_i && b_rx_ready) begin
                        if (!word_full) begin
                            pk_d = pk_q | ({16'd0, rx_data_i[7:0]} << {pkn_q, 3'b000});
                            pkn_d = pkn_q + 2'd1;
                        end else begin
                            pk_d = 24'd0;
                            pkn_d = 2'd0;
                            rem_d = rem_q - 17'd1;
                            if (rem_q == 17'd1) frm_d = 1'b0;
                        end
                    end
                end else if (hdr_good) begin
                    b_fr_valid = 1'b1;
                    b_fr_hdr = 1'b1;
                    b_fr_data = {w2, w1};
                    b_fr_last = (w1[31:16] == 16'd0);
                    if (fr_ready_i) begin
                        win_d = 128'd0;
                        cnt_d = 5'd0;
                        if (w1[31:16] != 16'd0) begin
                            frm_d = 1'b1;
                            rem_d = {1'b0, w1[31:16]} + 17'd1;
                        end
                    end
                end else if (drop) begin
                    b_hcrc_err = full && is_sync;
                    win_d = win_q >> 8;
                    cnt_d = cnt_q - 5'd1;
                end else begin
                    b_rx_ready = !full;
                    if (rx_valid_i && !full) begin
                        win_d = win_q | in_sh;
                        cnt_d = cnt_q + 5'd1;
                    end
                end
            end

            always @(posedge clk_i) begin
                if (rst_i) begin
                    win_q <= 128'd0;
                    cnt_q <= 5'd0;
                    frm_q <= 1'b0;
                    rem_q <= 17'd0;
                    pk_q <= 24'd0;
                    pkn_q <= 2'd0;
                end else begin
                    win_q <= win_d;
                    cnt_q <= cnt_d;
                    frm_q <= frm_d;
                    rem_q <= rem_d;
                    pk_q <= pk_d;
                    pkn_q <= pkn_d;
                end
            end
        end
    endgenerate
endmodule
`default_nettype wire
