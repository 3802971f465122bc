// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// ft2232h_model: the FTDI FT2232H (channel A; the FT232H alike) in FT245-style synchronous
// FIFO mode, as the FPGA sees its pins and as a USB host driver (libftdi / D2XX) sees its bulk
// endpoints. Written from the FT2232H datasheet ("FT245 Style Synchronous FIFO Interface Mode"
// and its read and write timing figures) and AN_130; sim/models/README.md lists what is
// modelled and what is not.
// Simulation model: everything happens on rising edges of clk_i, the chip's 60 MHz CLKOUT
// (the board harness feeds the same clock to the PHY as ft_clk_i); no delays, so it runs in
// Icarus, Verilator --timing and a Verilator --cc harness alike.
//
// FIFO bus, sampled at each rising edge (values set after the previous edge):
// - Read (chip -> FPGA): RXF# low while received data is buffered. The chip drives DATA from
//   the edge after it samples OE# low and releases it the edge after it samples OE# high. A
//   byte moves at every edge that samples RD#, RXF# and OE# low (OE# low since the edge
//   before); RXF# goes high after the edge that took the last byte. RD# low without the chip
//   driving is a protocol error (counted).
// - Write (FPGA -> chip): TXE# low while the transmit buffer has room. A byte is taken at
//   every edge that samples WR# and TXE# low; a write while TXE# is high is ignored. WR# low
//   with OE# low, or with the FPGA not driving, is a protocol error.
// - SIWU# sampled low while WR# is high: "send immediate", the bytes buffered then go to the
//   host in the next IN packet without waiting for the latency timer.
// - Bus contention: an edge at which both the chip and the FPGA were driving DATA counts in
//   contention_o.
// USB side (clk_i domain, valid/ready):
// - OUT (host -> chip): usb_out_* bytes, usb_out_last_i on a transfer's last byte. USB 2.0
//   packets of 512 bytes; a packet becomes readable RxfLatency cycles after its last byte
//   arrived (store and forward). OutBufBytes of buffer.
// - IN (chip -> host): USB packets of at most 512 bytes, each starting with the two status
//   bytes every FTDI chip sends (ModemStatus, then LineStatus; 0x01 0x60 here as libftdi and
//   FTDI's AN232B-04 describe: modem status with its reserved low bits, line status with the
//   transmitter holding and shift registers empty), then up to 510 data bytes; usb_in_last_o
//   on each packet's last byte. A packet is formed when 510 data bytes are buffered, when
//   SIWU# asked for it, or when the latency timer (LatencyCycles clk_i cycles since the last
//   packet; 16 ms at 60 MHz by default, libftdi's default latency) expires with data
//   buffered; with StatusOnly = 1 an expiry with nothing buffered sends the two status bytes
//   alone, as the chip does (hosts drop such packets). The host polls when usb_in_ready_i is
//   high; a packet is only formed once the previous one was taken. InBufBytes of buffer:
//   TXE# goes high when it is full.
// rst_i empties both buffers and holds RXF# and TXE# high.
module ft2232h_model #(
    parameter OutBufBytes   = 4096,     // host -> FPGA buffer, power of two
    parameter InBufBytes    = 4096,     // FPGA -> host buffer, power of two
    parameter RxfLatency    = 4,        // cycles from an OUT packet's last byte to readable, >= 2
    parameter LatencyCycles = 960000,   // latency timer in clk_i cycles (16 ms at 60 MHz)
    parameter StatusOnly    = 1,        // 1: send the two status bytes alone on an empty expiry
    parameter [7:0] ModemStatus = 8'h01,
    parameter [7:0] LineStatus  = 8'h60
) (
    input  wire        clk_i,          // the chip's CLKOUT (60 MHz)
    input  wire        rst_i,          // model reset, synchronous, active high
    // FIFO bus
    input  wire [7:0]  ft_data_i,
    input  wire        ft_data_oe_i,   // the FPGA drives DATA
    output wire [7:0]  ft_data_o,
    output wire        ft_data_oe_o,   // the chip drives DATA
    output wire        ft_rxf_n_o,
    output wire        ft_txe_n_o,
    input  wire        ft_rd_n_i,
    input  wire        ft_wr_n_i,
    input  wire        ft_oe_n_i,
    input  wire        ft_siwu_n_i,
    // USB OUT endpoint (host -> chip)
    input  wire [7:0]  usb_out_data_i,
    input  wire        usb_out_last_i,
    input  wire        usb_out_valid_i,
    output wire        usb_out_ready_o,
    // USB IN endpoint (chip -> host), status bytes included
    output wire [7:0]  usb_in_data_o,
    output wire        usb_in_last_o,
    output wire        usb_in_valid_o,
    input  wire        usb_in_ready_i,
    // checks
    output wire [31:0] contention_o,
    output wire [31:0] proto_err_o,
    output wire [31:0] rd_bytes_o,     // bytes moved chip -> FPGA
    output wire [31:0] wr_bytes_o,     // bytes moved FPGA -> chip
    output wire [31:0] in_packets_o    // IN packets formed (status-only ones included)
);
    localparam integer OB = $clog2(OutBufBytes);
    localparam integer IB = $clog2(InBufBytes);
    localparam integer PktBytes = 512;
    localparam integer PktData = PktBytes - 2;

    // ---- OUT: USB -> buffer -> FIFO bus ---------------------------------------------------
    logic [7:0]  out_mem [0:OutBufBytes-1];
    logic [OB:0] out_wr_q, out_vis_q, out_rd_q;
    logic [9:0]  out_pkt_q;
    logic [RxfLatency*(OB+1)-1:0] commit_q;
    logic [RxfLatency-1:0] commit_v_q;
    wire  [OB:0] commit_old = commit_q[RxfLatency*(OB+1)-1 -: OB+1];
    logic        chip_oe_q, rxf_n_q, txe_n_q;
    logic [31:0] cont_q, perr_q, rdb_q, wrb_q, pkts_q;

    assign usb_out_ready_o = !rst_i && (out_wr_q - out_rd_q) != (OB+1)'(OutBufBytes);
    assign ft_data_o = out_mem[out_rd_q[OB-1:0]];
    assign ft_data_oe_o = chip_oe_q;
    assign ft_rxf_n_o = rxf_n_q;
    assign ft_txe_n_o = txe_n_q;
    assign contention_o = cont_q;
    assign proto_err_o = perr_q;
    assign rd_bytes_o = rdb_q;
    assign wr_bytes_o = wrb_q;
    assign in_packets_o = pkts_q;

    wire out_take = usb_out_valid_i && usb_out_ready_o;
    wire out_end = out_take && (usb_out_last_i || out_pkt_q == 10'(PktBytes - 1));
    wire rd_move = !ft_rd_n_i && !rxf_n_q && chip_oe_q;

    always @(posedge clk_i) begin
        if (rst_i) begin
            out_wr_q <= '0;
            out_vis_q <= '0;
            out_rd_q <= '0;
            out_pkt_q <= '0;
            commit_v_q <= '0;
            chip_oe_q <= 1'b0;
            rxf_n_q <= 1'b1;
        end else begin
            if (out_take) begin
                out_mem[out_wr_q[OB-1:0]] <= usb_out_data_i;
                out_wr_q <= out_wr_q + 1'b1;
                out_pkt_q <= out_end ? '0 : out_pkt_q + 1'b1;
            end
            commit_v_q <= {commit_v_q[RxfLatency-2:0], out_end};
            commit_q <= {commit_q[(RxfLatency-1)*(OB+1)-1:0], out_wr_q + 1'b1};
            if (commit_v_q[RxfLatency-1]) out_vis_q <= commit_old;
            chip_oe_q <= !ft_oe_n_i;
            if (rd_move) out_rd_q <= out_rd_q + 1'b1;
            rxf_n_q <= (commit_v_q[RxfLatency-1] ? commit_old : out_vis_q) ==
                       (rd_move ? out_rd_q + 1'b1 : out_rd_q);
        end
    end

    // ---- IN: FIFO bus -> buffer -> USB packets --------------------------------------------
    logic [7:0]  in_mem [0:InBufBytes-1];
    logic [IB:0] in_wr_q, in_rd_q;
    logic        siwu_q;                 // send immediate requested
    logic [31:0] timer_q;                // cycles since the last packet
    logic        pk_act_q;               // a packet is being delivered
    logic [9:0]  pk_pos_q;               // bytes of it delivered
    logic [9:0]  pk_len_q;               // its length, status bytes included
    wire  [IB:0] in_used = in_wr_q - in_rd_q;
    wire         wr_move = !ft_wr_n_i && !txe_n_q;
    wire         in_take = usb_in_valid_o && usb_in_ready_i;
    wire         expired = timer_q >= 32'(LatencyCycles);
    wire         pk_start = !pk_act_q && usb_in_ready_i &&
                            (in_used >= (IB+1)'(PktData) ||
                             (in_used != '0 && (siwu_q || expired)) ||
                             (in_used == '0 && expired && StatusOnly != 0));
    wire  [9:0]  pk_data = in_used >= (IB+1)'(PktData) ? 10'(PktData) : 10'(in_used);

    assign usb_in_valid_o = pk_act_q && !rst_i;
    assign usb_in_data_o = pk_pos_q == 10'd0 ? ModemStatus :
                           pk_pos_q == 10'd1 ? LineStatus : in_mem[in_rd_q[IB-1:0]];
    assign usb_in_last_o = pk_pos_q == pk_len_q - 10'd1;

    always @(posedge clk_i) begin
        if (rst_i) begin
            in_wr_q <= '0;
            in_rd_q <= '0;
            siwu_q <= 1'b0;
            timer_q <= 32'd0;
            pk_act_q <= 1'b0;
            pk_pos_q <= 10'd0;
            pk_len_q <= 10'd2;
            txe_n_q <= 1'b1;
            pkts_q <= 32'd0;
        end else begin
            if (wr_move) begin
                in_mem[in_wr_q[IB-1:0]] <= ft_data_i;
                in_wr_q <= in_wr_q + 1'b1;
            end
            if (!ft_siwu_n_i && ft_wr_n_i) siwu_q <= 1'b1;
            timer_q <= pk_act_q ? 32'd0 : (expired ? timer_q : timer_q + 32'd1);
            if (pk_start) begin
                pk_act_q <= 1'b1;
                pk_pos_q <= 10'd0;
                pk_len_q <= pk_data + 10'd2;
                pkts_q <= pkts_q + 32'd1;
                // a send-immediate is served once the packet takes everything it covered
                if (pk_data == 10'(in_used) && (ft_siwu_n_i || !ft_wr_n_i)) siwu_q <= 1'b0;
            end
            if (in_take) begin
                if (pk_pos_q >= 10'd2) in_rd_q <= in_rd_q + 1'b1;
                pk_pos_q <= pk_pos_q + 10'd1;
                if (usb_in_last_o) pk_act_q <= 1'b0;
            end
            txe_n_q <= ((wr_move ? in_wr_q + 1'b1 : in_wr_q) -
                        ((in_take && pk_pos_q >= 10'd2) ? in_rd_q + 1'b1 : in_rd_q)) ==
                       (IB+1)'(InBufBytes);
        end
    end

    // ---- checks ---------------------------------------------------------------------------
    always @(posedge clk_i) begin
        if (rst_i) begin
            cont_q <= 32'd0;
            perr_q <= 32'd0;
            rdb_q <= 32'd0;
            wrb_q <= 32'd0;
        end else begin
            if (chip_oe_q && ft_data_oe_i) cont_q <= cont_q + 32'd1;
            if ((!ft_rd_n_i && !chip_oe_q) || (!ft_wr_n_i && (!ft_oe_n_i || !ft_data_oe_i)))
                perr_q <= perr_q + 32'd1;
            if (rd_move) rdb_q <= rdb_q + 32'd1;
            if (wr_move) wrb_q <= wrb_q + 32'd1;
        end
    end
endmodule
`default_nettype wire
