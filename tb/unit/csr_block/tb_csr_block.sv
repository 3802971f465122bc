`default_nettype none
// tb_csr_block: self-checking unit test of csr_block (BAR0 registers, soft reset, interrupts)
// under Icarus 11 and Verilator 5.006 --timing, with seeded random AXI4-Lite backpressure.
//
// Output is TAP: a "1..N" plan, a "# seed=S" line, then one "ok N - name" / "not ok N - name"
// per check (the count does not depend on the seed). Exits through $fatal when a check failed.
// Plusargs: +seed=N (default 1), +wave=<file> to dump waveforms (Icarus: add -fst after the
// .vvp for FST, else VCD; Verilator: FST, the model is built with --trace-fst).
// Defines: REGMAP_HASH, the expected ID_REGMAP (the Makefile takes it from gr_regmap.h).
//
// How it drives: the TB changes its inputs to the DUT at the falling clock edge and samples at
// the rising edge, so neither simulator can race. One AXI4-Lite master task (axil_xfer) runs a
// write, a read, or both at once (a read issued while a write is outstanding), each channel
// with its own random start delay (AW or W first) and BREADY/RREADY stalled at random. A
// monitor checks the handshake rules every cycle. A reference model of the registers predicts
// every response and read value.
module tb_csr_block;
    localparam integer AddrBits = 16;
    localparam [7:0]   BOARD_ID = 8'h5A;
    localparam [23:0]  BUILD_STAMP = 24'h123456;
`ifdef REGMAP_HASH
    localparam [31:0]  EXP_REGMAP = `REGMAP_HASH;
    localparam         HAVE_REGMAP = 1'b1;
`else
    localparam [31:0]  EXP_REGMAP = 32'h0;
    localparam         HAVE_REGMAP = 1'b0;
