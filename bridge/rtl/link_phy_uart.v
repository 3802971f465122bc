// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_phy_uart: 8N1 UART on two pins, for a USB-UART bridge such as the FT231X (3 Mbaud).
// Everything runs in the core clock domain clk_i; rx_i and cts_n_i are asynchronous pins and
// pass a cmn_sync2 first.
//
// Contract (engine side, bytes; the engine frames and packs):
// - rx_data_o/rx_valid_o/rx_ready_i: received bytes, oldest first, from a 2**RxFifoLog2-byte
//   FIFO. A UART cannot be stopped at once, so a byte that finds the FIFO full is dropped and
//   rx_overrun_o pulses for one cycle (the protocol's credits keep that from happening; the
//   RTS#/CTS# pair below can too).
// - tx_data_i/tx_valid_i/tx_ready_o: a byte is taken when the transmitter is idle and CTS# is
//   low; it goes out at once (start bit, 8 data bits LSB first, stop bit).
// Receiver: the line is watched every clk_i cycle. A falling edge starts a byte; the start bit
// must still read low at its middle (majority of three samples at mid-bit - 1, mid, + 1) or it
// was a glitch and is ignored. Each data bit is the majority of the same three samples. The
// stop bit must read high: if it reads low, the byte is dropped, rx_frame_err_o pulses, and the
// receiver waits for the line to return high (a break) before it looks for the next start
// bit. The receiver looks for the next start edge right after the middle of the stop bit, so
// a sender up to about 4% fast or slow is received (bit clock = integer divider, see below).
// Bit clock: Div = round(ClkHz / Baud) cycles per bit, both directions; Div < 8 stops
// elaboration (three samples around mid-bit need room). At 100 MHz and 3 Mbaud, Div = 33 and
// the transmitter is 1% fast.
// Flow control (FT231X RTS#/CTS#, optional): cts_n_i is the far end's RTS# (low: it can take
// bytes); tie it low when unused. rts_n_o goes to the far end's CTS#: high while fewer than
// RtsSlack bytes of the receive FIFO are free, so a sender that finishes the byte in flight
// and a few more still fits. Leave it unconnected when unused.
// Reset (rst_i, synchronous, active high) empties the FIFO, idles both directions (tx_o high).
module link_phy_uart #(
    parameter ClkHz      = 100000000,  // clk_i frequency, Hz
    parameter Baud       = 3000000,    // bits per second
    parameter RxFifoLog2 = 4,          // log2 of the receive FIFO's bytes, 2..10
    parameter RtsSlack   = 4           // free bytes below which rts_n_o goes high
) (
    input  wire       clk_i,
    input  wire       rst_i,           // synchronous, active high
    // pins
    input  wire       rx_i,            // serial in (idle high)
    output wire       tx_o,            // serial out (idle high)
    input  wire       cts_n_i,         // low: the far end accepts bytes (tie low if unused)
    output wire       rts_n_o,         // low: this end accepts bytes
    // engine side
    output wire [7:0] rx_data_o,
    output wire       rx_valid_o,
    input  wire       rx_ready_i,
    output wire       rx_frame_err_o,  // one-cycle pulse: a byte with a low stop bit, dropped
    output wire       rx_overrun_o,    // one-cycle pulse: a byte found the FIFO full, dropped
    input  wire [7:0] tx_data_i,
    input  wire       tx_valid_i,
    output wire       tx_ready_o
);
    localparam integer Div = (ClkHz + Baud / 2) / Baud;
    localparam integer Mid = Div / 2;
    localparam integer CB = $clog2(Div + 1);
    localparam integer Depth = 1 << RxFifoLog2;
    localparam [CB-1:0] DIV_LAST = CB'(Div - 1);
    localparam [CB-1:0] MID_M1 = CB'(Mid - 1);
    localparam [CB-1:0] MID_0 = CB'(Mid);
    localparam [CB-1:0] MID_P1 = CB'(Mid + 1);

    if (Baud <= 0 || ClkHz / Baud < 8) begin : g_bad_baud
        `CMN_PARAM_ERROR("link_phy_uart: ClkHz / Baud must be >= 8 (three samples per bit around its middle)")
    end
    if (RxFifoLog2 < 2 || RxFifoLog2 > 10) begin : g_bad_fifo
        `CMN_PARAM_ERROR("link_phy_uart: RxFifoLog2 must be 2..10")
    end
    if (RtsSlack < 1 || RtsSlack >= Depth) begin : g_bad_slack
        `CMN_PARAM_ERROR("link_phy_uart: RtsSlack must be 1 .. 2**RxFifoLog2 - 1")
    end

    wire rx_s, cts_n_s;
    cmn_sync2 #(.Width(2)) u_sync (.clk_i(clk_i), .d_i({rx_i, cts_n_i}), .q_o({rx_s, cts_n_s}));

    // ---- receiver -------------------------------------------------------------------------
    localparam [1:0] StRxIdle = 2'd0, StRxBits = 2'd1, StRxBreak = 2'd2;
    logic [1:0]    rx_st_q, rx_st_d;
    logic [CB-1:0] rx_cnt_q, rx_cnt_d;     // cycles into the current bit
    logic [3:0]    rx_bit_q, rx_bit_d;     // 0 start, 1..8 data, 9 stop
    logic [2:0]    rx_smp_q, rx_smp_d;     // the three samples around mid-bit
    logic [7:0]    rx_sh_q, rx_sh_d;
    logic          rx_done, rx_ferr;
    wire           rx_maj = (rx_smp_q[0] & rx_smp_q[1]) | (rx_smp_q[0] & rx_s) |
                            (rx_smp_q[1] & rx_s);   // with the third sample, taken now

    always_comb begin
        rx_st_d = rx_st_q;
        rx_cnt_d = rx_cnt_q + 1'b1;
        rx_bit_d = rx_bit_q;
        rx_smp_d = rx_smp_q;
        rx_sh_d = rx_sh_q;
        rx_done = 1'b0;
        rx_ferr = 1'b0;
        case (rx_st_q)
            StRxIdle: begin
                rx_cnt_d = {CB{1'b0}};
                if (rx_s == 1'b0) begin   // a falling edge: this cycle is the bit's first
                    rx_st_d = StRxBits;
                    rx_cnt_d = {{(CB-1){1'b0}}, 1'b1};
                    rx_bit_d = 4'd0;
                end
            end
            StRxBits: begin
                if (rx_cnt_q == MID_M1) rx_smp_d[0] = rx_s;
                if (rx_cnt_q == MID_0) rx_smp_d[1] = rx_s;
                if (rx_cnt_q == MID_P1) begin
                    if (rx_bit_q == 4'd0 && rx_maj) begin
                        rx_st_d = StRxIdle;          // a glitch, not a start bit
                    end else if (rx_bit_q == 4'd9) begin
                        if (rx_maj) begin
                            rx_done = 1'b1;
                            rx_st_d = StRxIdle;      // look for the next start edge now
                        end else begin
                            rx_ferr = 1'b1;
                            rx_st_d = StRxBreak;
                        end
                    end else if (rx_bit_q != 4'd0) begin
                        rx_sh_d = {rx_maj, rx_sh_q[7:1]};
                    end
                end
                if (rx_cnt_q == DIV_LAST) begin
                    rx_cnt_d = {CB{1'b0}};
                    rx_bit_d = rx_bit_q + 4'd1;
                end
            end
            StRxBreak: begin
                rx_cnt_d = {CB{1'b0}};
                if (rx_s == 1'b1) rx_st_d = StRxIdle;
            end
            default: rx_st_d = StRxIdle;
        endcase
    end

    // ---- receive FIFO ---------------------------------------------------------------------
    localparam integer PB = RxFifoLog2 + 1;
    logic [7:0]    fifo_q [0:Depth-1];
    logic [PB-1:0] wr_q, rd_q;
    wire  [PB-1:0] used = wr_q - rd_q;
    wire           full = (used == PB'(Depth));
    wire           push = rx_done && !full;
    wire           pop = rx_valid_o && rx_ready_i;
    logic          ferr_q, ovr_q, rts_n_q;

    assign rx_valid_o = (used != {PB{1'b0}});
    assign rx_data_o = fifo_q[rd_q[RxFifoLog2-1:0]];
    assign rx_frame_err_o = ferr_q;
    assign rx_overrun_o = ovr_q;
    assign rts_n_o = rts_n_q;

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            rx_st_q <= StRxIdle;
            wr_q <= {PB{1'b0}};
            rd_q <= {PB{1'b0}};
            ferr_q <= 1'b0;
            ovr_q <= 1'b0;
            rts_n_q <= 1'b1;
        end else begin
            rx_st_q <= rx_st_d;
            if (push) wr_q <= wr_q + 1'b1;
            if (pop) rd_q <= rd_q + 1'b1;
            ferr_q <= rx_ferr;
            ovr_q <= rx_done && full;
            rts_n_q <= (PB'(Depth) - used) < PB'(RtsSlack);
        end
        rx_cnt_q <= rx_cnt_d;
        rx_bit_q <= rx_bit_d;
        rx_smp_q <= rx_smp_d;
        rx_sh_q <= rx_sh_d;
    end

    always_ff @(posedge clk_i) begin
        if (push && !rst_i) fifo_q[wr_q[RxFifoLog2-1:0]] <= rx_sh_q;
    end

    // ---- transmitter ----------------------------------------------------------------------
    logic          tx_busy_q, tx_busy_d;
    logic [CB-1:0] tx_cnt_q, tx_cnt_d;
    logic [3:0]    tx_bit_q, tx_bit_d;
    logic [9:0]    tx_sh_q, tx_sh_d;        // stop, data[7:0], start; bit 0 on the line
    logic          tx_q, tx_d;

    assign tx_ready_o = !tx_busy_q && !cts_n_s;
    assign tx_o = tx_q;

    always_comb begin
        tx_busy_d = tx_busy_q;
        tx_cnt_d = tx_cnt_q;
        tx_bit_d = tx_bit_q;
        tx_sh_d = tx_sh_q;
        tx_d = tx_q;
        if (!tx_busy_q) begin
            tx_d = 1'b1;
            if (tx_valid_i && tx_ready_o) begin
                tx_busy_d = 1'b1;
                tx_sh_d = {1'b1, tx_data_i, 1'b0};
                tx_cnt_d = {CB{1'b0}};
                tx_bit_d = 4'd0;
                tx_d = 1'b0;             // the start bit, from the next cycle on
            end
        end else if (tx_cnt_q == DIV_LAST) begin
            tx_cnt_d = {CB{1'b0}};
            if (tx_bit_q == 4'd9) begin
                tx_busy_d = 1'b0;
                tx_d = 1'b1;
            end else begin
                tx_bit_d = tx_bit_q + 4'd1;
                tx_sh_d = {1'b1, tx_sh_q[9:1]};
                tx_d = tx_sh_q[1];
            end
        end else begin
            tx_cnt_d = tx_cnt_q + 1'b1;
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            tx_busy_q <= 1'b0;
            tx_q <= 1'b1;
        end else begin
            tx_busy_q <= tx_busy_d;
            tx_q <= tx_d;
        end
        tx_cnt_q <= tx_cnt_d;
        tx_bit_q <= tx_bit_d;
        tx_sh_q <= tx_sh_d;
    end

`ifdef GR_ASSERT
    always @(posedge clk_i) begin
        if (!rst_i && push && pop && used == {PB{1'b0}})
            $error("link_phy_uart %m: pop while empty");
    end
`endif
endmodule
`default_nettype wire
