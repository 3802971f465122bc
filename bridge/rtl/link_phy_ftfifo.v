// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_phy_ftfifo: the bus discipline FTDI's 245 synchronous FIFO chips share (FT601 on 32
// bits, FT2232H/FT232H on 8), as link_phy_ft601 and link_phy_ft245 wrap it: the two clock
// crossings and the bus state machine; the wrappers add what differs (the FT601's byte
// enables, the FT2232H's SIWU# pulse). Each wrapper's header states the full contract.
// Contract:
//   - Engine side (clk_i, rst_i synchronous active high): rx_* the words the chip's USB host
//     sent, tx_* the words for it, Width bits each, through cmn_async_fifo crossings.
//   - Chip side (ft_clk_i, the chip's clock; ft_rst_o is rst_i synchronized to it, for the
//     wrapper's own chip-side flops): OE# low one cycle before RD#; a word moves only at a rising
//     edge that sees RD# and RXF# low, or WR# and TXE# low (a word written into TXE# high stays
//     on the bus and is offered again); RD# stays low only while the receive FIFO has room for
//     the three words that may still arrive; after a read, OE# goes high and the FPGA drives two
//     cycles later; after a write the FPGA releases the bus before it lowers OE#. A direction
//     keeps the bus while it has work, up to Burst words when the other side waits; after a
//     switch the other direction goes first. One word per ft_clk_i cycle inside a burst.
//   - cap_o: a word was taken at the last edge (its DATA is in the capture flops now);
//     cap_keep_i, the same cycle: push it to the engine (0: drop it).
//   - have_wr_o: a word waits to be written; wr_edge_o: one is written at this edge;
//     wr_idle_o: WR# is high now and stays high at the next edge.
module link_phy_ftfifo #(
    parameter Width      = 32,   // bus and stream width: 32 (FT601) or 8 (FT245 chips)
    parameter RxFifoLog2 = 5,    // log2 of the receive FIFO's words (3..12)
    parameter TxFifoLog2 = 5,    // log2 of the transmit FIFO's words (2..12)
    parameter Burst      = 256   // words one direction may move while the other waits
) (
    input  wire             clk_i,
    input  wire             rst_i,
    output wire [Width-1:0] rx_data_o,
    output wire             rx_valid_o,
    input  wire             rx_ready_i,
    input  wire [Width-1:0] tx_data_i,
    input  wire             tx_valid_i,
    output wire             tx_ready_o,
    input  wire             ft_clk_i,
    output wire             ft_rst_o,
    input  wire [Width-1:0] ft_data_i,
    output wire [Width-1:0] ft_data_o,
    output wire             ft_data_oe_o,    // 1: the FPGA drives DATA
    input  wire             ft_rxf_n_i,
    input  wire             ft_txe_n_i,
    output wire             ft_rd_n_o,
    output wire             ft_wr_n_o,
    output wire             ft_oe_n_o,
    output wire             cap_o,
    input  wire             cap_keep_i,
    output wire             have_wr_o,
    output wire             wr_edge_o,
    output wire             wr_idle_o
);
    if (Width != 32 && Width != 8) begin : g_bad_w
        `CMN_PARAM_ERROR("link_phy_ftfifo: Width must be 32 or 8")
    end
    if (RxFifoLog2 < 3 || RxFifoLog2 > 12) begin : g_bad_rx
        `CMN_PARAM_ERROR("link_phy_ftfifo: RxFifoLog2 must be 3..12")
    end
    if (TxFifoLog2 < 2 || TxFifoLog2 > 12) begin : g_bad_tx
        `CMN_PARAM_ERROR("link_phy_ftfifo: TxFifoLog2 must be 2..12")
    end
    if (Burst < 1 || Burst > 65535) begin : g_bad_burst
        `CMN_PARAM_ERROR("link_phy_ftfifo: Burst must be 1..65535")
    end

    // ---- reset into the chip's clock domain -----------------------------------------------
    wire ft_rst;
    cmn_sync2 #(.Width(1)) u_rst_sync (.clk_i(ft_clk_i), .d_i(rst_i), .q_o(ft_rst));

    // ---- crossings ------------------------------------------------------------------------
    logic        rxq_valid;              // a captured word to push (ft_clk_i)
    logic [Width-1:0] rxq_data;
    wire         rxq_ready, rxq_afull;
    wire         unused_rxq_ready = rxq_ready;  // RD# keeps room (asserted under GR_ASSERT)
    cmn_async_fifo #(.Width(Width), .DepthLog2(RxFifoLog2), .AfullFree(3)) u_rx_fifo (
        .wr_clk_i(ft_clk_i), .wr_rst_i(ft_rst), .wr_data_i(rxq_data),
        .wr_valid_i(rxq_valid), .wr_ready_o(rxq_ready), .wr_almost_full_o(rxq_afull),
        .rd_clk_i(clk_i), .rd_rst_i(rst_i), .rd_data_o(rx_data_o), .rd_valid_o(rx_valid_o),
        .rd_ready_i(rx_ready_i)
    );

    wire [Width-1:0] txq_data;
    wire        txq_valid;
    logic       txq_pop;
    wire        unused_tx_afull;
    cmn_async_fifo #(.Width(Width), .DepthLog2(TxFifoLog2), .AfullFree(1)) u_tx_fifo (
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
    logic [Width-1:0] wdata_q, wdata_d;  // the word on the bus (or next to go)
    logic        wvalid_q, wvalid_d;
    logic [15:0] burst_q, burst_d;
    logic        last_wr_q, last_wr_d;   // the last burst was a write: a read goes first
    logic        cap_q;                  // a word was taken at the last edge
    logic [Width-1:0] cap_data_q;

    wire rd_edge = !rd_n_q && !ft_rxf_n_i;      // a word moves at this edge
    wire wr_edge = !wr_n_q && !ft_txe_n_i;      // the bus word is written at this edge
    wire want_rd = !ft_rxf_n_i && !rxq_afull;
    wire have_wr = wvalid_q || txq_valid;
    wire want_wr = have_wr && !ft_txe_n_i;
    wire burst_done = (burst_q >= 16'(Burst));

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

        // The bus word: written at this edge -> the next one from the FIFO.
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
                    // WR# low for the next edge if there is a word and the chip had room now
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
        end
        wdata_q <= wdata_d;
        cap_data_q <= ft_data_i;      // DATA straight into flops at every edge
    end

    always_comb begin
        rxq_valid = cap_q && cap_keep_i;
        rxq_data = cap_data_q;
    end

    assign ft_rst_o = ft_rst;
    assign ft_data_o = wdata_q;
    assign ft_data_oe_o = drive_q;
    assign ft_rd_n_o = rd_n_q;
    assign ft_wr_n_o = wr_n_q;
    assign ft_oe_n_o = oe_n_q;
    assign cap_o = cap_q;
    assign have_wr_o = have_wr;
    assign wr_edge_o = wr_edge;
    assign wr_idle_o = wr_n_q && wr_n_d;

`ifdef GR_ASSERT
    logic a_rst_seen_q = 1'b0;   // no checks before the first reset
    always @(posedge ft_clk_i) begin
        a_rst_seen_q <= a_rst_seen_q || ft_rst;
        if (a_rst_seen_q && !ft_rst && rxq_valid && !rxq_ready)
            $error("link_phy_ftfifo %m: a word from the chip found the receive FIFO full");
        if (a_rst_seen_q && !ft_rst && drive_q && !oe_n_q)
            $error("link_phy_ftfifo %m: driving the bus with OE# low");
    end
`endif
endmodule
`default_nettype wire
