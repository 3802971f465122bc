// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_dma_axi_mem: the AXI4 slave side of one memory port for the DMA testbenches (for Icarus
// 11 and for Verilator 5.006 --timing). The bytes live in the testbench: each accepted W beat is handed
// out on wr_* (the testbench applies it at that clock edge) and R data comes in on rd_data_i
// for the beat address rd_addr_o. The first violation's text is `first` (read it
// hierarchically: Icarus 11 has no string ports).
// Behaviour: AW/AR taken into queues (at most MaxOut reads and MaxOut writes outstanding), W
// beats taken into a queue of 32 whether their AW is in or not and matched to AWs in order
// (one beat applied per cycle), B after a burst's last beat and R bursts in order, each after
// 0..max_lat_i cycles; READYs low and R gaps on stall_pct_i percent of cycles, each READY stall
// lasting 1..stall_run_i cycles (0 and 1: one); responses DECERR outside [Base, Base + Bytes).
// order_i picks the write order a legal AXI slave may impose (IHI0022 A3.3.1): 0 any (AW and W
// independent), 1 AWREADY only once a W beat of the burst is in, 2 AWREADY only once the
// burst's WLAST is in, 3 WREADY only once the burst's AW is in. A master that waits for AWREADY
// before WVALID hangs on 1 and 2. The random stream is this model's own (seed_i).
// Checks of the master (counted in violations_o, the first described in first_o): INCR bursts
// of 8-byte beats, at most 16, 8-byte aligned, never across 4 KiB; VALID and payload held
// until READY; WLAST on the last beat only; WSTRB 0xff or 0x00. max_reads_o is the most reads
// ever outstanding at once; w_early_o counts the bursts whose first W beat came before their AW.
module tb_dma_axi_mem #(
    parameter integer AddrBits = 64,
    parameter integer IdBits   = 4,
    parameter [63:0]  Base     = 64'h0,
    parameter integer Bytes    = 65536,
    parameter integer MaxOut   = 8
) (
    input  wire                clk,
    input  wire                rst,
    input  wire [31:0]         seed_i,
    input  wire [6:0]          stall_pct_i,
    input  wire [7:0]          max_lat_i,
    input  wire [1:0]          order_i,
    input  wire [7:0]          stall_run_i,
    input  wire [IdBits-1:0]   awid,
    input  wire [AddrBits-1:0] awaddr,
    input  wire [7:0]          awlen,
    input  wire [2:0]          awsize,
    input  wire [1:0]          awburst,
    input  wire                awvalid,
    output logic               awready,
    input  wire [63:0]         wdata,
    input  wire [7:0]          wstrb,
    input  wire                wlast,
    input  wire                wvalid,
    output logic               wready,
    output wire [IdBits-1:0]   bid,
    output logic [1:0]         bresp,
    output logic               bvalid,
    input  wire                bready,
    input  wire [IdBits-1:0]   arid,
    input  wire [AddrBits-1:0] araddr,
    input  wire [7:0]          arlen,
    input  wire [2:0]          arsize,
    input  wire [1:0]          arburst,
    input  wire                arvalid,
    output logic               arready,
    output wire [IdBits-1:0]   rid,
    output wire [63:0]         rdata,
    output logic [1:0]         rresp,
    output logic               rlast,
    output logic               rvalid,
    input  wire                rready,
    // the testbench's bytes
    output logic               wr_o,        // a W beat in range was taken at the last rising
    output logic [63:0]        wr_addr_o,   // edge: the testbench applies it at the falling one
    output logic [63:0]        wr_data_o,
    output logic [7:0]         wr_strb_o,
    output wire [63:0]         rd_addr_o,
    input  wire [63:0]         rd_data_i,
    // what was seen
    output integer             violations_o,
    output integer             max_reads_o,
    output integer             aw_n_o,      // bursts taken
    output integer             ar_n_o,
    output integer             w_early_o
);
    localparam integer Q = 32;
    localparam [1:0] DECERR = 2'b11;

    logic [63:0] rng = 64'h1;
    task automatic rnd(input integer n, output integer v);  // 0..n-1
        rng = rng ^ (rng >> 12);
        rng = rng ^ (rng << 25);
        rng = rng ^ (rng >> 27);
        v = $signed({1'b0, 31'((rng * 64'h2545F4914F6CDD1D) >> 33)} % n);
    endtask

    integer violations = 0, max_reads = 0, aw_n = 0, ar_n = 0, w_early = 0;
    string  first = "";
    task automatic violation(input string what);
        if (violations == 0) first = what;
        violations = violations + 1;
    endtask
    assign violations_o = violations;
    assign max_reads_o = max_reads;
    assign aw_n_o = aw_n;
    assign ar_n_o = ar_n;
    assign w_early_o = w_early;

    function automatic logic in_range(input logic [63:0] a);
        logic [64:0] d;
        d = {1'b0, a} - {1'b0, Base};
        return !d[64] && d[63:0] < 64'(Bytes);
    endfunction

    // write bursts taken, waiting for (more) W beats
    logic [63:0] aw_addr [0:Q-1];
    logic [7:0]  aw_len [0:Q-1];
    integer      aw_wr = 0, aw_rd = 0, w_beat = 0;
    // W beats taken, waiting for their AW (or to be applied)
    logic [63:0] wq_d [0:Q-1];
    logic [7:0]  wq_s [0:Q-1];
    logic        wq_l [0:Q-1];
    integer      wq_wr = 0, wq_rd = 0;
    integer      wb_start = 0, wb_done = 0;   // W bursts whose first / last beat was taken
    logic        w_in_burst = 1'b0;
    integer      run_aw = 0, run_w = 0, run_ar = 0;  // cycles left of a READY stall
    wire unused_runs = ^{run_aw, run_w, run_ar};  // (Verilator misses the task's inout)
    logic [63:0] wd;
    logic [7:0]  ws;
    logic        wl;
    logic [1:0]  w_resp = 2'b00;
    // complete writes waiting for B
    integer      b_due [0:Q-1];
    logic [1:0]  b_rsp [0:Q-1];
    integer      b_wr = 0, b_rd = 0;
    // reads taken
    logic [63:0] ar_addr [0:Q-1];
    logic [7:0]  ar_len [0:Q-1];
    integer      ar_due [0:Q-1];
    integer      ar_wr = 0, ar_rd = 0, r_beat = 0;
    logic        r_on = 1'b0;
    logic [63:0] r_addr = 64'h0;
    integer      cyc = 0;

    assign bid = {IdBits{1'b0}};
    wire unused_ok = ^{awid, arid};  // the DMA engine uses one ID per port
    assign rid = {IdBits{1'b0}};
    assign rdata = rd_data_i;
    assign rd_addr_o = r_addr;
    logic [63:0] w_addr;

    task automatic check_burst(input string ch, input logic [63:0] a, input logic [7:0] len,
                               input logic [2:0] size, input logic [1:0] burst);
        if (burst != 2'b01 || size != 3'd3 || len > 8'd15 || a[2:0] != 3'd0 ||
            ({4'h0, a[11:0]} + {5'h0, len, 3'b000}) > 16'h0ff8)
            violation($sformatf("%s addr=%h len=%0d size=%0d burst=%0d: not INCR, 8 bytes, <=16 beats, aligned, inside 4 KiB",
                                ch, a, len, size, burst));
    endtask

    // Held-payload checks: what waited for READY in the previous cycle.
    logic        aw_hold = 1'b0, w_hold = 1'b0, ar_hold = 1'b0;
    logic [63:0] aw_h_a, ar_h_a, w_h_d;
    logic [7:0]  aw_h_l, ar_h_l, w_h_s;
    logic        w_h_l;
    logic        r_take = 1'b0;   // the R beat shown was taken at this edge
    logic        b_take = 1'b0;
    integer      lat, gap, r1, r2, r3;
    logic        st_aw, st_w, st_ar, ord_aw, ord_w;

    // A READY stall: on stall_pct_i of the cycles outside one, lasting 1..stall_run_i cycles.
    task automatic ready_stall(inout integer run, input integer r, output logic st);
        integer len;
        if (stall_pct_i == 7'd0) begin  // no stalls: a stretch in progress ends too
            run = 0;
            st = 1'b0;
        end else if (run > 0) begin
            run = run - 1;
            st = 1'b1;
        end else begin
            st = r < 32'(stall_pct_i);
            if (st && stall_run_i > 8'd1) begin
                rnd(32'(stall_run_i), len);
                run = len;
            end
        end
    endtask

    // One process: take the handshakes at the rising edge, drive the next cycle's outputs at
    // the falling edge (so neither simulator can race the DUT).
    initial begin
        awready = 1'b0; wready = 1'b0; arready = 1'b0; bvalid = 1'b0; bresp = 2'b00;
        rvalid = 1'b0; rresp = 2'b00; rlast = 1'b0; wr_o = 1'b0;
        wr_addr_o = 64'h0; wr_data_o = 64'h0; wr_strb_o = 8'h0;
        forever begin
            @(posedge clk);
            cyc = cyc + 1;
            wr_o = 1'b0;
            r_take = 1'b0;
            b_take = 1'b0;
            if (rst) begin
                rng = 64'(seed_i) * 64'h9E3779B97F4A7C15 + 64'h1;
                aw_wr = 0; aw_rd = 0; w_beat = 0; b_wr = 0; b_rd = 0; ar_wr = 0; ar_rd = 0;
                wq_wr = 0; wq_rd = 0; wb_start = 0; wb_done = 0; w_in_burst = 1'b0;
                run_aw = 0; run_w = 0; run_ar = 0;
                r_on = 1'b0; w_resp = 2'b00;
                aw_hold = 1'b0; w_hold = 1'b0; ar_hold = 1'b0;
            end else begin
                if (aw_hold && (!awvalid || 64'(awaddr) != aw_h_a || awlen != aw_h_l))
                    violation("AW dropped or changed before AWREADY");
                if (ar_hold && (!arvalid || 64'(araddr) != ar_h_a || arlen != ar_h_l))
                    violation("AR dropped or changed before ARREADY");
                if (w_hold && (!wvalid || wdata != w_h_d || wstrb != w_h_s || wlast != w_h_l))
                    violation("W dropped or changed before WREADY");
                aw_hold = awvalid && !awready;
                aw_h_a = 64'(awaddr);
                aw_h_l = awlen;
                ar_hold = arvalid && !arready;
                ar_h_a = 64'(araddr);
                ar_h_l = arlen;
                w_hold = wvalid && !wready;
                w_h_d = wdata;
                w_h_s = wstrb;
                w_h_l = wlast;

                if (awvalid && awready) begin
                    check_burst("AW", 64'(awaddr), awlen, awsize, awburst);
                    aw_addr[aw_wr % Q] = 64'(awaddr);
                    aw_len[aw_wr % Q] = awlen;
                    aw_wr = aw_wr + 1;
                    aw_n = aw_n + 1;
                end
                // W: taken whether its AW is in or not (an AW of this edge counts as before it)
                if (wvalid && wready) begin
                    wq_d[wq_wr % Q] = wdata;
                    wq_s[wq_wr % Q] = wstrb;
                    wq_l[wq_wr % Q] = wlast;
                    wq_wr = wq_wr + 1;
                    if (!w_in_burst) begin
                        if (aw_wr <= wb_start) w_early = w_early + 1;
                        wb_start = wb_start + 1;
                    end
                    w_in_burst = !wlast;
                    if (wlast) wb_done = wb_done + 1;
                end
                // One beat a cycle is applied to the oldest AW still owed data.
                if (wq_wr != wq_rd && aw_wr != aw_rd) begin
                    wd = wq_d[wq_rd % Q];
                    ws = wq_s[wq_rd % Q];
                    wl = wq_l[wq_rd % Q];
                    wq_rd = wq_rd + 1;
                    w_addr = aw_addr[aw_rd % Q] + 64'(w_beat) * 64'd8;
                    wr_o = in_range(w_addr);
                    wr_addr_o = w_addr;
                    wr_data_o = wd;
                    wr_strb_o = ws;
                    if (ws != 8'hff && ws != 8'h00)
                        violation($sformatf("WSTRB %h: the engine writes whole qwords", ws));
                    if (wl != (w_beat == 32'(aw_len[aw_rd % Q])))
                        violation($sformatf("WLAST %0d on beat %0d of %0d", wl, w_beat,
                                            aw_len[aw_rd % Q] + 8'd1));
                    if (!in_range(w_addr)) w_resp = DECERR;
                    if (w_beat == 32'(aw_len[aw_rd % Q])) begin
                        rnd(32'(max_lat_i) + 1, lat);
                        b_due[b_wr % Q] = cyc + lat;
                        b_rsp[b_wr % Q] = w_resp;
                        b_wr = b_wr + 1;
                        aw_rd = aw_rd + 1;
                        w_beat = 0;
                        w_resp = 2'b00;
                    end else w_beat = w_beat + 1;
                end
                if (bvalid && bready) begin
                    b_rd = b_rd + 1;
                    b_take = 1'b1;
                end
                if (arvalid && arready) begin
                    check_burst("AR", 64'(araddr), arlen, arsize, arburst);
                    rnd(32'(max_lat_i) + 1, lat);
                    ar_addr[ar_wr % Q] = 64'(araddr);
                    ar_len[ar_wr % Q] = arlen;
                    ar_due[ar_wr % Q] = cyc + lat;
                    ar_wr = ar_wr + 1;
                    ar_n = ar_n + 1;
                    if ((ar_wr - ar_rd) + (r_on ? 1 : 0) > max_reads)
                        max_reads = (ar_wr - ar_rd) + (r_on ? 1 : 0);
                end
                if (rvalid && rready) begin
                    r_take = 1'b1;
                    if (r_beat == 32'(ar_len[ar_rd % Q])) begin
                        r_on = 1'b0;
                        ar_rd = ar_rd + 1;
                        r_beat = 0;
                    end else r_beat = r_beat + 1;
                end
            end

            @(negedge clk);
            rnd(100, r1);
            rnd(100, r2);
            rnd(100, r3);
            ready_stall(run_aw, r1, st_aw);
            ready_stall(run_w, r2, st_w);
            ready_stall(run_ar, r3, st_ar);
            // the write order: what a burst's AW or W waits for
            ord_aw = order_i == 2'd1 ? wb_start > aw_wr : order_i == 2'd2 ? wb_done > aw_wr : 1'b1;
            ord_w = order_i == 2'd3 ? aw_wr > wb_done : 1'b1;
            awready = !rst && (b_wr - b_rd) + (aw_wr - aw_rd) < MaxOut && !st_aw && ord_aw;
            wready = !rst && (wq_wr - wq_rd) < Q - 2 && !st_w && ord_w;
            arready = !rst && (ar_wr - ar_rd) + (r_on ? 1 : 0) < MaxOut && !st_ar;
            if (rst) begin
                bvalid = 1'b0;
                rvalid = 1'b0;
            end else begin
                // B, back to back when due
                if (b_take) bvalid = 1'b0;
                if (!bvalid && b_wr != b_rd && b_due[b_rd % Q] <= cyc) begin
                    bvalid = 1'b1;
                    bresp = b_rsp[b_rd % Q];
                end
                // R: one burst at a time, in order; beats back to back unless a gap is drawn
                if (r_take) rvalid = 1'b0;
                if (!rvalid) begin
                    if (!r_on && ar_wr != ar_rd && ar_due[ar_rd % Q] <= cyc) begin
                        r_on = 1'b1;
                        r_beat = 0;
                    end
                    rnd(100, gap);
                    if (r_on && gap >= 32'(stall_pct_i) / 2) begin
                        r_addr = ar_addr[ar_rd % Q] + 64'(r_beat) * 64'd8;
                        rresp = in_range(r_addr) ? 2'b00 : DECERR;
                        rlast = r_beat == 32'(ar_len[ar_rd % Q]);
                        rvalid = 1'b1;
                    end
                end
            end
        end
    end
endmodule
`default_nettype wire
