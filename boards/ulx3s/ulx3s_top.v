// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// ulx3s_top: gpuref on the Radiona ULX3S (Lattice LFE5U-85F), reached over the board's FTDI
// FT231X USB-UART at 3 Mbaud, 8N1, with VRAM in its 32 MiB SDR SDRAM (IS42S16160G).
//   clk_25mhz -> EHXPLLL -> the core clock (CoreHz, 30 MHz) for everything: link_phy_uart
//   (sampled in the core clock: 10 cycles per bit at 3 Mbaud), fpga_core with the UART kind's
//   engine settings, sdr_ctrl (boards/common/sdram) at 30 MHz, CAS latency 2, ReadDelay 1, on
//   gpu_core's m_vram.
// Why 30 MHz: the part is speed grade 6, and the whole design placed and routed for 60 MHz
// reaches 33.74 MHz there (seed 1; the builds: boards/README.md), held back by the link
// engine's receive path in its byte-wide form (the UART's), not by gpu_core; the 3 Mbaud line,
// not the core, bounds what this board moves; and 30 MHz is the fastest clock made from 25 MHz
// (PFD and VCO in range, below) below that with a whole number of core cycles per UART bit
// (10; the PHY needs at least 8). Every clock meets it at seeds 1, 2 and 3.
// Pins (the names of the board's published constraint file, ulx3s_v20.lpf; directions as the
// FPGA sees them):
//   input         clk_25mhz      25 MHz oscillator (PLL input)
//   output        ftdi_rxd       serial out, to the FT231X's RXD
//   input         ftdi_txd       serial in, from the FT231X's TXD
//   input         ftdi_nrts      FT231X RTS# (unused: no flow control, below)
//   input         ftdi_ndtr      FT231X DTR# (unused)
//   output        sdram_clk      SDRAM CLK: the core clock forwarded through an ODDRX1F
//   output        sdram_cke      SDRAM CKE
//   output        sdram_csn      SDRAM CS#
//   output        sdram_rasn     SDRAM RAS#
//   output        sdram_casn     SDRAM CAS#
//   output        sdram_wen      SDRAM WE#
//   output [1:0]  sdram_ba       SDRAM BA1..BA0
//   output [12:0] sdram_a        SDRAM A12..A0
//   output [1:0]  sdram_dqm      SDRAM UDQM, LDQM (bit 1 the upper byte)
//   inout  [15:0] sdram_d        SDRAM DQ15..DQ0
//   output [7:0]  led            led[0] link up, led[1] SDRAM initialized, led[2] interrupt,
//                                led[3] PLL locked, led[7:4] off (high: lit)
//   input  [6:0]  btn            btn[1] (FIRE1, high when pressed) resets the core; the others
//                                are unused
// Contract:
//   - Reset: the core is held in reset until the PLL's LOCK has been seen high (through
//     cmn_sync2) for ResetHold core cycles with btn[1] released, and again whenever LOCK falls
//     or btn[1] is pressed (ecp5_clk_rst, btn[1] on hold_i).
//   - The SDRAM clock: the core clock through an ODDRX1F (D0 1, D1 0), so the pin carries the
//     same edges with the delay of an I/O register, like the command and data pins the
//     controller registers: the SDRAM takes each command at the edge after the controller
//     issued it, which is the timing sdr_ctrl is verified with at CL 2, ReadDelay 1
//     (tb/unit/sdr_ctrl_cl2 at 100 MHz; this top at 30 MHz in the board simulation, kind
//     ulx3s, against the SDRAM model at 33.334 ns). CL 2 is legal up to 100 MHz on the -7
//     part. The controller's TckPs follows CoreHz (33333 ps, the period rounded down, so
//     every interval rounded up to whole cycles is at least the data sheet's). ReadDelay 1
//     is one more register on the read data: the edge that captures a word from the pins is
//     a cycle count (1 + CL + ReadDelay after READ), the same as at 10 ns, and a longer
//     period only widens the time the SDRAM's data has to reach it. Whether the board's trace
//     and pad delays leave the SDRAM's setup and hold (and the read data's capture) met is
//     for place and route to show; a PLL output with a phase shift is the knob if they do
//     not.
//   - Bidirectional pins: the controller's dq in/out/output-enable trio meets the tristate only
//     here, at the inout port (the simulation wrapper resolves the bus with the SDRAM model).
//   - No UART flow control: the FT231X's RTS#/CTS# are not both wired to the FPGA on this
//     board. The protocol's credits bound what the host sends to the receive window, and the
//     PHY hands each byte to the engine at once, so nothing overruns.
//   - Parameters BoardId and BuildStamp go to fpga_core's ID_BUILD (a build script sets them,
//     e.g. yosys `chparam -set BuildStamp 24'h...`), with the engine's UART settings
//     (bridge/README.md, kind uart: Link 2, MaxPayload 256, RxWindow 1024, DmaTags 8,
//     ReplayTimeout 2000000 cycles: 67 ms at 30 MHz, about twenty of the largest frames on
//     the line).
//   - The PLL and the reset hold are boards/common/ecp5_clk_rst.v, which checks the PLL
//     arithmetic at elaboration (OscHz / PllClkiDiv * PllClkfbDiv must be CoreHz, the PFD
//     3.125..400 MHz and the VCO 400..800 MHz).
//   - fpga_core is instantiated here, in each top, not in a board-common module: its
//     parameters are the board's link kind, and its m_vram port goes to a different slave on
//     each board, so a shared module would have to repeat all of fpga_core's ports in its own
//     port list (Verilog-2001 has no interfaces), moving the repetition rather than removing it.
module ulx3s_top #(
    parameter BoardId    = 8'h21,   // ID_BUILD.BOARD: the ULX3S
    parameter BuildStamp = 24'd0    // ID_BUILD.STAMP, set by the build
) (
    input  wire        clk_25mhz,
    output wire        ftdi_rxd,
    input  wire        ftdi_txd,
    input  wire        ftdi_nrts,
    input  wire        ftdi_ndtr,
    output wire        sdram_clk,
    output wire        sdram_cke,
    output wire        sdram_csn,
    output wire        sdram_rasn,
    output wire        sdram_casn,
    output wire        sdram_wen,
    output wire [1:0]  sdram_ba,
    output wire [12:0] sdram_a,
    output wire [1:0]  sdram_dqm,
    inout  wire [15:0] sdram_d,
    output wire [7:0]  led,
    input  wire [6:0]  btn
);
    localparam OscHz       = 25000000;
    localparam CoreHz      = 30000000;
    localparam PllClkiDiv  = 5;      // PFD 5 MHz
    localparam PllClkfbDiv = 6;      // 5 MHz * 6 = 30 MHz
    localparam PllClkopDiv = 20;     // VCO 600 MHz
    localparam Baud        = 3000000;
    localparam ResetHold   = 16;     // core cycles after LOCK before reset is released

    // ---- clock and reset (boards/common/ecp5_clk_rst.v checks the PLL arithmetic) ---------
    wire clk, rst, pll_lock;

    ecp5_clk_rst #(
        .OscHz(OscHz), .CoreHz(CoreHz), .PllClkiDiv(PllClkiDiv), .PllClkfbDiv(PllClkfbDiv),
        .PllClkopDiv(PllClkopDiv), .ResetHold(ResetHold)
    ) u_clk_rst (.osc_i(clk_25mhz), .hold_i(btn[1]), .clk_o(clk), .lock_o(pll_lock), .rst_o(rst));

    // ---- the UART -------------------------------------------------------------------------
    wire [7:0] e_rx_data, e_tx_data;
    wire       e_rx_valid, e_rx_ready, e_tx_valid, e_tx_ready;

    link_phy_uart #(.ClkHz(CoreHz), .Baud(Baud)) u_phy (
        .clk_i(clk), .rst_i(rst),
        .rx_i(ftdi_txd), .tx_o(ftdi_rxd), .cts_n_i(1'b0), .rts_n_o(),
        .rx_data_o(e_rx_data), .rx_valid_o(e_rx_valid), .rx_ready_i(e_rx_ready),
        .rx_frame_err_o(), .rx_overrun_o(),
        .tx_data_i(e_tx_data), .tx_valid_i(e_tx_valid), .tx_ready_o(e_tx_ready));

    // ---- fpga_core and the SDRAM ----------------------------------------------------------
    wire [3:0]  vram_awid, vram_arid, vram_bid, vram_rid;
    wire [31:0] vram_awaddr, vram_araddr;
    wire [7:0]  vram_awlen, vram_arlen;
    wire [2:0]  vram_awsize, vram_arsize;
    wire [1:0]  vram_awburst, vram_arburst, vram_bresp, vram_rresp;
    wire        vram_awvalid, vram_awready, vram_wlast, vram_wvalid, vram_wready;
    wire        vram_bvalid, vram_bready, vram_arvalid, vram_arready;
    wire        vram_rlast, vram_rvalid, vram_rready;
    wire [63:0] vram_wdata, vram_rdata;
    wire [7:0]  vram_wstrb;
    wire        link_up, irq, sdr_ready;

    fpga_core #(
        .PhyBytes(1), .MaxPayload(256), .RxWindowLog2(10), .ReplayLog2(11), .DmaTags(8),
        .LinkKind(2), .CoreHz(CoreHz), .ReplayTimeout(2000000),
        .BoardId(BoardId), .BuildStamp(BuildStamp)
    ) u_core (
        .clk_i(clk), .rst_i(rst), .vram_bytes_i(48'h0200_0000),   // 32 MiB
        .rx_data_i(e_rx_data), .rx_valid_i(e_rx_valid), .rx_ready_o(e_rx_ready),
        .tx_data_o(e_tx_data), .tx_valid_o(e_tx_valid), .tx_ready_i(e_tx_ready),
        .m_vram_awid_o(vram_awid), .m_vram_awaddr_o(vram_awaddr), .m_vram_awlen_o(vram_awlen),
        .m_vram_awsize_o(vram_awsize), .m_vram_awburst_o(vram_awburst),
        .m_vram_awlock_o(), .m_vram_awcache_o(), .m_vram_awprot_o(),
        .m_vram_awvalid_o(vram_awvalid), .m_vram_awready_i(vram_awready),
        .m_vram_wdata_o(vram_wdata), .m_vram_wstrb_o(vram_wstrb), .m_vram_wlast_o(vram_wlast),
        .m_vram_wvalid_o(vram_wvalid), .m_vram_wready_i(vram_wready),
        .m_vram_bid_i(vram_bid), .m_vram_bresp_i(vram_bresp), .m_vram_bvalid_i(vram_bvalid),
        .m_vram_bready_o(vram_bready),
        .m_vram_arid_o(vram_arid), .m_vram_araddr_o(vram_araddr), .m_vram_arlen_o(vram_arlen),
        .m_vram_arsize_o(vram_arsize), .m_vram_arburst_o(vram_arburst),
        .m_vram_arlock_o(), .m_vram_arcache_o(), .m_vram_arprot_o(),
        .m_vram_arvalid_o(vram_arvalid), .m_vram_arready_i(vram_arready),
        .m_vram_rid_i(vram_rid), .m_vram_rdata_i(vram_rdata), .m_vram_rresp_i(vram_rresp),
        .m_vram_rlast_i(vram_rlast), .m_vram_rvalid_i(vram_rvalid), .m_vram_rready_o(vram_rready),
        .irq_o(irq), .link_up_o(link_up), .crc_errs_o(), .naks_o(), .replays_o(),
        .bad_frames_o(), .dma_timeouts_o());

    wire [15:0] sdr_dq_in, sdr_dq_out;
    wire        sdr_dq_oe;

    sdr_ctrl #(
        .AddrBits(32), .IdBits(4), .TckPs(1000000000 / (CoreHz / 1000)), .CasLatency(2),
        .ReadDelay(1)
    ) u_sdram (
        .clk_i(clk), .rst_i(rst),
        .s_awid_i(vram_awid), .s_awaddr_i(vram_awaddr), .s_awlen_i(vram_awlen),
        .s_awsize_i(vram_awsize), .s_awburst_i(vram_awburst), .s_awvalid_i(vram_awvalid),
        .s_awready_o(vram_awready),
        .s_wdata_i(vram_wdata), .s_wstrb_i(vram_wstrb), .s_wlast_i(vram_wlast),
        .s_wvalid_i(vram_wvalid), .s_wready_o(vram_wready),
        .s_bid_o(vram_bid), .s_bresp_o(vram_bresp), .s_bvalid_o(vram_bvalid),
        .s_bready_i(vram_bready),
        .s_arid_i(vram_arid), .s_araddr_i(vram_araddr), .s_arlen_i(vram_arlen),
        .s_arsize_i(vram_arsize), .s_arburst_i(vram_arburst), .s_arvalid_i(vram_arvalid),
        .s_arready_o(vram_arready),
        .s_rid_o(vram_rid), .s_rdata_o(vram_rdata), .s_rresp_o(vram_rresp),
        .s_rlast_o(vram_rlast), .s_rvalid_o(vram_rvalid), .s_rready_i(vram_rready),
        .sdr_cke_o(sdram_cke), .sdr_cs_n_o(sdram_csn), .sdr_ras_n_o(sdram_rasn),
        .sdr_cas_n_o(sdram_casn), .sdr_we_n_o(sdram_wen), .sdr_ba_o(sdram_ba), .sdr_a_o(sdram_a),
        .sdr_dqm_o(sdram_dqm), .sdr_dq_o(sdr_dq_out), .sdr_dq_oe_o(sdr_dq_oe),
        .sdr_dq_i(sdr_dq_in), .ready_o(sdr_ready));

    assign sdram_d = sdr_dq_oe ? sdr_dq_out : 16'bz;
    assign sdr_dq_in = sdram_d;

    ODDRX1F u_sdram_clk (.SCLK(clk), .RST(1'b0), .D0(1'b1), .D1(1'b0), .Q(sdram_clk));

    // The FT231X's modem lines and the other buttons are not used.
    wire unused_pins = &{1'b0, ftdi_nrts, ftdi_ndtr, btn[6:2], btn[0]};

    assign led = {4'b0000, pll_lock, irq, sdr_ready, link_up};
endmodule
`default_nettype wire
