// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_phy_ft600bus: the FPGA side of an FTDI FT601 in FT600 mode (the chip's "multi-channel
// FIFO" bus protocol, FIFOMode 1 in its configuration), moving the engine's words on channel 1,
// as link_phy_ft601 wraps it (that header states the engine-side contract; the clock crossings
// are the same cmn_async_fifo pair as link_phy_ftfifo's). bridge/README.md gives the sources.
// Chip side (ft_clk_i, ft_rst_o is rst_i synchronized to it): the FPGA is the bus master and
// uses WR# alone; RD# and OE# are unused in this mode (link_phy_ft601 holds them high).
// - Idle (WR# high): the FPGA drives DATA[31:16], DATA[7:0] and BE to all ones; the chip drives
//   DATA[15:8] with each channel's status, active low: DATA[8+n-1] "IN channel n can take a
//   packet", DATA[12+n-1] "OUT channel n has data". TXE# low: the chip takes a command.
// - Command: WR# low for one edge with BE = 4'b0000 (master read) or 4'b0001 (master write)
//   and DATA[7:0] = the channel (1); DATA[15:8] stays the chip's, so the FPGA drives lanes
//   0, 2, 3 and BE only. A command is issued only when TXE# is low and the status says the
//   channel has data (read) or room for a packet (write), from a status sampled at least two
//   edges after the chip took back DATA[15:8].
// - Master read: the FPGA releases DATA and BE after the command edge; the chip drives them
//   from the edge after that, with RXF# low while a word is on the bus. A word is taken at
//   every edge that sees WR# and RXF# low (its BE kept beside it, for link_phy_ft601's check).
//   The FPGA ends the transaction with WR# high when RXF# is high at an edge of the data
//   phase (the chip has nothing more), when its receive FIFO has room for no more than the
//   words that may still arrive (three), or after Burst words when a write waits.
// - Master write: the command stays on the bus one more edge (DATA[15:8] undriven by both),
//   then the FPGA drives all of DATA with the word and BE = 4'hF. A word is written at every
//   edge that sees WR# and RXF# low; one that meets RXF# high stays and goes in the next
//   transaction. The FPGA ends with WR# high when RXF# is high at an edge of the data phase
//   (the chip's buffer is full), when it has no word left, or after Burst words (the status,
//   hidden under the data, is looked at again before the next command). WR# rises together
//   with the FPGA letting go of DATA[15:8].
// - Turnaround: after a read, the FPGA drives lanes 0, 2, 3 and BE again two edges after WR#
//   rose (the chip lets go the edge after it sees WR# high), so the two never drive at once.
// - Arbitration: as link_phy_ftfifo's (after a write, a waiting read goes first).
// - Pins: every register that drives a pin (DATA, BE, their tristate controls, one per pin, and
//   WR#) or samples one (DATA, TXE#) is a link_phy_ioreg, for the pin's I/O cell, and is a
//   copy of the state the machine keeps for itself; DATA[15:8]'s status and TXE# are looked at
//   as sampled at the same edge. RXF# is the exception: it decides at each edge whether this
//   edge's word moved, so the next edge's WR#, DATA and BE follow from it through logic (in a
//   write, the word on the bus at the next edge is this one again when RXF# refused it).
module link_phy_ft600bus #(
    parameter RxFifoLog2 = 5,    // log2 of the receive FIFO's words (3..12)
    parameter TxFifoLog2 = 5,    // log2 of the transmit FIFO's words (2..12)
    parameter Burst      = 256   // words one direction may move while the other waits
) (
    input  wire        clk_i,
    input  wire        rst_i,
    output wire [31:0] rx_data_o,
    output wire        rx_valid_o,
    input  wire        rx_ready_i,
    input  wire [31:0] tx_data_i,
    input  wire        tx_valid_i,
    output wire        tx_ready_o,
    input  wire        ft_clk_i,
    output wire        ft_rst_o,
    input  wire [31:0] ft_data_i,
    output wire [31:0] ft_data_o,
    output wire [31:0] ft_data_t_o,     // per pin, 1: released (the tristate control)
    output wire [3:0]  ft_be_o,
    output wire [3:0]  ft_be_t_o,       // per pin, 1: released
    input  wire        ft_rxf_n_i,
    input  wire        ft_txe_n_i,
    output wire        ft_wr_n_o,
    output wire        cap_o,           // a word was taken at the last edge
    input  wire        cap_keep_i       // the same cycle: push it (0: drop it)
);
    if (RxFifoLog2 < 3 || RxFifoLog2 > 12) begin : g_bad_rx
        `CMN_PARAM_ERROR("link_phy_ft600bus: RxFifoLog2 must be 3..12")
    end
    if (TxFifoLog2 < 2 || TxFifoLog2 > 12) begin : g_bad_tx
        `CMN_PARAM_ERROR("link_phy_ft600bus: TxFifoLog2 must be 2..12")
    end
    if (Burst < 1 || Burst > 65535) begin : g_bad_burst
        `CMN_PARAM_ERROR("link_phy_ft600bus: Burst must be 1..65535")
    end

    localparam [7:0] CHANNEL = 8'd1;
    localparam [3:0] CMD_READ = 4'b0000, CMD_WRITE = 4'b0001;
    localparam [3:0] LANES_IDLE = 4'b1101;   // all but DATA[15:8], the chip's status

    wire ft_rst;
    cmn_sync2 #(.Width(1)) u_rst_sync (.clk_i(ft_clk_i), .d_i(rst_i), .q_o(ft_rst));

    // ---- crossings ------------------------------------------------------------------------
    logic        rxq_valid;
    logic [31:0] rxq_data;
    wire         rxq_ready, rxq_afull;
    wire         unused_rxq_ready = rxq_ready;  // WR# keeps room (asserted under GR_ASSERT)
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
    typedef enum logic [3:0] {
        StIdle, StRdCmd, StRdTurn, StRdData, StWrCmd, StWrTurn, StWrData, StEnd1, StEnd2
    } st_e;
    st_e         st_q, st_d;
    logic        wr_n_q, wr_n_d;
    logic [3:0]  oe_q, oe_d;            // lanes the FPGA drives
    logic        be_oe_q, be_oe_d;
    logic [7:0]  cmd_q, cmd_d;          // DATA[7:0] outside the write data phase
    logic [3:0]  cmd_be_q, cmd_be_d;    // BE outside the write data phase
    logic        wphase_q, wphase_d;    // DATA/BE carry the word (write data phase)
    logic [31:0] wdata_q, wdata_d;
    logic        wvalid_q, wvalid_d;
    logic [15:0] burst_q, burst_d;
    logic        last_wr_q, last_wr_d;
    wire         st_out_n_q, st_in_n_q;  // DATA[12], DATA[8] (channel 1) at the last edge
    wire         txe_n_q;               // TXE# at the last edge
    logic [1:0]  fresh_q;               // edges since the chip drives the status again
    logic        cap_q;
    wire  [31:0] cap_data_q;            // DATA at the last edge

    wire in_data = st_q == StRdData;
    wire rd_edge = in_data && !wr_n_q && !ft_rxf_n_i;
    wire wr_edge = st_q == StWrData && !wr_n_q && !ft_rxf_n_i;
    wire have_wr = wvalid_q || txq_valid;
    wire status_ok = fresh_q == 2'd3 && !txe_n_q;
    wire want_rd = status_ok && !st_out_n_q && !rxq_afull;    // OUT ch1 has data
    wire want_wr = status_ok && !st_in_n_q && have_wr;        // IN ch1 has room
    wire burst_done = (burst_q >= 16'(Burst));

    always_comb begin
        st_d = st_q;
        wr_n_d = wr_n_q;
        oe_d = oe_q;
        be_oe_d = be_oe_q;
        cmd_d = cmd_q;
        cmd_be_d = cmd_be_q;
        wphase_d = wphase_q;
        wdata_d = wdata_q;
        wvalid_d = wvalid_q;
        burst_d = burst_q;
        last_wr_d = last_wr_q;
        txq_pop = 1'b0;

        // The word to write: taken at this edge -> the next one from the FIFO.
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
                    st_d = StRdCmd;
                    wr_n_d = 1'b0;
                    cmd_d = CHANNEL;
                    cmd_be_d = CMD_READ;
                end else if (want_wr) begin
                    st_d = StWrCmd;
                    wr_n_d = 1'b0;
                    cmd_d = CHANNEL;
                    cmd_be_d = CMD_WRITE;
                end
            end
            StRdCmd: begin                      // the chip takes the command at this edge
                st_d = StRdTurn;
                oe_d = 4'h0;
                be_oe_d = 1'b0;
                last_wr_d = 1'b0;
            end
            StRdTurn: st_d = StRdData;          // the chip drives from this edge on
            StRdData: begin
                if (rd_edge) burst_d = burst_q + 16'd1;
                if (ft_rxf_n_i || rxq_afull || (burst_done && have_wr)) begin
                    st_d = StEnd1;
                    wr_n_d = 1'b1;
                end
            end
            StWrCmd: st_d = StWrTurn;           // the chip takes it; held one edge more
            StWrTurn: begin
                st_d = StWrData;
                oe_d = 4'hF;
                wphase_d = 1'b1;
                wr_n_d = !wvalid_d;
            end
            StWrData: begin
                last_wr_d = 1'b1;
                if (wr_edge) burst_d = burst_q + 16'd1;
                if (ft_rxf_n_i || !wvalid_d || burst_done) begin
                    st_d = StEnd1;
                    wr_n_d = 1'b1;
                    oe_d = LANES_IDLE;
                    wphase_d = 1'b0;
                    cmd_d = 8'hFF;
                    cmd_be_d = 4'hF;
                end
            end
            StEnd1: st_d = StEnd2;              // the chip sees WR# high at this edge
            StEnd2: begin                       // and has let go: drive the idle lanes
                st_d = StIdle;
                oe_d = LANES_IDLE;
                be_oe_d = 1'b1;
                cmd_d = 8'hFF;
                cmd_be_d = 4'hF;
            end
            default: begin
                st_d = StEnd1;
                wr_n_d = 1'b1;
                oe_d = 4'h0;
                be_oe_d = 1'b0;
                wphase_d = 1'b0;
            end
        endcase
    end

    always_ff @(posedge ft_clk_i) begin
        if (ft_rst) begin
            st_q <= StEnd1;
            wr_n_q <= 1'b1;
            oe_q <= 4'h0;
            be_oe_q <= 1'b0;
            cmd_q <= 8'hFF;
            cmd_be_q <= 4'hF;
            wphase_q <= 1'b0;
            wvalid_q <= 1'b0;
            burst_q <= 16'd0;
            last_wr_q <= 1'b0;
            fresh_q <= 2'd0;
            cap_q <= 1'b0;
        end else begin
            st_q <= st_d;
            wr_n_q <= wr_n_d;
            oe_q <= oe_d;
            be_oe_q <= be_oe_d;
            cmd_q <= cmd_d;
            cmd_be_q <= cmd_be_d;
            wphase_q <= wphase_d;
            wvalid_q <= wvalid_d;
            burst_q <= burst_d;
            last_wr_q <= last_wr_d;
            // the status is the chip's again from the edge after it saw WR# high
            fresh_q <= !wr_n_q ? 2'd0 : (fresh_q == 2'd3 ? fresh_q : fresh_q + 2'd1);
            cap_q <= rd_edge;
        end
        wdata_q <= wdata_d;
    end

    // ---- the pins' registers (link_phy_ioreg: in the I/O cells) ---------------------------
    // Each holds what the machine's own registers will hold after this edge, from the same
    // next values and the same reset: DATA all ones and BE 4'hF outside the write data phase
    // but for the command, the pins released in reset, WR# high.
    wire [31:0] pin_data_d = wphase_d ? wdata_d : {24'hFFFFFF, cmd_d};
    wire [3:0]  pin_be_d = wphase_d ? 4'hF : cmd_be_d;
    for (genvar i = 0; i < 32; i = i + 1) begin : g_data_pin
        link_phy_ioreg #(.Dir(1), .Init(1'b1)) u_out (
            .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(pin_data_d[i]), .q_o(ft_data_o[i]));
        link_phy_ioreg #(.Dir(1), .Init(1'b1)) u_t (
            .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(!oe_d[i / 8]), .q_o(ft_data_t_o[i]));
        link_phy_ioreg #(.Dir(0), .Init(1'b1)) u_in (
            .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(ft_data_i[i]), .q_o(cap_data_q[i]));
    end
    for (genvar i = 0; i < 4; i = i + 1) begin : g_be_pin
        link_phy_ioreg #(.Dir(1), .Init(1'b1)) u_out (
            .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(pin_be_d[i]), .q_o(ft_be_o[i]));
        link_phy_ioreg #(.Dir(1), .Init(1'b1)) u_t (
            .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(!be_oe_d), .q_o(ft_be_t_o[i]));
    end
    link_phy_ioreg #(.Dir(1), .Init(1'b1)) u_wr_n (
        .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(wr_n_d), .q_o(ft_wr_n_o));
    link_phy_ioreg #(.Dir(0), .Init(1'b1)) u_txe_n (
        .clk_i(ft_clk_i), .rst_i(ft_rst), .d_i(ft_txe_n_i), .q_o(txe_n_q));
    assign st_out_n_q = cap_data_q[12];
    assign st_in_n_q = cap_data_q[8];

    always_comb begin
        rxq_valid = cap_q && cap_keep_i;
        rxq_data = cap_data_q;
    end

    assign ft_rst_o = ft_rst;
    assign cap_o = cap_q;

`ifdef GR_ASSERT
    logic a_rst_seen_q = 1'b0;
    always @(posedge ft_clk_i) begin
        a_rst_seen_q <= a_rst_seen_q || ft_rst;
        if (a_rst_seen_q && !ft_rst && rxq_valid && !rxq_ready)
            $error("link_phy_ft600bus %m: a word from the chip found the receive FIFO full");
        if (a_rst_seen_q && !ft_rst && !wr_n_q && st_q == StWrData && oe_q != 4'hF)
            $error("link_phy_ft600bus %m: WR# low in the write data phase with DATA not driven");
    end
`endif
endmodule
`default_nettype wire
