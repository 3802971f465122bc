// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_mc_vram_arb: self-checking unit test of mc_vram_arb under Icarus 11 and Verilator 5.006
// --timing (-Wall): two masters issue random write and read bursts at the same time, each in its own
// quarter of a memory model that answers out of order across IDs and stalls at random.
// Every read must return what its master last wrote there, with its own ID; every write
// response must reach the master that wrote. TAP output and +seed=N through the kit
// (tb/unit/common/tb_kit.svh).
// Write order (IHI0022 A3.3.1): the masters present AW and W independently (W often first); the
// memory takes writes in each order a legal slave may impose, chosen every 50 cycles: W only
// after its AW, AWREADY only once a W beat is in, or only once the burst's WLAST is in. The
// arbiter must not make W wait for the memory's AWREADY, nor AW wait for W.
// Timing: the masters change their outputs at the falling edge and decide a handshake 1 ns
// later, when everything has settled, never right after the rising edge (a simulator may
// resume there before or after the flops' updates).
// The masters write their signal vectors whole (put1..put64 below replace one master's slice),
// never through a bit or part select: Verilator 5.006 does not wake the logic that reads a
// variable which a process with timing controls writes only through selects, so the arbiter's
// request logic would keep a stale ARVALID (tb/unit/mc_vram_arb/README.md; the reduced case
// is vl_select_write.sv beside this file).
module tb_mc_vram_arb;
    localparam integer AW = 16;          // 64 KiB memory
    localparam integer MEM = 1 << AW;
    localparam integer OPS = 300;        // per master
    localparam integer PLAN = 6;
    localparam integer TIMEOUT = 4000;

    logic clk = 1'b0;
    logic rst = 1'b1;
    initial forever #5 clk = ~clk;
