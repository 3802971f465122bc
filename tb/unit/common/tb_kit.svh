// SPDX-License-Identifier: Apache-2.0
// tb_kit.svh: what every unit testbench shares, `included inside the testbench module after
// `define TB_TOP <module> (its own name, for $dumpvars):
//   seed, wave     +seed=N (default 1) and +wave=<file> (Icarus: add -fst after the .vvp for
//                  FST, else VCD; Verilator: FST when built with UNIT_TRACE=1, --trace-fst;
//                  without it the +wave is said to be ignored), read by tb_start
//   rnd32, rndn    xorshift64* over rng_q, seeded from the seed by splitmix64: the same stream
//                  in both simulators ($random(seed) is not: tb/unit/mc_vram_arb/README.md)
//   check          one TAP line, "ok N - name" or "not ok N - name"
//   tb_start(P)    reads the plusargs, seeds rng_q, prints the plan "1..P" and "# seed=N"
//   tb_finish(S)   a missing or extra check fails; prints "# F of N checks failed (seed=N S)"
//                  and ends through $fatal when a check failed, else $finish
// Tasks, never functions, draw: Verilator 5.006 evaluates an impure function in the arm of ?:
// or if/else that is not taken, and a case expression once per item. Both simulators (Icarus
// 11 -g2012, Verilator 5.006 --timing) accept all of it; the path is from the tree's root,
// where the builds run. No line of this comment may start with the word Verilator: Verilator
// reads such a comment as a directive of its own.
`ifdef VERILATOR
`ifndef UNIT_TRACE
`define TB_NO_TRACE  // $dumpvars would be silently ignored: say so instead
`endif
`endif

    integer seed = 1;
    string  wave;
    integer tb_plan = 0;
    integer n_tests = 0, n_fail = 0;

    // ---- random numbers: xorshift64*, the same stream in both simulators ------------------
    logic [63:0] rng_q = 64'h1;
    task automatic rnd32(output logic [31:0] v);
        rng_q = rng_q ^ (rng_q >> 12);
        rng_q = rng_q ^ (rng_q << 25);
        rng_q = rng_q ^ (rng_q >> 27);
        v = 32'((rng_q * 64'h2545F4914F6CDD1D) >> 32);
    endtask
    task automatic rndn(input integer n, output integer v);  // 0 .. n-1
        logic [31:0] r;
        rnd32(r);
        r = r % 32'(n);
        v = $signed(r);
    endtask

    // ---- TAP ------------------------------------------------------------------------------
    task automatic check(input logic cond, input string name);
        n_tests = n_tests + 1;
        if (cond) $display("ok %0d - %s", n_tests, name);
        else begin
            $display("not ok %0d - %s", n_tests, name);
            n_fail = n_fail + 1;
        end
    endtask

    task automatic tb_start(input integer plan);
        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if ($value$plusargs("wave=%s", wave)) begin
`ifdef TB_NO_TRACE
            $display("# +wave=%s ignored: this model was built without tracing (make UNIT_TRACE=1)", wave);
`else
            $dumpfile(wave);
            $dumpvars(0, `TB_TOP);
`endif
        end
        rng_q = 64'(seed) + 64'h9E3779B97F4A7C15;
        rng_q = (rng_q ^ (rng_q >> 30)) * 64'hBF58476D1CE4E5B9;
        rng_q = (rng_q ^ (rng_q >> 27)) * 64'h94D049BB133111EB;
        rng_q = rng_q ^ (rng_q >> 31);
        if (rng_q == 64'h0) rng_q = 64'h1;
        tb_plan = plan;
        $display("1..%0d", plan);
        $display("# seed=%0d", seed);
    endtask

    task automatic tb_finish(input string summary);
        if (n_tests != tb_plan) begin
            $display("# planned %0d checks, ran %0d", tb_plan, n_tests);
            n_fail = n_fail + 1;
        end
        $display("# %0d of %0d checks failed (seed=%0d%s)", n_fail, n_tests, seed, summary);
        if (n_fail != 0) $fatal(1, "%m: %0d check(s) failed, seed=%0d", n_fail, seed);
        $finish;
    endtask

`undef TB_NO_TRACE
