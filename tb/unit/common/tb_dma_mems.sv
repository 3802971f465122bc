// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_dma_mems: the DMA engine's two memories for its unit testbenches (tb_dma_mover, tb_dma_top),
// under Icarus 11 and Verilator 5.006 --timing: host memory (HostBytes at bus address HostBase,
// on the engine's m_host_* port) and VRAM (VramBytes at 0, on m_vram_*), each behind a
// tb_dma_axi_mem port model (random READY stalls, R gaps and response latencies, a write order
// of the slave's choosing, the master's AXI rules checked).
// The bytes: `mem`, host bytes first, then VRAM bytes; the testbench reads and writes them
// directly (u_mem.mem[i]) to set up and check. A W beat taken at a rising edge lands in mem at
// the falling edge after it; R data is read from mem when the beat is shown (out of range:
// the port answers DECERR, the data is don't care).
// Ports are named as the testbenches name their signals (h_* host, v_* VRAM), so they connect
// with `.*`. The counters are the port models' (violations, most reads outstanding, bursts).
module tb_dma_mems #(
    parameter [63:0]  HostBase     = 64'h1_0000_0000,
    parameter integer HostBytes    = 65536,
    parameter integer VramBytes    = 131072,
    parameter integer HostIdBits   = 4,
    parameter integer VramIdBits   = 2,
    parameter integer VramAddrBits = 32
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire [31:0]             seed_h,       // each port's random stream
    input  wire [31:0]             seed_v,
    input  wire [6:0]              stall_pct,    // percent of cycles a READY is low / R gaps
    input  wire [7:0]              max_lat,      // response latency 0..max_lat cycles
    input  wire [1:0]              order,        // write order (tb_dma_axi_mem order_i)
    input  wire [7:0]              stall_run,    // a READY stall lasts 1..stall_run cycles
    // host memory: the engine's m_host_*
    input  wire [HostIdBits-1:0]   h_awid,
    input  wire [63:0]             h_awaddr,
    input  wire [7:0]              h_awlen,
    input  wire [2:0]              h_awsize,
    input  wire [1:0]              h_awburst,
    input  wire                    h_awvalid,
    output wire                    h_awready,
    input  wire [63:0]             h_wdata,
    input  wire [7:0]              h_wstrb,
    input  wire                    h_wlast,
    input  wire                    h_wvalid,
    output wire                    h_wready,
    output wire [HostIdBits-1:0]   h_bid,
    output wire [1:0]              h_bresp,
    output wire                    h_bvalid,
    input  wire                    h_bready,
    input  wire [HostIdBits-1:0]   h_arid,
    input  wire [63:0]             h_araddr,
    input  wire [7:0]              h_arlen,
    input  wire [2:0]              h_arsize,
    input  wire [1:0]              h_arburst,
    input  wire                    h_arvalid,
    output wire                    h_arready,
    output wire [HostIdBits-1:0]   h_rid,
    output wire [63:0]             h_rdata,
    output wire [1:0]              h_rresp,
    output wire                    h_rlast,
    output wire                    h_rvalid,
    input  wire                    h_rready,
    // VRAM: the engine's m_vram_*
    input  wire [VramIdBits-1:0]   v_awid,
    input  wire [VramAddrBits-1:0] v_awaddr,
    input  wire [7:0]              v_awlen,
    input  wire [2:0]              v_awsize,
    input  wire [1:0]              v_awburst,
    input  wire                    v_awvalid,
    output wire                    v_awready,
    input  wire [63:0]             v_wdata,
    input  wire [7:0]              v_wstrb,
    input  wire                    v_wlast,
    input  wire                    v_wvalid,
    output wire                    v_wready,
    output wire [VramIdBits-1:0]   v_bid,
    output wire [1:0]              v_bresp,
    output wire                    v_bvalid,
    input  wire                    v_bready,
    input  wire [VramIdBits-1:0]   v_arid,
    input  wire [VramAddrBits-1:0] v_araddr,
    input  wire [7:0]              v_arlen,
    input  wire [2:0]              v_arsize,
    input  wire [1:0]              v_arburst,
    input  wire                    v_arvalid,
    output wire                    v_arready,
    output wire [VramIdBits-1:0]   v_rid,
    output wire [63:0]             v_rdata,
    output wire [1:0]              v_rresp,
    output wire                    v_rlast,
    output wire                    v_rvalid,
    input  wire                    v_rready,
    // what the port models saw
    output integer                 h_viol,       // AXI rule violations (first: u_host.first)
    output integer                 v_viol,
    output integer                 h_maxr,       // most read bursts outstanding at once
    output integer                 v_maxr,
    output integer                 h_aw_n,       // bursts taken
    output integer                 v_aw_n,
    output integer                 h_ar_n,
    output integer                 v_ar_n,
    output integer                 h_w_early,    // bursts whose first W beat came before their AW
    output integer                 v_w_early
);
    localparam integer TOTAL = HostBytes + VramBytes;

    logic [7:0]  mem [0:TOTAL-1];  // host bytes, then VRAM bytes
    wire         h_wr, v_wr;
    wire [63:0]  h_wr_addr, v_wr_addr, h_wr_data, v_wr_data, h_rd_addr, v_rd_addr;
    wire [7:0]   h_wr_strb, v_wr_strb;
    wire [63:0]  h_rd_data, v_rd_data;

    tb_dma_axi_mem #(.AddrBits(64), .IdBits(HostIdBits), .Base(HostBase), .Bytes(HostBytes)) u_host (
        .clk(clk), .rst(rst), .seed_i(seed_h), .stall_pct_i(stall_pct), .max_lat_i(max_lat),
        .order_i(order), .stall_run_i(stall_run), .w_early_o(h_w_early),
        .awid(h_awid), .awaddr(h_awaddr), .awlen(h_awlen), .awsize(h_awsize),
        .awburst(h_awburst), .awvalid(h_awvalid), .awready(h_awready), .wdata(h_wdata),
        .wstrb(h_wstrb), .wlast(h_wlast), .wvalid(h_wvalid), .wready(h_wready), .bid(h_bid),
        .bresp(h_bresp), .bvalid(h_bvalid), .bready(h_bready), .arid(h_arid),
        .araddr(h_araddr), .arlen(h_arlen), .arsize(h_arsize), .arburst(h_arburst),
        .arvalid(h_arvalid), .arready(h_arready), .rid(h_rid), .rdata(h_rdata),
        .rresp(h_rresp), .rlast(h_rlast), .rvalid(h_rvalid), .rready(h_rready),
        .wr_o(h_wr), .wr_addr_o(h_wr_addr), .wr_data_o(h_wr_data), .wr_strb_o(h_wr_strb),
        .rd_addr_o(h_rd_addr), .rd_data_i(h_rd_data), .violations_o(h_viol),
        .max_reads_o(h_maxr), .aw_n_o(h_aw_n), .ar_n_o(h_ar_n)
    );
    tb_dma_axi_mem #(.AddrBits(VramAddrBits), .IdBits(VramIdBits), .Base(64'h0), .Bytes(VramBytes)) u_vram (
        .clk(clk), .rst(rst), .seed_i(seed_v), .stall_pct_i(stall_pct), .max_lat_i(max_lat),
        .order_i(order), .stall_run_i(stall_run), .w_early_o(v_w_early),
        .awid(v_awid), .awaddr(v_awaddr), .awlen(v_awlen), .awsize(v_awsize),
        .awburst(v_awburst), .awvalid(v_awvalid), .awready(v_awready), .wdata(v_wdata),
        .wstrb(v_wstrb), .wlast(v_wlast), .wvalid(v_wvalid), .wready(v_wready), .bid(v_bid),
        .bresp(v_bresp), .bvalid(v_bvalid), .bready(v_bready), .arid(v_arid),
        .araddr(v_araddr), .arlen(v_arlen), .arsize(v_arsize), .arburst(v_arburst),
        .arvalid(v_arvalid), .arready(v_arready), .rid(v_rid), .rdata(v_rdata),
        .rresp(v_rresp), .rlast(v_rlast), .rvalid(v_rvalid), .rready(v_rready),
        .wr_o(v_wr), .wr_addr_o(v_wr_addr), .wr_data_o(v_wr_data), .wr_strb_o(v_wr_strb),
        .rd_addr_o(v_rd_addr), .rd_data_i(v_rd_data), .violations_o(v_viol),
        .max_reads_o(v_maxr), .aw_n_o(v_aw_n), .ar_n_o(v_ar_n)
    );

    integer mi;
    initial forever begin
        @(negedge clk);
        if (h_wr)
            for (mi = 0; mi < 8; mi = mi + 1)
                if (h_wr_strb[mi]) mem[32'(h_wr_addr - HostBase) + mi] = h_wr_data[mi*8 +: 8];
        if (v_wr)
            for (mi = 0; mi < 8; mi = mi + 1)
                if (v_wr_strb[mi]) mem[HostBytes + 32'(v_wr_addr) + mi] = v_wr_data[mi*8 +: 8];
    end
    wire [31:0] h_ri = 32'(h_rd_addr - HostBase) & 32'(HostBytes - 8);
    wire [31:0] v_ri = HostBytes + (32'(v_rd_addr) & 32'(VramBytes - 8));
    genvar gb;
    for (gb = 0; gb < 8; gb = gb + 1) begin : g_rd
        assign h_rd_data[gb*8 +: 8] = mem[h_ri + gb];
        assign v_rd_data[gb*8 +: 8] = mem[v_ri + gb];
    end

    // The high halves of VRAM beat addresses are zero (VramAddrBits wide on the port).
    wire unused_ok = ^{v_wr_addr[63:32], v_rd_addr[63:32]};
endmodule
`default_nettype wire
