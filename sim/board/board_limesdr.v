`default_nettype none
// board_limesdr: the board simulation (gr_board.h kind limesdr) of the exact LimeSDR Mini v2
// top, boards/limesdr_mini_v2/limesdr_top.v, with the FT601 model (sim/models/ft601) on its
// FIFO pins. The top's PLL (boards/common/sim/EHXPLLL.v) passes its input through, so clk_i,
// the core clock the harness schedules, drives the board's LMK_CLK pin; chip_clk_i is the
// FT601's own CLK (FT_CLK). rst_i resets the chip model only: the top has no reset pin and
// comes out of reset by itself once the PLL has locked (about 220 core cycles).
// The ports are board.v's, so one harness driver (board_impl.h) serves it; m_vram_* are tied
// off and vram_bytes_i is unused (the top's VRAM is its own 128 KiB of block RAM).
// FT_D and FT_BE are resolved here: the top drives them through its tristate ports, the model
// through the assigns below; the model's contention check reads the PHY's output enables.
module board_limesdr (
    input  wire        clk_i,
    input  wire        chip_clk_i,
    input  wire        rst_i,
    input  wire [47:0] vram_bytes_i,
    input  wire [31:0] host_out_data_i,
    input  wire [3:0]  host_out_keep_i,
    input  wire        host_out_last_i,
    input  wire        host_out_valid_i,
    output wire        host_out_ready_o,
    output wire [31:0] host_in_data_o,
    output wire [3:0]  host_in_keep_o,
    output wire        host_in_last_o,
    output wire        host_in_valid_o,
    input  wire        host_in_ready_i,
    // m_vram: gpu_core's AXI4 master to VRAM, to the harness's VRAM model
    output wire [3:0]  m_vram_awid_o,
    output wire [31:0] m_vram_awaddr_o,
    output wire [7:0]  m_vram_awlen_o,
    output wire [2:0]  m_vram_awsize_o,
    output wire [1:0]  m_vram_awburst_o,
    output wire        m_vram_awlock_o,
    output wire [3:0]  m_vram_awcache_o,
    output wire [2:0]  m_vram_awprot_o,
    output wire        m_vram_awvalid_o,
    input  wire        m_vram_awready_i,
    output wire [63:0] m_vram_wdata_o,
    output wire [7:0]  m_vram_wstrb_o,
    output wire        m_vram_wlast_o,
    output wire        m_vram_wvalid_o,
    input  wire        m_vram_wready_i,
    input  wire [3:0]  m_vram_bid_i,
    input  wire [1:0]  m_vram_bresp_i,
    input  wire        m_vram_bvalid_i,
    output wire        m_vram_bready_o,
    output wire [3:0]  m_vram_arid_o,
    output wire [31:0] m_vram_araddr_o,
    output wire [7:0]  m_vram_arlen_o,
    output wire [2:0]  m_vram_arsize_o,
    output wire [1:0]  m_vram_arburst_o,
    output wire        m_vram_arlock_o,
    output wire [3:0]  m_vram_arcache_o,
    output wire [2:0]  m_vram_arprot_o,
    output wire        m_vram_arvalid_o,
    input  wire        m_vram_arready_i,
    input  wire [3:0]  m_vram_rid_i,
    input  wire [63:0] m_vram_rdata_i,
    input  wire [1:0]  m_vram_rresp_i,
    input  wire        m_vram_rlast_i,
    input  wire        m_vram_rvalid_i,
    output wire        m_vram_rready_o
);
    // VRAM is inside the top: gpu_core's m_vram never leaves the FPGA, so the harness's VRAM
    // model sees an idle master.
    assign m_vram_awid_o = 4'd0;
    assign m_vram_awaddr_o = 32'd0;
    assign m_vram_awlen_o = 8'd0;
    assign m_vram_awsize_o = 3'd0;
    assign m_vram_awburst_o = 2'd0;
    assign m_vram_awlock_o = 1'b0;
    assign m_vram_awcache_o = 4'd0;
    assign m_vram_awprot_o = 3'd0;
    assign m_vram_awvalid_o = 1'b0;
    assign m_vram_wdata_o = 64'd0;
    assign m_vram_wstrb_o = 8'd0;
    assign m_vram_wlast_o = 1'b0;
    assign m_vram_wvalid_o = 1'b0;
    assign m_vram_bready_o = 1'b0;
    assign m_vram_arid_o = 4'd0;
    assign m_vram_araddr_o = 32'd0;
    assign m_vram_arlen_o = 8'd0;
    assign m_vram_arsize_o = 3'd0;
    assign m_vram_arburst_o = 2'd0;
    assign m_vram_arlock_o = 1'b0;
    assign m_vram_arcache_o = 4'd0;
    assign m_vram_arprot_o = 3'd0;
    assign m_vram_arvalid_o = 1'b0;
    assign m_vram_rready_o = 1'b0;
    wire unused_vram = &{1'b0, vram_bytes_i, m_vram_awready_i, m_vram_wready_i, m_vram_bid_i,
                         m_vram_bresp_i, m_vram_bvalid_i, m_vram_arready_i, m_vram_rid_i,
                         m_vram_rdata_i, m_vram_rresp_i, m_vram_rlast_i, m_vram_rvalid_i};

    wire [31:0] ft_d;
    wire [3:0]  ft_be;
    wire [31:0] chip_d;
    wire [3:0]  chip_be;
    wire        chip_d_oe, chip_be_oe;
    wire        ft_rxf_n, ft_txe_n, ft_rd_n, ft_wr_n, ft_oe_n, ft_reset_n;

    assign ft_d = chip_d_oe ? chip_d : 32'bz;
    assign ft_be = chip_be_oe ? chip_be : 4'bz;

    limesdr_top u_top (
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
        .ft_data_i       (ft_d),
        .ft_data_oe_i    (u_top.ft_d_oe),
        .ft_data_o       (chip_d),
        .ft_data_oe_o    (chip_d_oe),
        .ft_be_i         (ft_be),
        .ft_be_oe_i      (u_top.ft_be_oe),
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
