`default_nettype none
`include "cmn_param.vh"
// link_rx_align: finds frames in the received byte pipe (bridge/PROTOCOL.md, "Receiving").
// Hunts for SYNC at every PhyBytes offset (byte offsets on an 8-bit PHY, word offsets on a
// 32-bit one) in a window of 16 bytes; when the window holds SYNC and a header whose HCRC
// matches and whose LEN <= MaxPayload, it hands on the header and then the frame's LEN payload
// words and its PCRC word as they arrive; then it hunts again. A SYNC with a bad header is
// dropped and the hunt goes on from the byte after it, so the 12 header bytes are searched too.
// Contract:
//   - rx_*: the PHY's stream in the core clock domain, least significant byte first.
//   - fr_*: one beat per header (fr_hdr_o = 1, fr_data_o = {header word 2, header word 1}) and
//     one per payload or PCRC word (fr_data_o[31:0]); fr_last_o marks the PCRC word, or the
//     header of a frame with LEN = 0. Payload words are not checked here (link_rx checks PCRC).
//   - Frame words pass straight through: one word per cycle on a 32-bit PHY, one byte per cycle
//     on an 8-bit one. Hunting over garbage costs two cycles per PhyBytes.
//   - hcrc_err_o: one cycle per SYNC whose header was bad (HCRC or LEN).
module link_rx_align #(
    parameter PhyBytes   = 4,     // 1 or 4
    parameter MaxPayload = 1024   // largest LEN accepted, words
) (
    input  wire                  clk_i,
    input  wire                  rst_i,
    input  wire [PhyBytes*8-1:0] rx_data_i,
    input  wire                  rx_valid_i,
    output reg                   rx_ready_o,
    output reg                   fr_valid_o,
    input  wire                  fr_ready_i,
    output reg                   fr_hdr_o,
    output reg  [63:0]           fr_data_o,
    output reg                   fr_last_o,
    output reg                   hcrc_err_o
);
    localparam [31:0] SYNC = 32'h5AA5_5247;
    localparam integer UB = PhyBytes * 8;

    generate
        if (PhyBytes != 1 && PhyBytes != 4) begin : g_bad_0
            `CMN_PARAM_ERROR("link_rx_align: PhyBytes must be 1 or 4")
        end
        if (MaxPayload < 35 || MaxPayload > 16383) begin : g_bad_1
            `CMN_PARAM_ERROR("link_rx_align: MaxPayload out of range")
        end
    endgenerate

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

    // the byte or word arriving, placed at the window's first free byte
    wire [127:0] in_ext = {{(128 - UB){1'b0}}, rx_data_i};
    wire [127:0] in_sh = in_ext << {cnt_q, 3'b000};
    // the word a frame beat carries
    wire [31:0] word_in;
    generate
        if (PhyBytes == 1) begin : g_pack
            assign word_in = {rx_data_i[UB-1:0], pk_q};
        end else begin : g_word
            assign word_in = rx_data_i[31:0];
        end
    endgenerate
    wire word_full = (PhyBytes != 1) || (pkn_q == 2'd3);

    always @(*) begin
        win_d = win_q;
        cnt_d = cnt_q;
        frm_d = frm_q;
        rem_d = rem_q;
        pk_d = pk_q;
        pkn_d = pkn_q;
        rx_ready_o = 1'b0;
        fr_valid_o = 1'b0;
        fr_hdr_o = 1'b0;
        fr_data_o = 64'd0;
        fr_last_o = 1'b0;
        hcrc_err_o = 1'b0;
        if (frm_q) begin
            fr_valid_o = rx_valid_i && word_full;
            fr_data_o = {32'd0, word_in};
            fr_last_o = (rem_q == 17'd1);
            rx_ready_o = !word_full || fr_ready_i;
            if (rx_valid_i && rx_ready_o) begin
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
            fr_valid_o = 1'b1;
            fr_hdr_o = 1'b1;
            fr_data_o = {w2, w1};
            fr_last_o = (w1[31:16] == 16'd0);
            if (fr_ready_i) begin
                win_d = 128'd0;
                cnt_d = 5'd0;
                if (w1[31:16] != 16'd0) begin
                    frm_d = 1'b1;
                    rem_d = {1'b0, w1[31:16]} + 17'd1;
                end
            end
        end else if (drop) begin
            hcrc_err_o = full && is_sync;
            win_d = win_q >> UB;
            cnt_d = cnt_q - PhyBytes[4:0];
        end else begin
            rx_ready_o = !full;
            if (rx_valid_i && !full) begin
                win_d = win_q | in_sh;
                cnt_d = cnt_q + PhyBytes[4:0];
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
endmodule
`default_nettype wire
