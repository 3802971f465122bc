// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_phy_ft245: the FPGA side of an FTDI FT2232H (channel A) or FT232H in FT245-style
// synchronous FIFO mode (8-bit bus, 60 MHz CLKOUT from the chip), as byte streams in the core
// clock domain. The same bus discipline as link_phy_ft601 (link_phy_ftfifo's), on 8 bits and
// without BE; this adds the SIWU# pulse.
//
// Engine side (clk_i/rst_i): rx_* the bytes the USB host sent, tx_* the bytes for the host,
// each through a cmn_async_fifo. The engine packs bytes into words and frames them.
// Chip side (ft_clk_i): the bus is half duplex and the FPGA is its master:
// - Read: RXF# low -> OE# low for one cycle -> RD# low (the datasheet: OE# at least one clock
//   before RD#). A byte is taken at every rising edge that sees RD# and RXF# both low; RD# is
//   held low only while the receive FIFO has room for the bytes that may still arrive before a
//   raised RD# takes effect (three).
// - Write: TXE# low -> WR# low with DATA driven. A byte is written at every rising edge that
//   sees WR# and TXE# both low; one that meets TXE# high stays on the bus and is offered again.
// - Turnaround: after a read, OE# goes high and the FPGA drives the bus two cycles later;
//   after a write the FPGA releases the bus before it lowers OE#.
// - Arbitration: a direction keeps the bus while it has work, up to BurstBytes bytes when the
//   other side is waiting; after a switch the other direction goes first.
// - SIWU# (send immediate): the chip holds IN data until it has a full USB packet or its
//   latency timer (16 ms by default) runs out. So that a reply does not wait for the timer,
//   SIWU# is pulsed low for one cycle, with WR# high, once the transmit side has had nothing
//   to send for SiwuIdle cycles after writing at least one byte: the chip then sends what it
//   holds at the next USB IN request. SiwuIdle = 0 never pulses it.
// - Throughput: one byte per ft_clk_i cycle inside a burst (60 MB/s on the bus; the chip's
//   USB 2.0 side, about 40 MB/s, is slower).
// Timing: RXF# and TXE# feed one level of logic before flops, DATA is captured into flops.
// Reset: rst_i (clk_i domain, synchronous, active high) also resets the ft_clk_i side through
//   a synchronizer; hold it for at least four ft_clk_i cycles while the chip's clock runs.
module link_phy_ft245 #(
    parameter RxFifoLog2 = 5,    // log2 of the receive FIFO's bytes (>= 3)
    parameter TxFifoLog2 = 5,    // log2 of the transmit FIFO's bytes (>= 2)
    parameter BurstBytes = 512,  // bytes one direction may move while the other waits
    parameter SiwuIdle   = 8     // idle ft_clk_i cycles before the SIWU# pulse, 0: never
) (
    input  wire        clk_i,           // core clock
    input  wire        rst_i,           // synchronous to clk_i, active high
    // engine side (clk_i)
    output wire [7:0]  rx_data_o,
    output wire        rx_valid_o,
    input  wire        rx_ready_i,
    input  wire [7:0]  tx_data_i,
    input  wire        tx_valid_i,
    output wire        tx_ready_o,
    // chip side (ft_clk_i)
    input  wire        ft_clk_i,        // CLKOUT from the chip (60 MHz)
    input  wire [7:0]  ft_data_i,
    output wire [7:0]  ft_data_o,
    output wire        ft_data_oe_o,    // 1: the FPGA drives DATA
    input  wire        ft_rxf_n_i,
    input  wire        ft_txe_n_i,
    output wire        ft_rd_n_o,
    output wire        ft_wr_n_o,
    output wire        ft_oe_n_o,
    output wire        ft_siwu_n_o
);
    if (RxFifoLog2 < 3 || RxFifoLog2 > 12) begin : g_bad_rx
        `CMN_PARAM_ERROR("link_phy_ft245: RxFifoLog2 must be 3..12")
    end
    if (TxFifoLog2 < 2 || TxFifoLog2 > 12) begin : g_bad_tx
        `CMN_PARAM_ERROR("link_phy_ft245: TxFifoLog2 must be 2..12")
    end
    if (BurstBytes < 1 || BurstBytes > 65535) begin : g_bad_burst
        `CMN_PARAM_ERROR("link_phy_ft245: BurstBytes must be 1..65535")
    end
    if (SiwuIdle < 0 || SiwuIdle > 254) begin : g_bad_siwu
        `CMN_PARAM_ERROR("link_phy_ft245: SiwuIdle must be 0..254")
    end

    // ---- the shared FIFO bus (link_phy_ftfifo) ---------------------------------------------
    wire ft_rst, unused_cap, have_wr, wr_edge, wr_idle;
    link_phy_ftfifo #(.Width(8), .RxFifoLog2(RxFifoLog2), .TxFifoLog2(TxFifoLog2),
                      .Burst(BurstBytes)) u_bus (
        .clk_i(clk_i), .rst_i(rst_i),
        .rx_data_o(rx_data_o), .rx_valid_o(rx_valid_o), .rx_ready_i(rx_ready_i),
        .tx_data_i(tx_data_i), .tx_valid_i(tx_valid_i), .tx_ready_o(tx_ready_o),
        .ft_clk_i(ft_clk_i), .ft_rst_o(ft_rst), .ft_data_i(ft_data_i), .ft_data_o(ft_data_o),
        .ft_data_oe_o(ft_data_oe_o), .ft_rxf_n_i(ft_rxf_n_i), .ft_txe_n_i(ft_txe_n_i),
        .ft_rd_n_o(ft_rd_n_o), .ft_wr_n_o(ft_wr_n_o), .ft_oe_n_o(ft_oe_n_o),
        .cap_o(unused_cap), .cap_keep_i(1'b1),
        .have_wr_o(have_wr), .wr_edge_o(wr_edge), .wr_idle_o(wr_idle));

    // SIWU#: one low cycle, WR# high, after SiwuIdle cycles with nothing to send.
    logic       siwu_n_q, siwu_n_d;
    logic       sent_q, sent_d;       // bytes written since the last SIWU# pulse
    logic [7:0] idle_q, idle_d;       // cycles with nothing to send
    always_comb begin
        siwu_n_d = 1'b1;
        sent_d = sent_q || wr_edge;
        idle_d = (have_wr || wr_edge) ? 8'd0 : (idle_q == 8'hFF ? idle_q : idle_q + 8'd1);
        if (SiwuIdle != 0 && sent_q && !have_wr && idle_q >= 8'(SiwuIdle) && wr_idle) begin
            siwu_n_d = 1'b0;
            sent_d = 1'b0;
        end
    end
    always_ff @(posedge ft_clk_i) begin
        if (ft_rst) begin
            siwu_n_q <= 1'b1;
            sent_q <= 1'b0;
            idle_q <= 8'd0;
        end else begin
            siwu_n_q <= siwu_n_d;
            sent_q <= sent_d;
            idle_q <= idle_d;
        end
    end
    assign ft_siwu_n_o = siwu_n_q;
endmodule
`default_nettype wire
