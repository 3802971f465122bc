// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_cmn_async_fifo: self-checking unit test of cmn_async_fifo (with its cmn_sync2 crossings)
// under Icarus 11 and Verilator 5.006 --timing, built with GR_ASSERT.
//
// TAP output ("1..N", "# seed=S", one ok/not ok per check, the count independent of the seed);
// $fatal when a check failed. Plusargs: +seed=N (default 1), +wave=<file>.
//
// Two free-running clocks whose periods change from phase to phase: equal, the read side 3x
// slower, the read side 3x faster, near ratios, and periods drawn from the seed. A producer in
// the write domain offers random 16-bit words with random gaps; a consumer in the read domain
// takes them with random READY. A scoreboard checks every word in order, nothing lost, nothing
// duplicated; monitors check that the write side never holds more than Depth words and that
// wr_almost_full_o is set whenever at most AfullFree (2) entries are free. Inputs change at the
// falling edge of their clock, outputs are sampled at the rising edge.
module tb_cmn_async_fifo;
    localparam integer Width = 16;
    localparam integer DepthLog2 = 3;
    localparam integer Depth = 1 << DepthLog2;
    localparam integer PLAN = 16;
    localparam integer NMAX = 4096;

    logic             wclk = 1'b0, rclk = 1'b0;
    logic             wrst = 1'b1, rrst = 1'b1;
    logic [Width-1:0] wdata = '0;
    logic             wvalid = 1'b0;
    wire              wready, wafull;
    wire  [Width-1:0] rdata;
    wire              rvalid;
    logic             rready = 1'b0;

    cmn_async_fifo #(.Width(Width), .DepthLog2(DepthLog2), .AfullFree(2)) dut (
        .wr_clk_i(wclk), .wr_rst_i(wrst), .wr_data_i(wdata), .wr_valid_i(wvalid),
        .wr_ready_o(wready), .wr_almost_full_o(wafull),
        .rd_clk_i(rclk), .rd_rst_i(rrst), .rd_data_o(rdata), .rd_valid_o(rvalid),
        .rd_ready_i(rready)
    );

    integer whalf = 5, rhalf = 5;   // half periods in time units
    initial forever begin #(whalf); wclk = ~wclk; end
    initial forever begin #(rhalf); rclk = ~rclk; end

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_cmn_async_fifo
`include "tb/unit/common/tb_kit.svh"


    // ---- scoreboard -----------------------------------------------------------------------
    logic [Width-1:0] sent [0:NMAX-1];
    integer n_sent = 0, n_recv = 0, e_data = 0, e_over = 0, e_afull = 0;
    integer c_full = 0, c_wcyc = 0, c_rcyc = 0;
    initial forever begin
        @(posedge wclk);
        if (!wrst) begin
            c_wcyc = c_wcyc + 1;
            // wr_almost_full_o must be set whenever two free entries or fewer are left. The TB's
            // count (n_sent - n_recv, before this edge's write) is never above what the write
            // side believes (it sees reads late), so a low flag at Depth - 2 or more is a bug.
            if (!wafull && (n_sent - n_recv) >= Depth - 2) e_afull = e_afull + 1;
            if (wvalid && wready) begin
                sent[n_sent % NMAX] = wdata;
                n_sent = n_sent + 1;
            end
            if (!wready) c_full = c_full + 1;

            if (n_sent - n_recv > Depth) e_over = e_over + 1;
        end
    end
    initial forever begin
        @(posedge rclk);
        if (!rrst) begin
            c_rcyc = c_rcyc + 1;
            if (rvalid && rready) begin
                if (n_recv >= n_sent) e_data = e_data + 1;         // a word never written
                else if (rdata !== sent[n_recv % NMAX]) begin
                    if (e_data < 5) $display("#   word %0d: got %h expected %h", n_recv, rdata,
                                             sent[n_recv % NMAX]);
                    e_data = e_data + 1;
                end
                n_recv = n_recv + 1;
            end
        end
    end

    // ---- producer and consumer ------------------------------------------------------------
    integer p_n = 0, p_pct = 100, c_pct = 100;
    logic   run = 1'b0;
    initial begin : producer
        integer r, left;
        logic [31:0] d;
        forever begin
            @(negedge wclk);
            if (wvalid && wready) begin
                wvalid = 1'b0;
            end
            left = p_n;
            if (run && !wvalid && left > 0) begin
                rndn(100, r);
                if (r < p_pct) begin
                    rnd32(d);
                    wdata = d[Width-1:0] ^ d[31:Width];
                    wvalid = 1'b1;
                    p_n = p_n - 1;
                end
            end
        end
    end
    initial begin : consumer
        integer r;
        forever begin
            @(negedge rclk);
            rndn(100, r);
            rready = run && (r < c_pct);
        end
    end

    // Sends n words at the given rates and clock periods; true when all arrived in time.
    task automatic phase(input integer wh, input integer rh, input integer n, input integer wp,
                         input integer rp, output logic done);
        integer t;
        whalf = wh;
        rhalf = rh;
        p_pct = wp;
        c_pct = rp;
        p_n = n;
        run = 1'b1;
        t = 0;
        while ((p_n != 0 || wvalid || n_recv != n_sent) && t < 200 * n + 1000) begin
            @(posedge wclk);
            t = t + 1;
        end
        done = (p_n == 0 && !wvalid && n_recv == n_sent);
        run = 1'b0;
        repeat (4) @(posedge rclk);
    endtask

    task automatic reset_both;
        wrst = 1'b1;
        rrst = 1'b1;
        repeat (4) @(posedge wclk);
        repeat (4) @(posedge rclk);
        @(negedge wclk);
        wrst = 1'b0;
        @(negedge rclk);
        rrst = 1'b0;
    endtask

    initial begin : watchdog
        #(200000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        logic ok, ok2;
        integer w0, r0, s0, c0, i, wh, rh;
        tb_start(PLAN);
        $display("# tb_cmn_async_fifo: Width=%0d DepthLog2=%0d", Width, DepthLog2);

        reset_both();
        repeat (3) @(posedge rclk);
        check(rvalid === 1'b0 && wready === 1'b1 && wafull === 1'b0,
              "after reset: empty (no rd_valid_o), not full, not almost full");

        // Same clock, never stalled: one word per cycle once the pipe is primed.
        w0 = c_wcyc;
        phase(5, 5, 1000, 100, 100, ok);
        check(ok && e_data == 0, "equal clocks, no stalls: 1000 words in order");
        check(c_wcyc - w0 <= 1000 + 40,
              $sformatf("equal clocks: 1000 words in %0d write cycles (one per cycle, depth %0d covers the crossing)",
                        c_wcyc - w0, Depth));

        c0 = c_full;
        phase(5, 16, 1500, 100, 100, ok);
        check(ok && e_data == 0, "read clock 3.2x slower: 1500 words in order");
        check(c_full - c0 > 500, $sformatf("read side slower: the writer saw full (%0d cycles) and waited", c_full - c0));

        r0 = c_rcyc;
        s0 = n_recv;
        phase(16, 5, 1500, 100, 100, ok);
        check(ok && e_data == 0, "read clock 3.2x faster: 1500 words in order");
        check(c_rcyc - r0 > 2 * (n_recv - s0),
              $sformatf("read side faster: it found the FIFO empty between words (%0d read cycles for %0d words)",
                        c_rcyc - r0, n_recv - s0));

        phase(5, 6, 1500, 70, 60, ok);
        check(ok && e_data == 0, "clocks 10:12, random valid 70% and ready 60%: in order");
        phase(9, 5, 1500, 50, 90, ok);
        check(ok && e_data == 0, "clocks 18:10, random valid 50% and ready 90%: in order");
        phase(5, 7, 1500, 95, 20, ok);
        check(ok && e_data == 0, "clocks 10:14, ready 20% (mostly full): in order");

        ok2 = 1'b1;
        for (i = 0; i < 3; i = i + 1) begin
            rndn(20, wh);
            rndn(20, rh);
            rndn(100, w0);
            rndn(100, r0);
            phase(wh + 2, rh + 2, 800, w0 + 5, r0 + 5, ok);
            ok2 = ok2 && ok;
            if (!ok) $display("#   random phase %0d (half periods %0d/%0d) incomplete", i, wh + 2, rh + 2);
        end
        check(ok2 && e_data == 0, "three phases of seed-drawn clock periods and rates: in order");

        check(e_over == 0, "the write side never holds more than Depth words");
        check(e_afull == 0, "wr_almost_full_o is set whenever at most two entries are free (AfullFree 2)");

        // Reset with words inside: both sides come back empty and work again.
        whalf = 5;
        rhalf = 8;
        p_pct = 100;
        c_pct = 0;
        p_n = 6;
        run = 1'b1;
        repeat (30) @(posedge wclk);
        run = 1'b0;
        ok = rvalid === 1'b1;
        p_n = 0;
        @(negedge wclk);
        wvalid = 1'b0;
        reset_both();
        n_sent = 0;
        n_recv = 0;
        repeat (4) @(posedge rclk);
        check(ok && rvalid === 1'b0 && wready === 1'b1, "reset of both sides with words inside: empty again");
        phase(7, 5, 600, 80, 80, ok);
        check(ok && e_data == 0, "after that reset: 600 words in order");
        check(n_sent == 600 && n_recv == 600, "after that reset: exactly the words sent arrive, none extra");

        tb_finish("");
    end
endmodule
`default_nettype wire
