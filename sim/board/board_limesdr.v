// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// board_limesdr: the board simulation (gr_board.h kind limesdr) of the exact LimeSDR Mini v2
// top, boards/limesdr_mini_v2/limesdr_top.v, with the FT601 model (sim/models/ft601) on its
// FIFO pins. The top's PLL (boards/common/sim/EHXPLLL.v) passes its input through, so clk_i,
// the core clock the harness schedules, drives the board's LMK_CLK pin; chip_clk_i is the
// FT601's own CLK (FT_CLK). rst_i resets the chip model only: the top has no reset pin and
// comes out of reset by itself once the PLL has locked (about 220 core cycles).
// The ports are board.v's (board_ports.vh), so one harness driver (board_impl.h) serves it;
// m_vram_* are tied off and vram_bytes_i is unused (board_vram_idle.vh: the top's VRAM is
// its own 128 KiB of block RAM). The top is built as the stock board has it, FT600 mode
// (FtMode 600), and the model is configured to match; ft_mode600_i is not looked at.
// FT_D and FT_BE are resolved here: the top drives them through its tristate ports (its BB
// buffers, boards/common/sim/BB.v), the model through the assigns below; the model's
// contention check reads the PHY's tristate controls, one pin of each byte lane.
module board_limesdr (
`include "sim/board/board_ports.vh"
);
`include "sim/board/board_vram_idle.vh"

    wire [31:0] ft_d;
    wire [3:0]  ft_be;
    localparam FtMode = 600;         // the stock LimeSDR Mini v2's FT601 configuration

    wire [31:0] chip_d;
    wire [3:0]  chip_be;
    wire [3:0]  chip_d_oe;
    wire        chip_be_oe;
    wire        ft_rxf_n, ft_txe_n, ft_rd_n, ft_wr_n, ft_oe_n, ft_reset_n;

    for (genvar l = 0; l < 4; l = l + 1) begin : g_ft_d
        assign ft_d[8*l +: 8] = chip_d_oe[l] ? chip_d[8*l +: 8] : 8'bz;
    end
    assign ft_be = chip_be_oe ? chip_be : 4'bz;

    limesdr_top #(.FtMode(FtMode)) u_top (
        .LMK_CLK     (clk_i),
        .FT_CLK      (chip_clk_i),
        .FT_D        (ft_d),
        .FT_BE       (ft_be),
        .FT_RXFn     (ft_rxf_n),
        .FT_TXEn     (ft_txe_n),
        .FT_WRn      (ft_wr_n),
        .FT_RDn      (ft_rd_n),
        .FT_OEn      (ft_oe_n),
        .FT_RESETn   (ft_reset_n),
        .FPGA_LED1_R (),
        .FPGA_LED1_G ()
    );

    ft601_model u_chip (
        .clk_i           (chip_clk_i),
        .rst_i           (rst_i),
        .ft_rst_n_i      (ft_reset_n),
        .mode600_i       (FtMode == 600),
        .ft_data_i       (ft_d),
        .ft_data_oe_i    (~{u_top.ft_d_t[24], u_top.ft_d_t[16], u_top.ft_d_t[8], u_top.ft_d_t[0]}),
        .ft_data_o       (chip_d),
        .ft_data_oe_o    (chip_d_oe),
        .ft_be_i         (ft_be),
        .ft_be_oe_i      (!u_top.ft_be_t[0]),
        .ft_be_o         (chip_be),
        .ft_be_oe_o      (chip_be_oe),
        .ft_rxf_n_o      (ft_rxf_n),
        .ft_txe_n_o      (ft_txe_n),
        .ft_rd_n_i       (ft_rd_n),
        .ft_wr_n_i       (ft_wr_n),
        .ft_oe_n_i       (ft_oe_n),
        .ft_siwu_n_i     (1'b1),
        .usb_out_data_i  (host_out_data_i),
        .usb_out_be_i    (host_out_keep_i),
        .usb_out_last_i  (host_out_last_i),
        .usb_out_valid_i (host_out_valid_i),
        .usb_out_ready_o (host_out_ready_o),
        .usb_in_data_o   (host_in_data_o),
        .usb_in_be_o     (host_in_keep_o),
        .usb_in_last_o   (host_in_last_o),
        .usb_in_valid_o  (host_in_valid_o),
        .usb_in_ready_i  (host_in_ready_i),
        .contention_o    (),
        .proto_err_o     (),
        .rd_words_o      (),
        .wr_words_o      ()
    );
endmodule
`default_nettype wire
