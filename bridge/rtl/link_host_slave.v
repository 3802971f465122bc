// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_host_slave: the AXI4 slave that takes gpu_core's m_host (DMA to host memory) and turns
// its bursts into DMA_RD or DMA_WR request frames (bridge/PROTOCOL.md, "DMA").
// Contract:
//   - AR/AW are accepted one at a time while a tag is free (DmaTags tags); each gets a tag and
//     its request frame is written through a link_tx producer port (tw_*). Reads are joined: a
//     read's DMA_RD waits up to JoinWait cycles after its last burst for the next AR (less if
//     an AW waits or no whole burst would fit), and an AR that continues it (at the next
//     address, on a 128-byte boundary, as gpu_core's copies do; in the same 4 KiB page; the
//     request at most min(JoinBeats, 512, (MaxPayload - 1) / 2) beats) joins it, until its
//     frame is written: the tag of its first burst (the leader) is the request's TAG, the
//     others are members of the leader's group. A read group becomes DMA_RD {TAG,
//     address & ~7, DWORDS = 2 * its beats}. Writes are joined too when WrJoinWait != 0: after
//     a burst's last W beat the DMA_WR being written waits up to WrJoinWait cycles (less if an
//     AR waits) for an AW that continues it (at the next address, on a 128-byte boundary, in
//     the same page, the request at most min(WrJoinBeats, (MaxPayload - 3) / 2, the host's
//     (MaxPayload - 3) / 2) beats) whose first W beat is there with WSTRB 0xFF, and takes it
//     when every beat written so far had WSTRB 0xFF; the group is kept as a read's. The host's
//     MaxPayload is the one of its last HELLO (hello_i, hello_maxp_i), 1027 after a reset; one
//     below 35 allows no joining. A write group becomes DMA_WR {LBE, FBE, TAG, address & ~7}
//     with 2 x its beats data words, FBE = the first beat's WSTRB[3:0], LBE = the last beat's
//     WSTRB[7:4] (gpu_core's bursts carry WSTRB 0xFF or 0x00 on every beat, so only the first
//     and the last word of a request may be partial). W beats are taken only after their AW,
//     at one per two cycles (one 32-bit word per cycle on the link); AW never waits for W,
//     except that an AW is joined only with its first W beat. A burst whose strobes are all
//     zero (a drain) sends no frame and is answered OKAY. A burst longer than 16 beats sends no
//     frame and is answered SLVERR.
//   - Answers (hs_*, from link_dispatch: DMA_RD_RSP / DMA_WR_RSP payloads, in any order; always
//     taken, and registered before they are looked at) are matched by TAG, a group's leader's;
//     an answer to a tag not waiting for one (late, unknown, a member's, wrong kind) is
//     dropped. A read answer's words fill the group's bursts in order, and each burst completes
//     (OKAY) as its last word is taken, before the frame ends; at the frame's end, the bursts
//     still waiting complete SLVERR unless the last burst's words came exactly (an error answer,
//     or an OKAY one with too few or too many words). A write answer completes every burst of
//     its group with its RESP. Read data wait in a DmaTags x 16 x 8-byte RAM.
//   - R bursts go out in AR order and B responses in AW order (AXI's per-ID order kept by a
//     stronger one), each once its answer is there; RLAST on the last beat.
//   - A request unanswered for DmaTimeout cycles completes SLVERR (every burst of a group: they
//     start waiting in the same cycle); its tags stay unused for another DmaTimeout cycles or
//     until the late answer comes (which is dropped; it frees the leader's). One shared
//     prescaler ticks every ceil(DmaTimeout / 256) cycles and each tag counts ticks in 9 bits,
//     so a timeout fires between DmaTimeout and DmaTimeout + ceil(DmaTimeout / 256) cycles
//     after the request went out (never earlier).
//   - lreset_i: every request not yet answered completes SLVERR and no late answer is awaited;
//     W beats owed by accepted AWs are still taken; a frame being written is dropped by link_tx.
module link_host_slave #(
    parameter DmaTags    = 8,          // power of two, 2..64
    parameter DmaTimeout = 16777216,   // cycles
    parameter MaxPayload = 1027,       // words (>= 35): a DMA_RD_RSP is at most this long
    parameter JoinWait   = 0,          // cycles a read request waits for an AR to join (0..255;
                                       // 0: no joining, one request per burst)
    parameter JoinBeats  = 512,        // the most beats one DMA_RD asks for (16..512)
    parameter WrJoinWait = 0,          // cycles a DMA_WR waits for an AW to join (0..255;
                                       // 0: no joining, one request per burst)
    parameter WrJoinBeats = 512,       // the most beats one DMA_WR carries (16..512)
    parameter IdBits     = 4,
    parameter AddrBits   = 64
) (
    input  wire                clk_i,
    input  wire                rst_i,
    input  wire                lreset_i,
    input  wire                hello_i,        // a HELLO was answered: its MaxPayload ...
    input  wire [15:0]         hello_maxp_i,   // ... here, in the same cycle
    // AXI4 slave (gpu_core m_host), 8-byte data
    input  wire [IdBits-1:0]   s_host_awid_i,
    input  wire [AddrBits-1:0] s_host_awaddr_i,
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
    input  wire [AddrBits-1:0] s_host_araddr_i,
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
    // link_tx producer port
    output wire                tw_req_o,
    output reg  [15:0]         tw_max_o,
    input  wire                tw_gnt_i,
    output reg                 tw_wvalid_o,
    output reg  [31:0]         tw_wdata_o,
    output wire                tw_done_o,
    output wire                tw_commit_o,
    output wire [7:0]          tw_type_o,
    output wire [15:0]         tw_len_o,
    output wire [31:0]         tw_head_o,
    // answers from link_dispatch
    input  wire                hs_valid_i,
    output wire                hs_ready_o,
    input  wire                hs_wr_i,
    input  wire                hs_head_i,
    input  wire [31:0]         hs_data_i,
    input  wire                hs_last_i,
    output reg                 timeout_o
);
    localparam integer TB = (DmaTags <= 2) ? 1 : (DmaTags <= 4) ? 2 : (DmaTags <= 8) ? 3 :
                            (DmaTags <= 16) ? 4 : (DmaTags <= 32) ? 5 : 6;
    localparam [1:0] T_FREE = 2'd0, T_PEND = 2'd1, T_WAIT = 2'd2, T_DONE = 2'd3;
    localparam [3:0] S_IDLE = 4'd0, S_RD_G = 4'd1, S_RD_W = 4'd2, S_WR_G = 4'd3, S_WR_A = 4'd4,
                     S_WR_W = 4'd5, S_DONE = 4'd6, S_RD_H = 4'd7, S_WR_H = 4'd8;
    // the most beats one DMA_RD asks for: JoinBeats, its answer (1 + 2 x beats words) within
    // MaxPayload, and never more than a 4 KiB page
    localparam integer JMP = ((MaxPayload - 1) / 2 > 512) ? 512 : (MaxPayload - 1) / 2;
    localparam integer JMAX = (JoinBeats < JMP) ? JoinBeats : JMP;
    localparam [31:0] JMAX32 = JMAX;
    localparam [31:0] JWAIT32 = JoinWait;
    localparam [9:0] JMAX10 = JMAX32[9:0];
    localparam [7:0] JWAIT = JWAIT32[7:0];
    localparam JOIN = (JoinWait != 0);
    localparam JOINW = (WrJoinWait != 0);
    localparam GRP = JOIN || JOINW;
    // the most beats one DMA_WR carries: WrJoinBeats, and the frame within MaxPayload
    localparam integer WJP = ((MaxPayload - 3) / 2 > 512) ? 512 : (MaxPayload - 3) / 2;
    localparam integer WJMAX = (WrJoinBeats < WJP) ? WrJoinBeats : WJP;
    localparam [31:0] WJMAX32 = WJMAX;
    localparam [31:0] WJWAIT32 = WrJoinWait;
    localparam [9:0] WJMAX10 = WJMAX32[9:0];
    localparam [7:0] WJWAIT = WJWAIT32[7:0];
    localparam [31:0] TICK = (DmaTimeout + 255) / 256;   // prescaler period, cycles

    generate
        if (DmaTags != (1 << TB) || DmaTags > 64) begin : g_bad_0
            `CMN_PARAM_ERROR("link_host_slave: DmaTags must be 2, 4, 8, 16, 32 or 64")
        end
        if (DmaTimeout < 512) begin : g_bad_1
            `CMN_PARAM_ERROR("link_host_slave: DmaTimeout must be >= 512")
        end
        if (AddrBits != 64) begin : g_bad_2
            `CMN_PARAM_ERROR("link_host_slave: AddrBits must be 64 (gpu_core's host bus)")
        end
        if (MaxPayload < 35 || MaxPayload > 65535) begin : g_bad_3
            `CMN_PARAM_ERROR("link_host_slave: MaxPayload must be 35..65535")
        end
        if (JoinWait < 0 || JoinWait > 255) begin : g_bad_4
            `CMN_PARAM_ERROR("link_host_slave: JoinWait must be 0..255")
        end
        if (JoinBeats < 16 || JoinBeats > 512) begin : g_bad_5
            `CMN_PARAM_ERROR("link_host_slave: JoinBeats must be 16..512")
        end
        if (WrJoinWait < 0 || WrJoinWait > 255) begin : g_bad_6
            `CMN_PARAM_ERROR("link_host_slave: WrJoinWait must be 0..255")
        end
        if (WrJoinBeats < 16 || WrJoinBeats > 512) begin : g_bad_7
            `CMN_PARAM_ERROR("link_host_slave: WrJoinBeats must be 16..512")
        end
    endgenerate

    wire unused_axi = ^{s_host_awsize_i, s_host_awburst_i, s_host_awlock_i, s_host_awcache_i,
                        s_host_awprot_i, s_host_arsize_i, s_host_arburst_i, s_host_arlock_i,
                        s_host_arcache_i, s_host_arprot_i, s_host_wlast_i,
                        s_host_awaddr_i[2:0], s_host_araddr_i[2:0]};

    // ---- tags: state per tag in flip-flops, the rest in small memories -----------------------
    reg  [1:0]         st_q [0:DmaTags-1];
    reg  [DmaTags-1:0] zomb_q, wrt_q, wdone_q;
    reg  [1:0]         resp_q [0:DmaTags-1];
    reg  [IdBits-1:0]  id_q [0:DmaTags-1];     // written at accept only (no reset)
    reg  [7:0]         blen_q [0:DmaTags-1];
    reg  [TB-1:0]      gld_q [0:DmaTags-1];    // the leader of the tag's request
    reg  [TB-1:0]      nxt_q [0:DmaTags-1];    // the next burst of its group (when more_q)
    reg  [DmaTags-1:0] lead_q, more_q;
    reg  [TB-1:0]      alead_q;                // a read answer's TAG (its group's leader) ...
    reg                abusy_q;                // ... while its words are still coming

    // the lowest free tag, registered: a tag stops being free only when it is taken, so the
    // choice of the cycle before holds unless that cycle took a tag (take_q)
    reg  [DmaTags-1:0] avail;
    reg                free_ok_n, free_ok_q, take_q;
    reg  [TB-1:0]      free_tag_n, free_tag;
    wire               free_ok = free_ok_q && !take_q;
    integer i;
    always @(*) begin
        free_ok_n = 1'b0;
        free_tag_n = {TB{1'b0}};
        // the leader of a read answer being taken stays unused until its end: its words may
        // complete (and free) the leader's burst before the group's later bursts
        for (i = 0; i < DmaTags; i = i + 1)
            avail[i] = (st_q[i] == T_FREE) && !zomb_q[i] &&
                       !(JOIN && abusy_q && alead_q == i[TB-1:0]);
        for (i = DmaTags - 1; i >= 0; i = i - 1) begin
            if (avail[i]) begin
                free_ok_n = 1'b1;
                free_tag_n = i[TB-1:0];
            end
        end
    end

    // ---- request sender ---------------------------------------------------------------------
    reg  [3:0]          ss_q;
    reg                 pri_q;             // 1: AW first
    reg  [TB-1:0]       stag_q;
    reg  [63:3]         saddr_q;
    reg  [7:0]          slen_q;
    reg  [1:0]          k_q;
    reg                 h_q, first_q, any_q, drop_q, stale_q;
    reg  [3:0]          fbe_q, lbe_q;
    reg                 scommit_q;
    reg  [7:0]          stype_q;
    reg  [15:0]         slenw_q;
    reg  [7:0]          sbeats_q;
    reg  [9:0]          gbeats_q;          // beats of the read request being built
    reg  [9:0]          gnext_q;           // saddr[11:3] + gbeats_q: where a joining AR starts
    reg  [7:0]          hold_q;            // cycles left to wait for one
    reg  [TB-1:0]       glast_q;           // its last burst's tag
    reg  [DmaTags-1:0]  grp_q;             // the tags of the request being built
    reg                 wful_q;            // every W beat of the DMA_WR so far had WSTRB 0xFF
    reg  [9:0]          hbud_q;            // beats the host's MaxPayload allows in a DMA_WR
    reg  [9:0]          wlim_q;            // beats the DMA_WR being written may carry

    // the host's MaxPayload: (MaxPayload - 3) / 2 beats of data in a DMA_WR, 512 at most; one
    // below 35 (the protocol's least) allows no joining, and one burst of 16 still goes
    wire [15:0] hmax_m3 = hello_maxp_i - 16'd3;
    wire        unused_hmax = ^{hmax_m3[15:11], hmax_m3[0]};
    wire [9:0]  hbud_n = (hello_maxp_i >= 16'd1027) ? 10'd512 :
                         (hello_maxp_i < 16'd35) ? 10'd16 : hmax_m3[10:1];
    always @(posedge clk_i) begin
        if (rst_i || lreset_i) hbud_q <= 10'd512;
        else if (hello_i) hbud_q <= hbud_n;
    end

    // an AR that continues the read request being built (before its frame is written), judged
    // in the cycle before (jok_q): the AR then waiting is the same one unless that cycle took
    // a tag, and a cycle after a take takes none (free_ok)
    wire [9:0] jbeats = gbeats_q + {2'd0, s_host_arlen_i} + 10'd1;
    reg        jok_q;
    wire       join_ar = JOIN && ((ss_q == S_RD_H) || (ss_q == S_RD_G)) && !stale_q && !lreset_i &&
                         free_ok && s_host_arvalid_i && jok_q;
    // no AR came in time, a write waits, or no whole burst would fit any more
    wire       hold_end = (hold_q == 8'd0) || s_host_awvalid_i || gnext_q[9] ||
                          (gbeats_q + 10'd16 > JMAX10);
    wire [DmaTags-1:0] free_bit = {{(DmaTags-1){1'b0}}, 1'b1} << free_tag;

    // an AW that continues the DMA_WR being written, judged in the cycle before (jwok_q) as a
    // read's; its first W beat must be there, all strobes set, and it is written in the cycle
    // the AW is taken (so a join costs no cycle of the link)
    wire [9:0] jwbeats = gbeats_q + {2'd0, s_host_awlen_i} + 10'd1;
    reg        jwok_q;
    wire       join_aw = JOINW && (ss_q == S_WR_H) && !stale_q && !lreset_i && free_ok &&
                         s_host_awvalid_i && jwok_q && s_host_wvalid_i &&
                         (s_host_wstrb_i == 8'hFF);
    // a burst's last W beat: wait for one to join while one more burst may fit and every beat
    // so far was whole
    wire       wr_hold = JOINW && !drop_q && !stale_q && wful_q && (s_host_wstrb_i == 8'hFF) &&
                         (gbeats_q + 10'd16 <= wlim_q);

    wire pick_aw = s_host_awvalid_i && (pri_q || !s_host_arvalid_i);
    wire pick_ar = s_host_arvalid_i && !pick_aw;
    assign s_host_awready_o = ((ss_q == S_IDLE) && free_ok && pick_aw) || join_aw;
    wire   start_ar = (ss_q == S_IDLE) && free_ok && pick_ar;
    assign s_host_arready_o = start_ar || join_ar;
    wire   take = s_host_awready_o || s_host_arready_o;
    wire   join_one = join_ar || join_aw;
    assign tw_req_o = ((ss_q == S_RD_G) || (ss_q == S_WR_G)) && !stale_q;
    wire   gnt = tw_gnt_i || stale_q || drop_q;
    assign s_host_wready_o = (ss_q == S_WR_W) && h_q;   // a join takes the beat's first word
    assign tw_done_o = (ss_q == S_DONE);
    assign tw_commit_o = scommit_q;
    assign tw_type_o = stype_q;
    assign tw_len_o = slenw_q;
    assign tw_head_o = {8'd0, lbe_q, fbe_q, 8'd0, {(8 - TB){1'b0}}, stag_q};

    always @(*) begin
        tw_max_o = 16'd4;
        tw_wvalid_o = 1'b0;
        tw_wdata_o = 32'd0;
        case (ss_q)
            S_WR_G: tw_max_o = JOINW ? {5'd0, wlim_q, 1'b0} + 16'd3 :
                               {7'd0, slen_q, 1'b0} + 16'd5;
            S_RD_W: begin
                tw_wvalid_o = 1'b1;
                tw_wdata_o = (k_q == 2'd0) ? {saddr_q[31:3], 3'b000} :
                             (k_q == 2'd1) ? saddr_q[63:32] : {21'd0, gbeats_q, 1'b0};
            end
            S_WR_A: begin
                tw_wvalid_o = 1'b1;
                tw_wdata_o = (k_q == 2'd0) ? {saddr_q[31:3], 3'b000} : saddr_q[63:32];
            end
            S_WR_W: begin
                tw_wvalid_o = s_host_wvalid_i;
                tw_wdata_o = h_q ? s_host_wdata_i[63:32] : s_host_wdata_i[31:0];
            end
            S_WR_H: begin
                tw_wvalid_o = join_aw;
                tw_wdata_o = s_host_wdata_i[31:0];
            end
            default: ;
        endcase
    end

    always @(posedge clk_i) begin
        jok_q <= !rst_i && s_host_arvalid_i && (s_host_arlen_i <= 8'd15) &&
                 (s_host_araddr_i[63:12] == saddr_q[63:12]) &&
                 ({1'b0, s_host_araddr_i[11:3]} == gnext_q) && (gnext_q[3:0] == 4'd0) &&
                 (jbeats <= JMAX10);
        jwok_q <= JOINW && !rst_i && s_host_awvalid_i && (s_host_awlen_i <= 8'd15) &&
                  (s_host_awaddr_i[63:12] == saddr_q[63:12]) &&
                  ({1'b0, s_host_awaddr_i[11:3]} == gnext_q) && (gnext_q[3:0] == 4'd0) &&
                  (jwbeats <= wlim_q);
        free_tag <= free_tag_n;
        free_ok_q <= !rst_i && free_ok_n;
        take_q <= !rst_i && take;
        if (rst_i) begin
            ss_q <= S_IDLE;
            pri_q <= 1'b0;
            stag_q <= {TB{1'b0}};
            saddr_q <= 61'd0;
            slen_q <= 8'd0;
            k_q <= 2'd0;
            h_q <= 1'b0;
            first_q <= 1'b0;
            any_q <= 1'b0;
            drop_q <= 1'b0;
            stale_q <= 1'b0;
            fbe_q <= 4'd0;
            lbe_q <= 4'd0;
            scommit_q <= 1'b0;
            stype_q <= 8'd0;
            slenw_q <= 16'd0;
            sbeats_q <= 8'd0;
            gbeats_q <= 10'd0;
            gnext_q <= 10'd0;
            hold_q <= 8'd0;
            glast_q <= {TB{1'b0}};
            grp_q <= {DmaTags{1'b0}};
            wful_q <= 1'b0;
            wlim_q <= 10'd16;
        end else begin
            case (ss_q)
                S_IDLE: begin
                    k_q <= 2'd0;
                    h_q <= 1'b0;
                    first_q <= 1'b1;
                    any_q <= 1'b0;
                    drop_q <= 1'b0;
                    stale_q <= 1'b0;
                    fbe_q <= 4'd0;
                    lbe_q <= 4'd0;
                    wful_q <= 1'b1;
                    wlim_q <= (hbud_q < WJMAX10) ? hbud_q : WJMAX10;
                    if (take) begin
                        stag_q <= free_tag;
                        glast_q <= free_tag;
                        grp_q <= free_bit;
                        pri_q <= !pri_q;
                    end
                    hold_q <= JWAIT;
                    if (JOINW && s_host_awready_o) begin
                        gbeats_q <= {2'd0, s_host_awlen_i} + 10'd1;
                        gnext_q <= {1'b0, s_host_awaddr_i[11:3]} + {2'd0, s_host_awlen_i} + 10'd1;
                    end else begin
                        gbeats_q <= {2'd0, s_host_arlen_i} + 10'd1;
                        gnext_q <= {1'b0, s_host_araddr_i[11:3]} + {2'd0, s_host_arlen_i} +
                                   10'd1;
                    end
                    if (s_host_arready_o) begin
                        saddr_q <= s_host_araddr_i[63:3];
                        slen_q <= s_host_arlen_i;
                        if (s_host_arlen_i <= 8'd15) ss_q <= (JWAIT != 8'd0) ? S_RD_H : S_RD_G;
                    end
                    if (s_host_awready_o) begin
                        saddr_q <= s_host_awaddr_i[63:3];
                        slen_q <= s_host_awlen_i;
                        drop_q <= s_host_awlen_i > 8'd15;
                        ss_q <= S_WR_G;
                    end
                end
                S_RD_H: begin
                    hold_q <= hold_q - 8'd1;
                    if (join_ar) hold_q <= JWAIT;
                    else if (hold_end || stale_q) ss_q <= S_RD_G;
                end
                S_RD_G: if (gnt) ss_q <= S_RD_W;
                S_RD_W: begin
                    k_q <= k_q + 2'd1;
                    if (k_q == 2'd2) begin
                        scommit_q <= 1'b1;
                        stype_q <= 8'h20;
                        slenw_q <= 16'd4;
                        ss_q <= S_DONE;
                    end
                end
                S_WR_G: if (gnt) ss_q <= S_WR_A;
                S_WR_A: begin
                    k_q <= k_q + 2'd1;
                    if (k_q == 2'd1) begin
                        ss_q <= S_WR_W;
                        sbeats_q <= 8'd0;
                    end
                end
                S_WR_W: if (s_host_wvalid_i) begin
                    h_q <= !h_q;
                    if (!h_q && first_q) fbe_q <= s_host_wstrb_i[3:0];
                    if (h_q) begin
                        first_q <= 1'b0;
                        lbe_q <= s_host_wstrb_i[7:4];
                        sbeats_q <= sbeats_q + 8'd1;
                        if (s_host_wstrb_i != 8'd0) any_q <= 1'b1;
                        if (s_host_wstrb_i != 8'hFF) wful_q <= 1'b0;
                        if (sbeats_q == slen_q) begin
                            scommit_q <= !drop_q && (any_q || s_host_wstrb_i != 8'd0);
                            stype_q <= 8'h21;
                            slenw_q <= JOINW ? {5'd0, gbeats_q, 1'b0} + 16'd3 :
                                       {7'd0, slen_q, 1'b0} + 16'd5;
                            hold_q <= WJWAIT;
                            ss_q <= wr_hold ? S_WR_H : S_DONE;
                        end
                    end
                end
                S_WR_H: begin
                    hold_q <= hold_q - 8'd1;
                    if (join_aw) begin
                        // the joined burst's first word is written now; its high half next
                        h_q <= 1'b1;
                        sbeats_q <= 8'd0;
                        slen_q <= s_host_awlen_i;
                        hold_q <= WJWAIT;
                        ss_q <= S_WR_W;
                    end else if (hold_q == 8'd0 || s_host_arvalid_i || stale_q) begin
                        ss_q <= S_DONE;
                    end
                end
                S_DONE: ss_q <= S_IDLE;
                default: ss_q <= S_IDLE;
            endcase
            if (join_ar) begin
                gbeats_q <= jbeats;
                gnext_q <= gnext_q + {2'd0, s_host_arlen_i} + 10'd1;
            end
            if (join_aw) begin
                gbeats_q <= jwbeats;
                gnext_q <= gnext_q + {2'd0, s_host_awlen_i} + 10'd1;
            end
            if (join_one) begin
                glast_q <= free_tag;
                grp_q <= grp_q | free_bit;
            end
            if (lreset_i && ss_q != S_IDLE) stale_q <= 1'b1;
        end
    end

    // id, burst length and group of each tag, written when the tag is taken
    always @(posedge clk_i) begin
        if (take) begin
            id_q[free_tag] <= s_host_arready_o ? s_host_arid_i : s_host_awid_i;
            blen_q[free_tag] <= s_host_arready_o ? s_host_arlen_i : s_host_awlen_i;
            gld_q[free_tag] <= join_one ? stag_q : free_tag;
        end
        if (join_one) nxt_q[glast_q] <= free_tag;
    end
    always @(posedge clk_i) begin
        if (rst_i) begin
            lead_q <= {DmaTags{1'b0}};
            more_q <= {DmaTags{1'b0}};
        end else begin
            if (take) begin
                lead_q <= join_one ? (lead_q & ~free_bit) : (lead_q | free_bit);
                more_q <= more_q & ~free_bit;
            end
            if (join_one) more_q[glast_q] <= 1'b1;
        end
    end

    // ---- answers (registered first) ---------------------------------------------------------
    assign hs_ready_o = 1'b1;
    reg           hv_q, hw_q, hh_q, hl_q;
    reg  [31:0]   hd_q;
    reg  [TB-1:0] atag_q;         // the burst the answer's words go to now
    reg           aok_q;          // the answer's tag is a read waiting for it
    reg  [1:0]    aresp_q;
    reg  [5:0]    awords_q;       // data words taken (saturates at 33)
    reg  [31:0]   alo_q;
    wire [TB-1:0] h_tag = hd_q[TB-1:0];
    wire          h_tag_ok = (hd_q[7:TB] == {(8 - TB){1'b0}});
    wire [TB-1:0] a_tag = hh_q ? h_tag : atag_q;
    wire [TB-1:0] a_lead = hh_q ? h_tag : alead_q;
    wire          a_wait = (st_q[a_tag] == T_WAIT) && (wrt_q[a_tag] == hw_q) &&
                           (hh_q ? (h_tag_ok && (!GRP || lead_q[h_tag])) : aok_q);
    wire          a_data = hv_q && !hh_q && a_wait && awords_q < 6'd32;
    wire          ram_we = a_data && awords_q[0];
    wire [TB+3:0] ram_wa = {atag_q, awords_q[4:1]};
    wire [63:0]   ram_wd = {hd_q, alo_q};
    wire [5:0]    a_words_n = awords_q + {5'd0, (hv_q && !hh_q && awords_q < 6'd33)};
    reg  [8:0]    needm1_q;       // data words the burst atag_q must get, less one
    wire          a_end = hv_q && hl_q && a_wait;
    // the burst's last word, more bursts after it in the group: it completes now
    wire          a_adv = JOIN && hv_q && !hh_q && !hl_q && a_wait && more_q[atag_q] &&
                          ({3'd0, awords_q} == needm1_q);
    wire [TB-1:0] a_next = nxt_q[atag_q];
    // at the frame's end: atag_q's answer; the group's later bursts get SLVERR (or the error)
    wire [1:0]    a_resp = hw_q ? hd_q[17:16] :
                           hh_q ? ((hd_q[17:16] == 2'd0) ? 2'd2 : hd_q[17:16]) :
                           (aresp_q != 2'd0) ? aresp_q :
                           ({3'd0, awords_q} == needm1_q) ? 2'd0 : 2'd2;
    wire [1:0]    a_resp_rest = (hw_q || hh_q || aresp_q != 2'd0) ? a_resp : 2'd2;
    wire          a_late = hv_q && hh_q && !a_wait && h_tag_ok && zomb_q[h_tag] &&
                           (st_q[h_tag] != T_WAIT);

    always @(posedge clk_i) begin
        if (rst_i) begin
            hv_q <= 1'b0;
            hw_q <= 1'b0;
            hh_q <= 1'b0;
            hl_q <= 1'b0;
            hd_q <= 32'd0;
            atag_q <= {TB{1'b0}};
            alead_q <= {TB{1'b0}};
            abusy_q <= 1'b0;
            aok_q <= 1'b0;
            needm1_q <= 9'd0;
            aresp_q <= 2'd0;
            awords_q <= 6'd0;
            alo_q <= 32'd0;
        end else begin
            hv_q <= hs_valid_i;
            hw_q <= hs_wr_i;
            hh_q <= hs_head_i;
            hl_q <= hs_last_i;
            hd_q <= hs_data_i;
            if (lreset_i) abusy_q <= 1'b0;
            else if (hv_q) abusy_q <= hh_q ? (a_wait && !hl_q) : (abusy_q && !hl_q);
            if (hv_q) begin
                if (hh_q) begin
                    atag_q <= h_tag;
                    alead_q <= h_tag;
                    aok_q <= a_wait;
                    needm1_q <= {blen_q[h_tag], 1'b1};
                    aresp_q <= hd_q[17:16];
                    awords_q <= 6'd0;
                end else if (a_adv) begin
                    atag_q <= a_next;
                    needm1_q <= {blen_q[a_next], 1'b1};
                    awords_q <= 6'd0;
                end else begin
                    awords_q <= a_words_n;
                    if (!awords_q[0]) alo_q <= hd_q;
                end
            end
        end
    end

    // ---- R emission: AR-order queue, RAM, 2-entry output FIFO -------------------------------
    reg  [TB-1:0] rq_q [0:DmaTags-1];
    reg  [TB-1:0] rq_rd_q, rq_wr_q;
    reg  [TB:0]   rq_cnt_q;
    reg  [TB-1:0] bq_q [0:DmaTags-1];
    reg  [TB-1:0] bq_rd_q, bq_wr_q;
    reg  [TB:0]   bq_cnt_q;
    wire [TB-1:0] r_tag = rq_q[rq_rd_q];
    wire [TB-1:0] b_tag = bq_q[bq_rd_q];
    reg  [7:0]    ri_q;                 // next beat of r_tag to read
    reg           rinf_q;
    reg           rinf_last_q;
    reg  [1:0]    rinf_resp_q;
    reg  [IdBits-1:0] rinf_id_q;
    reg  [63+IdBits+3:0] of_q [0:1];   // {id, resp, last, data}
    reg           of_rd_q, of_wr_q;
    reg  [1:0]    of_cnt_q;
    wire          r_ready_tag = (rq_cnt_q != {(TB+1){1'b0}}) && (st_q[r_tag] == T_DONE);
    wire          r_issue = r_ready_tag && (({1'b0, of_cnt_q} + {2'd0, rinf_q}) < 3'd2);
    wire          r_is_last = (ri_q == blen_q[r_tag]);
    wire [63:0]   ram_rd;
    link_ram #(.AddrBits(TB + 4), .DataBits(64)) u_data (
        .clk_i(clk_i), .we_i(ram_we), .waddr_i(ram_wa), .wdata_i(ram_wd),
        .re_i(r_issue), .raddr_i({r_tag, ri_q[3:0]}), .rdata_o(ram_rd));
    wire [63+IdBits+3:0] of_head = of_q[of_rd_q];
    assign s_host_rvalid_o = of_cnt_q != 2'd0;
    assign s_host_rdata_o = of_head[63:0];
    assign s_host_rlast_o = of_head[64];
    assign s_host_rresp_o = of_head[66:65];
    assign s_host_rid_o = of_head[63+IdBits+3:67];
    wire   r_pop = s_host_rvalid_o && s_host_rready_i;

    wire   b_ready_tag = (bq_cnt_q != {(TB+1){1'b0}}) && (st_q[b_tag] == T_DONE) && wdone_q[b_tag];
    assign s_host_bvalid_o = b_ready_tag;
    assign s_host_bid_o = id_q[b_tag];
    assign s_host_bresp_o = resp_q[b_tag];
    wire   b_pop = b_ready_tag && s_host_bready_i;

    always @(posedge clk_i) begin
        if (s_host_arready_o) rq_q[rq_wr_q] <= free_tag;
        if (s_host_awready_o) bq_q[bq_wr_q] <= free_tag;
        if (rinf_q) of_q[of_wr_q] <= {rinf_id_q, rinf_resp_q, rinf_last_q,
                                      (rinf_resp_q == 2'd0) ? ram_rd : 64'd0};
    end
    always @(posedge clk_i) begin
        if (rst_i) begin
            rq_rd_q <= {TB{1'b0}};
            rq_wr_q <= {TB{1'b0}};
            rq_cnt_q <= {(TB+1){1'b0}};
            bq_rd_q <= {TB{1'b0}};
            bq_wr_q <= {TB{1'b0}};
            bq_cnt_q <= {(TB+1){1'b0}};
            ri_q <= 8'd0;
            rinf_q <= 1'b0;
            rinf_last_q <= 1'b0;
            rinf_resp_q <= 2'd0;
            rinf_id_q <= {IdBits{1'b0}};
            of_rd_q <= 1'b0;
            of_wr_q <= 1'b0;
            of_cnt_q <= 2'd0;
        end else begin
            if (s_host_arready_o) rq_wr_q <= rq_wr_q + {{(TB-1){1'b0}}, 1'b1};
            if (s_host_awready_o) bq_wr_q <= bq_wr_q + {{(TB-1){1'b0}}, 1'b1};
            rinf_q <= r_issue;
            if (r_issue) begin
                rinf_last_q <= r_is_last;
                rinf_resp_q <= resp_q[r_tag];
                rinf_id_q <= id_q[r_tag];
                ri_q <= r_is_last ? 8'd0 : ri_q + 8'd1;
                if (r_is_last) rq_rd_q <= rq_rd_q + {{(TB-1){1'b0}}, 1'b1};
            end
            if (rinf_q) of_wr_q <= !of_wr_q;
            of_cnt_q <= of_cnt_q + {1'b0, rinf_q} - {1'b0, r_pop};
            if (r_pop) of_rd_q <= !of_rd_q;
            rq_cnt_q <= rq_cnt_q + {{TB{1'b0}}, s_host_arready_o}
                                 - {{TB{1'b0}}, r_issue && r_is_last};
            if (b_pop) bq_rd_q <= bq_rd_q + {{(TB-1){1'b0}}, 1'b1};
            bq_cnt_q <= bq_cnt_q + {{TB{1'b0}}, s_host_awready_o} - {{TB{1'b0}}, b_pop};
        end
    end

    // ---- timeouts: a shared prescaler, 9-bit tick counts per tag -----------------------------
    localparam integer PW = $clog2(TICK + 1);
    localparam [31:0] TICK_M1 = TICK - 32'd1;
    reg  [PW-1:0] pre_q;
    reg           tick_q;
    always @(posedge clk_i) begin
        if (rst_i) begin
            pre_q <= TICK_M1[PW-1:0];
            tick_q <= 1'b0;
        end else begin
            tick_q <= (pre_q == {PW{1'b0}});
            pre_q <= (pre_q == {PW{1'b0}}) ? TICK_M1[PW-1:0] : pre_q - {{(PW-1){1'b0}}, 1'b1};
        end
    end

    // a tag whose last R beat went out or whose B was taken is freed in the cycle after
    reg           rfree_q, bfree_q;
    reg  [TB-1:0] rfree_tag_q, bfree_tag_q;
    always @(posedge clk_i) begin
        rfree_q <= !rst_i && r_issue && r_is_last;
        bfree_q <= !rst_i && b_pop;
        rfree_tag_q <= r_tag;
        bfree_tag_q <= b_tag;
    end

    // ---- per-tag state ----------------------------------------------------------------------
    reg  [DmaTags-1:0] tmo;
    genvar gt;
    generate
        for (gt = 0; gt < DmaTags; gt = gt + 1) begin : g_tag
            localparam [TB-1:0] T = gt;
            reg  [8:0] age_q;               // prescaler ticks while waiting or a zombie
            // the 257th tick: at least 256 whole periods (>= DmaTimeout cycles) have passed
            wire       expired = tick_q && (age_q == 9'd256);
            wire       mine_take = take && (free_tag == T);
            wire       mine_done = (ss_q == S_DONE) && grp_q[gt];
            wire       mine_ans = a_end && (a_tag == T);
            // a later burst of the answer's group, still waiting at the frame's end
            wire       mine_rest = GRP && a_end && (a_tag != T) && (gld_q[gt] == a_lead) &&
                                   (st_q[gt] == T_WAIT) && (wrt_q[gt] == hw_q);
            wire       mine_adv = a_adv && (atag_q == T);
            wire       mine_late = a_late && (h_tag == T);
            wire       mine_r = rfree_q && (rfree_tag_q == T);
            wire       mine_b = bfree_q && (bfree_tag_q == T);
            always @(*) tmo[gt] = (st_q[gt] == T_WAIT) && expired;
            always @(posedge clk_i) begin
                if (rst_i) begin
                    st_q[gt] <= T_FREE;
                    zomb_q[gt] <= 1'b0;
                    wrt_q[gt] <= 1'b0;
                    wdone_q[gt] <= 1'b0;
                    resp_q[gt] <= 2'd0;
                    age_q <= 9'd0;
                end else begin
                    if ((st_q[gt] == T_WAIT || zomb_q[gt]) && tick_q) age_q <= age_q + 9'd1;
                    if (st_q[gt] == T_WAIT && expired) begin
                        st_q[gt] <= T_DONE;
                        resp_q[gt] <= 2'd2;
                        zomb_q[gt] <= 1'b1;
                        age_q <= 9'd0;
                    end else if (zomb_q[gt] && st_q[gt] != T_WAIT && expired) begin
                        zomb_q[gt] <= 1'b0;
                    end
                    if (mine_take) begin
                        st_q[gt] <= T_PEND;
                        wdone_q[gt] <= 1'b0;
                        resp_q[gt] <= 2'd0;
                        age_q <= 9'd0;
                        wrt_q[gt] <= s_host_awready_o;
                        if (s_host_arready_o && s_host_arlen_i > 8'd15) begin
                            st_q[gt] <= T_DONE;
                            resp_q[gt] <= 2'd2;
                        end
                    end
                    if (mine_done) begin
                        if (wrt_q[gt]) wdone_q[gt] <= 1'b1;
                        if (st_q[gt] == T_PEND) begin
                            if (drop_q) begin
                                st_q[gt] <= T_DONE;
                                resp_q[gt] <= 2'd2;
                            end else if (!scommit_q) begin
                                st_q[gt] <= T_DONE;
                                resp_q[gt] <= 2'd0;
                            end else if (!stale_q) begin
                                st_q[gt] <= T_WAIT;
                                age_q <= 9'd0;
                            end
                        end
                    end
                    if (mine_late) zomb_q[gt] <= 1'b0;
                    if (mine_ans) begin
                        st_q[gt] <= T_DONE;
                        zomb_q[gt] <= 1'b0;
                        resp_q[gt] <= a_resp;
                    end
                    if (mine_rest) begin
                        st_q[gt] <= T_DONE;
                        zomb_q[gt] <= 1'b0;
                        resp_q[gt] <= a_resp_rest;
                    end
                    if (mine_adv) begin
                        st_q[gt] <= T_DONE;
                        zomb_q[gt] <= 1'b0;
                        resp_q[gt] <= aresp_q;
                    end
                    if (mine_r || mine_b) st_q[gt] <= T_FREE;
                    if (lreset_i) begin
                        zomb_q[gt] <= 1'b0;
                        if (st_q[gt] == T_PEND || st_q[gt] == T_WAIT) begin
                            st_q[gt] <= T_DONE;
                            resp_q[gt] <= 2'd2;
                        end
                    end
                end
            end
        end
    endgenerate
    always @(posedge clk_i) timeout_o <= !rst_i && (tmo != {DmaTags{1'b0}});
endmodule
`default_nettype wire