`endif
    localparam integer PLAN = 61;           // checks printed; fixed, independent of the seed
    localparam integer XFER_TIMEOUT = 2000; // cycles one transaction may take
    localparam integer RANDOM_OPS = 3000;
    localparam integer RACES = 120;         // soft-reset-done vs W1C clear races

    // Register map (rtl/csr/REGISTERS.md).
    localparam [15:0] A_ID_MAGIC   = 16'h0000;
    localparam [15:0] A_ID_VERSION = 16'h0004;
    localparam [15:0] A_ID_CAPS    = 16'h0008;
    localparam [15:0] A_ID_REGMAP  = 16'h000C;
    localparam [15:0] A_ID_BUILD   = 16'h0010;
    localparam [15:0] A_SCRATCH    = 16'h0020;
    localparam [15:0] A_RESET_CTRL = 16'h0024;
    localparam [15:0] A_IRQ_STATE  = 16'h0040;
    localparam [15:0] A_IRQ_ENABLE = 16'h0044;
    localparam [15:0] A_IRQ_TEST   = 16'h0048;
    localparam [31:0] MAGIC   = 32'h47505552;
    localparam [31:0] VERSION = 32'h00010000;
    localparam [1:0]  OKAY = 2'b00;
    localparam [1:0]  SLVERR = 2'b10;

    // ---- DUT ------------------------------------------------------------------------------
    logic                clk = 1'b0;
    logic                rst = 1'b1;
    logic [AddrBits-1:0] awaddr = 16'h0;
    logic [2:0]          awprot = 3'd0;
    logic                awvalid = 1'b0;
    wire                 awready;
    logic [31:0]         wdata = 32'h0;
    logic [3:0]          wstrb = 4'h0;
    logic                wvalid = 1'b0;
    wire                 wready;
    wire  [1:0]          bresp;
    wire                 bvalid;
    logic                bready = 1'b0;
    logic [AddrBits-1:0] araddr = 16'h0;
    logic [2:0]          arprot = 3'd0;
    logic                arvalid = 1'b0;
    wire                 arready;
    wire  [31:0]         rdata;
    wire  [1:0]          rresp;
    wire                 rvalid;
    logic                rready = 1'b0;
    logic                idle = 1'b1;
    wire                 soft_rst;
    wire                 irq;

    csr_block #(
        .AddrBits(AddrBits),
        .BoardId(BOARD_ID),
        .BuildStamp(BUILD_STAMP)
    ) dut (
        .clk_i(clk), .rst_i(rst),
        .s_csr_awaddr_i(awaddr), .s_csr_awprot_i(awprot),
        .s_csr_awvalid_i(awvalid), .s_csr_awready_o(awready),
        .s_csr_wdata_i(wdata), .s_csr_wstrb_i(wstrb),
        .s_csr_wvalid_i(wvalid), .s_csr_wready_o(wready),
        .s_csr_bresp_o(bresp), .s_csr_bvalid_o(bvalid), .s_csr_bready_i(bready),
        .s_csr_araddr_i(araddr), .s_csr_arprot_i(arprot),
        .s_csr_arvalid_i(arvalid), .s_csr_arready_o(arready),
        .s_csr_rdata_o(rdata), .s_csr_rresp_o(rresp),
        .s_csr_rvalid_o(rvalid), .s_csr_rready_i(rready),
        .idle_i(idle),
        .soft_rst_o(soft_rst),
        .irq_o(irq)
    );

    initial forever #5 clk = ~clk;

    integer cyc = 0;  // rising edges since time 0
    always @(posedge clk) cyc <= cyc + 1;

    // ---- random numbers: xorshift64*, the same stream in both simulators ------------------
    logic [63:0] rng_q = 64'h1;
    function automatic logic [31:0] rnd();
        rng_q = rng_q ^ (rng_q >> 12);
        rng_q = rng_q ^ (rng_q << 25);
        rng_q = rng_q ^ (rng_q >> 27);
        return 32'((rng_q * 64'h2545F4914F6CDD1D) >> 32);
    endfunction
    // Under Verilator 5.006 a case expression runs once per item and ?: runs both arms, so
    // rnd() and rnd_below() are only ever called in plain assignments, one per statement:
    // then both simulators draw the same stream and a seed replays the same test in each.
    function automatic integer rnd_below(input integer n);  // 0 .. n-1
        logic [31:0] r;
        r = rnd() % 32'(n);
        return $signed(r);
    endfunction

    // ---- TAP ------------------------------------------------------------------------------
    integer n_tests = 0;
    integer n_fail = 0;
    task automatic check(input logic cond, input string name);
        n_tests = n_tests + 1;
        if (cond) $display("ok %0d - %s", n_tests, name);
        else begin
            $display("not ok %0d - %s", n_tests, name);
            n_fail = n_fail + 1;
        end
    endtask
    // Diagnostics for the first few failures of a check; later ones are only counted.
    integer n_notes = 0;
    task automatic note(input string msg);
        n_notes = n_notes + 1;
        if (n_notes <= 40) $display("#   %s (cycle %0d)", msg, cyc);
    endtask

    // ---- AXI4-Lite master -----------------------------------------------------------------
    // axil_run issues up to QMAX writes and QMAX reads at once: the AW, W and AR streams each
    // go in order, independently, each item after its own gap, without waiting for responses;
    // B and R are taken in order with BREADY/RREADY stalled at random.
    localparam integer QMAX = 8;
    integer stall_pct = 0;  // chance in percent that BREADY/RREADY is low in a cycle
    integer max_dly = 0;    // largest random gap before AWVALID, WVALID, ARVALID
    integer hook_step = -1; // axil_run raises idle_i at this step (set/clear races)
    logic        hung = 1'b0;  // a transaction timed out; later ones are skipped
    integer      q_nw = 0, q_nr = 0;
    logic [15:0] q_wa [0:QMAX-1];
    logic [31:0] q_wd [0:QMAX-1];
    logic [3:0]  q_ws [0:QMAX-1];
    integer      q_aw_gap [0:QMAX-1];
    integer      q_w_gap [0:QMAX-1];
    logic [15:0] q_ra [0:QMAX-1];
    integer      q_ar_gap [0:QMAX-1];
    logic [1:0]  q_bresp [0:QMAX-1];
    logic [1:0]  q_rresp [0:QMAX-1];
    logic [31:0] q_rdata [0:QMAX-1];
    logic        x_overlap;  // a read address was taken while a write response was due
    logic        x_rpipe;    // a read address was taken while an earlier read was unanswered
    logic        x_extra;    // a response came that nothing asked for
    logic        x_done;     // every response came
    // Results of a single write and/or read (axil_xfer, axil_write, axil_read).
    logic        x_bseen, x_rseen;
    logic [1:0]  x_bresp, x_rresp;
    logic [31:0] x_rdata;

    // Call and return at a falling edge; every VALID and READY is low on return.
    task automatic axil_run;
        integer step, r, aw_i, w_i, ar_i, b_i, r_i, aw_wait, w_wait, ar_wait;
        aw_i = 0;
        w_i = 0;
        ar_i = 0;
        b_i = 0;
        r_i = 0;
        aw_wait = q_aw_gap[0];
        w_wait = q_w_gap[0];
        ar_wait = q_ar_gap[0];
        x_overlap = 1'b0;
        x_rpipe = 1'b0;
        x_extra = 1'b0;
        step = 0;
        while (!hung && (b_i < q_nw || r_i < q_nr || step <= hook_step)) begin
            if (step == hook_step) idle = 1'b1;
            // Payload is random junk while VALID is low: the DUT must not take it.
            awvalid = aw_i < q_nw && aw_wait == 0;
            awaddr = 16'(rnd());
            if (awvalid) awaddr = q_wa[aw_i];
            awprot = 3'(rnd());
            wvalid = w_i < q_nw && w_wait == 0;
            wdata = rnd();
            wstrb = 4'(rnd());
            if (wvalid) begin
                wdata = q_wd[w_i];
                wstrb = q_ws[w_i];
            end
            arvalid = ar_i < q_nr && ar_wait == 0;
            araddr = 16'(rnd());
            if (arvalid) araddr = q_ra[ar_i];
            arprot = 3'(rnd());
            r = rnd_below(100);
            bready = r >= stall_pct;
            r = rnd_below(100);
            rready = r >= stall_pct;
            @(posedge clk);
            if (awvalid && awready) begin
                aw_i = aw_i + 1;
                if (aw_i < q_nw) aw_wait = q_aw_gap[aw_i];
            end else if (aw_wait > 0) aw_wait = aw_wait - 1;
            if (wvalid && wready) begin
                w_i = w_i + 1;
                if (w_i < q_nw) w_wait = q_w_gap[w_i];
            end else if (w_wait > 0) w_wait = w_wait - 1;
            if (arvalid && arready) begin
                if (b_i < q_nw) x_overlap = 1'b1;
                if (r_i < ar_i) x_rpipe = 1'b1;
                ar_i = ar_i + 1;
                if (ar_i < q_nr) ar_wait = q_ar_gap[ar_i];
            end else if (ar_wait > 0) ar_wait = ar_wait - 1;
            if (bvalid && bready) begin
                if (b_i >= q_nw) x_extra = 1'b1;
                else q_bresp[b_i] = bresp;
                b_i = b_i + 1;
            end
            if (rvalid && rready) begin
                if (r_i >= q_nr) x_extra = 1'b1;
                else begin
                    q_rresp[r_i] = rresp;
                    q_rdata[r_i] = rdata;
                end
                r_i = r_i + 1;
            end
            step = step + 1;
            if (step > XFER_TIMEOUT) begin
                hung = 1'b1;
                note($sformatf("transaction timed out: %0d/%0d writes, %0d/%0d reads answered",
                               b_i, q_nw, r_i, q_nr));
            end
            @(negedge clk);
        end
        awvalid = 1'b0;
        wvalid = 1'b0;
        arvalid = 1'b0;
        bready = 1'b0;
        rready = 1'b0;
        x_done = b_i == q_nw && r_i == q_nr;
        if (x_extra) note("response without a request");
    endtask

    // One write, one read, or both at once, each after its own delay.
    task automatic axil_xfer(input logic do_w, input logic [15:0] wa, input logic [31:0] wd,
                             input logic [3:0] ws, input logic do_r, input logic [15:0] ra,
                             input integer aw_dly, input integer w_dly, input integer ar_dly);
        q_nw = do_w ? 1 : 0;
        q_nr = do_r ? 1 : 0;
        q_wa[0] = wa;
        q_wd[0] = wd;
        q_ws[0] = ws;
        q_ra[0] = ra;
        q_aw_gap[0] = aw_dly;
        q_w_gap[0] = w_dly;
        q_ar_gap[0] = ar_dly;
        q_bresp[0] = 2'bxx;
        q_rresp[0] = 2'bxx;
        q_rdata[0] = 32'hxxxxxxxx;
        axil_run();
        x_bseen = do_w && x_done;
        x_rseen = do_r && x_done;
        x_bresp = q_bresp[0];
        x_rresp = q_rresp[0];
        x_rdata = q_rdata[0];
    endtask

    task automatic axil_write(input logic [15:0] a, input logic [31:0] d, input logic [3:0] s);
        integer aw_dly, w_dly;
        aw_dly = rnd_below(max_dly + 1);
        w_dly = rnd_below(max_dly + 1);
        axil_xfer(1'b1, a, d, s, 1'b0, 16'h0, aw_dly, w_dly, 0);
    endtask
    task automatic axil_read(input logic [15:0] a);
        integer ar_dly;
        ar_dly = rnd_below(max_dly + 1);
        axil_xfer(1'b0, 16'h0, 32'h0, 4'h0, 1'b1, a, 0, 0, ar_dly);
    endtask

    task automatic cycles(input integer n);
        repeat (n) @(negedge clk);
    endtask

    // ---- reference model of the registers -------------------------------------------------
    logic [31:0] m_scratch = 32'h0;
    logic        m_enable = 1'b0;
    logic        m_state = 1'b0;

    function automatic logic is_reg(input logic [15:0] a);
        case (a & 16'hFFFC)
            A_ID_MAGIC, A_ID_VERSION, A_ID_CAPS, A_ID_REGMAP, A_ID_BUILD, A_SCRATCH,
            A_RESET_CTRL, A_IRQ_STATE, A_IRQ_ENABLE, A_IRQ_TEST: return 1'b1;
            default: return 1'b0;
        endcase
    endfunction

    function automatic logic [15:0] reg_at(input integer k);  // the k-th register, 0..9
        case (k)
            0: return A_ID_MAGIC;   1: return A_ID_VERSION; 2: return A_ID_CAPS;
            3: return A_ID_REGMAP;  4: return A_ID_BUILD;   5: return A_SCRATCH;
            6: return A_RESET_CTRL; 7: return A_IRQ_STATE;  8: return A_IRQ_ENABLE;
            default: return A_IRQ_TEST;
        endcase
    endfunction

    // A random word-aligned address that decodes to no register.
    function automatic logic [15:0] rnd_hole();
        logic [15:0] a;
        a = 16'(rnd()) & 16'hFFFC;
        while (is_reg(a)) a = 16'(rnd()) & 16'hFFFC;
        return a;
    endfunction

    // A random write for the random mix: any register but RESET_CTRL, a hole, or a partial
    // strobe; data often has bit 0 set, the bit that matters in the IRQ registers.
    task automatic pick_write(output logic [15:0] a, output logic [31:0] d,
                              output logic [3:0] s);
        integer r;
        s = 4'hF;
        d = rnd();
        if (rnd_below(8) == 0) d = {31'(rnd()), 1'b1};
        r = rnd_below(10);
        case (r)
            0, 1:    a = A_SCRATCH;
            2:       a = A_IRQ_ENABLE;
            3:       a = A_IRQ_TEST;
            4:       a = A_IRQ_STATE;
            5:       a = 16'(rnd_below(5) * 4);
            6:       a = rnd_hole();
            7:       begin a = A_SCRATCH; s = 4'(rnd_below(15)); end
            default: begin
                a = A_IRQ_STATE;
                if (rnd_below(2) == 0) a = A_IRQ_TEST;
            end
        endcase
    endtask
    // A random read address: any register, or a hole.
    task automatic pick_read(output logic [15:0] a);
        integer r;
        r = rnd_below(80);
        if (r >= 70) a = rnd_hole();
        else a = reg_at(r / 7);
    endtask

    // Value the model says a read of a returns (0 for a hole).
    function automatic logic [31:0] m_read(input logic [15:0] a);
        case (a & 16'hFFFC)
            A_ID_MAGIC:   return MAGIC;
            A_ID_VERSION: return VERSION;
            A_ID_CAPS:    return 32'h0;
            A_ID_REGMAP:  return EXP_REGMAP;
            A_ID_BUILD:   return {BOARD_ID, BUILD_STAMP};
            A_SCRATCH:    return m_scratch;
            A_IRQ_STATE:  return {31'h0, m_state};
            A_IRQ_ENABLE: return {31'h0, m_enable};
            default:      return 32'h0;  // RESET_CTRL, IRQ_TEST read zero; holes too
        endcase
    endfunction

    function automatic logic [1:0] m_resp(input logic [15:0] a, input logic we,
                                          input logic [3:0] s);
        if (!is_reg(a)) return SLVERR;
        if (we && s != 4'hF) return SLVERR;
        return OKAY;
    endfunction

    // Applies a write to the model. A RESET_CTRL.CORE write is left to the caller, which
    // waits for the soft reset and then calls m_soft_reset.
    function automatic void m_write(input logic [15:0] a, input logic [31:0] d,
                                    input logic [3:0] s);
        if (m_resp(a, 1'b1, s) == OKAY) begin
            case (a & 16'hFFFC)
                A_SCRATCH:    m_scratch = d;
                A_IRQ_ENABLE: m_enable = d[0];
                A_IRQ_STATE:  if (d[0]) m_state = 1'b0;
                A_IRQ_TEST:   if (d[0]) m_state = 1'b1;
                default: ;
            endcase
        end
    endfunction

    function automatic void m_soft_reset();
        m_scratch = 32'h0;
        m_enable = 1'b0;
        m_state = 1'b1;  // RESET_DONE, once the sequence completed
    endfunction

    // Write through the model; returns 1 when the response matched it.
    task automatic wr(input logic [15:0] a, input logic [31:0] d, input logic [3:0] s,
                      output logic ok);
        logic [1:0] exp;
        exp = m_resp(a, 1'b1, s);
        axil_write(a, d, s);
        m_write(a, d, s);
        ok = x_bseen && x_bresp == exp && !x_extra;
        if (!ok) note($sformatf("write %04x=%08x strb %x: bresp %b, model %b", a, d, s,
                                x_bresp, exp));
    endtask
    // Read checked against the model; returns 1 when response and data matched.
    task automatic rd(input logic [15:0] a, output logic ok);
        logic [31:0] exp_d;
        logic [1:0] exp_r;
        exp_d = m_read(a);
        exp_r = m_resp(a, 1'b0, 4'h0);
        axil_read(a);
        ok = x_rseen && x_rresp == exp_r && x_rdata == exp_d && !x_extra;
        if (!ok) note($sformatf("read %04x: %08x resp %b, model %08x resp %b", a, x_rdata,
                                x_rresp, exp_d, exp_r));
    endtask

    // Waits until lvl is seen on a signal chosen by sel (0 irq, 1 soft_rst), at most n cycles;
    // returns the cycles waited, or -1.
    task automatic wait_for(input integer sel, input logic lvl, input integer n,
                            output integer waited);
        integer i;
        waited = -1;
        for (i = 0; i <= n && waited < 0; i = i + 1) begin
            if ((sel == 0 ? irq : soft_rst) === lvl) waited = i;
            else @(negedge clk);
        end
    endtask

    // ---- protocol monitor (every rising edge) ---------------------------------------------
    logic        p_b_hold = 1'b0, p_r_hold = 1'b0;
    logic [1:0]  p_bresp = 2'b00, p_rresp = 2'b00;
    logic [31:0] p_rdata = 32'h0;
    integer      n_aw = 0, n_w = 0, n_ar = 0, n_b = 0, n_r = 0;
    integer      err_b_hold = 0, err_r_hold = 0, err_order = 0, err_x = 0;
    integer      n_soft = 0;  // rising edges with soft_rst_o high
    // irq_o is a registered level: in each cycle it equals IRQ_STATE & IRQ_ENABLE of the
    // cycle before (csr_irq contract), probed inside the register file.
    logic        p_irq_exp = 1'b0, p_irq_ok = 1'b0;
    integer      err_irq_lag = 0;
    always @(posedge clk) begin
        p_irq_exp <= dut.u_regs.irq_state_reset_done_q & dut.u_regs.irq_enable_reset_done_q;
        p_irq_ok <= !rst;
        if (p_irq_ok && irq !== p_irq_exp) err_irq_lag <= err_irq_lag + 1;
        if (!rst) begin
            if (soft_rst === 1'b1) n_soft <= n_soft + 1;
            if ((^{awready, wready, bvalid, arready, rvalid, irq, soft_rst}) === 1'bx ||
                (bvalid && (^bresp) === 1'bx) || (rvalid && (^{rdata, rresp}) === 1'bx))
                err_x <= err_x + 1;
            if (p_b_hold && (!bvalid || bresp != p_bresp)) err_b_hold <= err_b_hold + 1;
            if (p_r_hold && (!rvalid || rresp != p_rresp || rdata != p_rdata))
                err_r_hold <= err_r_hold + 1;
            if (awvalid && awready) n_aw <= n_aw + 1;
            if (wvalid && wready) n_w <= n_w + 1;
            if (arvalid && arready) n_ar <= n_ar + 1;
            // A response needs a request taken at an earlier edge.
            if (bvalid && bready) begin
                n_b <= n_b + 1;
                if (n_b >= n_aw || n_b >= n_w) err_order <= err_order + 1;
            end
            if (rvalid && rready) begin
                n_r <= n_r + 1;
                if (n_r >= n_ar) err_order <= err_order + 1;
            end
        end
        p_b_hold <= !rst && bvalid && !bready;
        p_r_hold <= !rst && rvalid && !rready;
        p_bresp <= bresp;
        p_rresp <= rresp;
        p_rdata <= rdata;
    end

    // White-box probe for the set/clear races: the cycles in which RESET_DONE's hardware set
    // fired and in which a W1C clear of IRQ_STATE reached the register file.
    integer last_set_cyc = -1, last_clr_cyc = -1;
    always @(posedge clk) begin
        if (dut.u_regs.irq_state_reset_done_set_i) last_set_cyc <= cyc;
        if (dut.u_regs.req_i && dut.u_regs.we_i && !dut.u_regs.err_o &&
            dut.u_regs.addr_i[15:2] == 14'h10 && dut.u_regs.wdata_i[0])
            last_clr_cyc <= cyc;
    end

    // ---- the checks -----------------------------------------------------------------------
    integer seed = 1;
    string  wave;
    initial begin : watchdog
        #(20000000);
        $display("Bail out! watchdog: simulation ran too long (seed=%0d)", seed);
        $fatal(1, "watchdog");
    end

    initial begin : main
        logic ok, ok2, all;
        logic [31:0] exp, d;
        logic [15:0] a, ra;
        logic [3:0] s;
        integer i, k, w, n, r, hold, bad_d, bad_r, bad_irq, bad_ovl, n_ovl, n_pipe, n_aligned, n_lost;
        logic [31:0] acc [0:QMAX*(QMAX+1)-1];
        logic before_ok;
        logic [31:0] before_v;

        if (!$value$plusargs("seed=%d", seed)) seed = 1;
        if ($value$plusargs("wave=%s", wave)) begin
            $dumpfile(wave);
            $dumpvars(0, tb_csr_block);
        end
        // splitmix64 of the seed: nearby seeds give unrelated streams, never the zero state.
        rng_q = 64'(seed) + 64'h9E3779B97F4A7C15;
        rng_q = (rng_q ^ (rng_q >> 30)) * 64'hBF58476D1CE4E5B9;
        rng_q = (rng_q ^ (rng_q >> 27)) * 64'h94D049BB133111EB;
        rng_q = rng_q ^ (rng_q >> 31);
        if (rng_q == 64'h0) rng_q = 64'h1;
        $display("1..%0d", PLAN);
        $display("# seed=%0d", seed);
        $display("# tb_csr_block: csr_block AddrBits=16 BoardId=0x%02x BuildStamp=0x%06x",
                 BOARD_ID, BUILD_STAMP);

        rst = 1'b1;
        cycles(5);
        rst = 1'b0;
        cycles(1);
        stall_pct = 30;
        max_dly = 3;

        // ---- reset values ----
        check(irq === 1'b0 && soft_rst === 1'b0, "after reset irq_o and soft_rst_o are low");
        rd(A_ID_MAGIC, ok);   check(ok, "reset value: ID_MAGIC reads 0x47505552 (OKAY)");
        rd(A_ID_VERSION, ok); check(ok, "reset value: ID_VERSION reads 0x00010000 (OKAY)");
        rd(A_ID_CAPS, ok);    check(ok, "reset value: ID_CAPS reads 0 (OKAY)");
        rd(A_ID_REGMAP, ok);
        if (!HAVE_REGMAP) note("REGMAP_HASH was not defined by the build");
        check(ok && HAVE_REGMAP == 1'b1,
              $sformatf("reset value: ID_REGMAP reads GR_REGMAP_HASH 0x%08x (OKAY)", EXP_REGMAP));
        rd(A_ID_BUILD, ok);   check(ok, "reset value: ID_BUILD reads {BoardId, BuildStamp} 0x5a123456");
        rd(A_SCRATCH, ok);    check(ok, "reset value: SCRATCH reads 0");
        rd(A_RESET_CTRL, ok); check(ok, "reset value: RESET_CTRL reads 0");
        rd(A_IRQ_STATE, ok);  check(ok, "reset value: IRQ_STATE reads 0");
        rd(A_IRQ_ENABLE, ok); check(ok, "reset value: IRQ_ENABLE reads 0");
        rd(A_IRQ_TEST, ok);   check(ok, "reset value: IRQ_TEST reads 0");

        // ---- read-only registers ignore writes ----
        for (k = 0; k < 5; k = k + 1) begin
            a = 16'(k * 4);
            exp = m_read(a);
            wr(a, ~exp, 4'hF, ok);
            rd(a, ok2);
            wr(a, 32'(rnd()), 4'hF, all);
            rd(a, before_ok);
            check(ok && ok2 && all && before_ok,
                  $sformatf("read-only 0x%03x keeps 0x%08x after writes of ~value and random (OKAY)",
                            a, exp));
        end

        // ---- SCRATCH ----
        all = 1'b1;
        for (i = 0; i < 32; i = i + 1) begin
            wr(A_SCRATCH, 32'h1 << i, 4'hF, ok);  all = all & ok;
            rd(A_SCRATCH, ok);                    all = all & ok;
        end
        check(all, "SCRATCH: walking ones round-trip");
        all = 1'b1;
        for (i = 0; i < 32; i = i + 1) begin
            wr(A_SCRATCH, ~(32'h1 << i), 4'hF, ok);  all = all & ok;
            rd(A_SCRATCH, ok);                       all = all & ok;
        end
        check(all, "SCRATCH: walking zeros round-trip");
        all = 1'b1;
        for (i = 0; i < 64; i = i + 1) begin
            wr(A_SCRATCH, rnd(), 4'hF, ok);  all = all & ok;
            rd(A_SCRATCH, ok);               all = all & ok;
        end
        check(all, "SCRATCH: 64 random values round-trip");

        // ---- holes ----
        wr(A_SCRATCH, 32'hC0FFEE11, 4'hF, ok);
        wr(A_IRQ_ENABLE, 32'h0, 4'hF, ok);
        for (k = 0; k < 4; k = k + 1) begin
            case (k)
                0: a = 16'h0014;
                1: a = 16'h0028;
                2: a = 16'h0100;
                default: a = 16'hFFFC;
            endcase
            all = 1'b1;
            rd(a, ok);                    all = all & ok & (x_rresp == SLVERR) & (x_rdata == 32'h0);
            wr(a, 32'hFFFFFFFF, 4'hF, ok); all = all & ok & (x_bresp == SLVERR);
            rd(A_SCRATCH, ok);            all = all & ok;
            rd(A_IRQ_STATE, ok);          all = all & ok;
            rd(A_IRQ_ENABLE, ok);         all = all & ok;
            check(all && soft_rst === 1'b0,
                  $sformatf("hole 0x%04x: read SLVERR with data 0, write SLVERR, nothing changes", a));
        end
        all = 1'b1;
        for (i = 0; i < 64; i = i + 1) begin
            a = rnd_hole();
            if (rnd_below(2) == 0) begin
                rd(a, ok);  all = all & ok & (x_rresp == SLVERR);
            end else begin
                wr(a, rnd(), 4'hF, ok);  all = all & ok & (x_bresp == SLVERR);
            end
        end
        rd(A_SCRATCH, ok);    all = all & ok;
        rd(A_IRQ_STATE, ok);  all = all & ok;
        rd(A_IRQ_ENABLE, ok); all = all & ok;
        check(all && soft_rst === 1'b0, "64 random holes: SLVERR on read and write, nothing changes");

        all = 1'b1;
        for (i = 0; i < 256; i = i + 1) begin
            rd(16'(i * 4), ok);
            all = all & ok;
        end
        check(all, "decode sweep 0x000-0x3fc: 10 registers read as the map, 246 holes SLVERR with data 0");
        all = 1'b1;
        for (i = 0; i < 256; i = i + 1) begin
            a = 16'(i * 4);
            if (!is_reg(a)) begin
                wr(a, 32'hFFFFFFFF, 4'hF, ok);
                all = all & ok;
            end
        end
        for (k = 0; k < 10; k = k + 1) begin
            rd(reg_at(k), ok);
            all = all & ok;
        end
        check(all && soft_rst === 1'b0 && irq === 1'b0,
              "write sweep: all ones to every hole in 0x000-0x3fc answers SLVERR, no register changes");

        // ---- partial strobes ----
        all = 1'b1;
        for (i = 0; i < 15; i = i + 1) begin
            wr(A_SCRATCH, ~m_scratch, 4'(i), ok);  all = all & ok & (x_bresp == SLVERR);
            rd(A_SCRATCH, ok);                     all = all & ok;
        end
        check(all, "SCRATCH: every partial strobe (0x0..0xe) answers SLVERR and changes nothing");
        all = 1'b1;
        wr(A_IRQ_TEST, 32'h1, 4'h1, ok);       all = all & ok & (x_bresp == SLVERR);
        wr(A_IRQ_ENABLE, 32'h1, 4'h7, ok);     all = all & ok & (x_bresp == SLVERR);
        wr(A_RESET_CTRL, 32'h1, 4'hE, ok);     all = all & ok & (x_bresp == SLVERR);
        wr(A_ID_MAGIC, 32'h0, 4'h3, ok);       all = all & ok & (x_bresp == SLVERR);
        cycles(4);
        all = all & (soft_rst === 1'b0) & (irq === 1'b0);
        rd(A_IRQ_STATE, ok);   all = all & ok;
        rd(A_IRQ_ENABLE, ok);  all = all & ok;
        rd(A_SCRATCH, ok);     all = all & ok;
        check(all, "partial-strobe writes to IRQ_TEST, IRQ_ENABLE, RESET_CTRL, ID_MAGIC answer SLVERR, no effect");

        // addr[1:0] are ignored by the register file (csr_regs contract).
        all = 1'b1;
        wr(A_SCRATCH | 16'h3, 32'h5A5AA5A5, 4'hF, ok);  all = all & ok;
        rd(A_SCRATCH, ok);                             all = all & ok;
        rd(A_SCRATCH | 16'h1, ok);                     all = all & ok;
        rd(A_ID_MAGIC | 16'h2, ok);                    all = all & ok;
        check(all, "address bits [1:0] are ignored (SCRATCH at 0x023, ID_MAGIC at 0x002)");

        // ---- reserved bits read zero ----
        wr(A_IRQ_ENABLE, 32'hFFFFFFFF, 4'hF, ok);
        rd(A_IRQ_ENABLE, ok2);
        check(ok && ok2 && x_rdata == 32'h1, "IRQ_ENABLE: all ones written reads 0x1");
        wr(A_IRQ_ENABLE, 32'h0, 4'hF, ok);
        wr(A_IRQ_TEST, 32'hFFFFFFFF, 4'hF, ok);
        rd(A_IRQ_TEST, ok2);
        check(ok && ok2 && x_rdata == 32'h0, "IRQ_TEST: reads 0 after writing all ones");
        wr(A_IRQ_STATE, 32'hFFFFFFFE, 4'hF, ok);  // bit 0 clear: nothing to clear
        rd(A_IRQ_STATE, ok2);
        check(ok && ok2 && x_rdata == 32'h1,
              "IRQ_STATE: reserved bits read 0 (set, then 0xfffffffe written, reads 0x1)");
        w = 0;
        wr(A_RESET_CTRL, 32'hFFFFFFFE, 4'hF, ok);
        for (i = 0; i < 4; i = i + 1) begin
            if (soft_rst !== 1'b0) w = 1;
            @(negedge clk);
        end
        rd(A_RESET_CTRL, ok2);
        check(ok && ok2 && x_rdata == 32'h0 && w == 0,
              "RESET_CTRL: reads 0 after 0xfffffffe written, and no soft reset");

        // ---- interrupts ----
        wr(A_IRQ_STATE, 32'h1, 4'hF, ok);
        rd(A_IRQ_STATE, ok2);
        all = ok & ok2 & (x_rdata == 32'h0);
        wr(A_IRQ_TEST, 32'h1, 4'hF, ok);  all = all & ok;
        rd(A_IRQ_STATE, ok);              all = all & ok;
        check(all && x_rdata == 32'h1, "IRQ_TEST write 1 sets IRQ_STATE.RESET_DONE");
        hold = 0;
        for (i = 0; i < 20; i = i + 1) begin
            if (irq !== 1'b0) hold = hold + 1;
            @(negedge clk);
        end
        check(hold == 0, "irq_o stays low while IRQ_STATE=1 and IRQ_ENABLE=0");
        axil_write(A_IRQ_ENABLE, 32'h1, 4'hF);
        ok = x_bresp == OKAY;
        m_write(A_IRQ_ENABLE, 32'h1, 4'hF);
        wait_for(0, 1'b1, 2, w);
        check(ok && w >= 0, $sformatf("irq_o rises within 2 cycles of the IRQ_ENABLE write response (%0d)", w));
        wr(A_IRQ_STATE, 32'h0, 4'hF, ok);
        rd(A_IRQ_STATE, ok2);
        cycles(2);
        check(ok && ok2 && x_rdata == 32'h1 && irq === 1'b1,
              "writing 0 to IRQ_STATE leaves it set and irq_o high");
        wr(A_IRQ_ENABLE, 32'h0, 4'hF, ok);
        wait_for(0, 1'b0, 2, w);
        rd(A_IRQ_STATE, ok2);
        all = ok & ok2 & (w >= 0);
        wr(A_IRQ_ENABLE, 32'h1, 4'hF, ok);
        wait_for(0, 1'b1, 2, k);
        check(all && ok && k >= 0, "clearing IRQ_ENABLE drops irq_o with IRQ_STATE kept; setting it raises irq_o again");
        axil_write(A_IRQ_STATE, 32'h1, 4'hF);
        ok = x_bresp == OKAY;
        m_write(A_IRQ_STATE, 32'h1, 4'hF);
        wait_for(0, 1'b0, 2, w);
        rd(A_IRQ_STATE, ok2);
        check(ok && ok2 && w >= 0 && x_rdata == 32'h0,
              $sformatf("writing 1 to IRQ_STATE clears it and irq_o falls within 2 cycles (%0d)", w));

        // ---- soft reset, idle_i low for a while ----
        wr(A_SCRATCH, 32'hDEADBEEF, 4'hF, ok);
        wr(A_IRQ_ENABLE, 32'h1, 4'hF, ok);
        idle = 1'b0;
        wr(A_RESET_CTRL, 32'h1, 4'hF, ok);
        wait_for(1, 1'b1, 3, w);
        check(ok && w >= 0, "RESET_CTRL.CORE=1 raises soft_rst_o within 3 cycles of the response");
        n = 5 + rnd_below(36);
        hold = 0;
        for (i = 0; i < n; i = i + 1) begin
            if (soft_rst !== 1'b1) hold = hold + 1;
            @(negedge clk);
        end
        // The port keeps answering during the reset; registers read their reset values.
        all = 1'b1;
        axil_read(A_ID_MAGIC);  all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == MAGIC);
        axil_read(A_SCRATCH);   all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == 32'h0);
        axil_read(A_IRQ_STATE); all = all & x_rseen & (x_rresp == OKAY) & (x_rdata == 32'h0);
        if (soft_rst !== 1'b1) hold = hold + 1;
        check(hold == 0, $sformatf("soft_rst_o stays high while idle_i is low (%0d+ cycles)", n));
        check(all, "CSR port answers reads during soft reset with reset values");
        idle = 1'b1;
        wait_for(1, 1'b0, 2, w);
        check(w >= 0, $sformatf("soft_rst_o falls within 2 cycles of idle_i rising (%0d)", w));
        m_soft_reset();
        cycles(2);
        rd(A_IRQ_STATE, ok);
        check(ok, "after soft reset IRQ_STATE.RESET_DONE reads 1");
        rd(A_SCRATCH, ok);
        rd(A_IRQ_ENABLE, ok2);
        check(ok && ok2 && irq === 1'b0, "after soft reset SCRATCH and IRQ_ENABLE are back at 0, irq_o low");
        wr(A_IRQ_ENABLE, 32'h1, 4'hF, ok);
        wait_for(0, 1'b1, 2, w);
        wr(A_IRQ_STATE, 32'h1, 4'hF, ok2);
        wait_for(0, 1'b0, 2, k);
        check(ok && ok2 && w >= 0 && k >= 0, "RESET_DONE raises irq_o once enabled; W1C drops it");
        wr(A_IRQ_ENABLE, 32'h0, 4'hF, ok);

        // ---- soft reset with idle_i already high ----
        wr(A_SCRATCH, 32'h12345678, 4'hF, ok);
        n = n_soft;
        wr(A_RESET_CTRL, 32'h1, 4'hF, ok2);
        cycles(6);
        hold = n_soft - n;
        m_soft_reset();
        rd(A_IRQ_STATE, all);
        rd(A_SCRATCH, ok);
        check(ok && ok2 && all && hold >= 1 && hold <= 2,
              $sformatf("soft reset with idle_i high: %0d cycle(s) of soft_rst_o, RESET_DONE set, SCRATCH 0", hold));
        wr(A_IRQ_STATE, 32'h1, 4'hF, ok);

        // ---- hardware set vs W1C clear in the same cycle ----
        // The RESET_DONE set fires in the cycle after idle_i rises; the TB starts the clear
        // write -3..+3 cycles from that (0 lines the two up; the first 8 races use 0). The
        // probe tells in which cycles they reached the register file: a clear strictly after
        // the set must leave 0, any other order must leave 1.
        n_aligned = 0;
        n_lost = 0;
        bad_d = 0;
        for (i = 0; i < RACES && !hung; i = i + 1) begin
            k = rnd_below(7) - 3;
            if (i < 8) k = 0;
            idle = 1'b0;
            wr(A_RESET_CTRL, 32'h1, 4'hF, ok);
            wait_for(1, 1'b1, 4, w);
            if (!ok || w < 0) bad_d = bad_d + 1;
            cycles(rnd_below(3));
            n = cyc;
            hook_step = (k < 0) ? -k : 0;
            axil_xfer(1'b1, A_IRQ_STATE, 32'h1, 4'hF, 1'b0, 16'h0, (k > 0) ? k : 0,
                      (k > 0) ? k : 0, 0);
            hook_step = -1;
            cycles(3);
            if (last_set_cyc < n || last_clr_cyc < n) begin
                bad_d = bad_d + 1;
                note($sformatf("race %0d: set or clear not seen (set %0d clear %0d start %0d)",
                               i, last_set_cyc, last_clr_cyc, n));
            end
            if (last_set_cyc == last_clr_cyc) n_aligned = n_aligned + 1;
            m_soft_reset();
            if (last_clr_cyc > last_set_cyc) m_state = 1'b0;
            rd(A_IRQ_STATE, ok);
            if (!ok) begin
                n_lost = n_lost + 1;
                if (last_set_cyc == last_clr_cyc) bad_d = bad_d + 1;
                note($sformatf("race %0d offset %0d: set at %0d clear at %0d, IRQ_STATE %08x",
                               i, k, last_set_cyc, last_clr_cyc, x_rdata));
            end
            wr(A_IRQ_STATE, 32'h1, 4'hF, ok);
        end
        idle = 1'b1;
        check(bad_d == 0 && n_aligned >= 8,
              $sformatf("hardware set wins over a W1C clear in the same cycle (%0d aligned races)", n_aligned));
        check(n_lost == 0, $sformatf("no RESET_DONE set lost or wrongly kept over %0d set/clear races", RACES));

        // ---- random mixed accesses against the model ----
        // Kinds of operation: a single read; a single write; a write and a read issued
        // together (either may go first); a pipelined batch of up to 4 writes and 4 reads
        // (several reads in flight); a soft reset. Reads that race writes may return the
        // state after any number of the batch's writes, but never go back in time.
        bad_d = 0;
        bad_r = 0;
        bad_irq = 0;
        bad_ovl = 0;
        n_ovl = 0;
        n_pipe = 0;
        for (i = 0; i < RANDOM_OPS && !hung; i = i + 1) begin
            if (i % 250 == 0) begin
                stall_pct = rnd_below(90);
                if ((i / 250) % 4 == 0) stall_pct = 0;
                max_dly = rnd_below(6);
            end
            k = rnd_below(100);
            if (k < 30) begin
                pick_read(a);
                axil_read(a);
                if (x_rresp != m_resp(a, 1'b0, 4'h0)) bad_r = bad_r + 1;
                if (x_rdata != m_read(a)) begin
                    bad_d = bad_d + 1;
                    note($sformatf("op %0d read %04x: %08x, model %08x", i, a, x_rdata, m_read(a)));
                end
            end else if (k < 60) begin
                pick_write(a, d, s);
                axil_write(a, d, s);
                if (x_bresp != m_resp(a, 1'b1, s)) begin
                    bad_r = bad_r + 1;
                    note($sformatf("op %0d write %04x strb %x: bresp %b", i, a, s, x_bresp));
                end
                m_write(a, d, s);
            end else if (k < 78) begin
                pick_write(a, d, s);
                ra = 16'(rnd()) & 16'hFFFC;
                if (rnd_below(4) != 0) ra = a & 16'hFFFC;
                if (rnd_below(3) == 0) ra = A_IRQ_STATE;
                before_v = m_read(ra);
                exp = 32'(m_resp(ra, 1'b0, 4'h0));
                k = rnd_below(max_dly + 1);
                n = rnd_below(max_dly + 1);
                r = rnd_below(max_dly + 3);
                axil_xfer(1'b1, a, d, s, 1'b1, ra, k, n, r);
                if (x_bresp != m_resp(a, 1'b1, s) || x_rresp != exp[1:0] || x_extra)
                    bad_r = bad_r + 1;
                m_write(a, d, s);
                if (x_overlap) n_ovl = n_ovl + 1;
                if (x_rdata != before_v && x_rdata != m_read(ra)) begin
                    bad_ovl = bad_ovl + 1;
                    note($sformatf("op %0d read %04x with write %04x=%08x: %08x, model %08x or %08x",
                                   i, ra, a, d, x_rdata, before_v, m_read(ra)));
                end
            end else if (k < 98) begin
                q_nw = rnd_below(5);
                q_nr = 1 + rnd_below(4);
                for (w = 0; w < q_nw; w = w + 1) begin
                    pick_write(a, d, s);
                    q_wa[w] = a;
                    q_wd[w] = d;
                    q_ws[w] = s;
                    q_aw_gap[w] = rnd_below(max_dly + 1);
                    q_w_gap[w] = rnd_below(max_dly + 1);
                end
                for (w = 0; w < q_nr; w = w + 1) begin
                    pick_read(a);
                    if (rnd_below(3) == 0 && q_nw > 0) a = q_wa[0];
                    q_ra[w] = a;
                    q_ar_gap[w] = rnd_below(max_dly + 1);
                end
                // acc[r*(QMAX+1)+j]: what read r returns after the batch's first j writes.
                for (w = 0; w <= q_nw; w = w + 1) begin
                    for (r = 0; r < q_nr; r = r + 1) acc[r * (QMAX + 1) + w] = m_read(q_ra[r]);
                    if (w < q_nw) m_write(q_wa[w], q_wd[w], q_ws[w]);
                end
                axil_run();
                if (!x_done || x_extra) bad_r = bad_r + 1;
                for (w = 0; w < q_nw; w = w + 1)
                    if (q_bresp[w] != m_resp(q_wa[w], 1'b1, q_ws[w])) bad_r = bad_r + 1;
                if (x_overlap) n_ovl = n_ovl + 1;
                if (x_rpipe) n_pipe = n_pipe + 1;
                n = 0;  // earliest prefix the next read may show (reads do not go back in time)
                for (r = 0; r < q_nr; r = r + 1) begin
                    if (q_rresp[r] != m_resp(q_ra[r], 1'b0, 4'h0)) bad_r = bad_r + 1;
                    hold = -1;
                    for (w = q_nw; w >= n; w = w - 1)
                        if (q_rdata[r] == acc[r * (QMAX + 1) + w]) hold = w;
                    if (hold < 0) begin
                        bad_ovl = bad_ovl + 1;
                        note($sformatf("op %0d batch %0dw/%0dr: read %0d of %04x: %08x, not a state after %0d..%0d writes",
                                       i, q_nw, q_nr, r, q_ra[r], q_rdata[r], n, q_nw));
                    end else n = hold;
                end
            end else begin
                // Soft reset (idle_i high): wait for it to complete before the next access.
                d = 32'h1;
                if (rnd_below(3) == 0) d = 32'h0;
                axil_write(A_RESET_CTRL, d, 4'hF);
                if (x_bresp != OKAY) bad_r = bad_r + 1;
                cycles(4);
                if (d[0]) m_soft_reset();
            end
            if (rnd_below(10) == 0) begin
                cycles(2);
                if (irq !== (m_state & m_enable)) begin
                    bad_irq = bad_irq + 1;
                    note($sformatf("op %0d: irq_o %b, model state %b enable %b", i, irq,
                                   m_state, m_enable));
                end
            end
        end
        check(bad_d == 0, $sformatf("random mix: %0d operations, every lone read matches the model", RANDOM_OPS));
        check(bad_r == 0, "random mix: every response (OKAY/SLVERR) matches the model, none missing or extra");
        check(bad_ovl == 0, "random mix: reads racing writes return a state the writes passed through, in order");
        check(n_ovl >= 50, $sformatf("random mix: reads really overlapped writes (%0d times)", n_ovl));
        check(n_pipe >= 50, $sformatf("random mix: two or more reads really in flight at once (%0d times)", n_pipe));
        check(bad_irq == 0, "random mix: irq_o equals IRQ_STATE & IRQ_ENABLE when quiet");

        // ---- protocol ----
        cycles(2);
        check(err_b_hold == 0, "protocol: BVALID never drops before BREADY, BRESP stable while stalled");
        check(err_r_hold == 0, "protocol: RVALID never drops before RREADY, RDATA/RRESP stable while stalled");
        check(err_order == 0 && n_b == n_aw && n_b == n_w && n_r == n_ar,
              $sformatf("protocol: one response per request, never early (%0d writes, %0d reads)",
                        n_b, n_r));
        check(err_x == 0, "protocol: no X/Z on outputs after reset");
        check(err_irq_lag == 0, "irq_o equals IRQ_STATE & IRQ_ENABLE of the cycle before, every cycle");
        check(!hung, "no transaction timed out");

        if (n_tests != PLAN) begin
            $display("# planned %0d checks, ran %0d", PLAN, n_tests);
            n_fail = n_fail + 1;
        end
        $display("# %0d of %0d checks failed (seed=%0d, %0d cycles)", n_fail, n_tests, seed, cyc);
        if (n_fail != 0) $fatal(1, "tb_csr_block: %0d check(s) failed, seed=%0d", n_fail, seed);
        $finish;
    end
endmodule
`default_nettype wire
