// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_pcie_req: pcie_req, the PCIe shell's requester, alone (Slots 4, Tags 8, CplTimeout 1500)
// under Icarus 11 and Verilator 5.006. The TB is gpu_core's AXI4 master (random write and read
// bursts of 1..16 8-byte beats at 64-bit addresses, random strobes, gaps and RREADY), the hard
// IP's RQ sink (random tready) that checks every TLP (MWr/MRd, sizes within Max_Payload_Size
// and Max_Read_Request_Size, no limit-aligned or 4 KiB crossing, byte enables, tags) and writes
// MWr payload into an 8 KiB host memory, and the RC source that answers every MRd from that
// memory with completions split at random DWORDs, interleaved across tags in random order.
// Checks: memory byte-exact (every strobed byte written once, no other), R data exact in AR
// order, a completion timeout (SLVERR after CplTimeout, the late completion dropped), a paired
// 256-byte MRd timing out, bus mastering off (SLVERR, no TLP); queued runs of contiguous write
// bursts (merged MWr, discontinued ones resent), RQ tvalid never low inside a TLP. Each
// process draws from its own stream. TAP; +seed=N.
module tb_pcie_req;
    localparam integer PLAN = 11;
    localparam integer Tmo = 1500;
    localparam [63:0] Base = 64'h0000_0042_8765_0000;   // the 8 KiB host buffer

    logic clk = 1'b0, rst = 1'b1;
    initial forever #5 clk = ~clk;
    logic [3:0]  awid = '0, arid = '0;
    logic [63:0] awaddr = '0, araddr = '0, wdata = '0;
    logic [7:0]  awlen = '0, arlen = '0, wstrb = '0;
    logic        awvalid = 1'b0, wlast = 1'b0, wvalid = 1'b0, bready = 1'b1, arvalid = 1'b0, rready = 1'b0;
    wire         awready, wready, bvalid, arready, rvalid, rlast;
    wire  [3:0]  bid, rid;
    wire  [1:0]  bresp, rresp;
    wire  [63:0] rdata;
    wire  [63:0] rq_d;
    wire  [1:0]  rq_k;
    wire         rq_l, rq_v, rc_rdy, tmo_o, err_o;
    wire  [61:0] rq_u;
    logic        rq_rdy = 1'b0;
    logic [63:0] rc_d = '0;
    logic [1:0]  rc_k = '0;
    logic        rc_l = 1'b0, rc_v = 1'b0;
    logic [1:0]  mps = 2'd0;
    logic [2:0]  mrrs = 3'd0;
    logic        bme = 1'b1;

    pcie_req #(.IdBits(4), .Slots(4), .Tags(8), .CplTimeout(Tmo)) dut (
        .clk_i(clk), .rst_i(rst),
        .s_host_awid_i(awid), .s_host_awaddr_i(awaddr), .s_host_awlen_i(awlen), .s_host_awsize_i(3'd3),
        .s_host_awburst_i(2'b01), .s_host_awlock_i(1'b0), .s_host_awcache_i(4'd0), .s_host_awprot_i(3'd0),
        .s_host_awvalid_i(awvalid), .s_host_awready_o(awready),
        .s_host_wdata_i(wdata), .s_host_wstrb_i(wstrb), .s_host_wlast_i(wlast), .s_host_wvalid_i(wvalid),
        .s_host_wready_o(wready), .s_host_bid_o(bid), .s_host_bresp_o(bresp), .s_host_bvalid_o(bvalid),
        .s_host_bready_i(bready),
        .s_host_arid_i(arid), .s_host_araddr_i(araddr), .s_host_arlen_i(arlen), .s_host_arsize_i(3'd3),
        .s_host_arburst_i(2'b01), .s_host_arlock_i(1'b0), .s_host_arcache_i(4'd0), .s_host_arprot_i(3'd0),
        .s_host_arvalid_i(arvalid), .s_host_arready_o(arready),
        .s_host_rid_o(rid), .s_host_rdata_o(rdata), .s_host_rresp_o(rresp), .s_host_rlast_o(rlast),
        .s_host_rvalid_o(rvalid), .s_host_rready_i(rready),
        .m_axis_rq_tdata_o(rq_d), .m_axis_rq_tkeep_o(rq_k), .m_axis_rq_tlast_o(rq_l), .m_axis_rq_tuser_o(rq_u),
        .m_axis_rq_tvalid_o(rq_v), .m_axis_rq_tready_i(rq_rdy),
        .s_axis_rc_tdata_i(rc_d), .s_axis_rc_tkeep_i(rc_k), .s_axis_rc_tlast_i(rc_l), .s_axis_rc_tuser_i(75'd0),
        .s_axis_rc_tvalid_i(rc_v), .s_axis_rc_tready_o(rc_rdy),
        .cfg_max_payload_i(mps), .cfg_max_read_req_i(mrrs), .bus_master_en_i(bme),
        .cpl_timeout_o(tmo_o), .cpl_error_o(err_o));

    // ---- seed, waves, TAP checks: the kit --------------------------------------------
`define TB_TOP tb_pcie_req
`include "tb/unit/common/tb_kit.svh"
`define TB_RND(st, v) begin st = st ^ (st >> 12); st = st ^ (st << 25); st = st ^ (st >> 27); \
        v = 32'(((st * 64'h2545_F491_4F6C_DD1D) >> 32)); end
    logic [63:0] rs_m, rs_q, rs_c, rs_r;  // master, RQ sink, RC source, RREADY

    // host memory (bytes), the master's reference, and per-byte write counts
    logic [7:0] hm [0:8191], href [0:8191];
    integer wcount [0:8191], ecount [0:8191];
    // outstanding MRd per tag (filled by the RQ sink, answered by the RC source)
    logic   o_busy [0:7], o_mute [0:7], o_late [0:7];
    integer o_dw [0:7], o_sent [0:7], o_addr [0:7];
    integer n_tlp = 0, n_disc = 0, n_mwr64 = 0, n_mrd64 = 0, n_mrd = 0, n_cpl = 0, n_tmo = 0, n_err = 0;
    integer bad_valid = 0, bad_size = 0, bad_cross = 0, bad_be = 0, bad_tag = 0, bad_addr = 0, bad_desc = 0;

    // ---- RQ sink --------------------------------------------------------------------------
    initial begin : rq_sink
        reg [31:0] r, dws [0:1100];
        integer n, i, j, cnt, lim, a, b;
        reg [3:0] fb, lb, be;
        reg disc;
        n = 0; fb = 0; lb = 0; disc = 1'b0;
        forever begin
            @(posedge clk);
            if (!rst && tmo_o) n_tmo = n_tmo + 1;
            if (!rst && err_o) n_err = n_err + 1;
            if (!rst && n != 0 && !rq_v) bad_valid = bad_valid + 1;   // tvalid low inside a TLP
            if (!rst && rq_v && rq_rdy) begin
                if (!rq_k[0]) bad_desc = bad_desc + 1;
                if (n == 0) begin fb = rq_u[3:0]; lb = rq_u[7:4]; if (rq_u[61:8] != 54'd0) bad_desc = bad_desc + 1; end
                else if (rq_u[61:12] != 50'd0 || rq_u[10:0] != {3'd0, lb, fb}) bad_desc = bad_desc + 1;
                if (rq_u[11]) disc = 1'b1;
                dws[n] = rq_d[31:0];
                if (rq_k[1]) dws[n + 1] = rq_d[63:32];
                n = n + (rq_k[1] ? 2 : 1);
                if (rq_l && disc) begin
                    // discontinued (the hard IP nullifies it): only a MWr may, past its descriptor
                    n_disc = n_disc + 1;
                    if (dws[2][14:11] != 4'b0001 || n < 6) bad_desc = bad_desc + 1;
                    n = 0;
                    disc = 1'b0;
                end else if (rq_l) begin
                    n_tlp = n_tlp + 1;
                    cnt = 32'(dws[2][10:0]);
                    a = 32'({dws[1], dws[0][31:2], 2'b00} - Base);
                    if (dws[0][1:0] != 2'b00 || dws[2][31:15] != 17'd0 || dws[3][31:8] != 24'd0)
                        bad_desc = bad_desc + 1;
                    if ({dws[1], dws[0]} < Base || a + 4 * cnt > 8192) bad_addr = bad_addr + 1;
                    if (cnt == 1 ? lb != 4'h0 : (fb == 4'h0 || lb == 4'h0)) bad_be = bad_be + 1;
                    if (dws[2][14:11] == 4'b0001) begin          // MWr
                        lim = 32 << mps;
                        if (n != 4 + cnt) bad_size = bad_size + 1;
                        if (cnt == 64) n_mwr64 = n_mwr64 + 1;
                        for (i = 0; i < cnt && i + 4 < n; i = i + 1) begin
                            be = (i == 0) ? fb : (i == cnt - 1) ? lb : 4'hf;
                            for (j = 0; j < 4; j = j + 1)
                                if (be[j] && a + 4 * i + j < 8192) begin
                                    hm[a + 4 * i + j] = dws[4 + i][8 * j +: 8];
                                    wcount[a + 4 * i + j] = wcount[a + 4 * i + j] + 1;
                                end
                        end
                    end else begin                                // MRd
                        lim = 32 << mrrs;
                        n_mrd = n_mrd + 1;
                        if (cnt == 64) n_mrd64 = n_mrd64 + 1;
                        b = 32'(dws[3][7:0]);
                        if (n != 4 || dws[2][14:11] != 4'b0000 || fb != 4'hf || (cnt > 1 && lb != 4'hf))
                            bad_desc = bad_desc + 1;
                        if (b > 7 || o_busy[b % 8]) bad_tag = bad_tag + 1;
                        else begin
                            o_busy[b] = 1'b1; o_dw[b] = cnt; o_sent[b] = 0; o_addr[b] = a;
                        end
                    end
                    if (cnt == 0 || cnt > lim) bad_size = bad_size + 1;
                    if ((a + Base[31:0]) / (4 * lim) != (a + Base[31:0] + 4 * cnt - 1) / (4 * lim)) bad_cross = bad_cross + 1;
                    n = 0;
                end
            end
            @(negedge clk);
            `TB_RND(rs_q, r)
            rq_rdy = r % 4 != 0;
        end
    end

    // ---- RC source: completions split at random DWORDs, random tag order ------------------
    initial begin : rc_src
        reg [31:0] r, dw [0:1100];
        integer k, nd, i, nb;
        reg [2:0] t;
        reg [12:0] bc;
        forever begin
            @(negedge clk);
            `TB_RND(rs_c, r)
            t = r[2:0];
            if (!rst && o_busy[t] && !o_mute[t] && r[4:3] != 2'd0) begin
                k = o_dw[t] - o_sent[t];
                nd = 1 + 32'(r[31:8]) % k;
                if (r[7:5] == 3'd0) nd = k;
                if (o_late[t]) nd = 1;   // a late answer in two pieces, the second 100 cycles on
                bc = 13'(4 * k);
                dw[0] = {1'b0, nd == k, 1'b0, bc, 4'd0, 12'(o_addr[t] + 4 * o_sent[t])};
                dw[1] = {16'd0, 1'b0, 1'b0, 3'b000, 11'(nd)};
                dw[2] = {29'd0, t};
                for (i = 0; i < nd; i = i + 1)
                    dw[3 + i] = {hm[o_addr[t] + 4 * (o_sent[t] + i) + 3], hm[o_addr[t] + 4 * (o_sent[t] + i) + 2],
                                 hm[o_addr[t] + 4 * (o_sent[t] + i) + 1], hm[o_addr[t] + 4 * (o_sent[t] + i)]};
                nb = (3 + nd + 1) / 2;
                o_sent[t] = o_sent[t] + nd;
                for (i = 0; i < nb; i = i + 1) begin
                    `TB_RND(rs_c, r)
                    if (r[2:0] == 3'd0) begin rc_v = 1'b0; @(negedge clk); end
                    rc_v = 1'b1;
                    rc_d = {(2 * i + 1 < 3 + nd) ? dw[2 * i + 1] : 32'd0, dw[2 * i]};
                    rc_k = {2 * i + 1 < 3 + nd, 1'b1};
                    rc_l = i == nb - 1;
                    @(posedge clk);
                    while (!rc_rdy) @(posedge clk);
                    if (i == nb - 1) begin
                        n_cpl = n_cpl + 1;
                        if (o_sent[t] == o_dw[t]) o_busy[t] = 1'b0;
                    end
                    @(negedge clk);
                end
                rc_v = 1'b0;
                rc_l = 1'b0;
                if (o_late[t]) begin
                    o_late[t] = 1'b0;
                    repeat (100) @(negedge clk);
                end
            end
        end
    end

    // ---- AXI master ---------------------------------------------------------------------
    task automatic write_burst(input integer off, input integer len, output [1:0] resp);
        reg [31:0] r;
        integer b, j;
        @(negedge clk);
        `TB_RND(rs_m, r)
        awid = r[3:0]; awaddr = Base + 64'(off); awlen = 8'(len - 1); awvalid = 1'b1;
        @(posedge clk);
        while (!awready) @(posedge clk);
        @(negedge clk);
        awvalid = 1'b0;
        for (b = 0; b < len; b = b + 1) begin
            `TB_RND(rs_m, r)
            if (r[2:0] == 3'd0) begin wvalid = 1'b0; @(negedge clk); end
            wdata[31:0] = r;
            `TB_RND(rs_m, r)
            wdata[63:32] = r;
            `TB_RND(rs_m, r)
            wstrb = (r[1:0] != 2'd0) ? 8'hff : r[15:8];
            if (r[7:2] == 6'd0) wstrb = 8'h00;
            wlast = b == len - 1;
            wvalid = 1'b1;
            if (bme)
                for (j = 0; j < 8; j = j + 1)
                    if (wstrb[j]) begin href[off + 8 * b + j] = wdata[8 * j +: 8]; ecount[off + 8 * b + j] = ecount[off + 8 * b + j] + 1; end
            @(posedge clk);
            while (!wready) @(posedge clk);
            @(negedge clk);
        end
        wvalid = 1'b0;
        wlast = 1'b0;
        @(posedge clk);
        while (!bvalid) @(posedge clk);
        resp = bresp;
        if (bid != awid) resp = 2'b01;    // EXOKAY never comes: a wrong BID fails as that
        for (j = 0; j < 8 * len; j = j + 1)  // B only once every MWr of the burst is on RQ
            if (hm[off + j] != href[off + j]) resp = 2'b01;
    endtask

    // a run of nb contiguous 16-beat bursts: every AW first, W behind them, the B's counted
    // after (AW and W need not wait for B, so bursts queue and may merge); strobes mostly full,
    // a beat in 24 partly strobed, a beat in 32 late by 6 cycles
    task automatic write_run(input integer off, input integer nb, output integer bad);
        reg [31:0] r;
        reg [3:0] ids [0:15];
        integer b, j, k, m;
        bad = 0;
        fork
            begin
                for (k = 0; k < nb; k = k + 1) begin
                    @(negedge clk);
                    `TB_RND(rs_m, r)
                    ids[k] = r[3:0];
                    awid = r[3:0]; awaddr = Base + 64'(off) + 64'(128 * k); awlen = 8'd15; awvalid = 1'b1;
                    @(posedge clk);
                    while (!awready) @(posedge clk);
                end
                @(negedge clk);
                awvalid = 1'b0;
            end
            begin
                for (b = 0; b < 16 * nb; b = b + 1) begin
                    @(negedge clk);
                    `TB_RND(rs_m, r)
                    if (r[31:27] == 5'd0) begin wvalid = 1'b0; repeat (6) @(negedge clk); end  // W late
                    wdata[31:0] = r;
                    `TB_RND(rs_m, r)
                    wdata[63:32] = r;
                    `TB_RND(rs_m, r)
                    wstrb = (r % 24 != 0) ? 8'hff : r[15:8];
                    wlast = b % 16 == 15;
                    wvalid = 1'b1;
                    for (j = 0; j < 8; j = j + 1)
                        if (wstrb[j]) begin href[off + 8 * b + j] = wdata[8 * j +: 8]; ecount[off + 8 * b + j] = ecount[off + 8 * b + j] + 1; end
                    @(posedge clk);
                    while (!wready) @(posedge clk);
                end
                @(negedge clk);
                wvalid = 1'b0;
                wlast = 1'b0;
            end
            begin
                for (m = 0; m < nb; m = m + 1) begin
                    @(posedge clk);
                    while (!bvalid) @(posedge clk);
                    if (bresp != 2'b00 || bid != ids[m]) bad = bad + 1;
                end
            end
        join
    endtask

    integer ar_q_off [0:255], ar_q_len [0:255], ar_q_id [0:255], ar_head = 0, ar_tail = 0;
    integer bad_r = 0, n_rbeats = 0, n_rslv = 0;
    logic   expect_slverr = 1'b0;
    // R collector: bursts in AR order, data from the reference, RLAST, RID, RRESP
    initial begin : r_coll
        reg [31:0] r;
        integer beat;
        reg [7:0] j;
        beat = 0;
        forever begin
            @(posedge clk);
            if (!rst && rvalid && rready) begin
                n_rbeats = n_rbeats + 1;
                if (ar_head == ar_tail) bad_r = bad_r + 1;
                else begin
                    j = 8'(ar_head % 256);
                    if (32'(rid) != ar_q_id[j] || rlast != (beat == ar_q_len[j] - 1)) bad_r = bad_r + 1;
                    if (expect_slverr) begin
                        if (rresp != 2'b10) bad_r = bad_r + 1;
                        n_rslv = n_rslv + 1;
                    end else begin
                        if (rresp != 2'b00) bad_r = bad_r + 1;
                        for (r = 0; r < 8; r = r + 1)
                            if (rdata[8 * r +: 8] != href[ar_q_off[j] + 8 * beat + r]) begin
                                bad_r = bad_r + 1;
                                if (bad_r < 4) $display("# R burst %0d (offset 0x%0h) beat %0d byte %0d: 0x%02h, expected 0x%02h",
                                                        ar_head, ar_q_off[j], beat, r, rdata[8 * r +: 8],
                                                        href[ar_q_off[j] + 8 * beat + r]);
                            end
                    end
                    beat = beat + 1;
                    if (rlast || beat == ar_q_len[j]) begin beat = 0; ar_head = ar_head + 1; end
                end
            end
            @(negedge clk);
            `TB_RND(rs_r, r)
            rready = r % 4 != 0;
        end
    end
    task automatic read_burst(input integer off, input integer len);
        reg [31:0] r;
        @(negedge clk);
        `TB_RND(rs_m, r)
        if (r % 4 == 0) repeat (1 + (r / 4) % 4) @(negedge clk);
        arid = 4'(r >> 28); araddr = Base + 64'(off); arlen = 8'(len - 1); arvalid = 1'b1;
        ar_q_off[ar_tail % 256] = off; ar_q_len[ar_tail % 256] = len; ar_q_id[ar_tail % 256] = 32'(arid);
        ar_tail = ar_tail + 1;
        @(posedge clk);
        while (!arready) @(posedge clk);
        @(negedge clk);
        arvalid = 1'b0;
    endtask
    task automatic drain(input integer max, output integer cycles);
        cycles = 0;
        while (ar_head != ar_tail && cycles < max) begin @(negedge clk); cycles = cycles + 1; end
    endtask

    initial begin
        integer i, j, len, off, t0, cyc, tl0, bad_wr, bad_cnt;
        reg [31:0] r;
        reg [1:0] resp;
        tb_start(PLAN);
        rs_m = 64'h9E37_79B9_7F4A_7C15 ^ {32'd0, seed};
        rs_q = 64'hD1B5_4A32_D192_ED03 ^ {32'd0, seed};
        rs_c = 64'h8CB9_2BA7_2F3D_8DD7 ^ {32'd0, seed};
        rs_r = 64'h5851_F42D_4C95_7F2D ^ {32'd0, seed};
        for (i = 0; i < 8192; i = i + 1) begin
            `TB_RND(rs_m, r)
            hm[i] = r[7:0]; href[i] = r[7:0]; wcount[i] = 0; ecount[i] = 0;
        end
        for (i = 0; i < 8; i = i + 1) begin o_busy[i] = 1'b0; o_mute[i] = 1'b0; o_late[i] = 1'b0; o_dw[i] = 0; o_sent[i] = 0; o_addr[i] = 0; end
        repeat (4) @(negedge clk);
        rst = 1'b0;

        // writes: 120 random bursts, MPS 128 then 256
        bad_wr = 0;
        for (i = 0; i < 120; i = i + 1) begin
            mps = (i < 60) ? 2'd0 : 2'd1;
            `TB_RND(rs_m, r)
            len = 1 + 32'(r[3:0]);
            off = 8 * ((r >> 8) % (1024 - len));
            write_burst(off, len, resp);
            if (resp != 2'b00) bad_wr = bad_wr + 1;
        end
        bad_cnt = 0;
        for (i = 0; i < 8192; i = i + 1) if (hm[i] != href[i] || wcount[i] != ecount[i]) bad_cnt = bad_cnt + 1;
        check(bad_wr == 0 && bad_cnt == 0, $sformatf("120 write bursts: B OKAY after the last MWr, every strobed byte written once, no other (%0d TLPs, %0d discontinued)", n_tlp, n_disc));
        // runs of 2..6 contiguous bursts, queued: merged MWr, a partial strobe inside one
        t0 = n_disc;
        tl0 = n_mwr64;
        mps = 2'd1;
        for (i = 0; i < 40; i = i + 1) begin
            `TB_RND(rs_m, r)
            len = 2 + 32'(r[2:0]) % 5;
            off = 128 * ((r >> 8) % (64 - len));
            write_run(off, len, j);
            bad_wr = bad_wr + j;
        end
        repeat (50) @(negedge clk);
        bad_cnt = 0;
        for (i = 0; i < 8192; i = i + 1) if (hm[i] != href[i] || wcount[i] != ecount[i]) bad_cnt = bad_cnt + 1;
        check(bad_wr == 0 && bad_cnt == 0 && n_mwr64 > tl0 && n_disc > t0,
              $sformatf("40 runs of 2..6 queued bursts: B in AW order, %0d MWr of 256 bytes (two bursts), %0d discontinued, every strobed byte written once", n_mwr64 - tl0, n_disc - t0));
        // reads: 150 random bursts, up to 6 in flight, MRRS 128..512
        tl0 = n_mrd;
        for (i = 0; i < 150; i = i + 1) begin
            if (i % 50 == 0) begin drain(20000, cyc); mrrs = 3'(i / 50); end
            `TB_RND(rs_m, r)
            len = 1 + 32'(r[3:0]);
            off = 8 * ((r >> 8) % (1024 - len));
            while (ar_tail - ar_head >= 6) @(negedge clk);
            read_burst(off, len);
        end
        drain(50000, cyc);
        check(ar_head == ar_tail && bad_r == 0,
              $sformatf("150 read bursts: R in AR order, exact data, RID, RLAST, OKAY (%0d MRd, %0d completions)", n_mrd - tl0, n_cpl));
        check(bad_size == 0 && bad_cross == 0,
              "every TLP within Max_Payload_Size / Max_Read_Request_Size, none across a limit-aligned (4 KiB) boundary");
        check(bad_be == 0 && bad_desc == 0 && bad_addr == 0 && bad_valid == 0,
              "TLP descriptors: type, count, first/last BE, address, tuser; tvalid high from a TLP's first beat to its last");
        check(bad_tag == 0 && n_tmo == 0 && n_err == 0, "tags 0..7, never reused while outstanding; no timeout or error");

        // completion timeout: one 1-beat read whose tag is never answered
        for (i = 0; i < 8; i = i + 1) if (o_busy[i]) bad_tag = bad_tag + 1;
        drain(1000, cyc);
        for (i = 0; i < 8; i = i + 1) o_mute[i] = 1'b1;    // nothing is outstanding: mutes the next
        expect_slverr = 1'b1;
        t0 = n_rslv;
        read_burst(64, 1);
        drain(Tmo * 3, cyc);
        check(n_rslv == t0 + 1 && n_tmo == 1 && cyc >= Tmo && cyc <= Tmo + 20,
              $sformatf("unanswered tag: SLVERR after %0d cycles (CplTimeout %0d), cpl_timeout_o once", cyc, Tmo));
        expect_slverr = 1'b0;
        // the late completion comes, split: its first piece must not free the tag for reuse
        for (i = 0; i < 8; i = i + 1) begin o_late[i] = o_busy[i]; o_mute[i] = 1'b0; end
        tl0 = bad_tag;
        j = bad_r;
        for (i = 0; i < 16; i = i + 1) read_burst(128 * i, 16);
        drain(20000, cyc);
        check(bad_r == j && bad_tag == tl0 && ar_head == ar_tail && n_tmo == 1,
              "after a timeout, a late completion in two pieces: its tag not reused before the last; 16 reads exact");

        // a paired 256-byte MRd that times out: two unanswered 1-beat reads keep two MRd out,
        // so the first of two contiguous 16-beat bursts waits for the second and they go as
        // one MRd; all three time out, both bursts of the pair answer SLVERR
        drain(20000, cyc);
        for (i = 0; i < 8; i = i + 1) o_mute[i] = 1'b1;
        expect_slverr = 1'b1;
        t0 = n_rslv;
        tl0 = n_mrd64;
        j = n_tmo;
        len = bad_r;
        read_burst(0, 1);
        read_burst(64, 1);
        read_burst(1024, 16);
        read_burst(1152, 16);
        drain(Tmo * 3, cyc);
        check(n_rslv == t0 + 34 && n_tmo == j + 3 && n_mrd64 == tl0 + 1 && ar_head == ar_tail && bad_r == len,
              $sformatf("a paired MRd timing out: both its bursts answer SLVERR (%0d R beats), %0d timeouts", n_rslv - t0, n_tmo - j));
        expect_slverr = 1'b0;
        for (i = 0; i < 8; i = i + 1) begin o_busy[i] = 1'b0; o_mute[i] = 1'b0; end   // never answered
        repeat (Tmo + 20) @(negedge clk);
        j = bad_r;
        for (i = 0; i < 16; i = i + 1) read_burst(128 * i, 16);
        drain(20000, cyc);

        // bus mastering off: SLVERR both ways, no TLP
        t0 = n_tlp;
        bme = 1'b0;
        write_burst(256, 4, resp);
        expect_slverr = 1'b1;
        j = n_rslv;
        read_burst(512, 4);
        drain(2000, cyc);
        repeat (50) @(negedge clk);
        check(resp == 2'b10 && n_rslv == j + 4 && n_tlp == t0, "bus master disabled: B SLVERR, 4 R beats SLVERR, no TLP");
        expect_slverr = 1'b0;
        bme = 1'b1;
        bad_cnt = 0;
        for (i = 0; i < 8192; i = i + 1) if (hm[i] != href[i] || wcount[i] != ecount[i]) bad_cnt = bad_cnt + 1;
        check(bad_cnt == 0 && bad_r == 0, "host memory unchanged by the refused write; nothing else wrong");
        tb_finish("");
    end
endmodule
`default_nettype wire
