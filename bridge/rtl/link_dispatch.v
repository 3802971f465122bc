// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_dispatch: executes the reliable frames link_rx stored, one at a time and in SEQ order
// (bridge/PROTOCOL.md, "Transactions"):
//   HELLO                -> HELLO_RSP (the parameters below)
//   RD32 / WR32 batches  -> AXI4-Lite accesses of s_csr, in order, one at a time; RD32_RSP /
//                           WR32_RSP (a posted WR32 answers only when an access failed)
//   AP_RD / AP_WR        -> AXI4 INCR bursts of 8-byte beats on s_ap (<= 16 beats each; the
//                           request never crosses 4 KiB, so no burst does), FBE/LBE -> WSTRB;
//                           AP_RD_RSP / AP_WR_RSP (a posted AP_WR answers only on an error);
//                           an address outside BAR1 (2^ApAddrBits) answers DECERR, no access
//   DMA_RD_RSP / _WR_RSP -> passed whole to link_host_slave (hs_*)
// A frame of an unknown TYPE or whose payload does not fit its TYPE (LEN, COUNT, DWORDS, an
// unaligned or 4 KiB-crossing address, an answer that would exceed MaxPayload) is consumed with
// no answer and pulses bad_frame_o.
// Contract:
//   - A frame in the receive buffer is link_rx's descriptor word (LEN, TYPE and TYPE's class)
//     and its payload.
//   - Reads the receive buffer two words at a time through buf_* (buf_rdata_i: the words at
//     buf_raddr_o and the one after it, one cycle after buf_re_o, the even one in [31:0] and
//     the odd one in [63:32]) up to buf_wptr_i;
//     buf_rptr_o is the end of the frames consumed; consumed_o pulses once per frame, after it
//     has been executed and its answer committed to link_tx.
//   - Responses are written through a link_tx producer port (tw_*, see link_tx).
//   - BAR1 write data stream from the buffer to W at one 8-byte beat (two words) per cycle;
//     AW bursts are issued ahead of W; AP_RD data go from R to link_tx one beat (two words,
//     tw_wvalid2_o) per cycle. Either is twice a 32-bit link's word rate, so a frame is executed
//     in about half the time it took to arrive.
//   - lreset_i: the frame being executed is finished on the AXI ports but answers nothing and is
//     not counted consumed; the frames stored before lreset_ptr_i are dropped unexecuted.
module link_dispatch #(
    parameter RxWindowLog2  = 12,
    parameter MaxPayload    = 1024,
    parameter LinkKind      = 1,
    parameter DmaTags       = 8,
    parameter CoreHz        = 100000000,
    parameter ReplayTimeout = 100000,
    parameter DmaTimeout    = 16777216,
    parameter CsrAddrBits   = 16,
    parameter ApAddrBits    = 28,
    parameter IdBits        = 4
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    // receive buffer
    output wire                    buf_re_o,
    output wire [RxWindowLog2-1:0] buf_raddr_o,
    input  wire [63:0]             buf_rdata_i,
    input  wire [RxWindowLog2:0]   buf_wptr_i,
    output wire [RxWindowLog2:0]   buf_rptr_o,
    output reg                     consumed_o,
    input  wire                    lreset_i,
    input  wire [RxWindowLog2:0]   lreset_ptr_i,
    // link_tx producer port
    output reg                     tw_req_o,
    input  wire                    tw_gnt_i,
    output reg                     tw_wvalid_o,
    output reg  [31:0]             tw_wdata_o,
    output wire                    tw_wvalid2_o,   // tw_wdata2_o is the word after tw_wdata_o
    output wire [31:0]             tw_wdata2_o,
    output reg                     tw_done_o,
    output reg                     tw_commit_o,
    output reg  [7:0]              tw_type_o,
    output reg  [15:0]             tw_len_o,
    output reg  [31:0]             tw_head_o,
    // DMA answers to link_host_slave
    output reg                     hs_valid_o,
    input  wire                    hs_ready_i,
    output wire                    hs_wr_o,
    output wire                    hs_head_o,
    output wire [31:0]             hs_data_o,
    output wire                    hs_last_o,
    // s_csr (AXI4-Lite master)
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
    // s_ap (AXI4 master, 8-byte data)
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
    // status
    output reg                     hello_o,
    output wire [15:0]             hello_maxp_o,   // the HELLO's MaxPayload, while hello_o
    output reg                     bad_frame_o
);
    localparam integer PB = RxWindowLog2 + 1;
    localparam integer BB = ApAddrBits - 3;   // beat address bits
    localparam [4:0] D_IDLE = 5'd0, D_PARAM = 5'd1, D_CHECK = 5'd2, D_SKIP = 5'd3,
                     D_END = 5'd4, D_HELLO_G = 5'd5, D_HELLO = 5'd6, D_RD_G = 5'd7,
                     D_RD_AR = 5'd8, D_RD_R = 5'd9, D_RD_V = 5'd10, D_WR_G = 5'd11,
                     D_WR_A = 5'd12, D_WR_D = 5'd13, D_WR_B = 5'd14, D_APR_G = 5'd15,
                     D_APR = 5'd16, D_APW = 5'd17, D_APW_B = 5'd18, D_APW_G = 5'd19,
                     D_RSP = 5'd20, D_HS = 5'd21, D_CALC = 5'd22;
    localparam [15:0] MAXP = MaxPayload[15:0];
    // payload lengths and counts: LW bits hold MaxPayload
    localparam integer LW = $clog2(MaxPayload + 1);
    localparam [LW-1:0] L0 = 0, L1 = 1, L2 = 2, L3 = 3, L4 = 4;

    generate
        if (MaxPayload < 35 || MaxPayload >= (1 << RxWindowLog2) - 5) begin : g_bad_0
            `CMN_PARAM_ERROR("link_dispatch: MaxPayload must be >= 35 and leave a frame's room in RxWindow")
        end
        if (ApAddrBits < 13 || ApAddrBits > 32) begin : g_bad_1
            `CMN_PARAM_ERROR("link_dispatch: ApAddrBits must be 13..32")
        end
        if (CsrAddrBits < 3 || CsrAddrBits > 16) begin : g_bad_2
            `CMN_PARAM_ERROR("link_dispatch: CsrAddrBits must be 3..16")
        end
    endgenerate

    // ---- word reader: an 8-word window of the receive buffer, fed up to two words a cycle --
    // The word at frame position p sits in entry p[2:1] of rf_e_q (p even) or rf_o_q (p odd):
    // each bank of the receive buffer fills its own half, so no word is steered on the way in,
    // and the word at pos_q and the one after it are one entry of each half.
    reg  [PB-1:0] rp_q, pos_q, rptr_q;
    reg  [31:0]   rf_e_q [0:3];
    reg  [31:0]   rf_o_q [0:3];
    reg  [2:0]    rw_q;                 // rp_q of the read whose words arrive this cycle
    reg  [3:0]    rf_cnt_q;
    reg  [1:0]    rf_inf_q;             // words arriving from the buffer this cycle
    wire [PB-1:0] rd_avail = buf_wptr_i - rp_q;
    wire          rd_issue = (rp_q != buf_wptr_i) && ((rf_cnt_q + {2'd0, rf_inf_q}) <= 4'd4);
    wire [1:0]    rd_n = !rd_issue ? 2'd0 : (rd_avail == {{(PB-1){1'b0}}, 1'b1}) ? 2'd1 : 2'd2;
    assign buf_re_o = rd_issue;
    assign buf_raddr_o = rp_q[RxWindowLog2-1:0];
    assign buf_rptr_o = rptr_q;
    wire          wv = rf_cnt_q != 4'd0;
    wire          wv2 = rf_cnt_q >= 4'd2;
    wire [1:0]    rf_erow = pos_q[2:1] + {1'b0, pos_q[0]};
    wire [31:0]   rf_ev = rf_e_q[rf_erow];  // the even one of the words at pos_q and pos_q + 1
    wire [31:0]   rf_od = rf_o_q[pos_q[2:1]];
    wire [31:0]   w = pos_q[0] ? rf_od : rf_ev;
    wire [1:0]    rw_erow = rw_q[2:1] + {1'b0, rw_q[0]};
    wire          rw_e = (rf_inf_q == 2'd2) || (rf_inf_q == 2'd1 && !rw_q[0]);
    wire          rw_o = (rf_inf_q == 2'd2) || (rf_inf_q == 2'd1 && rw_q[0]);
    reg           pop;
    reg           pop2;                 // with pop: the second word goes too

    // ---- frame state ----------------------------------------------------------------------
    reg  [4:0]    ds_q;
    reg  [7:0]    type_q;
    reg  [LW-1:0] len_q, rem_q;        // LEN <= MaxPayload (link_rx_align drops more)
    reg  [PB-1:0] fstart_q;
    reg  [2:0]    np_q, pidx_q;
    reg  [31:0]   p_q [0:3];
    reg           stale_q, skip_q, skipfr_q;
    reg  [PB-1:0] skip_ptr_q;
    reg  [LW-1:0] cnt_q;
    reg  [1:0]    resp_q;
    reg  [31:0]   val_q;
    reg           cw_q;                 // csr w pending handshake
    reg           caw_q, car_q;
    reg  [CsrAddrBits-1:2] caddr_q;
    reg  [3:0]    cstrb_q;
    reg  [31:0]   cdata_q;
    reg  [3:0]    hidx_q;
    reg           rng_q;                // BAR1 address in range
    reg  [LW-1:0] n_q;                  // AP dwords
    reg  [LW-1:0] wleft_q;
    reg           h_q;
    reg           first_q;              // the next AP_WR word is its first
    // AP address issuer (AR or AW)
    reg           aa_act_q, aa_wr_q;
    reg  [BB-1:0] aa_beat_q;
    reg  [9:0]    aa_left_q;
    reg  [5:0]    nb_q, bcnt_q;         // bursts issued / B received
    reg  [5:0]    bexp_q;
    // W beat register
    reg           w_v_q, w_last_q;
    reg  [63:0]   w_d_q;
    reg  [7:0]    w_s_q;
    reg  [4:0]    wb_left_q;            // beats left in the current W burst
    reg  [9:0]    wbeats_q;             // beats left in the request

    wire [15:0] count = p_q[0][31:16];
    wire [15:0] id = p_q[0][15:0];
    wire [63:0] ap_addr = {p_q[2], p_q[1]};
    wire [15:0] apr_n = p_q[3][15:0];
    // the checks of a frame's LEN and parameters, registered every cycle: D_CALC gives them the
    // cycle after the last parameter, D_CHECK acts on them
    wire [31:0] n32 = {{(32 - LW){1'b0}}, n_q};
    wire        unused_n32 = ^n32[31:16];
    wire [16:0] end_rd = {5'd0, ap_addr[11:0]} + {apr_n[14:0], 2'b00};
    wire [31:0] len32 = {{(32 - LW){1'b0}}, len_q};
    wire [15:0] len16 = len32[15:0];
    wire        unused_len32 = ^len32[31:16];
    wire [16:0] end_wr12 = {5'd0, ap_addr[11:0]} + {len16[14:0], 2'b00};   // end_wr + 12
    reg         ok_hello_q, ok_rd_q, ok_wr_q, ok_apr_q, ok_apw_q, hi_ok_q;
    // 8-byte beats covered by n dwords from a 4-aligned address (inside one 4 KiB page):
    // (n + address[2] + 1) / 2
    reg  [9:0]  beats_rd_q, beats_wr_q;
    reg  [LW-1:0] apw_n_q;
    wire [11:0] beats_rd_n = {1'b0, apr_n[10:0]} + {11'd0, ap_addr[2]} + 12'd1;
    wire [11:0] beats_wr_n = {1'b0, len16[10:0]} + {11'd0, ap_addr[2]} - 12'd2;
    wire        unused_low = ^{beats_rd_n[11], beats_rd_n[0], beats_wr_n[11], beats_wr_n[0]};
    always @(posedge clk_i) begin
        ok_hello_q <= (len_q == L2);
        ok_rd_q <= count != 16'd0 && len16 == count + 16'd1 && {count, 1'b1} <= {1'b0, MAXP};
        ok_wr_q <= count != 16'd0 && {1'b0, len16} == {count, 1'b0} + 17'd2 && count < MAXP;
        ok_apr_q <= len_q == L4 && apr_n != 16'd0 && apr_n < MAXP && ap_addr[1:0] == 2'b00 &&
                    end_rd <= 17'd4096;
        ok_apw_q <= len_q > L3 && ap_addr[1:0] == 2'b00 && end_wr12 <= 17'd4108;
        hi_ok_q <= (ap_addr[63:ApAddrBits] == {(64 - ApAddrBits){1'b0}});
        apw_n_q <= len_q - L3;
        beats_rd_q <= beats_rd_n[10:1];
        beats_wr_q <= beats_wr_n[10:1];
    end
    function [1:0] worst(input [1:0] a, input [1:0] b);
        worst = (a > b) ? a : b;
    endfunction

    wire gnt = tw_gnt_i || stale_q;
    assign hello_maxp_o = p_q[1][15:0];

    // HELLO_RSP words 1..9
    reg [31:0] hello_w;
    always @(*) begin
        case (hidx_q)
            4'd1: hello_w = {(16'd1 << RxWindowLog2), MAXP};
            4'd2: hello_w = {8'd28, 8'd16, LinkKind[7:0], DmaTags[7:0]};
            4'd3: hello_w = CoreHz[31:0];
            4'd4: hello_w = ReplayTimeout[31:0];
            4'd5: hello_w = DmaTimeout[31:0];
            default: hello_w = 32'd0;
        endcase
    end

    // ---- AXI outputs ----------------------------------------------------------------------
    assign m_csr_awaddr_o = {caddr_q, 2'b00};
    assign m_csr_awprot_o = 3'd0;
    assign m_csr_awvalid_o = caw_q;
    assign m_csr_wdata_o = cdata_q;
    assign m_csr_wstrb_o = cstrb_q;
    assign m_csr_wvalid_o = cw_q;
    assign m_csr_bready_o = (ds_q == D_WR_B) && !caw_q && !cw_q;
    assign m_csr_araddr_o = {caddr_q, 2'b00};
    assign m_csr_arprot_o = 3'd0;
    assign m_csr_arvalid_o = car_q;
    assign m_csr_rready_o = (ds_q == D_RD_R);

    reg        aa_big_q;                // aa_left_q > 16
    wire [9:0] aa_len = aa_big_q ? 10'd16 : aa_left_q;
    assign m_ap_awid_o = {IdBits{1'b0}};
    assign m_ap_awaddr_o = {aa_beat_q, 3'b000};
    assign m_ap_awlen_o = {4'd0, aa_len[3:0] - 4'd1};
    assign m_ap_awsize_o = 3'd3;
    assign m_ap_awburst_o = 2'b01;
    assign m_ap_awlock_o = 1'b0;
    assign m_ap_awcache_o = 4'd0;
    assign m_ap_awprot_o = 3'd0;
    assign m_ap_awvalid_o = aa_act_q && aa_wr_q;
    assign m_ap_arid_o = {IdBits{1'b0}};
    assign m_ap_araddr_o = {aa_beat_q, 3'b000};
    assign m_ap_arlen_o = {4'd0, aa_len[3:0] - 4'd1};
    assign m_ap_arsize_o = 3'd3;
    assign m_ap_arburst_o = 2'b01;
    assign m_ap_arlock_o = 1'b0;
    assign m_ap_arcache_o = 4'd0;
    assign m_ap_arprot_o = 3'd0;
    assign m_ap_arvalid_o = aa_act_q && !aa_wr_q;
    assign m_ap_wdata_o = w_d_q;
    assign m_ap_wstrb_o = w_s_q;
    assign m_ap_wlast_o = w_last_q;
    assign m_ap_wvalid_o = w_v_q;
    assign m_ap_bready_o = (ds_q == D_APW) || (ds_q == D_APW_B);
    wire   apr_take = (ds_q == D_APR) && rng_q && m_ap_rvalid_i;
    // a whole beat at once: both halves of R, or two words to W (no half beat pending)
    wire   apr_dbl = rng_q && !h_q && (wleft_q >= L2);
    wire   apw_dbl = (ds_q == D_APW) && rng_q && !h_q && (wleft_q >= L2) && wv2 && w_free;
    // one word alone: the high half of the first beat, or the last word as a low half
    wire   apw_one = wv && (wleft_q != L0) && w_free && (h_q || wleft_q == L1);
    assign m_ap_rready_o = apr_take;
    assign tw_wvalid2_o = apr_take && apr_dbl;
    assign tw_wdata2_o = m_ap_rdata_i[63:32];
    wire   unused_ids = ^{m_ap_bid_i, m_ap_rid_i, m_ap_rlast_i};

    assign hs_wr_o = type_q[0];
    assign hs_head_o = (rem_q == len_q);
    assign hs_data_o = w;
    assign hs_last_o = (rem_q == L1);

    // strobe of dword k of an AP_WR
    wire [3:0] fbe = p_q[0][19:16];
    wire [3:0] lbe = p_q[0][23:20];
    wire [3:0] wstrb_k = first_q ? fbe : ((wleft_q == L1) ? lbe : 4'hF);
    wire [3:0] wstrb_k2 = (wleft_q == L2) ? lbe : 4'hF;  // the word after
    wire       w_free = !w_v_q || m_ap_wready_i;
    // the W beat's data, strobes and WLAST load whenever the register is free (they matter only
    // while w_v_q, which rises with the beat they describe). The words at pos_q and pos_q + 1
    // go in the beat's halves by address: h_q ^ pos_q[0] says whether the even one is the high
    // half (it is the same for every word of a request). A half beat's other half is whatever
    // word sits there, with its strobes 0: the high half of the first beat (h_q), the last word
    // alone as the low half.
    wire       ev_hi = h_q ^ pos_q[0];
    always @(posedge clk_i) begin
        if (rst_i) begin
            w_d_q <= 64'd0;
            w_s_q <= 8'd0;
            w_last_q <= 1'b0;
        end else if (w_free) begin
            w_d_q <= ev_hi ? {rf_ev, rf_od} : {rf_od, rf_ev};
            w_s_q <= h_q ? {wstrb_k, 4'd0} : (wleft_q == L1) ? {4'd0, wstrb_k} :
                     {wstrb_k2, wstrb_k};
            w_last_q <= (wb_left_q == 5'd1) || (wbeats_q == 10'd1);
        end
    end

    always @(*) begin
        pop = 1'b0;
        pop2 = 1'b0;
        tw_req_o = 1'b0;
        tw_wvalid_o = 1'b0;
        tw_wdata_o = 32'd0;
        hs_valid_o = 1'b0;
        case (ds_q)
            D_IDLE: pop = wv;
            D_PARAM: pop = wv && (rem_q != L0) && (pidx_q != np_q);
            D_SKIP: pop = wv && (rem_q != L0);
            D_HELLO_G: begin
                tw_req_o = !stale_q;
            end
            D_HELLO: begin
                tw_wvalid_o = 1'b1;
                tw_wdata_o = hello_w;
            end
            D_RD_G: begin
                tw_req_o = !stale_q;
            end
            D_RD_AR: pop = wv && !car_q;
            D_RD_R: begin
                tw_wvalid_o = m_csr_rvalid_i;
                tw_wdata_o = {30'd0, m_csr_rresp_i};
            end
            D_RD_V: begin
                tw_wvalid_o = 1'b1;
                tw_wdata_o = val_q;
            end
            D_WR_G: begin
                tw_req_o = !stale_q;
            end
            D_WR_A: pop = wv;
            D_WR_D: pop = wv;
            D_WR_B: begin
                tw_wvalid_o = m_csr_bready_o && m_csr_bvalid_i;
                tw_wdata_o = {30'd0, m_csr_bresp_i};
            end
            D_APR_G: begin
                tw_req_o = !stale_q;
            end
            D_APR: begin
                tw_wvalid_o = rng_q ? m_ap_rvalid_i : 1'b1;
                tw_wdata_o = !rng_q ? 32'd0 : (h_q ? m_ap_rdata_i[63:32] : m_ap_rdata_i[31:0]);
            end
            D_APW: begin
                if (!rng_q) begin
                    pop = wv && (rem_q != L0);
                end else if (apw_dbl) begin
                    pop = 1'b1;
                    pop2 = 1'b1;
                end else begin
                    pop = apw_one;
                end
            end
            D_APW_G: begin
                tw_req_o = !stale_q;
            end
            D_HS: begin
                hs_valid_o = wv && (rem_q != L0);
                pop = hs_valid_o && hs_ready_i;
            end
            default: ;
        endcase
    end

    always @(posedge clk_i) begin
        consumed_o <= 1'b0;
        hello_o <= 1'b0;
        bad_frame_o <= 1'b0;
        tw_done_o <= 1'b0;
        if (rst_i) begin
            rp_q <= {PB{1'b0}};
            pos_q <= {PB{1'b0}};
            rptr_q <= {PB{1'b0}};
            rw_q <= 3'd0;
            rf_cnt_q <= 4'd0;
            rf_inf_q <= 2'd0;
            ds_q <= D_IDLE;
            type_q <= 8'd0;
            len_q <= L0;
            rem_q <= L0;
            fstart_q <= {PB{1'b0}};
            np_q <= 3'd0;
            pidx_q <= 3'd0;
            stale_q <= 1'b0;
            skip_q <= 1'b0;
            skipfr_q <= 1'b0;
            skip_ptr_q <= {PB{1'b0}};
            cnt_q <= L0;
            resp_q <= 2'd0;
            val_q <= 32'd0;
            cw_q <= 1'b0;
            caw_q <= 1'b0;
            car_q <= 1'b0;
            caddr_q <= {(CsrAddrBits-2){1'b0}};
            cstrb_q <= 4'd0;
            cdata_q <= 32'd0;
            hidx_q <= 4'd0;
            rng_q <= 1'b0;
            n_q <= L0;
            wleft_q <= L0;
            h_q <= 1'b0;
            first_q <= 1'b0;
            aa_act_q <= 1'b0;
            aa_wr_q <= 1'b0;
            aa_beat_q <= {BB{1'b0}};
            aa_left_q <= 10'd0;
            aa_big_q <= 1'b0;
            nb_q <= 6'd0;
            bcnt_q <= 6'd0;
            bexp_q <= 6'd0;
            w_v_q <= 1'b0;
            wb_left_q <= 5'd0;
            wbeats_q <= 10'd0;
            tw_commit_o <= 1'b0;
            tw_type_o <= 8'd0;
            tw_len_o <= 16'd0;
            tw_head_o <= 32'd0;
        end else begin
            // ---- reader ----
            rf_inf_q <= rd_n;
            rw_q <= rp_q[2:0];
            rp_q <= rp_q + {{(PB-2){1'b0}}, rd_n};
            if (rw_e) rf_e_q[rw_erow] <= buf_rdata_i[31:0];
            if (rw_o) rf_o_q[rw_q[2:1]] <= buf_rdata_i[63:32];
            rf_cnt_q <= rf_cnt_q + {2'd0, rf_inf_q} - {2'd0, pop && pop2, pop && !pop2};
            if (pop) pos_q <= pos_q + {{(PB-2){1'b0}}, pop2, !pop2};

            // ---- AP address issuer ----
            if (aa_act_q && (aa_wr_q ? m_ap_awready_i : m_ap_arready_i)) begin
                // a request stays inside its 4 KiB page: only the beat within it moves
                aa_beat_q[8:0] <= aa_beat_q[8:0] + aa_len[8:0];
                aa_left_q <= aa_left_q - aa_len;
                aa_big_q <= aa_left_q > 10'd32;
                nb_q <= nb_q + 6'd1;
                if (aa_left_q == aa_len) aa_act_q <= 1'b0;
            end
            // ---- W beat register ----
            if (w_v_q && m_ap_wready_i) w_v_q <= 1'b0;

            case (ds_q)
                D_IDLE: if (wv) begin
                    type_q <= w[7:0];
                    len_q <= w[LW+15:16];
                    rem_q <= w[LW+15:16];
                    fstart_q <= pos_q;
                    pidx_q <= 3'd0;
                    resp_q <= 2'd0;
                    skipfr_q <= 1'b0;
                    if (skip_q && pos_q != skip_ptr_q) begin
                        skipfr_q <= 1'b1;
                        ds_q <= D_SKIP;
                    end else begin
                        // the descriptor's class bits (link_rx): [8] a request with
                        // parameters, [9] a DMA answer with a payload; any other frame is bad
                        skip_q <= 1'b0;
                        ds_q <= w[8] ? D_PARAM : w[9] ? D_HS : D_SKIP;
                        bad_frame_o <= !w[8] && !w[9];
                        case (w[7:0])
                            8'h10: np_q <= 3'd2;
                            8'h11: np_q <= 3'd1;
                            8'h12: np_q <= 3'd2;
                            8'h13: np_q <= 3'd4;
                            8'h14: np_q <= 3'd3;
                            default: np_q <= 3'd0;
                        endcase
                    end
                end
                D_PARAM: begin
                    if (pidx_q == np_q) begin
                        ds_q <= D_CALC;
                    end else if (rem_q == L0) begin
                        bad_frame_o <= 1'b1;
                        ds_q <= D_SKIP;
                    end else if (wv) begin
                        p_q[pidx_q[1:0]] <= w;
                        pidx_q <= pidx_q + 3'd1;
                        rem_q <= rem_q - L1;
                    end
                end
                D_CALC: ds_q <= D_CHECK;
                D_CHECK: begin
                    ds_q <= D_SKIP;
                    bad_frame_o <= 1'b1;
                    cnt_q <= count[LW-1:0];
                    hidx_q <= 4'd1;
                    case (type_q)
                        8'h10: if (ok_hello_q) begin
                            bad_frame_o <= 1'b0;
                            ds_q <= D_HELLO_G;
                        end
                        8'h11: if (ok_rd_q) begin
                            bad_frame_o <= 1'b0;
                            ds_q <= D_RD_G;
                        end
                        8'h12: if (ok_wr_q) begin
                            bad_frame_o <= 1'b0;
                            ds_q <= D_WR_G;
                        end
                        8'h13: if (ok_apr_q) begin
                            bad_frame_o <= 1'b0;
                            ds_q <= D_APR_G;
                            n_q <= apr_n[LW-1:0];
                            wleft_q <= apr_n[LW-1:0];
                            h_q <= ap_addr[2];
                            rng_q <= hi_ok_q;
                            resp_q <= hi_ok_q ? 2'd0 : 2'd3;
                            aa_act_q <= hi_ok_q;
                            aa_wr_q <= 1'b0;
                            aa_beat_q <= ap_addr[ApAddrBits-1:3];
                            aa_left_q <= beats_rd_q;
                            aa_big_q <= beats_rd_q > 10'd16;
                        end
                        8'h14: if (ok_apw_q) begin
                            bad_frame_o <= 1'b0;
                            ds_q <= D_APW;
                            n_q <= apw_n_q;
                            wleft_q <= apw_n_q;
                            first_q <= 1'b1;
                            h_q <= ap_addr[2];
                            rng_q <= hi_ok_q;
                            resp_q <= hi_ok_q ? 2'd0 : 2'd3;
                            aa_act_q <= hi_ok_q;
                            aa_wr_q <= 1'b1;
                            aa_beat_q <= ap_addr[ApAddrBits-1:3];
                            aa_left_q <= beats_wr_q;
                            aa_big_q <= beats_wr_q > 10'd16;
                            wbeats_q <= beats_wr_q;
                            wb_left_q <= 5'd16;
                            nb_q <= 6'd0;
                            bcnt_q <= 6'd0;
                            // bursts: beats / 16, rounded up
                            bexp_q <= beats_wr_q[9:4] + {5'd0, beats_wr_q[3:0] != 4'd0};
                        end
                        default: ;
                    endcase
                end
                D_SKIP: begin
                    if (rem_q == L0) ds_q <= D_END;
                    else if (wv) rem_q <= rem_q - L1;
                end
                D_END: begin
                    rptr_q <= fstart_q + len32[PB-1:0] + {{(PB-1){1'b0}}, 1'b1};
                    consumed_o <= !stale_q && !skipfr_q;
                    stale_q <= 1'b0;
                    ds_q <= D_IDLE;
                end
                // ---- HELLO ----
                D_HELLO_G: if (gnt) ds_q <= D_HELLO;
                D_HELLO: begin
                    hidx_q <= hidx_q + 4'd1;
                    if (hidx_q == 4'd9) begin
                        tw_head_o <= 32'h0001_0000;
                        tw_type_o <= 8'h90;
                        tw_len_o <= 16'd10;
                        tw_commit_o <= 1'b1;
                        tw_done_o <= 1'b1;
                        hello_o <= !stale_q;
                        ds_q <= D_END;
                    end
                end
                // ---- RD32 ----
                D_RD_G: if (gnt) ds_q <= D_RD_AR;
                D_RD_AR: begin
                    if (!car_q && wv) begin
                        car_q <= 1'b1;
                        caddr_q <= w[CsrAddrBits-1:2];
                        rem_q <= rem_q - L1;
                    end
                    if (car_q && m_csr_arready_i) begin
                        car_q <= 1'b0;
                        ds_q <= D_RD_R;
                    end
                end
                D_RD_R: if (m_csr_rvalid_i) begin
                    val_q <= m_csr_rdata_i;
                    ds_q <= D_RD_V;
                end
                D_RD_V: begin
                    cnt_q <= cnt_q - L1;
                    if (cnt_q == L1) begin
                        tw_head_o <= p_q[0];
                        tw_type_o <= 8'h91;
                        tw_len_o <= {count[14:0], 1'b1};
                        tw_commit_o <= 1'b1;
                        ds_q <= D_RSP;
                    end else begin
                        ds_q <= D_RD_AR;
                    end
                end
                // ---- WR32 ----
                D_WR_G: if (gnt) ds_q <= D_WR_A;
                D_WR_A: if (wv) begin
                    caddr_q <= w[CsrAddrBits-1:2];
                    cstrb_q <= w[19:16];
                    rem_q <= rem_q - L1;
                    ds_q <= D_WR_D;
                end
                D_WR_D: if (wv) begin
                    cdata_q <= w;
                    caw_q <= 1'b1;
                    cw_q <= 1'b1;
                    rem_q <= rem_q - L1;
                    ds_q <= D_WR_B;
                end
                D_WR_B: begin
                    if (caw_q && m_csr_awready_i) caw_q <= 1'b0;
                    if (cw_q && m_csr_wready_i) cw_q <= 1'b0;
                    if (m_csr_bready_o && m_csr_bvalid_i) begin
                        resp_q <= worst(resp_q, m_csr_bresp_i);
                        cnt_q <= cnt_q - L1;
                        if (cnt_q == L1) begin
                            tw_head_o <= p_q[0];
                            tw_type_o <= 8'h92;
                            tw_len_o <= count + 16'd1;
                            tw_commit_o <= !p_q[1][0] || m_csr_bresp_i != 2'd0 ||
                                           resp_q != 2'd0;
                            ds_q <= D_RSP;
                        end else begin
                            ds_q <= D_WR_A;
                        end
                    end
                end
                // ---- AP_RD ----
                D_APR_G: if (gnt) ds_q <= D_APR;
                D_APR: begin
                    if (tw_wvalid_o) begin
                        wleft_q <= wleft_q - (tw_wvalid2_o ? L2 : L1);
                        if (rng_q) begin
                            h_q <= tw_wvalid2_o ? 1'b0 : !h_q;
                            resp_q <= worst(resp_q, m_ap_rresp_i);
                        end
                        if (wleft_q == (tw_wvalid2_o ? L2 : L1)) begin
                            tw_head_o <= {14'd0, rng_q ? worst(resp_q, m_ap_rresp_i) : 2'd3, id};
                            tw_type_o <= 8'h93;
                            tw_len_o <= n32[15:0] + 16'd1;
                            tw_commit_o <= 1'b1;
                            ds_q <= D_RSP;
                        end
                    end
                end
                // ---- AP_WR ----
                D_APW: begin
                    if (!rng_q) begin
                        if (pop) rem_q <= rem_q - L1;
                        if (rem_q == L0) ds_q <= D_APW_G;
                    end else begin
                        if (pop) begin
                            // a beat: two words, or one alone (after it the next word is
                            // always a low half)
                            first_q <= 1'b0;
                            wleft_q <= wleft_q - (pop2 ? L2 : L1);
                            w_v_q <= 1'b1;
                            wb_left_q <= (wb_left_q == 5'd1) ? 5'd16 : wb_left_q - 5'd1;
                            wbeats_q <= wbeats_q - 10'd1;
                            h_q <= 1'b0;
                        end
                        if (wleft_q == L0 && w_free) ds_q <= D_APW_B;
                    end
                    if (m_ap_bvalid_i) begin
                        bcnt_q <= bcnt_q + 6'd1;
                        resp_q <= worst(resp_q, m_ap_bresp_i);
                    end
                end
                D_APW_B: begin
                    if (m_ap_bvalid_i) begin
                        bcnt_q <= bcnt_q + 6'd1;
                        resp_q <= worst(resp_q, m_ap_bresp_i);
                    end
                    if (bcnt_q == bexp_q && !w_v_q) begin
                        if (!p_q[0][24] || resp_q != 2'd0) ds_q <= D_APW_G;
                        else ds_q <= D_END;
                    end
                end
                D_APW_G: if (gnt) begin
                    tw_head_o <= {14'd0, resp_q, id};
                    tw_type_o <= 8'h94;
                    tw_len_o <= 16'd1;
                    tw_commit_o <= 1'b1;
                    ds_q <= D_RSP;
                end
                D_RSP: begin
                    tw_done_o <= 1'b1;
                    ds_q <= D_END;
                end
                // ---- DMA answers ----
                D_HS: begin
                    if (pop) rem_q <= rem_q - L1;
                    if (rem_q == L0) ds_q <= D_END;
                end
                default: ds_q <= D_IDLE;
            endcase

            if (lreset_i) begin
                skip_q <= 1'b1;
                skip_ptr_q <= lreset_ptr_i;
                if (ds_q != D_IDLE) stale_q <= 1'b1;
            end
        end
    end
endmodule
`default_nettype wire
