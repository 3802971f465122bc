// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// board: one simulated board of kind Kind (the HELLO Link numbers): fpga_core (gpu_core and the
// link engine), the PHY of the board's link chip and the chip's model (sim/models), as a board
// top in boards/ wires them, with every kind's engine parameters.
//   Kind 1 stream: no PHY, no chip; the engine's 32-bit word stream is the host side (what
//          gpuref-simd puts on a socket).
//   Kind 2 uart:   link_phy_uart at 3 Mbaud and the UART line model (the USB-UART bridge end)
//          on its two wires and RTS#/CTS#.
//   Kind 3 ft601:  link_phy_ft601 and the FT601 model on its 32-bit FIFO bus, in 245 mode or,
//          with ft_mode600_i, in FT600 mode (the chip's configuration and the PHY's strap).
//   Kind 4 ft245:  link_phy_ft245 and the FT2232H model on its 8-bit synchronous FIFO bus.
// sim/sim.mk verilates it once per kind (-GKind=N --prefix Vboard_<kind>) for the board library
// (gr_board.h); the ports are the same for every kind, so one C++ driver (board_impl.h) serves
// them all:
// - clk_i: the core clock (100 MHz); chip_clk_i: the link chip's own clock (FT601: 100 MHz
//   from its own crystal; FT2232H: CLKOUT, 60 MHz; unused by stream and uart, which run on
//   clk_i); rst_i: reset of the core and the chip model, synchronous, active high.
// - host_out_*: bytes from the host into the chip's USB OUT side (lane i = data[8i+7:8i],
//   valid where keep[i]; last on the final word of one USB transfer), valid/ready. The 8-bit
//   kinds take lane 0 only.
// - host_in_*: the chip's USB IN side toward the host, last on the final word of each USB
//   packet (never on stream and uart), valid/ready.
// - m_vram_*: gpu_core's AXI4 master to VRAM, served by the harness's VRAM model;
//   vram_bytes_i: gpu_core's VRAM size strap (the model's size), taken while rst_i is high.
// - ft_mode600_i: kind ft601: the FT601's FIFO mode (0 245, 1 FT600), static: the chip model's
//   configuration and link_phy_ft601's strap alike; the other kinds do not look at it.
module board #(
    parameter Kind      = 1,     // 1 stream, 2 uart, 3 ft601, 4 ft245
    parameter JoinWait  = 48,    // fpga_core's DmaJoinWait
    parameter JoinBeats = 64,    // fpga_core's DmaJoinBeats
    parameter WrJoinWait  = 16,  // fpga_core's DmaWrJoinWait
    parameter WrJoinBeats = 128, // fpga_core's DmaWrJoinBeats
    parameter Tags      = 64,    // fpga_core's DmaTags (uart: 16)
    parameter MaxWrites = 64     // fpga_core's DmaMaxWrites (uart: 16)
) (
`include "sim/board/board_ports.vh"
);
    // Per kind: the engine's beat width and buffers, as the protocol's HELLO_RSP table says.
    localparam PhyBytes      = (Kind == 1 || Kind == 3) ? 4 : 1;
    localparam MaxPayload    = (Kind == 2) ? 256 : 1027;   // 1027: a 4 KiB page per AP_WR
    localparam RxWindowLog2  = (Kind == 2) ? 10 : 12;
    localparam ReplayLog2    = (Kind == 2) ? 11 : 12;
    localparam ReplayTimeout = (Kind == 1) ? 50000 : (Kind == 2) ? 2000000 : 100000;
    // the UART's 300 KB/s needs no more than 2 KiB of writes in flight: more only delays the
    // answers and acknowledgements queued behind them
    localparam KTags      = (Kind == 2) ? 16 : Tags;
    localparam KMaxWrites = (Kind == 2) ? 16 : MaxWrites;

    wire [PhyBytes*8-1:0] e_rx_data, e_tx_data;
    wire                  e_rx_valid, e_rx_ready, e_tx_valid, e_tx_ready;

    // gpu_core's DMA window on m_host (16 read bursts, 64 write bursts (uart: 16), a 2 KiB
    // buffer) and as many engine tags: each request waits a link round trip for its answer; reads go as requests of
    // up to 4 bursts, writes of up to 8 (bridge/README.md).
    fpga_core #(
        .PhyBytes(PhyBytes), .MaxPayload(MaxPayload), .RxWindowLog2(RxWindowLog2),
        .ReplayLog2(ReplayLog2), .DmaTags(KTags), .DmaJoinWait(JoinWait),
        .DmaJoinBeats(JoinBeats), .DmaWrJoinWait(WrJoinWait), .DmaWrJoinBeats(WrJoinBeats),
        .LinkKind(Kind),
        .ReplayTimeout(ReplayTimeout),
        .DmaFifoBeats(256), .DmaMaxReads(16), .DmaMaxWrites(KMaxWrites)
    ) u_fpga (
        .clk_i          (clk_i),
        .rst_i          (rst_i),
        .vram_bytes_i   (vram_bytes_i),
        .rx_data_i      (e_rx_data),
        .rx_valid_i     (e_rx_valid),
        .rx_ready_o     (e_rx_ready),
        .tx_data_o      (e_tx_data),
        .tx_valid_o     (e_tx_valid),
        .tx_ready_i     (e_tx_ready),
        .irq_o          (),
        .link_up_o      (),
        .crc_errs_o     (),
        .naks_o         (),
        .replays_o      (),
        .bad_frames_o   (),
        .dma_timeouts_o (),
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

    if (Kind == 1) begin : g_stream
        // No chip: the host side is the engine's word stream, as gpuref-simd's socket.
        assign e_rx_data        = host_out_data_i;
        assign e_rx_valid       = host_out_valid_i;
        assign host_out_ready_o = e_rx_ready;
        assign host_in_data_o   = e_tx_data;
        assign host_in_keep_o   = 4'hF;
        assign host_in_last_o   = 1'b0;
        assign host_in_valid_o  = e_tx_valid;
        assign e_tx_ready       = host_in_ready_i;
    end else if (Kind == 2) begin : g_uart
        // The line between the FPGA's UART and the USB-UART bridge, RTS#/CTS# crossed over.
        wire       line_to_fpga, line_to_chip, fpga_rts_n, chip_rts_n;
        wire [7:0] in_data;
        assign host_in_data_o = {24'd0, in_data};
        assign host_in_keep_o = 4'b0001;
        assign host_in_last_o = 1'b0;

        link_phy_uart #(.ClkHz(100000000), .Baud(3000000)) u_phy (
            .clk_i(clk_i), .rst_i(rst_i),
            .rx_i(line_to_fpga), .tx_o(line_to_chip), .cts_n_i(chip_rts_n), .rts_n_o(fpga_rts_n),
            .rx_data_o(e_rx_data), .rx_valid_o(e_rx_valid), .rx_ready_i(e_rx_ready),
            .rx_frame_err_o(), .rx_overrun_o(),
            .tx_data_i(e_tx_data), .tx_valid_i(e_tx_valid), .tx_ready_o(e_tx_ready));

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
    end else if (Kind == 3) begin : g_ft601
        // The FIFO bus between the FPGA and the chip: each bidirectional pin is a trio (in,
        // out, drive), as the PHY and the model both have them; the PHY releases each pin by
        // its own tristate control (1: released), the model drives and sees whole byte lanes
        // (the PHY's drive of a lane as its first pin's).
        wire [31:0] ft_data_f, ft_data_c, ft_data_f_t;
        wire [3:0]  ft_data_c_oe;
        wire [3:0]  ft_be_f, ft_be_c, ft_be_f_t;
        wire        ft_be_c_oe;
        wire        ft_rxf_n, ft_txe_n, ft_rd_n, ft_wr_n, ft_oe_n, ft_siwu_n;

        link_phy_ft601 u_phy (
            .clk_i(clk_i), .rst_i(rst_i), .mode600_i(ft_mode600_i),
            .rx_data_o(e_rx_data), .rx_valid_o(e_rx_valid), .rx_ready_i(e_rx_ready),
            .rx_be_err_o(),
            .tx_data_i(e_tx_data), .tx_valid_i(e_tx_valid), .tx_ready_o(e_tx_ready),
            .ft_clk_i(chip_clk_i), .ft_data_i(ft_data_c), .ft_data_o(ft_data_f),
            .ft_data_t_o(ft_data_f_t), .ft_be_i(ft_be_c), .ft_be_o(ft_be_f),
            .ft_be_t_o(ft_be_f_t), .ft_rxf_n_i(ft_rxf_n), .ft_txe_n_i(ft_txe_n),
            .ft_rd_n_o(ft_rd_n), .ft_wr_n_o(ft_wr_n), .ft_oe_n_o(ft_oe_n),
            .ft_siwu_n_o(ft_siwu_n));

        ft601_model u_chip (
            .clk_i           (chip_clk_i),
            .rst_i           (rst_i),
            .ft_rst_n_i      (1'b1),
            .mode600_i       (ft_mode600_i),
            .ft_data_i       (ft_data_f),
            .ft_data_oe_i    (~{ft_data_f_t[24], ft_data_f_t[16], ft_data_f_t[8], ft_data_f_t[0]}),
            .ft_data_o       (ft_data_c),
            .ft_data_oe_o    (ft_data_c_oe),
            .ft_be_i         (ft_be_f),
            .ft_be_oe_i      (!ft_be_f_t[0]),
            .ft_be_o         (ft_be_c),
            .ft_be_oe_o      (ft_be_c_oe),
            .ft_rxf_n_o      (ft_rxf_n),
            .ft_txe_n_o      (ft_txe_n),
            .ft_rd_n_i       (ft_rd_n),
            .ft_wr_n_i       (ft_wr_n),
            .ft_oe_n_i       (ft_oe_n),
            .ft_siwu_n_i     (ft_siwu_n),
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
    end else begin : g_ft245
        // The FIFO bus between the FPGA and the chip (DATA as a trio: in, out, output enable).
        wire [7:0] ft_data_f, ft_data_c;
        wire       ft_data_f_oe, ft_data_c_oe;
        wire       ft_rxf_n, ft_txe_n, ft_rd_n, ft_wr_n, ft_oe_n, ft_siwu_n;
        wire [7:0] in_data;

        // One byte lane: lane 0 carries the byte, the others are unused.
        assign host_in_data_o = {24'd0, in_data};
        assign host_in_keep_o = 4'b0001;

        link_phy_ft245 u_phy (
            .clk_i(clk_i), .rst_i(rst_i),
            .rx_data_o(e_rx_data), .rx_valid_o(e_rx_valid), .rx_ready_i(e_rx_ready),
            .tx_data_i(e_tx_data), .tx_valid_i(e_tx_valid), .tx_ready_o(e_tx_ready),
            .ft_clk_i(chip_clk_i), .ft_data_i(ft_data_c), .ft_data_o(ft_data_f),
            .ft_data_oe_o(ft_data_f_oe), .ft_rxf_n_i(ft_rxf_n), .ft_txe_n_i(ft_txe_n),
            .ft_rd_n_o(ft_rd_n), .ft_wr_n_o(ft_wr_n), .ft_oe_n_o(ft_oe_n),
            .ft_siwu_n_o(ft_siwu_n));

        // The latency timer at 0.2 ms (12000 cycles of 60 MHz) rather than libftdi's 16 ms
        // default or the 2 ms the usb:// backend sets: an idle read then comes back after
        // 20000 core cycles of simulated time, not 200000 or more.
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
    end
endmodule
`default_nettype wire