`define TB_TOP tb_mc_vram_arb
/* verilator lint_off BLKSEQ */  // the memory model's clocked blocks draw too
`include "tb/unit/common/tb_kit.svh"
/* verilator lint_on BLKSEQ */
    // Every process draws from the kit's one generator, at once (also from the memory's clocked
    // blocks): Verilator 5.006's $random(seed) falls into a stream whose low bits stick at all
    // zeros or all ones (a draw modulo 8 gave 0 or 7), so bursts were 1 or 8 beats and the memory's
    // write orders barely changed.
    // A master's slice m of a flattened vector replaced, the rest kept (see the header).
    function automatic logic [1:0] put1(input logic [1:0] v, input integer m, input logic x);
        put1 = m == 0 ? {v[1], x} : {x, v[0]};
    endfunction
    function automatic logic [3:0] put2(input logic [3:0] v, input integer m, input logic [1:0] x);
        put2 = v;
        put2[m*2 +: 2] = x;
    endfunction
    function automatic logic [15:0] put8(input logic [15:0] v, input integer m, input logic [7:0] x);
        put8 = v;
        put8[m*8 +: 8] = x;
    endfunction
    function automatic logic [2*AW-1:0] putaddr(input logic [2*AW-1:0] v, input integer m,
                                               input logic [AW-1:0] x);
        putaddr = v;
        putaddr[m*AW +: AW] = x;
    endfunction
    function automatic logic [127:0] put64(input logic [127:0] v, input integer m, input logic [63:0] x);
        put64 = v;
        put64[m*64 +: 64] = x;
    endfunction

    // master-side signals, flattened as the arbiter wants them (master i in slice i)
    logic [3:0] awid = '0, arid = '0;
    logic [2*AW-1:0] awaddr = '0, araddr = '0;
    logic [15:0] awlen = '0, arlen = '0;
    logic [1:0] awvalid = '0, wvalid = '0, wlast = '0, bready = '0, arvalid = '0, rready = '0;
    logic [127:0] wdata = '0;
    logic [15:0] wstrb = '0;
    wire [1:0] awready, wready, bvalid, arready, rvalid, rlast;
    wire [3:0] bid, rid, bresp, rresp;
    wire [127:0] rdata;
    // memory side
    wire [2:0] m_awid, m_arid;
    wire [AW-1:0] m_awaddr, m_araddr;
    wire [7:0] m_awlen, m_arlen;
    wire [2:0] m_awsize, m_arsize, m_awprot, m_arprot;
    wire [1:0] m_awburst, m_arburst;
    wire [3:0] m_awcache, m_arcache;
    wire m_awvalid, m_wvalid, m_wlast, m_bready, m_arvalid, m_rready;
    wire [63:0] m_wdata;
    wire [7:0] m_wstrb;
    logic m_awready = 1'b0, m_wready = 1'b0, m_arready = 1'b0, m_bvalid = 1'b0, m_rvalid = 1'b0;
    logic m_rlast = 1'b0;
    logic [2:0] m_bid = 3'd0, m_rid = 3'd0;
    logic [63:0] m_rdata = 64'd0;

    mc_vram_arb #(.Masters(2), .AddrBits(AW), .DataBytes(8), .IdBits(2), .WOutstanding(4)) dut (
        .clk_i(clk), .rst_i(rst),
        .s_awid_i(awid), .s_awaddr_i(awaddr), .s_awlen_i(awlen), .s_awsize_i(6'o33),
        .s_awburst_i(4'b0101), .s_awcache_i(8'd0), .s_awprot_i(6'd0), .s_awvalid_i(awvalid),
        .s_awready_o(awready), .s_wdata_i(wdata), .s_wstrb_i(wstrb), .s_wlast_i(wlast),
        .s_wvalid_i(wvalid), .s_wready_o(wready), .s_bid_o(bid), .s_bresp_o(bresp),
        .s_bvalid_o(bvalid), .s_bready_i(bready),
        .s_arid_i(arid), .s_araddr_i(araddr), .s_arlen_i(arlen), .s_arsize_i(6'o33),
        .s_arburst_i(4'b0101), .s_arcache_i(8'd0), .s_arprot_i(6'd0), .s_arvalid_i(arvalid),
        .s_arready_o(arready), .s_rid_o(rid), .s_rdata_o(rdata), .s_rresp_o(rresp),
        .s_rlast_o(rlast), .s_rvalid_o(rvalid), .s_rready_i(rready),
        .m_awid_o(m_awid), .m_awaddr_o(m_awaddr), .m_awlen_o(m_awlen), .m_awsize_o(m_awsize),
        .m_awburst_o(m_awburst), .m_awcache_o(m_awcache), .m_awprot_o(m_awprot),
        .m_awvalid_o(m_awvalid), .m_awready_i(m_awready), .m_wdata_o(m_wdata),
        .m_wstrb_o(m_wstrb), .m_wlast_o(m_wlast), .m_wvalid_o(m_wvalid), .m_wready_i(m_wready),
        .m_bid_i(m_bid), .m_bresp_i(2'b00), .m_bvalid_i(m_bvalid), .m_bready_o(m_bready),
        .m_arid_o(m_arid), .m_araddr_o(m_araddr), .m_arlen_o(m_arlen), .m_arsize_o(m_arsize),
        .m_arburst_o(m_arburst), .m_arcache_o(m_arcache), .m_arprot_o(m_arprot),
        .m_arvalid_o(m_arvalid), .m_arready_i(m_arready), .m_rid_i(m_rid), .m_rdata_i(m_rdata),
        .m_rresp_i(2'b00), .m_rlast_i(m_rlast), .m_rvalid_i(m_rvalid), .m_rready_o(m_rready)
    );

    // ---- memory model: one write at a time; reads queued, answered burst by burst in a random
    // order across IDs (as an interconnect may), beats of one burst in order -------------------
    logic [7:0] mem [0:MEM-1];
    logic [AW-1:0] mw_addr; logic mw_busy = 1'b0; logic mb_pend = 1'b0; logic [2:0] mw_id;
    logic [AW-1:0] rq_addr [0:7]; integer rq_left [0:7]; logic [2:0] rq_id [0:7];
    integer rq_n = 0, cur = -1, mi;
    logic [2:0] pick;
    logic [63:0] rd;
    // The write burst being applied: its length from AW, its beats counted (errors_mem).
    integer mw_beats = 0; logic [7:0] mw_len = 8'd0;
    integer errors_mem = 0;
    // W beats queue up (before their AW unless mem_order is 0) and are applied once it is in.
    integer mem_order = 0;    // 0: W after AW, 1: AW after a W beat, 2: AW after WLAST
    integer mem_orders_used = 0, w_early = 0, mem_cyc = 0;
    logic [63:0] wq_d [0:31]; logic [7:0] wq_s [0:31]; logic wq_l [0:31];
    integer wq_wr = 0, wq_rd = 0, wq_last = 0;
    // The memory model keeps its state in variables it updates at once (blocking), and drives
    // the arbiter's inputs with nonblocking assignments.
    /* verilator lint_off BLKSEQ */
    always @(negedge clk) begin : mem_ready
        integer r_aw, r_w, r_ar;
        mem_cyc = mem_cyc + 1;
        if (mem_cyc % 50 == 0) begin
            rndn(3, mem_order);
            mem_orders_used = mem_orders_used | (1 << mem_order);
        end
        rndn(100, r_aw); rndn(100, r_w); rndn(100, r_ar);
        m_awready <= !mw_busy && !mb_pend && r_aw >= 30 &&
                     (mem_order == 0 || (mem_order == 1 ? wq_wr != wq_rd : wq_last > 0));
        m_wready <= (mem_order == 0 ? mw_busy : wq_wr - wq_rd < 30) && r_w >= 30;
        m_arready <= rq_n < 8 && r_ar >= 30;
    end
    always @(posedge clk) begin : mem_side
        integer r;
        if (m_wvalid && m_wready) begin
            if (!mw_busy && wq_wr == wq_rd) w_early = w_early + 1;
            wq_d[wq_wr % 32] = m_wdata; wq_s[wq_wr % 32] = m_wstrb; wq_l[wq_wr % 32] = m_wlast;
            wq_wr = wq_wr + 1;
            if (m_wlast) wq_last = wq_last + 1;
        end
        if (m_awvalid && m_awready) begin
            mw_busy = 1'b1; mw_addr = m_awaddr; mw_id <= m_awid; mw_len = m_awlen; mw_beats = 0;
            // the arbiter passes the master's burst attributes through: 8 bytes, INCR, 0, 0
            if (m_awsize != 3'd3 || m_awburst != 2'b01 || m_awcache != 4'd0 || m_awprot != 3'd0)
                errors_mem = errors_mem + 1;
        end
        while (mw_busy && wq_wr != wq_rd) begin
            for (mi = 0; mi < 8; mi = mi + 1)
                if (wq_s[wq_rd % 32][mi]) mem[mw_addr + AW'(mi)] = wq_d[wq_rd % 32][mi*8 +: 8];
            mw_addr = mw_addr + AW'(8);
            mw_beats = mw_beats + 1;
            if (wq_l[wq_rd % 32]) begin
                // WLAST on the beat AWLEN said
                if (mw_beats != 32'(mw_len) + 1) errors_mem = errors_mem + 1;
                mw_busy = 1'b0; mb_pend <= 1'b1; wq_last = wq_last - 1;
            end
            wq_rd = wq_rd + 1;
        end
        if (mb_pend && !m_bvalid) begin
            rndn(100, r);
            if (r >= 30) begin m_bvalid <= 1'b1; m_bid <= mw_id; end
        end
        if (m_bvalid && m_bready) begin m_bvalid <= 1'b0; mb_pend <= 1'b0; end
        if (m_rvalid && m_rready) begin
            m_rvalid <= 1'b0;
            if (m_rlast) begin
                for (mi = cur; mi < rq_n - 1; mi = mi + 1) begin
                    rq_addr[mi] = rq_addr[mi + 1]; rq_left[mi] = rq_left[mi + 1]; rq_id[mi] = rq_id[mi + 1];
                end
                rq_n = rq_n - 1;
                cur = -1;
            end
        end else if (!m_rvalid && rq_n > 0) begin
            rndn(100, r);
            if (r >= 30) begin
                if (cur < 0) begin
                    // the oldest burst of a randomly chosen ID: per-ID order is kept
                    rndn(rq_n, r);
                    pick = 3'(r);
                    cur = 0;
                    while (rq_id[cur] != rq_id[pick]) cur = cur + 1;
                end
                for (mi = 0; mi < 8; mi = mi + 1) rd[mi*8 +: 8] = mem[rq_addr[cur] + AW'(mi)];
                m_rdata <= rd;
                m_rid <= rq_id[cur];
                m_rlast <= rq_left[cur] == 1;
                m_rvalid <= 1'b1;
                rq_addr[cur] = rq_addr[cur] + AW'(8);
                rq_left[cur] = rq_left[cur] - 1;
            end
        end
        if (m_arvalid && m_arready) begin
            rq_addr[rq_n] = m_araddr; rq_left[rq_n] = 32'(m_arlen) + 1; rq_id[rq_n] = m_arid;
            rq_n = rq_n + 1;
            if (m_arsize != 3'd3 || m_arburst != 2'b01 || m_arcache != 4'd0 || m_arprot != 3'd0)
                errors_mem = errors_mem + 1;
        end
    end
    /* verilator lint_on BLKSEQ */

    // ---- the two masters -------------------------------------------------------------------
    logic [7:0] ref_mem [0:MEM-1];
    integer errors_data = 0, errors_id = 0, done_ops [0:1];  // a timeout stops the run

    task automatic do_write(input integer m, input integer addr, input integer beats);
        integer b, i, w, aw_delay; logic [63:0] d; logic [31:0] hi, lo;
        // AW and W independently, AW up to 6 cycles after the first W (IHI0022 A3.3.1: the data
        // may come first; neither waits for the other's READY).
        rndn(7, aw_delay);
        fork
            begin
                repeat (aw_delay) @(negedge clk);
                @(negedge clk); awid = put2(awid, m, 2'(m + 1)); awaddr = putaddr(awaddr, m, AW'(addr));
                awlen = put8(awlen, m, 8'(beats - 1)); awvalid = put1(awvalid, m, 1'b1);
                #1; while (!awready[m]) begin @(negedge clk); #1; end
                @(negedge clk); awvalid = put1(awvalid, m, 1'b0);
            end
            for (b = 0; b < beats; b = b + 1) begin
                @(negedge clk);
                rnd32(hi); rnd32(lo); d = {hi, lo};
                wdata = put64(wdata, m, d); wstrb = put8(wstrb, m, 8'hff);
                wlast = put1(wlast, m, b == beats - 1); wvalid = put1(wvalid, m, 1'b1);
                #1; while (!wready[m]) begin @(negedge clk); #1; end
                for (i = 0; i < 8; i = i + 1) ref_mem[addr + b * 8 + i] = d[i*8 +: 8];
                @(negedge clk); wvalid = put1(wvalid, m, 1'b0);
            end
        join
        @(negedge clk); bready = put1(bready, m, 1'b1);
        w = 0;
        #1;
        while (!bvalid[m]) begin @(negedge clk); #1; w = w + 1; if (w > TIMEOUT) begin $display("not ok - write response timeout (seed %0d)", seed); $fatal(1); end end
        if (bid[m*2 +: 2] != 2'(m + 1) || bresp[m*2 +: 2] != 2'b00) errors_id = errors_id + 1;
        @(negedge clk); bready = put1(bready, m, 1'b0);
    endtask

    task automatic do_read(input integer m, input integer addr, input integer beats);
        integer b, i, w, r;
        @(negedge clk); arid = put2(arid, m, 2'(m + 1)); araddr = putaddr(araddr, m, AW'(addr));
        arlen = put8(arlen, m, 8'(beats - 1)); arvalid = put1(arvalid, m, 1'b1);
        #1; while (!arready[m]) begin @(negedge clk); #1; end
        @(negedge clk); arvalid = put1(arvalid, m, 1'b0);
        for (b = 0; b < beats; b = b + 1) begin
            @(negedge clk); rndn(100, r); rready = put1(rready, m, r >= 30);
            w = 0;
            #1;
            while (!(rvalid[m] && rready[m])) begin
                @(negedge clk); rndn(100, r); rready = put1(rready, m, r >= 30);
                #1; w = w + 1;
                if (w > TIMEOUT) begin $display("not ok - read timeout (seed %0d) m=%0d rq_n=%0d cur=%0d m_rvalid=%0d m_rid=%0d rvalid=%b rready=%b m_arvalid=%0d m_arready=%0d", seed, m, rq_n, cur, m_rvalid, m_rid, rvalid, rready, m_arvalid, m_arready); $fatal(1); end
            end
            if (rid[m*2 +: 2] != 2'(m + 1) || rlast[m] != (b == beats - 1) || rresp[m*2 +: 2] != 2'b00)
                errors_id = errors_id + 1;
            for (i = 0; i < 8; i = i + 1)
                if (rdata[m*64 + i*8 +: 8] !== ref_mem[addr + b * 8 + i]) errors_data = errors_data + 1;
        end
        @(negedge clk); rready = put1(rready, m, 1'b0);
    endtask

    task automatic run_master(input integer m);
        integer op, base, beats, addr, r;
        base = m * (MEM / 2);
        for (op = 0; op < OPS; op = op + 1) begin
            rndn(8, r); beats = 1 + r;
            rndn(MEM / 2 / 8 - 8, r); addr = base + 8 * r;
            addr = addr - (addr % 4096 > 4096 - 64 ? 64 : 0);
            rndn(2, r);
            if (r != 0) do_write(m, addr, beats);
            else do_read(m, addr, beats);
            done_ops[m] = op + 1;
        end
    endtask

    // Watchdog: a lost handshake must fail the run, not hang it.
    initial begin
        #5000000;
        $display("Bail out! watchdog: no progress (seed %0d)", seed);
        $fatal(1);
    end

    integer k;
    initial begin
        tb_start(PLAN);
        for (k = 0; k < MEM; k = k + 1) begin mem[k] = k[7:0] ^ 8'h5a; ref_mem[k] = mem[k]; end
        done_ops[0] = 0; done_ops[1] = 0;
        repeat (3) @(negedge clk);
        rst = 1'b0;
        fork
            run_master(0);
            run_master(1);
        join
        check(done_ops[0] == OPS && done_ops[1] == OPS, "both masters completed every burst");
        check(errors_data == 0, "every read returns what its master wrote");
        check(errors_id == 0, "responses carry the master's own ID, OKAY and RLAST right");
        check(rq_n == 0 && !mb_pend, "memory side idle at the end");
        check(errors_mem == 0, "burst attributes pass through; WLAST on the beat AWLEN says");
        check(mem_orders_used == 7 && w_early > 0,
              "W not held for the memory AWREADY; every write order ran");
        tb_finish("");
    end
endmodule
`default_nettype wire
