// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// ft601_model: the FTDI FT601 USB 3.0 to FIFO bridge (32-bit) in either bus protocol its
// configuration selects (mode600_i: 0 the 245 synchronous FIFO mode, 1 the FT600 "multi-channel
// FIFO" mode with channel 1 carrying the USB streams), as the FPGA sees its pins and as a USB
// host driver sees its bulk endpoints. Written from the FT600/FT601 datasheet (the FT245 and
// FT600 mode sections and their timing figures); sim/models/README.md lists what is modelled,
// what is checked and what is not.
// Simulation model: everything happens on rising edges of clk_i, the chip's 100 MHz CLK pin
// (the board harness feeds the same clock to the PHY as ft_clk_i); no delays, so it runs in
// Icarus, Verilator --timing and a Verilator --cc harness alike.
//
// 245 mode (mode600_i = 0): the FIFO bus, sampled at each rising edge (values set after the
// previous edge):
// - Read (chip -> FPGA): RXF# is low while a whole USB OUT packet (or more) is buffered. The
//   chip drives DATA/BE from the edge after it samples OE# low and releases them the edge after
//   it samples OE# high. A word moves at every edge that samples RD#, RXF# and OE# low (OE#
//   low since the edge before); the next word is on the bus after that edge, and RXF# goes high
//   after the edge that took the last buffered word: no word moves at an edge that samples
//   RD# or RXF# high. RD# low without the chip driving is a protocol error (counted).
// - Write (FPGA -> chip): TXE# is low while the IN buffer has room. A word (DATA and BE as
//   driven by the FPGA) is taken at every edge that samples WR# and TXE# low; a word written
//   while TXE# is high is ignored (as on the chip). WR# low while OE# is low, or while the
//   FPGA is not driving the bus, is a protocol error.
// - Bus contention: an edge at which both the chip and the FPGA were driving DATA/BE counts in
//   contention_o (the FPGA's drive is ft_data_oe_i / ft_be_oe_i).
// USB side (clk_i domain, valid/ready):
// - OUT (host -> chip): usb_out_* words, usb_out_be_i the valid bytes (a short transfer ends in
//   a word with fewer bits set), usb_out_last_i on the last word of a transfer. Packets are
//   PktWords words (1024 bytes on USB 3; 128 words on USB 2); a transfer's last word ends a
//   short packet. A packet becomes readable RxfLatency cycles after its last word arrived
//   (store and forward); OutBufWords words of buffer (ready low when full).
// - IN (chip -> host): usb_in_* words of whole packets, usb_in_last_o on the last word of each
//   USB packet. A packet closes when it reaches PktWords words, when a word with BE != 4'hF is
//   written (a short tail), or when the FPGA leaves WR# high for ShortPktIdle edges with a
//   partial packet buffered (the chip sends what it has as a short packet). InBufWords words
//   of buffer: TXE# goes high when it is full and low again once the host has taken words.
//   In FT600 mode the end of a write transaction does not close a packet: the same idle rule
//   sends a partial one.
// RESET_N (ft_rst_n_i) low, or rst_i, empties both buffers and holds RXF# and TXE# high.
module ft601_model #(
    parameter PktWords     = 256,    // USB max packet in 32-bit words (256 USB 3, 128 USB 2)
    parameter OutBufWords  = 1024,   // host -> FPGA buffer, words, power of two
    parameter InBufWords   = 1024,   // FPGA -> host buffer, words, power of two
    parameter RxfLatency   = 4,      // cycles from an OUT packet's last word to readable, >= 2
    parameter ShortPktIdle = 8       // WR# high edges before a partial IN packet is sent
) (
    input  wire        clk_i,          // the chip's CLK (100 MHz)
    input  wire        rst_i,          // model reset, synchronous, active high
    input  wire        ft_rst_n_i,     // the chip's RESET_N (tie high)
    input  wire        mode600_i,      // its configuration: 0 245 mode, 1 FT600 mode (static)
    // FIFO bus: DATA/BE as _i (FPGA drives) / _o (chip drives) / _oe pairs
    input  wire [31:0] ft_data_i,
    input  wire [3:0]  ft_data_oe_i,   // per byte lane: the FPGA drives it
    output wire [31:0] ft_data_o,
    output wire [3:0]  ft_data_oe_o,   // per byte lane: the chip drives it
    input  wire [3:0]  ft_be_i,
    input  wire        ft_be_oe_i,
    output wire [3:0]  ft_be_o,
    output wire        ft_be_oe_o,
    output wire        ft_rxf_n_o,
    output wire        ft_txe_n_o,
    input  wire        ft_rd_n_i,
    input  wire        ft_wr_n_i,
    input  wire        ft_oe_n_i,
    input  wire        ft_siwu_n_i,    // reserved / unused (tie high); not modelled
    // USB OUT endpoint (host -> chip)
    input  wire [31:0] usb_out_data_i,
    input  wire [3:0]  usb_out_be_i,
    input  wire        usb_out_last_i,
    input  wire        usb_out_valid_i,
    output wire        usb_out_ready_o,
    // USB IN endpoint (chip -> host)
    output wire [31:0] usb_in_data_o,
    output wire [3:0]  usb_in_be_o,
    output wire        usb_in_last_o,
    output wire        usb_in_valid_o,
    input  wire        usb_in_ready_i,
    // checks
    output wire [31:0] contention_o,   // edges with both sides driving DATA/BE
    output wire [31:0] proto_err_o,    // bus rule broken (the header's protocol errors)
    output wire [31:0] rd_words_o,     // words moved chip -> FPGA
    output wire [31:0] wr_words_o      // words moved FPGA -> chip
);
    localparam integer OB = $clog2(OutBufWords);
    localparam integer IB = $clog2(InBufWords);
    localparam integer PC = $clog2(PktWords + 1);

    wire rst = rst_i || !ft_rst_n_i;

    // ---- FT600 mode: the transaction state ------------------------------------------------
    localparam [2:0] PIdle = 3'd0, PRdTurn = 3'd1, PRdData = 3'd2, PWrTurn = 3'd3,
                     PWrData = 3'd4, PBad = 3'd5;
    logic [2:0]  ph_q, ph_d;
    logic        cmd_err;                // the command at this edge is not one the chip takes

    // ---- OUT: USB -> buffer -> FIFO bus ---------------------------------------------------
    logic [35:0] out_mem [0:OutBufWords-1];  // {be, data}
    logic [OB:0] out_wr_q, out_vis_q, out_rd_q;
    logic [PC-1:0] out_pkt_q;               // words in the packet being received
    // out_wr after each packet end, delayed: RxfLatency entries of OB+1 bits, oldest on top
    logic [RxfLatency*(OB+1)-1:0] commit_q;
    wire  [OB:0] commit_old = commit_q[RxfLatency*(OB+1)-1 -: OB+1];
    logic [RxfLatency-1:0] commit_v_q;
    logic [3:0]  chip_oe_q;              // byte lanes of DATA the chip drives
    logic        chip_be_oe_q;
    logic        rxf_n_q, txe_n_q;
    logic [31:0] cont_q, perr_q, rdw_q, wrw_q;
    logic [IB:0] in_wr_q, in_cls_q, in_rd_q;

    // the channels' status on DATA[15:8] (FT600 mode, idle), active low
    wire out_has = out_vis_q != out_rd_q;
    wire [IB:0] in_used = in_wr_q - in_rd_q;
    wire in_room_pkt = (IB+1)'(InBufWords) - in_used >= (IB+1)'(PktWords);
    wire [7:0] status = {3'b111, !out_has, 3'b111, !in_room_pkt};
    wire [31:0] out_word = out_mem[out_rd_q[OB-1:0]][31:0];

    assign usb_out_ready_o = !rst && (out_wr_q - out_rd_q) != (OB+1)'(OutBufWords);
    assign ft_data_o = {out_word[31:16], (mode600_i && ph_q != PRdData) ? status : out_word[15:8],
                        out_word[7:0]};
    assign ft_be_o = out_mem[out_rd_q[OB-1:0]][35:32];
    assign ft_data_oe_o = chip_oe_q;
    assign ft_be_oe_o = chip_be_oe_q;
    assign ft_rxf_n_o = rxf_n_q;
    assign ft_txe_n_o = txe_n_q;
    assign contention_o = cont_q;
    assign proto_err_o = perr_q;
    assign rd_words_o = rdw_q;
    assign wr_words_o = wrw_q;

    wire out_take = usb_out_valid_i && usb_out_ready_o;
    wire out_end = out_take && (usb_out_last_i || out_pkt_q == PC'(PktWords - 1) ||
                                usb_out_be_i != 4'hF);
    wire rd_move = mode600_i ? (ph_q == PRdData && !ft_wr_n_i && !rxf_n_q)
                             : (!ft_rd_n_i && !rxf_n_q && chip_oe_q[0]);
    wire wr_move = mode600_i ? (ph_q == PWrData && !ft_wr_n_i && !rxf_n_q)
                             : (!ft_wr_n_i && !txe_n_q);
    wire in_take = usb_in_valid_o && usb_in_ready_i;
    // after this edge: no word left to read / no room for a word to be written
    wire out_empty_d = (commit_v_q[RxfLatency-1] ? commit_old : out_vis_q) ==
                       (rd_move ? out_rd_q + 1'b1 : out_rd_q);
    wire in_full_d = ((wr_move ? in_wr_q + 1'b1 : in_wr_q) -
                      (in_take ? in_rd_q + 1'b1 : in_rd_q)) == (IB+1)'(InBufWords);

    // FT600 mode: the transaction at this edge
    always_comb begin
        ph_d = ph_q;
        cmd_err = 1'b0;
        case (ph_q)
            PIdle: if (!ft_wr_n_i) begin
                if (!ft_data_oe_i[0] || !ft_be_oe_i || ft_data_i[7:0] != 8'd1 ||
                    (ft_be_i != 4'b0000 && ft_be_i != 4'b0001)) begin
                    cmd_err = 1'b1;
                    ph_d = PBad;
                end else begin
                    ph_d = ft_be_i[0] ? PWrTurn : PRdTurn;
                end
            end
            PRdTurn: ph_d = ft_wr_n_i ? PIdle : PRdData;
            PWrTurn: ph_d = ft_wr_n_i ? PIdle : PWrData;
            default: if (ft_wr_n_i) ph_d = PIdle;     // data phases and PBad end on WR# high
        endcase
    end

    always @(posedge clk_i) begin
        if (rst) begin
            ph_q <= PIdle;
            out_wr_q <= '0;
            out_vis_q <= '0;
            out_rd_q <= '0;
            out_pkt_q <= '0;
            commit_v_q <= '0;
            chip_oe_q <= 4'h0;
            chip_be_oe_q <= 1'b0;
            rxf_n_q <= 1'b1;
        end else begin
            if (out_take) begin
                out_mem[out_wr_q[OB-1:0]] <= {usb_out_be_i, usb_out_data_i};
                out_wr_q <= out_wr_q + 1'b1;
                out_pkt_q <= out_end ? '0 : out_pkt_q + 1'b1;
            end
            // packet ends travel RxfLatency cycles before the FIFO side sees them
            commit_v_q <= {commit_v_q[RxfLatency-2:0], out_end};
            commit_q <= {commit_q[(RxfLatency-1)*(OB+1)-1:0], out_wr_q + 1'b1};
            if (commit_v_q[RxfLatency-1]) out_vis_q <= commit_old;
            if (rd_move) out_rd_q <= out_rd_q + 1'b1;
            if (!mode600_i) begin
                ph_q <= PIdle;
                chip_oe_q <= {4{!ft_oe_n_i}};
                chip_be_oe_q <= !ft_oe_n_i;
                rxf_n_q <= out_empty_d;
            end else begin
                ph_q <= ph_d;
                // the status lane in idle, everything in a read's data phase, nothing else
                chip_oe_q <= ph_d == PRdData ? 4'hF : ph_d == PIdle ? 4'b0010 : 4'h0;
                chip_be_oe_q <= ph_d == PRdData;
                rxf_n_q <= ph_d == PRdData ? out_empty_d : ph_d == PWrData ? in_full_d : 1'b1;
            end
        end
    end

    // ---- IN: FIFO bus -> buffer -> USB ----------------------------------------------------
    logic [36:0] in_mem [0:InBufWords-1];    // {last, be, data}
    logic [PC-1:0] in_pkt_q;                // words in the packet being written
    logic [7:0]  idle_q;                    // edges with WR# high since the last write
    wire in_full_end = wr_move && (in_pkt_q == PC'(PktWords - 1) || ft_be_i != 4'hF);
    wire in_idle_end = !wr_move && in_pkt_q != '0 && idle_q >= 8'(ShortPktIdle - 1) && ft_wr_n_i;

    assign usb_in_valid_o = !rst && in_rd_q != in_cls_q;
    assign usb_in_data_o = in_mem[in_rd_q[IB-1:0]][31:0];
    assign usb_in_be_o = in_mem[in_rd_q[IB-1:0]][35:32];
    assign usb_in_last_o = in_mem[in_rd_q[IB-1:0]][36];

    always @(posedge clk_i) begin
        if (rst) begin
            in_wr_q <= '0;
            in_cls_q <= '0;
            in_rd_q <= '0;
            in_pkt_q <= '0;
            idle_q <= 8'd0;
            txe_n_q <= 1'b1;
        end else begin
            if (wr_move) begin
                in_mem[in_wr_q[IB-1:0]] <= {in_full_end, ft_be_i, ft_data_i};
                in_wr_q <= in_wr_q + 1'b1;
                in_pkt_q <= in_full_end ? '0 : in_pkt_q + 1'b1;
                if (in_full_end) in_cls_q <= in_wr_q + 1'b1;
            end
            if (in_idle_end) begin
                in_mem[in_wr_q[IB-1:0] - 1'b1][36] <= 1'b1;
                in_cls_q <= in_wr_q;
                in_pkt_q <= '0;
            end
            idle_q <= ft_wr_n_i ? (idle_q == 8'hFF ? idle_q : idle_q + 8'd1) : 8'd0;
            if (in_take) in_rd_q <= in_rd_q + 1'b1;
            // 245: the IN buffer is full; FT600: a transaction is under way
            txe_n_q <= mode600_i ? ph_d != PIdle : in_full_d;
        end
    end

    // ---- checks ---------------------------------------------------------------------------
    wire lane_clash = |(chip_oe_q & ft_data_oe_i) || (chip_be_oe_q && ft_be_oe_i);
    wire perr245 = (!ft_rd_n_i && !chip_oe_q[0]) ||
                   (!ft_wr_n_i && (!ft_oe_n_i || ft_data_oe_i != 4'hF || !ft_be_oe_i));
    wire perr600 = !ft_rd_n_i || !ft_oe_n_i || cmd_err ||
                   (ph_q == PWrData && !ft_wr_n_i && (ft_data_oe_i != 4'hF || !ft_be_oe_i));
    always @(posedge clk_i) begin
        if (rst) begin
            cont_q <= 32'd0;
            perr_q <= 32'd0;
            rdw_q <= 32'd0;
            wrw_q <= 32'd0;
        end else begin
            if (lane_clash) cont_q <= cont_q + 32'd1;
            if (mode600_i ? perr600 : perr245) perr_q <= perr_q + 32'd1;
            if (rd_move) rdw_q <= rdw_q + 32'd1;
            if (wr_move) wrw_q <= wrw_q + 32'd1;
        end
    end

    wire unused_ok = ft_siwu_n_i;
endmodule
`default_nettype wire
