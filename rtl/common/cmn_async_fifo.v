// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// cmn_async_fifo: a first-word-fall-through FIFO between two clock domains, after Cummings
// ("Simulation and Synthesis Techniques for Asynchronous FIFO Design", SNUG 2002, style #2):
// binary and Gray pointers of DepthLog2+1 bits per side, each Gray pointer carried into the
// other domain by a cmn_sync2, full and empty registered from the next pointer values.
//
// Contract:
// - Write side (wr_clk_i): an entry is taken on wr_valid_i && wr_ready_o. wr_ready_o is !full.
//   wr_almost_full_o says at most AfullFree entries are free (a producer that must decide
//   cycles ahead, such as a chip bus that cannot be stopped at once, stops on it).
// - Read side (rd_clk_i): rd_data_o is the oldest entry while rd_valid_o; it is popped on
//   rd_valid_i && rd_ready_i. rd_valid_o is !empty.
// - Both flags are pessimistic: full clears and empty clears two to three cycles of the other
//   clock after the pointer that frees them moved. Nothing is ever lost or duplicated.
// - Resets are synchronous to their own clock. Reset both sides together (each held for at
//   least three cycles of both clocks): resetting one side alone loses or repeats entries.
// - Storage is a register array read combinationally (distributed RAM on an FPGA); meant for
//   the small link buffers (DepthLog2 up to 8 or so).
// Assertions (GR_ASSERT): no write while full, no read while empty, each Gray pointer changes
// at most one bit per cycle of its clock.
module cmn_async_fifo #(
    parameter Width     = 32,  // bits per entry
    parameter DepthLog2 = 4,   // log2 of the entries, 2..12
    parameter AfullFree = 1    // wr_almost_full_o when at most this many entries are free
) (
    input  wire             wr_clk_i,
    input  wire             wr_rst_i,          // synchronous to wr_clk_i, active high
    input  wire [Width-1:0] wr_data_i,
    input  wire             wr_valid_i,
    output wire             wr_ready_o,
    output wire             wr_almost_full_o,

    input  wire             rd_clk_i,
    input  wire             rd_rst_i,          // synchronous to rd_clk_i, active high
    output wire [Width-1:0] rd_data_o,
    output wire             rd_valid_o,
    input  wire             rd_ready_i
);
    localparam integer Depth = 1 << DepthLog2;
    localparam integer PB = DepthLog2 + 1;    // pointer bits: one more to tell full from empty

    if (DepthLog2 < 2 || DepthLog2 > 12) begin : g_bad_depth
        `CMN_PARAM_ERROR("cmn_async_fifo: DepthLog2 must be 2..12")
    end
    if (AfullFree < 1 || AfullFree >= (1 << DepthLog2)) begin : g_bad_afull
        `CMN_PARAM_ERROR("cmn_async_fifo: AfullFree must be 1 .. 2**DepthLog2 - 1")
    end
    if (Width < 1) begin : g_bad_width
        `CMN_PARAM_ERROR("cmn_async_fifo: Width must be >= 1")
    end

    logic [Width-1:0] mem_q [0:Depth-1];

    // ---- write domain ---------------------------------------------------------------------
    logic [PB-1:0] wbin_q, wbin_d, wgray_q, wgray_d, wq2_rbin;
    logic          wfull_q, wfull_d, wafull_q, wafull_d;
    wire  [PB-1:0] wq2_rgray;                 // the read pointer, synchronized
    wire           wpush = wr_valid_i && !wfull_q;
    // Full: the write pointer's Gray code equals the read pointer's with its two top bits
    // inverted (Cummings, section 5.2).
    wire  [PB-1:0] wfull_cmp = {~wq2_rgray[PB-1:PB-2], wq2_rgray[PB-3:0]};

    // Almost full needs a distance, so the synchronized read pointer is turned back into
    // binary (an XOR chain, PB bits) for it alone; full keeps the plain Gray compare.
    integer gi;
    always_comb begin
        wq2_rbin[PB-1] = wq2_rgray[PB-1];
        for (gi = PB - 2; gi >= 0; gi = gi - 1) wq2_rbin[gi] = wq2_rbin[gi+1] ^ wq2_rgray[gi];
    end
    always_comb begin
        wbin_d = wbin_q + {{(PB-1){1'b0}}, wpush};
        wgray_d = (wbin_d >> 1) ^ wbin_d;
        wfull_d = (wgray_d == wfull_cmp);
        wafull_d = (wbin_d - wq2_rbin) >= PB'(Depth - AfullFree);
    end

    always_ff @(posedge wr_clk_i) begin
        if (wr_rst_i) begin
            wbin_q <= {PB{1'b0}};
            wgray_q <= {PB{1'b0}};
            wfull_q <= 1'b0;
            wafull_q <= 1'b0;
        end else begin
            wbin_q <= wbin_d;
            wgray_q <= wgray_d;
            wfull_q <= wfull_d;
            wafull_q <= wafull_d;
        end
    end

    // Storage has no reset: an entry is read only after it was written.
    always_ff @(posedge wr_clk_i) begin
        if (wpush && !wr_rst_i) mem_q[wbin_q[DepthLog2-1:0]] <= wr_data_i;
    end

    assign wr_ready_o = !wfull_q;
    assign wr_almost_full_o = wafull_q;

    // ---- read domain ----------------------------------------------------------------------
    logic [PB-1:0] rbin_q, rbin_d, rgray_q, rgray_d;
    logic          rempty_q, rempty_d;
    wire  [PB-1:0] rq2_wgray;                 // the write pointer, synchronized
    wire           rpop = rd_ready_i && !rempty_q;

    always_comb begin
        rbin_d = rbin_q + {{(PB-1){1'b0}}, rpop};
        rgray_d = (rbin_d >> 1) ^ rbin_d;
        rempty_d = (rgray_d == rq2_wgray);
    end

    always_ff @(posedge rd_clk_i) begin
        if (rd_rst_i) begin
            rbin_q <= {PB{1'b0}};
            rgray_q <= {PB{1'b0}};
            rempty_q <= 1'b1;
        end else begin
            rbin_q <= rbin_d;
            rgray_q <= rgray_d;
            rempty_q <= rempty_d;
        end
    end

    assign rd_data_o = mem_q[rbin_q[DepthLog2-1:0]];
    assign rd_valid_o = !rempty_q;

    // ---- crossings: only Gray pointers, straight from flops --------------------------------
    cmn_sync2 #(.Width(PB)) u_sync_rptr (.clk_i(wr_clk_i), .d_i(rgray_q), .q_o(wq2_rgray));
    cmn_sync2 #(.Width(PB)) u_sync_wptr (.clk_i(rd_clk_i), .d_i(wgray_q), .q_o(rq2_wgray));

`ifdef GR_ASSERT
    // A valid/ready stream may hold wr_valid_i while full and rd_ready_i while empty; what
    // must never happen is a pointer passing the other: the write side never holds more than
    // Depth entries over the read pointer it sees, the read side never reads past the write
    // pointer it sees.
    function automatic logic [PB-1:0] gray2bin(input logic [PB-1:0] g);
        integer i;
        gray2bin[PB-1] = g[PB-1];
        for (i = PB - 2; i >= 0; i = i - 1) gray2bin[i] = gray2bin[i+1] ^ g[i];
    endfunction
    function automatic integer ones(input logic [PB-1:0] v);
        integer i;
        ones = 0;
        for (i = 0; i < PB; i = i + 1) ones = ones + (v[i] ? 1 : 0);
    endfunction
    logic [PB-1:0] a_wgray_q, a_rgray_q;
    // Checks start once each side has been through a reset (before it, the pointers are
    // whatever the simulator starts them at).
    logic          a_wseen_q = 1'b0, a_rseen_q = 1'b0, a_wrst_q = 1'b0, a_rrst_q = 1'b0;
    wire  [PB-1:0] a_wcount = wbin_q - gray2bin(wq2_rgray);
    wire  [PB-1:0] a_rcount = gray2bin(rq2_wgray) - rbin_q;
    always @(posedge wr_clk_i) begin
        if (a_wseen_q && !wr_rst_i && a_wcount > Depth[PB-1:0])
            $error("cmn_async_fifo %m: write while full (%0d entries)", a_wcount);
        if (a_wseen_q && !wr_rst_i && ones(wgray_q ^ a_wgray_q) > 1)
            $error("cmn_async_fifo %m: write Gray pointer changed %0d bits in one cycle",
                   ones(wgray_q ^ a_wgray_q));
        a_wgray_q <= wgray_q;
        a_wrst_q <= a_wrst_q || wr_rst_i;
        a_wseen_q <= !wr_rst_i && a_wrst_q;
    end
    always @(posedge rd_clk_i) begin
        if (a_rseen_q && !rd_rst_i && a_rcount > Depth[PB-1:0])
            $error("cmn_async_fifo %m: read while empty (pointer passed the writer)");
        if (a_rseen_q && !rd_rst_i && ones(rgray_q ^ a_rgray_q) > 1)
            $error("cmn_async_fifo %m: read Gray pointer changed %0d bits in one cycle",
                   ones(rgray_q ^ a_rgray_q));
        a_rgray_q <= rgray_q;
        a_rrst_q <= a_rrst_q || rd_rst_i;
        a_rseen_q <= !rd_rst_i && a_rrst_q;
    end
`endif
endmodule
`default_nettype wire
