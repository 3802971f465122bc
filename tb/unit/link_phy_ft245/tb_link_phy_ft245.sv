// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_link_phy_ft245: self-checking unit test of link_phy_ft245 against ft2232h_model (the
// FT2232H in FT245-style synchronous FIFO mode) under Icarus 11 and Verilator 5.006 --timing,
// GR_ASSERT on.
//
// TAP output ("1..N", "# seed=S", one ok/not ok per check, the count independent of the seed);
// $fatal when a check failed. Plusargs: +seed=N (default 1), +wave=<file>.
//
// The chip's clock is 16 ns (62.5 MHz: the 60 MHz CLKOUT on the testbench's whole-unit
// grid); the core clock changes per phase (10, 6 and 14 ns). DATA is one bus: whoever drives
// it, 8'hA5 when nobody does; the model counts contention and protocol errors. The model runs
// with a 600-cycle latency timer and 1 KiB buffers so that every behaviour shows up in
// a few thousand cycles. The host side parses the IN stream as libftdi does: every packet
// must start with the status bytes 0x01 0x60 and hold at most 512 bytes; the data after them
// must be exactly the bytes the engine sent. Throughput: 2048 bytes one way with everything
// ready, asserted >= 95% of FT clock cycles each way.
module tb_link_phy_ft245;
    localparam integer PLAN = 17;
    localparam integer NMAX = 16384;
    localparam integer Latency = 600;

    logic ft_clk = 1'b0, clk = 1'b0, rst = 1'b1, mrst = 1'b1;
    integer chalf = 5;
    initial forever #8 ft_clk = ~ft_clk;
    initial begin #3; forever begin #(chalf); clk = ~clk; end end
    integer fcyc = 0;
    initial forever begin @(posedge ft_clk); fcyc = fcyc + 1; end

    // ---- DUT and chip ---------------------------------------------------------------------
    wire [7:0]  rx_data;
    wire        rx_valid, tx_ready;
    logic       rx_ready = 1'b0;
    logic [7:0] tx_data = 8'd0;
    logic       tx_valid = 1'b0;
    wire [7:0]  p_data_o, c_data_o;
    wire        p_data_oe, c_data_oe;
    wire        rxf_n, txe_n, rd_n, wr_n, oe_n, siwu_n;
    logic       siwu_block = 1'b0;      // keeps the PHY's SIWU# from the chip
    wire [7:0]  bus = c_data_oe ? c_data_o : p_data_oe ? p_data_o : 8'hA5;

    link_phy_ft245 #(.RxFifoLog2(5), .TxFifoLog2(5), .BurstBytes(512), .SiwuIdle(8)) dut (
        .clk_i(clk), .rst_i(rst),
        .rx_data_o(rx_data), .rx_valid_o(rx_valid), .rx_ready_i(rx_ready),
        .tx_data_i(tx_data), .tx_valid_i(tx_valid), .tx_ready_o(tx_ready),
        .ft_clk_i(ft_clk), .ft_data_i(bus), .ft_data_o(p_data_o), .ft_data_oe_o(p_data_oe),
        .ft_rxf_n_i(rxf_n), .ft_txe_n_i(txe_n), .ft_rd_n_o(rd_n), .ft_wr_n_o(wr_n),
        .ft_oe_n_o(oe_n), .ft_siwu_n_o(siwu_n)
    );

    logic [7:0] uo_data = 8'd0;
    logic       uo_last = 1'b0, uo_valid = 1'b0, ui_ready = 1'b0;
    wire        uo_ready, ui_valid, ui_last;
    wire [7:0]  ui_data;
    wire [31:0] m_cont, m_perr, m_rdb, m_wrb, m_pkts;

    ft2232h_model #(.OutBufBytes(1024), .InBufBytes(1024), .RxfLatency(4),
                    .LatencyCycles(Latency), .StatusOnly(1)) chip (
        .clk_i(ft_clk), .rst_i(mrst),
        .ft_data_i(bus), .ft_data_oe_i(p_data_oe), .ft_data_o(c_data_o), .ft_data_oe_o(c_data_oe),
        .ft_rxf_n_o(rxf_n), .ft_txe_n_o(txe_n), .ft_rd_n_i(rd_n), .ft_wr_n_i(wr_n),
        .ft_oe_n_i(oe_n), .ft_siwu_n_i(siwu_n || siwu_block),
        .usb_out_data_i(uo_data), .usb_out_last_i(uo_last), .usb_out_valid_i(uo_valid),
        .usb_out_ready_o(uo_ready),
        .usb_in_data_o(ui_data), .usb_in_last_o(ui_last), .usb_in_valid_o(ui_valid),
        .usb_in_ready_i(ui_ready),
        .contention_o(m_cont), .proto_err_o(m_perr), .rd_bytes_o(m_rdb), .wr_bytes_o(m_wrb),
        .in_packets_o(m_pkts)
    );

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_link_phy_ft245
`include "tb/unit/common/tb_kit.svh"
`include "tb/unit/common/tb_stream_sb.svh"

    // ---- scoreboards ----------------------------------------------------------------------
    `TB_STREAM_SB(dn, 8, NMAX)
    `TB_STREAM_SB(up, 8, NMAX)
    // IN packets as the host sees them
    integer pk_pos = 0, pk_n = 0, pk_status_only = 0, e_status = 0, e_len = 0;
    integer pk_last_len = 0, pk_last_start = 0, pk_last_end = 0, pk_start = 0, c_siwu = 0;
    initial forever begin
        @(posedge clk);
        if (!rst) begin
            if (tx_valid && tx_ready) begin
                `TB_SB_PUSH(up, tx_data)
            end
            if (rx_valid && rx_ready) begin
                `TB_SB_POP(dn, rx_data, 1'b0, "down byte")
            end
        end
    end
    integer rd_first = -1, rd_last = -1, wr_first = -1, wr_last = -1, rd_moves = 0, wr_moves = 0;
    initial forever begin
        @(posedge ft_clk);
        if (!mrst) begin
            if (uo_valid && uo_ready) begin
                `TB_SB_PUSH(dn, uo_data)
            end
            if (ui_valid && ui_ready) begin
                if (pk_pos == 0) pk_start = fcyc;
                if (pk_pos == 0 && ui_data !== 8'h01) e_status = e_status + 1;
                else if (pk_pos == 1 && ui_data !== 8'h60) e_status = e_status + 1;
                else if (pk_pos >= 2) begin
                    `TB_SB_POP(up, ui_data, 1'b0, "up byte")
                end
                pk_pos = pk_pos + 1;
                if (pk_pos > 512) e_len = e_len + 1;
                if (ui_last) begin
                    if (pk_pos < 2) e_len = e_len + 1;
                    if (pk_pos == 2) pk_status_only = pk_status_only + 1;
                    pk_n = pk_n + 1;
                    pk_last_len = pk_pos - 2;
                    pk_last_start = pk_start;
                    pk_last_end = fcyc;
                    pk_pos = 0;
                end
            end
            if (!rd_n && !rxf_n && c_data_oe) begin
                if (rd_first < 0) rd_first = fcyc;
                rd_last = fcyc;
                rd_moves = rd_moves + 1;
            end
            if (!wr_n && !txe_n) begin
                if (wr_first < 0) wr_first = fcyc;
                wr_last = fcyc;
                wr_moves = wr_moves + 1;
            end
            if (!siwu_n) c_siwu = c_siwu + 1;
        end
    end

    // ---- stream drivers -------------------------------------------------------------------
    integer tx_n = 0, tx_gap = 0, rx_rdy = 100;
    integer uo_n = 0, uo_gap = 0, ui_rdy = 100, uo_xfer = 0;
    initial forever begin : engine_tx
        integer r;
        @(negedge clk);
        if (tx_valid && tx_ready) tx_valid = 1'b0;
        if (!tx_valid && tx_n > 0) begin
            rndn(100, r);
            if (r >= tx_gap) begin
                rndn(256, r);
                tx_data = r[7:0];
                tx_valid = 1'b1;
                tx_n = tx_n - 1;
            end
        end
    end
    initial forever begin : engine_rx
        integer r;
        @(negedge clk);
        rndn(100, r);
        rx_ready = r < rx_rdy;
    end
    initial forever begin : host
        integer r;
        @(negedge ft_clk);
        if (uo_valid && uo_ready) uo_valid = 1'b0;
        if (!uo_valid && uo_n > 0) begin
            rndn(100, r);
            if (r >= uo_gap) begin
                if (uo_xfer == 0) begin
                    rndn(700, uo_xfer);
                    uo_xfer = uo_xfer + 1;
                end
                if (uo_xfer > uo_n) uo_xfer = uo_n;
                rndn(256, r);
                uo_data = r[7:0];
                uo_xfer = uo_xfer - 1;
                uo_n = uo_n - 1;
                uo_last = (uo_xfer == 0);
                uo_valid = 1'b1;
            end
        end
        rndn(100, r);
        ui_ready = r < ui_rdy;
    end

    task automatic traffic(input integer nd, input integer nu, input integer budget,
                           output logic done);
        integer t;
        uo_n = nd;
        tx_n = nu;
        t = 0;
        while ((uo_n != 0 || tx_n != 0 || uo_valid || tx_valid || dn_recv != dn_sent ||
                up_recv != up_sent) && t < budget) begin
            @(posedge ft_clk);
            t = t + 1;
        end
        done = uo_n == 0 && tx_n == 0 && dn_recv == dn_sent && up_recv == up_sent;
    endtask

    initial begin : watchdog
        #(400000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        logic ok;
        integer i, p0, s0, t0, pct, so0;
        tb_start(PLAN);
        $display("# tb_link_phy_ft245: FT2232H CLKOUT 16 ns, 512-byte USB packets, latency timer %0d cycles",
                 Latency);

        rst = 1'b1;
        mrst = 1'b1;
        repeat (6) @(negedge clk);
        repeat (6) @(negedge ft_clk);
        mrst = 1'b0;
        rst = 1'b0;
        repeat (10) @(posedge ft_clk);
        check(rd_n === 1'b1 && wr_n === 1'b1 && oe_n === 1'b1 && siwu_n === 1'b1 &&
              p_data_oe === 1'b0 && rx_valid === 1'b0 && tx_ready === 1'b1,
              "after reset: RD#, WR#, OE#, SIWU# high, bus released, nothing received, ready to send");

        // Throughput, chip -> FPGA: the host fills the chip first, then the engine reads.
        chalf = 5;
        rx_rdy = 0;
        ui_rdy = 100;
        uo_gap = 0;
        uo_n = 2048;
        repeat (1300) @(posedge ft_clk);
        rd_first = -1;
        rd_moves = 0;
        rx_rdy = 100;
        traffic(uo_n, 0, 40000, ok);
        pct = (rd_moves * 1000) / (rd_last - rd_first + 1);
        check(ok && e_dn == 0 && dn_recv == 2048, "2048 bytes chip -> FPGA, in order");
        check(pct >= 950, $sformatf("chip -> FPGA: %0d bytes in %0d FT clock cycles (%0d.%0d%%, >= 95%% required)",
                                    rd_moves, rd_last - rd_first + 1, pct / 10, pct % 10));

        // Throughput, FPGA -> chip, the host always reading.
        wr_first = -1;
        wr_moves = 0;
        tx_gap = 0;
        p0 = pk_n;
        so0 = pk_status_only;
        traffic(0, 2048, 40000, ok);
        pct = (wr_moves * 1000) / (wr_last - wr_first + 1);
        check(ok && e_up == 0 && e_status == 0 && e_len == 0,
              "2048 bytes FPGA -> chip, in order, in packets of at most 512 bytes each led by 0x01 0x60");
        check(pct >= 950, $sformatf("FPGA -> chip: %0d bytes in %0d FT clock cycles (%0d.%0d%%, >= 95%% required)",
                                    wr_moves, wr_last - wr_first + 1, pct / 10, pct % 10));
        check(pk_n - p0 - (pk_status_only - so0) <= 2048 / 510 + 2,
              $sformatf("a full-rate write fills its packets: %0d data packets for 2048 bytes (510 data bytes each)",
                        pk_n - p0 - (pk_status_only - so0)));

        // Both ways at once with random stalls, three core clocks.
        for (i = 0; i < 3; i = i + 1) begin
            chalf = (i == 0) ? 5 : (i == 1) ? 3 : 7;
            tx_gap = 30;
            uo_gap = 30;
            rx_rdy = 60;
            ui_rdy = 60;
            traffic(400, 400, 100000, ok);
            check(ok && e_dn == 0 && e_up == 0,
                  $sformatf("core clock %0d ns: 400 bytes each way at once with random stalls, byte-exact",
                            2 * chalf));
        end

        // TXE#: the host stops reading, the 1 KiB IN buffer fills, the PHY holds its byte.
        chalf = 5;
        ui_rdy = 0;
        tx_gap = 0;
        tx_n = 1100;
        repeat (1200) @(posedge ft_clk);
        ok = txe_n === 1'b1 && tx_n > 0;
        ui_rdy = 80;
        traffic(0, 0, 40000, ok);
        check(ok && e_up == 0, "the host stops reading, the IN buffer fills, TXE# high: then every byte arrives once, in order");

        // Idle: the latency timer sends the two status bytes alone.
        ui_rdy = 100;
        so0 = pk_status_only;
        repeat (3 * Latency + 100) @(posedge ft_clk);
        check(pk_status_only - so0 >= 2 && e_status == 0,
              $sformatf("idle: status-only packets (0x01 0x60) every latency period (%0d in %0d cycles)",
                        pk_status_only - so0, 3 * Latency + 100));

        // SIWU#: 10 bytes, then the PHY's send-immediate gets them out long before the timer.
        p0 = pk_n;
        while (pk_n == p0) @(posedge ft_clk);     // just after a status-only packet
        s0 = c_siwu;
        t0 = fcyc;
        traffic(0, 10, 4000, ok);
        while (pk_n == p0 + 1 && fcyc - t0 < 2 * Latency) @(posedge ft_clk);
        @(posedge ft_clk);
        check(ok && c_siwu - s0 == 1 && pk_last_len == 10 && pk_last_end - t0 < Latency / 10,
              $sformatf("10 bytes then idle: one SIWU# pulse, a 10-byte packet %0d cycles later (timer %0d)",
                        pk_last_end - t0, Latency));

        // Without SIWU#, the same 10 bytes wait for the latency timer.
        siwu_block = 1'b1;
        p0 = pk_n;
        while (pk_n == p0) @(posedge ft_clk);
        t0 = fcyc;
        traffic(0, 10, 4 * Latency, ok);
        check(ok && pk_last_len == 10 && pk_last_start - t0 >= Latency - 20 &&
              pk_last_start - t0 <= Latency + 20,
              $sformatf("10 bytes without SIWU#: sent when the latency timer expires (%0d cycles after the last packet)",
                        pk_last_start - t0));
        siwu_block = 1'b0;

        check(e_status == 0 && e_len == 0,
              $sformatf("every IN packet (%0d, %0d status-only) starts 0x01 0x60 and has 2..512 bytes",
                        pk_n, pk_status_only));
        check(m_cont == 0, $sformatf("the chip and the PHY never drove DATA at once (%0d)", m_cont));
        check(m_perr == 0, $sformatf("no RD# without OE#, no WR# with OE# low or an undriven bus (%0d)", m_perr));
        check(m_rdb == dn_sent && m_wrb == up_sent && m_pkts == pk_n,
              $sformatf("the chip moved exactly the bytes sent (%0d read, %0d written, %0d packets)",
                        m_rdb, m_wrb, m_pkts));

        tb_finish($sformatf(", %0d FT clock cycles", fcyc));
    end
endmodule
`default_nettype wire
