// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_pcie_irq: pcie_irq (RetryCycles 12, RearmDelay 5) under Icarus 11 and Verilator 5.006.
// A model of the hard IP's interrupt interface answers every MSI request
// (cfg_interrupt_msi_int_o[0]) with cfg_interrupt_msi_sent_i or _fail_i one cycle long after a
// random delay. Fixed cases: a rising edge of irq_i is one MSI, two cycles later; a level held
// high sends no more; rearm_i sends another after RearmDelay when the line stays high, none
// when it falls, one (not two) when the write raised it; a failed MSI asked again RetryCycles
// later and dropped when the line fell meanwhile; msi_count_o counts sent messages only; MSI
// enable toggled from the cfg port (only bit 0, PF0, counts; an edge while disabled is not
// sent later); INTA following irq_i while MSI is disabled, pending = irq_i in both modes.
// Then random irq/rearm/enable traffic with invariants checked every cycle. TAP; +seed=N.
module tb_pcie_irq;
    localparam integer PLAN = 17;
    localparam integer Retry = 12, Rearm = 5;

    logic clk = 1'b0, rst = 1'b1, irq = 1'b0, rearm = 1'b0;
    logic [3:0] msi_en = 4'd0;
    logic sent = 1'b0, fail = 1'b0;
    wire [31:0] msi_int;
    wire [3:0] intx, pend;
    wire [15:0] cnt;
    pcie_irq #(.RetryCycles(Retry), .RearmDelay(Rearm)) dut (
        .clk_i(clk), .rst_i(rst), .irq_i(irq), .rearm_i(rearm),
        .cfg_interrupt_msi_enable_i(msi_en), .cfg_interrupt_msi_sent_i(sent),
        .cfg_interrupt_msi_fail_i(fail), .cfg_interrupt_msi_int_o(msi_int),
        .cfg_interrupt_int_o(intx), .cfg_interrupt_pending_o(pend),
        .cfg_interrupt_sent_i(1'b0), .msi_count_o(cnt));
    initial forever #5 clk = ~clk;

    // ---- seed, waves, TAP checks: the kit --------------------------------------------
`define TB_TOP tb_pcie_irq
`include "tb/unit/common/tb_kit.svh"


    // ---- monitor: counts and per-cycle rules, sampled at the rising edge ------------------
    integer cyc = 0, asks = 0, last_ask = -1, sents = 0, fails = 0;
    integer bad_width = 0, bad_vec = 0, bad_intx = 0, bad_pend = 0, bad_twice = 0, waiting = 0;
    logic prev_ask = 1'b0;
    always @(posedge clk) begin
        cyc <= cyc + 1;
        if (!rst) begin
            if (msi_int[31:1] != 31'd0) bad_vec <= bad_vec + 1;
            if (intx != {3'd0, irq && !msi_en[0]}) bad_intx <= bad_intx + 1;
            if (pend != {3'd0, irq}) bad_pend <= bad_pend + 1;
            if (msi_int[0] && prev_ask) bad_width <= bad_width + 1;
            if (msi_int[0]) begin
                asks <= asks + 1;
                last_ask <= cyc;
                if (waiting != 0) bad_twice <= bad_twice + 1;  // asked again before an answer
                waiting <= 1;
            end
            if (sent) begin sents <= sents + 1; waiting <= 0; end
            if (fail) begin fails <= fails + 1; waiting <= 0; end
        end
        prev_ask <= msi_int[0];
    end

    // ---- the hard IP's answer: sent (or fail when fail_next) after 0..dmax more cycles ----
    integer dmax = 3, fail_next = 0, fail_pct = 0;
    initial forever begin : answer
        reg [31:0] d, f;
        integer k;
        @(posedge clk);
        if (!rst && msi_int[0]) begin
            rnd32(d);
            rnd32(f);
            for (k = 0; k < 32'(d % (dmax + 1)); k = k + 1) @(negedge clk);
            @(negedge clk);
            if (fail_next != 0 || (f % 100) < fail_pct) begin
                fail = 1'b1;
                if (fail_next != 0) fail_next = fail_next - 1;
            end else sent = 1'b1;
            @(negedge clk);
            fail = 1'b0;
            sent = 1'b0;
        end
    end

    task automatic ticks(input integer n);
        repeat (n) @(negedge clk);
    endtask
    task automatic pulse_rearm;
        rearm = 1'b1;
        @(negedge clk);
        rearm = 1'b0;
    endtask

    initial begin
        integer a0, c0, s0, j, t_edge, owe, owe_max, late;
        reg [31:0] r;
        tb_start(PLAN);
        rng_q = 64'h9E37_79B9_7F4A_7C15 ^ {32'd0, seed};
        ticks(3);
        rst = 1'b0;
        ticks(2);
        check(msi_int == 32'd0 && intx == 4'd0 && pend == 4'd0 && cnt == 16'd0,
              "after reset: no MSI request, INTA low, nothing pending, msi_count 0");

        // MSI on, one rising edge: one request two cycles later, one cycle long.
        msi_en = 4'b0001;
        ticks(2);
        a0 = asks;
        irq = 1'b1;
        t_edge = cyc;
        ticks(30);
        check(asks == a0 + 1 && last_ask == t_edge + 2 && bad_width == 0 && bad_vec == 0,
              $sformatf("rising edge: exactly one MSI vector 0 request, 2 cycles later (asks %0d, at +%0d)",
                        asks - a0, last_ask - t_edge));
        check(cnt == 16'd1 && sents == 1, "msi_count_o 1 after the hard IP's sent");
        a0 = asks;
        ticks(60);
        check(asks == a0 && pend == 4'd1 && intx == 4'd0,
              "level held high 60 cycles: no further MSI, pending high, INTA low");

        // rearm with the line still high: another after RearmDelay.
        a0 = asks;
        t_edge = cyc;
        pulse_rearm();
        ticks(30);
        check(asks == a0 + 1 && last_ask == t_edge + Rearm + 2,
              $sformatf("rearm with irq_i high: one more MSI, RearmDelay + 2 cycles later, as an edge (+%0d)", last_ask - t_edge));
        // rearm, and the acknowledge lowers the line before the delay: nothing.
        a0 = asks;
        pulse_rearm();
        irq = 1'b0;
        ticks(30);
        check(asks == a0, "rearm then irq_i falls within RearmDelay: no MSI");
        // the write raised the line: one MSI, not two.
        a0 = asks;
        pulse_rearm();
        irq = 1'b1;
        ticks(40);
        check(asks == a0 + 1, $sformatf("rearm and a rising edge together: exactly one MSI (%0d)", asks - a0));

        // fail: asked again RetryCycles later; msi_count counts sent only.
        irq = 1'b0;
        ticks(3);
        c0 = 32'(cnt);
        a0 = asks;
        fail_next = 1;
        irq = 1'b1;
        ticks(8);
        t_edge = last_ask;
        ticks(40);
        check(asks == a0 + 2 && last_ask - t_edge >= Retry && last_ask - t_edge <= Retry + dmax + 4
              && fails >= 1,
              $sformatf("msi_fail: the MSI asked again RetryCycles later (%0d cycles apart)", last_ask - t_edge));
        check(32'(cnt) == c0 + 1, "msi_count_o counts the sent message only, not the failed one");
        irq = 1'b0;
        ticks(3);
        a0 = asks;
        fail_next = 1;
        irq = 1'b1;
        ticks(6);
        irq = 1'b0;
        ticks(40);
        check(asks == a0 + 1, "a failed MSI whose line fell meanwhile is not retried");

        // MSI disabled: INTA follows irq_i, no MSI. Only enable bit 0 (PF0) counts.
        a0 = asks;
        msi_en = 4'b1110;
        ticks(2);
        irq = 1'b1;
        #1 r[0] = intx[0];
        ticks(5);
        r[1] = intx[0] & pend[0];
        irq = 1'b0;
        #1 r[2] = intx[0] | pend[0];
        ticks(5);
        check(r[0] && r[1] && !r[2] && asks == a0,
              "MSI disabled (enable 4'b1110): INTA and pending follow irq_i, no MSI request");
        // an edge while disabled is not sent once enabled; the next edge is.
        irq = 1'b1;
        ticks(4);
        msi_en = 4'b0001;
        #1 r[0] = intx[0];
        ticks(30);
        check(asks == a0 && !r[0] && pend == 4'd1,
              "enabling MSI with irq_i already high: INTA drops, no MSI for the old edge");
        irq = 1'b0;
        ticks(2);
        irq = 1'b1;
        ticks(30);
        check(asks == a0 + 1, "the next rising edge after enabling: one MSI");
        // disabled while a request waits for its answer: the answer still completes the ask.
        irq = 1'b0;
        ticks(2);
        irq = 1'b1;
        ticks(3);
        msi_en = 4'd0;
        ticks(30);
        check(waiting == 0 && asks == a0 + 2, "MSI disabled right after a request: no more, handshake completed");

        // random traffic: irq, rearm and enable at random, sent/fail after random delays
        dmax = 6;
        fail_pct = 20;
        msi_en = 4'b0001;
        irq = 1'b0;
        ticks(Retry + 20);
        owe = 0;
        owe_max = 0;
        late = 0;
        a0 = asks;
        s0 = sents;
        c0 = 32'(cnt);
        for (j = 0; j < 3000; j = j + 1) begin
            rnd32(r);
            r[31] = irq;
            if (r[3:0] == 4'd0) irq = ~irq;
            if (r[9:4] == 6'd0) rearm = 1'b1;
            if (r[19:10] == 10'd0) msi_en[0] = ~msi_en[0];
            if (r[30:20] < 11'd40) msi_en[3:1] = r[23:21];
            // an edge with MSI on must be asked for (again after a fail) within a bound
            if (msi_en[0] && irq && !r[31]) owe = cyc;
            @(negedge clk);
            rearm = 1'b0;
            if (owe != 0 && (last_ask > owe || !msi_en[0])) owe = 0;
            if (owe != 0 && cyc - owe > owe_max) owe_max = cyc - owe;
        end
        irq = 1'b0;
        fail_pct = 0;
        ticks(Retry + 20);
        if (owe_max > 2 * (dmax + 3) + Retry + 4) late = 1;
        check(bad_width == 0 && bad_vec == 0 && bad_twice == 0 && asks > a0 + 20,
              $sformatf("random: every request vector 0, one cycle, one per answer (%0d requests)", asks - a0));
        check(bad_intx == 0 && bad_pend == 0,
              "random: INTA == irq_i && !enable[0], pending == irq_i, every cycle");
        check(late == 0 && 32'(cnt) - c0 == sents - s0 && waiting == 0,
              $sformatf("random: every edge asked within %0d cycles (worst %0d), msi_count == sent",
                        2 * (dmax + 3) + Retry + 4, owe_max));
        tb_finish("");
    end
endmodule
`default_nettype wire
