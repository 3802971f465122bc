// SPDX-License-Identifier: Apache-2.0
// board_ports.vh: the port list of every board simulation wrapper (board.v and the exact tops'
// board_<kind>.v), which the one harness driver (board_impl.h) binds the same way for every
// kind; board.v describes the ports. Included inside a module's port list:
//   module board_x (
//   `include "sim/board/board_ports.vh"
//   );
// Verilog-2001 has no interfaces or port-list inheritance, so a shared include is its one way
// to give several modules the same ports. The path is from the repository root, where every
// build runs.
    input  wire        clk_i,
    input  wire        chip_clk_i,
    input  wire        rst_i,
    input  wire [47:0] vram_bytes_i,
    input  wire        ft_mode600_i,
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
