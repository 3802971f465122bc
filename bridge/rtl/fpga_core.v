// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// fpga_core: what a board instantiates beside its link PHY: gpu_core and link_engine, with the
// engine's byte or word streams, gpu_core's VRAM master and its interrupt as ports. The board
// puts the PHY of its link chip (bridge/rtl/link_phy_*.v, with the chip's clock domain inside
// it) on rx_*/tx_*, its VRAM (block RAM, an SDRAM controller) on m_vram_* (gpu_core's AXI4
// master, 8-byte data, VramAddrBits of address), and may use irq_o (also sent to the host as
// IRQ messages) and the status outputs for LEDs.
// Contract:
//   - clk_i (CoreHz) clocks everything here; rst_i (synchronous, active high) resets gpu_core
//     and the engine.
//   - rx_* / tx_*: valid/ready streams of PhyBytes bytes per beat (1: an 8-bit PHY, 4: a 32-bit
//     PHY or a word stream), least significant byte of each 32-bit protocol word first.
//   - The host end speaks bridge/PROTOCOL.md: it opens with RESET, then HELLO (HELLO_RSP: Link
//     LinkKind, MaxPayload, RxWindow 2^RxWindowLog2 words, DmaTags, CoreHz, ReplayTimeout,
//     DmaTimeout as the parameters below).
//   - ID_BUILD reads BoardId and BuildStamp, ID_DATE BuildDate (parameters, so a build script
//     stamps them).
//   - vram_bytes_i: gpu_core's VRAM size strap (the memory on m_vram_*; taken while rst_i is
//     high, clipped to VramBytes), which MC_VRAM_SIZE reports; a board ties it to a constant.
//   - link_up_o and the wrapping counters are link_engine's.
module fpga_core #(
    parameter PhyBytes      = 4,              // 1 (UART, FT245) or 4 (FT601, word stream)
    parameter MaxPayload    = 1027,           // words (HELLO), >= 35; 1027: a 4 KiB AP_WR
    parameter RxWindowLog2  = 12,             // receive buffer, log2 words (>= MaxPayload + 6)
    parameter ReplayLog2    = 12,             // replay buffer, log2 words (> MaxPayload)
    parameter DmaTags       = 8,              // DMA requests outstanding: 2, 4, 8 or 16
    parameter DmaJoinWait   = 0,              // cycles a DMA_RD waits for a burst to join
    parameter DmaJoinBeats  = 512,            // the most beats a DMA_RD asks for
    parameter DmaWrJoinWait = 0,              // cycles a DMA_WR waits for a burst to join
    parameter DmaWrJoinBeats = 512,           // the most beats a DMA_WR carries
    parameter DmaFifoBeats  = 128,            // gpu_core's DMA buffer, 8-byte beats (32..256)
    parameter DmaMaxReads   = 8,              // gpu_core's DMA read bursts in flight
    parameter DmaMaxWrites  = 8,              // gpu_core's DMA write bursts awaiting B
    parameter LinkKind      = 1,              // HELLO Link: 1 stream, 2 UART, 3 FT601, 4 FT245
    parameter CoreHz        = 100000000,      // clk_i, Hz (reported in HELLO)
    parameter ReplayTimeout = 100000,         // core cycles without ACK progress before a replay
    parameter DmaTimeout    = 16777216,       // core cycles before an unanswered DMA request fails
    parameter AckDelay      = 256,            // cycles a consumed frame waits for a piggyback ACK
    parameter VramAddrBits  = 32,
    parameter VramBytes     = 48'h2000_0000,  // most VRAM vram_bytes_i may strap (gpu_core's)
    parameter BoardId       = 8'd0,           // ID_BUILD.BOARD
    parameter BuildStamp    = 24'd0,          // ID_BUILD.STAMP
    parameter BuildDate     = 32'd0           // ID_DATE (BCD YYYYMMDD, 0 for none)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire [47:0]             vram_bytes_i,    // strap: VRAM bytes on m_vram_* (gpu_core)
    input  wire [PhyBytes*8-1:0]   rx_data_i,       // host -> device, from the PHY
    input  wire                    rx_valid_i,
    output wire                    rx_ready_o,
    output wire [PhyBytes*8-1:0]   tx_data_o,       // device -> host, to the PHY
    output wire                    tx_valid_o,
    input  wire                    tx_ready_i,
    output wire [3:0]          m_vram_awid_o,
    output wire [VramAddrBits-1:0] m_vram_awaddr_o,
    output wire [7:0]          m_vram_awlen_o,
    output wire [2:0]          m_vram_awsize_o,
    output wire [1:0]          m_vram_awburst_o,
    output wire                m_vram_awlock_o,
    output wire [3:0]          m_vram_awcache_o,
    output wire [2:0]          m_vram_awprot_o,
    output wire                m_vram_awvalid_o,
    input  wire                m_vram_awready_i,
    output wire [63:0]         m_vram_wdata_o,
    output wire [7:0]          m_vram_wstrb_o,
    output wire                m_vram_wlast_o,
    output wire                m_vram_wvalid_o,
    input  wire                m_vram_wready_i,
    input  wire [3:0]          m_vram_bid_i,
    input  wire [1:0]          m_vram_bresp_i,
    input  wire                m_vram_bvalid_i,
    output wire                m_vram_bready_o,
    output wire [3:0]          m_vram_arid_o,
    output wire [VramAddrBits-1:0] m_vram_araddr_o,
    output wire [7:0]          m_vram_arlen_o,
    output wire [2:0]          m_vram_arsize_o,
    output wire [1:0]          m_vram_arburst_o,
    output wire                m_vram_arlock_o,
    output wire [3:0]          m_vram_arcache_o,
    output wire [2:0]          m_vram_arprot_o,
    output wire                m_vram_arvalid_o,
    input  wire                m_vram_arready_i,
    input  wire [3:0]          m_vram_rid_i,
    input  wire [63:0]         m_vram_rdata_i,
    input  wire [1:0]          m_vram_rresp_i,
    input  wire                m_vram_rlast_i,
    input  wire                m_vram_rvalid_i,
    output wire                m_vram_rready_o,
    output wire                    irq_o,           // gpu_core's interrupt line
    output wire                    link_up_o,
    output wire [15:0]             crc_errs_o,
    output wire [15:0]             naks_o,
    output wire [15:0]             replays_o,
    output wire [15:0]             bad_frames_o,
    output wire [15:0]             dma_timeouts_o
);
    wire [16-1:0]       csr_awaddr;
    wire [2:0]          csr_awprot;
    wire                csr_awvalid;
    wire                csr_awready;
    wire [31:0]         csr_wdata;
    wire [3:0]          csr_wstrb;
    wire                csr_wvalid;
    wire                csr_wready;
    wire [1:0]          csr_bresp;
    wire                csr_bvalid;
    wire                csr_bready;
    wire [16-1:0]       csr_araddr;
    wire [2:0]          csr_arprot;
    wire                csr_arvalid;
    wire                csr_arready;
    wire [31:0]         csr_rdata;
    wire [1:0]          csr_rresp;
    wire                csr_rvalid;
    wire                csr_rready;
    wire [3:0]          ap_awid;
    wire [28-1:0]       ap_awaddr;
    wire [7:0]          ap_awlen;
    wire [2:0]          ap_awsize;
    wire [1:0]          ap_awburst;
    wire                ap_awlock;
    wire [3:0]          ap_awcache;
    wire [2:0]          ap_awprot;
    wire                ap_awvalid;
    wire                ap_awready;
    wire [63:0]         ap_wdata;
    wire [7:0]          ap_wstrb;
    wire                ap_wlast;
    wire                ap_wvalid;
    wire                ap_wready;
    wire [3:0]          ap_bid;
    wire [1:0]          ap_bresp;
    wire                ap_bvalid;
    wire                ap_bready;
    wire [3:0]          ap_arid;
    wire [28-1:0]       ap_araddr;
    wire [7:0]          ap_arlen;
    wire [2:0]          ap_arsize;
    wire [1:0]          ap_arburst;
    wire                ap_arlock;
    wire [3:0]          ap_arcache;
    wire [2:0]          ap_arprot;
    wire                ap_arvalid;
    wire                ap_arready;
    wire [3:0]          ap_rid;
    wire [63:0]         ap_rdata;
    wire [1:0]          ap_rresp;
    wire                ap_rlast;
    wire                ap_rvalid;
    wire                ap_rready;
    wire [3:0]          host_awid;
    wire [64-1:0]       host_awaddr;
    wire [7:0]          host_awlen;
    wire [2:0]          host_awsize;
    wire [1:0]          host_awburst;
    wire                host_awlock;
    wire [3:0]          host_awcache;
    wire [2:0]          host_awprot;
    wire                host_awvalid;
    wire                host_awready;
    wire [63:0]         host_wdata;
    wire [7:0]          host_wstrb;
    wire                host_wlast;
    wire                host_wvalid;
    wire                host_wready;
    wire [3:0]          host_bid;
    wire [1:0]          host_bresp;
    wire                host_bvalid;
    wire                host_bready;
    wire [3:0]          host_arid;
    wire [64-1:0]       host_araddr;
    wire [7:0]          host_arlen;
    wire [2:0]          host_arsize;
    wire [1:0]          host_arburst;
    wire                host_arlock;
    wire [3:0]          host_arcache;
    wire [2:0]          host_arprot;
    wire                host_arvalid;
    wire                host_arready;
    wire [3:0]          host_rid;
    wire [63:0]         host_rdata;
    wire [1:0]          host_rresp;
    wire                host_rlast;
    wire                host_rvalid;
    wire                host_rready;

    link_engine #(
        .PhyBytes(PhyBytes), .MaxPayload(MaxPayload), .RxWindowLog2(RxWindowLog2),
        .ReplayLog2(ReplayLog2), .DmaTags(DmaTags), .DmaJoinWait(DmaJoinWait),
        .DmaJoinBeats(DmaJoinBeats), .DmaWrJoinWait(DmaWrJoinWait),
        .DmaWrJoinBeats(DmaWrJoinBeats),
        .LinkKind(LinkKind), .CoreHz(CoreHz), .ReplayTimeout(ReplayTimeout), .DmaTimeout(DmaTimeout), .AckDelay(AckDelay),
        .CsrAddrBits(16), .ApAddrBits(28), .IdBits(4)
    ) u_link (
        .clk_i(clk_i), .rst_i(rst_i),
        .rx_data_i(rx_data_i), .rx_valid_i(rx_valid_i), .rx_ready_o(rx_ready_o),
        .tx_data_o(tx_data_o), .tx_valid_o(tx_valid_o), .tx_ready_i(tx_ready_i),
        .m_csr_awaddr_o(csr_awaddr),
        .m_csr_awprot_o(csr_awprot),
        .m_csr_awvalid_o(csr_awvalid),
        .m_csr_awready_i(csr_awready),
        .m_csr_wdata_o(csr_wdata),
        .m_csr_wstrb_o(csr_wstrb),
        .m_csr_wvalid_o(csr_wvalid),
        .m_csr_wready_i(csr_wready),
        .m_csr_bresp_i(csr_bresp),
        .m_csr_bvalid_i(csr_bvalid),
        .m_csr_bready_o(csr_bready),
        .m_csr_araddr_o(csr_araddr),
        .m_csr_arprot_o(csr_arprot),
        .m_csr_arvalid_o(csr_arvalid),
        .m_csr_arready_i(csr_arready),
        .m_csr_rdata_i(csr_rdata),
        .m_csr_rresp_i(csr_rresp),
        .m_csr_rvalid_i(csr_rvalid),
        .m_csr_rready_o(csr_rready),
        .m_ap_awid_o(ap_awid),
        .m_ap_awaddr_o(ap_awaddr),
        .m_ap_awlen_o(ap_awlen),
        .m_ap_awsize_o(ap_awsize),
        .m_ap_awburst_o(ap_awburst),
        .m_ap_awlock_o(ap_awlock),
        .m_ap_awcache_o(ap_awcache),
        .m_ap_awprot_o(ap_awprot),
        .m_ap_awvalid_o(ap_awvalid),
        .m_ap_awready_i(ap_awready),
        .m_ap_wdata_o(ap_wdata),
        .m_ap_wstrb_o(ap_wstrb),
        .m_ap_wlast_o(ap_wlast),
        .m_ap_wvalid_o(ap_wvalid),
        .m_ap_wready_i(ap_wready),
        .m_ap_bid_i(ap_bid),
        .m_ap_bresp_i(ap_bresp),
        .m_ap_bvalid_i(ap_bvalid),
        .m_ap_bready_o(ap_bready),
        .m_ap_arid_o(ap_arid),
        .m_ap_araddr_o(ap_araddr),
        .m_ap_arlen_o(ap_arlen),
        .m_ap_arsize_o(ap_arsize),
        .m_ap_arburst_o(ap_arburst),
        .m_ap_arlock_o(ap_arlock),
        .m_ap_arcache_o(ap_arcache),
        .m_ap_arprot_o(ap_arprot),
        .m_ap_arvalid_o(ap_arvalid),
        .m_ap_arready_i(ap_arready),
        .m_ap_rid_i(ap_rid),
        .m_ap_rdata_i(ap_rdata),
        .m_ap_rresp_i(ap_rresp),
        .m_ap_rlast_i(ap_rlast),
        .m_ap_rvalid_i(ap_rvalid),
        .m_ap_rready_o(ap_rready),
        .s_host_awid_i(host_awid),
        .s_host_awaddr_i(host_awaddr),
        .s_host_awlen_i(host_awlen),
        .s_host_awsize_i(host_awsize),
        .s_host_awburst_i(host_awburst),
        .s_host_awlock_i(host_awlock),
        .s_host_awcache_i(host_awcache),
        .s_host_awprot_i(host_awprot),
        .s_host_awvalid_i(host_awvalid),
        .s_host_awready_o(host_awready),
        .s_host_wdata_i(host_wdata),
        .s_host_wstrb_i(host_wstrb),
        .s_host_wlast_i(host_wlast),
        .s_host_wvalid_i(host_wvalid),
        .s_host_wready_o(host_wready),
        .s_host_bid_o(host_bid),
        .s_host_bresp_o(host_bresp),
        .s_host_bvalid_o(host_bvalid),
        .s_host_bready_i(host_bready),
        .s_host_arid_i(host_arid),
        .s_host_araddr_i(host_araddr),
        .s_host_arlen_i(host_arlen),
        .s_host_arsize_i(host_arsize),
        .s_host_arburst_i(host_arburst),
        .s_host_arlock_i(host_arlock),
        .s_host_arcache_i(host_arcache),
        .s_host_arprot_i(host_arprot),
        .s_host_arvalid_i(host_arvalid),
        .s_host_arready_o(host_arready),
        .s_host_rid_o(host_rid),
        .s_host_rdata_o(host_rdata),
        .s_host_rresp_o(host_rresp),
        .s_host_rlast_o(host_rlast),
        .s_host_rvalid_o(host_rvalid),
        .s_host_rready_i(host_rready),
        .irq_i(irq_o), .link_up_o(link_up_o), .crc_errs_o(crc_errs_o), .naks_o(naks_o),
        .replays_o(replays_o), .bad_frames_o(bad_frames_o), .dma_timeouts_o(dma_timeouts_o));

    gpu_core #(
        .CsrAddrBits(16), .ApAddrBits(28), .HostAddrBits(64), .VramAddrBits(VramAddrBits),
        .DataBytes(8), .IdBits(4), .VramBytes(VramBytes), .BoardId(BoardId),
        .BuildStamp(BuildStamp), .BuildDate(BuildDate), .DmaFifoBeats(DmaFifoBeats),
        .DmaMaxReads(DmaMaxReads), .DmaMaxWrites(DmaMaxWrites)
    ) u_core (
        .clk_i(clk_i),
        .rst_i(rst_i),
        .vram_bytes_i(vram_bytes_i),
        .s_csr_awaddr_i(csr_awaddr),
        .s_csr_awprot_i(csr_awprot),
        .s_csr_awvalid_i(csr_awvalid),
        .s_csr_awready_o(csr_awready),
        .s_csr_wdata_i(csr_wdata),
        .s_csr_wstrb_i(csr_wstrb),
        .s_csr_wvalid_i(csr_wvalid),
        .s_csr_wready_o(csr_wready),
        .s_csr_bresp_o(csr_bresp),
        .s_csr_bvalid_o(csr_bvalid),
        .s_csr_bready_i(csr_bready),
        .s_csr_araddr_i(csr_araddr),
        .s_csr_arprot_i(csr_arprot),
        .s_csr_arvalid_i(csr_arvalid),
        .s_csr_arready_o(csr_arready),
        .s_csr_rdata_o(csr_rdata),
        .s_csr_rresp_o(csr_rresp),
        .s_csr_rvalid_o(csr_rvalid),
        .s_csr_rready_i(csr_rready),
        .s_ap_awid_i(ap_awid),
        .s_ap_awaddr_i(ap_awaddr),
        .s_ap_awlen_i(ap_awlen),
        .s_ap_awsize_i(ap_awsize),
        .s_ap_awburst_i(ap_awburst),
        .s_ap_awlock_i(ap_awlock),
        .s_ap_awcache_i(ap_awcache),
        .s_ap_awprot_i(ap_awprot),
        .s_ap_awvalid_i(ap_awvalid),
        .s_ap_awready_o(ap_awready),
        .s_ap_wdata_i(ap_wdata),
        .s_ap_wstrb_i(ap_wstrb),
        .s_ap_wlast_i(ap_wlast),
        .s_ap_wvalid_i(ap_wvalid),
        .s_ap_wready_o(ap_wready),
        .s_ap_bid_o(ap_bid),
        .s_ap_bresp_o(ap_bresp),
        .s_ap_bvalid_o(ap_bvalid),
        .s_ap_bready_i(ap_bready),
        .s_ap_arid_i(ap_arid),
        .s_ap_araddr_i(ap_araddr),
        .s_ap_arlen_i(ap_arlen),
        .s_ap_arsize_i(ap_arsize),
        .s_ap_arburst_i(ap_arburst),
        .s_ap_arlock_i(ap_arlock),
        .s_ap_arcache_i(ap_arcache),
        .s_ap_arprot_i(ap_arprot),
        .s_ap_arvalid_i(ap_arvalid),
        .s_ap_arready_o(ap_arready),
        .s_ap_rid_o(ap_rid),
        .s_ap_rdata_o(ap_rdata),
        .s_ap_rresp_o(ap_rresp),
        .s_ap_rlast_o(ap_rlast),
        .s_ap_rvalid_o(ap_rvalid),
        .s_ap_rready_i(ap_rready),
        .m_host_awid_o(host_awid),
        .m_host_awaddr_o(host_awaddr),
        .m_host_awlen_o(host_awlen),
        .m_host_awsize_o(host_awsize),
        .m_host_awburst_o(host_awburst),
        .m_host_awlock_o(host_awlock),
        .m_host_awcache_o(host_awcache),
        .m_host_awprot_o(host_awprot),
        .m_host_awvalid_o(host_awvalid),
        .m_host_awready_i(host_awready),
        .m_host_wdata_o(host_wdata),
        .m_host_wstrb_o(host_wstrb),
        .m_host_wlast_o(host_wlast),
        .m_host_wvalid_o(host_wvalid),
        .m_host_wready_i(host_wready),
        .m_host_bid_i(host_bid),
        .m_host_bresp_i(host_bresp),
        .m_host_bvalid_i(host_bvalid),
        .m_host_bready_o(host_bready),
        .m_host_arid_o(host_arid),
        .m_host_araddr_o(host_araddr),
        .m_host_arlen_o(host_arlen),
        .m_host_arsize_o(host_arsize),
        .m_host_arburst_o(host_arburst),
        .m_host_arlock_o(host_arlock),
        .m_host_arcache_o(host_arcache),
        .m_host_arprot_o(host_arprot),
        .m_host_arvalid_o(host_arvalid),
        .m_host_arready_i(host_arready),
        .m_host_rid_i(host_rid),
        .m_host_rdata_i(host_rdata),
        .m_host_rresp_i(host_rresp),
        .m_host_rlast_i(host_rlast),
        .m_host_rvalid_i(host_rvalid),
        .m_host_rready_o(host_rready),
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
        .m_vram_rready_o(m_vram_rready_o),
        .irq_o(irq_o)
    );
endmodule
`default_nettype wire
