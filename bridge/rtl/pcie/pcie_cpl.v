// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// pcie_cpl: the completer of the PCIe shell. It takes memory requests from the UltraScale+ PCIe4
// hard IP's completer request stream (CQ, 64-bit, DWORD-aligned, no straddle), executes them on
// gpu_core's BAR0 (AXI4-Lite) and BAR1 (AXI4) slaves and answers reads on the completer
// completion stream (CC).
// Contract:
//   - CQ descriptor (beats 0 and 1): DW0 {address[31:2], AT}, DW1 address[63:32], DW2 {requester
//     ID, request type [14:11], DWORD count [10:0]}, DW3 {attr [30:28], TC [27:25], BAR aperture
//     [24:19], BAR ID [18:16], target function [15:8], tag [7:0]}; first/last BE in tuser[7:0],
//     discontinue in tuser[41]. Payload from beat 2, DWORD 0 in the low half.
//   - One request at a time. A memory write (type 0001) to BAR ID 0 or 1 whose aperture is
//     CsrAddrBits or ApAddrBits bits, with at most MaxPayloadBytes of payload, is stored whole
//     first and applied only if no beat carried discontinue (a poisoned or truncated write
//     changes nothing): BAR0 as one AXI4-Lite write per DWORD with WSTRB = its byte enables
//     (DWORDs with none are skipped), BAR1 as one INCR burst of 8-byte beats with the byte
//     enables as WSTRB. Write errors (posted) are dropped; csr_wr_done_o pulses after a BAR0
//     write's last B.
//   - A memory read (type 0000) to BAR0 or BAR1 is answered by completions (CplD) of at most
//     the negotiated Max_Payload_Size (cfg_max_payload_i, capped at MaxPayloadBytes), split only
//     at Max_Payload_Size-aligned addresses (which are RCB-aligned), each with Byte Count = the
//     bytes still to send and Lower Address = address[6:0] of its first byte (the first from the
//     first BE). Each completion's data is read before its descriptor goes out: BAR0 one
//     AXI4-Lite read per DWORD (a DWORD with no byte enabled, and a zero-length read, is not
//     read and returns 0, so a read never has side effects on registers it did not name), BAR1
//     one INCR burst per completion. An AXI error answers that completion with status UR
//     (DECERR) or CA (SLVERR) and no data, and ends the request.
//   - Anything else that is non-posted (I/O, atomics, locked reads, a read to another BAR or with
//     a BAR aperture that does not match, a request carrying discontinue) is answered with an
//     Unsupported Request completion; posted requests that are not executed (messages, writes
//     to other BARs, malformed writes) are dropped. Completer ID is left to the hard IP
//     (completer_id_enable 0), requester ID, tag, TC and attributes are echoed.
//   - CC descriptor: DW0 {byte count [28:16], AT [9:8], lower address [6:0]}, DW1 {requester ID,
//     poisoned [14] = 0, status [13:11], DWORD count [10:0]}, DW2 {attr, TC, completer ID
//     enable = 0, tag}; tuser 0 (no discontinue, no parity).
module pcie_cpl #(
    parameter CsrAddrBits     = 16,   // BAR0 size, log2 bytes
    parameter ApAddrBits      = 28,   // BAR1 size, log2 bytes
    parameter IdBits          = 4,
    parameter MaxPayloadBytes = 256   // largest Max_Payload_Size supported: 128..1024
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    // completer request (CQ)
    input  wire [63:0]             s_axis_cq_tdata_i,
    input  wire [1:0]              s_axis_cq_tkeep_i,
    input  wire                    s_axis_cq_tlast_i,
    input  wire [87:0]             s_axis_cq_tuser_i,
    input  wire                    s_axis_cq_tvalid_i,
    output wire                    s_axis_cq_tready_o,
    // completer completion (CC)
    output wire [63:0]             m_axis_cc_tdata_o,
    output wire [1:0]              m_axis_cc_tkeep_o,
    output wire                    m_axis_cc_tlast_o,
    output wire [32:0]             m_axis_cc_tuser_o,
    output wire                    m_axis_cc_tvalid_o,
    input  wire                    m_axis_cc_tready_i,
    input  wire [1:0]              cfg_max_payload_i,
    // BAR0: AXI4-Lite master to gpu_core's s_csr
    output wire [CsrAddrBits-1:0]  m_csr_awaddr_o,
    output wire [2:0]              m_csr_awprot_o,
    output wire                    m_csr_awvalid_o,
    input  wire                    m_csr_awready_i,
    output wire [31:0]             m_csr_wdata_o,
    output wire [3:0]              m_csr_wstrb_o,
    output wire                    m_csr_wvalid_o,
    input  wire                    m_csr_wready_i,
    input  wire [1:0]              m_csr_bresp_i,
    input  wire                    m_csr_bvalid_i,
    output wire                    m_csr_bready_o,
    output wire [CsrAddrBits-1:0]  m_csr_araddr_o,
    output wire [2:0]              m_csr_arprot_o,
    output wire                    m_csr_arvalid_o,
    input  wire                    m_csr_arready_i,
    input  wire [31:0]             m_csr_rdata_i,
    input  wire [1:0]              m_csr_rresp_i,
    input  wire                    m_csr_rvalid_i,
    output wire                    m_csr_rready_o,
    // BAR1: AXI4 master to gpu_core's s_ap, 8-byte data
    output wire [IdBits-1:0]       m_ap_awid_o,
    output wire [ApAddrBits-1:0]   m_ap_awaddr_o,
    output wire [7:0]              m_ap_awlen_o,
    output wire [2:0]              m_ap_awsize_o,
    output wire [1:0]              m_ap_awburst_o,
    output wire                    m_ap_awlock_o,
    output wire [3:0]              m_ap_awcache_o,
    output wire [2:0]              m_ap_awprot_o,
    output wire                    m_ap_awvalid_o,
    input  wire                    m_ap_awready_i,
    output wire [63:0]             m_ap_wdata_o,
    output wire [7:0]              m_ap_wstrb_o,
    output wire                    m_ap_wlast_o,
    output wire                    m_ap_wvalid_o,
    input  wire                    m_ap_wready_i,
    input  wire [IdBits-1:0]       m_ap_bid_i,
    input  wire [1:0]              m_ap_bresp_i,
    input  wire                    m_ap_bvalid_i,
    output wire                    m_ap_bready_o,
    output wire [IdBits-1:0]       m_ap_arid_o,
    output wire [ApAddrBits-1:0]   m_ap_araddr_o,
    output wire [7:0]              m_ap_arlen_o,
    output wire [2:0]              m_ap_arsize_o,
    output wire [1:0]              m_ap_arburst_o,
    output wire                    m_ap_arlock_o,
    output wire [3:0]              m_ap_arcache_o,
    output wire [2:0]              m_ap_arprot_o,
    output wire                    m_ap_arvalid_o,
    input  wire                    m_ap_arready_i,
    input  wire [IdBits-1:0]       m_ap_rid_i,
    input  wire [63:0]             m_ap_rdata_i,
    input  wire [1:0]              m_ap_rresp_i,
    input  wire                    m_ap_rlast_i,
    input  wire                    m_ap_rvalid_i,
    output wire                    m_ap_rready_o,
    output wire                    csr_wr_done_o,   // one cycle after a BAR0 write request
    output wire                    ur_o             // one cycle per UR completion sent
);
    localparam integer Depth = MaxPayloadBytes / 4;                 // DWORDs
    localparam integer BW = (CsrAddrBits > ApAddrBits) ? CsrAddrBits : ApAddrBits;
    localparam integer IW = (Depth <= 32) ? 5 : (Depth <= 64) ? 6 : (Depth <= 128) ? 7 : 8;
    localparam [5:0]  CsrAper = CsrAddrBits;
    localparam [5:0]  ApAper  = ApAddrBits;
    localparam [1:0]  MpsCap  = (MaxPayloadBytes >= 1024) ? 2'd3 : (MaxPayloadBytes >= 512) ? 2'd2 :
                                (MaxPayloadBytes >= 256) ? 2'd1 : 2'd0;
    localparam [10:0] DepthDw = 11'd32 << MpsCap;

    generate
        if (MaxPayloadBytes != 128 && MaxPayloadBytes != 256 && MaxPayloadBytes != 512 &&
            MaxPayloadBytes != 1024) begin : g_bad_mps
            `CMN_PARAM_ERROR("pcie_cpl: MaxPayloadBytes must be 128, 256, 512 or 1024")
        end
        if (CsrAddrBits < 12 || ApAddrBits < 13 || CsrAddrBits > 32 || ApAddrBits > 32) begin : g_bad_bar
            `CMN_PARAM_ERROR("pcie_cpl: BAR sizes must be 4 KiB to 4 GiB")
        end
    endgenerate

    localparam [4:0] StIdle = 5'd0, StDesc = 5'd1, StDecide = 5'd2, StWFill = 5'd3,
                     StDrain = 5'd4, StW0 = 5'd5, StW0B = 5'd6, StW1 = 5'd7, StW1B = 5'd8,
                     StRChunk = 5'd9, StR0A = 5'd10, StR0R = 5'd11, StR1A = 5'd12,
                     StR1R = 5'd13, StCc = 5'd14;
    localparam [2:0] CPL_SC = 3'b000, CPL_UR = 3'b001, CPL_CA = 3'b100;

    logic [4:0]      st_q;
    logic [BW-1:2]   off_q;                 // request DWORD address inside its BAR
    logic [1:0]      at_q;
    logic [3:0]      fbe_q, lbe_q;
    logic            disc_q;
    logic [10:0]     len_q;                 // DWORD count field (0 = 1024)
    logic [3:0]      type_q;
    logic [15:0]     rid_q;
    logic [7:0]      tag_q;
    logic [2:0]      bar_q, tc_q, attr_q;
    logic [5:0]      aper_q;
    logic            last_q;                // the descriptor's second beat was the last
    logic [10:0]     d_q;                   // DWORD index: fill, execution
    logic [BW-1:2]   cur_q;                 // DWORD address of the current completion
    logic [10:0]     left_q;                // DWORDs still to complete
    logic [12:0]     bytes_q;               // Byte Count of the current completion
    logic            first_q;
    logic [2:0]      stat_q;                // status of the current completion
    logic [10:0]     clen_q;                // DWORDs in the current completion
    logic [8:0]      k_q;                   // output beat / AXI beat counter
    logic            aw_done_q;
    logic [31:0]     dbuf_q [0:Depth-1];

    // ---- request decode ---------------------------------------------------------------------
    wire [10:0] len_dw = (len_q == 11'd0) ? 11'd1024 : len_q;
    wire [1:0]  fb_off = fbe_q[0] ? 2'd0 : fbe_q[1] ? 2'd1 : fbe_q[2] ? 2'd2 : fbe_q[3] ? 2'd3 : 2'd0;
    wire [1:0]  fb_hi  = fbe_q[3] ? 2'd3 : fbe_q[2] ? 2'd2 : fbe_q[1] ? 2'd1 : 2'd0;
    wire [1:0]  lb_pad = lbe_q[3] ? 2'd0 : lbe_q[2] ? 2'd1 : lbe_q[1] ? 2'd2 : lbe_q[0] ? 2'd3 : 2'd0;
    // PCIe Base Specification, Byte Count for memory read completions
    wire [12:0] total_bytes = (len_dw == 11'd1) ?
                              ((fbe_q == 4'd0) ? 13'd1 : {11'd0, fb_hi} - {11'd0, fb_off} + 13'd1) :
                              {len_dw, 2'b00} - {11'd0, fb_off} - {11'd0, lb_pad};
    wire is_wr   = (type_q == 4'b0001);
    wire is_rd   = (type_q == 4'b0000);
    wire posted  = is_wr || (type_q[3:1] == 3'b110);             // writes and messages
    wire bar0_ok = (bar_q == 3'd0) && (aper_q == CsrAper);
    wire bar1_ok = (bar_q == 3'd1) && (aper_q == ApAper);
    wire bar_ok  = bar0_ok || bar1_ok;

    // Max_Payload_Size in DWORDs, capped at what the buffer holds
    wire [1:0]  mps_sel = (cfg_max_payload_i > MpsCap) ? MpsCap : cfg_max_payload_i;
    wire [10:0] mps_dw  = 11'd32 << mps_sel;
    wire [10:0] cur_lo  = {{(11 - 8){1'b0}}, cur_q[9:2]} & (mps_dw - 11'd1);
    wire [10:0] to_bnd  = mps_dw - cur_lo;
    wire [10:0] chunk   = (left_q < to_bnd) ? left_q : to_bnd;

    // byte enables of request DWORD g
    function automatic [3:0] be_of(input [10:0] g, input [10:0] n, input [3:0] fb, input [3:0] lb);
        if (n == 11'd1)            be_of = fb;
        else if (g == 11'd0)       be_of = fb;
        else if (g == n - 11'd1)   be_of = lb;
        else                       be_of = 4'hf;
    endfunction

    // ---- CQ payload DWORD (DWORD d of the payload sits in lane d[0] of beat 2 + d/2) ----------
    wire [31:0] cq_dw   = d_q[0] ? s_axis_cq_tdata_i[63:32] : s_axis_cq_tdata_i[31:0];
    wire        fill_pop = (st_q == StWFill) && s_axis_cq_tvalid_i &&
                           (d_q[0] || (d_q == len_dw - 11'd1) ||
                            (s_axis_cq_tlast_i && !s_axis_cq_tkeep_i[1]));   // ends short
    assign s_axis_cq_tready_o = (st_q == StIdle) || (st_q == StDesc) || (st_q == StDrain) || fill_pop;

    // ---- BAR0 ----------------------------------------------------------------------------------
    wire [10:0] done_dw = len_dw - left_q;                       // DWORDs of earlier completions
    wire [3:0]  w_be    = be_of(d_q, len_dw, fbe_q, lbe_q);
    wire [BW-1:2] w0_dw = off_q + {{(BW - 13){1'b0}}, d_q};
    assign m_csr_awaddr_o  = {w0_dw[CsrAddrBits-1:2], 2'b00};
    assign m_csr_awprot_o  = 3'b000;
    assign m_csr_awvalid_o = (st_q == StW0) && (w_be != 4'h0) && !aw_done_q;
    assign m_csr_wdata_o   = dbuf_q[d_q[IW-1:0]];
    assign m_csr_wstrb_o   = w_be;
    assign m_csr_wvalid_o  = (st_q == StW0) && (w_be != 4'h0) && !k_q[0];
    assign m_csr_bready_o  = (st_q == StW0B);
    wire [10:0] r_g   = done_dw + d_q;
    wire [3:0]  r_be  = be_of(r_g, len_dw, fbe_q, lbe_q);
    wire [BW-1:2] r0_dw = cur_q + {{(BW - 13){1'b0}}, d_q};
    assign m_csr_araddr_o  = {r0_dw[CsrAddrBits-1:2], 2'b00};
    assign m_csr_arprot_o  = 3'b000;
    assign m_csr_arvalid_o = (st_q == StR0A) && (r_be != 4'h0);
    assign m_csr_rready_o  = (st_q == StR0R);

    // ---- BAR1 ----------------------------------------------------------------------------------
    // write: beat j holds request DWORDs 2j - off[2] and 2j + 1 - off[2]
    wire [10:0] w1_beats = ({10'd0, off_q[2]} + len_dw + 11'd1) >> 1;
    wire [11:0] w1_i0 = {2'b00, k_q, 1'b0} - {11'd0, off_q[2]};
    wire [11:0] w1_i1 = w1_i0 + 12'd1;
    wire        w1_v0 = !(k_q == 9'd0 && off_q[2]) && (w1_i0 < {1'b0, len_dw});
    wire        w1_v1 = w1_i1 < {1'b0, len_dw};
    wire [3:0]  w1_b0 = w1_v0 ? be_of(w1_i0[10:0], len_dw, fbe_q, lbe_q) : 4'h0;
    wire [3:0]  w1_b1 = w1_v1 ? be_of(w1_i1[10:0], len_dw, fbe_q, lbe_q) : 4'h0;
    assign m_ap_awid_o    = {IdBits{1'b0}};
    assign m_ap_awaddr_o  = {off_q[ApAddrBits-1:3], 3'b000};
    assign m_ap_awlen_o   = w1_beats[7:0] - 8'd1;
    assign m_ap_awsize_o  = 3'd3;
    assign m_ap_awburst_o = 2'b01;
    assign m_ap_awlock_o  = 1'b0;
    assign m_ap_awcache_o = 4'b0011;
    assign m_ap_awprot_o  = 3'b000;
    assign m_ap_awvalid_o = (st_q == StW1) && !aw_done_q;
    assign m_ap_wdata_o   = {dbuf_q[w1_i1[IW-1:0]], dbuf_q[w1_i0[IW-1:0]]};
    assign m_ap_wstrb_o   = {w1_b1, w1_b0};
    assign m_ap_wlast_o   = ({2'b00, k_q} == w1_beats - 11'd1);
    assign m_ap_wvalid_o  = (st_q == StW1) && ({2'b00, k_q} < w1_beats);
    assign m_ap_bready_o  = (st_q == StW1B);
    // read: one burst per completion
    wire [10:0] r1_beats = ({10'd0, cur_q[2]} + clen_q + 11'd1) >> 1;
    wire [11:0] r1_i0 = {2'b00, k_q, 1'b0} - {11'd0, cur_q[2]};
    wire [11:0] r1_i1 = r1_i0 + 12'd1;
    wire        r1_v0 = !(k_q == 9'd0 && cur_q[2]) && (r1_i0 < {1'b0, clen_q});
    wire        r1_v1 = r1_i1 < {1'b0, clen_q};
    assign m_ap_arid_o    = {IdBits{1'b0}};
    assign m_ap_araddr_o  = {cur_q[ApAddrBits-1:3], 3'b000};
    assign m_ap_arlen_o   = r1_beats[7:0] - 8'd1;
    assign m_ap_arsize_o  = 3'd3;
    assign m_ap_arburst_o = 2'b01;
    assign m_ap_arlock_o  = 1'b0;
    assign m_ap_arcache_o = 4'b0011;
    assign m_ap_arprot_o  = 3'b000;
    assign m_ap_arvalid_o = (st_q == StR1A);
    assign m_ap_rready_o  = (st_q == StR1R);

    // ---- CC ------------------------------------------------------------------------------------
    wire [10:0] plen = (stat_q == CPL_SC) ? clen_q : 11'd0;
    wire [6:0]  la   = first_q ? {cur_q[6:2], fb_off} : {cur_q[6:2], 2'b00};
    wire [31:0] cc_d0 = {3'b000, bytes_q, 6'd0, at_q, 1'b0, la};
    wire [31:0] cc_d1 = {rid_q, 1'b0, 1'b0, stat_q, plen};
    wire [31:0] cc_d2 = {1'b0, attr_q, tc_q, 1'b0, 16'd0, tag_q};
    wire [11:0] n0 = {2'b00, k_q, 1'b0};                      // stream DWORD in lane 0
    wire [11:0] n1 = n0 + 12'd1;
    wire [11:0] p0 = n0 - 12'd3;
    wire [11:0] p1 = n1 - 12'd3;
    wire [11:0] cc_total = {1'b0, plen} + 12'd3;
    // the stream is DW0 DW1 | DW2 P0 | P1 P2 | ...
    assign m_axis_cc_tdata_o[31:0]  = (k_q == 9'd0) ? cc_d0 : (k_q == 9'd1) ? cc_d2 : dbuf_q[p0[IW-1:0]];
    assign m_axis_cc_tdata_o[63:32] = (k_q == 9'd0) ? cc_d1 : dbuf_q[p1[IW-1:0]];
    assign m_axis_cc_tkeep_o  = {n1 < cc_total, 1'b1};
    assign m_axis_cc_tlast_o  = (n0 + 12'd2) >= cc_total;
    assign m_axis_cc_tuser_o  = 33'd0;
    assign m_axis_cc_tvalid_o = (st_q == StCc);
    assign csr_wr_done_o = (d_q == len_dw - 11'd1) &&
                           (((st_q == StW0B) && m_csr_bvalid_i) || ((st_q == StW0) && (w_be == 4'h0)));
    assign ur_o = (st_q == StCc) && m_axis_cc_tready_i && m_axis_cc_tlast_o && (stat_q == CPL_UR);

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            st_q <= StIdle;
            d_q <= 11'd0;
            k_q <= 9'd0;
            aw_done_q <= 1'b0;
            disc_q <= 1'b0;
        end else begin
            case (st_q)
                StIdle: if (s_axis_cq_tvalid_i) begin
                    off_q  <= s_axis_cq_tdata_i[BW-1:2];
                    at_q   <= s_axis_cq_tdata_i[1:0];
                    fbe_q  <= s_axis_cq_tuser_i[3:0];
                    lbe_q  <= s_axis_cq_tuser_i[7:4];
                    disc_q <= s_axis_cq_tuser_i[41];
                    st_q   <= s_axis_cq_tlast_i ? StIdle : StDesc;   // a one-beat TLP is malformed
                end
                StDesc: if (s_axis_cq_tvalid_i) begin
                    len_q  <= s_axis_cq_tdata_i[10:0];
                    type_q <= s_axis_cq_tdata_i[14:11];
                    rid_q  <= s_axis_cq_tdata_i[31:16];
                    tag_q  <= s_axis_cq_tdata_i[39:32];
                    bar_q  <= s_axis_cq_tdata_i[50:48];
                    aper_q <= s_axis_cq_tdata_i[56:51];
                    tc_q   <= s_axis_cq_tdata_i[59:57];
                    attr_q <= s_axis_cq_tdata_i[62:60];
                    disc_q <= disc_q | s_axis_cq_tuser_i[41];
                    last_q <= s_axis_cq_tlast_i;
                    st_q   <= StDecide;
                end
                StDecide: begin
                    d_q <= 11'd0;
                    k_q <= 9'd0;
                    aw_done_q <= 1'b0;
                    cur_q <= off_q;
                    left_q <= len_dw;
                    bytes_q <= total_bytes;
                    first_q <= 1'b1;
                    stat_q <= CPL_SC;
                    if (is_wr && bar_ok && !disc_q && !last_q && len_dw <= DepthDw) begin
                        st_q <= StWFill;
                    end else if (is_rd && bar_ok && !disc_q && last_q) begin
                        st_q <= StRChunk;
                    end else begin
                        stat_q <= CPL_UR;
                        clen_q <= 11'd0;
                        if (!last_q)      st_q <= StDrain;
                        else if (posted)  st_q <= StIdle;
                        else              st_q <= StCc;
                    end
                end
                StDrain: if (s_axis_cq_tvalid_i && s_axis_cq_tlast_i) begin
                    st_q <= posted ? StIdle : StCc;
                end
                StWFill: if (s_axis_cq_tvalid_i) begin
                    dbuf_q[d_q[IW-1:0]] <= cq_dw;
                    d_q <= d_q + 11'd1;
                    if (fill_pop) disc_q <= disc_q | s_axis_cq_tuser_i[41];
                    if (fill_pop && s_axis_cq_tlast_i) begin
                        // stored whole: apply it unless it was cut short or discontinued
                        d_q <= 11'd0;
                        if (disc_q || s_axis_cq_tuser_i[41] || d_q != len_dw - 11'd1) st_q <= StIdle;
                        else st_q <= bar0_ok ? StW0 : StW1;
                    end else if (fill_pop && d_q == len_dw - 11'd1) begin
                        st_q <= StDrain;          // longer than its DWORD count: dropped
                    end
                end
                StW0: begin
                    if (w_be == 4'h0) begin       // nothing enabled in this DWORD
                        if (d_q == len_dw - 11'd1) st_q <= StIdle;
                        d_q <= d_q + 11'd1;
                    end else begin
                        if (m_csr_awready_i) aw_done_q <= 1'b1;
                        if (m_csr_wready_i && !k_q[0]) k_q[0] <= 1'b1;
                        if ((aw_done_q || m_csr_awready_i) && (k_q[0] || m_csr_wready_i)) st_q <= StW0B;
                    end
                end
                StW0B: if (m_csr_bvalid_i) begin
                    aw_done_q <= 1'b0;
                    k_q <= 9'd0;
                    d_q <= d_q + 11'd1;
                    st_q <= (d_q == len_dw - 11'd1) ? StIdle : StW0;
                end
                StW1: begin
                    if (m_ap_awready_i) aw_done_q <= 1'b1;
                    if (m_ap_wvalid_o && m_ap_wready_i) k_q <= k_q + 9'd1;
                    if ((aw_done_q || m_ap_awready_i) &&
                        ({2'b00, k_q} == w1_beats || (m_ap_wvalid_o && m_ap_wready_i && m_ap_wlast_o)))
                        st_q <= StW1B;
                end
                StW1B: if (m_ap_bvalid_i) st_q <= StIdle;
                StRChunk: begin
                    clen_q <= chunk;
                    d_q <= 11'd0;
                    k_q <= 9'd0;
                    st_q <= bar0_ok ? StR0A : StR1A;
                end
                StR0A: begin
                    if (r_be == 4'h0) begin
                        dbuf_q[d_q[IW-1:0]] <= 32'd0;    // not read: no side effects
                        d_q <= d_q + 11'd1;
                        if (d_q == clen_q - 11'd1) st_q <= StCc;
                    end else if (m_csr_arready_i) begin
                        st_q <= StR0R;
                    end
                end
                StR0R: if (m_csr_rvalid_i) begin
                    dbuf_q[d_q[IW-1:0]] <= m_csr_rdata_i;
                    if (m_csr_rresp_i != 2'b00 && stat_q == CPL_SC)
                        stat_q <= (m_csr_rresp_i == 2'b11) ? CPL_UR : CPL_CA;
                    d_q <= d_q + 11'd1;
                    st_q <= (d_q == clen_q - 11'd1) ? StCc : StR0A;
                end
                StR1A: if (m_ap_arready_i) st_q <= StR1R;
                StR1R: if (m_ap_rvalid_i) begin
                    if (r1_v0) dbuf_q[r1_i0[IW-1:0]] <= m_ap_rdata_i[31:0];
                    if (r1_v1) dbuf_q[r1_i1[IW-1:0]] <= m_ap_rdata_i[63:32];
                    if (m_ap_rresp_i != 2'b00 && stat_q == CPL_SC)
                        stat_q <= (m_ap_rresp_i == 2'b11) ? CPL_UR : CPL_CA;
                    k_q <= k_q + 9'd1;
                    if (m_ap_rlast_i) begin
                        k_q <= 9'd0;
                        st_q <= StCc;
                    end
                end
                StCc: if (m_axis_cc_tready_i) begin
                    k_q <= k_q + 9'd1;
                    if (m_axis_cc_tlast_o) begin
                        k_q <= 9'd0;
                        first_q <= 1'b0;
                        cur_q <= cur_q + {{(BW - 13){1'b0}}, clen_q};
                        left_q <= left_q - clen_q;
                        bytes_q <= bytes_q - ({clen_q, 2'b00} - (first_q ? {11'd0, fb_off} : 13'd0));
                        // an error completion ends the request; so does the last one
                        st_q <= (stat_q != CPL_SC || left_q == clen_q) ? StIdle : StRChunk;
                    end
                end
                default: st_q <= StIdle;
            endcase
        end
    end

    wire unused = ^{s_axis_cq_tkeep_i[0], s_axis_cq_tuser_i[87:42], s_axis_cq_tuser_i[40:8],
                    s_axis_cq_tdata_i[47:40], s_axis_cq_tdata_i[63], m_csr_bresp_i, m_ap_bid_i,
                    m_ap_bresp_i, m_ap_rid_i, w1_i0[11], w1_i1[11], r1_i0[11],
                    r1_i1[11], p0[11:IW], p1[11:IW], w1_beats[10:8], r1_beats[10:8],
                    r_g, w0_dw, r0_dw};
endmodule
`default_nettype wire
