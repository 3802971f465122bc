// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_cmn_axi_err_slave: self-checking unit test of cmn_axi_err_slave (the DECERR slave behind
// a port whose block is not built in) under Icarus 11 and Verilator 5.006 --timing.
//
// Output is TAP: a "1..N" plan, a "# seed=S" line, then one "ok N - name" / "not ok N - name"
// per check (the count does not depend on the seed). Exits through $fatal when a check failed.
// Plusargs: +seed=N (default 1), +wave=<file> to dump waveforms (Icarus: add -fst after the
// .vvp for FST, else VCD; Verilator: FST, when built with UNIT_TRACE=1, i.e. --trace-fst).
//
// How it drives: inputs change at the falling clock edge, outputs are sampled at the rising
// edge. An AXI4 master runs three independent in-order streams (AW, W, AR) of bursts with
// random length and ID, each item after a random gap, so W beats often come before their AW;
// BREADY and RREADY stall at random. A scoreboard checks every B and R beat against the
// bursts issued; a monitor checks the handshake rules every cycle. Phases vary the stall
// rate, the gaps and the burst lengths (up to 256 beats), and one resets the slave mid-burst.
module tb_cmn_axi_err_slave;
    localparam integer AddrBits = 28;  // as gpu_core's BAR1 aperture
    localparam integer DataBytes = 8;
    localparam integer IdBits = 4;
    localparam integer DW = DataBytes * 8;
    localparam integer PLAN = 18;
    localparam integer NMAX = 512;     // bursts per direction per phase, at most
    localparam [1:0]   DECERR = 2'b11;

    // ---- DUT ------------------------------------------------------------------------------
    logic                clk = 1'b0;
    logic                rst = 1'b1;
    logic [IdBits-1:0]   awid = '0;
    logic [AddrBits-1:0] awaddr = '0;
    logic [7:0]          awlen = 8'd0;
    logic [2:0]          awsize = 3'd0;
    logic [1:0]          awburst = 2'd0;
    logic                awlock = 1'b0;
    logic [3:0]          awcache = 4'd0;
    logic [2:0]          awprot = 3'd0;
    logic                awvalid = 1'b0;
    wire                 awready;
    logic [DW-1:0]       wdata = '0;
    logic [DataBytes-1:0] wstrb = '0;
    logic                wlast = 1'b0;
    logic                wvalid = 1'b0;
    wire                 wready;
    wire  [IdBits-1:0]   bid;
    wire  [1:0]          bresp;
    wire                 bvalid;
    logic                bready = 1'b0;
    logic [IdBits-1:0]   arid = '0;
    logic [AddrBits-1:0] araddr = '0;
    logic [7:0]          arlen = 8'd0;
    logic [2:0]          arsize = 3'd0;
    logic [1:0]          arburst = 2'd0;
    logic                arlock = 1'b0;
    logic [3:0]          arcache = 4'd0;
    logic [2:0]          arprot = 3'd0;
    logic                arvalid = 1'b0;
    wire                 arready;
    wire  [IdBits-1:0]   rid;
    wire  [DW-1:0]       rdata;
    wire  [1:0]          rresp;
    wire                 rlast;
    wire                 rvalid;
    logic                rready = 1'b0;

    cmn_axi_err_slave #(
        .AddrBits(AddrBits),
        .DataBytes(DataBytes),
        .IdBits(IdBits)
    ) dut (
        .clk_i(clk), .rst_i(rst),
        .s_awid_i(awid), .s_awaddr_i(awaddr), .s_awlen_i(awlen), .s_awsize_i(awsize),
        .s_awburst_i(awburst), .s_awlock_i(awlock), .s_awcache_i(awcache), .s_awprot_i(awprot),
        .s_awvalid_i(awvalid), .s_awready_o(awready),
        .s_wdata_i(wdata), .s_wstrb_i(wstrb), .s_wlast_i(wlast),
        .s_wvalid_i(wvalid), .s_wready_o(wready),
        .s_bid_o(bid), .s_bresp_o(bresp), .s_bvalid_o(bvalid), .s_bready_i(bready),
        .s_arid_i(arid), .s_araddr_i(araddr), .s_arlen_i(arlen), .s_arsize_i(arsize),
        .s_arburst_i(arburst), .s_arlock_i(arlock), .s_arcache_i(arcache), .s_arprot_i(arprot),
        .s_arvalid_i(arvalid), .s_arready_o(arready),
        .s_rid_o(rid), .s_rdata_o(rdata), .s_rresp_o(rresp), .s_rlast_o(rlast),
        .s_rvalid_o(rvalid), .s_rready_i(rready)
    );

    initial forever #5 clk = ~clk;

    integer cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    // ---- seed, waves, random numbers (xorshift64*), TAP checks: the kit --------------
