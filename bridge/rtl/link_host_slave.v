`default_nettype none
`include "cmn_param.vh"
// link_host_slave: the AXI4 slave that takes gpu_core's m_host (DMA to host memory) and turns
// each burst into one DMA_RD or DMA_WR request frame (bridge/PROTOCOL.md, "DMA").
// Contract:
//   - AR/AW are accepted one at a time while a tag is free (DmaTags tags); each gets a TAG and
//     its request frame is written through a link_tx producer port (tw_*). A read becomes
//     DMA_RD {TAG, address & ~7, DWORDS = 2 * (ARLEN + 1)}; a write DMA_WR {LBE, FBE, TAG,
//     address & ~7} with 2 * (AWLEN + 1) data words, FBE = the first beat's WSTRB[3:0], LBE =
//     the last beat's WSTRB[7:4] (gpu_core's bursts carry WSTRB 0xFF or 0x00). W beats are
//     taken only after their AW, at one per two cycles (one 32-bit word per cycle on the link);
//     AW never waits for W. A burst whose strobes are all zero (a drain) sends no frame and is
//     answered OKAY. A burst longer than 16 beats sends no frame and is answered SLVERR.
//   - Answers (hs_*, from link_dispatch: DMA_RD_RSP / DMA_WR_RSP payloads, in any order) are
//     matched by TAG; an answer to a tag not waiting for one (late, unknown, wrong kind) is
//     dropped. A read answer OKAY without exactly DWORDS words completes SLVERR; read data wait
//     in a DmaTags x 16 x 8-byte RAM.
//   - R bursts go out in AR order and B responses in AW order (AXI's per-ID order kept by a
//     stronger one), each once its answer is there; RLAST on the last beat.
//   - A request unanswered for DmaTimeout cycles completes SLVERR; its tag stays unused for
//     another DmaTimeout cycles or until the late answer comes (which is dropped).
//   - lreset_i: every request not yet answered completes SLVERR and no late answer is awaited;
//     W beats owed by accepted AWs are still taken; a frame being written is dropped by link_tx.
module link_host_slave #(
    parameter DmaTags    = 8,          // power of two, 2..16
    parameter DmaTimeout = 16777216,   // cycles
    parameter IdBits     = 4,
    parameter AddrBits   = 64
) (
    input  wire                clk_i,
    input  wire                rst_i,
    input  wire                lreset_i,
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
    localparam integer TB = (DmaTags <= 2) ? 1 : (DmaTags <= 4) ? 2 : (DmaTags <= 8) ? 3 : 4;
    localparam [1:0] T_FREE = 2'd0, T_PEND = 2'd1, T_WAIT = 2'd2, T_DONE = 2'd3;
    localparam [2:0] S_IDLE = 3'd0, S_RD_G = 3'd1, S_RD_W = 3'd2, S_WR_G = 3'd3, S_WR_A = 3'd4,
                     S_WR_W = 3'd5, S_DONE = 3'd6;

    generate
        if (DmaTags != (1 << TB) || DmaTags > 16) begin : g_bad_0
            `CMN_PARAM_ERROR("link_host_slave: DmaTags must be 2, 4, 8 or 16")
        end
        if (DmaTimeout < 16) begin : g_bad_1
            `CMN_PARAM_ERROR("link_host_slave: DmaTimeout too small")
        end
        if (AddrBits != 64) begin : g_bad_2
            `CMN_PARAM_ERROR("link_host_slave: AddrBits must be 64 (gpu_core's host bus)")
        end
    endgenerate

    wire unused_axi = ^{s_host_awsize_i, s_host_awburst_i, s_host_awlock_i, s_host_awcache_i,
                        s_host_awprot_i, s_host_arsize_i, s_host_arburst_i, s_host_arlock_i,
                        s_host_arcache_i, s_host_arprot_i, s_host_wlast_i,
                        s_host_awaddr_i[2:0], s_host_araddr_i[2:0]};

    // ---- tags -------------------------------------------------------------------------------
    reg  [1:0]        st_q [0:DmaTags-1];
    reg               zomb_q [0:DmaTags-1];
    reg               wrt_q [0:DmaTags-1];
    reg               wdone_q [0:DmaTags-1];
    reg  [IdBits-1:0] id_q [0:DmaTags-1];
    reg  [7:0]        blen_q [0:DmaTags-1];
    reg  [1:0]        resp_q [0:DmaTags-1];
    reg  [31:0]       tmr_q [0:DmaTags-1];

    reg          free_ok;
    reg [TB-1:0] free_tag;
    wire [DmaTags-1:0] avail;
    genvar gt;
    generate
        for (gt = 0; gt < DmaTags; gt = gt + 1) begin : g_avail
            assign avail[gt] = (st_q[gt] == T_FREE) && !zomb_q[gt];
        end
    endgenerate
    integer i;
    always @(*) begin
        free_ok = 1'b0;
        free_tag = {TB{1'b0}};
        for (i = DmaTags - 1; i >= 0; i = i - 1) begin
            if (avail[i]) begin
                free_ok = 1'b1;
                free_tag = i[TB-1:0];
            end
        end
    end

    // ---- request sender ---------------------------------------------------------------------
    reg  [2:0]          ss_q;
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

    wire pick_aw = s_host_awvalid_i && (pri_q || !s_host_arvalid_i);
    wire pick_ar = s_host_arvalid_i && !pick_aw;
    assign s_host_awready_o = (ss_q == S_IDLE) && free_ok && pick_aw;
    assign s_host_arready_o = (ss_q == S_IDLE) && free_ok && pick_ar;
    assign tw_req_o = ((ss_q == S_RD_G) || (ss_q == S_WR_G)) && !stale_q;
    wire   gnt = tw_gnt_i || stale_q || drop_q;
    assign s_host_wready_o = (ss_q == S_WR_W) && h_q;
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
            S_WR_G: tw_max_o = {7'd0, slen_q, 1'b0} + 16'd5;
            S_RD_W: begin
                tw_wvalid_o = 1'b1;
                tw_wdata_o = (k_q == 2'd0) ? {saddr_q[31:3], 3'b000} :
                             (k_q == 2'd1) ? saddr_q[63:32] : {23'd0, slen_q, 1'b0} + 32'd2;
            end
            S_WR_A: begin
                tw_wvalid_o = 1'b1;
                tw_wdata_o = (k_q == 2'd0) ? {saddr_q[31:3], 3'b000} : saddr_q[63:32];
            end
            S_WR_W: begin
                tw_wvalid_o = s_host_wvalid_i;
                tw_wdata_o = h_q ? s_host_wdata_i[63:32] : s_host_wdata_i[31:0];
            end
            default: ;
        endcase
    end

    // ---- answers ----------------------------------------------------------------------------
    assign hs_ready_o = 1'b1;
    reg  [TB-1:0] atag_q;
    reg           aok_q;          // the answer's tag is a read waiting for it
    reg  [1:0]    aresp_q;
    reg  [5:0]    awords_q;       // data words taken (saturates at 33)
    reg  [31:0]   alo_q;
    wire [TB-1:0] h_tag = hs_data_i[TB-1:0];
    wire          h_tag_ok = (hs_data_i[7:TB] == {(8 - TB){1'b0}});
    wire [TB-1:0] a_tag = hs_head_i ? h_tag : atag_q;
    wire          a_wait = (st_q[a_tag] == T_WAIT) && (wrt_q[a_tag] == hs_wr_i) &&
                           (hs_head_i ? h_tag_ok : aok_q);
    wire          a_data = hs_valid_i && !hs_head_i && a_wait && awords_q < 6'd32;
    wire          ram_we = a_data && awords_q[0];
    wire [TB+3:0] ram_wa = {atag_q, awords_q[4:1]};
    wire [63:0]   ram_wd = {hs_data_i, alo_q};
    wire [5:0]    a_words_n = awords_q + {5'd0, (hs_valid_i && !hs_head_i && awords_q < 6'd33)};
    wire [8:0]    a_need = {blen_q[a_tag], 1'b0} + 9'd2;

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

    reg timeout_d;
  reg [31:0] alo_d ;
  reg any_d ;
  reg aok_d ;
  reg [1:0] aresp_d ;
  reg [TB-1:0] atag_d ;
  reg [5:0] awords_d ;
  reg [7:0] blen_d [0:DmaTags-1];
  reg [TB:0] bq_cnt_d ;
  reg [TB-1:0] bq_d [0:DmaTags-1];
  reg [TB-1:0] bq_rd_d ;
  reg [TB-1:0] bq_wr_d ;
  reg drop_d ;
  reg [3:0] fbe_d ;
  reg first_d ;
  reg h_d ;
  reg [IdBits-1:0] id_d [0:DmaTags-1];
  reg [1:0] k_d ;
  reg [3:0] lbe_d ;
  reg [1:0] of_cnt_d ;
  reg [63+IdBits+3:0] of_d [0:1];
  reg of_rd_d ;
  reg of_wr_d ;
  reg pri_d ;
  reg [1:0] resp_d [0:DmaTags-1];
  reg [7:0] ri_d ;
  reg [IdBits-1:0] rinf_id_d ;
  reg rinf_last_d ;
  reg rinf_d ;
  reg [1:0] rinf_resp_d ;
  reg [TB:0] rq_cnt_d ;
  reg [TB-1:0] rq_d [0:DmaTags-1];
  reg [TB-1:0] rq_rd_d ;
  reg [TB-1:0] rq_wr_d ;
  reg [63:3] saddr_d ;
  reg [7:0] sbeats_d ;
  reg scommit_d ;
  reg [7:0] slen_d ;
  reg [15:0] slenw_d ;
  reg [2:0] ss_d ;
  reg [1:0] st_d [0:DmaTags-1];
  reg [TB-1:0] stag_d ;
  reg stale_d ;
  reg [7:0] stype_d ;
  reg [31:0] tmr_d [0:DmaTags-1];
  reg wdone_d [0:DmaTags-1];
  reg wrt_d [0:DmaTags-1];
  reg zomb_d [0:DmaTags-1];
    always @(*) begin
        timeout_d = 1'b0;
        alo_d = alo_q;
        any_d = any_q;
        aok_d = aok_q;
        aresp_d = aresp_q;
        atag_d = atag_q;
        awords_d = awords_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) blen_d[i] = blen_q[i];
        bq_cnt_d = bq_cnt_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) bq_d[i] = bq_q[i];
        bq_rd_d = bq_rd_q;
        bq_wr_d = bq_wr_q;
        drop_d = drop_q;
        fbe_d = fbe_q;
        first_d = first_q;
        h_d = h_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) id_d[i] = id_q[i];
        k_d = k_q;
        lbe_d = lbe_q;
        of_cnt_d = of_cnt_q;
        for (i = 0; i < (1) + 1; i = i + 1) of_d[i] = of_q[i];
        of_rd_d = of_rd_q;
        of_wr_d = of_wr_q;
        pri_d = pri_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) resp_d[i] = resp_q[i];
        ri_d = ri_q;
        rinf_id_d = rinf_id_q;
        rinf_last_d = rinf_last_q;
        rinf_d = rinf_q;
        rinf_resp_d = rinf_resp_q;
        rq_cnt_d = rq_cnt_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) rq_d[i] = rq_q[i];
        rq_rd_d = rq_rd_q;
        rq_wr_d = rq_wr_q;
        saddr_d = saddr_q;
        sbeats_d = sbeats_q;
        scommit_d = scommit_q;
        slen_d = slen_q;
        slenw_d = slenw_q;
        ss_d = ss_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) st_d[i] = st_q[i];
        stag_d = stag_q;
        stale_d = stale_q;
        stype_d = stype_q;
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) tmr_d[i] = tmr_q[i];
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) wdone_d[i] = wdone_q[i];
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) wrt_d[i] = wrt_q[i];
        for (i = 0; i < (DmaTags-1) + 1; i = i + 1) zomb_d[i] = zomb_q[i];
        timeout_d = 1'b0;
        if (rst_i) begin
            for (i = 0; i < DmaTags; i = i + 1) begin
                st_d[i] = T_FREE;
                zomb_d[i] = 1'b0;
                wrt_d[i] = 1'b0;
                wdone_d[i] = 1'b0;
                id_d[i] = {IdBits{1'b0}};
                blen_d[i] = 8'd0;
                resp_d[i] = 2'd0;
                tmr_d[i] = 32'd0;
            end
            ss_d = S_IDLE;
            pri_d = 1'b0;
            stag_d = {TB{1'b0}};
            saddr_d = 61'd0;
            slen_d = 8'd0;
            k_d = 2'd0;
            h_d = 1'b0;
            first_d = 1'b0;
            any_d = 1'b0;
            drop_d = 1'b0;
            stale_d = 1'b0;
            fbe_d = 4'd0;
            lbe_d = 4'd0;
            scommit_d = 1'b0;
            stype_d = 8'd0;
            slenw_d = 16'd0;
            sbeats_d = 8'd0;
            atag_d = {TB{1'b0}};
            aok_d = 1'b0;
            aresp_d = 2'd0;
            awords_d = 6'd0;
            alo_d = 32'd0;
            rq_rd_d = {TB{1'b0}};
            rq_wr_d = {TB{1'b0}};
            rq_cnt_d = {(TB+1){1'b0}};
            bq_rd_d = {TB{1'b0}};
            bq_wr_d = {TB{1'b0}};
            bq_cnt_d = {(TB+1){1'b0}};
            ri_d = 8'd0;
            rinf_d = 1'b0;
            rinf_last_d = 1'b0;
            rinf_resp_d = 2'd0;
            rinf_id_d = {IdBits{1'b0}};
            of_rd_d = 1'b0;
            of_wr_d = 1'b0;
            of_cnt_d = 2'd0;
        end else begin
            // ---- timers ----
            for (i = 0; i < DmaTags; i = i + 1) begin
                if (st_q[i] == T_WAIT || zomb_q[i]) tmr_d[i] = tmr_q[i] + 32'd1;
                if (st_q[i] == T_WAIT && tmr_q[i] >= DmaTimeout - 1) begin
                    st_d[i] = T_DONE;
                    resp_d[i] = 2'd2;
                    zomb_d[i] = 1'b1;
                    tmr_d[i] = 32'd0;
                    timeout_d = 1'b1;
                end else if (zomb_q[i] && st_q[i] != T_WAIT && tmr_q[i] >= DmaTimeout - 1) begin
                    zomb_d[i] = 1'b0;
                end
            end

            // ---- sender ----
            case (ss_q)
                S_IDLE: begin
                    k_d = 2'd0;
                    h_d = 1'b0;
                    first_d = 1'b1;
                    any_d = 1'b0;
                    drop_d = 1'b0;
                    stale_d = 1'b0;
                    fbe_d = 4'd0;
                    lbe_d = 4'd0;
                    if (s_host_awready_o || s_host_arready_o) begin
                        stag_d = free_tag;
                        st_d[free_tag] = T_PEND;
                        wdone_d[free_tag] = 1'b0;
                        resp_d[free_tag] = 2'd0;
                        tmr_d[free_tag] = 32'd0;
                        pri_d = !pri_q;
                    end
                    if (s_host_arready_o) begin
                        saddr_d = s_host_araddr_i[63:3];
                        slen_d = s_host_arlen_i;
                        wrt_d[free_tag] = 1'b0;
                        id_d[free_tag] = s_host_arid_i;
                        blen_d[free_tag] = s_host_arlen_i;
                        rq_d[rq_wr_q] = free_tag;
                        rq_wr_d = rq_wr_q + {{(TB-1){1'b0}}, 1'b1};
                        if (s_host_arlen_i > 8'd15) begin
                            st_d[free_tag] = T_DONE;
                            resp_d[free_tag] = 2'd2;
                        end else begin
                            ss_d = S_RD_G;
                        end
                    end
                    if (s_host_awready_o) begin
                        saddr_d = s_host_awaddr_i[63:3];
                        slen_d = s_host_awlen_i;
                        wrt_d[free_tag] = 1'b1;
                        id_d[free_tag] = s_host_awid_i;
                        blen_d[free_tag] = s_host_awlen_i;
                        bq_d[bq_wr_q] = free_tag;
                        bq_wr_d = bq_wr_q + {{(TB-1){1'b0}}, 1'b1};
                        drop_d = s_host_awlen_i > 8'd15;
                        ss_d = S_WR_G;
                    end
                end
                S_RD_G: if (gnt) ss_d = S_RD_W;
                S_RD_W: begin
                    k_d = k_q + 2'd1;
                    if (k_q == 2'd2) begin
                        scommit_d = 1'b1;
                        stype_d = 8'h20;
                        slenw_d = 16'd4;
                        ss_d = S_DONE;
                    end
                end
                S_WR_G: if (gnt) ss_d = S_WR_A;
                S_WR_A: begin
                    k_d = k_q + 2'd1;
                    if (k_q == 2'd1) begin
                        ss_d = S_WR_W;
                        sbeats_d = 8'd0;
                    end
                end
                S_WR_W: if (s_host_wvalid_i) begin
                    h_d = !h_q;
                    if (!h_q && first_q) fbe_d = s_host_wstrb_i[3:0];
                    if (h_q) begin
                        first_d = 1'b0;
                        lbe_d = s_host_wstrb_i[7:4];
                        sbeats_d = sbeats_q + 8'd1;
                        if (s_host_wstrb_i != 8'd0) any_d = 1'b1;
                        if (sbeats_q == slen_q) begin
                            scommit_d = !drop_q && (any_q || s_host_wstrb_i != 8'd0);
                            stype_d = 8'h21;
                            slenw_d = {7'd0, slen_q, 1'b0} + 16'd5;
                            ss_d = S_DONE;
                        end
                    end
                end
                S_DONE: begin
                    ss_d = S_IDLE;
                    if (wrt_q[stag_q]) wdone_d[stag_q] = 1'b1;
                    if (st_q[stag_q] == T_PEND) begin
                        if (drop_q) begin
                            st_d[stag_q] = T_DONE;
                            resp_d[stag_q] = 2'd2;
                        end else if (!scommit_q) begin
                            st_d[stag_q] = T_DONE;
                            resp_d[stag_q] = 2'd0;
                        end else if (!stale_q) begin
                            st_d[stag_q] = T_WAIT;
                            tmr_d[stag_q] = 32'd0;
                        end
                    end
                end
                default: ss_d = S_IDLE;
            endcase

            // ---- answers ----
            if (hs_valid_i) begin
                if (hs_head_i) begin
                    atag_d = h_tag;
                    aok_d = a_wait;
                    aresp_d = hs_data_i[17:16];
                    awords_d = 6'd0;
                    if (!a_wait && h_tag_ok && zomb_q[h_tag] && st_q[h_tag] != T_WAIT)
                        zomb_d[h_tag] = 1'b0;
                end else begin
                    awords_d = a_words_n;
                    if (!awords_q[0]) alo_d = hs_data_i;
                end
                if (hs_last_i && a_wait) begin
                    st_d[a_tag] = T_DONE;
                    zomb_d[a_tag] = 1'b0;
                    if (hs_wr_i)
                        resp_d[a_tag] = hs_data_i[17:16];
                    else if (hs_head_i)
                        resp_d[a_tag] = (hs_data_i[17:16] == 2'd0) ? 2'd2 : hs_data_i[17:16];
                    else
                        resp_d[a_tag] = (aresp_q != 2'd0) ? aresp_q :
                                         ({3'd0, a_words_n} == a_need) ? 2'd0 : 2'd2;
                end
            end

            // ---- R ----
            rinf_d = r_issue;
            if (r_issue) begin
                rinf_last_d = r_is_last;
                rinf_resp_d = resp_q[r_tag];
                rinf_id_d = id_q[r_tag];
                ri_d = ri_q + 8'd1;
                if (r_is_last) begin
                    ri_d = 8'd0;
                    st_d[r_tag] = T_FREE;
                    rq_rd_d = rq_rd_q + {{(TB-1){1'b0}}, 1'b1};
                end
            end
            if (rinf_q) begin
                of_d[of_wr_q] = {rinf_id_q, rinf_resp_q, rinf_last_q,
                                  (rinf_resp_q == 2'd0) ? ram_rd : 64'd0};
                of_wr_d = !of_wr_q;
            end
            of_cnt_d = of_cnt_q + {1'b0, rinf_q} - {1'b0, r_pop};
            if (r_pop) of_rd_d = !of_rd_q;
            rq_cnt_d = rq_cnt_q + {{TB{1'b0}}, s_host_arready_o && s_host_arvalid_i}
                                 - {{TB{1'b0}}, r_issue && r_is_last};
            // ---- B ----
            if (b_pop) begin
                st_d[b_tag] = T_FREE;
                bq_rd_d = bq_rd_q + {{(TB-1){1'b0}}, 1'b1};
            end
            bq_cnt_d = bq_cnt_q + {{TB{1'b0}}, s_host_awready_o && s_host_awvalid_i}
                                 - {{TB{1'b0}}, b_pop};

            // ---- link reset ----
            if (lreset_i) begin
                for (i = 0; i < DmaTags; i = i + 1) begin
                    zomb_d[i] = 1'b0;
                    if (st_q[i] == T_PEND || st_q[i] == T_WAIT) begin
                        st_d[i] = T_DONE;
                        resp_d[i] = 2'd2;
                    end
                end
                if (ss_q != S_IDLE) stale_d = 1'b1;
            end
        end
    end
    // ---- registers ----
    always @(posedge clk_i) begin
        timeout_o <= timeout_d;
        alo_q <= alo_d;
        any_q <= any_d;
        aok_q <= aok_d;
        aresp_q <= aresp_d;
        atag_q <= atag_d;
        awords_q <= awords_d;
        bq_cnt_q <= bq_cnt_d;
        bq_rd_q <= bq_rd_d;
        bq_wr_q <= bq_wr_d;
        drop_q <= drop_d;
        fbe_q <= fbe_d;
        first_q <= first_d;
        h_q <= h_d;
        k_q <= k_d;
        lbe_q <= lbe_d;
        of_cnt_q <= of_cnt_d;
        of_rd_q <= of_rd_d;
        of_wr_q <= of_wr_d;
        pri_q <= pri_d;
        ri_q <= ri_d;
        rinf_id_q <= rinf_id_d;
        rinf_last_q <= rinf_last_d;
        rinf_q <= rinf_d;
        rinf_resp_q <= rinf_resp_d;
        rq_cnt_q <= rq_cnt_d;
        rq_rd_q <= rq_rd_d;
        rq_wr_q <= rq_wr_d;
        saddr_q <= saddr_d;
        sbeats_q <= sbeats_d;
        scommit_q <= scommit_d;
        slen_q <= slen_d;
        slenw_q <= slenw_d;
        ss_q <= ss_d;
        stag_q <= stag_d;
        stale_q <= stale_d;
        stype_q <= stype_d;
    end
    genvar ga;
    generate
        for (ga = 0; ga < (DmaTags-1) + 1; ga = ga + 1) begin : g_r0
            always @(posedge clk_i) begin
                blen_q[ga] <= blen_d[ga];
                bq_q[ga] <= bq_d[ga];
                id_q[ga] <= id_d[ga];
                resp_q[ga] <= resp_d[ga];
                rq_q[ga] <= rq_d[ga];
                st_q[ga] <= st_d[ga];
                tmr_q[ga] <= tmr_d[ga];
                wdone_q[ga] <= wdone_d[ga];
                wrt_q[ga] <= wrt_d[ga];
                zomb_q[ga] <= zomb_d[ga];
            end
        end
        for (ga = 0; ga < (1) + 1; ga = ga + 1) begin : g_r1
            always @(posedge clk_i) begin
                of_q[ga] <= of_d[ga];
            end
        end
    endgenerate
endmodule
`default_nettype wire
