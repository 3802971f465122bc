// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_link_phy_ft601: self-checking unit test of link_phy_ft601 against ft601_model, first with
// both in 245 synchronous FIFO mode, then (after a reset with the strap and the chip's
// configuration changed) both in FT600 mode, under Icarus 11 and Verilator 5.006 --timing,
// GR_ASSERT on. Every check runs in each mode.
//
// TAP output ("1..N", "# seed=S", one ok/not ok per check, the count independent of the seed);
// $fatal when a check failed. Plusargs: +seed=N (default 1), +wave=<file>.
//
// The chip's clock is 100 MHz (10 ns); the core clock changes per phase (10 ns with another
// phase, 7 ns, 13 ns). DATA and BE are one bus, resolved per pin: the chip drives whole byte
// lanes (its _oe), the PHY each pin it does not release (its per-pin tristate controls,
// ft_data_t_o/ft_be_t_o), the bits of 8'hDE when nobody does; the model counts contention and
// protocol errors, seeing the PHY's drive of a lane as its first pin's, and a lane (or BE)
// whose pins the PHY does not drive alike counts as split.
// Host side: the USB OUT endpoint gets random words in transfers of random length (the last
// word flagged), the IN endpoint is read with random READY; engine side: random tx gaps and
// rx READY. Scoreboards check every word both ways; the IN packets' sizes and last flags are
// checked against the datasheet's rules (<= 256 words, a short packet after the FPGA stops).
// Throughput: 4096 words one way with everything ready, counted as words moved per ft_clk
// cycle between the first and the last word, asserted >= 95% each way in 245 mode and >= 80%
// in FT600 mode (a command, two turnarounds and the status wait per transaction).
module tb_link_phy_ft601;
    localparam integer PLAN = 36;
    localparam integer NMAX = 16384;
    localparam integer Pkt = 256;

    logic ft_clk = 1'b0, clk = 1'b0, rst = 1'b1, mrst = 1'b1, mode600 = 1'b0;
    integer chalf = 5;              // core clock half period
    initial forever #5 ft_clk = ~ft_clk;
    initial begin #3; forever begin #(chalf); clk = ~clk; end end
    integer fcyc = 0;
    initial forever begin @(posedge ft_clk); fcyc = fcyc + 1; end

    // ---- DUT and chip ---------------------------------------------------------------------
    wire [31:0] rx_data;
    wire        rx_valid, rx_be_err, tx_ready;
    logic       rx_ready = 1'b0;
    logic [31:0] tx_data = 32'd0;
    logic       tx_valid = 1'b0;
    wire [31:0] p_data_o, c_data_o;
    wire [3:0]  p_be_o, c_be_o;
    wire [31:0] p_data_t;
    wire [3:0]  p_be_t;
    wire [3:0]  c_data_oe;
    wire        c_be_oe;
    wire        rxf_n, txe_n, rd_n, wr_n, oe_n, siwu_n;
    wire [31:0] bus_data;
    wire [7:0]  nobody = 8'hDE;
    for (genvar i = 0; i < 32; i = i + 1) begin : g_pin
        assign bus_data[i] = c_data_oe[i / 8] ? c_data_o[i] : !p_data_t[i] ? p_data_o[i] : nobody[i % 8];
    end
    wire [3:0]  bus_be;
    for (genvar i = 0; i < 4; i = i + 1) begin : g_be_pin
        assign bus_be[i] = c_be_oe ? c_be_o[i] : !p_be_t[i] ? p_be_o[i] : 1'b0;
    end
    wire [3:0]  p_data_oe = ~{p_data_t[24], p_data_t[16], p_data_t[8], p_data_t[0]};
    wire        p_be_oe = !p_be_t[0];
    // edges at which the PHY drove some pins of a lane (or of BE) and released others
    integer split = 0;
    always @(posedge ft_clk)
        if ((p_data_t[7:0] != {8{p_data_t[0]}}) || (p_data_t[15:8] != {8{p_data_t[8]}}) ||
            (p_data_t[23:16] != {8{p_data_t[16]}}) || (p_data_t[31:24] != {8{p_data_t[24]}}) ||
            (p_be_t != {4{p_be_t[0]}}))
            split <= split + 1;

    link_phy_ft601 #(.RxFifoLog2(5), .TxFifoLog2(5), .BurstWords(256)) dut (
        .clk_i(clk), .rst_i(rst), .mode600_i(mode600),
        .rx_data_o(rx_data), .rx_valid_o(rx_valid), .rx_ready_i(rx_ready), .rx_be_err_o(rx_be_err),
        .tx_data_i(tx_data), .tx_valid_i(tx_valid), .tx_ready_o(tx_ready),
        .ft_clk_i(ft_clk), .ft_data_i(bus_data), .ft_data_o(p_data_o), .ft_data_t_o(p_data_t),
        .ft_be_i(bus_be), .ft_be_o(p_be_o), .ft_be_t_o(p_be_t),
        .ft_rxf_n_i(rxf_n), .ft_txe_n_i(txe_n), .ft_rd_n_o(rd_n), .ft_wr_n_o(wr_n),
        .ft_oe_n_o(oe_n), .ft_siwu_n_o(siwu_n)
    );

    logic [31:0] uo_data = 32'd0;
    logic [3:0]  uo_be = 4'hF;
    logic        uo_last = 1'b0, uo_valid = 1'b0, ui_ready = 1'b0;
    wire         uo_ready, ui_valid, ui_last;
    wire [31:0]  ui_data;
    wire [3:0]   ui_be;
    wire [31:0]  m_cont, m_perr, m_rdw, m_wrw;

    ft601_model #(.PktWords(Pkt), .OutBufWords(1024), .InBufWords(1024), .RxfLatency(4),
                  .ShortPktIdle(8)) chip (
        .clk_i(ft_clk), .rst_i(mrst), .ft_rst_n_i(1'b1), .mode600_i(mode600),
        .ft_data_i(bus_data), .ft_data_oe_i(p_data_oe), .ft_data_o(c_data_o), .ft_data_oe_o(c_data_oe),
        .ft_be_i(bus_be), .ft_be_oe_i(p_be_oe), .ft_be_o(c_be_o), .ft_be_oe_o(c_be_oe),
        .ft_rxf_n_o(rxf_n), .ft_txe_n_o(txe_n), .ft_rd_n_i(rd_n), .ft_wr_n_i(wr_n),
        .ft_oe_n_i(oe_n), .ft_siwu_n_i(siwu_n),
        .usb_out_data_i(uo_data), .usb_out_be_i(uo_be), .usb_out_last_i(uo_last),
        .usb_out_valid_i(uo_valid), .usb_out_ready_o(uo_ready),
        .usb_in_data_o(ui_data), .usb_in_be_o(ui_be), .usb_in_last_o(ui_last),
        .usb_in_valid_o(ui_valid), .usb_in_ready_i(ui_ready),
        .contention_o(m_cont), .proto_err_o(m_perr), .rd_words_o(m_rdw), .wr_words_o(m_wrw)
    );

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_link_phy_ft601
`include "tb/unit/common/tb_kit.svh"
`include "tb/unit/common/tb_stream_sb.svh"

    // ---- scoreboards ----------------------------------------------------------------------
    // dn: host OUT -> chip -> PHY rx; up: PHY tx -> chip -> host IN.
    `TB_STREAM_SB(dn, 32, NMAX)
    `TB_STREAM_SB(up, 32, NMAX)
    integer c_be_err = 0;
    integer pk_words = 0, pk_n = 0, pk_short = 0, e_pk = 0, pk_last_len = 0;
    // engine side, core clock
    initial forever begin
        @(posedge clk);
        if (!rst) begin
            if (tx_valid && tx_ready) begin
                `TB_SB_PUSH(up, tx_data)
            end
            if (rx_valid && rx_ready) begin
                `TB_SB_POP(dn, rx_data, 1'b0, "down word")
            end
            if (rx_be_err) c_be_err = c_be_err + 1;
        end
    end
    // host side, chip clock
    integer rd_first = -1, rd_last = -1, wr_first = -1, wr_last = -1, rd_moves = 0, wr_moves = 0;
    initial forever begin
        @(posedge ft_clk);
        if (!mrst) begin
            if (uo_valid && uo_ready) begin
                if (uo_be == 4'hF) begin
                    `TB_SB_PUSH(dn, uo_data)
                end
            end
            if (ui_valid && ui_ready) begin
                `TB_SB_POP(up, ui_data, ui_be !== 4'hF, $sformatf("up word (byte enables %h)", ui_be))
                pk_words = pk_words + 1;
                if (pk_words > Pkt) e_pk = e_pk + 1;
                if (ui_last) begin
                    pk_n = pk_n + 1;
                    if (pk_words != Pkt) pk_short = pk_short + 1;
                    pk_last_len = pk_words;
                    pk_words = 0;
                end
            end
            if (chip.rd_move) begin
                if (rd_first < 0) rd_first = fcyc;
                rd_last = fcyc;
                rd_moves = rd_moves + 1;
            end
            if (chip.wr_move) begin
                if (wr_first < 0) wr_first = fcyc;
                wr_last = fcyc;
                wr_moves = wr_moves + 1;
            end
        end
    end

    // ---- stream drivers -------------------------------------------------------------------
    integer tx_n = 0, tx_gap = 0, rx_rdy = 100;       // engine
    integer uo_n = 0, uo_gap = 0, ui_rdy = 100;       // host
    integer uo_xfer = 0;                              // words left in the current transfer
    logic   uo_tail = 1'b0;                           // end the next transfer with BE 4'h3
    initial forever begin : engine_tx
        integer r;
        logic [31:0] d;
        @(negedge clk);
        if (tx_valid && tx_ready) tx_valid = 1'b0;
        if (!tx_valid && tx_n > 0) begin
            rndn(100, r);
            if (r >= tx_gap) begin
                rnd32(d);
                tx_data = d;
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
        logic [31:0] d;
        @(negedge ft_clk);
        if (uo_valid && uo_ready) uo_valid = 1'b0;
        if (!uo_valid && uo_n > 0) begin
            rndn(100, r);
            if (r >= uo_gap) begin
                if (uo_xfer == 0) begin
                    rndn(600, uo_xfer);
                    uo_xfer = uo_xfer + 1;
                end
                if (uo_xfer > uo_n) uo_xfer = uo_n;
                rnd32(d);
                uo_data = d;
                uo_be = 4'hF;
                uo_xfer = uo_xfer - 1;
                uo_n = uo_n - 1;
                uo_last = (uo_xfer == 0);
                if (uo_last && uo_tail) begin
                    uo_be = 4'h3;
                    uo_tail = 1'b0;
                end
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

    // One mode's checks: the bus after reset, throughput both ways, both ways at once under
    // three core clocks, a full IN buffer, a short packet, a tail word with BE != 4'hF, and the
    // model's counters. Reset and the strap come first.
    task automatic run_mode(input logic m600);
        logic ok, full_seen;
        integer i, b0, p0, s0, pct, min_pct, dn0, up0;
        string mode;
        mode = m600 ? "FT600 mode" : "245 mode";
        min_pct = m600 ? 800 : 950;
        rst = 1'b1;
        mrst = 1'b1;
        repeat (6) @(negedge clk);
        repeat (6) @(negedge ft_clk);
        mode600 = m600;
        repeat (6) @(negedge ft_clk);
        mrst = 1'b0;
        rst = 1'b0;
        dn0 = dn_sent;
        up0 = up_sent;
        repeat (10) @(posedge ft_clk);
        if (!m600)
            check(rd_n === 1'b1 && wr_n === 1'b1 && oe_n === 1'b1 && siwu_n === 1'b1 &&
                  p_data_oe === 4'h0 && rx_valid === 1'b0 && tx_ready === 1'b1,
                  "245 mode after reset: RD#, WR#, OE#, SIWU# high, bus released, nothing received, ready to send");
        else
            check(rd_n === 1'b1 && wr_n === 1'b1 && oe_n === 1'b1 && siwu_n === 1'b1 &&
                  p_data_oe === 4'b1101 && p_be_oe === 1'b1 && c_data_oe === 4'b0010 &&
                  bus_data[31:16] === 16'hFFFF && bus_data[7:0] === 8'hFF && bus_be === 4'hF &&
                  bus_data[15:8] === 8'hFE && txe_n === 1'b0 && rx_valid === 1'b0 && tx_ready === 1'b1,
                  "FT600 mode after reset: WR#, RD#, OE# high; the PHY drives DATA[31:16], DATA[7:0], BE to ones, the chip its status (8'hFE: IN ch1 has room) on DATA[15:8]; TXE# low");

        // Throughput, chip -> FPGA: the host fills the chip first (the engine not reading), then
        // the engine reads 4096 words with the host still sending.
        chalf = 5;
        rx_rdy = 0;
        ui_rdy = 100;
        uo_gap = 0;
        uo_n = 4096;
        repeat (1500) @(posedge ft_clk);
        rd_first = -1;
        rd_moves = 0;
        rx_rdy = 100;
        traffic(uo_n, 0, 40000, ok);
        pct = (rd_moves * 1000) / (rd_last - rd_first + 1);
        check(ok && e_dn == 0 && dn_recv == dn_sent, {mode, ": 4096 words chip -> FPGA, in order"});
        check(pct >= min_pct, $sformatf("%s: chip -> FPGA: %0d words in %0d FT601 cycles (%0d.%0d%%, >= %0d%% required)",
                                        mode, rd_moves, rd_last - rd_first + 1, pct / 10, pct % 10, min_pct / 10));

        // Throughput, FPGA -> chip: the engine offers 4096 words back to back, the host reads all.
        wr_first = -1;
        wr_moves = 0;
        tx_gap = 0;
        p0 = pk_n;
        s0 = pk_short;
        traffic(0, 4096, 40000, ok);
        pct = (wr_moves * 1000) / (wr_last - wr_first + 1);
        check(ok && e_up == 0, {mode, ": 4096 words FPGA -> chip, in order"});
        check(pct >= min_pct, $sformatf("%s: FPGA -> chip: %0d words in %0d FT601 cycles (%0d.%0d%%, >= %0d%% required)",
                                        mode, wr_moves, wr_last - wr_first + 1, pct / 10, pct % 10, min_pct / 10));
        check(e_pk == 0 && pk_short == s0 && pk_n - p0 == 4096 / Pkt,
              $sformatf("%s: a full-rate write makes %0d IN packets of exactly 256 words, the last word flagged",
                        mode, pk_n - p0));

        // Both ways at once, random stalls on all four streams, three core clocks.
        for (i = 0; i < 3; i = i + 1) begin
            chalf = (i == 0) ? 5 : (i == 1) ? 3 : 7;
            tx_gap = 30;
            uo_gap = 30;
            rx_rdy = 60;
            ui_rdy = 60;
            traffic(500, 500, 100000, ok);
            check(ok && e_dn == 0 && e_up == 0,
                  $sformatf("%s, core clock %0d ns: 500 words each way at once with random stalls, word-exact",
                            mode, 2 * chalf));
        end
        check(e_pk == 0, {mode, ": every IN packet has at most 256 words"});

        // The host stops reading, the chip's IN buffer fills (245: TXE# high; FT600: RXF# high
        // in the write and no room in the status), the PHY holds the word back; nothing lost or
        // repeated once the host reads again.
        chalf = 5;
        ui_rdy = 0;
        tx_gap = 0;
        tx_n = 1300;
        repeat (1500) @(posedge ft_clk);
        full_seen = tx_n > 0 && (m600 ? (chip.in_wr_q - chip.in_rd_q) > 11'(1024 - Pkt) : txe_n === 1'b1);
        ui_rdy = 70;
        traffic(0, 0, 40000, ok);
        check(full_seen && ok && e_up == 0,
              {mode, ": the host stops reading, the IN buffer fills and the PHY waits: then every word arrives once, in order"});

        // A short packet: 10 words and the FPGA stops writing.
        ui_rdy = 100;
        repeat (50) @(posedge ft_clk);
        p0 = pk_n;
        s0 = pk_short;
        traffic(0, 10, 4000, ok);
        repeat (40) @(posedge ft_clk);
        check(ok && pk_n == p0 + 1 && pk_short == s0 + 1 && pk_last_len == 10,
              $sformatf("%s: 10 words then WR# high: one short IN packet of 10 words (%0d packets, last %0d words)",
                        mode, pk_n - p0, pk_last_len));

        // A word with BE != 4'hF: dropped, one rx_be_err_o pulse, the words around it intact.
        b0 = c_be_err;
        rx_rdy = 100;
        uo_gap = 0;
        uo_xfer = 5;
        uo_tail = 1'b1;
        traffic(5, 0, 4000, ok);
        repeat (20) @(posedge clk);
        check(ok && c_be_err == b0 + 1 && e_dn == 0,
              $sformatf("%s: a transfer ending in a 2-byte word: the 4 whole words arrive, the tail is dropped with %0d rx_be_err_o pulse",
                        mode, c_be_err - b0));
        traffic(300, 300, 20000, ok);
        check(ok && e_dn == 0 && e_up == 0, {mode, ": after it, 300 words each way intact"});

        check(m_cont == 0, $sformatf("%s: the chip and the PHY never drove a DATA lane or BE at once (%0d)", mode, m_cont));
        check(m_perr == 0, $sformatf("%s: no protocol error in the model (%0d)", mode, m_perr));
        check(split == 0, $sformatf("%s: the PHY drove or released every pin of a DATA lane, and of BE, alike (%0d edges split)", mode, split));
        check(m_rdw == dn_sent - dn0 + 1 && m_wrw == up_sent - up0,
              $sformatf("%s: the chip moved exactly the words sent (%0d read incl. the tail, %0d written)",
                        mode, m_rdw, m_wrw));
    endtask

    initial begin : main
        tb_start(PLAN);
        $display("# tb_link_phy_ft601: FT601 CLK 100 MHz, 256-word USB packets, 245 mode then FT600 mode");
        run_mode(1'b0);
        run_mode(1'b1);
        tb_finish($sformatf(", %0d FT601 cycles", fcyc));
    end
endmodule
`default_nettype wire
