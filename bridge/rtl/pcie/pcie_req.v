// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// pcie_req: the requester of the PCIe shell. gpu_core's m_host AXI4 master (host memory) becomes
// memory write and read request TLPs on the UltraScale+ PCIe4 hard IP's requester request stream
// (RQ, 64-bit, DWORD-aligned), and read completions from the requester completion stream (RC)
// become R beats.
// Contract:
//   - RQ descriptor (beats 0 and 1): DW0 {address[31:2], AT 00}, DW1 address[63:32], DW2
//     {requester ID 0 (the hard IP fills it: requester_id_enable 0), poisoned 0, request type
//     [14:11] (0000 read, 0001 write), DWORD count}, DW3 {attr 0, TC 0, requester ID enable 0,
//     completer ID 0, tag}; first/last BE in tuser[7:0], everything else in tuser 0. Payload
//     from beat 2. Tags are the requester's own (client tags), 0..Tags-1.
//   - Writes: AW bursts of at most 16 8-byte beats are taken while one of 4 entries is free,
//     and their W beats (one per cycle) in AW order. A burst is streamed: its MWr starts once
//     the TLP's first DWORD is in with all four strobes, and each payload beat follows as its W
//     beats come (the two descriptor beats give W a lead; RQ tvalid never drops inside a TLP,
//     which the hard IP would nullify). The TLP is the rest of the burst cut so that
//     it never exceeds Max_Payload_Size (cfg_max_payload_i) nor crosses a
//     Max_Payload_Size-aligned (so never a 4 KiB) boundary (pcie_req_split), or, when the next
//     burst's AW is already in, contiguous and whole, a full 16-beat burst and that one as one
//     MWr within the same limits. A streamed TLP that meets a DWORD without all four strobes, or
//     a beat whose W is not in yet, ends on that beat with discontinue (tuser[11]: the hard IP
//     nullifies it, nothing is written; the beat stays as presented until taken); the burst
//     then takes the slow path from that TLP's first DWORD: once all its W is
//     in, one MWr per run of consecutive DWORDs whose 4 strobes are all set (a DWORD with some
//     strobes set goes alone with those as its first BE; DWORDs with none are skipped), cut the
//     same way. Every byte whose strobe is set is written exactly once, no other. B OKAY, in AW
//     order, once the burst's last TLP is on RQ (writes are posted). A burst of more than 16
//     beats, or any while bus mastering is off (bus_master_en_i), sends nothing and answers
//     SLVERR. RQ carries one TLP at a time; a write and a read waiting take turns.
//   - Reads: AR bursts of at most 16 beats are accepted while one of Slots read slots is free;
//     each is sent as MRd TLPs cut by Max_Read_Request_Size (cfg_max_read_req_i) the same way,
//     each with a free tag (one of Tags). Completions may come in any order and split at any
//     DWORD: each one's data lands in its slot at (its tag's offset + the request's bytes - Byte
//     Count); a tag is done when Byte Count <= its DWORD count * 4. R bursts go out in AR order
//     with their ARID once all of a slot's completions are in (BREADY/RREADY of gpu_core are
//     always high; the R channel waits for RREADY anyway).
//   - A completion with a status other than SC, an error code from the hard IP (poisoned,
//     length or address mismatch), or discontinue fails its slot: all its beats answer SLVERR.
//     A completion for a tag not outstanding is dropped. A tag unanswered for CplTimeout cycles
//     fails its slot and stays unused for another CplTimeout cycles unless the last completion
//     of its late answer (Byte Count <= its DWORD count * 4, or a failed one) comes first (all
//     its pieces are dropped). A read burst of more than 16 beats, or any while bus
//     mastering is off, is answered SLVERR without a TLP.
//   - RC descriptor: DW0 {request completed [30], byte count [28:16], error code [15:12], lower
//     address [11:0]}, DW1 {poisoned [14], status [13:11], DWORD count}, DW2 {tag}; payload
//     from the high half of beat 1; discontinue in tuser[42].
module pcie_req #(
    parameter IdBits     = 4,
    parameter Slots      = 4,          // read bursts in flight: 2, 4 or 8
    parameter Tags       = 8,          // read TLPs in flight: 2..32, power of two
    parameter CplTimeout = 16777216    // cycles
) (
    input  wire                clk_i,
    input  wire                rst_i,
    // AXI4 slave (gpu_core m_host), 8-byte data
    input  wire [IdBits-1:0]   s_host_awid_i,
    input  wire [63:0]         s_host_awaddr_i,
    input  wire [7:0]          s_host_awlen_i,
    input  wire [2:0]          s_host_awsize_i,
    input  wire [1:0]          s_host_awburst_i,
    input  wire                s_host_awlock_i,
    input  wire [3:0]          s_host_awcache_i,
    input  wire [2:0]          s_host_awprot_i,
    input  wire                s_host_awvalid_i,
    output wire                s_host_awready_o,
    input  wire [63:0]         s_host_wdata_i,
    input  wire [7:0]          s_host_wstrb_i,
    input  wire                s_host_wlast_i,
    input  wire                s_host_wvalid_i,
    output wire                s_host_wready_o,
    output wire [IdBits-1:0]   s_host_bid_o,
    output wire [1:0]          s_host_bresp_o,
    output wire                s_host_bvalid_o,
    input  wire                s_host_bready_i,
    input  wire [IdBits-1:0]   s_host_arid_i,
    input  wire [63:0]         s_host_araddr_i,
    input  wire [7:0]          s_host_arlen_i,
    input  wire [2:0]          s_host_arsize_i,
    input  wire [1:0]          s_host_arburst_i,
    input  wire                s_host_arlock_i,
    input  wire [3:0]          s_host_arcache_i,
    input  wire [2:0]          s_host_arprot_i,
    input  wire                s_host_arvalid_i,
    output wire                s_host_arready_o,
    output wire [IdBits-1:0]   s_host_rid_o,
    output wire [63:0]         s_host_rdata_o,
    output wire [1:0]          s_host_rresp_o,
    output wire                s_host_rlast_o,
    output wire                s_host_rvalid_o,
    input  wire                s_host_rready_i,
    // requester request (RQ)
    output wire [63:0]         m_axis_rq_tdata_o,
    output wire [1:0]          m_axis_rq_tkeep_o,
    output wire                m_axis_rq_tlast_o,
    output wire [61:0]         m_axis_rq_tuser_o,
    output wire                m_axis_rq_tvalid_o,
    input  wire                m_axis_rq_tready_i,
    // requester completion (RC)
    input  wire [63:0]         s_axis_rc_tdata_i,
    input  wire [1:0]          s_axis_rc_tkeep_i,
    input  wire                s_axis_rc_tlast_i,
    input  wire [74:0]         s_axis_rc_tuser_i,
    input  wire                s_axis_rc_tvalid_i,
    output wire                s_axis_rc_tready_o,
    input  wire [1:0]          cfg_max_payload_i,
    input  wire [2:0]          cfg_max_read_req_i,
    input  wire                bus_master_en_i,
    output wire                cpl_timeout_o,    // one cycle per tag timed out
    output wire                cpl_error_o       // one cycle per failed completion
);
    localparam integer SB = (Slots <= 2) ? 1 : (Slots <= 4) ? 2 : 3;
    localparam integer TB = (Tags <= 2) ? 1 : (Tags <= 4) ? 2 : (Tags <= 8) ? 3 : (Tags <= 16) ? 4 : 5;
    generate
        if (Slots != 2 && Slots != 4 && Slots != 8) begin : g_bad_slots
            `CMN_PARAM_ERROR("pcie_req: Slots must be 2, 4 or 8")
        end
        if (Tags != (1 << TB) || Tags > 32) begin : g_bad_tags
            `CMN_PARAM_ERROR("pcie_req: Tags must be a power of two, 2..32")
        end
    endgenerate

    // ---- RQ ownership: one TLP at a time, writes or reads --------------------------------------
    localparam [1:0] OwnNone = 2'd0, OwnW = 2'd1, OwnR = 2'd2;
    logic [1:0] own_q;

    // ================================ writes ==================================================
    // A ring of WEnt bursts (AW, W beats, B): AW fills the tail, W the oldest burst still owed
    // data, the emitter sends the oldest not yet sent, B answers the oldest sent.
    localparam integer WEnt = 4;
    localparam integer WEB  = 2;
    localparam [2:0] WeIdle = 3'd0, WeEmit = 3'd1, WeWait = 3'd2, WeScan = 3'd3, WeRun = 3'd4;
    logic [2:0]        wst_q;
    logic [WEB:0]      waw_q, ww_q, we_q, wb_q;   // AW tail, W, emitter, B head (one extra bit)
    logic [IdBits-1:0] wid_q    [0:WEnt-1];
    logic [63:3]       waddr_q  [0:WEnt-1];
    logic [4:0]        wbeats_q [0:WEnt-1];       // 1..16
    logic              wbad_q   [0:WEnt-1];
    logic [4:0]        warr_q   [0:WEnt-1];       // W beats arrived, 0..16
    logic [63:0]       wbuf_q   [0:WEnt*16-1];    // {entry, beat}
    logic [7:0]        wstb_q   [0:WEnt*16-1];
    logic [5:0]        wi_q;                      // first DWORD of the TLP (or scan cursor) in the entry
    logic [6:0]        wrun_q;                    // DWORDs in the TLP, 1..64
    logic              wfast_q, wmrg_q;           // streamed TLP; it covers entries e and e+1
    logic [3:0]        wfbe_q, wlbe_q;
    logic [8:0]        wk_q;                      // RQ beat
    logic              wlast_own_q;               // the last TLP on RQ was a write (arbitration)
    logic              wab_q;                     // a discontinued beat is on RQ, not yet taken

    wire [WEB-1:0] we   = we_q[WEB-1:0];
    wire [WEB-1:0] we1  = we + 1'b1;
    wire           w_full = (waw_q[WEB] != wb_q[WEB]) && (waw_q[WEB-1:0] == wb_q[WEB-1:0]);
    wire           we_any = (we_q != waw_q);
    wire           we1_any = (we_q + 1'b1 != waw_q) && we_any;
    wire [WEB:0]   w_dw_arr = ww_q - wb_q;        // entries whose W is complete
    // beats of each entry stored so far (all of them once its W is complete)
    logic [4:0] wavc [0:WEnt-1];
    integer wx;
    always @(*) begin
        for (wx = 0; wx < WEnt; wx = wx + 1)
            wavc[wx] = (w_dw_arr > {1'b0, wx[WEB-1:0] - wb_q[WEB-1:0]}) ? 5'd16 : warr_q[wx];
    end
    wire [WEB:0]   we_d   = {1'b0, we - wb_q[WEB-1:0]};
    wire           we_arr = w_dw_arr > we_d;      // entry e's W complete
    wire [5:0]     wdws   = {wbeats_q[we], 1'b0};
    // the slow path's scan (one DWORD per cycle) over entry e
    wire [7:0]     wsb_cur = wstb_q[{we, wi_q[4:1]}];
    wire [3:0]     ws_cur  = wi_q[0] ? wsb_cur[7:4] : wsb_cur[3:0];
    wire [5:0]     wj      = wi_q + wrun_q[5:0];
    wire [7:0]     wsb_nxt = wstb_q[{we, wj[4:1]}];
    wire [3:0]     ws_nxt  = wj[0] ? wsb_nxt[7:4] : wsb_nxt[3:0];
    wire [63:0]    wtlp_addr = {waddr_q[we], 3'b000} + {56'd0, wi_q, 2'b00};
    wire [12:0]    wlim;
    pcie_req_split u_wsplit (.addr_i(wtlp_addr[11:0]), .bytes_i(13'h1000),
                             .limit_sel_i({1'b0, cfg_max_payload_i}), .len_o(wlim));
    // the streamed TLP that would start now: the rest of entry e up to the limit, or e and the
    // whole of e+1 behind it (16 beats, contiguous, same limit-aligned block)
    wire [10:0]    wlim_dw  = wlim[12:2];
    wire [6:0]     wrest    = {1'b0, wdws - wi_q};
    wire [6:0]     wlen1     = ({4'd0, wrest} <= wlim_dw) ? wrest : wlim_dw[6:0];
    wire [6:0]     wlen2     = 7'd32 + {1'b0, wbeats_q[we1], 1'b0};
    wire           wmerge   = (wi_q == 6'd0) && (wbeats_q[we] == 5'd16) && we1_any && !wbad_q[we1] &&
                              (waddr_q[we1] == waddr_q[we] + 61'd16) && ({4'd0, wlen2} <= wlim_dw);
    wire [7:0]     wsb_first = wstb_q[{we, wi_q[4:1]}];
    wire [3:0]     ws_first  = wi_q[0] ? wsb_first[7:4] : wsb_first[3:0];
    wire           wfirst_av = {1'b0, wi_q[4:1]} < wavc[we];
    // idle: a bad burst is dropped once its W is in; a TLP is streamed once its first DWORD is
    // in with all four strobes, else the entry takes the slow path
    wire           widle_go = (wst_q == WeIdle) && we_any && !wbad_q[we] && wfirst_av && (ws_first == 4'hf);
    wire           w_go = widle_go || (wst_q == WeEmit);

    assign s_host_awready_o = !w_full;
    assign s_host_wready_o  = (ww_q != waw_q);
    assign s_host_bvalid_o  = (wb_q != we_q);
    assign s_host_bid_o     = wid_q[wb_q[WEB-1:0]];
    assign s_host_bresp_o   = wbad_q[wb_q[WEB-1:0]] ? 2'b10 : 2'b00;

    // ================================ reads ===================================================
    logic [SB:0]       head_q, tail_q, iss_q;      // slot ring (one extra bit: full/empty)
    logic [IdBits-1:0] sid_q    [0:Slots-1];
    logic [63:3]       saddr_q  [0:Slots-1];
    logic [7:0]        slen_q   [0:Slots-1];       // ARLEN
    logic [8:0]        sissued_q[0:Slots-1];       // bytes requested so far
    logic [4:0]        spend_q  [0:Slots-1];       // TLPs outstanding
    logic              serr_q   [0:Slots-1];
    logic [31:0]       rbuf_q   [0:Slots*32-1];

    logic [1:0]        tst_q    [0:Tags-1];        // 0 free, 1 outstanding, 2 timed out
    logic [SB-1:0]     tslot_q  [0:Tags-1];
    logic [4:0]        toff_q   [0:Tags-1];        // DWORD offset in the slot
    logic              tmrg_q   [0:Tags-1];        // the request covers its slot and the next
    logic [8:0]        tbytes_q [0:Tags-1];
    logic [31:0]       ttmr_q   [0:Tags-1];
    localparam [1:0] TFree = 2'd0, TOut = 2'd1, TLate = 2'd2;

    wire [SB-1:0] head = head_q[SB-1:0];
    wire [SB-1:0] tail = tail_q[SB-1:0];
    wire [SB-1:0] iss  = iss_q[SB-1:0];
    wire          full = (head_q[SB] != tail_q[SB]) && (head == tail);
    assign s_host_arready_o = !full;

    // free tag
    logic          tfree_ok;
    logic [TB-1:0] tfree;
    integer ti;
    always @(*) begin
        tfree_ok = 1'b0;
        tfree = {TB{1'b0}};
        for (ti = Tags - 1; ti >= 0; ti = ti - 1) begin
            if (tst_q[ti] == TFree) begin
                tfree_ok = 1'b1;
                tfree = ti[TB-1:0];
            end
        end
    end
    // timed-out tag (one per cycle)
    logic          tmo_ok;
    logic [TB-1:0] tmo;
    always @(*) begin
        tmo_ok = 1'b0;
        tmo = {TB{1'b0}};
        for (ti = Tags - 1; ti >= 0; ti = ti - 1) begin
            if (tst_q[ti] != TFree && ttmr_q[ti] >= CplTimeout) begin
                tmo_ok = 1'b1;
                tmo = ti[TB-1:0];
            end
        end
    end

    // issuer
    wire        iss_any   = (iss_q != tail_q);
    wire [8:0]  iss_tot   = {1'b0, slen_q[iss][3:0], 3'b000} + 9'd8;     // (ARLEN + 1) * 8
    wire        iss_done  = (sissued_q[iss] == iss_tot);
    wire [63:0] rtlp_addr = {saddr_q[iss], 3'b000} + {55'd0, sissued_q[iss]};
    wire [12:0] rlen;
    pcie_req_split u_rsplit (.addr_i(rtlp_addr[11:0]), .bytes_i({4'd0, iss_tot - sissued_q[iss]}),
                             .limit_sel_i(cfg_max_read_req_i), .len_o(rlen));
    // two whole 16-beat bursts, contiguous, in one MRd of 256 bytes when the limit allows it
    wire [SB-1:0] iss1    = iss + 1'b1;
    wire        iss1_any  = (iss_q + 1'b1 != tail_q) && iss_any;
    wire [12:0] rlen2;
    pcie_req_split u_rsplit2 (.addr_i(rtlp_addr[11:0]), .bytes_i(13'd256),
                              .limit_sel_i(cfg_max_read_req_i), .len_o(rlen2));
    wire        rpair = (sissued_q[iss] == 9'd0) && (slen_q[iss][3:0] == 4'hf) && (rlen2 == 13'd256);
    wire        rmerge = rpair && iss1_any && !serr_q[iss1] && (slen_q[iss1][3:0] == 4'hf) &&
                         (saddr_q[iss1] == saddr_q[iss] + 61'd16);
    // a burst that could pair waits for the next AR while two or more MRd are outstanding (the
    // link has work; they complete or time out, so the next AR, full ring or not, can come)
    integer tn;
    logic [5:0] tout_n;
    always @(*) begin
        tout_n = 6'd0;
        for (tn = 0; tn < Tags; tn = tn + 1) tout_n = tout_n + ((tst_q[tn] == TOut) ? 6'd1 : 6'd0);
    end
    wire        rhold = rpair && !iss1_any && (tout_n >= 6'd2);
    logic [TB-1:0] rtag_q;
    logic [10:0]   rdw_q;
    logic [63:2]   raddr_q;
    logic          rk_q;             // RQ beat of the read TLP being sent
    // RQ: one TLP at a time, reads and writes in turn when both wait
    wire r_want  = iss_any && !iss_done && tfree_ok && !rhold;
    wire r_start = r_want && (own_q == OwnNone) && (!w_go || wlast_own_q);
    wire w_start = w_go && (own_q == OwnNone) && !r_start;

    // ---- RQ mux ---------------------------------------------------------------------------
    // write TLP: stream DWORD n < 4 descriptor, n >= 4 payload DWORD n - 4, which is DWORD
    // wi + n - 4 of entry e (of e+1 past its 32 when merged)
    wire [11:0] wn0 = {2'b00, wk_q, 1'b0};
    wire [11:0] wn1 = wn0 + 12'd1;
    wire [11:0] wtot = {5'd0, wrun_q} + 12'd4;
    wire [6:0]  wg0 = {1'b0, wi_q} + wn0[6:0] - 7'd4;
    wire [6:0]  wg1 = wg0 + 7'd1;
    wire [5:0]  wf0 = {we, 4'd0} + wg0[6:1];
    wire [5:0]  wf1 = {we, 4'd0} + wg1[6:1];
    wire [31:0] wpd0 = wg0[0] ? wbuf_q[wf0][63:32] : wbuf_q[wf0][31:0];
    wire [31:0] wpd1 = wg1[0] ? wbuf_q[wf1][63:32] : wbuf_q[wf1][31:0];
    wire [7:0]  wsb0 = wstb_q[wf0];
    wire [7:0]  wsb1 = wstb_q[wf1];
    wire [3:0]  wsd0 = wg0[0] ? wsb0[7:4] : wsb0[3:0];
    wire [3:0]  wsd1 = wg1[0] ? wsb1[7:4] : wsb1[3:0];
    wire        wpay = (wk_q >= 9'd2);
    wire        wv1  = wn1 < wtot;                  // lane 1 carries a DWORD of this TLP
    wire        w_av = !wpay || (({1'b0, wf0[3:0]} < wavc[wf0[5:4]]) &&
                                 (!wv1 || ({1'b0, wf1[3:0]} < wavc[wf1[5:4]])));
    // RQ tvalid stays high from a TLP's first beat to its last (the hard IP nullifies a TLP
    // whose tvalid drops). A streamed TLP whose next beat's W is not in, or that meets a DWORD
    // without all four strobes, ends on that beat, discontinued; once presented, that beat
    // stays as it is until taken (wab_q), even if the W arrives meanwhile
    wire        w_abort = wab_q || (wfast_q && wpay &&
                          (!w_av || !((wsd0 == 4'hf) && (!wv1 || wsd1 == 4'hf))));
    wire [31:0] wd2 = {16'd0, 1'b0, 4'b0001, 4'd0, wrun_q};
    wire [63:0] w_tdata = (wk_q == 9'd0) ? {wtlp_addr[63:32], wtlp_addr[31:2], 2'b00} :
                          (wk_q == 9'd1) ? {32'd0, wd2} : {wpd1, wpd0};
    wire        w_tlast = ((wn0 + 12'd2) >= wtot) || w_abort;
    wire [1:0]  w_tkeep = {wv1, 1'b1};
    wire [31:0] rd2 = {16'd0, 1'b0, 4'b0000, rdw_q};
    wire [63:0] r_tdata = rk_q ? {{24'd0, {(8 - TB){1'b0}}, rtag_q}, rd2} : {raddr_q[63:32], raddr_q[31:2], 2'b00};
    wire [3:0]  r_lbe = (rdw_q == 11'd1) ? 4'h0 : 4'hf;
    assign m_axis_rq_tvalid_o = (own_q == OwnW) || (own_q == OwnR);
    assign m_axis_rq_tdata_o  = (own_q == OwnW) ? w_tdata : r_tdata;
    assign m_axis_rq_tkeep_o  = (own_q == OwnW) ? w_tkeep : 2'b11;
    assign m_axis_rq_tlast_o  = (own_q == OwnW) ? w_tlast : rk_q;
    assign m_axis_rq_tuser_o  = (own_q == OwnW) ? {50'd0, w_abort, 3'd0, wlbe_q, wfbe_q} : {54'd0, r_lbe, 4'hf};
    wire rq_fire = m_axis_rq_tvalid_o && m_axis_rq_tready_i;

    // ---- RC -------------------------------------------------------------------------------
    logic [1:0]    ck_q;                // 0: descriptor beat 0, 1: beat 1, 2: payload beats
    logic [11:0]   cla_q;
    logic [3:0]    cec_q;
    logic [12:0]   cbc_q;
    logic [10:0]   cdw_q;
    logic [2:0]    cst_q;
    logic          cep_q, cdisc_q;
    logic [TB-1:0] ctag_q;
    logic [5:0]    cbase_q;             // slot DWORD of payload DWORD 0 (past 31: the next slot)
    logic [9:0]    cm_q;                // payload DWORD in lane 0 of a payload beat
    assign s_axis_rc_tready_o = 1'b1;
    wire           rc_fire = s_axis_rc_tvalid_i;
    wire [7:0]     rc_tag8 = s_axis_rc_tdata_i[7:0];
    wire [TB-1:0]  rc_tag  = (ck_q == 2'd1) ? rc_tag8[TB-1:0] : ctag_q;
    wire           rc_tag_ok = ((ck_q == 2'd1) ? (rc_tag8 < Tags) : 1'b1);
    wire           rc_live = rc_tag_ok && (tst_q[rc_tag] == TOut);
    wire [8:0]     rc_done_bytes = tbytes_q[rc_tag] - cbc_q[8:0];
    wire [5:0]     rc_base = (ck_q == 2'd1) ? ({1'b0, toff_q[rc_tag]} + rc_done_bytes[7:2]) : cbase_q;
    wire           rc_bad  = (cst_q != 3'b000) || (cec_q != 4'd0) || cep_q || cdisc_q ||
                             s_axis_rc_tuser_i[42] || (cbc_q[12:9] != 4'd0) ||
                             (cbc_q[8:0] > tbytes_q[rc_tag]);
    wire [SB-1:0]  rc_slot = tslot_q[rc_tag];
    // payload DWORDs in this beat
    wire [9:0]     rc_m0 = (ck_q == 2'd1) ? 10'd0 : cm_q;             // lane 1 on beat 1
    wire [9:0]     rc_m1 = cm_q + 10'd1;
    wire           rc_v0 = (ck_q == 2'd2) && (rc_m0 < {1'b0, cdw_q[8:0]});
    wire           rc_v1 = (ck_q == 2'd1) ? (cdw_q != 11'd0) : (rc_m1 < {1'b0, cdw_q[8:0]});
    wire [5:0]     rc_i0 = rc_base + rc_m0[5:0];
    wire [5:0]     rc_i1 = rc_base + ((ck_q == 2'd1) ? 6'd0 : rc_m1[5:0]);
    // a merged request's DWORDs 32..63 land in the next slot
    wire [SB-1:0]  rc_slot1 = rc_slot + 1'b1;
    wire [SB+4:0]  rc_f0 = {rc_i0[5] ? rc_slot1 : rc_slot, rc_i0[4:0]};
    wire [SB+4:0]  rc_f1 = {rc_i1[5] ? rc_slot1 : rc_slot, rc_i1[4:0]};
    wire           rc_end = rc_fire && s_axis_rc_tlast_i && (ck_q != 2'd0);
    // the completion ends its request: a failed one, or the last bytes
    wire           rc_last = rc_bad || {1'b0, cdw_q, 2'b00} >= {1'b0, cbc_q} + {12'd0, cla_q[1:0]};
    wire           rc_tag_done = rc_end && rc_live && rc_last;
    assign cpl_error_o   = rc_end && rc_live && rc_bad;
    assign cpl_timeout_o = tmo_ok && (tst_q[tmo] == TOut);

    // ---- R output -------------------------------------------------------------------------
    logic [7:0] rb_q;
    wire        head_rdy = (head_q != iss_q) && (spend_q[head] == 5'd0);
    wire [SB+4:0] rbi = {head, rb_q[3:0], 1'b0};
    assign s_host_rvalid_o = head_rdy;
    assign s_host_rid_o    = sid_q[head];
    assign s_host_rdata_o  = {rbuf_q[rbi + 1'b1], rbuf_q[rbi]};
    assign s_host_rresp_o  = serr_q[head] ? 2'b10 : 2'b00;
    assign s_host_rlast_o  = (rb_q == slen_q[head]);

    integer s;
    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            own_q <= OwnNone;
            wst_q <= WeIdle;
            waw_q <= {(WEB + 1){1'b0}};
            ww_q <= {(WEB + 1){1'b0}};
            we_q <= {(WEB + 1){1'b0}};
            wb_q <= {(WEB + 1){1'b0}};
            wi_q <= 6'd0;
            wk_q <= 9'd0;
            wfast_q <= 1'b0;
            wlast_own_q <= 1'b0;
            wab_q <= 1'b0;
            head_q <= {(SB + 1){1'b0}};
            tail_q <= {(SB + 1){1'b0}};
            iss_q <= {(SB + 1){1'b0}};
            ck_q <= 2'd0;
            rb_q <= 8'd0;
            rk_q <= 1'b0;
            for (s = 0; s < Tags; s = s + 1) tst_q[s] <= TFree;
        end else begin
            // ---- write side ------------------------------------------------------------
            if (s_host_awvalid_i && !w_full) begin
                wid_q[waw_q[WEB-1:0]] <= s_host_awid_i;
                waddr_q[waw_q[WEB-1:0]] <= s_host_awaddr_i[63:3];
                wbeats_q[waw_q[WEB-1:0]] <= {1'b0, s_host_awlen_i[3:0]} + 5'd1;
                wbad_q[waw_q[WEB-1:0]] <= (s_host_awlen_i > 8'd15) || !bus_master_en_i;
                warr_q[waw_q[WEB-1:0]] <= 5'd0;
                waw_q <= waw_q + 1'b1;
            end
            if (s_host_wvalid_i && ww_q != waw_q) begin
                if (!warr_q[ww_q[WEB-1:0]][4]) begin
                    wbuf_q[{ww_q[WEB-1:0], warr_q[ww_q[WEB-1:0]][3:0]}] <= s_host_wdata_i;
                    wstb_q[{ww_q[WEB-1:0], warr_q[ww_q[WEB-1:0]][3:0]}] <= s_host_wstrb_i;
                    warr_q[ww_q[WEB-1:0]] <= warr_q[ww_q[WEB-1:0]] + 5'd1;
                end
                if (s_host_wlast_i) ww_q <= ww_q + 1'b1;
            end
            if (s_host_bvalid_o && s_host_bready_i) wb_q <= wb_q + 1'b1;
            case (wst_q)
                WeIdle: if (we_any) begin
                    if (wbad_q[we]) begin
                        if (we_arr) we_q <= we_q + 1'b1;           // no TLP, B SLVERR
                    end else if (w_start) begin
                        wst_q <= WeEmit;
                        wfast_q <= 1'b1;
                        wmrg_q <= wmerge;
                        wrun_q <= wmerge ? wlen2 : wlen1;
                        wfbe_q <= 4'hf;
                        wlbe_q <= 4'hf;
                    end else if (wfirst_av && ws_first != 4'hf) begin
                        wst_q <= WeWait;
                    end
                end
                WeWait: begin                                       // the slow path: W whole first
                    wfast_q <= 1'b0;
                    if (we_arr) wst_q <= WeScan;
                end
                WeScan: begin
                    wrun_q <= 7'd1;
                    if (wi_q == wdws) begin
                        we_q <= we_q + 1'b1;
                        wi_q <= 6'd0;
                        wst_q <= WeIdle;
                    end else if (ws_cur == 4'h0) begin
                        wi_q <= wi_q + 6'd1;
                    end else if (ws_cur != 4'hf) begin
                        wfbe_q <= ws_cur;
                        wlbe_q <= 4'h0;
                        wst_q <= WeEmit;
                    end else begin
                        wfbe_q <= 4'hf;
                        wst_q <= WeRun;
                    end
                end
                WeRun: begin
                    if (wj < wdws && ws_nxt == 4'hf && ({4'd0, wrun_q, 2'b00} + 13'd4) <= wlim) begin
                        wrun_q <= wrun_q + 7'd1;
                    end else begin
                        wlbe_q <= (wrun_q == 7'd1) ? 4'h0 : 4'hf;
                        wst_q <= WeEmit;
                    end
                end
                WeEmit: if (own_q == OwnW && rq_fire) begin
                    wk_q <= wk_q + 9'd1;
                    if (w_tlast) begin
                        wk_q <= 9'd0;
                        if (w_abort) begin
                            wst_q <= WeWait;                        // again from wi, stored whole
                        end else if (!wfast_q) begin
                            wi_q <= wi_q + wrun_q[5:0];
                            wst_q <= WeScan;
                        end else if (wmrg_q) begin
                            we_q <= we_q + 2'd2;
                            wi_q <= 6'd0;
                            wst_q <= WeIdle;
                        end else if (wi_q + wrun_q[5:0] == wdws) begin
                            we_q <= we_q + 1'b1;
                            wi_q <= 6'd0;
                            wst_q <= WeIdle;
                        end else begin
                            wi_q <= wi_q + wrun_q[5:0];
                            wst_q <= WeIdle;
                        end
                    end
                end
                default: wst_q <= WeIdle;
            endcase
            wab_q <= (own_q == OwnW) && w_abort && !m_axis_rq_tready_i;
            if (w_start) begin
                own_q <= OwnW;
                wk_q <= 9'd0;
                wlast_own_q <= 1'b1;
            end

            // ---- AR ------------------------------------------------------------------------
            if (s_host_arvalid_i && !full) begin
                sid_q[tail] <= s_host_arid_i;
                saddr_q[tail] <= s_host_araddr_i[63:3];
                slen_q[tail] <= s_host_arlen_i;
                serr_q[tail] <= (s_host_arlen_i > 8'd15) || !bus_master_en_i;
                // a failed burst asks for nothing
                sissued_q[tail] <= ((s_host_arlen_i > 8'd15) || !bus_master_en_i) ?
                                   ({1'b0, s_host_arlen_i[3:0], 3'b000} + 9'd8) : 9'd0;
                tail_q <= tail_q + 1'b1;
            end
            // ---- read issue ----------------------------------------------------------------
            if (iss_any && iss_done) iss_q <= iss_q + 1'b1;
            if (r_start) begin
                own_q <= OwnR;
                wlast_own_q <= 1'b0;
                rk_q <= 1'b0;
                rtag_q <= tfree;
                rdw_q <= rlen[12:2];
                raddr_q <= rtlp_addr[63:2];
                tst_q[tfree] <= TOut;
                tslot_q[tfree] <= iss;
                toff_q[tfree] <= sissued_q[iss][6:2];
                tmrg_q[tfree] <= rmerge;
                ttmr_q[tfree] <= 32'd0;
                if (rmerge) begin
                    rdw_q <= 11'd64;
                    tbytes_q[tfree] <= 9'd256;
                    sissued_q[iss] <= 9'd128;
                    sissued_q[iss1] <= 9'd128;
                end else begin
                    tbytes_q[tfree] <= rlen[8:0];
                    sissued_q[iss] <= sissued_q[iss] + rlen[8:0];
                end
            end
            if (own_q == OwnR && rq_fire) begin
                rk_q <= 1'b1;
                if (rk_q) own_q <= OwnNone;
            end
            if (own_q == OwnW && rq_fire && w_tlast) own_q <= OwnNone;

            // ---- tag timers --------------------------------------------------------------
            for (s = 0; s < Tags; s = s + 1) begin
                if (tst_q[s] != TFree && !(r_start && tfree == s[TB-1:0])) ttmr_q[s] <= ttmr_q[s] + 32'd1;
            end
            if (tmo_ok) begin
                ttmr_q[tmo] <= 32'd0;
                if (tst_q[tmo] == TOut) begin
                    tst_q[tmo] <= TLate;
                    serr_q[tslot_q[tmo]] <= 1'b1;
                    if (tmrg_q[tmo]) serr_q[tslot_q[tmo] + 1'b1] <= 1'b1;
                end else begin
                    tst_q[tmo] <= TFree;
                end
            end

            // ---- RC ------------------------------------------------------------------------
            if (rc_fire) begin
                case (ck_q)
                    2'd0: begin
                        cla_q <= s_axis_rc_tdata_i[11:0];
                        cec_q <= s_axis_rc_tdata_i[15:12];
                        cbc_q <= s_axis_rc_tdata_i[28:16];
                        cdw_q <= s_axis_rc_tdata_i[42:32];
                        cst_q <= s_axis_rc_tdata_i[45:43];
                        cep_q <= s_axis_rc_tdata_i[46];
                        cdisc_q <= s_axis_rc_tuser_i[42];
                        ck_q <= s_axis_rc_tlast_i ? 2'd0 : 2'd1;
                    end
                    2'd1: begin
                        ctag_q <= rc_tag;
                        cbase_q <= rc_base;
                        cm_q <= 10'd1;
                        cdisc_q <= cdisc_q | s_axis_rc_tuser_i[42];
                        ck_q <= s_axis_rc_tlast_i ? 2'd0 : 2'd2;
                    end
                    default: begin
                        cm_q <= cm_q + 10'd2;
                        cdisc_q <= cdisc_q | s_axis_rc_tuser_i[42];
                        if (s_axis_rc_tlast_i) ck_q <= 2'd0;
                    end
                endcase
                if (rc_live && !rc_bad) begin
                    if (rc_v0) rbuf_q[rc_f0] <= s_axis_rc_tdata_i[31:0];
                    if (rc_v1) rbuf_q[rc_f1] <= s_axis_rc_tdata_i[63:32];
                end
                // a timed-out tag is free again only after the last piece of its late
                // answer: a piece before it would otherwise land in the tag's next request
                if (rc_end && rc_tag_ok && tst_q[rc_tag] == TLate && rc_last) tst_q[rc_tag] <= TFree;
                if (rc_end && rc_live && rc_bad) begin
                    serr_q[rc_slot] <= 1'b1;
                    if (tmrg_q[rc_tag]) serr_q[rc_slot1] <= 1'b1;
                end
                if (rc_tag_done) tst_q[rc_tag] <= TFree;
            end

            // ---- outstanding counts per slot ---------------------------------------------
            for (s = 0; s < Slots; s = s + 1) begin
                spend_q[s] <= spend_q[s]
                    + ((r_start && iss == s[SB-1:0]) ? 5'd1 : 5'd0)
                    + ((r_start && rmerge && iss1 == s[SB-1:0]) ? 5'd1 : 5'd0)
                    - ((rc_tag_done && rc_slot == s[SB-1:0]) ? 5'd1 : 5'd0)
                    - ((rc_tag_done && tmrg_q[rc_tag] && rc_slot1 == s[SB-1:0]) ? 5'd1 : 5'd0)
                    - ((tmo_ok && tst_q[tmo] == TOut && tslot_q[tmo] == s[SB-1:0]) ? 5'd1 : 5'd0)
                    - ((tmo_ok && tst_q[tmo] == TOut && tmrg_q[tmo] &&
                        tslot_q[tmo] + 1'b1 == s[SB-1:0]) ? 5'd1 : 5'd0);
            end
            if (s_host_arvalid_i && !full) spend_q[tail] <= 5'd0;

            // ---- R -------------------------------------------------------------------------
            if (head_rdy && s_host_rready_i) begin
                rb_q <= rb_q + 8'd1;
                if (s_host_rlast_o) begin
                    rb_q <= 8'd0;
                    head_q <= head_q + 1'b1;
                end
            end
        end
    end

    wire unused = ^{s_host_awsize_i, s_host_awburst_i, s_host_awlock_i, s_host_awcache_i,
                    s_host_awprot_i, s_host_arsize_i, s_host_arburst_i, s_host_arlock_i,
                    s_host_arcache_i, s_host_arprot_i, s_host_awlen_i[7:4], s_host_arlen_i[7:4],
                    s_axis_rc_tkeep_i, s_axis_rc_tuser_i[74:43], s_axis_rc_tuser_i[41:0],
                    s_axis_rc_tdata_i[63:47], s_axis_rc_tdata_i[31:29], rc_tag8,
                    cla_q[11:2], wlim, rlen, cdw_q, rc_m0, rc_m1,
                    wtlp_addr, rtlp_addr, wn1, wg1[0], cm_q, rc_done_bytes, rlen2,
                    s_host_awaddr_i[2:0], s_host_araddr_i[2:0]};
endmodule
`default_nettype wire
