`default_nettype none
`include "cmn_param.vh"
// link_phy_ft601: the FPGA side of an FTDI FT601 in 245 synchronous FIFO mode (32-bit bus,
// 100 MHz CLK from the chip), as 32-bit valid/ready word streams in the core clock domain.
//
// Engine side (clk_i/rst_i): rx_* carries the words the USB host sent, tx_* the words for the
// host, each through a cmn_async_fifo. Only whole words cross: a word read from the chip with
// BE != 4'hF is dropped and rx_be_err_o pulses for one clk_i cycle (the protocol pads frames to
// four bytes, so such a word is a host error). Every word written carries BE = 4'hF.
// Chip side (ft_clk_i): the bus is half duplex and the FPGA is its master:
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
// Timing: RXF# and TXE# feed one level of logic before flops (the next RD#/WR#), DATA/BE are
//   captured straight into flops; the PHY should sit near the pins.
// SIWU# is reserved in 245 mode and held high. RESET_N is the board's business.
// Reset: rst_i (clk_i domain, synchronous, active high) also resets the ft_clk_i side through
//   a synchronizer; hold it for at least four ft_clk_i cycles while the chip's clock runs.
module link_phy_ft601 #(
    parameter RxFifoLog2 = 5,    // log2 of the receive FIFO's words (>= 3)
    parameter TxFifoLog2 = 5,    // log2 of the transmit FIFO's words (>= 2)
    parameter BurstWords = 256   // words one direction may move while the other waits
) (
    input  wire        clk_i,           // core clock
    input  wire        rst_i,           // synchronous to clk_i, active high
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
    output wire        ft_data_oe_o,    // 1: the FPGA drives DATA
    input  wire [3:0]  ft_be_i,
    output wire [3:0]  ft_be_o,
    output wire        ft_be_oe_o,      // 1: the FPGA drives BE
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

    // ---- reset into the chip's clock domain -----------------------------------------------
    wire ft_rst;
    cmn_sync2 #(.Width(1)) u_rst_sync (.clk_i(ft_clk_i), .d_i(rst_i), .q_o(ft_rst));

    // ---- crossings ------------------------------------------------------------------------
    logic        rxq_valid;              // a captured word to push (ft_clk_i)
    logic [31:0] rxq_data;
    wire         rxq_ready, rxq_afull;
    wire         unused_rxq_ready = rxq_ready;  // RD# keeps room (asserted under GR_ASSERT)
    cmn_async_fifo #(.Width(32), .DepthLog2(RxFifoLog2), .AfullFree(3)) u_rx_fifo (
        .wr_clk_i(ft_clk_i), .wr_rst_i(ft_rst), .wr_data_i(rxq_data),
        .wr_valid_i(rxq_valid), .wr_ready_o(rxq_ready), .wr_almost_full_o(rxq_afull),
        .rd_clk_i(clk_i), .rd_rst_i(rst_i), .rd_data_o(rx_data_o), .rd_valid_o(rx_valid_o),
        .rd_ready_i(rx_ready_i)
    );

    wire [31:0] txq_data;
    wire        txq_valid;
    logic       txq_pop;
    wire        unused_tx_afull;
    cmn_async_fifo #(.Width(32), .DepthLog2(TxFifoLog2), .AfullFree(1)) u_tx_fifo (
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
    logic [31:0] wdata_q, wdata_d;       // the word on the bus (or next to go)
    logic        wvalid_q, wvalid_d;
    logic [15:0] burst_q, burst_d;
    logic        last_wr_q, last_wr_d;   // the last burst was a write: a read goes first
    logic        cap_q;                  // a word was taken at the last edge
    logic [31:0] cap_data_q;
    logic [3:0]  cap_be_q;
    logic        be_err_tgl_q;

    wire rd_edge = !rd_n_q && !ft_rxf_n_i;      // a word moves at this edge
    wire wr_edge = !wr_n_q && !ft_txe_n_i;      // the bus word is written at this edge
    wire want_rd = !ft_rxf_n_i && !rxq_afull;
    wire have_wr = wvalid_q || txq_valid;
    wire want_wr = have_wr && !ft_txe_n_i;
    wire burst_done = (burst_q >= 16'(BurstWords));

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
            be_err_tgl_q <= 1'b0;
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
            if (cap_q && cap_be_q != 4'hF) be_err_tgl_q <= !be_err_tgl_q;
        end
        wdata_q <= wdata_d;
        cap_data_q <= ft_data_i;      // DATA/BE straight into flops at every edge
        cap_be_q <= ft_be_i;
    end

    always_comb begin
        rxq_valid = cap_q && cap_be_q == 4'hF;
        rxq_data = cap_data_q;
    end

    assign ft_data_o = wdata_q;
    assign ft_data_oe_o = drive_q;
    assign ft_be_o = 4'hF;
    assign ft_be_oe_o = drive_q;
    assign ft_rd_n_o = rd_n_q;
    assign ft_wr_n_o = wr_n_q;
    assign ft_oe_n_o = oe_n_q;
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

`ifdef GR_ASSERT
    logic a_rst_seen_q = 1'b0;   // no checks before the first reset
    always @(posedge ft_clk_i) begin
        a_rst_seen_q <= a_rst_seen_q || ft_rst;
        if (a_rst_seen_q && !ft_rst && rxq_valid && !rxq_ready)
            $error("link_phy_ft601 %m: a word from the chip found the receive FIFO full");
        if (a_rst_seen_q && !ft_rst && drive_q && !oe_n_q)
            $error("link_phy_ft601 %m: driving the bus with OE# low");
    end
`endif
endmodule
`default_nettype wire
