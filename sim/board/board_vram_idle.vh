// SPDX-License-Identifier: Apache-2.0
// board_vram_idle.vh: the body lines of a board simulation wrapper whose top keeps its VRAM
// on the board (board_limesdr.v, board_ulx3s.v): board_ports.vh's m_vram_* outputs tied to an
// idle master, and its m_vram_* inputs and vram_bytes_i marked unused. Included in the module
// body after the port list; Verilog-2001 has no other way to share these lines between modules.
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