`define TB_TOP tb_cmn_axi_err_slave
`include "tb/unit/common/tb_kit.svh"
    task automatic rnd_data(output logic [DW-1:0] v);
        logic [31:0] r;
        integer i;
        v = '0;
        for (i = 0; i < DW / 32; i = i + 1) begin
            rnd32(r);
            v = (v << 32) | DW'(r);
        end
    endtask

    integer n_notes = 0;
    task automatic note(input string msg);
        n_notes = n_notes + 1;
        if (n_notes <= 40) $display("#   %s (cycle %0d)", msg, cyc);
    endtask

    // ---- protocol monitor (every rising edge) ---------------------------------------------
    logic              p_b_hold = 1'b0, p_r_hold = 1'b0, p_wlast = 1'b0, r_active = 1'b0;
    logic [IdBits-1:0] p_bid = '0, p_rid = '0;
    logic [1:0]        p_bresp = 2'b00, p_rresp = 2'b00;
    logic [DW-1:0]     p_rdata = '0;
    logic              p_rlast = 1'b0;
    integer            err_b_hold = 0, err_r_hold = 0, err_stall = 0, err_x = 0;
    always @(posedge clk) begin
        if (!rst) begin
            if ((^{awready, wready, bvalid, arready, rvalid}) === 1'bx ||
                (bvalid && (^{bid, bresp}) === 1'bx) ||
                (rvalid && (^{rid, rdata, rresp, rlast}) === 1'bx))
                err_x <= err_x + 1;
            if (p_b_hold && (!bvalid || bid != p_bid || bresp != p_bresp))
                err_b_hold <= err_b_hold + 1;
            if (p_r_hold && (!rvalid || rid != p_rid || rdata != p_rdata || rresp != p_rresp ||
                             rlast != p_rlast))
                err_r_hold <= err_r_hold + 1;
            // The slave never stalls a response itself: B in the cycle after WLAST is taken,
            // and R beats from the cycle after AR is taken until RLAST, without a gap.
            if ((p_wlast && !bvalid) || (r_active && !rvalid)) err_stall <= err_stall + 1;
        end
        p_b_hold <= !rst && bvalid && !bready;
        p_r_hold <= !rst && rvalid && !rready;
        p_wlast <= !rst && wvalid && wready && wlast;
        if (rst || (rvalid && rready && rlast)) r_active <= 1'b0;
        if (!rst && arvalid && arready) r_active <= 1'b1;
        p_bid <= bid;
        p_bresp <= bresp;
        p_rid <= rid;
        p_rdata <= rdata;
        p_rresp <= rresp;
        p_rlast <= rlast;
    end

    // ---- master and scoreboard --------------------------------------------------------------
    logic [IdBits-1:0] w_id [0:NMAX-1];
    logic [7:0]        w_len [0:NMAX-1];
    logic [IdBits-1:0] r_id [0:NMAX-1];
    logic [7:0]        r_len [0:NMAX-1];
    // Errors and coverage over all phases.
    integer e_bresp = 0, e_bid = 0, e_rbeats = 0, e_rlast = 0, e_rid = 0;
    integer e_rresp = 0, e_extra = 0, e_hang = 0;
    integer c_w_first = 0, c_bursts = 0, c_beats = 0, c_len0 = 0, c_len255 = 0;
    logic   hung = 1'b0;

    // Lengths: mostly short, some medium, a few long (and 256 beats); maxlen caps them.
    task automatic pick_len(input integer maxlen, output logic [7:0] len);
        integer r, l;
        rndn(100, r);
        rndn(256, l);
        if (r < 15) l = 0;
        else if (r < 70) l = l % 16;
        else if (r < 92) l = l % 64;
        else if (r >= 97) l = 255;
        if (l > maxlen) l = l % (maxlen + 1);
        len = 8'(l);
    endtask

    // Runs nb write bursts and nb read bursts. Gaps before each AW, W burst, AR are drawn
    // from 0..max_gap (AW from aw_min..aw_min+max_gap, so aw_min > 0 sends W first); stall is
    // the chance in percent that BREADY/RREADY is low; force_len >= 0 gives every burst that
    // AxLEN. Stops early, with the valids dropped, after abort_after cycles (for the reset
    // test) or when the cycle budget runs out.
    task automatic run_phase(input integer nb, input integer maxlen, input integer stall,
                             input integer max_gap, input integer aw_min,
                             input integer abort_after, input integer force_len);
        integer i, r, budget, step;
        integer aw_i, w_i, w_beat, wl_done, b_i, ar_i, r_i, r_beat;
        integer aw_wait, w_wait, ar_wait, w_first;
        logic [31:0] j;
        logic [DW-1:0] d;
        logic [7:0] len;
        budget = 2000;
        for (i = 0; i < nb; i = i + 1) begin
            rnd32(j);
            w_id[i] = j[IdBits-1:0];
            r_id[i] = j[16 +: IdBits];
            pick_len(maxlen, len);  // (an array element as the output crashes Icarus 11)
            w_len[i] = len;
            pick_len(maxlen, len);
            r_len[i] = len;
            if (force_len >= 0) begin
                w_len[i] = 8'(force_len);
                r_len[i] = 8'(force_len);
            end
            budget = budget + (32'(w_len[i]) + 32'(r_len[i]) + 8) * (max_gap + aw_min + 20);
            if (w_len[i] == 8'd0 || r_len[i] == 8'd0) c_len0 = c_len0 + 1;
            if (w_len[i] == 8'd255 || r_len[i] == 8'd255) c_len255 = c_len255 + 1;
        end
        if (stall > 0) budget = budget * 100 / (100 - stall);
        aw_i = 0; w_i = 0; w_beat = 0; wl_done = 0; b_i = 0; ar_i = 0; r_i = 0; r_beat = 0;
        rndn(max_gap + 1, aw_wait);
        aw_wait = aw_wait + aw_min;
        rndn(max_gap + 1, w_wait);
        rndn(max_gap + 1, ar_wait);
        rnd_data(d);
        step = 0;
        w_first = -1;
        while ((b_i < nb || r_i < nb) && step != abort_after && !hung) begin
            // Drive. Payload is held while VALID is high, junk while it is low.
            rnd32(j);
            awvalid = aw_i < nb && aw_wait == 0;
            awid = j[IdBits-1:0];
            awlen = j[15:8];
            awaddr = AddrBits'(j);
            awsize = j[18:16];
            awburst = j[20:19];
            awlock = j[21];
            awcache = j[25:22];
            awprot = j[28:26];
            if (awvalid) begin
                awid = w_id[aw_i];
                awlen = w_len[aw_i];
                awaddr = AddrBits'(aw_i * 4096);
                awsize = 3'd3;
                awburst = 2'b01;
                awlock = 1'b0;
                awcache = 4'd0;
                awprot = 3'd0;
            end
            wvalid = w_i < nb && w_wait == 0;
            // A burst whose first W beat is offered before its AW was taken.
            if (wvalid && w_beat == 0 && w_i >= aw_i && w_i != w_first) begin
                c_w_first = c_w_first + 1;
                w_first = w_i;
            end
            wlast = ^j[31:29];
            wstrb = DataBytes'(j);
            if (wvalid) begin
                wlast = w_beat == 32'(w_len[w_i]);
                wstrb = '1;
            end
            wdata = d;
            rnd32(j);
            arvalid = ar_i < nb && ar_wait == 0;
            arid = j[IdBits-1:0];
            arlen = j[15:8];
            araddr = AddrBits'(j);
            arsize = j[18:16];
            arburst = j[20:19];
            arlock = j[21];
            arcache = j[25:22];
            arprot = j[28:26];
            if (arvalid) begin
                arid = r_id[ar_i];
                arlen = r_len[ar_i];
                araddr = AddrBits'(ar_i * 4096);
                arsize = 3'd3;
                arburst = 2'b01;
                arlock = 1'b0;
                arcache = 4'd0;
                arprot = 3'd0;
            end
            rndn(100, r);
            bready = r >= stall;
            rndn(100, r);
            rready = r >= stall;
            @(posedge clk);
            // Sample the handshakes of this edge and score the responses.
            if (awvalid && awready) begin
                aw_i = aw_i + 1;
                rndn(max_gap + 1, aw_wait);
                aw_wait = aw_wait + aw_min;
            end else if (aw_wait > 0) aw_wait = aw_wait - 1;
            if (wvalid && wready) begin
                c_beats = c_beats + 1;
                if (wlast) begin
                    w_i = w_i + 1;
                    w_beat = 0;
                    wl_done = wl_done + 1;
                    rndn(max_gap + 1, w_wait);
                end else w_beat = w_beat + 1;
                rnd_data(d);
            end else if (w_wait > 0) w_wait = w_wait - 1;
            if (arvalid && arready) begin
                ar_i = ar_i + 1;
                rndn(max_gap + 1, ar_wait);
            end else if (ar_wait > 0) ar_wait = ar_wait - 1;
            if (bvalid && bready) begin
                if (b_i >= nb || b_i >= wl_done) begin
                    e_extra = e_extra + 1;
                    note($sformatf("B %0d before the WLAST of its burst (%0d done)", b_i, wl_done));
                end
                if (bresp != DECERR) e_bresp = e_bresp + 1;
                if (b_i < nb && bid != w_id[b_i]) begin
                    e_bid = e_bid + 1;
                    note($sformatf("B %0d: BID %0d, AWID %0d", b_i, bid, w_id[b_i]));
                end
                b_i = b_i + 1;
            end
            if (rvalid && rready) begin
                c_beats = c_beats + 1;
                if (r_i >= nb || r_i >= ar_i) begin
                    e_extra = e_extra + 1;
                    note($sformatf("R beat for read %0d before its AR", r_i));
                end else begin
                    if (rid != r_id[r_i]) begin
                        e_rid = e_rid + 1;
                        note($sformatf("read %0d beat %0d: RID %0d, ARID %0d", r_i, r_beat, rid,
                                       r_id[r_i]));
                    end
                    if (rresp != DECERR || rdata != '0) e_rresp = e_rresp + 1;
                    if (rlast != (r_beat == 32'(r_len[r_i]))) begin
                        e_rlast = e_rlast + 1;
                        note($sformatf("read %0d (ARLEN %0d) beat %0d: RLAST %b", r_i, r_len[r_i],
                                       r_beat, rlast));
                    end
                end
                if (rlast) begin
                    if (r_i < nb && r_beat != 32'(r_len[r_i])) e_rbeats = e_rbeats + 1;
                    r_i = r_i + 1;
                    r_beat = 0;
                end else begin
                    r_beat = r_beat + 1;
                    if (r_i < nb && r_beat > 32'(r_len[r_i])) e_rbeats = e_rbeats + 1;
                end
            end
            step = step + 1;
            if (step > budget) begin
                hung = 1'b1;
                e_hang = e_hang + 1;
                note($sformatf("hang: %0d/%0d B and %0d/%0d reads after %0d cycles (AW %0d, W %0d, AR %0d)",
                               b_i, nb, r_i, nb, step, aw_i, w_i, ar_i));
            end
            @(negedge clk);
        end
        awvalid = 1'b0;
        wvalid = 1'b0;
        arvalid = 1'b0;
        bready = 1'b0;
        rready = 1'b0;
        if (abort_after < 0) c_bursts = c_bursts + b_i + r_i;
    endtask

    // Idle state right after a reset: ready for an address, no response, no W taken.
    task automatic idle_after_reset(output logic ok);
        ok = awready === 1'b1 && arready === 1'b1 && bvalid === 1'b0 && rvalid === 1'b0 &&
             wready === 1'b0;
    endtask

    // Extra responses after a phase completed (there must be none).
    task automatic drain_check(input integer n);
        integer i;
        bready = 1'b1;
        rready = 1'b1;
        for (i = 0; i < n; i = i + 1) begin
            @(posedge clk);
            if (bvalid || rvalid) e_extra = e_extra + 1;
            @(negedge clk);
        end
        bready = 1'b0;
        rready = 1'b0;
    endtask

    // ---- the checks -----------------------------------------------------------------------
    initial begin : watchdog
        #(50000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        logic ok, ok2;
        integer p, stall, gap;

        tb_start(PLAN);
        $display("# tb_cmn_axi_err_slave: AddrBits=%0d DataBytes=%0d IdBits=%0d", AddrBits,
                 DataBytes, IdBits);

        rst = 1'b1;
        repeat (3) @(negedge clk);
        rst = 1'b0;
        @(negedge clk);
        idle_after_reset(ok);
        check(ok, "after reset: AWREADY and ARREADY high, WREADY low, no BVALID or RVALID");

        // nb, maxlen, stall %, max gap, AW min gap (W first), abort
        run_phase(120, 15, 0, 0, 0, -1, -1);       // back to back, never stalled
        run_phase(120, 63, 30, 3, 0, -1, -1);      // moderate backpressure
        run_phase(80, 63, 85, 8, 0, -1, -1);       // heavy backpressure
        run_phase(80, 15, 20, 2, 6, -1, -1);       // every W burst offered before its AW
        run_phase(8, 255, 40, 2, 0, -1, -1);       // long bursts
        for (p = 0; p < 3 && !hung; p = p + 1) begin
            rndn(90, stall);
            rndn(10, gap);
            run_phase(40, 255, stall, gap, 0, -1, -1);
        end
        drain_check(20);

        check(e_bresp == 0, "every B answers DECERR");
        check(e_bid == 0, "every B carries the ID of its AW, in order");
        check(e_extra == 0, "no B before its burst's WLAST, no R beat before its AR, nothing extra");
        check(c_w_first >= 80, $sformatf("W beats offered before their AW complete normally (%0d bursts W first)",
                                         c_w_first));
        check(e_rbeats == 0, "every read returns ARLEN+1 beats");
        check(e_rlast == 0, "RLAST on the last beat of each read and only there");
        check(e_rid == 0, "every R beat carries the ID of its AR");
        check(e_rresp == 0, "every R beat answers DECERR with zero data");
        check(c_len0 > 0 && c_len255 > 0,
              $sformatf("bursts of 1 and of 256 beats covered (%0d bursts, %0d beats in all)",
                        c_bursts, c_beats));
        check(err_b_hold == 0, "protocol: BVALID held until BREADY, BID/BRESP stable while stalled");
        check(err_r_hold == 0, "protocol: RVALID held until RREADY, RID/RDATA/RRESP/RLAST stable while stalled");
        check(err_stall == 0, "the slave never stalls a response: B the cycle after WLAST, R beats without gaps");
        check(err_x == 0, "protocol: no X/Z on outputs after reset");
        check(e_hang == 0 && !hung, "nothing hangs: every phase completes within its cycle budget");

        // Reset in the middle of bursts (the master abandons them, as on a system reset).
        run_phase(4, 255, 30, 0, 0, 40, 200);
        ok2 = rvalid === 1'b1 && wready === 1'b1;  // a read and a write burst in flight
        rst = 1'b1;
        @(negedge clk);
        rst = 1'b0;
        idle_after_reset(ok);
        check(ok && ok2, "rst_i in the middle of bursts returns the slave to idle");
        e_bresp = 0; e_bid = 0; e_extra = 0; e_rbeats = 0; e_rlast = 0; e_rid = 0; e_rresp = 0;
        run_phase(40, 31, 30, 2, 0, -1, -1);
        drain_check(10);
        check(e_bresp + e_bid + e_extra + e_rbeats + e_rlast + e_rid + e_rresp + e_hang == 0 && !hung,
              "after that reset, 40 writes and 40 reads complete correctly");
        check(err_b_hold + err_r_hold + err_stall + err_x == 0,
              "protocol rules held through the reset test");

        tb_finish($sformatf(", %0d cycles", cyc));
    end
endmodule
`default_nettype wire
