// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_phy_ft601: the FPGA side of an FTDI FT601 (32-bit bus, 100 MHz CLK from the chip), as
// 32-bit valid/ready word streams in the core clock domain, in either of the chip's bus
// protocols, chosen by the strap mode600_i: 0 the 245 synchronous FIFO mode (FIFOMode 0 in the
// chip's configuration; link_phy_ftfifo's bus discipline plus the byte enables), 1 the FT600
// mode, the chip's multi-channel FIFO bus, on channel 1 (FIFOMode 1; link_phy_ft600bus). The
// chip's mode lives in its configuration memory, which no pin shows: the board says which.
//
// Engine side (clk_i/rst_i): rx_* carries the words the USB host sent, tx_* the words for the
// host, each through a cmn_async_fifo. Only whole words cross: a word read from the chip with
// BE != 4'hF is dropped and rx_be_err_o pulses for one clk_i cycle (the protocol pads frames to
// four bytes, so such a word is a host error). Every word written carries BE = 4'hF.
// mode600_i is a static strap: change it only while rst_i is high (the unused protocol's
// machine is held in reset and its pins are not used).
// Chip side (ft_clk_i), 245 mode: the bus is half duplex and the FPGA is its master:
// - Read: RXF# low -> OE# low for one cycle -> RD# low (OE# before RD#, as the datasheet's
//   read figure). A word is taken at every rising edge that sees RD# and RXF# both low; RD# is
//   held low while the receive FIFO has room for the words that may still arrive before a
//   raised RD# takes effect (three), so nothing the chip sends is ever lost.
// - Write: TXE# low -> WR# low with DATA/BE driven. A word is written at every rising edge
//   that sees WR# and TXE# both low; one that meets TXE# high stays on the bus and is offered
//   again, so nothing is lost or repeated.
// - Turnaround: after a read, OE# goes high and the FPGA drives the bus only two cycles later
//   (the chip releases it one edge after it sees OE# high); after a write the FPGA releases the
//   bus before it lowers OE#. The chip and the FPGA never drive at the same time.
// - Arbitration: a direction keeps the bus while it has work, up to BurstWords words when the
//   other side is waiting; after a switch the other direction goes first. Neither starves.
// - Throughput: one word per ft_clk_i cycle inside a burst; a long one-way transfer with the
//   chip ready and the engine keeping up moves a word on >= 99% of cycles (the unit test
//   asserts >= 95% both ways); each direction switch costs about five cycles.
// Chip side, FT600 mode: link_phy_ft600bus's header (a command on BE/DATA[7:0] under WR#, RXF#
//   the chip's per-word handshake, the channels' status on DATA[15:8] between transactions);
//   RD# and OE# are held high. Each transaction costs about eight cycles of command, turnaround
//   and status; the unit test asserts >= 80% of cycles move a word in a long transfer.
// ft_data_t_o and ft_be_t_o are per pin tristate controls (1: the FPGA releases the pin), for
//   a board's bidirectional buffers (the ECP5's BB); in FT600 mode DATA[15:8] is the chip's
//   while the bus is idle.
// Timing, FT600 mode: every register on a pin but RXF#'s path is in the pin's I/O cell
//   (link_phy_ioreg; link_phy_ft600bus's header): DATA, BE and TXE# are sampled there, and
//   DATA, BE, their tristate controls and WR# driven from there. RXF# feeds logic before the
//   next WR#/DATA/BE. 245 mode: RXF# and TXE# feed one level of logic before flops (the next
//   RD#/WR#), DATA is captured straight into flops (link_phy_ftfifo's, in the fabric), BE in
//   its I/O cells as in FT600 mode.
// SIWU# is reserved in 245 mode and unused in FT600 mode: held high. RESET_N is the board's.
// Reset: rst_i (clk_i domain, synchronous, active high) also resets the ft_clk_i side through
//   a synchronizer; hold it for at least four ft_clk_i cycles while the chip's clock runs.
module link_phy_ft601 #(
    parameter RxFifoLog2 = 5,    // log2 of the receive FIFO's words (>= 3)
    parameter TxFifoLog2 = 5,    // log2 of the transmit FIFO's words (>= 2)
    parameter BurstWords = 256   // words one direction may move while the other waits
) (
    input  wire        clk_i,           // core clock
    input  wire        rst_i,           // synchronous to clk_i, active high
    input  wire        mode600_i,       // strap: 0 245 mode, 1 FT600 mode (static)
    // engine side (clk_i)
    output wire [31:0] rx_data_o,
    output wire        rx_valid_o,
    input  wire        rx_ready_i,
    output wire        rx_be_err_o,     // one-cycle pulse: a word with BE != 4'hF dropped
    input  wire [31:0] tx_data_i,
    input  wire        tx_valid_i,
    output wire        tx_ready_o,
    // chip side (ft_clk_i)
    input  wire        ft_clk_i,        // CLK from the FT601 (100 MHz)
    input  wire [31:0] ft_data_i,
    output wire [31:0] ft_data_o,
    output wire [31:0] ft_data_t_o,     // per pin, 1: released (the pin's tristate control)
    input  wire [3:0]  ft_be_i,
    output wire [3:0]  ft_be_o,
    output wire [3:0]  ft_be_t_o,       // per pin, 1: released
    input  wire        ft_rxf_n_i,
    input  wire        ft_txe_n_i,
    output wire        ft_rd_n_o,
    output wire        ft_wr_n_o,
    output wire        ft_oe_n_o,
    output wire        ft_siwu_n_o
);
    if (RxFifoLog2 < 3 || RxFifoLog2 > 12) begin : g_bad_rx
        `CMN_PARAM_ERROR("link_phy_ft601: RxFifoLog2 must be 3..12")
    end
    if (TxFifoLog2 < 2 || TxFifoLog2 > 12) begin : g_bad_tx
        `CMN_PARAM_ERROR("link_phy_ft601: TxFifoLog2 must be 2..12")
    end
    if (BurstWords < 1 || BurstWords > 65535) begin : g_bad_burst
        `CMN_PARAM_ERROR("link_phy_ft601: BurstWords must be 1..65535")
    end

    // ---- the two bus machines: the one the strap names runs, the other is held in reset ---
    wire        rst245 = rst_i || mode600_i;
    wire        rst600 = rst_i || !mode600_i;
    wire [31:0] rx_data_a, rx_data_b, ft_data_a, ft_data_b;
    wire        rx_valid_a, rx_valid_b, tx_ready_a, tx_ready_b;
    wire        ft_rst_a, ft_rst_b, cap_a, cap_b, drive_a;
    wire [31:0] t_b;
    wire [3:0]  ft_be_b, be_t_b;
    wire        rd_n_a, wr_n_a, oe_n_a, wr_n_b;
    wire        unused_have_wr, unused_wr_edge, unused_wr_idle;
    wire  [3:0] cap_be_q;             // BE captured at every edge, beside DATA (I/O cells)
    logic       be_err_tgl_q;
    wire        keep = cap_be_q == 4'hF;

    link_phy_ftfifo #(.Width(32), .RxFifoLog2(RxFifoLog2), .TxFifoLog2(TxFifoLog2),
                      .Burst(BurstWords)) u_bus (
        .clk_i(clk_i), .rst_i(rst245),
        .rx_data_o(rx_data_a), .rx_valid_o(rx_valid_a), .rx_ready_i(rx_ready_i && !mode600_i),
        .tx_data_i(tx_data_i), .tx_valid_i(tx_valid_i && !mode600_i), .tx_ready_o(tx_ready_a),
        .ft_clk_i(ft_clk_i), .ft_rst_o(ft_rst_a), .ft_data_i(ft_data_i), .ft_data_o(ft_data_a),
        .ft_data_oe_o(drive_a), .ft_rxf_n_i(ft_rxf_n_i), .ft_txe_n_i(ft_txe_n_i),
        .ft_rd_n_o(rd_n_a), .ft_wr_n_o(wr_n_a), .ft_oe_n_o(oe_n_a),
        .cap_o(cap_a), .cap_keep_i(keep),
        .have_wr_o(unused_have_wr), .wr_edge_o(unused_wr_edge), .wr_idle_o(unused_wr_idle));

    link_phy_ft600bus #(.RxFifoLog2(RxFifoLog2), .TxFifoLog2(TxFifoLog2),
                        .Burst(BurstWords)) u_bus600 (
        .clk_i(clk_i), .rst_i(rst600),
        .rx_data_o(rx_data_b), .rx_valid_o(rx_valid_b), .rx_ready_i(rx_ready_i && mode600_i),
        .tx_data_i(tx_data_i), .tx_valid_i(tx_valid_i && mode600_i), .tx_ready_o(tx_ready_b),
        .ft_clk_i(ft_clk_i), .ft_rst_o(ft_rst_b), .ft_data_i(ft_data_i), .ft_data_o(ft_data_b),
        .ft_data_t_o(t_b), .ft_be_o(ft_be_b), .ft_be_t_o(be_t_b),
        .ft_rxf_n_i(ft_rxf_n_i), .ft_txe_n_i(ft_txe_n_i), .ft_wr_n_o(wr_n_b),
        .cap_o(cap_b), .cap_keep_i(keep));

    wire ft_rst = mode600_i ? ft_rst_b : ft_rst_a;
    wire cap = mode600_i ? cap_b : cap_a;

    always_ff @(posedge ft_clk_i) begin
        if (ft_rst) be_err_tgl_q <= 1'b0;
        else if (cap && !keep) be_err_tgl_q <= !be_err_tgl_q;
    end
    for (genvar i = 0; i < 4; i = i + 1) begin : g_be_pin
        link_phy_ioreg #(.Dir(0), .Init(1'b1)) u_in (
            .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(ft_be_i[i]), .q_o(cap_be_q[i]));
    end

    assign rx_data_o = mode600_i ? rx_data_b : rx_data_a;
    assign rx_valid_o = mode600_i ? rx_valid_b : rx_valid_a;
    assign tx_ready_o = mode600_i ? tx_ready_b : tx_ready_a;
    assign ft_data_o = mode600_i ? ft_data_b : ft_data_a;
    assign ft_data_t_o = mode600_i ? t_b : {32{!drive_a}};
    assign ft_be_o = mode600_i ? ft_be_b : 4'hF;
    assign ft_be_t_o = mode600_i ? be_t_b : {4{!drive_a}};
    assign ft_rd_n_o = mode600_i ? 1'b1 : rd_n_a;
    assign ft_wr_n_o = mode600_i ? wr_n_b : wr_n_a;
    assign ft_oe_n_o = mode600_i ? 1'b1 : oe_n_a;
    assign ft_siwu_n_o = 1'b1;

    // ---- the BE error event into the core domain ------------------------------------------
    wire  be_err_tgl_s;
    logic be_err_tgl_seen_q;
    cmn_sync2 #(.Width(1)) u_err_sync (.clk_i(clk_i), .d_i(be_err_tgl_q), .q_o(be_err_tgl_s));
    always_ff @(posedge clk_i) begin
        if (rst_i) be_err_tgl_seen_q <= 1'b0;
        else be_err_tgl_seen_q <= be_err_tgl_s;
    end
    assign rx_be_err_o = be_err_tgl_s != be_err_tgl_seen_q && !rst_i;
endmodule
`default_nettype wire
