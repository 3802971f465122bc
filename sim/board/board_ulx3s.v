// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// board_ulx3s: the board simulation (gr_board.h kind ulx3s) of the exact ULX3S top,
// boards/ulx3s/ulx3s_top.v, with the UART line model (sim/models/uart, the FT231X's serial
// side at 3 Mbaud) on ftdi_txd/ftdi_rxd and the IS42S16160G model (sim/models/sdram) on the
// SDRAM pins. The top's PLL (boards/common/sim/EHXPLLL.v) passes its input through, so clk_i,
// the core clock the harness schedules (30 MHz, the top's CoreHz: 33.334 ns, board_impl.h),
// drives the board's clk_25mhz pin, and the line model runs on it too (ClkHz 30 MHz, so its
// bits last 3 Mbaud's 333 ns); chip_clk_i is unused. The SDRAM model is clocked by the top's
// sdram_clk pin (the core clock forwarded through the ODDRX1F model), checks the data sheet's
// timings at TckPs 33334, the period the harness runs, and stops the simulation ($fatal) at
// the first timing or protocol violation. rst_i resets the line model and presses btn[1],
// the top's reset button, so the core is reset with it as well.
// The ports are board.v's (board_ports.vh), so one harness driver (board_impl.h) serves it;
// m_vram_* are tied off and vram_bytes_i is unused (board_vram_idle.vh: the top's VRAM is
// the 32 MiB SDRAM).
// sdram_d is resolved here: the top drives it through its tristate port, the model through the
// assign below; the model's contention check reads the controller's output enable.
module board_ulx3s (
`include "sim/board/board_ports.vh"
);
`include "sim/board/board_vram_idle.vh"

    wire        line_to_fpga, line_to_chip, chip_rts_n;
    wire        sd_clk, sd_cke, sd_cs_n, sd_ras_n, sd_cas_n, sd_we_n;
    wire [1:0]  sd_ba, sd_dqm;
    wire [12:0] sd_a;
    wire [15:0] sd_d, chip_dq;
    wire        chip_dq_oe;
    wire [7:0]  in_data;

    assign sd_d = chip_dq_oe ? chip_dq : 16'bz;
    assign host_in_data_o = {24'd0, in_data};
    assign host_in_keep_o = 4'b0001;
    assign host_in_last_o = 1'b0;
    wire unused_host = &{1'b0, chip_clk_i, host_out_data_i[31:8], host_out_keep_i, host_out_last_i};

    ulx3s_top u_top (
        .clk_25mhz  (clk_i),
        .ftdi_rxd   (line_to_chip),
        .ftdi_txd   (line_to_fpga),
        .ftdi_nrts  (chip_rts_n),
        .ftdi_ndtr  (1'b1),
        .sdram_clk  (sd_clk),
        .sdram_cke  (sd_cke),
        .sdram_csn  (sd_cs_n),
        .sdram_rasn (sd_ras_n),
        .sdram_casn (sd_cas_n),
        .sdram_wen  (sd_we_n),
        .sdram_ba   (sd_ba),
        .sdram_a    (sd_a),
        .sdram_dqm  (sd_dqm),
        .sdram_d    (sd_d),
        .led        (),
        .btn        ({5'd0, rst_i, 1'b1})
    );

    uart_line_model #(
        .ClkHz (30000000),
        .Baud  (3000000)
    ) u_chip (
        .clk_i         (clk_i),
        .rst_i         (rst_i),
        .rx_i          (line_to_chip),
        .tx_o          (line_to_fpga),
        .cts_n_i       (1'b0),
        .rts_n_o       (chip_rts_n),
        .in_data_i     (host_out_data_i[7:0]),
        .in_valid_i    (host_out_valid_i),
        .in_ready_o    (host_out_ready_o),
        .out_data_o    (in_data),
        .out_valid_o   (host_in_valid_o),
        .out_ready_i   (host_in_ready_i),
        .err_data_i    (1'b0),
        .err_frame_i   (1'b0),
        .frame_err_o   (),
        .out_overrun_o (),
        .tx_bytes_o    ()
    );

    sdram_model #(
        .TckPs (33334)
    ) u_sdram (
        .clk_i         (sd_clk),
        .cke_i         (sd_cke),
        .cs_n_i        (sd_cs_n),
        .ras_n_i       (sd_ras_n),
        .cas_n_i       (sd_cas_n),
        .we_n_i        (sd_we_n),
        .ba_i          (sd_ba),
        .a_i           (sd_a),
        .dqm_i         (sd_dqm),
        .dq_i          (sd_d),
        .dq_oe_i       (u_top.sdr_dq_oe),
        .dq_o          (chip_dq),
        .dq_oe_o       (chip_dq_oe),
        .err_count_o   (),
        .first_err_o   (),
        .cycles_o      (),
        .data_cycles_o (),
        .act_o         (),
        .pre_o         (),
        .ref_o         (),
        .rd_o          (),
        .wr_o          (),
        .ref_gap_o     ()
    );
endmodule
`default_nettype wire
