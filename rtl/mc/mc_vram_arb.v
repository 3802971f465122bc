// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_vram_arb: joins Masters AXI4 masters (aperture, page walker, later the DMA engine) onto
// the one VRAM port.
// Contract: AW and AR are each granted round-robin; a granted read address stays on m_*
// unchanged until its handshake. Write addresses are taken from the masters into a two-entry
// queue that drives m_aw* (one cycle later at the earliest, one per cycle). The master's index
// is prepended to its ID (m_*id = {index, id}), so B and R find their way back and each master
// keeps AXI's per-ID ordering. W beats follow the order in which write addresses were taken (up
// to WOutstanding bursts taken and their W not yet through). Ports are flattened vectors,
// master i in slice i.
// AXI write order (IHI0022 A3.3.1), both ways: a master's W beats pass to m_w* from the cycle
// after its AW was taken, whether m_awready has come for it or not (a VRAM slave may hold
// AWREADY until it sees WVALID, or the whole burst); with two AWs queued, the next burst's W
// follows the last beat of the one before it even while that one's AW waits. As a slave the
// arbiter holds a master's WREADY until it has taken that master's AW (legal: a slave may wait
// for AWVALID), and takes AWs without looking at W, so a master that presents W first is
// served too.
module mc_vram_arb #(
    parameter Masters      = 2,
    parameter AddrBits     = 32,
    parameter DataBytes    = 8,
    parameter IdBits       = 2,   // ID width of each master
    parameter WOutstanding = 4,   // write bursts granted ahead of their data (power of two)
    parameter SelBits      = (Masters > 1) ? $clog2(Masters) : 1
) (
    input  wire                              clk_i,
    input  wire                              rst_i,  // synchronous, active high
    // slaves, one per master
    input  wire [Masters*IdBits-1:0]         s_awid_i,
    input  wire [Masters*AddrBits-1:0]       s_awaddr_i,
    input  wire [Masters*8-1:0]              s_awlen_i,
    input  wire [Masters*3-1:0]              s_awsize_i,
    input  wire [Masters*2-1:0]              s_awburst_i,
    input  wire [Masters*4-1:0]              s_awcache_i,
    input  wire [Masters*3-1:0]              s_awprot_i,
    input  wire [Masters-1:0]                s_awvalid_i,
    output logic [Masters-1:0]               s_awready_o,
    input  wire [Masters*DataBytes*8-1:0]    s_wdata_i,
    input  wire [Masters*DataBytes-1:0]      s_wstrb_i,
    input  wire [Masters-1:0]                s_wlast_i,
    input  wire [Masters-1:0]                s_wvalid_i,
    output logic [Masters-1:0]               s_wready_o,
    output wire [Masters*IdBits-1:0]         s_bid_o,
    output wire [Masters*2-1:0]              s_bresp_o,
    output logic [Masters-1:0]               s_bvalid_o,
    input  wire [Masters-1:0]                s_bready_i,
    input  wire [Masters*IdBits-1:0]         s_arid_i,
    input  wire [Masters*AddrBits-1:0]       s_araddr_i,
    input  wire [Masters*8-1:0]              s_arlen_i,
    input  wire [Masters*3-1:0]              s_arsize_i,
    input  wire [Masters*2-1:0]              s_arburst_i,
    input  wire [Masters*4-1:0]              s_arcache_i,
    input  wire [Masters*3-1:0]              s_arprot_i,
    input  wire [Masters-1:0]                s_arvalid_i,
    output logic [Masters-1:0]               s_arready_o,
    output wire [Masters*IdBits-1:0]         s_rid_o,
    output wire [Masters*DataBytes*8-1:0]    s_rdata_o,
    output wire [Masters*2-1:0]              s_rresp_o,
    output wire [Masters-1:0]                s_rlast_o,
    output logic [Masters-1:0]               s_rvalid_o,
    input  wire [Masters-1:0]                s_rready_i,
    // master toward VRAM
    output wire [SelBits+IdBits-1:0]         m_awid_o,
    output wire [AddrBits-1:0]               m_awaddr_o,
    output wire [7:0]                        m_awlen_o,
    output wire [2:0]                        m_awsize_o,
    output wire [1:0]                        m_awburst_o,
    output wire [3:0]                        m_awcache_o,
    output wire [2:0]                        m_awprot_o,
    output wire                              m_awvalid_o,
    input  wire                              m_awready_i,
    output wire [DataBytes*8-1:0]            m_wdata_o,
    output wire [DataBytes-1:0]              m_wstrb_o,
    output wire                              m_wlast_o,
    output wire                              m_wvalid_o,
    input  wire                              m_wready_i,
    input  wire [SelBits+IdBits-1:0]         m_bid_i,
    input  wire [1:0]                        m_bresp_i,
    input  wire                              m_bvalid_i,
    output wire                              m_bready_o,
    output wire [SelBits+IdBits-1:0]         m_arid_o,
    output wire [AddrBits-1:0]               m_araddr_o,
    output wire [7:0]                        m_arlen_o,
    output wire [2:0]                        m_arsize_o,
    output wire [1:0]                        m_arburst_o,
    output wire [3:0]                        m_arcache_o,
    output wire [2:0]                        m_arprot_o,
    output wire                              m_arvalid_o,
    input  wire                              m_arready_i,
    input  wire [SelBits+IdBits-1:0]         m_rid_i,
    input  wire [DataBytes*8-1:0]            m_rdata_i,
    input  wire [1:0]                        m_rresp_i,
    input  wire                              m_rlast_i,
    input  wire                              m_rvalid_i,
    output wire                              m_rready_o
);
    localparam WPtrBits = $clog2(WOutstanding);

    if (Masters < 2 || Masters > (1 << SelBits)) begin : g_bad_masters
        `CMN_PARAM_ERROR("mc_vram_arb: Masters must be >= 2 and fit SelBits")
    end
    if (WOutstanding < 2 || (WOutstanding & (WOutstanding - 1)) != 0) begin : g_bad_wout
        `CMN_PARAM_ERROR("mc_vram_arb: WOutstanding must be a power of two >= 2")
    end

    // ---- round-robin grants; for AR with hold: a presented address never changes before its
    // handshake
    logic [SelBits-1:0] aw_last_q, aw_last_d;
    logic [SelBits-1:0] ar_sel_q, ar_sel_d, ar_last_q, ar_last_d;
    logic               ar_hold_q, ar_hold_d;
    logic [SelBits-1:0] aw_pick, ar_pick;
    logic               aw_any, ar_any;
    integer             k;
    logic [SelBits:0]   cand;

    // The first requester after the last granted one, wrapping. (always @*: Icarus 11 cannot
    // take the variable's part-selects in an always_comb sensitivity list.)
    always @* begin
        aw_pick = aw_last_q;
        aw_any = 1'b0;
        ar_pick = ar_last_q;
        ar_any = 1'b0;
        for (k = Masters; k >= 1; k = k - 1) begin
            cand = {1'b0, aw_last_q} + k[SelBits:0];
            if (cand >= Masters[SelBits:0]) cand = cand - Masters[SelBits:0];
            if (s_awvalid_i[cand[SelBits-1:0]]) begin
                aw_pick = cand[SelBits-1:0];
                aw_any = 1'b1;
            end
            cand = {1'b0, ar_last_q} + k[SelBits:0];
            if (cand >= Masters[SelBits:0]) cand = cand - Masters[SelBits:0];
            if (s_arvalid_i[cand[SelBits-1:0]]) begin
                ar_pick = cand[SelBits-1:0];
                ar_any = 1'b1;
            end
        end
    end

    wire [SelBits-1:0] aw_g = aw_pick;
    wire [SelBits-1:0] ar_g = ar_hold_q ? ar_sel_q : ar_pick;

    // W routing: the masters of taken write bursts, in the order they were taken.
    logic [SelBits-1:0] wq_q [0:WOutstanding-1];
    logic [WPtrBits:0]  wq_wr_q, wq_rd_q;
    wire                wq_full = (wq_wr_q - wq_rd_q) == WOutstanding[WPtrBits:0];
    wire                wq_have = wq_wr_q != wq_rd_q;
    wire [SelBits-1:0]  w_g = wq_q[wq_rd_q[WPtrBits-1:0]];

    // The write address queue toward m_aw*: two entries of {master, ID, payload}.
    localparam AwBits = SelBits + IdBits + AddrBits + 8 + 3 + 2 + 4 + 3;
    logic [AwBits-1:0] awq_q [0:1];
    logic [1:0]        awq_wr_q, awq_rd_q;
    wire               awq_full = (awq_wr_q - awq_rd_q) == 2'd2;
    wire [AwBits-1:0]  awq_in = {aw_g, s_awid_i[aw_g*IdBits +: IdBits], s_awaddr_i[aw_g*AddrBits +: AddrBits],
                                 s_awlen_i[aw_g*8 +: 8], s_awsize_i[aw_g*3 +: 3], s_awburst_i[aw_g*2 +: 2],
                                 s_awcache_i[aw_g*4 +: 4], s_awprot_i[aw_g*3 +: 3]};
    wire               aw_take = aw_any && !awq_full && !wq_full;
    assign m_awvalid_o = awq_wr_q != awq_rd_q;
    assign {m_awid_o, m_awaddr_o, m_awlen_o, m_awsize_o, m_awburst_o, m_awcache_o, m_awprot_o} =
        awq_q[awq_rd_q[0]];
    wire aw_go = m_awvalid_o && m_awready_i;

    assign m_arvalid_o = ar_hold_q || ar_any;
    assign m_arid_o    = {ar_g, s_arid_i[ar_g*IdBits +: IdBits]};
    assign m_araddr_o  = s_araddr_i[ar_g*AddrBits +: AddrBits];
    assign m_arlen_o   = s_arlen_i[ar_g*8 +: 8];
    assign m_arsize_o  = s_arsize_i[ar_g*3 +: 3];
    assign m_arburst_o = s_arburst_i[ar_g*2 +: 2];
    assign m_arcache_o = s_arcache_i[ar_g*4 +: 4];
    assign m_arprot_o  = s_arprot_i[ar_g*3 +: 3];
    wire ar_go = m_arvalid_o && m_arready_i;

    assign m_wdata_o  = s_wdata_i[w_g*DataBytes*8 +: DataBytes*8];
    assign m_wstrb_o  = s_wstrb_i[w_g*DataBytes +: DataBytes];
    assign m_wlast_o  = s_wlast_i[w_g];
    assign m_wvalid_o = wq_have && s_wvalid_i[w_g];
    wire w_go = m_wvalid_o && m_wready_i;

    wire [SelBits-1:0] b_g = m_bid_i[IdBits +: SelBits];
    wire [SelBits-1:0] r_g = m_rid_i[IdBits +: SelBits];
    assign m_bready_o = s_bready_i[b_g];
    assign m_rready_o = s_rready_i[r_g];

    genvar gi;
    for (gi = 0; gi < Masters; gi = gi + 1) begin : g_resp
        assign s_bid_o[gi*IdBits +: IdBits] = m_bid_i[IdBits-1:0];
        assign s_bresp_o[gi*2 +: 2] = m_bresp_i;
        assign s_rid_o[gi*IdBits +: IdBits] = m_rid_i[IdBits-1:0];
        assign s_rdata_o[gi*DataBytes*8 +: DataBytes*8] = m_rdata_i;
        assign s_rresp_o[gi*2 +: 2] = m_rresp_i;
        assign s_rlast_o[gi] = m_rlast_i;
    end

    always_comb begin
        s_awready_o = {Masters{1'b0}};
        s_arready_o = {Masters{1'b0}};
        s_wready_o = {Masters{1'b0}};
        s_bvalid_o = {Masters{1'b0}};
        s_rvalid_o = {Masters{1'b0}};
        s_awready_o[aw_g] = aw_take;
        s_arready_o[ar_g] = m_arready_i && m_arvalid_o;
        s_wready_o[w_g] = m_wready_i && wq_have;
        s_bvalid_o[b_g] = m_bvalid_i;
        s_rvalid_o[r_g] = m_rvalid_i;
    end

    always_comb begin
        aw_last_d = aw_last_q;
        ar_sel_d = ar_sel_q;
        ar_hold_d = ar_hold_q;
        ar_last_d = ar_last_q;
        if (aw_take) aw_last_d = aw_g;
        if (ar_go) begin
            ar_hold_d = 1'b0;
            ar_last_d = ar_g;
        end else if (m_arvalid_o) begin
            ar_hold_d = 1'b1;
            ar_sel_d = ar_g;
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            awq_wr_q <= 2'd0;
            awq_rd_q <= 2'd0;
            aw_last_q <= {SelBits{1'b0}};
            ar_sel_q <= {SelBits{1'b0}};
            ar_hold_q <= 1'b0;
            ar_last_q <= {SelBits{1'b0}};
            wq_wr_q <= {(WPtrBits+1){1'b0}};
            wq_rd_q <= {(WPtrBits+1){1'b0}};
        end else begin
            aw_last_q <= aw_last_d;
            ar_sel_q <= ar_sel_d;
            ar_hold_q <= ar_hold_d;
            ar_last_q <= ar_last_d;
            if (aw_take) begin
                wq_q[wq_wr_q[WPtrBits-1:0]] <= aw_g;
                wq_wr_q <= wq_wr_q + 1'b1;
                awq_q[awq_wr_q[0]] <= awq_in;
                awq_wr_q <= awq_wr_q + 2'd1;
            end
            if (aw_go) awq_rd_q <= awq_rd_q + 2'd1;
            if (w_go && m_wlast_o) wq_rd_q <= wq_rd_q + 1'b1;
        end
    end
endmodule
`default_nettype wire
