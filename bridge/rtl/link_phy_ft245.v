`default_nettype none
`include "cmn_param.vh"
// link_phy_ft245: the FPGA side of an FTDI FT2232H (channel A) or FT232H in FT245-style
// synchronous FIFO mode (8-bit bus, 60 MHz CLKOUT from the chip), as byte streams in the core
// clock domain. The same bus discipline as link_phy_ft601, on 8 bits and without BE.
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

    // ---- reset into the chip's clock domain -----------------------------------------------
    wire ft_rst;
    cmn_sync2 #(.Width(1)) u_rst_sync (.clk_i(ft_clk_i), .d_i(rst_i), .q_o(ft_rst));

    // ---- crossings ------------------------------------------------------------------------
    logic        rxq_valid;              // a captured byte to push (ft_clk_i)
    logic [7:0]  rxq_data;
    wire         rxq_ready, rxq_afull;
    wire         unused_rxq_ready = rxq_ready;  // RD# keeps room (asserted under GR_ASSERT)
    cmn_async_fifo #(.Width(8), .DepthLog2(RxFifoLog2), .AfullFree(3)) u_rx_fifo (
        .wr_clk_i(ft_clk_i), .wr_rst_i(ft_rst), .wr_data_i(rxq_data),
        .wr_valid_i(rxq_valid), .wr_ready_o(rxq_ready), .wr_almost_full_o(rxq_afull),
        .rd_clk_i(clk_i), .rd_rst_i(rst_i), .rd_data_o(rx_data_o), .rd_valid_o(rx_valid_o),
        .rd_ready_i(rx_ready_i)
    );

    wire [7:0]  txq_data;
    wire        txq_valid;
    logic       txq_pop;
    wire        unused_tx_afull;
    cmn_async_fifo #(.Width(8), .DepthLog2(TxFifoLog2), .AfullFree(1)) u_tx_fifo (
        .wr_clk_i(clk_i), .wr_rst_i(rst_i), .wr_data_i(tx_data_i), .wr_valid_i(tx_valid_i),
        .wr_ready_o(tx_ready_o), .wr_almost_full_o(unused_tx_afull),
        .rd_clk_i(ft_clk_i), .rd_rst_i(ft_rst), .rd_data_o(txq_data), .rd_valid_o(txq_valid),
        .rd_ready_i(txq_pop)
    );

    // ---- bus state machine (ft_clk_i) -----------------------------------------------------
    localparam [2:0] StIdle = 3'd0, StRdOe = 3'd1, StRead = 3'd2, StTurn1 = 3'd3,
                     StTurn2 = 3'd4, StWrite = 3'd5;
    logic [2:0]  st_q, st_d;
    logic        oe_n_q, oe_n_d, rd_n_q, rd_n_d, wr_n_q, wr_n_d, drive_q, drive_d;
    logic [7:0]  wdata_q, wdata_d;       // the byte on the bus (or next to go)
    logic        wvalid_q, wvalid_d;
    logic [15:0] burst_q, burst_d;
    logic        last_wr_q, last_wr_d;   // the last burst was a write: a read goes first
    logic        cap_q;                  // a byte was taken at the last edge
    logic [7:0]  cap_data_q;
    logic        siwu_n_q, siwu_n_d;
    logic        sent_q, sent_d;         // bytes written since the last SIWU# pulse
    logic [7:0]  idle_q, idle_d;         // cycles with nothing to send

    wire rd_edge = !rd_n_q && !ft_rxf_n_i;      // a byte moves at this edge
    wire wr_edge = !wr_n_q && !ft_txe_n_i;      // the bus byte is written at this edge
    wire want_rd = !ft_rxf_n_i && !rxq_afull;
    wire have_wr = wvalid_q || txq_valid;
    wire want_wr = have_wr && !ft_txe_n_i;
    wire burst_done = (burst_q >= 16'(BurstBytes));

    always_comb begin
        st_d = st_q;
        oe_n_d = oe_n_q;
        rd_n_d = 1'b1;
        wr_n_d = 1'b1;
        drive_d = drive_q;
        wdata_d = wdata_q;
        wvalid_d = wvalid_q;
        burst_d = burst_q;
        last_wr_d = last_wr_q;
        txq_pop = 1'b0;

        // The bus byte: written at this edge -> the next one from the FIFO.
        if (wr_edge) wvalid_d = 1'b0;
        if ((!wvalid_q || wr_edge) && txq_valid) begin
            txq_pop = 1'b1;
            wdata_d = txq_data;
            wvalid_d = 1'b1;
        end

        case (st_q)
            StIdle: begin
                burst_d = 16'd0;
                if (want_rd && (!want_wr || last_wr_q)) begin
                    st_d = StRdOe;
                    oe_n_d = 1'b0;
                end else if (want_wr) begin
                    st_d = StWrite;
                    drive_d = 1'b1;
                    wr_n_d = !wvalid_d;
                end
            end
            StRdOe: begin                       // OE# low one cycle before RD#
                st_d = StRead;
                rd_n_d = rxq_afull;
                last_wr_d = 1'b0;
            end
            StRead: begin
                if (rd_edge) burst_d = burst_q + 16'd1;
                if (want_wr && (ft_rxf_n_i || rxq_afull || burst_done)) begin
                    st_d = StTurn1;             // RD# and OE# high; the chip lets go after
                    oe_n_d = 1'b1;              // its next edge, the FPGA drives one later
                end else begin
                    rd_n_d = rxq_afull;
                end
            end
            StTurn1: st_d = StTurn2;
            StTurn2: st_d = StIdle;
            StWrite: begin
                last_wr_d = 1'b1;
                if (wr_edge) burst_d = burst_q + 16'd1;
                if (want_rd && (!wvalid_d || ft_txe_n_i || burst_done)) begin
                    st_d = StIdle;              // release the bus; OE# only after that
                    drive_d = 1'b0;
                end else begin
                    // WR# low for the next edge if there is a byte and the chip had room now
                    wr_n_d = !(wvalid_d && !ft_txe_n_i);
                end
            end
            default: begin
                st_d = StIdle;
                oe_n_d = 1'b1;
                drive_d = 1'b0;
            end
        endcase
    end

    always_ff @(posedge ft_clk_i) begin
        if (ft_rst) begin
            st_q <= StIdle;
            oe_n_q <= 1'b1;
            rd_n_q <= 1'b1;
            wr_n_q <= 1'b1;
            drive_q <= 1'b0;
            wvalid_q <= 1'b0;
            burst_q <= 16'd0;
            last_wr_q <= 1'b0;
            cap_q <= 1'b0;
            siwu_n_q <= 1'b1;
            sent_q <= 1'b0;
            idle_q <= 8'd0;
        end else begin
            st_q <= st_d;
            oe_n_q <= oe_n_d;
            rd_n_q <= rd_n_d;
            wr_n_q <= wr_n_d;
            drive_q <= drive_d;
            wvalid_q <= wvalid_d;
            burst_q <= burst_d;
            last_wr_q <= last_wr_d;
            cap_q <= rd_edge;
            siwu_n_q <= siwu_n_d;
            sent_q <= sent_d;
            idle_q <= idle_d;
        end
        wdata_q <= wdata_d;
        cap_data_q <= ft_data_i;      // DATA straight into flops at every edge
    end

    always_comb begin
        rxq_valid = cap_q;
        rxq_data = cap_data_q;
    end

    assign ft_data_o = wdata_q;
    assign ft_data_oe_o = drive_q;
    assign ft_rd_n_o = rd_n_q;
    assign ft_wr_n_o = wr_n_q;
    assign ft_oe_n_o = oe_n_q;
    assign ft_siwu_n_o = siwu_n_q;

    // SIWU#: one low cycle, WR# high, after SiwuIdle cycles with nothing to send.
    always_comb begin
        siwu_n_d = 1'b1;
        sent_d = sent_q || wr_edge;
        idle_d = (have_wr || wr_edge) ? 8'd0 : (idle_q == 8'hFF ? idle_q : idle_q + 8'd1);
        if (SiwuIdle != 0 && sent_q && !have_wr && idle_q >= 8'(SiwuIdle) && wr_n_q && wr_n_d) begin
            siwu_n_d = 1'b0;
            sent_d = 1'b0;
        end
    end

`ifdef GR_ASSERT
    logic a_rst_seen_q = 1'b0;   // no checks before the first reset
    always @(posedge ft_clk_i) begin
        a_rst_seen_q <= a_rst_seen_q || ft_rst;
        if (a_rst_seen_q && !ft_rst && rxq_valid && !rxq_ready)
            $error("link_phy_ft245 %m: a byte from the chip found the receive FIFO full");
        if (a_rst_seen_q && !ft_rst && drive_q && !oe_n_q)
            $error("link_phy_ft245 %m: driving the bus with OE# low");
    end
`endif
endmodule
`default_nettype wire
