// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_sdr_ctrl: self-checking unit test of sdr_ctrl (boards/common/sdram) against sdram_model
// (sim/models/sdram, the IS42S16160G from its data sheet), under Icarus 11 and Verilator 5.006
// --timing. TAP output and +seed=N (replays a run) through the kit (tb/unit/common/tb_kit.svh).
// Configuration by define: SDR_TCK_PS (clock period, default 7000: 143 MHz) and SDR_CL (CAS
// latency, default 3), SDR_READ_DELAY (the controller's ReadDelay, default 0); tb_sdr_ctrl_cl2
// includes this file at 10000 ps, CL 2 and ReadDelay 1.
// - The controller's pins go straight to the model; DQ reads 16'hDEAD when nobody drives it,
//   so a capture at the wrong edge returns wrong data. The model stops the run ($fatal) at the
//   first timing or protocol violation.
// - Random phase: RAND_OPS AXI bursts (INCR, 1..32 beats, random IDs, random WSTRB, W often
//   before its AW, bursts with a bad AxSIZE/AxBURST (SLVERR) or above the SDRAM (DECERR)),
//   addresses in a few rows of every bank (row hits and misses) and anywhere in the 1 MiB the
//   model stores, random gaps on AW/W/AR and random BREADY/RREADY with long stalls. Checked
//   against a byte reference updated at each B: every R beat's data, ID, RRESP and RLAST, every
//   B's ID and BRESP, R and B in request order, and nothing lost (cycle budget). A read is
//   presented only when no write overlapping it is outstanding or presented, and vice versa
//   (AXI does not order reads against writes).
// - Efficiency phases (every READY high, no gaps): sequential 4 KiB read and write streams in
//   16-beat bursts (the DMA engine's), 64-byte bursts at random addresses, and a 64 KiB read
//   stream for the refresh cost; the share of SDRAM clock cycles with a data word on DQ is
//   printed as a table and checked against a floor.
// - Mutants: sdr_ctrl instances built with one timing parameter broken (tRCD, tRP, tWR, tRFC,
//   the refresh interval, and at 143 MHz CAS latency 2), each against its own model, driven by a
//   simple stream; each model must report exactly the rule that parameter breaks, first. They
//   run in the Verilator build only: six more controller/model pairs make Icarus 11 four
//   times slower (even once their clock is stopped), and the same RTL runs there without them.
// Icarus also runs fewer random bursts (RAND_OPS) and a shorter stream across refreshes.
/* verilator lint_off BLKSEQ */
/* verilator lint_off WIDTH */
/* verilator lint_off UNUSEDSIGNAL */
`ifndef SDR_TB_NAME
`define SDR_TB_NAME tb_sdr_ctrl
`endif
module `SDR_TB_NAME;
`ifndef SDR_TCK_PS
`define SDR_TCK_PS 7000
`endif
`ifndef SDR_CL
`define SDR_CL 3
`endif
`ifndef SDR_READ_DELAY
`define SDR_READ_DELAY 0
`endif
    localparam integer TCK = `SDR_TCK_PS;
    localparam integer CL = `SDR_CL;
    localparam integer IDB = 4;
    localparam integer MEMB = 1 << 20;        // bytes the test uses (rows 0..255 of each bank)
    localparam integer MAXOPS = 1024;
    localparam integer MAXLEN = 32;           // beats per random burst, at most
    localparam integer REF_ROWS = 64;         // refresh check scaled: 64 REFRESH per window
    localparam integer REF_WIN_NS = 500000;   // 64 x 7812.5 ns
`ifdef __ICARUS__
    localparam integer RAND_OPS = 240;        // Icarus is about 100 times slower
    localparam integer LONG_KIB = 16;         // the read stream across refreshes
`else
    localparam integer RAND_OPS = 900;
    localparam integer LONG_KIB = 64;
`endif
`ifdef __ICARUS__
    localparam integer NMUT = 0;              // the mutants run under Verilator (see the header)
`else
    localparam integer NMUT = (CL == 3 && TCK < 10000) ? 6 : 5;
