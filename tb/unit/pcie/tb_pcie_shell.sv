// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_pcie_shell: the cocotb testbench top of tb/unit/pcie: pcie_shell + gpu_core as a board would
// join them, the hard IP's ports (named as cocotbext-pcie's UltraScalePlusPcieDevice binds them)
// and gpu_core's VRAM port (vram_*, an AXI4 RAM model in the test) at the top. host_sel 1 hands
// the shell's m_host side to a test AXI4 master (tm_*) instead of gpu_core's DMA engine, so the
// requester is tested with bursts of any shape.
module tb_pcie_shell #(
    parameter CsrAddrBits = 16,
    parameter ApAddrBits  = 28,
    parameter CplTimeout  = 4096
) (
    input  wire        user_clk,
    input  wire        user_reset,
    input  wire        user_lnk_up,
    input  wire        host_sel,
    output wire        irq,
    input  wire [63:0]   s_axis_cq_tdata,
    input  wire [1:0]    s_axis_cq_tkeep,
    input  wire          s_axis_cq_tlast,
    input  wire [87:0]   s_axis_cq_tuser,
    input  wire          s_axis_cq_tvalid,
    output wire          s_axis_cq_tready,
    output wire [63:0]   m_axis_cc_tdata,
    output wire [1:0]    m_axis_cc_tkeep,
    output wire          m_axis_cc_tlast,
    output wire [32:0]   m_axis_cc_tuser,
    output wire          m_axis_cc_tvalid,
    input  wire          m_axis_cc_tready,
    input  wire [1:0]    cfg_max_payload,
    output wire [63:0]   m_axis_rq_tdata,
    output wire [1:0]    m_axis_rq_tkeep,
    output wire          m_axis_rq_tlast,
    output wire [61:0]   m_axis_rq_tuser,
    output wire          m_axis_rq_tvalid,
    input  wire          m_axis_rq_tready,
    input  wire [63:0]   s_axis_rc_tdata,
    input  wire [1:0]    s_axis_rc_tkeep,
    input  wire          s_axis_rc_tlast,
    input  wire [74:0]   s_axis_rc_tuser,
    input  wire          s_axis_rc_tvalid,
    output wire          s_axis_rc_tready,
    input  wire [2:0]    cfg_max_read_req,
    input  wire [3:0]    cfg_interrupt_msi_enable,
    input  wire          cfg_interrupt_msi_sent,
    input  wire          cfg_interrupt_msi_fail,
    output wire [31:0]   cfg_interrupt_msi_int,
    output wire [3:0]    cfg_interrupt_int,
    output wire [3:0]    cfg_interrupt_pending,
    input  wire          cfg_interrupt_sent,
    input  wire [15:0]   cfg_function_status,
    output wire [1:0]    pcie_cq_np_req,
    output wire [15:0]   ur_count,
    output wire [15:0]   cpl_timeouts,
    output wire [15:0]   cpl_errors,
    output wire [15:0]   msi_count,
    output wire [3:0]    vram_awid,
    output wire [31:0]   vram_awaddr,
    output wire [7:0]    vram_awlen,
    output wire [2:0]    vram_awsize,
    output wire [1:0]    vram_awburst,
    output wire          vram_awlock,
    output wire [3:0]    vram_awcache,
    output wire [2:0]    vram_awprot,
    output wire          vram_awvalid,
    input  wire          vram_awready,
    output wire [63:0]   vram_wdata,
    output wire [7:0]    vram_wstrb,
    output wire          vram_wlast,
    output wire          vram_wvalid,
    input  wire          vram_wready,
    input  wire [3:0]    vram_bid,
    input  wire [1:0]    vram_bresp,
    input  wire          vram_bvalid,
    output wire          vram_bready,
    output wire [3:0]    vram_arid,
    output wire [31:0]   vram_araddr,
    output wire [7:0]    vram_arlen,
    output wire [2:0]    vram_arsize,
    output wire [1:0]    vram_arburst,
    output wire          vram_arlock,
    output wire [3:0]    vram_arcache,
    output wire [2:0]    vram_arprot,
    output wire          vram_arvalid,
    input  wire          vram_arready,
    input  wire [3:0]    vram_rid,
    input  wire [63:0]   vram_rdata,
    input  wire [1:0]    vram_rresp,
    input  wire          vram_rlast,
    input  wire          vram_rvalid,
    output wire          vram_rready,
    input  wire [3:0]    tm_awid,
    input  wire [63:0]   tm_awaddr,
    input  wire [7:0]    tm_awlen,
    input  wire [2:0]    tm_awsize,
    input  wire [1:0]    tm_awburst,
    input  wire          tm_awlock,
    input  wire [3:0]    tm_awcache,
    input  wire [2:0]    tm_awprot,
    input  wire          tm_awvalid,
    output wire          tm_awready,
    input  wire [63:0]   tm_wdata,
    input  wire [7:0]    tm_wstrb,
    input  wire          tm_wlast,
    input  wire          tm_wvalid,
    output wire          tm_wready,
    output wire [3:0]    tm_bid,
    output wire [1:0]    tm_bresp,
    output wire          tm_bvalid,
    input  wire          tm_bready,
    input  wire [3:0]    tm_arid,
    input  wire [63:0]   tm_araddr,
    input  wire [7:0]    tm_arlen,
    input  wire [2:0]    tm_arsize,
    input  wire [1:0]    tm_arburst,
    input  wire          tm_arlock,
    input  wire [3:0]    tm_arcache,
    input  wire [2:0]    tm_arprot,
    input  wire          tm_arvalid,
    output wire          tm_arready,
    output wire [3:0]    tm_rid,
    output wire [63:0]   tm_rdata,
    output wire [1:0]    tm_rresp,
    output wire          tm_rlast,
    output wire          tm_rvalid,
    input  wire          tm_rready
);
    wire [CsrAddrBits-1:0]    g_s_csr_awaddr;
    wire [2:0]                g_s_csr_awprot;
    wire                      g_s_csr_awvalid;
    wire                      g_s_csr_awready;
    wire [31:0]               g_s_csr_wdata;
    wire [3:0]                g_s_csr_wstrb;
    wire                      g_s_csr_wvalid;
    wire                      g_s_csr_wready;
    wire [1:0]                g_s_csr_bresp;
    wire                      g_s_csr_bvalid;
    wire                      g_s_csr_bready;
    wire [CsrAddrBits-1:0]    g_s_csr_araddr;
    wire [2:0]                g_s_csr_arprot;
    wire                      g_s_csr_arvalid;
    wire                      g_s_csr_arready;
    wire [31:0]               g_s_csr_rdata;
    wire [1:0]                g_s_csr_rresp;
    wire                      g_s_csr_rvalid;
    wire                      g_s_csr_rready;
    wire [3:0]                g_s_ap_awid;
    wire [ApAddrBits-1:0]     g_s_ap_awaddr;
    wire [7:0]                g_s_ap_awlen;
    wire [2:0]                g_s_ap_awsize;
    wire [1:0]                g_s_ap_awburst;
    wire                      g_s_ap_awlock;
    wire [3:0]                g_s_ap_awcache;
    wire [2:0]                g_s_ap_awprot;
    wire                      g_s_ap_awvalid;
    wire                      g_s_ap_awready;
    wire [63:0]               g_s_ap_wdata;
    wire [7:0]                g_s_ap_wstrb;
    wire                      g_s_ap_wlast;
    wire                      g_s_ap_wvalid;
    wire                      g_s_ap_wready;
    wire [3:0]                g_s_ap_bid;
    wire [1:0]                g_s_ap_bresp;
    wire                      g_s_ap_bvalid;
    wire                      g_s_ap_bready;
    wire [3:0]                g_s_ap_arid;
    wire [ApAddrBits-1:0]     g_s_ap_araddr;
    wire [7:0]                g_s_ap_arlen;
    wire [2:0]                g_s_ap_arsize;
    wire [1:0]                g_s_ap_arburst;
    wire                      g_s_ap_arlock;
    wire [3:0]                g_s_ap_arcache;
    wire [2:0]                g_s_ap_arprot;
    wire                      g_s_ap_arvalid;
    wire                      g_s_ap_arready;
    wire [3:0]                g_s_ap_rid;
    wire [63:0]               g_s_ap_rdata;
    wire [1:0]                g_s_ap_rresp;
    wire                      g_s_ap_rlast;
    wire                      g_s_ap_rvalid;
    wire                      g_s_ap_rready;
    wire [3:0]                g_m_host_awid;
    wire [63:0]               g_m_host_awaddr;
    wire [7:0]                g_m_host_awlen;
    wire [2:0]                g_m_host_awsize;
    wire [1:0]                g_m_host_awburst;
    wire                      g_m_host_awlock;
    wire [3:0]                g_m_host_awcache;
    wire [2:0]                g_m_host_awprot;
    wire                      g_m_host_awvalid;
    wire                      g_m_host_awready;
    wire [63:0]               g_m_host_wdata;
    wire [7:0]                g_m_host_wstrb;
    wire                      g_m_host_wlast;
    wire                      g_m_host_wvalid;
    wire                      g_m_host_wready;
    wire [3:0]                g_m_host_bid;
    wire [1:0]                g_m_host_bresp;
    wire                      g_m_host_bvalid;
    wire                      g_m_host_bready;
    wire [3:0]                g_m_host_arid;
    wire [63:0]               g_m_host_araddr;
    wire [7:0]                g_m_host_arlen;
    wire [2:0]                g_m_host_arsize;
    wire [1:0]                g_m_host_arburst;
    wire                      g_m_host_arlock;
    wire [3:0]                g_m_host_arcache;
    wire [2:0]                g_m_host_arprot;
    wire                      g_m_host_arvalid;
    wire                      g_m_host_arready;
    wire [3:0]                g_m_host_rid;
    wire [63:0]               g_m_host_rdata;
    wire [1:0]                g_m_host_rresp;
    wire                      g_m_host_rlast;
    wire                      g_m_host_rvalid;
    wire                      g_m_host_rready;
    wire irq_w;
    assign irq = irq_w;
    wire [3:0]                h_awid;
    wire [63:0]               h_awaddr;
    wire [7:0]                h_awlen;
    wire [2:0]                h_awsize;
    wire [1:0]                h_awburst;
    wire                      h_awlock;
    wire [3:0]                h_awcache;
    wire [2:0]                h_awprot;
    wire                      h_awvalid;
    wire                      h_awready;
    wire [63:0]               h_wdata;
    wire [7:0]                h_wstrb;
    wire                      h_wlast;
    wire                      h_wvalid;
    wire                      h_wready;
    wire [3:0]                h_bid;
    wire [1:0]                h_bresp;
    wire                      h_bvalid;
    wire                      h_bready;
    wire [3:0]                h_arid;
    wire [63:0]               h_araddr;
    wire [7:0]                h_arlen;
    wire [2:0]                h_arsize;
    wire [1:0]                h_arburst;
    wire                      h_arlock;
    wire [3:0]                h_arcache;
    wire [2:0]                h_arprot;
    wire                      h_arvalid;
    wire                      h_arready;
    wire [3:0]                h_rid;
    wire [63:0]               h_rdata;
    wire [1:0]                h_rresp;
    wire                      h_rlast;
    wire                      h_rvalid;
    wire                      h_rready;
    assign h_awid = host_sel ? tm_awid : g_m_host_awid;
    assign h_awaddr = host_sel ? tm_awaddr : g_m_host_awaddr;
    assign h_awlen = host_sel ? tm_awlen : g_m_host_awlen;
    assign h_awsize = host_sel ? tm_awsize : g_m_host_awsize;
    assign h_awburst = host_sel ? tm_awburst : g_m_host_awburst;
    assign h_awlock = host_sel ? tm_awlock : g_m_host_awlock;
    assign h_awcache = host_sel ? tm_awcache : g_m_host_awcache;
    assign h_awprot = host_sel ? tm_awprot : g_m_host_awprot;
    assign h_awvalid = host_sel ? tm_awvalid : g_m_host_awvalid;
    assign tm_awready = host_sel && h_awready;
    assign g_m_host_awready = host_sel ? 1'b0 : h_awready;
    assign h_wdata = host_sel ? tm_wdata : g_m_host_wdata;
    assign h_wstrb = host_sel ? tm_wstrb : g_m_host_wstrb;
    assign h_wlast = host_sel ? tm_wlast : g_m_host_wlast;
    assign h_wvalid = host_sel ? tm_wvalid : g_m_host_wvalid;
    assign tm_wready = host_sel && h_wready;
    assign g_m_host_wready = host_sel ? 1'b0 : h_wready;
    assign tm_bid = h_bid;
    assign g_m_host_bid = host_sel ? {$bits(h_bid){1'b0}} : h_bid;
    assign tm_bresp = h_bresp;
    assign g_m_host_bresp = host_sel ? {$bits(h_bresp){1'b0}} : h_bresp;
    assign tm_bvalid = host_sel && h_bvalid;
    assign g_m_host_bvalid = host_sel ? {$bits(h_bvalid){1'b0}} : h_bvalid;
    assign h_bready = host_sel ? tm_bready : g_m_host_bready;
    assign h_arid = host_sel ? tm_arid : g_m_host_arid;
    assign h_araddr = host_sel ? tm_araddr : g_m_host_araddr;
    assign h_arlen = host_sel ? tm_arlen : g_m_host_arlen;
    assign h_arsize = host_sel ? tm_arsize : g_m_host_arsize;
    assign h_arburst = host_sel ? tm_arburst : g_m_host_arburst;
    assign h_arlock = host_sel ? tm_arlock : g_m_host_arlock;
    assign h_arcache = host_sel ? tm_arcache : g_m_host_arcache;
    assign h_arprot = host_sel ? tm_arprot : g_m_host_arprot;
    assign h_arvalid = host_sel ? tm_arvalid : g_m_host_arvalid;
    assign tm_arready = host_sel && h_arready;
    assign g_m_host_arready = host_sel ? 1'b0 : h_arready;
    assign tm_rid = h_rid;
    assign g_m_host_rid = host_sel ? {$bits(h_rid){1'b0}} : h_rid;
    assign tm_rdata = h_rdata;
    assign g_m_host_rdata = host_sel ? {$bits(h_rdata){1'b0}} : h_rdata;
    assign tm_rresp = h_rresp;
    assign g_m_host_rresp = host_sel ? {$bits(h_rresp){1'b0}} : h_rresp;
    assign tm_rlast = h_rlast;
    assign g_m_host_rlast = host_sel ? {$bits(h_rlast){1'b0}} : h_rlast;
    assign tm_rvalid = host_sel && h_rvalid;
    assign g_m_host_rvalid = host_sel ? {$bits(h_rvalid){1'b0}} : h_rvalid;
    assign h_rready = host_sel ? tm_rready : g_m_host_rready;

    gpu_core #(.CsrAddrBits(CsrAddrBits), .ApAddrBits(ApAddrBits)) u_core (
        .clk_i(user_clk),
        .rst_i(user_reset),
        .vram_bytes_i(48'h2000_0000),  // the strap at the core's largest VRAM (VramBytes)
        .s_csr_awaddr_i(g_s_csr_awaddr),
        .s_csr_awprot_i(g_s_csr_awprot),
        .s_csr_awvalid_i(g_s_csr_awvalid),
        .s_csr_awready_o(g_s_csr_awready),
        .s_csr_wdata_i(g_s_csr_wdata),
        .s_csr_wstrb_i(g_s_csr_wstrb),
        .s_csr_wvalid_i(g_s_csr_wvalid),
        .s_csr_wready_o(g_s_csr_wready),
        .s_csr_bresp_o(g_s_csr_bresp),
        .s_csr_bvalid_o(g_s_csr_bvalid),
        .s_csr_bready_i(g_s_csr_bready),
        .s_csr_araddr_i(g_s_csr_araddr),
        .s_csr_arprot_i(g_s_csr_arprot),
        .s_csr_arvalid_i(g_s_csr_arvalid),
        .s_csr_arready_o(g_s_csr_arready),
        .s_csr_rdata_o(g_s_csr_rdata),
        .s_csr_rresp_o(g_s_csr_rresp),
        .s_csr_rvalid_o(g_s_csr_rvalid),
        .s_csr_rready_i(g_s_csr_rready),
        .s_ap_awid_i(g_s_ap_awid),
        .s_ap_awaddr_i(g_s_ap_awaddr),
        .s_ap_awlen_i(g_s_ap_awlen),
        .s_ap_awsize_i(g_s_ap_awsize),
        .s_ap_awburst_i(g_s_ap_awburst),
        .s_ap_awlock_i(g_s_ap_awlock),
        .s_ap_awcache_i(g_s_ap_awcache),
        .s_ap_awprot_i(g_s_ap_awprot),
        .s_ap_awvalid_i(g_s_ap_awvalid),
        .s_ap_awready_o(g_s_ap_awready),
        .s_ap_wdata_i(g_s_ap_wdata),
        .s_ap_wstrb_i(g_s_ap_wstrb),
        .s_ap_wlast_i(g_s_ap_wlast),
        .s_ap_wvalid_i(g_s_ap_wvalid),
        .s_ap_wready_o(g_s_ap_wready),
        .s_ap_bid_o(g_s_ap_bid),
        .s_ap_bresp_o(g_s_ap_bresp),
        .s_ap_bvalid_o(g_s_ap_bvalid),
        .s_ap_bready_i(g_s_ap_bready),
        .s_ap_arid_i(g_s_ap_arid),
        .s_ap_araddr_i(g_s_ap_araddr),
        .s_ap_arlen_i(g_s_ap_arlen),
        .s_ap_arsize_i(g_s_ap_arsize),
        .s_ap_arburst_i(g_s_ap_arburst),
        .s_ap_arlock_i(g_s_ap_arlock),
        .s_ap_arcache_i(g_s_ap_arcache),
        .s_ap_arprot_i(g_s_ap_arprot),
        .s_ap_arvalid_i(g_s_ap_arvalid),
        .s_ap_arready_o(g_s_ap_arready),
        .s_ap_rid_o(g_s_ap_rid),
        .s_ap_rdata_o(g_s_ap_rdata),
        .s_ap_rresp_o(g_s_ap_rresp),
        .s_ap_rlast_o(g_s_ap_rlast),
        .s_ap_rvalid_o(g_s_ap_rvalid),
        .s_ap_rready_i(g_s_ap_rready),
        .m_host_awid_o(g_m_host_awid),
        .m_host_awaddr_o(g_m_host_awaddr),
        .m_host_awlen_o(g_m_host_awlen),
        .m_host_awsize_o(g_m_host_awsize),
        .m_host_awburst_o(g_m_host_awburst),
        .m_host_awlock_o(g_m_host_awlock),
        .m_host_awcache_o(g_m_host_awcache),
        .m_host_awprot_o(g_m_host_awprot),
        .m_host_awvalid_o(g_m_host_awvalid),
        .m_host_awready_i(g_m_host_awready),
        .m_host_wdata_o(g_m_host_wdata),
        .m_host_wstrb_o(g_m_host_wstrb),
        .m_host_wlast_o(g_m_host_wlast),
        .m_host_wvalid_o(g_m_host_wvalid),
        .m_host_wready_i(g_m_host_wready),
        .m_host_bid_i(g_m_host_bid),
        .m_host_bresp_i(g_m_host_bresp),
        .m_host_bvalid_i(g_m_host_bvalid),
        .m_host_bready_o(g_m_host_bready),
        .m_host_arid_o(g_m_host_arid),
        .m_host_araddr_o(g_m_host_araddr),
        .m_host_arlen_o(g_m_host_arlen),
        .m_host_arsize_o(g_m_host_arsize),
        .m_host_arburst_o(g_m_host_arburst),
        .m_host_arlock_o(g_m_host_arlock),
        .m_host_arcache_o(g_m_host_arcache),
        .m_host_arprot_o(g_m_host_arprot),
        .m_host_arvalid_o(g_m_host_arvalid),
        .m_host_arready_i(g_m_host_arready),
        .m_host_rid_i(g_m_host_rid),
        .m_host_rdata_i(g_m_host_rdata),
        .m_host_rresp_i(g_m_host_rresp),
        .m_host_rlast_i(g_m_host_rlast),
        .m_host_rvalid_i(g_m_host_rvalid),
        .m_host_rready_o(g_m_host_rready),
        .m_vram_awid_o(vram_awid),
        .m_vram_awaddr_o(vram_awaddr),
        .m_vram_awlen_o(vram_awlen),
        .m_vram_awsize_o(vram_awsize),
        .m_vram_awburst_o(vram_awburst),
        .m_vram_awlock_o(vram_awlock),
        .m_vram_awcache_o(vram_awcache),
        .m_vram_awprot_o(vram_awprot),
        .m_vram_awvalid_o(vram_awvalid),
        .m_vram_awready_i(vram_awready),
        .m_vram_wdata_o(vram_wdata),
        .m_vram_wstrb_o(vram_wstrb),
        .m_vram_wlast_o(vram_wlast),
        .m_vram_wvalid_o(vram_wvalid),
        .m_vram_wready_i(vram_wready),
        .m_vram_bid_i(vram_bid),
        .m_vram_bresp_i(vram_bresp),
        .m_vram_bvalid_i(vram_bvalid),
        .m_vram_bready_o(vram_bready),
        .m_vram_arid_o(vram_arid),
        .m_vram_araddr_o(vram_araddr),
        .m_vram_arlen_o(vram_arlen),
        .m_vram_arsize_o(vram_arsize),
        .m_vram_arburst_o(vram_arburst),
        .m_vram_arlock_o(vram_arlock),
        .m_vram_arcache_o(vram_arcache),
        .m_vram_arprot_o(vram_arprot),
        .m_vram_arvalid_o(vram_arvalid),
        .m_vram_arready_i(vram_arready),
        .m_vram_rid_i(vram_rid),
        .m_vram_rdata_i(vram_rdata),
        .m_vram_rresp_i(vram_rresp),
        .m_vram_rlast_i(vram_rlast),
        .m_vram_rvalid_i(vram_rvalid),
        .m_vram_rready_o(vram_rready),
        .irq_o(irq_w)
    );

    pcie_shell #(.CsrAddrBits(CsrAddrBits), .ApAddrBits(ApAddrBits), .CplTimeout(CplTimeout)) u_shell (
        .clk_i(user_clk),
        .rst_i(user_reset),
        .s_axis_cq_tdata_i(s_axis_cq_tdata),
        .s_axis_cq_tkeep_i(s_axis_cq_tkeep),
        .s_axis_cq_tlast_i(s_axis_cq_tlast),
        .s_axis_cq_tuser_i(s_axis_cq_tuser),
        .s_axis_cq_tvalid_i(s_axis_cq_tvalid),
        .s_axis_cq_tready_o(s_axis_cq_tready),
        .m_axis_cc_tdata_o(m_axis_cc_tdata),
        .m_axis_cc_tkeep_o(m_axis_cc_tkeep),
        .m_axis_cc_tlast_o(m_axis_cc_tlast),
        .m_axis_cc_tuser_o(m_axis_cc_tuser),
        .m_axis_cc_tvalid_o(m_axis_cc_tvalid),
        .m_axis_cc_tready_i(m_axis_cc_tready),
        .cfg_max_payload_i(cfg_max_payload),
        .m_csr_awaddr_o(g_s_csr_awaddr),
        .m_csr_awprot_o(g_s_csr_awprot),
        .m_csr_awvalid_o(g_s_csr_awvalid),
        .m_csr_awready_i(g_s_csr_awready),
        .m_csr_wdata_o(g_s_csr_wdata),
        .m_csr_wstrb_o(g_s_csr_wstrb),
        .m_csr_wvalid_o(g_s_csr_wvalid),
        .m_csr_wready_i(g_s_csr_wready),
        .m_csr_bresp_i(g_s_csr_bresp),
        .m_csr_bvalid_i(g_s_csr_bvalid),
        .m_csr_bready_o(g_s_csr_bready),
        .m_csr_araddr_o(g_s_csr_araddr),
        .m_csr_arprot_o(g_s_csr_arprot),
        .m_csr_arvalid_o(g_s_csr_arvalid),
        .m_csr_arready_i(g_s_csr_arready),
        .m_csr_rdata_i(g_s_csr_rdata),
        .m_csr_rresp_i(g_s_csr_rresp),
        .m_csr_rvalid_i(g_s_csr_rvalid),
        .m_csr_rready_o(g_s_csr_rready),
        .m_ap_awid_o(g_s_ap_awid),
        .m_ap_awaddr_o(g_s_ap_awaddr),
        .m_ap_awlen_o(g_s_ap_awlen),
        .m_ap_awsize_o(g_s_ap_awsize),
        .m_ap_awburst_o(g_s_ap_awburst),
        .m_ap_awlock_o(g_s_ap_awlock),
        .m_ap_awcache_o(g_s_ap_awcache),
        .m_ap_awprot_o(g_s_ap_awprot),
        .m_ap_awvalid_o(g_s_ap_awvalid),
        .m_ap_awready_i(g_s_ap_awready),
        .m_ap_wdata_o(g_s_ap_wdata),
        .m_ap_wstrb_o(g_s_ap_wstrb),
        .m_ap_wlast_o(g_s_ap_wlast),
        .m_ap_wvalid_o(g_s_ap_wvalid),
        .m_ap_wready_i(g_s_ap_wready),
        .m_ap_bid_i(g_s_ap_bid),
        .m_ap_bresp_i(g_s_ap_bresp),
        .m_ap_bvalid_i(g_s_ap_bvalid),
        .m_ap_bready_o(g_s_ap_bready),
        .m_ap_arid_o(g_s_ap_arid),
        .m_ap_araddr_o(g_s_ap_araddr),
        .m_ap_arlen_o(g_s_ap_arlen),
        .m_ap_arsize_o(g_s_ap_arsize),
        .m_ap_arburst_o(g_s_ap_arburst),
        .m_ap_arlock_o(g_s_ap_arlock),
        .m_ap_arcache_o(g_s_ap_arcache),
        .m_ap_arprot_o(g_s_ap_arprot),
        .m_ap_arvalid_o(g_s_ap_arvalid),
        .m_ap_arready_i(g_s_ap_arready),
        .m_ap_rid_i(g_s_ap_rid),
        .m_ap_rdata_i(g_s_ap_rdata),
        .m_ap_rresp_i(g_s_ap_rresp),
        .m_ap_rlast_i(g_s_ap_rlast),
        .m_ap_rvalid_i(g_s_ap_rvalid),
        .m_ap_rready_o(g_s_ap_rready),
        .s_host_awid_i(h_awid),
        .s_host_awaddr_i(h_awaddr),
        .s_host_awlen_i(h_awlen),
        .s_host_awsize_i(h_awsize),
        .s_host_awburst_i(h_awburst),
        .s_host_awlock_i(h_awlock),
        .s_host_awcache_i(h_awcache),
        .s_host_awprot_i(h_awprot),
        .s_host_awvalid_i(h_awvalid),
        .s_host_awready_o(h_awready),
        .s_host_wdata_i(h_wdata),
        .s_host_wstrb_i(h_wstrb),
        .s_host_wlast_i(h_wlast),
        .s_host_wvalid_i(h_wvalid),
        .s_host_wready_o(h_wready),
        .s_host_bid_o(h_bid),
        .s_host_bresp_o(h_bresp),
        .s_host_bvalid_o(h_bvalid),
        .s_host_bready_i(h_bready),
        .s_host_arid_i(h_arid),
        .s_host_araddr_i(h_araddr),
        .s_host_arlen_i(h_arlen),
        .s_host_arsize_i(h_arsize),
        .s_host_arburst_i(h_arburst),
        .s_host_arlock_i(h_arlock),
        .s_host_arcache_i(h_arcache),
        .s_host_arprot_i(h_arprot),
        .s_host_arvalid_i(h_arvalid),
        .s_host_arready_o(h_arready),
        .s_host_rid_o(h_rid),
        .s_host_rdata_o(h_rdata),
        .s_host_rresp_o(h_rresp),
        .s_host_rlast_o(h_rlast),
        .s_host_rvalid_o(h_rvalid),
        .s_host_rready_i(h_rready),
        .m_axis_rq_tdata_o(m_axis_rq_tdata),
        .m_axis_rq_tkeep_o(m_axis_rq_tkeep),
        .m_axis_rq_tlast_o(m_axis_rq_tlast),
        .m_axis_rq_tuser_o(m_axis_rq_tuser),
        .m_axis_rq_tvalid_o(m_axis_rq_tvalid),
        .m_axis_rq_tready_i(m_axis_rq_tready),
        .s_axis_rc_tdata_i(s_axis_rc_tdata),
        .s_axis_rc_tkeep_i(s_axis_rc_tkeep),
        .s_axis_rc_tlast_i(s_axis_rc_tlast),
        .s_axis_rc_tuser_i(s_axis_rc_tuser),
        .s_axis_rc_tvalid_i(s_axis_rc_tvalid),
        .s_axis_rc_tready_o(s_axis_rc_tready),
        .cfg_max_read_req_i(cfg_max_read_req),
        .cfg_interrupt_msi_enable_i(cfg_interrupt_msi_enable),
        .cfg_interrupt_msi_sent_i(cfg_interrupt_msi_sent),
        .cfg_interrupt_msi_fail_i(cfg_interrupt_msi_fail),
        .cfg_interrupt_msi_int_o(cfg_interrupt_msi_int),
        .cfg_interrupt_int_o(cfg_interrupt_int),
        .cfg_interrupt_pending_o(cfg_interrupt_pending),
        .cfg_interrupt_sent_i(cfg_interrupt_sent),
        .irq_i(irq_w),
        .cfg_function_status_i(cfg_function_status),
        .pcie_cq_np_req_o(pcie_cq_np_req),
        .ur_count_o(ur_count),
        .cpl_timeouts_o(cpl_timeouts),
        .cpl_errors_o(cpl_errors),
        .msi_count_o(msi_count)
    );
endmodule
`default_nettype wire
