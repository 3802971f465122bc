// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// dma_fifo: the data mover's beat buffer: a synchronous first-word-fall-through FIFO.
// Contract: data_o is the oldest entry whenever !empty_o. empty_o and full_o come from the
// pointers alone (compares, no subtraction). push_i while full and pop_i while
// empty are the caller's bugs (asserted under GR_ASSERT); a push and a pop may share a cycle.
// flush_i empties it (a push in the same cycle is dropped).
module dma_fifo #(
    parameter Width = 64,   // bits per entry
    parameter Depth = 128   // entries, a power of two >= 2
) (
    input  wire                       clk_i,
    input  wire                       rst_i,   // synchronous, active high
    input  wire                       flush_i,
    input  wire                       push_i,
    input  wire [Width-1:0]           data_i,
    input  wire                       pop_i,
    output wire [Width-1:0]           data_o,
    output wire                       empty_o,
    output wire                       full_o
);
    localparam PtrBits = $clog2(Depth);

    if (Depth < 2 || (Depth & (Depth - 1)) != 0) begin : g_bad_depth
        `CMN_PARAM_ERROR("dma_fifo: Depth must be a power of two >= 2")
    end

    logic [Width-1:0] mem_q [0:Depth-1];
    logic [PtrBits:0] wr_q, rd_q;

    assign data_o = mem_q[rd_q[PtrBits-1:0]];
    assign empty_o = wr_q == rd_q;
    assign full_o = wr_q[PtrBits] != rd_q[PtrBits] && wr_q[PtrBits-1:0] == rd_q[PtrBits-1:0];

    always_ff @(posedge clk_i) begin
        if (rst_i || flush_i) begin
            wr_q <= {(PtrBits+1){1'b0}};
            rd_q <= {(PtrBits+1){1'b0}};
        end else begin
            if (push_i) wr_q <= wr_q + 1'b1;
            if (pop_i) rd_q <= rd_q + 1'b1;
        end
    end

    // Storage has no reset: entries are read only after they were written.
    always_ff @(posedge clk_i) begin
        if (push_i && !flush_i) mem_q[wr_q[PtrBits-1:0]] <= data_i;
    end

`ifdef GR_ASSERT
    always @(posedge clk_i) begin
        if (!rst_i && !flush_i && push_i && !pop_i && full_o)
            $error("dma_fifo %m: push while full");
        if (!rst_i && !flush_i && pop_i && empty_o)
            $error("dma_fifo %m: pop while empty");
    end
`endif
endmodule
`default_nettype wire
