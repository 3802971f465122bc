// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// cmn_sync2: two-flop synchronizer of Width bits into the clk_i domain.
// Contract: each bit is synchronized on its own, so a bus is safe only when at most one bit
// changes between two samples (a Gray-coded pointer) or when it is quasi-static (held for
// several clk_i cycles, sampled after a handshake). d_i comes from another clock domain (or a
// pin); q_o follows it two to three clk_i edges later. No reset: the flops settle to d_i
// within two cycles, and a reset would only add a path from another domain's reset tree.
// FPGA flows should keep both flops together (ASYNC_REG); the names end in _meta_q / _q so a
// constraint file can find them.
module cmn_sync2 #(
    parameter Width = 1   // bits, >= 1
) (
    input  wire             clk_i,
    input  wire [Width-1:0] d_i,
    output wire [Width-1:0] q_o
);
    if (Width < 1) begin : g_bad_width
        `CMN_PARAM_ERROR("cmn_sync2: Width must be >= 1")
    end

    logic [Width-1:0] sync_meta_q;
    logic [Width-1:0] sync_q;

    always_ff @(posedge clk_i) begin
        sync_meta_q <= d_i;
        sync_q <= sync_meta_q;
    end

    assign q_o = sync_q;
endmodule
`default_nettype wire
