// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_pcie_cpl: pcie_cpl, the PCIe shell's completer, alone (CsrAddrBits 12, ApAddrBits 13,
// MaxPayloadBytes 256) under Icarus 11 and Verilator 5.006. The TB is the hard IP's CQ source
// (64-bit, DWORD-aligned descriptors as in bridge/rtl/pcie/README.md, random tvalid gaps, a
// random address above the BAR), a CC sink with random tready, an AXI4-Lite register file on
// BAR0 and an AXI4 memory on BAR1 (random ready/valid delays; error regions answering DECERR
// and SLVERR; BAR0 counts the reads of every register). A reference of both memories gives
// every expected completion (status, Byte Count, Lower Address, DWORD count, tag and echoed
// fields, data) and every write's bytes. Fixed cases, then random requests. TAP; +seed=N.
module tb_pcie_cpl;
    localparam integer PLAN = 13;
    localparam [2:0] SC = 3'b000, UR = 3'b001, CA = 3'b100;

    logic clk = 1'b0, rst = 1'b1;
    initial forever #5 clk = ~clk;
    logic [63:0] cq_d = '0;
    logic [1:0]  cq_k = '0;
    logic        cq_l = 1'b0, cq_v = 1'b0, cc_rdy = 1'b0;
    logic [87:0] cq_u = '0;
    wire         cq_rdy, cc_l, cc_v, wr_done, ur;
    wire  [63:0] cc_d;
    wire  [1:0]  cc_k;
    wire  [32:0] cc_u;
    logic [1:0]  mps = 2'd0;
    wire  [11:0] c_awa, c_ara;
    wire  [2:0]  c_awp, c_arp;
    wire         c_awv, c_wv, c_bry, c_arv, c_rry;
    logic        c_awr = 1'b0, c_wr = 1'b0, c_bv = 1'b0, c_arr = 1'b0, c_rv = 1'b0;
    wire  [31:0] c_wd;
    wire  [3:0]  c_ws;
    logic [1:0]  c_bresp = '0, c_rresp = '0;
    logic [31:0] c_rd = '0;
    wire  [3:0]  a_awid, a_arid, a_awc, a_arc;
    wire  [12:0] a_awa, a_ara;
    wire  [7:0]  a_awl, a_arl, a_ws;
    wire  [2:0]  a_aws, a_ars, a_awp, a_arp;
    wire  [1:0]  a_awb, a_arb;
    wire         a_awlk, a_arlk, a_awv, a_wl, a_wv, a_bry, a_arv, a_rry;
    wire  [63:0] a_wd;
    logic        a_awr = 1'b0, a_wr = 1'b0, a_bv = 1'b0, a_arr = 1'b0, a_rv = 1'b0, a_rl = 1'b0;
    logic [1:0]  a_bresp = '0, a_rresp = '0;
    logic [63:0] a_rd = '0;

    pcie_cpl #(.CsrAddrBits(12), .ApAddrBits(13), .IdBits(4), .MaxPayloadBytes(256)) dut (
        .clk_i(clk), .rst_i(rst),
        .s_axis_cq_tdata_i(cq_d), .s_axis_cq_tkeep_i(cq_k), .s_axis_cq_tlast_i(cq_l),
        .s_axis_cq_tuser_i(cq_u), .s_axis_cq_tvalid_i(cq_v), .s_axis_cq_tready_o(cq_rdy),
        .m_axis_cc_tdata_o(cc_d), .m_axis_cc_tkeep_o(cc_k), .m_axis_cc_tlast_o(cc_l),
        .m_axis_cc_tuser_o(cc_u), .m_axis_cc_tvalid_o(cc_v), .m_axis_cc_tready_i(cc_rdy),
        .cfg_max_payload_i(mps),
        .m_csr_awaddr_o(c_awa), .m_csr_awprot_o(c_awp), .m_csr_awvalid_o(c_awv), .m_csr_awready_i(c_awr),
        .m_csr_wdata_o(c_wd), .m_csr_wstrb_o(c_ws), .m_csr_wvalid_o(c_wv), .m_csr_wready_i(c_wr),
        .m_csr_bresp_i(c_bresp), .m_csr_bvalid_i(c_bv), .m_csr_bready_o(c_bry),
        .m_csr_araddr_o(c_ara), .m_csr_arprot_o(c_arp), .m_csr_arvalid_o(c_arv), .m_csr_arready_i(c_arr),
        .m_csr_rdata_i(c_rd), .m_csr_rresp_i(c_rresp), .m_csr_rvalid_i(c_rv), .m_csr_rready_o(c_rry),
        .m_ap_awid_o(a_awid), .m_ap_awaddr_o(a_awa), .m_ap_awlen_o(a_awl), .m_ap_awsize_o(a_aws),
        .m_ap_awburst_o(a_awb), .m_ap_awlock_o(a_awlk), .m_ap_awcache_o(a_awc), .m_ap_awprot_o(a_awp),
        .m_ap_awvalid_o(a_awv), .m_ap_awready_i(a_awr),
        .m_ap_wdata_o(a_wd), .m_ap_wstrb_o(a_ws), .m_ap_wlast_o(a_wl), .m_ap_wvalid_o(a_wv), .m_ap_wready_i(a_wr),
        .m_ap_bid_i(4'd0), .m_ap_bresp_i(a_bresp), .m_ap_bvalid_i(a_bv), .m_ap_bready_o(a_bry),
        .m_ap_arid_o(a_arid), .m_ap_araddr_o(a_ara), .m_ap_arlen_o(a_arl), .m_ap_arsize_o(a_ars),
        .m_ap_arburst_o(a_arb), .m_ap_arlock_o(a_arlk), .m_ap_arcache_o(a_arc), .m_ap_arprot_o(a_arp),
        .m_ap_arvalid_o(a_arv), .m_ap_arready_i(a_arr),
        .m_ap_rid_i(4'd0), .m_ap_rdata_i(a_rd), .m_ap_rresp_i(a_rresp), .m_ap_rlast_i(a_rl),
        .m_ap_rvalid_i(a_rv), .m_ap_rready_o(a_rry),
        .csr_wr_done_o(wr_done), .ur_o(ur));

    // ---- seed, waves, TAP checks: the kit --------------------------------------------
`define TB_TOP tb_pcie_cpl
`include "tb/unit/common/tb_kit.svh"
    // the slaves' own stream, so that the order in which the simulator runs the processes at
    // one edge does not change what either draws
    logic [63:0] rs_s;
    task automatic rnd32s(output [31:0] v);
        rs_s = rs_s ^ (rs_s >> 12);
        rs_s = rs_s ^ (rs_s << 25);
        rs_s = rs_s ^ (rs_s >> 27);
        v = 32'(((rs_s * 64'h2545_F491_4F6C_DD1D) >> 32));
    endtask

    // ---- memories: the slaves' and the reference ------------------------------------------
    logic [31:0] csr [0:1023], ref_csr [0:1023];
    logic [63:0] ap [0:1023], ref_ap [0:1023];
    integer csr_reads [0:1023], exp_reads [0:1023];
    // error regions: BAR0 DWORDs 0x3e0-0x3ef DECERR, 0x3f0-0x3ff SLVERR; BAR1 qwords
    // 0x3c0-0x3df DECERR, 0x3e0-0x3ff SLVERR. Writes there change nothing.
    function automatic [1:0] csr_resp(input [9:0] i);
        csr_resp = (i >= 10'h3e0 && i < 10'h3f0) ? 2'b11 : (i >= 10'h3f0) ? 2'b10 : 2'b00;
    endfunction
    function automatic [1:0] ap_resp(input [9:0] q);
        ap_resp = (q >= 10'h3c0 && q < 10'h3e0) ? 2'b11 : (q >= 10'h3e0) ? 2'b10 : 2'b00;
    endfunction
    function automatic [31:0] merge(input [31:0] o, input [31:0] n, input [3:0] be);
        merge = {be[3] ? n[31:24] : o[31:24], be[2] ? n[23:16] : o[23:16],
                 be[1] ? n[15:8] : o[15:8], be[0] ? n[7:0] : o[7:0]};
    endfunction

    // ---- expected completions (a queue of headers and their data) -------------------------
    logic [31:0] eh0 [0:1023], eh1 [0:1023], eh2 [0:1023], ed [0:65535];
    integer      ep [0:1023];
    integer      e_head = 0, e_tail = 0, ed_tail = 0, e_ur = 0;
    integer bad_hdr = 0, bad_stat = 0, bad_bc = 0, bad_la = 0, bad_cnt = 0, bad_data = 0,
            bad_extra = 0, bad_keep = 0, bad_axi = 0, n_cpl = 0, n_ur = 0, n_wrdone = 0;

    // ---- the slaves and the CC sink: sample at the rising edge, drive at the falling ------
    initial begin : slaves
        reg [31:0] r;
        reg [31:0] cc [0:127];
        integer ccn, c_b, c_r, a_b, a_r, a_k;
        reg [9:0] i;
        reg c_aw, c_w, c_ar, a_aw, a_ar;
        reg [9:0] c_wa, c_ra, a_wq, a_rq;
        reg [7:0] a_wlen, a_rlen;
        reg [31:0] c_wdat;
        reg [3:0] c_wstb;
        ccn = 0; c_aw = 1'b0; c_w = 1'b0; c_b = -1; c_ar = 1'b0; c_r = -1;
        a_aw = 1'b0; a_b = -1; a_ar = 1'b0; a_r = -1; a_k = 0;
        c_wa = 0; c_ra = 0; a_wq = 0; a_rq = 0; a_wlen = 0; a_rlen = 0; c_wdat = 0; c_wstb = 0;
        forever begin
            @(posedge clk);
            if (!rst) begin
                if (wr_done) n_wrdone = n_wrdone + 1;
                if (ur) n_ur = n_ur + 1;
                // CC
                if (cc_v && cc_rdy) begin
                    if (!cc_k[0]) bad_keep = bad_keep + 1;
                    if (cc_u != 33'd0) bad_hdr = bad_hdr + 1;
                    cc[ccn[6:0]] = cc_d[31:0];
                    if (cc_k[1]) cc[7'(ccn + 1)] = cc_d[63:32];
                    ccn = ccn + (cc_k[1] ? 2 : 1);
                    if (!cc_l && !cc_k[1]) bad_keep = bad_keep + 1;
                    if (cc_l) begin
                        n_cpl = n_cpl + 1;
                        if (e_head == e_tail) bad_extra = bad_extra + 1;
                        else begin
                            i = 10'(e_head % 1024);
                            if (cc[1][13:11] != eh1[i][13:11]) bad_stat = bad_stat + 1;
                            if (cc[0][28:16] != eh0[i][28:16]) bad_bc = bad_bc + 1;
                            if (cc[0][6:0] != eh0[i][6:0]) bad_la = bad_la + 1;
                            if (cc[1][10:0] != eh1[i][10:0] || ccn != 3 + 32'(eh1[i][10:0]))
                                bad_cnt = bad_cnt + 1;
                            if (cc[0] != eh0[i] || cc[1] != eh1[i] || cc[2] != eh2[i]) bad_hdr = bad_hdr + 1;
                            for (r = 0; r < 32'(eh1[i][10:0]) && 3 + r < 32'(ccn); r = r + 1)
                                if (cc[7'(3 + r)] != ed[16'(ep[i] + r)]) bad_data = bad_data + 1;
                            e_head = e_head + 1;
                        end
                        ccn = 0;
                    end
                end
                // BAR0 register file
                if (c_awv && c_awr) begin c_aw = 1'b1; c_wa = c_awa[11:2]; end
                if (c_wv && c_wr) begin
                    c_w = 1'b1; c_wdat = c_wd; c_wstb = c_ws;
                    if (c_ws == 4'd0) bad_axi = bad_axi + 1;   // DWORDs without BEs are skipped
                end
                if (c_bv && c_bry) c_b = -1;
                if (c_aw && c_w && c_b < 0) begin
                    c_bresp = csr_resp(c_wa);
                    if (csr_resp(c_wa) == 2'b00) csr[c_wa] = merge(csr[c_wa], c_wdat, c_wstb);
                    rnd32s(r);
                    c_b = 32'(r[1:0]);
                    c_aw = 1'b0; c_w = 1'b0;
                end
                if (c_arv && c_arr) begin
                    c_ra = c_ara[11:2]; c_ar = 1'b1;
                    csr_reads[c_ra] = csr_reads[c_ra] + 1;
                    rnd32s(r);
                    c_r = 32'(r[1:0]);
                end
                if (c_rv && c_rry) begin c_r = -1; c_ar = 1'b0; end
                // BAR1 memory
                if (a_awv && a_awr) begin
                    a_aw = 1'b1; a_wq = a_awa[12:3]; a_wlen = a_awl; a_k = 0;
                    if (a_awb != 2'b01 || a_aws != 3'd3 || a_awa[2:0] != 3'd0 ||
                        {3'b0, a_awa[11:3]} + {4'b0, a_awl} > 12'd511)
                        bad_axi = bad_axi + 1;                 // INCR, 8 bytes, inside 4 KiB
                end
                if (a_wv && a_wr) begin
                    if (ap_resp(a_wq + 10'(a_k)) == 2'b00)
                        ap[a_wq + 10'(a_k)] = {merge(ap[a_wq + 10'(a_k)][63:32], a_wd[63:32], a_ws[7:4]),
                                               merge(ap[a_wq + 10'(a_k)][31:0], a_wd[31:0], a_ws[3:0])};
                    if (a_wl != (a_k == 32'(a_wlen))) bad_axi = bad_axi + 1;
                    if (a_wl) begin rnd32s(r); a_b = 32'(r[1:0]); a_bresp = ap_resp(a_wq); end
                    a_k = a_k + 1;
                end
                if (a_bv && a_bry) begin a_b = -1; a_aw = 1'b0; end
                if (a_arv && a_arr) begin
                    a_ar = 1'b1; a_rq = a_ara[12:3]; a_rlen = a_arl; a_r = 0;
                    if (a_arb != 2'b01 || a_ars != 3'd3 || a_ara[2:0] != 3'd0 ||
                        {3'b0, a_ara[11:3]} + {4'b0, a_arl} > 12'd511)
                        bad_axi = bad_axi + 1;
                end
                if (a_rv && a_rry) begin
                    a_r = a_r + 1;
                    if (a_rl) begin a_ar = 1'b0; a_r = 0; end
                end
            end
            @(negedge clk);
            rnd32s(r);
            cc_rdy = r[2:0] != 3'd0;
            c_awr = !c_aw && r[3];
            c_wr = !c_w && r[4];
            c_arr = !c_ar && r[5];
            a_awr = !a_aw && r[6];
            a_wr = a_aw && r[7] && a_b < 0;
            a_arr = !a_ar && r[8];
            if (c_b == 0) begin c_bv = 1'b1; c_b = 9999; end else if (c_b > 0 && c_b < 9999) c_b = c_b - 1;
            if (c_b < 0) c_bv = 1'b0;
            if (c_r == 0) begin c_rv = 1'b1; c_rd = csr[c_ra]; c_rresp = csr_resp(c_ra); c_r = 9999; end
            else if (c_r > 0 && c_r < 9999) c_r = c_r - 1;
            if (c_r < 0) c_rv = 1'b0;
            if (a_b == 0) begin a_bv = 1'b1; a_b = 9999; end else if (a_b > 0 && a_b < 9999) a_b = a_b - 1;
            if (a_b < 0) a_bv = 1'b0;
            a_rv = a_ar && r[10:9] != 2'd0;
            a_rd = ap[a_rq + 10'(a_r)];
            a_rresp = ap_resp(a_rq + 10'(a_r));
            a_rl = a_r == 32'(a_rlen);
        end
    end

    // ---- requests ---------------------------------------------------------------------------
    logic [31:0] pay [0:1023];
    logic [63:0] bd [0:600];
    logic [1:0]  bk [0:600];
    logic        bdisc [0:600];
    logic [6:0] gap_pct = 7'd30;
    logic [1:0] next_mps = 2'd0;    // Max_Payload_Size of the next request, set once it starts

    function automatic [3:0] be_of(input integer g, input integer n, input [3:0] fb, input [3:0] lb);
        be_of = (n == 1 || g == 0) ? fb : (g == n - 1) ? lb : 4'hf;
    endfunction
    function automatic integer lo_bit(input [3:0] b);
        lo_bit = b[0] ? 0 : b[1] ? 1 : b[2] ? 2 : b[3] ? 3 : 0;
    endfunction
    function automatic integer hi_bit(input [3:0] b);
        integer k;
        hi_bit = 0;
        for (k = 0; k < 4; k = k + 1) if (b[k]) hi_bit = k;
    endfunction

    task automatic push_cpl(input [12:0] bc, input [6:0] la, input [2:0] st, input [10:0] n,
                            input [15:0] rid, input [7:0] tag, input [1:0] at, input [2:0] attr,
                            input [2:0] tc);
        eh0[e_tail % 1024] = {3'b000, bc, 6'd0, at, 1'b0, la};
        eh1[e_tail % 1024] = {rid, 2'b00, st, n};
        eh2[e_tail % 1024] = {1'b0, attr, tc, 1'b0, 16'd0, tag};
        ep[e_tail % 1024] = ed_tail;
        e_tail = e_tail + 1;
        if (st == UR) e_ur = e_ur + 1;
    endtask

    // One request: the descriptor, npay payload DWORDs (disc on beat disc_beat, -1 none);
    // expectations from the reference, then sent on CQ with random gaps.
    task automatic req_do(input [3:0] typ, input [2:0] bar, input [5:0] aper, input [12:0] off,
                       input integer len, input [3:0] fb, input [3:0] lb, input integer npay,
                       input integer disc_beat);
        reg [31:0] r, r2;
        reg [50:0] base;   // the BAR's address above its 8 KiB
        reg [15:0] rid;
        reg [7:0] tag;
        reg [1:0] at, st, rsp;
        reg [2:0] attr, tc;
        integer nb, b, g, bc, fo, cur, left, chunk, mdw, idx, k;
        bit first;
        rnd32(r); rnd32(r2);
        base = {r2, r[31:13]};
        rid = r[15:0]; tag = r2[7:0]; at = r[17:16]; attr = r2[10:8]; tc = r2[13:11];
        nb = 2 + (npay + 1) / 2;
        bd[0] = {base, off[12:2], at};
        bd[1] = {1'b0, attr, tc, aper, bar, 8'd0, tag, rid, 1'b0, typ, 11'(len % 1024)};
        for (b = 0; b < nb; b = b + 1) begin
            bk[b] = (b >= 2 && b == nb - 1 && npay % 2 == 1) ? 2'b01 : 2'b11;
            bdisc[b] = b == disc_beat;
        end
        for (g = 0; g < npay; g = g + 1) begin
            rnd32(r);
            pay[g] = r;
            if (g % 2 == 0) bd[2 + g / 2] = {32'd0, r};
            else bd[2 + g / 2][63:32] = r;
        end
        fo = lo_bit(fb);
        bc = (len == 1) ? ((fb == 0) ? 1 : hi_bit(fb) - fo + 1) : 4 * len - fo - (3 - hi_bit(lb));
        if ((bar == 0 && aper == 6'd12) || (bar == 1 && aper == 6'd13)) begin
            if (typ == 4'b0001 && disc_beat < 0 && len <= 64 && npay == len) begin
                for (g = 0; g < len; g = g + 1) begin
                    idx = (32'(off) / 4 + g) % 2048;
                    if (bar == 0 && csr_resp(10'(idx)) == 2'b00)
                        ref_csr[idx % 1024] = merge(ref_csr[idx % 1024], pay[g], be_of(g, len, fb, lb));
                    if (bar == 1 && ap_resp(10'(idx / 2)) == 2'b00) begin
                        if (idx % 2 == 0) ref_ap[idx / 2][31:0] = merge(ref_ap[idx / 2][31:0], pay[g], be_of(g, len, fb, lb));
                        else ref_ap[idx / 2][63:32] = merge(ref_ap[idx / 2][63:32], pay[g], be_of(g, len, fb, lb));
                    end
                end
            end else if (typ == 4'b0000 && disc_beat < 0 && npay == 0) begin
                mdw = 32 << ((next_mps > 2'd1) ? 1 : 32'(next_mps));
                cur = 32'(off) / 4;
                left = len;
                first = 1'b1;
                while (left > 0) begin
                    chunk = mdw - cur % mdw;
                    if (left < chunk) chunk = left;
                    st = 2'b00;
                    for (k = 0; k < chunk; k = k + 1) begin
                        g = len - left + k;
                        rsp = 2'b00;
                        if (bar == 0 && be_of(g, len, fb, lb) != 0) begin
                            rsp = csr_resp(10'(cur + k));
                            exp_reads[(cur + k) % 1024] = exp_reads[(cur + k) % 1024] + 1;
                        end
                        if (bar == 1) rsp = ap_resp(10'((cur + k) / 2));
                        if (st == 2'b00) st = rsp;
                    end
                    push_cpl(13'(bc), 7'(cur * 4 + (first ? fo : 0)), (st == 2'b00) ? SC : (st == 2'b11) ? UR : CA,
                             (st == 2'b00) ? 11'(chunk) : 11'd0, rid, tag, at, attr, tc);
                    if (st != 2'b00) left = 0;
                    else begin
                        for (k = 0; k < chunk; k = k + 1) begin
                            g = len - left + k;
                            idx = (cur + k) % 2048;
                            ed[16'(ed_tail)] = (bar == 0) ? ((be_of(g, len, fb, lb) == 0) ? 32'd0 : ref_csr[idx % 1024])
                                                          : (idx % 2 == 1 ? ref_ap[idx / 2][63:32] : ref_ap[idx / 2][31:0]);
                            ed_tail = ed_tail + 1;
                        end
                        bc = bc - (4 * chunk - (first ? fo : 0));
                        cur = cur + chunk;
                        left = left - chunk;
                        first = 1'b0;
                    end
                end
            end else if (typ != 4'b0001 && typ[3:1] != 3'b110)
                push_cpl(13'(bc), {off[6:2], 2'(fo)}, UR, 11'd0, rid, tag, at, attr, tc);
        end else if (typ != 4'b0001 && typ[3:1] != 3'b110)
            push_cpl(13'(bc), {off[6:2], 2'(fo)}, UR, 11'd0, rid, tag, at, attr, tc);
        // send
        for (b = 0; b < nb; b = b + 1) begin
            rnd32(r);
            if (r[6:0] < gap_pct) repeat (1 + 32'(r[8:7])) @(negedge clk);
            cq_v = 1'b1;
            cq_d = bd[b];
            cq_k = bk[b];
            cq_l = b == nb - 1;
            cq_u = {46'd0, bdisc[b], 33'd0, lb, fb};
            @(posedge clk);
            while (!cq_rdy) @(posedge clk);
            @(negedge clk);
            cq_v = 1'b0;
            if (b == 0) mps = next_mps;   // the previous request is done: CQ took this one's first beat
        end
    endtask

    // A task is inlined by Verilator at every call: the fixed cases call req, which hands its
    // arguments to one service process that runs req_do, so req_do is built once.
    logic [3:0] q_typ, q_fb, q_lb;
    logic [2:0] q_bar;
    logic [5:0] q_aper;
    logic [12:0] q_off;
    integer q_len, q_npay, q_disc;
    logic q_go = 1'b0;
    task automatic req(input [3:0] typ, input [2:0] bar, input [5:0] aper, input [12:0] off,
                       input integer len, input [3:0] fb, input [3:0] lb, input integer npay,
                       input integer disc_beat);
        q_typ = typ; q_bar = bar; q_aper = aper; q_off = off; q_len = len; q_fb = fb; q_lb = lb;
        q_npay = npay; q_disc = disc_beat;
        q_go = 1'b1;
        wait (!q_go);
    endtask
    initial forever begin
        wait (q_go);
        req_do(q_typ, q_bar, q_aper, q_off, q_len, q_fb, q_lb, q_npay, q_disc);
        q_go = 1'b0;
    end

    // wait until every expected completion came and the completer is idle, then compare
    integer snap [0:10];
    task automatic settle(output bit ok);
        integer i, quiet, bad_mem, bad_rd;
        quiet = 0;
        for (i = 0; i < 200000 && quiet < 40; i = i + 1) begin
            @(posedge clk);
            quiet = (cq_rdy && e_head == e_tail && !c_awv && !c_arv && !a_awv && !a_arv) ? quiet + 1 : 0;
        end
        @(negedge clk);
        bad_mem = 0; bad_rd = 0;
        for (i = 0; i < 1024; i = i + 1) begin
            if (csr[i] !== ref_csr[i] || ap[i] !== ref_ap[i]) bad_mem = bad_mem + 1;
            if (csr_reads[i] != exp_reads[i]) bad_rd = bad_rd + 1;
        end
        ok = quiet >= 40 && bad_mem == 0 && bad_rd == 0 && bad_hdr == snap[0] && bad_stat == snap[1] &&
             bad_bc == snap[2] && bad_la == snap[3] && bad_cnt == snap[4] && bad_data == snap[5] &&
             bad_extra == snap[6] && bad_keep == snap[7] && bad_axi == snap[8];
        if (!ok)
            $display("# settle: quiet %0d mem %0d reads %0d hdr %0d stat %0d bc %0d la %0d cnt %0d data %0d extra %0d keep %0d axi %0d",
                     quiet, bad_mem, bad_rd, bad_hdr - snap[0], bad_stat - snap[1], bad_bc - snap[2],
                     bad_la - snap[3], bad_cnt - snap[4], bad_data - snap[5], bad_extra - snap[6],
                     bad_keep - snap[7], bad_axi - snap[8]);
        snap[0] = bad_hdr; snap[1] = bad_stat; snap[2] = bad_bc; snap[3] = bad_la; snap[4] = bad_cnt;
        snap[5] = bad_data; snap[6] = bad_extra; snap[7] = bad_keep; snap[8] = bad_axi;
    endtask

    wire unused = ^{c_awa[1:0], c_ara[1:0], c_awp, c_arp, a_awid, a_arid, a_awc, a_arc, a_awp, a_arp,
                    a_awlk, a_arlk};
    initial begin
        integer i, c0, u0, w0, len, npay, kind;
        reg [31:0] r, r2;
        reg [12:0] off;
        reg [3:0] fb, lb, typ;
        bit ok;
        tb_start(PLAN);
        rng_q = 64'h9E37_79B9_7F4A_7C15 ^ {32'd0, seed};
        rs_s = 64'hD1B5_4A32_D192_ED03 ^ {32'd0, seed};
        for (i = 0; i < 1024; i = i + 1) begin
            rnd32(r); rnd32(r2);
            csr[i] = r; ref_csr[i] = r; ap[i] = {r2, r}; ref_ap[i] = {r2, r};
            csr_reads[i] = 0; exp_reads[i] = 0;
        end
        for (i = 0; i < 11; i = i + 1) snap[i] = 0;
        repeat (4) @(negedge clk);
        rst = 1'b0;

        // BAR0 writes with byte enables, then reads back (full, partial first/last BE, zero-length)
        c0 = n_cpl; w0 = n_wrdone;
        req(4'b0001, 3'd0, 6'd12, 13'h040, 1, 4'hf, 4'h0, 1, -1);
        req(4'b0001, 3'd0, 6'd12, 13'h104, 3, 4'h6, 4'h3, 3, -1);
        req(4'b0001, 3'd0, 6'd12, 13'h200, 3, 4'h8, 4'h1, 3, -1);   // middle DWORD only full
        req(4'b0001, 3'd0, 6'd12, 13'h300, 1, 4'h0, 4'h0, 1, -1);   // zero-length write
        settle(ok);
        check(ok && n_wrdone == w0 + 4, "BAR0 writes land with their byte enables, one csr_wr_done each");
        req(4'b0000, 3'd0, 6'd12, 13'h040, 1, 4'hf, 4'h0, 0, -1);
        req(4'b0000, 3'd0, 6'd12, 13'h104, 3, 4'h6, 4'h3, 0, -1);
        req(4'b0000, 3'd0, 6'd12, 13'h10c, 1, 4'h4, 4'h0, 0, -1);   // 1 byte at 0x10e: BC 1, LA 0x0e
        req(4'b0000, 3'd0, 6'd12, 13'h208, 4, 4'h8, 4'h1, 0, -1);   // LA 0x0b, BC 10
        req(4'b0000, 3'd0, 6'd12, 13'h300, 1, 4'h0, 4'h0, 0, -1);   // zero-length: BC 1, no read
        settle(ok);
        check(ok && n_cpl == c0 + 5,
              "BAR0 reads: SC, byte count, lower address from the first BE, data; only BE'd DWORDs read");
        // BAR1: writes and reads split at Max_Payload_Size (128, 256, and 2/3 capped at 256)
        c0 = n_cpl;
        req(4'b0001, 3'd1, 6'd13, 13'h0f4, 64, 4'he, 4'h7, 64, -1);
        next_mps = 2'd0;
        req(4'b0000, 3'd1, 6'd13, 13'h0e4, 100, 4'hc, 4'h3, 0, -1);  // 7 + 32 + 32 + 29 DWORDs
        next_mps = 2'd1;
        req(4'b0000, 3'd1, 6'd13, 13'h0e4, 100, 4'hc, 4'h3, 0, -1);  // 7 + 64 + 29
        next_mps = 2'd3;
        req(4'b0000, 3'd1, 6'd13, 13'h404, 160, 4'hf, 4'hf, 0, -1);  // 63 + 64 + 33
        settle(ok);
        check(ok && n_cpl == c0 + 4 + 3 + 3,
              $sformatf("BAR1: write with BEs; reads split at MPS-aligned addresses, MPS 2/3 capped at 256 (%0d completions)", n_cpl - c0));
        // UR: other BARs, aperture mismatch, I/O, atomics, locked reads, discontinued reads
        c0 = n_cpl; u0 = n_ur;
        req(4'b0000, 3'd2, 6'd12, 13'h000, 1, 4'hf, 4'h0, 0, -1);
        req(4'b0000, 3'd0, 6'd16, 13'h000, 1, 4'hf, 4'h0, 0, -1);
        req(4'b0000, 3'd1, 6'd12, 13'h008, 2, 4'hf, 4'hf, 0, -1);
        req(4'b0010, 3'd0, 6'd12, 13'h004, 1, 4'hf, 4'h0, 0, -1);   // I/O read
        req(4'b0011, 3'd0, 6'd12, 13'h004, 1, 4'hf, 4'h0, 1, -1);   // I/O write
        req(4'b0100, 3'd1, 6'd13, 13'h010, 2, 4'hf, 4'hf, 2, -1);   // FetchAdd
        req(4'b0110, 3'd1, 6'd13, 13'h010, 4, 4'hf, 4'hf, 4, -1);   // CAS
        req(4'b0111, 3'd0, 6'd12, 13'h010, 1, 4'hf, 4'h0, 0, -1);   // locked read
        req(4'b0000, 3'd1, 6'd13, 13'h010, 4, 4'hf, 4'hf, 0, 1);    // discontinued read
        settle(ok);
        check(ok && n_cpl == c0 + 9 && n_ur == u0 + 9,
              $sformatf("UR for other BARs, apertures, I/O, atomics, locked and discontinued reads (%0d), nothing touched", n_ur - u0));
        // posted requests not executed: dropped, nothing changes
        c0 = n_cpl; w0 = n_wrdone;
        req(4'b0001, 3'd2, 6'd12, 13'h040, 2, 4'hf, 4'hf, 2, -1);
        req(4'b0001, 3'd0, 6'd13, 13'h040, 2, 4'hf, 4'hf, 2, -1);
        req(4'b1100, 3'd0, 6'd12, 13'h040, 2, 4'hf, 4'hf, 2, -1);   // message with data
        req(4'b0001, 3'd1, 6'd13, 13'h000, 65, 4'hf, 4'hf, 65, -1); // over MaxPayloadBytes
        settle(ok);
        check(ok && n_cpl == c0 && n_wrdone == w0, "writes to other BARs, messages, oversized writes: dropped, no completion");
        // poisoned/discontinued writes (on the descriptor, the first, a middle and the last beat)
        c0 = n_cpl; w0 = n_wrdone;
        req(4'b0001, 3'd0, 6'd12, 13'h080, 4, 4'hf, 4'hf, 4, 0);
        req(4'b0001, 3'd0, 6'd12, 13'h080, 4, 4'hf, 4'hf, 4, 3);
        req(4'b0001, 3'd1, 6'd13, 13'h080, 9, 4'hf, 4'hf, 9, 2);
        req(4'b0001, 3'd1, 6'd13, 13'h080, 9, 4'hf, 4'hf, 9, 4);
        req(4'b0001, 3'd1, 6'd13, 13'h080, 9, 4'hf, 4'hf, 9, 6);
        req(4'b0001, 3'd1, 6'd13, 13'h080, 9, 4'hf, 4'hf, 6, -1);   // cut short
        settle(ok);
        check(ok && n_cpl == c0 && n_wrdone == w0, "discontinued (poisoned) and truncated writes change nothing");
        // AXI errors: DECERR -> UR, SLVERR -> CA, ending the request
        c0 = n_cpl;
        next_mps = 2'd0;
        req(4'b0000, 3'd0, 6'd12, 13'hf80, 2, 4'hf, 4'hf, 0, -1);   // DECERR
        req(4'b0000, 3'd0, 6'd12, 13'hfc0, 2, 4'hf, 4'hf, 0, -1);   // SLVERR
        req(4'b0000, 3'd1, 6'd13, 13'h1d80, 64, 4'hf, 4'hf, 0, -1);  // SC, then UR at 0x1e00
        req(4'b0000, 3'd1, 6'd13, 13'h1f80, 16, 4'hf, 4'hf, 0, -1);  // CA
        req(4'b0001, 3'd0, 6'd12, 13'hfc0, 1, 4'hf, 4'h0, 1, -1);   // write error: dropped
        req(4'b0000, 3'd0, 6'd12, 13'h040, 1, 4'hf, 4'h0, 0, -1);   // still working
        settle(ok);
        check(ok && n_cpl == c0 + 6, $sformatf("AXI DECERR -> UR, SLVERR -> CA, the request ends (%0d completions)", n_cpl - c0));

        // random requests
        c0 = n_cpl; u0 = n_ur;
        for (i = 0; i < 200; i = i + 1) begin
            rnd32(r); rnd32(r2);
            next_mps = r2[31:30];
            kind = 32'(r[3:0]);
            fb = r[7:4]; lb = r[11:8];
            if (kind < 4) begin                        // BAR0 read or write, 1..8 DWORDs
                len = 1 + 32'(r2[2:0]);
                off = {1'b0, r2[13:4], 2'b00};
                if (32'(off) + 4 * len > 4096) off = 13'(4096 - 4 * len);
            end else begin                             // BAR1, 1..160 DWORDs
                len = 1 + 32'(r2[7:0]) % 160;
                off = {r2[19:9], 2'b00};   // a request never crosses 4 KiB (PCIe)
                if (32'(off[11:0]) + 4 * len > 4096) off = 13'(32'(off) - (32'(off[11:0]) + 4 * len - 4096));
            end
            if (len == 1) lb = 4'h0;
            else begin
                if (fb == 0) fb = 4'h8;
                if (lb == 0) lb = 4'h1;
            end
            typ = (kind % 2 == 0) ? 4'b0000 : 4'b0001;
            if (typ == 4'b0001 && len > 64) len = 64;
            npay = (typ == 4'b0001) ? len : 0;
            if (kind == 15 && r2[29:28] == 0) req(4'b0100, 3'd1, 6'd13, off, 2, 4'hf, 4'hf, 2, -1);
            else if (kind == 15 && r2[29:28] == 1) req(typ, 3'd3, 6'd13, off, len, fb, lb, npay, -1);
            else req(typ, (kind < 4) ? 3'd0 : 3'd1, (kind < 4) ? 6'd12 : 6'd13, off, len, fb, lb, npay,
                     (kind == 15 && r2[29:28] == 2) ? 1 : -1);
        end
        settle(ok);
        check(bad_stat == 0 && bad_cnt == 0, $sformatf("random: %0d completions, status and DWORD count", n_cpl - c0));
        check(bad_bc == 0 && bad_la == 0, "random: byte count and lower address of every completion");
        check(bad_hdr == 0 && bad_keep == 0, "random: requester ID, tag, attr, TC, AT echoed; tkeep/tlast/tuser");
        check(bad_data == 0 && bad_extra == 0, "random: completion data, none unexpected");
        check(ok, "random: both memories equal the reference; only BE'd BAR0 DWORDs read, once; AXI bursts legal");
        check(n_ur == e_ur && n_ur - u0 > 0,
              $sformatf("ur_o pulsed once per UR completion (%0d in all, %0d random)", n_ur, n_ur - u0));
        tb_finish("");
    end
endmodule
`default_nettype wire
