// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// sdr_fifo: synchronous first-word-fall-through FIFO of Depth = 2**DepthLog2 words.
// Contract: push_i is honoured only while full_o is low, pop_i only while empty_o is low (a
// push into a full FIFO or a pop of an empty one is ignored); data_o is the oldest word while
// empty_o is low. count_o counts the words inside. A push and a pop in one cycle on a
// non-empty, non-full FIFO both happen. Reset empties it (the storage keeps its words).
module sdr_fifo #(
    parameter Width     = 8,   // bits per word
    parameter DepthLog2 = 2    // log2 of the depth in words, 1..8
) (
    input  wire                 clk_i,
    input  wire                 rst_i,     // synchronous, active high
    input  wire                 push_i,
    input  wire [Width-1:0]     data_i,
    input  wire                 pop_i,
    output wire [Width-1:0]     data_o,
    output wire                 empty_o,
    output wire                 full_o,
    output wire [DepthLog2:0]   count_o
);
    localparam integer DEPTH = 1 << DepthLog2;

    if (DepthLog2 < 1 || DepthLog2 > 8) begin : g_bad_depth
        `CMN_PARAM_ERROR("sdr_fifo: DepthLog2 must be 1..8")
    end

    logic [Width-1:0]     mem_q [0:DEPTH-1];
    logic [DepthLog2-1:0] rd_q, rd_d, wr_q, wr_d;
    logic [DepthLog2:0]   cnt_q, cnt_d;

    wire do_push = push_i && (cnt_q != DEPTH[DepthLog2:0]);
    wire do_pop  = pop_i && (cnt_q != {(DepthLog2+1){1'b0}});

    assign data_o  = mem_q[rd_q];
    assign empty_o = (cnt_q == {(DepthLog2+1){1'b0}});
    assign full_o  = (cnt_q == DEPTH[DepthLog2:0]);
    assign count_o = cnt_q;

    always_comb begin
        rd_d = rd_q;
        wr_d = wr_q;
        cnt_d = cnt_q;
        if (do_push) wr_d = wr_q + 1'b1;
        if (do_pop) rd_d = rd_q + 1'b1;
        if (do_push && !do_pop) cnt_d = cnt_q + 1'b1;
        if (do_pop && !do_push) cnt_d = cnt_q - 1'b1;
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            rd_q <= {DepthLog2{1'b0}};
            wr_q <= {DepthLog2{1'b0}};
            cnt_q <= {(DepthLog2+1){1'b0}};
        end else begin
            rd_q <= rd_d;
            wr_q <= wr_d;
            cnt_q <= cnt_d;
        end
        if (do_push) mem_q[wr_q] <= data_i;
    end
endmodule
`default_nettype wire