`endif
    localparam integer PLAN = 13 + NMUT;

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #5 clk = ~clk;
    integer cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

`define TB_TOP `SDR_TB_NAME
`include "tb/unit/common/tb_kit.svh"
    // write data and strobes: a pure function of (seed, op, beat), so nothing is stored
    function automatic [63:0] mix(input [63:0] x);
        logic [63:0] z;
        z = x + 64'h9E3779B97F4A7C15;
        z = (z ^ (z >> 30)) * 64'hBF58476D1CE4E5B9;
        z = (z ^ (z >> 27)) * 64'h94D049BB133111EB;
        mix = z ^ (z >> 31);
    endfunction

    // ---- DUT and model ----
    logic [IDB-1:0] awid = '0, arid = '0;
    logic [31:0] awaddr = '0, araddr = '0;
    logic [7:0] awlen = '0, arlen = '0;
    logic [2:0] awsize = 3'd3, arsize = 3'd3;
    logic [1:0] awburst = 2'b01, arburst = 2'b01;
    logic awvalid = 1'b0, wvalid = 1'b0, wlast = 1'b0, bready = 1'b0, arvalid = 1'b0, rready = 1'b0;
    logic [63:0] wdata = '0;
    logic [7:0] wstrb = '0;
    wire awready, wready, bvalid, arready, rvalid, rlast;
    wire [IDB-1:0] bid, rid;
    wire [1:0] bresp, rresp;
    wire [63:0] rdata;
    wire cke, cs_n, ras_n, cas_n, we_n, dq_oe, m_dq_oe, init_done;
    wire [1:0] ba, dqm;
    wire [12:0] a;
    wire [15:0] dq_c, m_dq;
    wire [15:0] dq_bus = m_dq_oe ? m_dq : (dq_oe ? dq_c : 16'hDEAD);
    wire [31:0] m_err, m_cycles, m_data, m_act, m_pre, m_ref, m_rd, m_wr, m_gap;
    wire [7:0] m_first;

    sdr_ctrl #(.AddrBits(32), .IdBits(IDB), .TckPs(TCK), .CasLatency(CL),
               .ReadDelay(`SDR_READ_DELAY)) dut (
        .clk_i(clk), .rst_i(rst),
        .s_awid_i(awid), .s_awaddr_i(awaddr), .s_awlen_i(awlen), .s_awsize_i(awsize),
        .s_awburst_i(awburst), .s_awvalid_i(awvalid), .s_awready_o(awready),
        .s_wdata_i(wdata), .s_wstrb_i(wstrb), .s_wlast_i(wlast), .s_wvalid_i(wvalid),
        .s_wready_o(wready), .s_bid_o(bid), .s_bresp_o(bresp), .s_bvalid_o(bvalid),
        .s_bready_i(bready), .s_arid_i(arid), .s_araddr_i(araddr), .s_arlen_i(arlen),
        .s_arsize_i(arsize), .s_arburst_i(arburst), .s_arvalid_i(arvalid),
        .s_arready_o(arready), .s_rid_o(rid), .s_rdata_o(rdata), .s_rresp_o(rresp),
        .s_rlast_o(rlast), .s_rvalid_o(rvalid), .s_rready_i(rready),
        .sdr_cke_o(cke), .sdr_cs_n_o(cs_n), .sdr_ras_n_o(ras_n), .sdr_cas_n_o(cas_n),
        .sdr_we_n_o(we_n), .sdr_ba_o(ba), .sdr_a_o(a), .sdr_dqm_o(dqm), .sdr_dq_o(dq_c),
        .sdr_dq_oe_o(dq_oe), .sdr_dq_i(dq_bus), .ready_o(init_done)
    );
    sdram_model #(.TckPs(TCK), .RefRows(REF_ROWS), .RefWindowNs(REF_WIN_NS), .StoreRows(256),
                  .FatalOnError(1)) u_mem (
        .clk_i(clk), .cke_i(cke), .cs_n_i(cs_n), .ras_n_i(ras_n), .cas_n_i(cas_n), .we_n_i(we_n),
        .ba_i(ba), .a_i(a), .dqm_i(dqm), .dq_i(dq_bus), .dq_oe_i(dq_oe), .dq_o(m_dq),
        .dq_oe_o(m_dq_oe), .err_count_o(m_err), .first_err_o(m_first), .cycles_o(m_cycles),
        .data_cycles_o(m_data), .act_o(m_act), .pre_o(m_pre), .ref_o(m_ref), .rd_o(m_rd),
        .wr_o(m_wr), .ref_gap_o(m_gap)
    );

    // ---- operations: a list the engine below runs ----
    logic        op_wr [0:MAXOPS-1];
    logic [IDB-1:0] op_id [0:MAXOPS-1];
    logic [31:0] op_addr [0:MAXOPS-1];
    logic [7:0]  op_len [0:MAXOPS-1];
    logic [2:0]  op_size [0:MAXOPS-1];
    logic [1:0]  op_burst [0:MAXOPS-1];
    logic [1:0]  op_resp [0:MAXOPS-1];
    logic        op_full [0:MAXOPS-1];   // all strobes set
    integer      n_ops = 0;
    integer      rows [0:7];   // the rows random traffic uses (in every bank): 3 fixed, 5 drawn
    logic [7:0]  refm [0:MEMB-1];

    function automatic [63:0] op_data(input integer op, input integer beat);
        op_data = mix({32'd0, seed} ^ (64'(op) << 20) ^ 64'(beat));
    endfunction
    function automatic [7:0] op_strb(input integer op, input integer beat);
        logic [63:0] h;
        h = mix(~{32'd0, seed} ^ (64'(op) << 20) ^ 64'(beat));
        op_strb = op_full[op] ? 8'hFF : h[7:0];
    endfunction

    task automatic add_op(input logic wr, input [31:0] addr, input integer beats,
                          input logic [2:0] size, input logic [1:0] burst, input logic full);
        integer id;
        rndn(1 << IDB, id);
        op_wr[n_ops] = wr;
        op_id[n_ops] = id[IDB-1:0];
        op_addr[n_ops] = addr;
        op_len[n_ops] = 8'(beats - 1);
        op_size[n_ops] = size;
        op_burst[n_ops] = burst;
        op_full[n_ops] = full;
        if (addr >= 32'h0200_0000) op_resp[n_ops] = 2'b11;
        else if (size != 3'd3 || burst != 2'b01) op_resp[n_ops] = 2'b10;
        else op_resp[n_ops] = 2'b00;
        n_ops = n_ops + 1;
    endtask

    // ---- the engine: runs ops [lo, n_ops) on the five channels at once ----
    // Drives at the falling edge; 1 ns later (everything settled) it decides which handshakes
    // the next rising edge makes and books them.
    integer bad_data = 0, bad_order = 0, n_slverr = 0, n_decerr = 0;
    integer first_bad = -1;

    function automatic logic overlap(input integer i, input integer j);
        longint a0, a1, b0, b1;
        a0 = op_addr[i]; a1 = a0 + 8 * (op_len[i] + 1);
        b0 = op_addr[j]; b1 = b0 + 8 * (op_len[j] + 1);
        overlap = (a0 < b1) && (b0 < a1);
    endfunction

    task automatic run_ops(input integer lo, input logic stalls, input integer budget,
                           output integer t_start, output integer t_end, output logic done);
        integer wq [0:MAXOPS-1];
        integer rq [0:MAXOPS-1];
        integer nw, nr, aw_p, w_p, w_beat, b_p, ar_p, r_p, r_beat, i, k, x, t0, quiet;
        logic blocked, aw_hs, w_hs, ar_hs, b_hs, r_hs;
        logic [63:0] exp;
        logic [7:0] st;
        nw = 0; nr = 0;
        for (i = lo; i < n_ops; i = i + 1) begin
            if (op_wr[i]) begin wq[nw] = i; nw = nw + 1; end
            else begin rq[nr] = i; nr = nr + 1; end
        end
        aw_p = 0; w_p = 0; w_beat = 0; b_p = 0; ar_p = 0; r_p = 0; r_beat = 0;
        aw_hs = 0; w_hs = 0; ar_hs = 0; b_hs = 0; r_hs = 0;
        t0 = cyc;
        quiet = 0;
        t_start = -1;
        t_end = cyc;
        done = 1'b0;
        while (!done && cyc - t0 < budget) begin
            @(negedge clk);
            // the handshakes booked last cycle happened at the rising edge
            if (aw_hs) begin aw_p = aw_p + 1; end
            if (w_hs) begin
                if (w_beat == op_len[wq[w_p]]) begin w_p = w_p + 1; w_beat = 0; end
                else w_beat = w_beat + 1;
            end
            if (ar_hs) ar_p = ar_p + 1;
            // drive
            if (aw_p < nw) begin
                x = wq[aw_p];
                blocked = 1'b0;
                // the reads outstanding, and the one presented on AR (not yet taken)
                for (k = r_p; k < ar_p + (arvalid ? 1 : 0); k = k + 1) if (overlap(x, rq[k])) blocked = 1'b1;
                if (!awvalid || aw_hs) begin
                    rndn(4, i);
                    awvalid = !blocked && (!stalls || i != 0);
                end
                awid = op_id[x]; awaddr = op_addr[x]; awlen = op_len[x];
                awsize = op_size[x]; awburst = op_burst[x];
            end else awvalid = 1'b0;
            if (w_p < nw) begin
                x = wq[w_p];
                if (!wvalid || w_hs) begin
                    rndn(4, i);
                    wvalid = !stalls || i != 0;
                end
                wdata = op_data(x, w_beat); wstrb = op_strb(x, w_beat);
                wlast = (w_beat == op_len[x]);
            end else wvalid = 1'b0;
            if (ar_p < nr) begin
                x = rq[ar_p];
                blocked = 1'b0;
                for (k = b_p; k < aw_p + (awvalid ? 1 : 0); k = k + 1) if (overlap(x, wq[k])) blocked = 1'b1;
                if (!arvalid || ar_hs) begin
                    rndn(4, i);
                    arvalid = !blocked && (!stalls || i != 0);
                end
                arid = op_id[x]; araddr = op_addr[x]; arlen = op_len[x];
                arsize = op_size[x]; arburst = op_burst[x];
            end else arvalid = 1'b0;
            if (stalls) begin
                // READY low 30% of cycles, and now and then for a long stretch (no new VALID
                // is raised then either)
                rndn(100, i);
                if (quiet > 0) quiet = quiet - 1;
                else if (i < 2) rndn(60, quiet);
                if (quiet > 0) begin
                    if (aw_hs) awvalid = 1'b0;
                    if (w_hs) wvalid = 1'b0;
                    if (ar_hs) arvalid = 1'b0;
                end
                rndn(10, i); bready = (i >= 3) && quiet == 0;
                rndn(10, i); rready = (i >= 3) && quiet == 0;
            end else begin
                bready = 1'b1;
                rready = 1'b1;
            end
            #1;
            aw_hs = awvalid && awready;
            w_hs = wvalid && wready;
            ar_hs = arvalid && arready;
            b_hs = bvalid && bready;
            r_hs = rvalid && rready;
            if ((aw_hs || ar_hs) && t_start < 0) t_start = cyc;
            if (b_hs) begin
                if (b_p >= aw_p) begin
                    bad_order = bad_order + 1;
                end else begin
                    x = wq[b_p];
                    if (bid != op_id[x] || bresp != op_resp[x]) begin
                        bad_order = bad_order + 1;
                        if (first_bad < 0) first_bad = x;
                        $display("# B for op %0d: id %0d resp %0d, expected id %0d resp %0d",
                                 x, bid, bresp, op_id[x], op_resp[x]);
                    end
                    if (op_resp[x] == 2'b10) n_slverr = n_slverr + 1;
                    if (op_resp[x] == 2'b11) n_decerr = n_decerr + 1;
                    if (op_resp[x] == 2'b00)
                        for (k = 0; k <= op_len[x]; k = k + 1) begin
                            exp = op_data(x, k);
                            st = op_strb(x, k);
                            for (i = 0; i < 8; i = i + 1)
                                if (st[i]) refm[((op_addr[x] & 32'hFFFFFFF8) + 8 * k + i) % MEMB] = exp[8*i +: 8];
                        end
                    b_p = b_p + 1;
                end
            end
            if (r_hs) begin
                if (r_p >= ar_p) begin
                    bad_order = bad_order + 1;
                end else begin
                    x = rq[r_p];
                    if (rid != op_id[x] || rresp != op_resp[x] || rlast != (r_beat == op_len[x])) begin
                        bad_order = bad_order + 1;
                        if (first_bad < 0) first_bad = x;
                        $display("# R beat %0d of op %0d: id %0d resp %0d last %0d, expected id %0d resp %0d",
                                 r_beat, x, rid, rresp, rlast, op_id[x], op_resp[x]);
                    end
                    if (op_resp[x] == 2'b00) begin
                        for (i = 0; i < 8; i = i + 1)
                            exp[8*i +: 8] = refm[((op_addr[x] & 32'hFFFFFFF8) + 8 * r_beat + i) % MEMB];
                    end else exp = 64'd0;
                    if (rdata != exp) begin
                        bad_data = bad_data + 1;
                        if (bad_data <= 5)
                            $display("# R beat %0d of op %0d at 0x%08x: 0x%016x, expected 0x%016x",
                                     r_beat, x, op_addr[x] + 8 * r_beat, rdata, exp);
                    end
                    if (r_beat == op_len[x]) begin
                        if (op_resp[x] == 2'b10) n_slverr = n_slverr + 1;
                        if (op_resp[x] == 2'b11) n_decerr = n_decerr + 1;
                        r_p = r_p + 1;
                        r_beat = 0;
                    end else r_beat = r_beat + 1;
                end
            end
            if (b_p == nw && r_p == nr && aw_p == nw && ar_p == nr) begin
                done = 1'b1;
                t_end = cyc + 1;
            end
        end
        @(negedge clk);
        awvalid = 1'b0; wvalid = 1'b0; arvalid = 1'b0; bready = 1'b0; rready = 1'b0;
    endtask

    // ---- random ops ----
    task automatic gen_random(input integer n);
        integer i, r, beats, row, bank, col, sz, bu;
        logic [31:0] addr;
        logic wr;
        for (i = 0; i < n; i = i + 1) begin
            rndn(2, r); wr = (r != 0);
            rndn(MAXLEN, beats); beats = beats + 1;
            rndn(4, bank);
            rndn(8, r);
            row = rows[r];
            rndn(128, col);
            addr = (row << 12) | (bank << 10) | (col << 3);
            // stay inside the 4 KiB the burst starts in
            if ((addr & 32'hFFF) + 8 * beats > 32'h1000) beats = (32'h1000 - (addr & 32'hFFF)) / 8;
            sz = 3; bu = 1;
            rndn(40, r);
            if (r == 0) begin rndn(3, sz); end                 // narrow size: SLVERR
            else if (r == 1) begin rndn(2, bu); bu = bu * 2; end  // FIXED or WRAP: SLVERR
            else if (r == 2) addr = addr | 32'h0200_0000 | (32'(r) << 26);   // above the SDRAM: DECERR
            if (i == 3) sz = 2;                                   // at least one of each
            if (i == 5) addr = addr | 32'h4000_0000;
            rndn(3, r);
            add_op(wr, addr, beats, 3'(sz), 2'(bu), r == 0);
        end
    endtask

    // ---- mutants: one broken timing parameter each, its own model, a simple stream ----
    localparam [7:0] E_MODE = 8'd2, E_TRCD = 8'd4, E_TRP = 8'd5, E_TWR = 8'd9, E_TRFC = 8'd10,
                     E_REFRESH = 8'd12;
    // They run on their own clock, stopped once every mutant is caught (or after a bound), so
    // the rest of the run does not pay for them; their power-up wait is cut to 2 us and their
    // refresh window to 4 REFRESH (31.25 us) so that all are caught in a few thousand cycles.
    logic [5:0] mrst = 6'h3F;
    wire [7:0] mfirst [0:5];
    wire [31:0] merr [0:5];
    logic mut_on = 1'b1;
    wire mclk = clk & mut_on;
    always @(negedge clk) begin : p_mut_stop
        integer q;
        logic all;
        all = 1'b1;
        for (q = 0; q < NMUT; q = q + 1) if (mfirst[q] == 8'd0) all = 1'b0;
        if (mut_on && (all || cyc > 100000)) mut_on <= 1'b0;
    end
    genvar g;
    for (g = 0; g < NMUT; g = g + 1) begin : g_mut
        localparam integer MTRCD = (g == 0) ? 5 : 15;
        localparam integer MTRP = (g == 1) ? 5 : 15;
        localparam integer MTWR = (g == 2) ? 1 : 14;
        localparam integer MTRFC = (g == 3) ? 20 : 60;
        localparam integer MTREFI = (g == 4) ? 8000 : 7800;
        localparam integer MCL = (g == 5) ? 2 : CL;
        logic [IDB-1:0] id = '0;
        logic [31:0] awa = '0, ara = '0;
        logic awv = 1'b0, wv = 1'b0, arv = 1'b0, wl = 1'b0;
        logic [1:0] wb = 2'd0;
        logic stop = 1'b0;   // caught: held in reset from then on
        always @(negedge mclk) if (k_first != 8'd0) stop <= 1'b1;
        wire awr, wr_, bv, arr, rv, rl, k_cke, k_cs, k_ras, k_cas, k_we, k_oe, k_moe, k_rdy;
        wire [IDB-1:0] k_bid, k_rid;
        wire [1:0] k_bresp, k_rresp, k_ba, k_dqm;
        wire [63:0] k_rdata;
        wire [12:0] k_a;
        wire [15:0] k_dq, k_mdq;
        wire [15:0] k_bus = k_moe ? k_mdq : (k_oe ? k_dq : 16'hDEAD);
        wire [31:0] k_n [0:7];
        wire [7:0] k_first;
        sdr_ctrl #(.AddrBits(32), .IdBits(IDB), .TckPs(TCK), .CasLatency(MCL), .TrcdNs(MTRCD),
                   .TrpNs(MTRP), .TwrNs(MTWR), .TrfcNs(MTRFC), .TrefiNs(MTREFI),
                   .PowerUpNs(2000)) u_ctrl (
            .clk_i(mclk), .rst_i(mrst[g] | stop),
            .s_awid_i(id), .s_awaddr_i(awa), .s_awlen_i(8'd3), .s_awsize_i(3'd3),
            .s_awburst_i(2'b01), .s_awvalid_i(awv), .s_awready_o(awr),
            .s_wdata_i({ara, awa}), .s_wstrb_i(8'hFF), .s_wlast_i(wl), .s_wvalid_i(wv),
            .s_wready_o(wr_), .s_bid_o(k_bid), .s_bresp_o(k_bresp), .s_bvalid_o(bv),
            .s_bready_i(1'b1), .s_arid_i(id), .s_araddr_i(ara), .s_arlen_i(8'd3),
            .s_arsize_i(3'd3), .s_arburst_i(2'b01), .s_arvalid_i(arv),
            .s_arready_o(arr), .s_rid_o(k_rid), .s_rdata_o(k_rdata), .s_rresp_o(k_rresp),
            .s_rlast_o(rl), .s_rvalid_o(rv), .s_rready_i(1'b1),
            .sdr_cke_o(k_cke), .sdr_cs_n_o(k_cs), .sdr_ras_n_o(k_ras), .sdr_cas_n_o(k_cas),
            .sdr_we_n_o(k_we), .sdr_ba_o(k_ba), .sdr_a_o(k_a), .sdr_dqm_o(k_dqm),
            .sdr_dq_o(k_dq), .sdr_dq_oe_o(k_oe), .sdr_dq_i(k_bus), .ready_o(k_rdy)
        );
        sdram_model #(.TckPs(TCK), .RefRows(4), .RefWindowNs(31250), .StoreRows(64),
                      .PowerUpNs(2000), .FatalOnError(0)) u_mem (
            .clk_i(mclk), .cke_i(k_cke), .cs_n_i(k_cs), .ras_n_i(k_ras), .cas_n_i(k_cas),
            .we_n_i(k_we), .ba_i(k_ba), .a_i(k_a), .dqm_i(k_dqm), .dq_i(k_bus), .dq_oe_i(k_oe),
            .dq_o(k_mdq), .dq_oe_o(k_moe), .err_count_o(merr[g]), .first_err_o(k_first),
            .cycles_o(k_n[0]), .data_cycles_o(k_n[1]), .act_o(k_n[2]), .pre_o(k_n[3]),
            .ref_o(k_n[4]), .rd_o(k_n[5]), .wr_o(k_n[6]), .ref_gap_o(k_n[7])
        );
        assign mfirst[g] = k_first;
        wire unused_k = ^{k_bid, k_bresp, k_rid, k_rresp, k_rdata, rl, bv, rv, k_rdy,
                          k_n[0], k_n[1], k_n[2], k_n[3], k_n[4], k_n[5], k_n[6], k_n[7]};
        // the stream: 4-beat writes and reads at pseudo-random addresses in 1 MiB
        logic [31:0] lfsr = 32'h1234_5678 + g;
        initial begin : p_stream
            logic ahs, whs, rhs;
            ahs = 1'b0; whs = 1'b0; rhs = 1'b0;
            forever begin
                @(negedge mclk);
                if (mrst[g] || stop) begin
                    awv = 1'b0; wv = 1'b0; arv = 1'b0;
                    ahs = 1'b0; whs = 1'b0; rhs = 1'b0;
                end else begin
                    if (ahs || !awv) begin
                        lfsr = {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
                        awa = {14'd0, lfsr[5:0], lfsr[16:12], 7'd0};
                        awv = 1'b1;
                    end
                    if (whs) wb = wb + 2'd1;
                    wv = 1'b1;
                    wl = (wb == 2'd3);
                    if (rhs || !arv) begin
                        lfsr = {lfsr[30:0], lfsr[31] ^ lfsr[21] ^ lfsr[1] ^ lfsr[0]};
                        ara = {14'd0, lfsr[13:8], lfsr[20:16], 7'd0};
                        arv = 1'b1;
                    end
                end
                #1;
                ahs = awv && awr;
                whs = wv && wr_;
                rhs = arv && arr;
            end
        end
    end
    for (g = NMUT; g < 6; g = g + 1) begin : g_nomut
        assign mfirst[g] = 8'd0;
        assign merr[g] = 32'd0;
    end

    // ---- efficiency phases ----
    integer eff_pct [0:4];   // per mille of SDRAM cycles with data
    task automatic measure(input string name, input integer idx, input integer lo,
                           input integer bytes);
        integer d0, g0, r0, ts, te, dd, cc;
        logic ok;
        d0 = m_data; g0 = m_gap; r0 = m_ref;
        run_ops(lo, 1'b0, 400000, ts, te, ok);
        dd = m_data - d0;
        cc = te - ts;
        eff_pct[idx] = (cc > 0) ? (dd * 1000) / cc : 0;
        $display("# | %s | %0d | %0d | %0d.%0d%% | %0d.%0d%0d | %0d | %0d |", name, cc, dd,
                 eff_pct[idx] / 10, eff_pct[idx] % 10, (bytes * 100 / (cc > 0 ? cc : 1)) / 100,
                 (bytes * 10 / (cc > 0 ? cc : 1)) % 10, (bytes * 100 / (cc > 0 ? cc : 1)) % 10,
                 m_ref - r0, m_gap - g0);
        if (!ok) $display("# %s did not finish", name);
    endtask

    initial begin : p_main
        integer ts, te, i, r, lo, t_ready;
        longint lt;
        logic ok;
        logic [7:0] want [0:5];
        string mname [0:5];
        tb_start(PLAN);
        rng_q = (seed == 0) ? 64'h1 : {32'd0, seed};  // the stream this bench always drew
        $display("# sdr_ctrl at %0d ps, CAS latency %0d, ReadDelay %0d", TCK, CL, `SDR_READ_DELAY);
        for (i = 0; i < MEMB; i = i + 1) refm[i] = 8'h00;
        want[0] = E_TRCD; want[1] = E_TRP; want[2] = E_TWR; want[3] = E_TRFC;
        want[4] = E_REFRESH; want[5] = E_MODE;
        mname[0] = "TrcdNs 5 (tRCD)"; mname[1] = "TrpNs 5 (tRP)"; mname[2] = "TwrNs 1 (tWR)";
        mname[3] = "TrfcNs 20 (tRFC)"; mname[4] = "TrefiNs 8000 (refresh interval)";
        mname[5] = "CasLatency 2 at 143 MHz (mode register)";
        repeat (4) @(negedge clk);
        rst = 1'b0;
        mrst = 6'h00;

        // init: ready after the power-up wait and the sequence, no violation
        t_ready = -1;
        for (i = 0; i < 30000 && t_ready < 0; i = i + 1) begin
            @(negedge clk);
            if (init_done) t_ready = cyc;
        end
        @(negedge clk);
        $display("# ready after %0d cycles (%0d ns), %0d AUTO REFRESH", t_ready,
                 t_ready * TCK / 1000, m_ref);
        check(t_ready * TCK / 1000 >= 100000 && t_ready * TCK / 1000 < 102000 && m_ref >= 2
              && m_err == 0, "init: power-up wait, PRECHARGE ALL, AUTO REFRESH, LOAD MODE, then ready");

        // random traffic
        rows[0] = 0; rows[1] = 37; rows[2] = 255;
        for (i = 3; i < 8; i = i + 1) begin rndn(256, r); rows[i] = r; end
        gen_random(RAND_OPS);
        run_ops(0, 1'b1, 2000000, ts, te, ok);
        $display("# random phase: %0d ops in %0d cycles, %0d SLVERR and %0d DECERR bursts",
                 RAND_OPS, te - ts, n_slverr, n_decerr);
        check(ok, "random traffic: every burst answered (no hang, nothing lost)");
        check(bad_order == 0, "random traffic: B and R in order with their IDs, RRESP/BRESP, RLAST");
        check(bad_data == 0, "random traffic: every read beat equals the reference (WSTRB honoured)");
        check(n_slverr > 0 && n_decerr > 0, "random traffic: bad AxSIZE/AxBURST answer SLVERR, above the SDRAM DECERR");

        // read back everything written, sequentially
        lo = n_ops;
        for (i = 0; i < 32; i = i + 1) add_op(1'b0, (rows[i / 4] << 12) | ((i % 4) << 10), 128, 3'd3, 2'b01, 1'b1);
        run_ops(lo, 1'b1, 2000000, ts, te, ok);
        check(ok && bad_data == 0 && bad_order == 0, "read-back of every row the random phase used equals the reference (error bursts changed nothing)");

        // efficiency
        $display("# | stream | cycles | data cycles | data share | bytes/cycle | AUTO REFRESH | refresh gap cycles |");
        lo = n_ops;
        for (i = 0; i < 32; i = i + 1) add_op(1'b1, 32'h4_0000 + 128 * i, 16, 3'd3, 2'b01, 1'b1);
        measure("sequential 4 KiB write (16 beats)", 1, lo, 4096);
        lo = n_ops;
        for (i = 0; i < 32; i = i + 1) add_op(1'b0, 32'h4_0000 + 128 * i, 16, 3'd3, 2'b01, 1'b1);
        measure("sequential 4 KiB read (16 beats)", 0, lo, 4096);
        lo = n_ops;
        for (i = 0; i < 64; i = i + 1) begin rndn(MEMB / 64, r); add_op(1'b0, r * 64, 8, 3'd3, 2'b01, 1'b1); end
        measure("random 64 B reads", 2, lo, 4096);
        lo = n_ops;
        for (i = 0; i < 64; i = i + 1) begin rndn(MEMB / 64, r); add_op(1'b1, r * 64, 8, 3'd3, 2'b01, 1'b1); end
        measure("random 64 B writes", 3, lo, 4096);
        lo = n_ops;
        for (i = 0; i < LONG_KIB * 8; i = i + 1) add_op(1'b0, 32'h8_0000 + 128 * i, 16, 3'd3, 2'b01, 1'b1);
        measure($sformatf("sequential %0d KiB read (refresh)", LONG_KIB), 4, lo, LONG_KIB * 1024);
        check(bad_data == 0 && bad_order == 0, "efficiency phases: data and order correct");
        check(eff_pct[0] >= 940, "sequential 4 KiB read stream: >= 94% of SDRAM cycles carry data");
        check(eff_pct[1] >= 900, "sequential 4 KiB write stream: >= 90% of SDRAM cycles carry data");
        check(eff_pct[2] >= 500 && eff_pct[3] >= 500, "random 64-byte bursts: >= 50% of SDRAM cycles carry data");
        check(m_ref > 0 && eff_pct[4] >= 940, "long read stream across refreshes: >= 94% data");

        // refresh: one REFRESH per TrefiNs (7800 ns) since init, within one
        lt = cyc - t_ready;
        lt = lt * TCK / 7800000;
        r = lt;
        $display("# %0d AUTO REFRESH after init in %0d cycles (%0d expected)", m_ref - 8, cyc - t_ready, r);
        check(m_ref - 8 >= r - 1 && m_ref - 8 <= r + 1 && m_err == 0,
              "refresh: one AUTO REFRESH per 7.8 us, no rule broken (the model checks every row within its window)");

        // mutants: each model reports the rule its broken parameter breaks, first
        while (mut_on) @(negedge clk);
        for (r = 0; r < NMUT; r = r + 1) begin
            $display("# mutant %0d: first rule broken %0d (%0d violations)", r, mfirst[r], merr[r]);
            check(mfirst[r] == want[r], $sformatf("mutant %s caught by its rule", mname[r]));
        end
        check(m_err == 0 && bad_data == 0 && bad_order == 0, "the unbroken controller: no violation in the whole run");
        tb_finish("");
    end
endmodule
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on WIDTH */
/* verilator lint_on BLKSEQ */
`default_nettype wire
