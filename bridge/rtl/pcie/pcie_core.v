// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// pcie_core: gpu_core behind pcie_shell, as every PCIe board carries them (the byte-stream
// boards' counterpart is fpga_core): the hard IP's user interface on one side, gpu_core's VRAM
// port on the other. boards/alveo_u200/u200_top.v and the cocotb testbench
// (tb/unit/pcie/tb_pcie_shell.sv) both instantiate it, so what the suites run is what a card
// carries.
// Contract:
//   - clk_i/rst_i: the hard IP's user_clk and user_reset; everything here runs on them.
//   - The hard IP's ports as pcie_shell names them (its header states their contract).
//   - m_vram_*: gpu_core's VRAM master (AXI4, 64-bit); vram_bytes_i: gpu_core's VRAM strap.
//   - s_tap_*: a second AXI4 master for the shell's requester (a bring-up master such as a
//     JTAG-to-AXI core, or a test's bus-functional master). While tap_sel_i is high it owns the
//     shell's s_host port, and gpu_core's m_host sees no READY or VALID; change tap_sel_i only
//     while neither master has a transaction open. Boards without one tie tap_sel_i and every
//     s_tap_*_i low.
//   - irq_o: gpu_core's interrupt line (also sent as MSI or INTA by the shell).
module pcie_core #(
    parameter CsrAddrBits = 16,         // BAR0: 64 KiB (gpu_core and pcie_shell)
    parameter ApAddrBits  = 28,         // BAR1: 256 MiB
    parameter CplTimeout  = 16777216,   // pcie_shell's completion timeout, user_clk cycles
    parameter BoardId     = 8'd0,       // ID_BUILD.BOARD
    parameter BuildStamp  = 24'd0       // ID_BUILD.STAMP
) (
    input  wire                        clk_i,
    input  wire                        rst_i,
    input  wire [47:0]                 vram_bytes_i,
    input  wire [63:0]                 s_axis_cq_tdata_i,
    input  wire [1:0]                  s_axis_cq_tkeep_i,
    input  wire                        s_axis_cq_tlast_i,
    input  wire [87:0]                 s_axis_cq_tuser_i,
    input  wire                        s_axis_cq_tvalid_i,
    output wire                        s_axis_cq_tready_o,
    output wire [63:0]                 m_axis_cc_tdata_o,
    output wire [1:0]                  m_axis_cc_tkeep_o,
    output wire                        m_axis_cc_tlast_o,
    output wire [32:0]                 m_axis_cc_tuser_o,
    output wire                        m_axis_cc_tvalid_o,
    input  wire                        m_axis_cc_tready_i,
    input  wire [1:0]                  cfg_max_payload_i,
    output wire [63:0]                 m_axis_rq_tdata_o,
    output wire [1:0]                  m_axis_rq_tkeep_o,
    output wire                        m_axis_rq_tlast_o,
    output wire [61:0]                 m_axis_rq_tuser_o,
    output wire                        m_axis_rq_tvalid_o,
    input  wire                        m_axis_rq_tready_i,
    input  wire [63:0]                 s_axis_rc_tdata_i,
    input  wire [1:0]                  s_axis_rc_tkeep_i,
    input  wire                        s_axis_rc_tlast_i,
    input  wire [74:0]                 s_axis_rc_tuser_i,
    input  wire                        s_axis_rc_tvalid_i,
    output wire                        s_axis_rc_tready_o,
    input  wire [2:0]                  cfg_max_read_req_i,
    input  wire [3:0]                  cfg_interrupt_msi_enable_i,
    input  wire                        cfg_interrupt_msi_sent_i,
    input  wire                        cfg_interrupt_msi_fail_i,
    output wire [31:0]                 cfg_interrupt_msi_int_o,
    output wire [3:0]                  cfg_interrupt_int_o,
    output wire [3:0]                  cfg_interrupt_pending_o,
    input  wire                        cfg_interrupt_sent_i,
    input  wire [15:0]                 cfg_function_status_i,
    output wire [1:0]                  pcie_cq_np_req_o,
    output wire [15:0]                 ur_count_o,
    output wire [15:0]                 cpl_timeouts_o,
    output wire [15:0]                 cpl_errors_o,
    output wire [15:0]                 msi_count_o,
    output wire [3:0]                  m_vram_awid_o,
    output wire [31:0]                 m_vram_awaddr_o,
    output wire [7:0]                  m_vram_awlen_o,
    output wire [2:0]                  m_vram_awsize_o,
    output wire [1:0]                  m_vram_awburst_o,
    output wire                        m_vram_awlock_o,
    output wire [3:0]                  m_vram_awcache_o,
    output wire [2:0]                  m_vram_awprot_o,
    output wire                        m_vram_awvalid_o,
    input  wire                        m_vram_awready_i,
    output wire [63:0]                 m_vram_wdata_o,
    output wire [7:0]                  m_vram_wstrb_o,
    output wire                        m_vram_wlast_o,
    output wire                        m_vram_wvalid_o,
    input  wire                        m_vram_wready_i,
    input  wire [3:0]                  m_vram_bid_i,
    input  wire [1:0]                  m_vram_bresp_i,
    input  wire                        m_vram_bvalid_i,
    output wire                        m_vram_bready_o,
    output wire [3:0]                  m_vram_arid_o,
    output wire [31:0]                 m_vram_araddr_o,
    output wire [7:0]                  m_vram_arlen_o,
    output wire [2:0]                  m_vram_arsize_o,
    output wire [1:0]                  m_vram_arburst_o,
    output wire                        m_vram_arlock_o,
    output wire [3:0]                  m_vram_arcache_o,
    output wire [2:0]                  m_vram_arprot_o,
    output wire                        m_vram_arvalid_o,
    input  wire                        m_vram_arready_i,
    input  wire [3:0]                  m_vram_rid_i,
    input  wire [63:0]                 m_vram_rdata_i,
    input  wire [1:0]                  m_vram_rresp_i,
    input  wire                        m_vram_rlast_i,
    input  wire                        m_vram_rvalid_i,
    output wire                        m_vram_rready_o,
    input  wire                        tap_sel_i,
    input  wire [3:0]                  s_tap_awid_i,
    input  wire [63:0]                 s_tap_awaddr_i,
    input  wire [7:0]                  s_tap_awlen_i,
    input  wire [2:0]                  s_tap_awsize_i,
    input  wire [1:0]                  s_tap_awburst_i,
    input  wire                        s_tap_awlock_i,
    input  wire [3:0]                  s_tap_awcache_i,
    input  wire [2:0]                  s_tap_awprot_i,
    input  wire                        s_tap_awvalid_i,
    output wire                        s_tap_awready_o,
    input  wire [63:0]                 s_tap_wdata_i,
    input  wire [7:0]                  s_tap_wstrb_i,
    input  wire                        s_tap_wlast_i,
    input  wire                        s_tap_wvalid_i,
    output wire                        s_tap_wready_o,
    output wire [3:0]                  s_tap_bid_o,
    output wire [1:0]                  s_tap_bresp_o,
    output wire                        s_tap_bvalid_o,
    input  wire                        s_tap_bready_i,
    input  wire [3:0]                  s_tap_arid_i,
    input  wire [63:0]                 s_tap_araddr_i,
    input  wire [7:0]                  s_tap_arlen_i,
    input  wire [2:0]                  s_tap_arsize_i,
    input  wire [1:0]                  s_tap_arburst_i,
    input  wire                        s_tap_arlock_i,
    input  wire [3:0]                  s_tap_arcache_i,
    input  wire [2:0]                  s_tap_arprot_i,
    input  wire                        s_tap_arvalid_i,
    output wire                        s_tap_arready_o,
    output wire [3:0]                  s_tap_rid_o,
    output wire [63:0]                 s_tap_rdata_o,
    output wire [1:0]                  s_tap_rresp_o,
    output wire                        s_tap_rlast_o,
    output wire                        s_tap_rvalid_o,
    input  wire                        s_tap_rready_i,
    output wire                        irq_o
);
    // gpu_core's register and aperture ports, driven by the shell's completer
    wire [CsrAddrBits-1:0]      m_csr_awaddr;
    wire [2:0]                  m_csr_awprot;
    wire                        m_csr_awvalid;
    wire                        m_csr_awready;
    wire [31:0]                 m_csr_wdata;
    wire [3:0]                  m_csr_wstrb;
    wire                        m_csr_wvalid;
    wire                        m_csr_wready;
    wire [1:0]                  m_csr_bresp;
    wire                        m_csr_bvalid;
    wire                        m_csr_bready;
    wire [CsrAddrBits-1:0]      m_csr_araddr;
    wire [2:0]                  m_csr_arprot;
    wire                        m_csr_arvalid;
    wire                        m_csr_arready;
    wire [31:0]                 m_csr_rdata;
    wire [1:0]                  m_csr_rresp;
    wire                        m_csr_rvalid;
    wire                        m_csr_rready;
    wire [3:0]                  m_ap_awid;
    wire [ApAddrBits-1:0]       m_ap_awaddr;
    wire [7:0]                  m_ap_awlen;
    wire [2:0]                  m_ap_awsize;
    wire [1:0]                  m_ap_awburst;
    wire                        m_ap_awlock;
    wire [3:0]                  m_ap_awcache;
    wire [2:0]                  m_ap_awprot;
    wire                        m_ap_awvalid;
    wire                        m_ap_awready;
    wire [63:0]                 m_ap_wdata;
    wire [7:0]                  m_ap_wstrb;
    wire                        m_ap_wlast;
    wire                        m_ap_wvalid;
    wire                        m_ap_wready;
    wire [3:0]                  m_ap_bid;
    wire [1:0]                  m_ap_bresp;
    wire                        m_ap_bvalid;
    wire                        m_ap_bready;
    wire [3:0]                  m_ap_arid;
    wire [ApAddrBits-1:0]       m_ap_araddr;
    wire [7:0]                  m_ap_arlen;
    wire [2:0]                  m_ap_arsize;
    wire [1:0]                  m_ap_arburst;
    wire                        m_ap_arlock;
    wire [3:0]                  m_ap_arcache;
    wire [2:0]                  m_ap_arprot;
    wire                        m_ap_arvalid;
    wire                        m_ap_arready;
    wire [3:0]                  m_ap_rid;
    wire [63:0]                 m_ap_rdata;
    wire [1:0]                  m_ap_rresp;
    wire                        m_ap_rlast;
    wire                        m_ap_rvalid;
    wire                        m_ap_rready;
    // m_host: gpu_core's side (core_*) and the shell's requester side (sh_*), and the tap's mux
    wire [3:0]                  core_awid;
    wire [3:0]                  sh_awid;
    wire [63:0]                 core_awaddr;
    wire [63:0]                 sh_awaddr;
    wire [7:0]                  core_awlen;
    wire [7:0]                  sh_awlen;
    wire [2:0]                  core_awsize;
    wire [2:0]                  sh_awsize;
    wire [1:0]                  core_awburst;
    wire [1:0]                  sh_awburst;
    wire                        core_awlock;
    wire                        sh_awlock;
    wire [3:0]                  core_awcache;
    wire [3:0]                  sh_awcache;
    wire [2:0]                  core_awprot;
    wire [2:0]                  sh_awprot;
    wire                        core_awvalid;
    wire                        sh_awvalid;
    wire                        core_awready;
    wire                        sh_awready;
    wire [63:0]                 core_wdata;
    wire [63:0]                 sh_wdata;
    wire [7:0]                  core_wstrb;
    wire [7:0]                  sh_wstrb;
    wire                        core_wlast;
    wire                        sh_wlast;
    wire                        core_wvalid;
    wire                        sh_wvalid;
    wire                        core_wready;
    wire                        sh_wready;
    wire [3:0]                  core_bid;
    wire [3:0]                  sh_bid;
    wire [1:0]                  core_bresp;
    wire [1:0]                  sh_bresp;
    wire                        core_bvalid;
    wire                        sh_bvalid;
    wire                        core_bready;
    wire                        sh_bready;
    wire [3:0]                  core_arid;
    wire [3:0]                  sh_arid;
    wire [63:0]                 core_araddr;
    wire [63:0]                 sh_araddr;
    wire [7:0]                  core_arlen;
    wire [7:0]                  sh_arlen;
    wire [2:0]                  core_arsize;
    wire [2:0]                  sh_arsize;
    wire [1:0]                  core_arburst;
    wire [1:0]                  sh_arburst;
    wire                        core_arlock;
    wire                        sh_arlock;
    wire [3:0]                  core_arcache;
    wire [3:0]                  sh_arcache;
    wire [2:0]                  core_arprot;
    wire [2:0]                  sh_arprot;
    wire                        core_arvalid;
    wire                        sh_arvalid;
    wire                        core_arready;
    wire                        sh_arready;
    wire [3:0]                  core_rid;
    wire [3:0]                  sh_rid;
    wire [63:0]                 core_rdata;
    wire [63:0]                 sh_rdata;
    wire [1:0]                  core_rresp;
    wire [1:0]                  sh_rresp;
    wire                        core_rlast;
    wire                        sh_rlast;
    wire                        core_rvalid;
    wire                        sh_rvalid;
    wire                        core_rready;
    wire                        sh_rready;
    assign sh_awid = tap_sel_i ? s_tap_awid_i : core_awid;
    assign sh_awaddr = tap_sel_i ? s_tap_awaddr_i : core_awaddr;
    assign sh_awlen = tap_sel_i ? s_tap_awlen_i : core_awlen;
    assign sh_awsize = tap_sel_i ? s_tap_awsize_i : core_awsize;
    assign sh_awburst = tap_sel_i ? s_tap_awburst_i : core_awburst;
    assign sh_awlock = tap_sel_i ? s_tap_awlock_i : core_awlock;
    assign sh_awcache = tap_sel_i ? s_tap_awcache_i : core_awcache;
    assign sh_awprot = tap_sel_i ? s_tap_awprot_i : core_awprot;
    assign sh_awvalid = tap_sel_i ? s_tap_awvalid_i : core_awvalid;
    assign s_tap_awready_o = tap_sel_i & sh_awready;
    assign core_awready = ~tap_sel_i & sh_awready;
    assign sh_wdata = tap_sel_i ? s_tap_wdata_i : core_wdata;
    assign sh_wstrb = tap_sel_i ? s_tap_wstrb_i : core_wstrb;
    assign sh_wlast = tap_sel_i ? s_tap_wlast_i : core_wlast;
    assign sh_wvalid = tap_sel_i ? s_tap_wvalid_i : core_wvalid;
    assign s_tap_wready_o = tap_sel_i & sh_wready;
    assign core_wready = ~tap_sel_i & sh_wready;
    assign s_tap_bid_o = sh_bid;
    assign core_bid = sh_bid;
    assign s_tap_bresp_o = sh_bresp;
    assign core_bresp = sh_bresp;
    assign s_tap_bvalid_o = tap_sel_i & sh_bvalid;
    assign core_bvalid = ~tap_sel_i & sh_bvalid;
    assign sh_bready = tap_sel_i ? s_tap_bready_i : core_bready;
    assign sh_arid = tap_sel_i ? s_tap_arid_i : core_arid;
    assign sh_araddr = tap_sel_i ? s_tap_araddr_i : core_araddr;
    assign sh_arlen = tap_sel_i ? s_tap_arlen_i : core_arlen;
    assign sh_arsize = tap_sel_i ? s_tap_arsize_i : core_arsize;
    assign sh_arburst = tap_sel_i ? s_tap_arburst_i : core_arburst;
    assign sh_arlock = tap_sel_i ? s_tap_arlock_i : core_arlock;
    assign sh_arcache = tap_sel_i ? s_tap_arcache_i : core_arcache;
    assign sh_arprot = tap_sel_i ? s_tap_arprot_i : core_arprot;
    assign sh_arvalid = tap_sel_i ? s_tap_arvalid_i : core_arvalid;
    assign s_tap_arready_o = tap_sel_i & sh_arready;
    assign core_arready = ~tap_sel_i & sh_arready;
    assign s_tap_rid_o = sh_rid;
    assign core_rid = sh_rid;
    assign s_tap_rdata_o = sh_rdata;
    assign core_rdata = sh_rdata;
    assign s_tap_rresp_o = sh_rresp;
    assign core_rresp = sh_rresp;
    assign s_tap_rlast_o = sh_rlast;
    assign core_rlast = sh_rlast;
    assign s_tap_rvalid_o = tap_sel_i & sh_rvalid;
    assign core_rvalid = ~tap_sel_i & sh_rvalid;
    assign sh_rready = tap_sel_i ? s_tap_rready_i : core_rready;

    gpu_core #(.CsrAddrBits(CsrAddrBits), .ApAddrBits(ApAddrBits), .BoardId(BoardId),
               .BuildStamp(BuildStamp)) u_core (
        .clk_i(clk_i),
        .rst_i(rst_i),
        .vram_bytes_i(vram_bytes_i),
        .s_csr_awaddr_i(m_csr_awaddr),
        .s_csr_awprot_i(m_csr_awprot),
        .s_csr_awvalid_i(m_csr_awvalid),
        .s_csr_awready_o(m_csr_awready),
        .s_csr_wdata_i(m_csr_wdata),
        .s_csr_wstrb_i(m_csr_wstrb),
        .s_csr_wvalid_i(m_csr_wvalid),
        .s_csr_wready_o(m_csr_wready),
        .s_csr_bresp_o(m_csr_bresp),
        .s_csr_bvalid_o(m_csr_bvalid),
        .s_csr_bready_i(m_csr_bready),
        .s_csr_araddr_i(m_csr_araddr),
        .s_csr_arprot_i(m_csr_arprot),
        .s_csr_arvalid_i(m_csr_arvalid),
        .s_csr_arready_o(m_csr_arready),
        .s_csr_rdata_o(m_csr_rdata),
        .s_csr_rresp_o(m_csr_rresp),
        .s_csr_rvalid_o(m_csr_rvalid),
        .s_csr_rready_i(m_csr_rready),
        .s_ap_awid_i(m_ap_awid),
        .s_ap_awaddr_i(m_ap_awaddr),
        .s_ap_awlen_i(m_ap_awlen),
        .s_ap_awsize_i(m_ap_awsize),
        .s_ap_awburst_i(m_ap_awburst),
        .s_ap_awlock_i(m_ap_awlock),
        .s_ap_awcache_i(m_ap_awcache),
        .s_ap_awprot_i(m_ap_awprot),
        .s_ap_awvalid_i(m_ap_awvalid),
        .s_ap_awready_o(m_ap_awready),
        .s_ap_wdata_i(m_ap_wdata),
        .s_ap_wstrb_i(m_ap_wstrb),
        .s_ap_wlast_i(m_ap_wlast),
        .s_ap_wvalid_i(m_ap_wvalid),
        .s_ap_wready_o(m_ap_wready),
        .s_ap_bid_o(m_ap_bid),
        .s_ap_bresp_o(m_ap_bresp),
        .s_ap_bvalid_o(m_ap_bvalid),
        .s_ap_bready_i(m_ap_bready),
        .s_ap_arid_i(m_ap_arid),
        .s_ap_araddr_i(m_ap_araddr),
        .s_ap_arlen_i(m_ap_arlen),
        .s_ap_arsize_i(m_ap_arsize),
        .s_ap_arburst_i(m_ap_arburst),
        .s_ap_arlock_i(m_ap_arlock),
        .s_ap_arcache_i(m_ap_arcache),
        .s_ap_arprot_i(m_ap_arprot),
        .s_ap_arvalid_i(m_ap_arvalid),
        .s_ap_arready_o(m_ap_arready),
        .s_ap_rid_o(m_ap_rid),
        .s_ap_rdata_o(m_ap_rdata),
        .s_ap_rresp_o(m_ap_rresp),
        .s_ap_rlast_o(m_ap_rlast),
        .s_ap_rvalid_o(m_ap_rvalid),
        .s_ap_rready_i(m_ap_rready),
        .m_host_awid_o(core_awid),
        .m_host_awaddr_o(core_awaddr),
        .m_host_awlen_o(core_awlen),
        .m_host_awsize_o(core_awsize),
        .m_host_awburst_o(core_awburst),
        .m_host_awlock_o(core_awlock),
        .m_host_awcache_o(core_awcache),
        .m_host_awprot_o(core_awprot),
        .m_host_awvalid_o(core_awvalid),
        .m_host_awready_i(core_awready),
        .m_host_wdata_o(core_wdata),
        .m_host_wstrb_o(core_wstrb),
        .m_host_wlast_o(core_wlast),
        .m_host_wvalid_o(core_wvalid),
        .m_host_wready_i(core_wready),
        .m_host_bid_i(core_bid),
        .m_host_bresp_i(core_bresp),
        .m_host_bvalid_i(core_bvalid),
        .m_host_bready_o(core_bready),
        .m_host_arid_o(core_arid),
        .m_host_araddr_o(core_araddr),
        .m_host_arlen_o(core_arlen),
        .m_host_arsize_o(core_arsize),
        .m_host_arburst_o(core_arburst),
        .m_host_arlock_o(core_arlock),
        .m_host_arcache_o(core_arcache),
        .m_host_arprot_o(core_arprot),
        .m_host_arvalid_o(core_arvalid),
        .m_host_arready_i(core_arready),
        .m_host_rid_i(core_rid),
        .m_host_rdata_i(core_rdata),
        .m_host_rresp_i(core_rresp),
        .m_host_rlast_i(core_rlast),
        .m_host_rvalid_i(core_rvalid),
        .m_host_rready_o(core_rready),
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

    pcie_shell #(.CsrAddrBits(CsrAddrBits), .ApAddrBits(ApAddrBits), .CplTimeout(CplTimeout)) u_shell (
        .clk_i(clk_i),
        .rst_i(rst_i),
        .s_axis_cq_tdata_i(s_axis_cq_tdata_i),
        .s_axis_cq_tkeep_i(s_axis_cq_tkeep_i),
        .s_axis_cq_tlast_i(s_axis_cq_tlast_i),
        .s_axis_cq_tuser_i(s_axis_cq_tuser_i),
        .s_axis_cq_tvalid_i(s_axis_cq_tvalid_i),
        .s_axis_cq_tready_o(s_axis_cq_tready_o),
        .m_axis_cc_tdata_o(m_axis_cc_tdata_o),
        .m_axis_cc_tkeep_o(m_axis_cc_tkeep_o),
        .m_axis_cc_tlast_o(m_axis_cc_tlast_o),
        .m_axis_cc_tuser_o(m_axis_cc_tuser_o),
        .m_axis_cc_tvalid_o(m_axis_cc_tvalid_o),
        .m_axis_cc_tready_i(m_axis_cc_tready_i),
        .cfg_max_payload_i(cfg_max_payload_i),
        .m_csr_awaddr_o(m_csr_awaddr),
        .m_csr_awprot_o(m_csr_awprot),
        .m_csr_awvalid_o(m_csr_awvalid),
        .m_csr_awready_i(m_csr_awready),
        .m_csr_wdata_o(m_csr_wdata),
        .m_csr_wstrb_o(m_csr_wstrb),
        .m_csr_wvalid_o(m_csr_wvalid),
        .m_csr_wready_i(m_csr_wready),
        .m_csr_bresp_i(m_csr_bresp),
        .m_csr_bvalid_i(m_csr_bvalid),
        .m_csr_bready_o(m_csr_bready),
        .m_csr_araddr_o(m_csr_araddr),
        .m_csr_arprot_o(m_csr_arprot),
        .m_csr_arvalid_o(m_csr_arvalid),
        .m_csr_arready_i(m_csr_arready),
        .m_csr_rdata_i(m_csr_rdata),
        .m_csr_rresp_i(m_csr_rresp),
        .m_csr_rvalid_i(m_csr_rvalid),
        .m_csr_rready_o(m_csr_rready),
        .m_ap_awid_o(m_ap_awid),
        .m_ap_awaddr_o(m_ap_awaddr),
        .m_ap_awlen_o(m_ap_awlen),
        .m_ap_awsize_o(m_ap_awsize),
        .m_ap_awburst_o(m_ap_awburst),
        .m_ap_awlock_o(m_ap_awlock),
        .m_ap_awcache_o(m_ap_awcache),
        .m_ap_awprot_o(m_ap_awprot),
        .m_ap_awvalid_o(m_ap_awvalid),
        .m_ap_awready_i(m_ap_awready),
        .m_ap_wdata_o(m_ap_wdata),
        .m_ap_wstrb_o(m_ap_wstrb),
        .m_ap_wlast_o(m_ap_wlast),
        .m_ap_wvalid_o(m_ap_wvalid),
        .m_ap_wready_i(m_ap_wready),
        .m_ap_bid_i(m_ap_bid),
        .m_ap_bresp_i(m_ap_bresp),
        .m_ap_bvalid_i(m_ap_bvalid),
        .m_ap_bready_o(m_ap_bready),
        .m_ap_arid_o(m_ap_arid),
        .m_ap_araddr_o(m_ap_araddr),
        .m_ap_arlen_o(m_ap_arlen),
        .m_ap_arsize_o(m_ap_arsize),
        .m_ap_arburst_o(m_ap_arburst),
        .m_ap_arlock_o(m_ap_arlock),
        .m_ap_arcache_o(m_ap_arcache),
        .m_ap_arprot_o(m_ap_arprot),
        .m_ap_arvalid_o(m_ap_arvalid),
        .m_ap_arready_i(m_ap_arready),
        .m_ap_rid_i(m_ap_rid),
        .m_ap_rdata_i(m_ap_rdata),
        .m_ap_rresp_i(m_ap_rresp),
        .m_ap_rlast_i(m_ap_rlast),
        .m_ap_rvalid_i(m_ap_rvalid),
        .m_ap_rready_o(m_ap_rready),
        .s_host_awid_i(sh_awid),
        .s_host_awaddr_i(sh_awaddr),
        .s_host_awlen_i(sh_awlen),
        .s_host_awsize_i(sh_awsize),
        .s_host_awburst_i(sh_awburst),
        .s_host_awlock_i(sh_awlock),
        .s_host_awcache_i(sh_awcache),
        .s_host_awprot_i(sh_awprot),
        .s_host_awvalid_i(sh_awvalid),
        .s_host_awready_o(sh_awready),
        .s_host_wdata_i(sh_wdata),
        .s_host_wstrb_i(sh_wstrb),
        .s_host_wlast_i(sh_wlast),
        .s_host_wvalid_i(sh_wvalid),
        .s_host_wready_o(sh_wready),
        .s_host_bid_o(sh_bid),
        .s_host_bresp_o(sh_bresp),
        .s_host_bvalid_o(sh_bvalid),
        .s_host_bready_i(sh_bready),
        .s_host_arid_i(sh_arid),
        .s_host_araddr_i(sh_araddr),
        .s_host_arlen_i(sh_arlen),
        .s_host_arsize_i(sh_arsize),
        .s_host_arburst_i(sh_arburst),
        .s_host_arlock_i(sh_arlock),
        .s_host_arcache_i(sh_arcache),
        .s_host_arprot_i(sh_arprot),
        .s_host_arvalid_i(sh_arvalid),
        .s_host_arready_o(sh_arready),
        .s_host_rid_o(sh_rid),
        .s_host_rdata_o(sh_rdata),
        .s_host_rresp_o(sh_rresp),
        .s_host_rlast_o(sh_rlast),
        .s_host_rvalid_o(sh_rvalid),
        .s_host_rready_i(sh_rready),
        .m_axis_rq_tdata_o(m_axis_rq_tdata_o),
        .m_axis_rq_tkeep_o(m_axis_rq_tkeep_o),
        .m_axis_rq_tlast_o(m_axis_rq_tlast_o),
        .m_axis_rq_tuser_o(m_axis_rq_tuser_o),
        .m_axis_rq_tvalid_o(m_axis_rq_tvalid_o),
        .m_axis_rq_tready_i(m_axis_rq_tready_i),
        .s_axis_rc_tdata_i(s_axis_rc_tdata_i),
        .s_axis_rc_tkeep_i(s_axis_rc_tkeep_i),
        .s_axis_rc_tlast_i(s_axis_rc_tlast_i),
        .s_axis_rc_tuser_i(s_axis_rc_tuser_i),
        .s_axis_rc_tvalid_i(s_axis_rc_tvalid_i),
        .s_axis_rc_tready_o(s_axis_rc_tready_o),
        .cfg_max_read_req_i(cfg_max_read_req_i),
        .cfg_interrupt_msi_enable_i(cfg_interrupt_msi_enable_i),
        .cfg_interrupt_msi_sent_i(cfg_interrupt_msi_sent_i),
        .cfg_interrupt_msi_fail_i(cfg_interrupt_msi_fail_i),
        .cfg_interrupt_msi_int_o(cfg_interrupt_msi_int_o),
        .cfg_interrupt_int_o(cfg_interrupt_int_o),
        .cfg_interrupt_pending_o(cfg_interrupt_pending_o),
        .cfg_interrupt_sent_i(cfg_interrupt_sent_i),
        .irq_i(irq_o),
        .cfg_function_status_i(cfg_function_status_i),
        .pcie_cq_np_req_o(pcie_cq_np_req_o),
        .ur_count_o(ur_count_o),
        .cpl_timeouts_o(cpl_timeouts_o),
        .cpl_errors_o(cpl_errors_o),
        .msi_count_o(msi_count_o)
    );
endmodule
`default_nettype wire
