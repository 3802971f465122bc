`default_nettype none
// board_stream: the stream board: fpga_core_stream (gpu_core, link engine) with its word stream
// as the host side, no chip.
// The wrapper board.mk verilates for the board library (gr_board.h); its ports are the ones
// every board wrapper has, so one C++ driver (board_impl.h) serves every kind:
// - clk_i: the core clock (100 MHz); chip_clk_i: the link chip's own clock (unused: the host side runs on clk_i); rst_i:
//   reset of the core and the chip model, synchronous, active high.
// - host_out_*: bytes from the host into the chip's USB OUT side (lane i = data[8i+7:8i],
//   valid where keep[i]; last on the final word of one USB transfer), valid/ready.
// - host_in_*: the chip's USB IN side toward the host, last on the final word of each USB
//   packet, valid/ready.
// - m_vram_*: gpu_core's AXI4 master to VRAM, served by the harness's VRAM model.
module board_stream (
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
    // No chip: the host side is the link engine's word stream, as gpuref-simd's socket.
    assign host_in_keep_o = 4'hF;
    assign host_in_last_o = 1'b0;

    fpga_core_stream u_fpga (
        .clk_i          (clk_i),
        .rst_i          (rst_i),
        .rx_data_i      (host_out_data_i),
        .rx_valid_i     (host_out_valid_i),
        .rx_ready_o     (host_out_ready_o),
        .tx_data_o      (host_in_data_o),
        .tx_valid_o     (host_in_valid_o),
        .tx_ready_i     (host_in_ready_i),
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
endmodule
`default_nettype wire
