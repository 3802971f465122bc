// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// bdma_axi_mem: a behavioural AXI4 slave memory for the DMA benchmark's Icarus testbench
// (bench/dma/bdma_tb.v). Not synthesizable and not a model of any real memory: it answers as
// fast as AXI allows, to measure the simulator, not the bus.
// Contract: `Words` 64-bit words from byte address `Base`; INCR bursts of full 8-byte beats
// (what the DMA engine issues); up to 8 reads and 8 writes queued; R beats back to back, one
// per cycle, in request order; WREADY only while a write address is queued (a slave may wait
// for AW); B one cycle after WLAST. An access outside [Base, Base + 8 * Words) or a burst other
// than INCR/8 bytes sets `error_o` (sticky) and is answered SLVERR. IDs are echoed.
module bdma_axi_mem #(
    parameter AddrBits = 64,
    parameter IdBits   = 4,
    parameter [63:0] Base = 64'h0,
    parameter Words    = 32768
) (
    input  wire                clk_i,
    input  wire                rst_i,
    output reg                 error_o,
    input  wire [IdBits-1:0]   awid_i,
    input  wire [AddrBits-1:0] awaddr_i,
    input  wire [7:0]          awlen_i,
    input  wire [2:0]          awsize_i,
    input  wire [1:0]          awburst_i,
    input  wire                awvalid_i,
    output wire                awready_o,
    input  wire [63:0]         wdata_i,
    input  wire [7:0]          wstrb_i,
    input  wire                wlast_i,
    input  wire                wvalid_i,
    output wire                wready_o,
    output wire [IdBits-1:0]   bid_o,
    output wire [1:0]          bresp_o,
    output wire                bvalid_o,
    input  wire                bready_i,
    input  wire [IdBits-1:0]   arid_i,
    input  wire [AddrBits-1:0] araddr_i,
    input  wire [7:0]          arlen_i,
    input  wire [2:0]          arsize_i,
    input  wire [1:0]          arburst_i,
    input  wire                arvalid_i,
    output wire                arready_o,
    output wire [IdBits-1:0]   rid_o,
    output wire [63:0]         rdata_o,
    output wire [1:0]          rresp_o,
    output wire                rlast_o,
    output wire                rvalid_o,
    input  wire                rready_i
);
    reg [63:0] mem [0:Words-1];

    // Read and write address queues (8 deep), B queue (8 deep).
    reg [AddrBits-1:0] ar_addr [0:7];
    reg [7:0]          ar_len  [0:7];
    reg [IdBits-1:0]   ar_id   [0:7];
    reg                ar_bad  [0:7];
    reg [3:0]          ar_wp, ar_rp;
    reg [7:0]          r_beat;
    reg [AddrBits-1:0] aw_addr [0:7];
    reg [IdBits-1:0]   aw_id   [0:7];
    reg                aw_bad  [0:7];
    reg [3:0]          aw_wp, aw_rp;
    reg [7:0]          w_beat;
    reg [IdBits-1:0]   b_id    [0:7];
    reg                b_bad   [0:7];
    reg [3:0]          b_wp, b_rp;

    wire ar_empty = ar_wp == ar_rp;
    wire aw_empty = aw_wp == aw_rp;
    wire b_empty  = b_wp == b_rp;
    assign arready_o = (ar_wp - ar_rp) < 4'd8;
    assign awready_o = (aw_wp - aw_rp) < 4'd8;
    assign wready_o  = !aw_empty && (b_wp - b_rp) < 4'd8;

    wire [AddrBits-1:0] r_addr = ar_addr[ar_rp[2:0]] + {{(AddrBits-11){1'b0}}, r_beat, 3'b000};
    wire [AddrBits-1:0] w_addr = aw_addr[aw_rp[2:0]] + {{(AddrBits-11){1'b0}}, w_beat, 3'b000};
    wire [AddrBits-1:0] r_off  = r_addr - Base[AddrBits-1:0];
    wire [AddrBits-1:0] w_off  = w_addr - Base[AddrBits-1:0];
    wire r_out = r_off >= 8 * Words;
    wire w_out = w_off >= 8 * Words;

    assign rvalid_o = !ar_empty;
    assign rid_o    = ar_id[ar_rp[2:0]];
    assign rdata_o  = (r_out || ar_bad[ar_rp[2:0]]) ? 64'h0 : mem[r_off[31:3]];
    assign rresp_o  = (r_out || ar_bad[ar_rp[2:0]]) ? 2'b10 : 2'b00;
    assign rlast_o  = r_beat == ar_len[ar_rp[2:0]];
    assign bvalid_o = !b_empty;
    assign bid_o    = b_id[b_rp[2:0]];
    assign bresp_o  = b_bad[b_rp[2:0]] ? 2'b10 : 2'b00;

    integer i;
    initial for (i = 0; i < Words; i = i + 1) mem[i] = 64'h0;  // bytes never written read 0

    always @(posedge clk_i) begin
        if (rst_i) begin
            ar_wp <= 4'd0; ar_rp <= 4'd0; r_beat <= 8'd0;
            aw_wp <= 4'd0; aw_rp <= 4'd0; w_beat <= 8'd0;
            b_wp <= 4'd0; b_rp <= 4'd0;
            error_o <= 1'b0;
        end else begin
            if (arvalid_i && arready_o) begin
                ar_addr[ar_wp[2:0]] <= araddr_i;
                ar_len[ar_wp[2:0]]  <= arlen_i;
                ar_id[ar_wp[2:0]]   <= arid_i;
                ar_bad[ar_wp[2:0]]  <= arsize_i != 3'd3 || arburst_i != 2'b01;
                ar_wp <= ar_wp + 4'd1;
            end
            if (rvalid_o && rready_i) begin
                if (r_out || ar_bad[ar_rp[2:0]]) error_o <= 1'b1;
                if (rlast_o) begin
                    r_beat <= 8'd0;
                    ar_rp <= ar_rp + 4'd1;
                end else begin
                    r_beat <= r_beat + 8'd1;
                end
            end
            if (awvalid_i && awready_o) begin
                aw_addr[aw_wp[2:0]] <= awaddr_i;
                aw_id[aw_wp[2:0]]   <= awid_i;
                aw_bad[aw_wp[2:0]]  <= awsize_i != 3'd3 || awburst_i != 2'b01 || awlen_i > 8'd255;
                aw_wp <= aw_wp + 4'd1;
            end
            if (wvalid_i && wready_o) begin
                if (w_out || aw_bad[aw_rp[2:0]]) begin
                    error_o <= 1'b1;
                end else begin
                    for (i = 0; i < 8; i = i + 1)
                        if (wstrb_i[i]) mem[w_off[31:3]][8*i +: 8] <= wdata_i[8*i +: 8];
                end
                if (wlast_i) begin
                    b_id[b_wp[2:0]]  <= aw_id[aw_rp[2:0]];
                    b_bad[b_wp[2:0]] <= w_out || aw_bad[aw_rp[2:0]];
                    b_wp <= b_wp + 4'd1;
                    w_beat <= 8'd0;
                    aw_rp <= aw_rp + 4'd1;
                end else begin
                    w_beat <= w_beat + 8'd1;
                end
            end
            if (bvalid_o && bready_i)
                b_rp <= b_rp + 4'd1;
        end
    end
endmodule
`default_nettype wire
