// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// uart_line_model: the far end of a UART line, the way a USB-UART bridge (FT231X) presents it:
// bytes from the USB host go out on tx_o, bytes on rx_i come back to the host. 8N1, LSB first.
// Simulation model: clocked by clk_i only (no delays), so it runs in Icarus, in Verilator
// --timing and in a Verilator --cc harness alike; it makes nothing happen by itself.
//
// Bit clock: a phase accumulator (Baud added per clk_i cycle, a bit every ClkHz), so the rate
// is exact on average whatever ClkHz / Baud is (>= 4): a test gives this end a Baud 2% off
// the PHY's to check the PHY's tolerance.
// Host side (clk_i domain, valid/ready):
// - in_data_i/in_valid_i/in_ready_o: bytes to send; taken when the transmitter is idle and
//   CTS# (cts_n_i) is low, sent at once.
// - out_data_o/out_valid_o/out_ready_i: received bytes from a 2**OutFifoLog2-byte buffer
//   (the FT231X has 512 bytes). A byte that finds it full is dropped and counted in
//   out_overrun_o. RTS# (rts_n_o) is high while fewer than RtsSlack bytes are free.
// Receiver: a falling edge starts a byte; each bit is sampled once, at its middle; a low stop
// bit drops the byte and counts in frame_err_o.
// Fault injection, sampled when a byte is taken from in_*: err_data_i inverts its data bit 3
// on the line, err_frame_i sends its stop bit low (then holds the line high for one bit so the
// next start edge is seen).
module uart_line_model #(
    parameter ClkHz       = 100000000,  // clk_i frequency, Hz
    parameter Baud        = 3000000,    // this end's bit rate
    parameter OutFifoLog2 = 9,          // log2 of the receive buffer's bytes
    parameter RtsSlack    = 32          // free bytes below which rts_n_o goes high
) (
    input  wire        clk_i,
    input  wire        rst_i,            // synchronous, active high
    input  wire        rx_i,             // from the FPGA's tx_o
    output wire        tx_o,             // to the FPGA's rx_i
    input  wire        cts_n_i,          // from the FPGA's rts_n_o (tie low if unused)
    output wire        rts_n_o,          // to the FPGA's cts_n_i
    input  wire [7:0]  in_data_i,
    input  wire        in_valid_i,
    output wire        in_ready_o,
    output wire [7:0]  out_data_o,
    output wire        out_valid_o,
    input  wire        out_ready_i,
    input  wire        err_data_i,
    input  wire        err_frame_i,
    output wire [31:0] frame_err_o,      // bytes received with a low stop bit
    output wire [31:0] out_overrun_o,    // bytes dropped, buffer full
    output wire [31:0] tx_bytes_o        // bytes sent
);
    localparam integer Depth = 1 << OutFifoLog2;
    localparam [63:0] CLK = 64'(ClkHz);
    localparam [63:0] BAUD = 64'(Baud);

    // ---- transmitter ----------------------------------------------------------------------
    logic [63:0] tx_acc_q;
    logic        tx_busy_q;
    logic [3:0]  tx_bit_q;           // bits still to send after the current one
    logic [10:0] tx_sh_q;            // line bits, bit 0 now
    logic [31:0] tx_cnt_q;
    logic        tx_q;

    assign in_ready_o = !tx_busy_q && !cts_n_i && !rst_i;
    assign tx_o = tx_q;
    assign tx_bytes_o = tx_cnt_q;
    wire unused_ok = tx_sh_q[0];   // on the line already (tx_q)

    always @(posedge clk_i) begin
        if (rst_i) begin
            tx_busy_q <= 1'b0;
            tx_q <= 1'b1;
            tx_acc_q <= 64'd0;
            tx_cnt_q <= 32'd0;
            tx_bit_q <= 4'd0;
            tx_sh_q <= 11'h7FF;
        end else if (!tx_busy_q) begin
            if (in_valid_i && !cts_n_i) begin
                tx_busy_q <= 1'b1;
                // idle, stop, data with bit 3 maybe flipped, start
                tx_sh_q <= {1'b1, !err_frame_i, in_data_i ^ (err_data_i ? 8'h08 : 8'h00), 1'b0};
                tx_bit_q <= err_frame_i ? 4'd10 : 4'd9;
                tx_q <= 1'b0;
                tx_acc_q <= 64'd0;
                tx_cnt_q <= tx_cnt_q + 32'd1;
            end
        end else if (tx_acc_q + BAUD >= CLK) begin
            tx_acc_q <= tx_acc_q + BAUD - CLK;
            if (tx_bit_q == 4'd0) begin
                tx_busy_q <= 1'b0;
                tx_q <= 1'b1;
            end else begin
                tx_bit_q <= tx_bit_q - 4'd1;
                tx_sh_q <= {1'b1, tx_sh_q[10:1]};
                tx_q <= tx_sh_q[1];
            end
        end else begin
            tx_acc_q <= tx_acc_q + BAUD;
        end
    end

    // ---- receiver -------------------------------------------------------------------------
    logic [1:0]  rx_pipe_q;          // two flops in: rx_i comes from another module's flop
    logic        rx_busy_q;
    logic [63:0] rx_acc_q;
    logic [3:0]  rx_bit_q;           // 0 start, 1..8 data, 9 stop
    logic [7:0]  rx_sh_q;
    logic [31:0] ferr_q, ovr_q;
    logic [7:0]  fifo_q [0:Depth-1];
    logic [OutFifoLog2:0] wr_q, rd_q;
    wire  [OutFifoLog2:0] used = wr_q - rd_q;
    wire         rx_now = rx_pipe_q[1];

    assign out_valid_o = (used != '0);
    assign out_data_o = fifo_q[rd_q[OutFifoLog2-1:0]];
    assign frame_err_o = ferr_q;
    assign out_overrun_o = ovr_q;
    assign rts_n_o = (Depth - 32'(used)) < RtsSlack;

    always @(posedge clk_i) begin
        rx_pipe_q <= {rx_pipe_q[0], rx_i};
        if (rst_i) begin
            rx_busy_q <= 1'b0;
            rx_pipe_q <= 2'b11;
            ferr_q <= 32'd0;
            ovr_q <= 32'd0;
            wr_q <= '0;
            rd_q <= '0;
            rx_acc_q <= 64'd0;
            rx_bit_q <= 4'd0;
        end else begin
            if (out_valid_o && out_ready_i) rd_q <= rd_q + 1'b1;
            if (!rx_busy_q) begin
                if (rx_now == 1'b0) begin
                    rx_busy_q <= 1'b1;
                    rx_bit_q <= 4'd0;
                    rx_acc_q <= CLK / 64'd2 + BAUD;   // first tick half a bit from now
                end
            end else if (rx_acc_q + BAUD >= CLK) begin
                rx_acc_q <= rx_acc_q + BAUD - CLK;
                // the middle of bit rx_bit_q
                if (rx_bit_q == 4'd0) begin
                    if (rx_now) rx_busy_q <= 1'b0;       // glitch
                end else if (rx_bit_q <= 4'd8) begin
                    rx_sh_q <= {rx_now, rx_sh_q[7:1]};
                end else begin
                    rx_busy_q <= 1'b0;
                    if (!rx_now) ferr_q <= ferr_q + 32'd1;
                    else if (used == (OutFifoLog2+1)'(Depth)) ovr_q <= ovr_q + 32'd1;
                    else begin
                        fifo_q[wr_q[OutFifoLog2-1:0]] <= rx_sh_q;
                        wr_q <= wr_q + 1'b1;
                    end
                end
                rx_bit_q <= rx_bit_q + 4'd1;
            end else begin
                rx_acc_q <= rx_acc_q + BAUD;
            end
        end
    end
endmodule
`default_nettype wire
