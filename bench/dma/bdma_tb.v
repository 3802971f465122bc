// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// bdma_tb: the DMA benchmark's copy workload on gpu_core under Icarus Verilog, to compare the
// simulators' speed on the same design (bench/dma/README.md, "Simulation speed").
// Behavioural AXI memories (bdma_axi_mem) answer on m_host and m_vram; the testbench drives the
// CSR port as the host does: programs the ring and fence record, then runs `+iters=N` ring
// entries of one DMA buffer (COPY VRAM->VRAM 16 KiB, COPY host->VRAM 8 KiB, COPY VRAM->host
// 8 KiB, FILL VRAM 8 KiB, interrupt on completion), each submitted by a TAIL write and retired
// on its interrupt (IRQ_STATE read and acknowledged, fence record checked).
// Self-checking: every destination byte is compared at the end. Prints one line
//   bdma_tb: iters=N cycles=C setup_cycles=S PASS     (or FAIL: why)
// where C counts the cycles of the N entries (submission to retirement) only.
module bdma_tb;
    localparam [63:0] HOST_BASE = 64'h0000_0001_0000_0000;
    localparam [63:0] RING  = HOST_BASE + 64'h0000;   // 16 entries of 32 bytes
    localparam [63:0] FENCE = HOST_BASE + 64'h1000;   // fence record
    localparam [63:0] CMD   = HOST_BASE + 64'h2000;   // the DMA buffer
    localparam [63:0] HSRC  = HOST_BASE + 64'h4000;   // 8 KiB
    localparam [63:0] HDST  = HOST_BASE + 64'h8000;   // 8 KiB
    localparam [31:0] VSRC  = 32'h0001_0000;          // 16 KiB
    localparam [31:0] VDST  = 32'h0002_0000;          // 16 KiB
    localparam [31:0] VDST2 = 32'h0003_0000;          // 8 KiB
    localparam [31:0] VFILL = 32'h0004_0000;          // 8 KiB
    localparam [31:0] PATTERN = 32'hc0ff_ee11;
    localparam CMD_BYTES = 120;                       // 15 qwords
    // Registers (rtl/csr/REGISTERS.md, rtl/dma/README.md).
    localparam [15:0] R_ID_MAGIC = 16'h000, R_ID_CAPS = 16'h008;
    localparam [15:0] R_IRQ_STATE = 16'h040, R_IRQ_ENABLE = 16'h044;
    localparam [15:0] R_DMA_CTRL = 16'h300, R_DMA_STATUS = 16'h304;
    localparam [15:0] R_RING_BASE_LO = 16'h308, R_RING_BASE_HI = 16'h30c, R_RING_SIZE = 16'h310;
    localparam [15:0] R_RING_TAIL = 16'h318;
    localparam [15:0] R_FENCE_LO = 16'h320, R_FENCE_HI = 16'h324;
    localparam [15:0] R_PERF_BYTES_LO = 16'h364;
    localparam [31:0] IRQ_DMA_FENCE = 32'h4, IRQ_DMA_FAULT = 32'h10;

    reg clk = 1'b0, rst = 1'b1;
    always #5 clk = ~clk;
    reg [63:0] cycle = 64'd0;
    always @(posedge clk) cycle <= cycle + 64'd1;

    // CSR master (AXI4-Lite), ready on B and R at all times.
    reg  [15:0] csr_awaddr = 16'h0, csr_araddr = 16'h0;
    reg         csr_awvalid = 1'b0, csr_wvalid = 1'b0, csr_arvalid = 1'b0;
    reg  [31:0] csr_wdata = 32'h0;
    wire        csr_awready, csr_wready, csr_bvalid, csr_arready, csr_rvalid;
    wire [1:0]  csr_bresp, csr_rresp;
    wire [31:0] csr_rdata;
    wire        irq;

    wire [3:0]  h_awid, h_arid, h_bid, h_rid, v_awid, v_arid, v_bid, v_rid;
    wire [63:0] h_awaddr, h_araddr, h_wdata, h_rdata, v_wdata, v_rdata;
    wire [31:0] v_awaddr, v_araddr;
    wire [7:0]  h_awlen, h_arlen, h_wstrb, v_awlen, v_arlen, v_wstrb;
    wire [2:0]  h_awsize, h_arsize, v_awsize, v_arsize;
    wire [1:0]  h_awburst, h_arburst, h_bresp, h_rresp, v_awburst, v_arburst, v_bresp, v_rresp;
    wire        h_awvalid, h_awready, h_wlast, h_wvalid, h_wready, h_bvalid, h_bready;
    wire        h_arvalid, h_arready, h_rlast, h_rvalid, h_rready;
    wire        v_awvalid, v_awready, v_wlast, v_wvalid, v_wready, v_bvalid, v_bready;
    wire        v_arvalid, v_arready, v_rlast, v_rvalid, v_rready;
    wire        host_error, vram_error;

    gpu_core u_core (
        .clk_i(clk), .rst_i(rst),
        .s_csr_awaddr_i(csr_awaddr), .s_csr_awprot_i(3'b000), .s_csr_awvalid_i(csr_awvalid),
        .s_csr_awready_o(csr_awready), .s_csr_wdata_i(csr_wdata), .s_csr_wstrb_i(4'hf),
        .s_csr_wvalid_i(csr_wvalid), .s_csr_wready_o(csr_wready), .s_csr_bresp_o(csr_bresp),
        .s_csr_bvalid_o(csr_bvalid), .s_csr_bready_i(1'b1), .s_csr_araddr_i(csr_araddr),
        .s_csr_arprot_i(3'b000), .s_csr_arvalid_i(csr_arvalid), .s_csr_arready_o(csr_arready),
        .s_csr_rdata_o(csr_rdata), .s_csr_rresp_o(csr_rresp), .s_csr_rvalid_o(csr_rvalid),
        .s_csr_rready_i(1'b1),
        // BAR1 unused
        .s_ap_awid_i(4'h0), .s_ap_awaddr_i(28'h0), .s_ap_awlen_i(8'h0), .s_ap_awsize_i(3'd3),
        .s_ap_awburst_i(2'b01), .s_ap_awlock_i(1'b0), .s_ap_awcache_i(4'h0), .s_ap_awprot_i(3'b000),
        .s_ap_awvalid_i(1'b0), .s_ap_awready_o(), .s_ap_wdata_i(64'h0), .s_ap_wstrb_i(8'h0),
        .s_ap_wlast_i(1'b0), .s_ap_wvalid_i(1'b0), .s_ap_wready_o(), .s_ap_bid_o(), .s_ap_bresp_o(),
        .s_ap_bvalid_o(), .s_ap_bready_i(1'b1), .s_ap_arid_i(4'h0), .s_ap_araddr_i(28'h0),
        .s_ap_arlen_i(8'h0), .s_ap_arsize_i(3'd3), .s_ap_arburst_i(2'b01), .s_ap_arlock_i(1'b0),
        .s_ap_arcache_i(4'h0), .s_ap_arprot_i(3'b000), .s_ap_arvalid_i(1'b0), .s_ap_arready_o(),
        .s_ap_rid_o(), .s_ap_rdata_o(), .s_ap_rresp_o(), .s_ap_rlast_o(), .s_ap_rvalid_o(),
        .s_ap_rready_i(1'b1),
        // host memory
        .m_host_awid_o(h_awid), .m_host_awaddr_o(h_awaddr), .m_host_awlen_o(h_awlen),
        .m_host_awsize_o(h_awsize), .m_host_awburst_o(h_awburst), .m_host_awlock_o(),
        .m_host_awcache_o(), .m_host_awprot_o(), .m_host_awvalid_o(h_awvalid),
        .m_host_awready_i(h_awready), .m_host_wdata_o(h_wdata), .m_host_wstrb_o(h_wstrb),
        .m_host_wlast_o(h_wlast), .m_host_wvalid_o(h_wvalid), .m_host_wready_i(h_wready),
        .m_host_bid_i(h_bid), .m_host_bresp_i(h_bresp), .m_host_bvalid_i(h_bvalid),
        .m_host_bready_o(h_bready), .m_host_arid_o(h_arid), .m_host_araddr_o(h_araddr),
        .m_host_arlen_o(h_arlen), .m_host_arsize_o(h_arsize), .m_host_arburst_o(h_arburst),
        .m_host_arlock_o(), .m_host_arcache_o(), .m_host_arprot_o(), .m_host_arvalid_o(h_arvalid),
        .m_host_arready_i(h_arready), .m_host_rid_i(h_rid), .m_host_rdata_i(h_rdata),
        .m_host_rresp_i(h_rresp), .m_host_rlast_i(h_rlast), .m_host_rvalid_i(h_rvalid),
        .m_host_rready_o(h_rready),
        // VRAM
        .m_vram_awid_o(v_awid), .m_vram_awaddr_o(v_awaddr), .m_vram_awlen_o(v_awlen),
        .m_vram_awsize_o(v_awsize), .m_vram_awburst_o(v_awburst), .m_vram_awlock_o(),
        .m_vram_awcache_o(), .m_vram_awprot_o(), .m_vram_awvalid_o(v_awvalid),
        .m_vram_awready_i(v_awready), .m_vram_wdata_o(v_wdata), .m_vram_wstrb_o(v_wstrb),
        .m_vram_wlast_o(v_wlast), .m_vram_wvalid_o(v_wvalid), .m_vram_wready_i(v_wready),
        .m_vram_bid_i(v_bid), .m_vram_bresp_i(v_bresp), .m_vram_bvalid_i(v_bvalid),
        .m_vram_bready_o(v_bready), .m_vram_arid_o(v_arid), .m_vram_araddr_o(v_araddr),
        .m_vram_arlen_o(v_arlen), .m_vram_arsize_o(v_arsize), .m_vram_arburst_o(v_arburst),
        .m_vram_arlock_o(), .m_vram_arcache_o(), .m_vram_arprot_o(), .m_vram_arvalid_o(v_arvalid),
        .m_vram_arready_i(v_arready), .m_vram_rid_i(v_rid), .m_vram_rdata_i(v_rdata),
        .m_vram_rresp_i(v_rresp), .m_vram_rlast_i(v_rlast), .m_vram_rvalid_i(v_rvalid),
        .m_vram_rready_o(v_rready),
        .irq_o(irq)
    );

    bdma_axi_mem #(.AddrBits(64), .Base(HOST_BASE), .Words(65536)) u_host (
        .clk_i(clk), .rst_i(rst), .error_o(host_error),
        .awid_i(h_awid), .awaddr_i(h_awaddr), .awlen_i(h_awlen), .awsize_i(h_awsize),
        .awburst_i(h_awburst), .awvalid_i(h_awvalid), .awready_o(h_awready),
        .wdata_i(h_wdata), .wstrb_i(h_wstrb), .wlast_i(h_wlast), .wvalid_i(h_wvalid),
        .wready_o(h_wready), .bid_o(h_bid), .bresp_o(h_bresp), .bvalid_o(h_bvalid),
        .bready_i(h_bready), .arid_i(h_arid), .araddr_i(h_araddr), .arlen_i(h_arlen),
        .arsize_i(h_arsize), .arburst_i(h_arburst), .arvalid_i(h_arvalid), .arready_o(h_arready),
        .rid_o(h_rid), .rdata_o(h_rdata), .rresp_o(h_rresp), .rlast_o(h_rlast),
        .rvalid_o(h_rvalid), .rready_i(h_rready));

    bdma_axi_mem #(.AddrBits(32), .Base(64'h0), .Words(65536)) u_vram (
        .clk_i(clk), .rst_i(rst), .error_o(vram_error),
        .awid_i(v_awid), .awaddr_i(v_awaddr), .awlen_i(v_awlen), .awsize_i(v_awsize),
        .awburst_i(v_awburst), .awvalid_i(v_awvalid), .awready_o(v_awready),
        .wdata_i(v_wdata), .wstrb_i(v_wstrb), .wlast_i(v_wlast), .wvalid_i(v_wvalid),
        .wready_o(v_wready), .bid_o(v_bid), .bresp_o(v_bresp), .bvalid_o(v_bvalid),
        .bready_i(v_bready), .arid_i(v_arid), .araddr_i(v_araddr), .arlen_i(v_arlen),
        .arsize_i(v_arsize), .arburst_i(v_arburst), .arvalid_i(v_arvalid), .arready_o(v_arready),
        .rid_o(v_rid), .rdata_o(v_rdata), .rresp_o(v_rresp), .rlast_o(v_rlast),
        .rvalid_o(v_rvalid), .rready_i(v_rready));

    // ---- the host side ------------------------------------------------------------------------
    integer failures = 0;

    task fail(input [8*64-1:0] why);
        begin
            if (failures == 0) $display("bdma_tb: FAIL: %0s (cycle %0d)", why, cycle);
            failures = failures + 1;
        end
    endtask

    // Handshakes are taken at the rising edge with the values from before it.
    task csr_write(input [15:0] addr, input [31:0] data);
        reg aw_done, w_done;
        begin
            csr_awaddr <= addr; csr_wdata <= data; csr_awvalid <= 1'b1; csr_wvalid <= 1'b1;
            aw_done = 1'b0; w_done = 1'b0;
            while (!(aw_done && w_done)) begin
                @(posedge clk);
                if (csr_awvalid && csr_awready) begin aw_done = 1'b1; csr_awvalid <= 1'b0; end
                if (csr_wvalid && csr_wready) begin w_done = 1'b1; csr_wvalid <= 1'b0; end
            end
            @(posedge clk);
            while (!csr_bvalid) @(posedge clk);
            if (csr_bresp != 2'b00) fail("CSR write error response");
        end
    endtask

    task csr_read(input [15:0] addr, output [31:0] data);
        begin
            csr_araddr <= addr; csr_arvalid <= 1'b1;
            @(posedge clk);
            while (!csr_arready) @(posedge clk);
            csr_arvalid <= 1'b0;
            @(posedge clk);
            while (!csr_rvalid) @(posedge clk);
            data = csr_rdata;
            if (csr_rresp != 2'b00) fail("CSR read error response");
        end
    endtask

    function [63:0] src_word(input integer i, input [63:0] salt);
        src_word = ({32'h0, i} * 64'h9e37_79b9_7f4a_7c15) ^ salt;
    endfunction

    task host_put(input [63:0] addr, input [63:0] value);
        u_host.mem[(addr - HOST_BASE) >> 3] = value;
    endtask

    task ring_entry(input integer index, input [31:0] fence_id);
        begin
            host_put(RING + 32 * index + 0, CMD);
            host_put(RING + 32 * index + 8, {fence_id, CMD_BYTES[31:0]});
            host_put(RING + 32 * index + 16, 64'h0);
            host_put(RING + 32 * index + 24, 64'h3);   // IRQ on completion, PRIV (physical spaces)
        end
    endtask

    integer iters, it, i, k, timeout;
    reg [31:0] v;
    reg [63:0] t0, t1, got, want;

    initial begin
        if (!$value$plusargs("iters=%d", iters)) iters = 4;
        // Source data, the DMA buffer.
        for (i = 0; i < 2048; i = i + 1) u_vram.mem[(VSRC >> 3) + i] = src_word(i, 64'h1111);
        for (i = 0; i < 1024; i = i + 1) u_host.mem[((HSRC - HOST_BASE) >> 3) + i] = src_word(i, 64'h2222);
        host_put(CMD + 0,   64'h0000_0000_0000_0501);  // COPY VRAM -> VRAM
        host_put(CMD + 8,   {32'h0, VSRC});
        host_put(CMD + 16,  {32'h0, VDST});
        host_put(CMD + 24,  64'h4000);
        host_put(CMD + 32,  64'h0000_0000_0000_0601);  // COPY host -> VRAM
        host_put(CMD + 40,  HSRC);
        host_put(CMD + 48,  {32'h0, VDST2});
        host_put(CMD + 56,  64'h2000);
        host_put(CMD + 64,  64'h0000_0000_0000_0901);  // COPY VRAM -> host
        host_put(CMD + 72,  {32'h0, VSRC});
        host_put(CMD + 80,  HDST);
        host_put(CMD + 88,  64'h2000);
        host_put(CMD + 96,  {PATTERN, 32'h0000_0402}); // FILL VRAM
        host_put(CMD + 104, {32'h0, VFILL});
        host_put(CMD + 112, 64'h2000);

        repeat (8) @(posedge clk);
        rst <= 1'b0;
        @(posedge clk);
        csr_read(R_ID_MAGIC, v);
        if (v != 32'h4750_5552) fail("ID_MAGIC");
        csr_read(R_ID_CAPS, v);
        if (!v[1]) fail("ID_CAPS.DMA is 0: no DMA engine in this build");
        csr_write(R_RING_BASE_LO, RING[31:0]);
        csr_write(R_RING_BASE_HI, RING[63:32]);
        csr_write(R_RING_SIZE, 32'd4);
        csr_write(R_FENCE_LO, FENCE[31:0]);
        csr_write(R_FENCE_HI, FENCE[63:32]);
        csr_write(R_IRQ_ENABLE, IRQ_DMA_FENCE | IRQ_DMA_FAULT);
        csr_write(R_DMA_CTRL, 32'h1);

        t0 = cycle;
        for (it = 0; it < iters && failures == 0; it = it + 1) begin
            ring_entry(it % 16, it + 1);
            csr_write(R_RING_TAIL, (it + 1) % 16);
            timeout = 0;
            while (!irq && timeout < 200000) begin
                @(posedge clk);
                timeout = timeout + 1;
            end
            if (!irq) fail("no interrupt");
            csr_read(R_IRQ_STATE, v);
            if (v & IRQ_DMA_FAULT) fail("DMA fault");
            csr_write(R_IRQ_STATE, v);
            if (u_host.mem[(FENCE - HOST_BASE) >> 3] != it + 1) fail("fence record");
        end
        t1 = cycle;

        // Every destination byte.
        for (i = 0; i < 2048; i = i + 1)
            if (u_vram.mem[(VDST >> 3) + i] != src_word(i, 64'h1111)) fail("VRAM->VRAM copy");
        for (i = 0; i < 1024; i = i + 1) begin
            if (u_vram.mem[(VDST2 >> 3) + i] != src_word(i, 64'h2222)) fail("host->VRAM copy");
            if (u_host.mem[((HDST - HOST_BASE) >> 3) + i] != src_word(i, 64'h1111)) fail("VRAM->host copy");
            if (u_vram.mem[(VFILL >> 3) + i] != {PATTERN, PATTERN}) fail("FILL");
        end
        // The qwords just past each destination are untouched.
        if (u_vram.mem[(VDST >> 3) + 2048] != 64'h0 || u_vram.mem[(VDST2 >> 3) + 1024] != 64'h0 ||
            u_host.mem[((HDST - HOST_BASE) >> 3) + 1024] != 64'h0 || u_vram.mem[(VFILL >> 3) + 1024] != 64'h0)
            fail("a write past a destination");
        csr_read(R_PERF_BYTES_LO, v);
        if (v != iters * (32'h4000 + 32'h2000 * 3)) fail("DMA_PERF_BYTES");
        if (host_error || vram_error) fail("a bus access outside the memories");
        if (failures == 0)
            $display("bdma_tb: iters=%0d cycles=%0d setup_cycles=%0d PASS", iters, t1 - t0, t0);
        $finish;
    end
endmodule
`default_nettype wire
