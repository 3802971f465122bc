// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// sdram_model: a 16-bit SDR SDRAM as its controller sees the pins, written from the ISSI
// IS42S16160G data sheet (256 Mb, 4 banks x 8192 rows x 512 columns x 16 bits; speed grade -7:
// 143 MHz at CAS latency 3, 100 MHz at CAS latency 2), the part on the ULX3S.
// Simulation model: everything happens at rising edges of clk_i (the SDRAM's CLK); no delays,
// so it runs in Icarus, Verilator --timing and a Verilator --cc harness alike. Time is counted
// in cycles of TckPs picoseconds, and every rule is checked in ns against the data sheet's
// value (not rounded to cycles), so a controller that rounds a bound down is caught.
//
// Pins sampled at each edge (set after the previous edge): CKE, CS#, RAS#, CAS#, WE#, BA, A,
// DQM, and DQ with the controller's drive enable dq_oe_i. The model drives dq_o with dq_oe_o
// for read data: word j of a READ sampled at edge n is on DQ for the edge n + CL + j.
// Checked (a violation prints "sdram_model: <rule>: ..." and, with FatalOnError, ends the
// simulation with $fatal; it is always counted in err_count_o, and the first rule broken is
// kept in first_err_o):
// - power-up: no command but INHIBIT/NOP before PowerUpNs; CKE high throughout (power-down
//   and self refresh are not modelled); the init order PRECHARGE ALL, >= InitRefs AUTO
//   REFRESH, LOAD MODE REGISTER before the first ACTIVE.
// - mode register: burst length 1, 2, 4 or 8 (full page is not modelled), sequential or
//   interleaved, CAS latency 2 or 3 and legal at TckPs (CL2 needs >= TckCl2Ps), reserved bits 0.
// - commands legal for the bank state: ACTIVE to an idle bank, READ/WRITE to an active one
//   (auto precharge is not modelled and is flagged), REFRESH and LOAD MODE with every bank idle.
// - tRCD, tRP, tRAS (min and max), tRC, tRRD, tWR (last data in to PRECHARGE), tRFC (REFRESH
//   to any ACTIVE/REFRESH/MODE), tMRD, in ns at TckPs.
// - refresh: REFRESH commands refresh rows in turn (RefRows of them, 8192 on the part); every
//   row must be refreshed again within RefWindowNs (64 ms on the part; a test scales both
//   down); counted from the end of the init sequence.
// - data bus: the controller driving DQ in a cycle the model drives it (contention) or in the
//   cycle right after (no turnaround), and a write data cycle with DQ undriven and not masked.
// - addresses: a row above the stored rows (StoreRows, to keep the array small in tests).
// Bursts: a READ or WRITE ends the burst in progress (read data stop when the new command's
// first word would come, write data at its edge); PRECHARGE of the bank (or BURST TERMINATE)
// ends a read CL-1 edges later and a write at once. DQM masks written bytes at the same edge
// and read output two edges later. Unwritten words read as 0.
// Counters: data_cycles_o (edges that moved a data word either way), cycles_o, and the
// commands: act_o, pre_o, ref_o, rd_o, wr_o; ref_gap_o sums, for each REFRESH, the edges
// without data between the last data word before its PRECHARGE ALL and the first after it.
// The model updates its state in order within an edge (blocking assignments in the clocked
// block, on purpose) and mixes integer cycle arithmetic with pin widths.
/* verilator lint_off BLKSEQ */
/* verilator lint_off WIDTH */
module sdram_model #(
    parameter TckPs       = 10000,      // clock period, ps
    parameter TckCl2Ps    = 10000,      // shortest period at CAS latency 2 (-7: 100 MHz)
    parameter TckCl3Ps    = 7000,       // shortest period at CAS latency 3 (-7: 143 MHz)
    parameter PowerUpNs   = 100000,     // 100 us before the first command
    parameter InitRefs    = 2,          // AUTO REFRESH commands before LOAD MODE REGISTER
    parameter TrcdNs      = 15,
    parameter TrpNs       = 15,
    parameter TrasNs      = 42,
    parameter TrasMaxNs   = 100000,
    parameter TrcNs       = 60,
    parameter TrrdNs      = 14,
    parameter TwrNs       = 14,         // tDPL
    parameter TrfcNs      = 60,         // tRC for AUTO REFRESH
    parameter TmrdNs      = 14,         // 2 clocks at 143 MHz
    parameter RefRows     = 8192,       // REFRESH commands per window
    parameter RefWindowNs = 64000000,   // 64 ms
    parameter StoreRows   = 8192,       // rows stored per bank (a test may store fewer)
    parameter FatalOnError = 1
) (
    input  wire        clk_i,
    input  wire        cke_i,
    input  wire        cs_n_i,
    input  wire        ras_n_i,
    input  wire        cas_n_i,
    input  wire        we_n_i,
    input  wire [1:0]  ba_i,
    input  wire [12:0] a_i,
    input  wire [1:0]  dqm_i,
    input  wire [15:0] dq_i,
    input  wire        dq_oe_i,
    output reg  [15:0] dq_o,
    output reg         dq_oe_o,
    output wire [31:0] err_count_o,
    output wire [7:0]  first_err_o,
    output wire [31:0] cycles_o,
    output wire [31:0] data_cycles_o,
    output wire [31:0] act_o,
    output wire [31:0] pre_o,
    output wire [31:0] ref_o,
    output wire [31:0] rd_o,
    output wire [31:0] wr_o,
    output wire [31:0] ref_gap_o
);
    reg [31:0] n_err, n_cyc, n_data, n_act, n_pre, n_ref, n_rd, n_wr, n_gap;
    reg [7:0]  first_err;
    assign err_count_o = n_err;
    assign first_err_o = first_err;
    assign cycles_o = n_cyc;
    assign data_cycles_o = n_data;
    assign act_o = n_act;
    assign pre_o = n_pre;
    assign ref_o = n_ref;
    assign rd_o = n_rd;
    assign wr_o = n_wr;
    assign ref_gap_o = n_gap;
    // rule codes (first_err_o)
    localparam [7:0] E_NONE = 8'd0, E_INIT = 8'd1, E_MODE = 8'd2, E_STATE = 8'd3, E_TRCD = 8'd4,
                     E_TRP = 8'd5, E_TRAS = 8'd6, E_TRC = 8'd7, E_TRRD = 8'd8, E_TWR = 8'd9,
                     E_TRFC = 8'd10, E_TMRD = 8'd11, E_REFRESH = 8'd12, E_BUS = 8'd13,
                     E_RANGE = 8'd14, E_TRASMAX = 8'd15, E_CKE = 8'd16;
    localparam integer COLS = 512;
    localparam integer WORDS = 4 * StoreRows * COLS;
    localparam integer NEVER = -1000000000;

    reg [15:0] mem [0:WORDS-1];
    // bank state
    reg        b_act [0:3];
    reg [12:0] b_row [0:3];
    integer    b_t_act [0:3];     // cycle of the last ACTIVE
    integer    b_t_pre [0:3];     // cycle of the last PRECHARGE
    integer    b_t_wr [0:3];      // cycle of the last write data word
    integer    t_any_act, t_ref, t_mrs, now;
    // init
    reg        pre_all_seen, mode_set, init_done;
    integer    init_refs;
    // mode
    integer    bl, cl;
    reg        interleave, single_wr;
    // read output slots, indexed by the edge they are for (mod 16)
    reg        rs_v [0:15];
    reg [1:0]  rs_bank [0:15];
    integer    rs_idx [0:15];
    reg [1:0]  dqm_prev;          // DQM sampled at the previous edge
    reg        drove_prev;        // the model drove DQ for this edge's slot
    // write burst in progress
    reg        w_v;
    reg [1:0]  w_bank;
    integer    w_base, w_n, w_i;
    // refresh coverage
    integer    ref_ptr, ref_last [0:RefRows-1];
    reg        ref_late_seen;
    integer    last_data, gap_open;
    integer    i;

    initial begin
        for (i = 0; i < WORDS; i = i + 1) mem[i] = 16'h0000;
        for (i = 0; i < 4; i = i + 1) begin
            b_act[i] = 1'b0; b_row[i] = 13'd0;
            b_t_act[i] = NEVER; b_t_pre[i] = NEVER; b_t_wr[i] = NEVER;
        end
        for (i = 0; i < 16; i = i + 1) begin rs_v[i] = 1'b0; rs_bank[i] = 2'd0; rs_idx[i] = 0; end
        for (i = 0; i < RefRows; i = i + 1) ref_last[i] = 0;
        t_any_act = NEVER; t_ref = NEVER; t_mrs = NEVER; now = 0;
        pre_all_seen = 1'b0; mode_set = 1'b0; init_done = 1'b0; init_refs = 0;
        bl = 1; cl = 3; interleave = 1'b0; single_wr = 1'b0;
        dqm_prev = 2'b00; drove_prev = 1'b0; w_v = 1'b0; w_bank = 2'd0;
        w_base = 0; w_n = 0; w_i = 0; ref_ptr = 0; ref_late_seen = 1'b0;
        last_data = 0; gap_open = -1;
        dq_o = 16'h0000; dq_oe_o = 1'b0;
        n_err = 32'd0; first_err = E_NONE; n_cyc = 32'd0; n_data = 32'd0;
        n_act = 32'd0; n_pre = 32'd0; n_ref = 32'd0; n_rd = 32'd0; n_wr = 32'd0; n_gap = 32'd0;
    end

    task automatic fail(input [7:0] code, input string msg);
        begin
            // the first few only: a broken controller repeats its error every few cycles
            if (n_err < 32'd4) $display("sdram_model: %s (cycle %0d)", msg, now);
            n_err = n_err + 32'd1;
            if (first_err == E_NONE) first_err = code;
            if (FatalOnError != 0) $fatal(1, "sdram_model: timing or protocol violation");
        end
    endtask

    // true when (now - t) cycles last at least ns
    function automatic bit after(input integer t, input integer ns);
        longint dt, lim;
        begin
            dt = now;
            dt = (dt - t) * TckPs;
            lim = ns;
            lim = lim * 1000;
            after = (dt >= lim);
        end
    endfunction
    // true when (now - t) cycles last longer than ns
    function automatic bit later(input integer t, input integer ns);
        longint dt, lim;
        begin
            dt = now;
            dt = (dt - t) * TckPs;
            lim = ns;
            lim = lim * 1000;
            later = (dt > lim);
        end
    endfunction

    function automatic integer col_at(input integer base, input integer j);
        integer m;
        begin
            m = bl - 1;
            if (interleave) col_at = (base & ~m) | ((base & m) ^ j);
            else col_at = (base & ~m) | ((base + j) & m);
        end
    endfunction

    function automatic integer word_idx(input [1:0] bank, input [12:0] row, input integer col);
        word_idx = ((bank * StoreRows + row) * COLS) + col;
    endfunction

    // a data word moved at this edge (either way)
    task automatic data_word;
        begin
            n_data = n_data + 32'd1;
            last_data = now;
            if (gap_open >= 0) begin
                n_gap = n_gap + (now - gap_open - 1);
                gap_open = -1;
            end
        end
    endtask

    // stop read output from edge e on (of one bank, or all with bank_only = 0)
    task automatic cut_reads(input integer e, input bit bank_only, input [1:0] bank);
        integer k;
        begin
            for (k = (e > now ? e : now + 1); k <= now + 15; k = k + 1)
                if (rs_v[k % 16] && (!bank_only || rs_bank[k % 16] == bank)) rs_v[k % 16] = 1'b0;
        end
    endtask

    always @(posedge clk_i) begin : p_edge
        reg [2:0] cmd;
        reg [1:0] ba;
        /* verilator lint_off UNUSEDSIGNAL */
        integer   col, j, slot, idx;  // slot, idx: only their low bits index the arrays
        /* verilator lint_on UNUSEDSIGNAL */
        reg [15:0] w;
        reg       drove_now;
        now = now + 1;
        n_cyc = n_cyc + 32'd1;
        cmd = cs_n_i ? 3'b111 : {ras_n_i, cas_n_i, we_n_i};
        ba = ba_i;
        drove_now = dq_oe_o;  // what the model put on DQ for this edge

        if (!cke_i) fail(E_CKE, "CKE low (power-down and self refresh are not modelled)");

        // ---- data bus at this edge: read slot, write slot, contention ----
        if (drove_now && dq_oe_i) fail(E_BUS, "DQ contention: controller and SDRAM drive together");
        if (!drove_now && drove_prev && dq_oe_i)
            fail(E_BUS, "DQ driven right after read data (no turnaround cycle)");
        if (drove_now) data_word();
        // a write burst in progress takes this edge's word (the first came with WRITE, below)
        if (w_v && cmd != 3'b100 && cmd != 3'b101) begin
            if (w_i < w_n) begin
                col = col_at(w_base, w_i);
                idx = word_idx(w_bank, b_row[w_bank], col);
                if (!dq_oe_i && dqm_i != 2'b11) fail(E_BUS, "write data cycle with DQ undriven");
                w = mem[idx];
                if (!dqm_i[0]) w[7:0] = dq_i[7:0];
                if (!dqm_i[1]) w[15:8] = dq_i[15:8];
                mem[idx] = w;
                b_t_wr[w_bank] = now;
                data_word();
                w_i = w_i + 1;
            end
            if (w_i >= w_n) w_v = 1'b0;
        end

        // ---- refresh coverage ----
        if (init_done && !ref_late_seen && later(ref_last[ref_ptr], RefWindowNs)) begin
            ref_late_seen = 1'b1;
            fail(E_REFRESH, $sformatf("row group %0d not refreshed within the refresh window", ref_ptr));
        end

        // ---- tRAS max ----
        for (j = 0; j < 4; j = j + 1)
            if (b_act[j] && later(b_t_act[j], TrasMaxNs)) begin
                fail(E_TRASMAX, $sformatf("bank %0d open longer than tRAS max", j));
                b_t_act[j] = now;
            end

        // ---- command ----
        if (cmd != 3'b111 && !after(0, PowerUpNs))
            fail(E_INIT, "command before the power-up wait");
        case (cmd)
            3'b011: begin  // ACTIVE
                n_act = n_act + 32'd1;
                if (!init_done) fail(E_INIT, "ACTIVE before the init sequence finished");
                if (b_act[ba]) fail(E_STATE, $sformatf("ACTIVE to bank %0d, already active", ba));
                if (!after(b_t_pre[ba], TrpNs)) fail(E_TRP, $sformatf("tRP: PRECHARGE to ACTIVE bank %0d", ba));
                if (!after(b_t_act[ba], TrcNs)) fail(E_TRC, $sformatf("tRC: ACTIVE to ACTIVE bank %0d", ba));
                if (!after(t_any_act, TrrdNs)) fail(E_TRRD, "tRRD: ACTIVE to ACTIVE, other bank");
                if (!after(t_ref, TrfcNs)) fail(E_TRFC, "tRFC: REFRESH to ACTIVE");
                if (!after(t_mrs, TmrdNs)) fail(E_TMRD, "tMRD: LOAD MODE to ACTIVE");
                if (a_i >= StoreRows) fail(E_RANGE, $sformatf("row %0d above the stored rows", a_i));
                b_act[ba] = 1'b1;
                b_row[ba] = a_i;
                b_t_act[ba] = now;
                t_any_act = now;
            end
            3'b101, 3'b100: begin  // READ, WRITE
                col = a_i[8:0];
                if (!b_act[ba])
                    fail(E_STATE, cmd[0] ? $sformatf("READ to idle bank %0d", ba)
                                         : $sformatf("WRITE to idle bank %0d", ba));
                if (a_i[10]) fail(E_STATE, "auto precharge is not modelled");
                if (!after(b_t_act[ba], TrcdNs))
                    fail(E_TRCD, cmd[0] ? $sformatf("tRCD: ACTIVE to READ bank %0d", ba)
                                        : $sformatf("tRCD: ACTIVE to WRITE bank %0d", ba));
                // the burst in progress ends
                w_v = 1'b0;
                if (cmd[0]) begin
                    n_rd = n_rd + 32'd1;
                    cut_reads(now + cl, 1'b0, 2'd0);
                    for (j = 0; j < bl; j = j + 1) begin
                        slot = (now + cl + j) % 16;
                        rs_v[slot] = 1'b1;
                        rs_bank[slot] = ba;
                        rs_idx[slot] = word_idx(ba, b_row[ba], col_at(col, j));
                    end
                end else begin
                    n_wr = n_wr + 32'd1;
                    cut_reads(now, 1'b0, 2'd0);
                    // the first word comes with the command
                    idx = word_idx(ba, b_row[ba], col_at(col, 0));
                    if (!dq_oe_i && dqm_i != 2'b11) fail(E_BUS, "write data cycle with DQ undriven");
                    w = mem[idx];
                    if (!dqm_i[0]) w[7:0] = dq_i[7:0];
                    if (!dqm_i[1]) w[15:8] = dq_i[15:8];
                    mem[idx] = w;
                    b_t_wr[ba] = now;
                    data_word();
                    w_v = 1'b1; w_bank = ba; w_base = col; w_i = 1; w_n = single_wr ? 1 : bl;
                    if (w_i >= w_n) w_v = 1'b0;
                end
            end
            3'b010: begin  // PRECHARGE (A10: all banks)
                n_pre = n_pre + 32'd1;
                if (!pre_all_seen && a_i[10]) pre_all_seen = 1'b1;
                for (j = 0; j < 4; j = j + 1)
                    if (a_i[10] || ba == j[1:0]) begin
                        if (b_act[j]) begin
                            if (!after(b_t_act[j], TrasNs)) fail(E_TRAS, $sformatf("tRAS: ACTIVE to PRECHARGE bank %0d", j));
                            if (!after(b_t_wr[j], TwrNs)) fail(E_TWR, $sformatf("tWR: write data to PRECHARGE bank %0d", j));
                            b_t_pre[j] = now;
                        end
                        b_act[j] = 1'b0;
                        cut_reads(now + cl, 1'b1, j[1:0]);
                        if (w_v && w_bank == j[1:0]) w_v = 1'b0;
                    end
                if (a_i[10] && init_done && gap_open < 0) gap_open = last_data;
            end
            3'b110: begin  // BURST TERMINATE
                cut_reads(now + cl, 1'b0, 2'd0);
                w_v = 1'b0;
            end
            3'b001: begin  // AUTO REFRESH
                n_ref = n_ref + 32'd1;
                if (!pre_all_seen) fail(E_INIT, "REFRESH before PRECHARGE ALL in the init sequence");
                for (j = 0; j < 4; j = j + 1) begin
                    if (b_act[j]) fail(E_STATE, $sformatf("REFRESH with bank %0d active", j));
                    if (!after(b_t_pre[j], TrpNs)) fail(E_TRP, $sformatf("tRP: PRECHARGE to REFRESH bank %0d", j));
                end
                if (!after(t_ref, TrfcNs)) fail(E_TRFC, "tRFC: REFRESH to REFRESH");
                if (!after(t_mrs, TmrdNs)) fail(E_TMRD, "tMRD: LOAD MODE to REFRESH");
                t_ref = now;
                if (!mode_set) init_refs = init_refs + 1;
                ref_last[ref_ptr] = now;
                ref_ptr = (ref_ptr + 1) % RefRows;
                if (init_done && gap_open < 0) gap_open = last_data;
            end
            3'b000: begin  // LOAD MODE REGISTER
                for (j = 0; j < 4; j = j + 1) begin
                    if (b_act[j]) fail(E_STATE, $sformatf("LOAD MODE with bank %0d active", j));
                    if (!after(b_t_pre[j], TrpNs)) fail(E_TRP, "tRP: PRECHARGE to LOAD MODE");
                end
                if (!after(t_ref, TrfcNs)) fail(E_TRFC, "tRFC: REFRESH to LOAD MODE");
                if (!after(t_mrs, TmrdNs)) fail(E_TMRD, "tMRD: LOAD MODE to LOAD MODE");
                if (init_refs < InitRefs) fail(E_INIT, $sformatf("LOAD MODE after %0d AUTO REFRESH, %0d needed", init_refs, InitRefs));
                if (ba != 2'b00 || a_i[12:10] != 3'b000 || a_i[8:7] != 2'b00)
                    fail(E_MODE, "mode register: reserved bits or extended mode set");
                case (a_i[2:0])
                    3'd0: bl = 1;
                    3'd1: bl = 2;
                    3'd2: bl = 4;
                    3'd3: bl = 8;
                    default: begin bl = 1; fail(E_MODE, "burst length: only 1, 2, 4, 8 are modelled"); end
                endcase
                interleave = a_i[3];
                single_wr = a_i[9];
                cl = a_i[6:4];
                if (cl == 2) begin
                    if (TckPs < TckCl2Ps) fail(E_MODE, "CAS latency 2 is too short for this clock period");
                end else if (cl == 3) begin
                    if (TckPs < TckCl3Ps) fail(E_MODE, "CAS latency 3 is too short for this clock period");
                end else begin
                    fail(E_MODE, "CAS latency must be 2 or 3");
                    cl = 3;
                end
                t_mrs = now;
                mode_set = 1'b1;
                if (!init_done) begin
                    init_done = 1'b1;
                    for (j = 0; j < RefRows; j = j + 1) ref_last[j] = now;
                end
            end
            default: ;  // NOP, INHIBIT
        endcase

        // ---- read output for the next edge: DQM has a two-edge latency on reads, so the word
        // for the next edge is masked by the DQM sampled at the previous edge ----
        drove_prev = drove_now;
        slot = (now + 1) % 16;
        if (rs_v[slot] && dqm_prev != 2'b11) begin
            dq_o <= mem[rs_idx[slot]];
            dq_oe_o <= 1'b1;
        end else begin
            dq_oe_o <= 1'b0;
        end
        rs_v[slot] = 1'b0;
        dqm_prev = dqm_i;
    end
endmodule
/* verilator lint_on WIDTH */
/* verilator lint_on BLKSEQ */
`default_nettype wire
