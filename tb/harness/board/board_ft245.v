`default_nettype none
// board_ft245: an FT2232H board: fpga_core_ft245 (gpu_core, link engine, 245 FIFO PHY) and the
// FT2232H chip model (tb/models/ft2232h) on its 8-bit synchronous FIFO bus.
// The wrapper board.mk verilates for the board library (gr_board.h); its ports are the ones
// every board wrapper has, so one C++ driver (board_impl.h) serves every kind:
// - clk_i: the core clock (100 MHz); chip_clk_i: the link chip's own clock (FT2232H: CLKOUT, 60 MHz); rst_i:
//   reset of the core and the chip model, synchronous, active high.
// - host_out_*: bytes from the host into the chip's USB OUT side (lane i = data[8i+7:8i],
//   valid where keep[i]; last on the final word of one USB transfer), valid/ready.
// - host_in_*: the chip's USB IN side toward the host, last on the final word of each USB
//   packet, valid/ready.
// - m_vram_*: gpu_core's AXI4 master to VRAM, served by the harness's VRAM model.
module board_ft245 (
    input  wire        clk_i,
    input  wire        chip_clk_i,
    input  wire        rst_i,
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
    // The FIFO bus between the FPGA and the chip (DATA as a trio: in, out, output enable).
    wire [7:0] ft_data_f, ft_data_c;
    wire       ft_data_f_oe, ft_data_c_oe;
    wire       ft_rxf_n, ft_txe_n, ft_rd_n, ft_wr_n, ft_oe_n, ft_siwu_n;
    wire [7:0] in_data;

    // One byte lane: lane 0 carries the byte, the others are unused.
    assign host_in_data_o = {24'd0, in_data};
    assign host_in_keep_o = 4'b0001;

    fpga_core_ft245 u_fpga (
        .clk_i        (clk_i),
        .rst_i        (rst_i),
        .ft_clk_i     (chip_clk_i),
        .ft_data_i    (ft_data_c),
        .ft_data_o    (ft_data_f),
        .ft_data_oe_o (ft_data_f_oe),
        .ft_rxf_n_i   (ft_rxf_n),
        .ft_txe_n_i   (ft_txe_n),
        .ft_rd_n_o    (ft_rd_n),
        .ft_wr_n_o    (ft_wr_n),
        .ft_oe_n_o    (ft_oe_n),
        .ft_siwu_n_o  (ft_siwu_n),
        .link_up_o      (),
        .crc_errs_o     (),
        .naks_o         (),
        .replays_o      (),
        .bad_frames_o   (),
        .dma_timeouts_o (),
        .phy_err_o      (),
        .m_vram_awid_o(m_vram_awid_o),
        .m_vram_awaddr_o(m_vram_awaddr_o),
        .m_vram_awlen_o(m_vram_awlen_o),
        .m_vram_awsize_o(m_vram_awsize_o),
        .m_vram_awburst_o(m_vram_awburst_o),
        .m_vram_awlock_o(m_vram_awlock_o),
        .m_vram_awcache_o(m_vram_awcache_o),
        .m_vram_awprot_o(m_vram_awprot_o),
        .m_vram_awvalid_o(m_vram_awvalid_o),
        .m_vram_awready_i(m_vram_awready_i),
        .m_vram_wdata_o(m_vram_wdata_o),
        .m_vram_wstrb_o(m_vram_wstrb_o),
        .m_vram_wlast_o(m_vram_wlast_o),
        .m_vram_wvalid_o(m_vram_wvalid_o),
        .m_vram_wready_i(m_vram_wready_i),
        .m_vram_bid_i(m_vram_bid_i),
        .m_vram_bresp_i(m_vram_bresp_i),
        .m_vram_bvalid_i(m_vram_bvalid_i),
        .m_vram_bready_o(m_vram_bready_o),
        .m_vram_arid_o(m_vram_arid_o),
        .m_vram_araddr_o(m_vram_araddr_o),
        .m_vram_arlen_o(m_vram_arlen_o),
        .m_vram_arsize_o(m_vram_arsize_o),
        .m_vram_arburst_o(m_vram_arburst_o),
        .m_vram_arlock_o(m_vram_arlock_o),
        .m_vram_arcache_o(m_vram_arcache_o),
        .m_vram_arprot_o(m_vram_arprot_o),
        .m_vram_arvalid_o(m_vram_arvalid_o),
        .m_vram_arready_i(m_vram_arready_i),
        .m_vram_rid_i(m_vram_rid_i),
        .m_vram_rdata_i(m_vram_rdata_i),
        .m_vram_rresp_i(m_vram_rresp_i),
        .m_vram_rlast_i(m_vram_rlast_i),
        .m_vram_rvalid_i(m_vram_rvalid_i),
        .m_vram_rready_o(m_vram_rready_o)
    );

    // The latency timer at 0.2 ms (12000 cycles of 60 MHz) rather than libftdi's 16 ms
    // default or the 2 ms the usb:// backend sets: an idle read then comes back after 20000
    // core cycles of simulated time, not 200000 or more.
    ft2232h_model #(
        .LatencyCycles (12000)
    ) u_chip (
        .clk_i           (chip_clk_i),
        .rst_i           (rst_i),
        .ft_data_i       (ft_data_f),
        .ft_data_oe_i    (ft_data_f_oe),
        .ft_data_o       (ft_data_c),
        .ft_data_oe_o    (ft_data_c_oe),
        .ft_rxf_n_o      (ft_rxf_n),
        .ft_txe_n_o      (ft_txe_n),
        .ft_rd_n_i       (ft_rd_n),
        .ft_wr_n_i       (ft_wr_n),
        .ft_oe_n_i       (ft_oe_n),
        .ft_siwu_n_i     (ft_siwu_n),
        .usb_out_data_i  (host_out_data_i[7:0]),
        .usb_out_last_i  (host_out_last_i),
        .usb_out_valid_i (host_out_valid_i),
        .usb_out_ready_o (host_out_ready_o),
        .usb_in_data_o   (in_data),
        .usb_in_last_o   (host_in_last_o),
        .usb_in_valid_o  (host_in_valid_o),
        .usb_in_ready_i  (host_in_ready_i),
        .contention_o    (),
        .proto_err_o     (),
        .rd_bytes_o      (),
        .wr_bytes_o      (),
        .in_packets_o    ()
    );
endmodule
`default_nettype wire
