// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_link_phy_uart: self-checking unit test of link_phy_uart against uart_line_model (the
// FT231X end of the line) under Icarus 11 and Verilator 5.006 --timing, GR_ASSERT on.
//
// TAP output ("1..N", "# seed=S", one ok/not ok per check, the count independent of the seed);
// $fatal when a check failed. Plusargs: +seed=N (default 1), +wave=<file>.
//
// The PHY runs at 16 MHz and 1 Mbaud (Div 16). Three far ends share its pins, one selected at
// a time: the same rate, 2% fast and 2% slow. Random bytes flow both ways at once with random
// gaps on the engine's tx side and random READY on both receiving sides; scoreboards check
// every byte in order. Then: an injected framing error (the byte dropped, one rx_frame_err_o
// pulse, the next bytes intact), an injected data bit error (received as sent on the line),
// a glitch shorter than half a bit (ignored), an overrun without flow control (exactly the
// bytes beyond the FIFO dropped, one rx_overrun_o pulse each), the same burst with RTS#/CTS#
// (nothing dropped), CTS# high holding the transmitter, and the line idle level after reset.
module tb_link_phy_uart;
    localparam integer ClkHz = 16000000;
    localparam integer Baud = 1000000;
    localparam integer RxFifoLog2 = 4;
    localparam integer Depth = 1 << RxFifoLog2;
    localparam integer PLAN = 16;
    localparam integer NMAX = 4096;

    logic clk = 1'b0, rst = 1'b1;
    initial forever #5 clk = ~clk;
    integer cyc = 0;
    initial forever begin @(posedge clk); cyc = cyc + 1; end

    // ---- DUT ------------------------------------------------------------------------------
    wire        dut_tx, dut_rts_n;
    logic       dut_rx, dut_cts_n;
    wire  [7:0] e_rx_data;
    wire        e_rx_valid, e_rx_ferr, e_rx_ovr, e_tx_ready;
    logic       e_rx_ready = 1'b0;
    logic [7:0] e_tx_data = 8'h00;
    logic       e_tx_valid = 1'b0;

    link_phy_uart #(.ClkHz(ClkHz), .Baud(Baud), .RxFifoLog2(RxFifoLog2), .RtsSlack(4)) dut (
        .clk_i(clk), .rst_i(rst), .rx_i(dut_rx), .tx_o(dut_tx), .cts_n_i(dut_cts_n),
        .rts_n_o(dut_rts_n),
        .rx_data_o(e_rx_data), .rx_valid_o(e_rx_valid), .rx_ready_i(e_rx_ready),
        .rx_frame_err_o(e_rx_ferr), .rx_overrun_o(e_rx_ovr),
        .tx_data_i(e_tx_data), .tx_valid_i(e_tx_valid), .tx_ready_o(e_tx_ready)
    );

    // ---- three far ends: same rate, 2% fast, 2% slow --------------------------------------
    integer     sel = 0;           // which far end is on the line
    logic       use_flow = 1'b0;   // RTS#/CTS# wired, else CTS# tied low on both ends
    logic       glitch = 1'b0;     // forces the PHY's rx pin low
    logic       force_cts = 1'b0;  // holds the PHY's CTS# high
    logic [7:0] h_in_data = 8'h00;
    logic       h_in_valid = 1'b0;
    logic       h_out_ready = 1'b0;
    logic       err_data = 1'b0, err_frame = 1'b0;
    wire  [2:0] m_tx, m_rts_n, m_in_ready, m_out_valid;
    wire  [7:0] m_out_data [0:2];
    wire [31:0] m_ferr [0:2];
    wire [31:0] m_ovr [0:2];
    wire [31:0] m_txb [0:2];

    genvar gi;
    for (gi = 0; gi < 3; gi = gi + 1) begin : g_far
        localparam integer B = (gi == 0) ? Baud : (gi == 1) ? Baud + Baud / 50 : Baud - Baud / 50;
        uart_line_model #(.ClkHz(ClkHz), .Baud(B), .OutFifoLog2(9), .RtsSlack(32)) u_far (
            .clk_i(clk), .rst_i(rst), .rx_i(dut_tx), .tx_o(m_tx[gi]),
            .cts_n_i(use_flow ? dut_rts_n : 1'b0), .rts_n_o(m_rts_n[gi]),
            .in_data_i(h_in_data), .in_valid_i(h_in_valid && sel == gi),
            .in_ready_o(m_in_ready[gi]),
            .out_data_o(m_out_data[gi]), .out_valid_o(m_out_valid[gi]),
            .out_ready_i(h_out_ready || sel != gi),
            .err_data_i(err_data), .err_frame_i(err_frame),
            .frame_err_o(m_ferr[gi]), .out_overrun_o(m_ovr[gi]), .tx_bytes_o(m_txb[gi])
        );
    end
    always_comb begin
        dut_rx = m_tx[sel] && !glitch;
        dut_cts_n = force_cts || (use_flow && m_rts_n[sel]);
    end
    wire h_in_ready = m_in_ready[sel];
    wire h_out_valid = m_out_valid[sel];
    wire [7:0] h_out_data = m_out_data[sel];

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_link_phy_uart
`include "tb/unit/common/tb_kit.svh"
`include "tb/unit/common/tb_stream_sb.svh"

    // ---- scoreboards ----------------------------------------------------------------------
    // up: engine -> line -> far end; down: far end -> line -> engine.
    `TB_STREAM_SB(up, 8, NMAX)
    `TB_STREAM_SB(dn, 8, NMAX)
    integer c_ferr = 0, c_ovr = 0, dn_skip = 0;
    logic [7:0] dn_flip = 8'h00;    // XOR expected on the next byte down (injected bit error)
    initial forever begin
        @(posedge clk);
        if (!rst) begin
            if (e_tx_valid && e_tx_ready) begin
                `TB_SB_PUSH(up, e_tx_data)
            end
            if (h_out_valid && h_out_ready) begin
                `TB_SB_POP(up, h_out_data, 1'b0, "up byte")
            end
            if (h_in_valid && h_in_ready) begin
                `TB_SB_PUSH(dn, h_in_data ^ dn_flip)
                dn_flip = 8'h00;
            end
            if (e_rx_valid && e_rx_ready) begin
                while (dn_skip > 0) begin        // bytes the test expects to be dropped
                    dn_recv = dn_recv + 1;
                    dn_skip = dn_skip - 1;
                end
                `TB_SB_POP(dn, e_rx_data, 1'b0, "down byte")
            end
            if (e_rx_ferr) c_ferr = c_ferr + 1;
            if (e_rx_ovr) c_ovr = c_ovr + 1;
        end
    end

    // ---- stream drivers (inputs change at the falling edge) -------------------------------
    integer up_n = 0, dn_n = 0, up_gap = 0, dn_gap = 0, up_rdy = 100, dn_rdy = 100;
    initial forever begin : engine_tx
        integer r;
        @(negedge clk);
        if (e_tx_valid && e_tx_ready) e_tx_valid = 1'b0;   // taken at the last rising edge
        if (!e_tx_valid && up_n > 0) begin
            rndn(100, r);
            if (r >= up_gap) begin
                rndn(256, r);
                e_tx_data = r[7:0];
                e_tx_valid = 1'b1;
                up_n = up_n - 1;
            end
        end
    end
    initial forever begin : host_in
        integer r;
        @(negedge clk);
        if (h_in_valid && h_in_ready) h_in_valid = 1'b0;
        if (!h_in_valid && dn_n > 0) begin
            rndn(100, r);
            if (r >= dn_gap) begin
                rndn(256, r);
                h_in_data = r[7:0];
                h_in_valid = 1'b1;
                dn_n = dn_n - 1;
            end
        end
    end
    initial forever begin : readies
        integer r;
        @(negedge clk);
        rndn(100, r);
        e_rx_ready = (r < dn_rdy);
        rndn(100, r);
        h_out_ready = (r < up_rdy);
    end

    // n bytes each way; true when all arrived within the budget.
    task automatic traffic(input integer nu, input integer nd, output logic done);
        integer t;
        up_n = nu;
        dn_n = nd;
        t = 0;
        while ((up_n != 0 || dn_n != 0 || e_tx_valid || h_in_valid || up_recv != up_sent ||
                dn_recv != dn_sent) && t < 200 * 16 * (nu + nd + 2)) begin
            @(posedge clk);
            t = t + 1;
        end
        done = up_n == 0 && dn_n == 0 && up_recv == up_sent && dn_recv == dn_sent;
    endtask

    task automatic idle_bits(input integer n);
        repeat (16 * n) @(posedge clk);
    endtask

    initial begin : watchdog
        #(400000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        logic ok, ok2;
        string rate;
        integer i, f0, o0, t0, hold, s0;
        tb_start(PLAN);
        $display("# tb_link_phy_uart: %0d Hz, %0d baud, rx FIFO %0d bytes", ClkHz, Baud, Depth);

        rst = 1'b1;
        repeat (5) @(negedge clk);
        rst = 1'b0;
        ok = 1'b1;
        for (i = 0; i < 40; i = i + 1) begin
            @(posedge clk);
            ok = ok && dut_tx === 1'b1 && e_rx_valid === 1'b0 && e_rx_ferr === 1'b0 &&
                 e_rx_ovr === 1'b0;
        end
        check(ok && dut_rts_n === 1'b0 && e_tx_ready === 1'b1,
              "after reset: tx_o idle high, nothing received, RTS# low, ready to send");

        // Both ways at once, random gaps and READY, each far end in turn.
        for (i = 0; i < 3; i = i + 1) begin
            sel = i;
            if (i == 0) rate = "the same rate";
            else if (i == 1) rate = "+2%";
            else rate = "-2%";
            up_gap = 30;
            dn_gap = 30;
            up_rdy = 70;
            dn_rdy = 70;
            f0 = c_ferr;
            o0 = c_ovr;
            traffic(60, 60, ok);
            check(ok && e_up == 0 && e_dn == 0 && c_ferr == f0 && c_ovr == o0,
                  $sformatf("far end at %s: 60 random bytes each way at once, byte-exact, no error pulse",
                            rate));
        end
        check(m_ferr[0] + m_ferr[1] + m_ferr[2] == 0 && m_ovr[0] + m_ovr[1] + m_ovr[2] == 0,
              "the far ends saw no framing error and no overrun");

        // Back to back both ways with the engine always ready: the line is never idle longer
        // than a bit between bytes.
        sel = 0;
        up_gap = 0;
        dn_gap = 0;
        up_rdy = 100;
        dn_rdy = 100;
        t0 = cyc;
        traffic(50, 50, ok);
        check(ok && e_up == 0 && e_dn == 0 && cyc - t0 <= 50 * 10 * 16 + 50 * 16 + 200,
              $sformatf("back to back: 50 bytes each way in %0d cycles (%0d per 10-bit byte)",
                        cyc - t0, 10 * 16));

        // A framing error: that byte is dropped with one rx_frame_err_o pulse.
        sel = 1;   // and at +2%
        dn_rdy = 100;
        f0 = c_ferr;
        traffic(0, 5, ok);
        @(negedge clk);
        err_frame = 1'b1;
        dn_n = 1;
        while (dn_n != 0 || h_in_valid) @(negedge clk);
        err_frame = 1'b0;
        s0 = dn_sent;
        dn_skip = 1;       // the next byte the engine sees is the one after it
        idle_bits(12);
        check(c_ferr - f0 == 1, $sformatf("a low stop bit: one rx_frame_err_o pulse (%0d)", c_ferr - f0));
        traffic(0, 20, ok);
        check(ok && e_dn == 0 && dn_skip == 0 && dn_sent == s0 + 20,
              "the byte with the low stop bit is dropped; the 20 after it arrive intact");

        // A data bit error on the line arrives as sent (the protocol's CRC catches it).
        sel = 2;   // at -2%
        @(negedge clk);
        err_data = 1'b1;
        dn_flip = 8'h08;
        dn_n = 1;
        while (dn_n != 0 || h_in_valid) @(negedge clk);
        err_data = 1'b0;
        traffic(0, 3, ok);
        check(ok && e_dn == 0, "an injected data bit error arrives with bit 3 inverted, the next bytes intact");

        // A glitch shorter than half a bit is no start bit.
        sel = 0;
        idle_bits(4);
        f0 = c_ferr;
        s0 = dn_recv;
        @(negedge clk);
        glitch = 1'b1;
        repeat (5) @(negedge clk);
        glitch = 1'b0;
        idle_bits(20);
        check(c_ferr == f0 && dn_recv == s0 && !e_rx_valid,
              "a 5-cycle low glitch (under half a bit) receives nothing and flags nothing");

        // Overrun: no flow control, the engine not reading: bytes beyond the FIFO are dropped.
        use_flow = 1'b0;
        dn_rdy = 0;
        o0 = c_ovr;
        s0 = dn_sent;
        dn_gap = 0;
        dn_n = Depth + 3;
        while (dn_n != 0 || h_in_valid) @(posedge clk);
        idle_bits(12);
        check(c_ovr - o0 == 3, $sformatf("%0d bytes into a %0d-byte FIFO nobody reads: 3 rx_overrun_o pulses (%0d)",
                                         Depth + 3, Depth, c_ovr - o0));
        dn_rdy = 100;
        while (e_rx_valid) @(posedge clk);
        repeat (3) @(posedge clk);
        ok = (dn_recv == s0 + Depth && e_dn == 0);
        dn_recv = dn_sent;    // the 3 dropped bytes are gone
        check(ok, "after the overrun the FIFO holds exactly the first 16 bytes, in order");

        // The same with RTS#/CTS#: the far end stops and nothing is dropped.
        use_flow = 1'b1;
        dn_rdy = 0;
        o0 = c_ovr;
        dn_n = 3 * Depth;
        idle_bits(25 * Depth);
        ok = dn_n > 0 && dut_rts_n === 1'b1;
        dn_rdy = 50;
        traffic(0, 0, ok2);
        check(ok && ok2 && c_ovr == o0 && e_dn == 0,
              $sformatf("%0d bytes with RTS#/CTS# while the engine does not read: the far end waits, none dropped",
                        3 * Depth));
        use_flow = 1'b0;

        // CTS# high holds the transmitter: no start bit while it is high.
        force_cts = 1'b1;
        repeat (3) @(negedge clk);
        up_n = 3;
        ok = 1'b1;
        for (i = 0; i < 400; i = i + 1) begin
            @(posedge clk);
            ok = ok && dut_tx === 1'b1 && !(e_tx_valid && e_tx_ready);
        end
        hold = up_n;
        force_cts = 1'b0;
        traffic(0, 0, ok2);
        check(ok && hold == 2 && ok2 && e_up == 0,
              "CTS# high: the byte offered waits and tx_o stays high; CTS# low: all 3 go out");

        check(e_up == 0 && e_dn == 0 && m_txb[0] + m_txb[1] + m_txb[2] == dn_sent,
              "every byte both ways matched its scoreboard; the far ends sent exactly the bytes offered");

        // Reset in the middle of a byte: the line returns to idle, the FIFO is empty.
        dn_rdy = 0;
        up_n = 1;
        dn_n = 2;
        idle_bits(14);
        ok2 = e_rx_valid === 1'b1;
        @(negedge clk);
        rst = 1'b1;
        repeat (3) @(negedge clk);
        rst = 1'b0;
        up_n = 0;
        dn_n = 0;
        e_tx_valid = 1'b0;
        h_in_valid = 1'b0;
        @(posedge clk);
        check(ok2 && dut_tx === 1'b1 && e_rx_valid === 1'b0,
              "rst_i with bytes in flight: tx_o idle, the receive FIFO empty");

        tb_finish($sformatf(", %0d cycles", cyc));
    end
endmodule
`default_nettype wire
