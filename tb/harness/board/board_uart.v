`default_nettype none
// board_uart: a UART board: fpga_core_uart (gpu_core, link engine, UART PHY) and the UART line
// model (tb/models/uart, the USB-UART bridge end) on its two wires and RTS#/CTS#.
// The wrapper board.mk verilates for the board library (gr_board.h); its ports are the ones
// every board wrapper has, so one C++ driver (board_impl.h) serves every kind:
// - clk_i: the core clock (100 MHz); chip_clk_i: the link chip's own clock (unused: the line model runs on clk_i); rst_i:
//   reset of the core and the chip model, synchronous, active high.
// - host_out_*: bytes from the host into the chip's USB OUT side (lane i = data[8i+7:8i],
//   valid where keep[i]; last on the final word of one USB transfer), valid/ready.
// - host_in_*: the chip's USB IN side toward the host, last on the final word of each USB
//   packet, valid/ready.
// - m_vram_*: gpu_core's AXI4 master to VRAM, served by the harness's VRAM model.
module board_uart (
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
    // The line between the FPGA's UART and the USB-UART bridge, with RTS#/CTS# crossed over.
    wire       line_to_fpga, line_to_chip, fpga_rts_n, chip_rts_n;
    wire [7:0] in_data;

    assign host_in_data_o = {24'd0, in_data};
    assign host_in_keep_o = 4'b0001;
    assign host_in_last_o = 1'b0;

    fpga_core_uart u_fpga (
        .clk_i          (clk_i),
        .rst_i          (rst_i),
        .uart_rx_i      (line_to_fpga),
        .uart_tx_o      (line_to_chip),
        .uart_cts_n_i   (chip_rts_n),
        .uart_rts_n_o   (fpga_rts_n),
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

    uart_line_model #(
        .ClkHz (100000000),
        .Baud  (3000000)
    ) u_chip (
        .clk_i         (clk_i),
        .rst_i         (rst_i),
        .rx_i          (line_to_chip),
        .tx_o          (line_to_fpga),
        .cts_n_i       (fpga_rts_n),
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
endmodule
`default_nettype wire
