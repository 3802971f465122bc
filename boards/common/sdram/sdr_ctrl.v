// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// sdr_ctrl: AXI4 slave (gpu_core's m_vram widths: 8-byte data, IdBits IDs) in front of one
// 16-bit SDR SDRAM (4 banks, 2**RowBits rows, 2**ColBits columns; the ULX3S's 32 MiB
// IS42S16160G by default). One clock: the SDRAM's CLK is clk_i (the board shifts its phase).
//
// Contract at the AXI port:
// - INCR bursts of 8-byte beats (AxSIZE 3), any AxLEN (0..255); the start address is taken
//   down to its beat (WSTRB says which bytes a write changes). A burst with another AxSIZE or
//   AxBURST answers SLVERR, one reaching above the SDRAM (an address bit at or above
//   log2(capacity) set) DECERR; neither touches the SDRAM (its W beats are consumed).
// - W may come before, with or after its AW; beats are taken in order, counted by AWLEN
//   (WLAST is not checked). Bursts run one at a time, reads and writes alternating when both
//   wait; B answers in AW order once the burst's last beat is in the SDRAM (a read accepted
//   after that B sees the data), R in AR order with RLAST on each burst's last beat.
// - R and B are never dropped: a read beat is started only with room for its data reserved.
// - Reset (rst_i) drops every transaction and runs the power-up sequence again.
//
// SDRAM side: every pin registered (cs/ras/cas/we/ba/a/dqm/dq/dq_oe); dq_i is registered
// once, plus ReadDelay more stages (a board whose capture needs them). Mode: burst length 4,
// sequential, CAS latency CasLatency. Each AXI beat is one BL4 burst (16 bits x 4); READ and
// WRITE commands four cycles apart keep the data pins busy without interrupting a burst.
// Address map (byte address): column [ColBits:1], bank [ColBits+2:ColBits+1], row above, so a
// sequential stream moves to the next bank every row (2**ColBits * 2 bytes).
// Rows stay open (one per bank) until a miss or a refresh; PRECHARGE/ACTIVE for the next beat
// go in the free command slots while the current beat's data moves.
// Timing: every interval in ns at the clock period TckPs, rounded up to whole cycles:
// power-up wait, tRCD, tRP, tRAS, tRC, tRRD, tWR (last write data to PRECHARGE), tRFC, tMRD;
// an AUTO REFRESH every TrefiNs (free-running, so waits for open bursts do not add up),
// after PRECHARGE ALL. Init: power-up wait with INHIBIT, PRECHARGE ALL, InitRefresh AUTO
// REFRESH, LOAD MODE REGISTER.
module sdr_ctrl #(
    parameter AddrBits    = 32,      // AXI address bits (the SDRAM is at 0)
    parameter IdBits      = 4,       // AXI ID bits
    parameter DataBytes   = 8,       // AXI data bytes: must be 8 (4 x 16 bits)
    parameter RowBits     = 13,      // SDRAM row address bits (A0..A12)
    parameter ColBits     = 9,       // SDRAM column address bits (A0..A8), >= 3
    parameter TckPs       = 10000,   // clock period, ps
    parameter CasLatency  = 2,       // 2 or 3 (the part's limit at TckPs is the board's choice)
    parameter ReadDelay   = 0,       // extra dq_i register stages, 0..2
    parameter PowerUpNs   = 100000,  // stable power and clock before the first command
    parameter TrcdNs      = 15,      // ACTIVE to READ/WRITE
    parameter TrpNs       = 15,      // PRECHARGE to ACTIVE/REFRESH
    parameter TrasNs      = 42,      // ACTIVE to PRECHARGE
    parameter TrcNs       = 60,      // ACTIVE to ACTIVE, same bank
    parameter TrrdNs      = 14,      // ACTIVE to ACTIVE, other bank
    parameter TwrNs       = 14,      // last write data to PRECHARGE
    parameter TrfcNs      = 60,      // AUTO REFRESH to ACTIVE/REFRESH
    parameter TmrdNs      = 14,      // LOAD MODE REGISTER to ACTIVE/REFRESH
    parameter TrefiNs     = 7800,    // one AUTO REFRESH per (8192 per 64 ms is 7812.5)
    parameter InitRefresh = 8,       // AUTO REFRESH commands in the init sequence, >= 2
    parameter RBeatsLog2  = 3        // R buffer: 2**RBeatsLog2 beats, reserved per READ
) (
    input  wire                   clk_i,
    input  wire                   rst_i,     // synchronous, active high
    input  wire [IdBits-1:0]      s_awid_i,
    input  wire [AddrBits-1:0]    s_awaddr_i,
    input  wire [7:0]             s_awlen_i,
    input  wire [2:0]             s_awsize_i,
    input  wire [1:0]             s_awburst_i,
    input  wire                   s_awvalid_i,
    output wire                   s_awready_o,
    input  wire [DataBytes*8-1:0] s_wdata_i,
    input  wire [DataBytes-1:0]   s_wstrb_i,
    input  wire                   s_wlast_i,
    input  wire                   s_wvalid_i,
    output wire                   s_wready_o,
    output wire [IdBits-1:0]      s_bid_o,
    output wire [1:0]             s_bresp_o,
    output wire                   s_bvalid_o,
    input  wire                   s_bready_i,
    input  wire [IdBits-1:0]      s_arid_i,
    input  wire [AddrBits-1:0]    s_araddr_i,
    input  wire [7:0]             s_arlen_i,
    input  wire [2:0]             s_arsize_i,
    input  wire [1:0]             s_arburst_i,
    input  wire                   s_arvalid_i,
    output wire                   s_arready_o,
    output wire [IdBits-1:0]      s_rid_o,
    output wire [DataBytes*8-1:0] s_rdata_o,
    output wire [1:0]             s_rresp_o,
    output wire                   s_rlast_o,
    output wire                   s_rvalid_o,
    input  wire                   s_rready_i,
    // SDRAM pins
    output wire                   sdr_cke_o,
    output wire                   sdr_cs_n_o,
    output wire                   sdr_ras_n_o,
    output wire                   sdr_cas_n_o,
    output wire                   sdr_we_n_o,
    output wire [1:0]             sdr_ba_o,
    output wire [12:0]            sdr_a_o,
    output wire [1:0]             sdr_dqm_o,
    output wire [15:0]            sdr_dq_o,
    output wire                   sdr_dq_oe_o,   // drive sdr_dq_o onto DQ
    input  wire [15:0]            sdr_dq_i,
    output wire                   ready_o        // init done (for a board LED or a reset hold)
);
    // ---- derived constants ------------------------------------------------------------------
    localparam integer CAP_BITS = RowBits + 2 + ColBits + 1;  // byte address bits
    localparam integer BA_BITS  = CAP_BITS - 3;               // beat address bits
    function automatic integer cyc(input integer ns);         // ns -> whole cycles, >= 1
        integer c;
        begin
            c = (ns * 1000 + TckPs - 1) / TckPs;
            cyc = (c < 1) ? 1 : c;
        end
    endfunction
    localparam integer T_POWER = cyc(PowerUpNs);
    localparam integer T_RCD = cyc(TrcdNs);
    localparam integer T_RP  = cyc(TrpNs);
    localparam integer T_RAS = cyc(TrasNs);
    localparam integer T_RC  = cyc(TrcNs);
    localparam integer T_RRD = cyc(TrrdNs);
    localparam integer T_WR  = cyc(TwrNs);
    localparam integer T_RFC = cyc(TrfcNs);
    localparam integer T_MRD = cyc(TmrdNs);
    localparam integer T_REFI = (TrefiNs * 1000) / TckPs;      // rounded down: never late
    localparam integer TW = 6;                                 // timer bits
    localparam integer WR_TO_PRE = 3 + T_WR;                   // WRITE to PRECHARGE, same bank
    localparam integer RD_TO_WR = CasLatency + 5;              // READ to WRITE: one idle DQ cycle
    localparam integer TOK0 = 1 + CasLatency + ReadDelay;      // READ to its first captured word
    localparam integer TOK_LEN = TOK0 + 4;
    // timer loads: a command that must wait N cycles loads N - 1
    localparam integer I_RCD = T_RCD - 1, I_RP = T_RP - 1, I_RAS = T_RAS - 1, I_RC = T_RC - 1,
                       I_RRD = T_RRD - 1, I_RFC = T_RFC - 1, I_MRD = T_MRD - 1,
                       I_WR_PRE = WR_TO_PRE - 1, I_RD_WR = RD_TO_WR - 1;
    localparam [TW-1:0] L_RCD = I_RCD[TW-1:0], L_RP = I_RP[TW-1:0], L_RAS = I_RAS[TW-1:0],
                        L_RC = I_RC[TW-1:0], L_RRD = I_RRD[TW-1:0], L_RFC = I_RFC[TW-1:0],
                        L_MRD = I_MRD[TW-1:0], L_WR_PRE = I_WR_PRE[TW-1:0],
                        L_RD_WR = I_RD_WR[TW-1:0], L_BL = 6'd3;
    localparam [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10, RESP_DECERR = 2'b11;
    // commands {RAS#, CAS#, WE#} (CS# low)
    localparam [2:0] CMD_NOP = 3'b111, CMD_ACT = 3'b011, CMD_READ = 3'b101, CMD_WRITE = 3'b100,
                     CMD_PRE = 3'b010, CMD_REF = 3'b001, CMD_MRS = 3'b000;
    // mode register: write burst = programmed length, CAS latency, sequential, BL 4
    localparam [12:0] MODE = {3'b000, 1'b0, 2'b00, CasLatency[2:0], 1'b0, 3'b010};
    // init states
    localparam [2:0] StPower = 3'd0, StPrecharge = 3'd1, StRefresh = 3'd2, StMode = 3'd3,
                     StModeWait = 3'd4, StReady = 3'd5;

    if (DataBytes != 8) begin : g_bad_width
        `CMN_PARAM_ERROR("sdr_ctrl: DataBytes must be 8 (four 16-bit SDRAM words per beat)")
    end
    if (CasLatency != 2 && CasLatency != 3) begin : g_bad_cl
        `CMN_PARAM_ERROR("sdr_ctrl: CasLatency must be 2 or 3")
    end
    if (RowBits < 1 || RowBits > 13 || ColBits < 3 || ColBits > 10) begin : g_bad_geom
        `CMN_PARAM_ERROR("sdr_ctrl: RowBits must be 1..13 and ColBits 3..10 (A0..A12, A10 is auto precharge)")
    end
    if (AddrBits < CAP_BITS) begin : g_bad_addr
        `CMN_PARAM_ERROR("sdr_ctrl: AddrBits must cover the SDRAM")
    end
    if (ReadDelay < 0 || ReadDelay > 2 || InitRefresh < 2 || InitRefresh > 15) begin : g_bad_misc
        `CMN_PARAM_ERROR("sdr_ctrl: ReadDelay must be 0..2 and InitRefresh 2..15")
    end
    if (T_RC > 63 || T_RFC > 63 || RD_TO_WR > 63 || WR_TO_PRE > 63 || T_RAS > 63 || T_REFI < 64
        || T_POWER > 65535 || T_REFI > 65535) begin : g_bad_timing
        `CMN_PARAM_ERROR("sdr_ctrl: a timing parameter is out of range for its counter")
    end

    // ---- AXI request registers (one burst waiting per direction) ----------------------------
    logic                 aw_v_q, aw_v_d, ar_v_q, ar_v_d;
    logic [IdBits-1:0]    aw_id_q, aw_id_d, ar_id_q, ar_id_d;
    logic [BA_BITS-1:0]   aw_ba_q, aw_ba_d, ar_ba_q, ar_ba_d;
    logic [7:0]           aw_len_q, aw_len_d, ar_len_q, ar_len_d;
    logic [1:0]           aw_resp_q, aw_resp_d, ar_resp_q, ar_resp_d;

    // the burst being run, beat by beat
    logic                 cur_v_q, cur_v_d, cur_wr_q, cur_wr_d;
    logic [IdBits-1:0]    cur_id_q, cur_id_d;
    logic [BA_BITS-1:0]   cur_ba_q, cur_ba_d;
    logic [7:0]           cur_left_q, cur_left_d;
    logic [1:0]           cur_resp_q, cur_resp_d;
    logic                 last_rd_q, last_rd_d;   // the last burst loaded was a read

    // banks: open row per bank, timers (a command waits until its timer is 0)
    logic [3:0]           open_q, open_d;
    logic [4*RowBits-1:0] row_q, row_d;
    logic [4*TW-1:0]      act_w_q, act_w_d;   // ACTIVE (also REFRESH, MRS: all four at 0)
    logic [4*TW-1:0]      rw_w_q, rw_w_d;     // READ/WRITE after ACTIVE
    logic [4*TW-1:0]      pre_w_q, pre_w_d;   // PRECHARGE
    logic [TW-1:0]        rrd_w_q, rrd_w_d;   // ACTIVE after an ACTIVE to another bank
    logic [TW-1:0]        col_w_q, col_w_d;   // READ/WRITE after READ/WRITE (burst length)
    logic [TW-1:0]        wr_w_q, wr_w_d;     // WRITE after READ (bus turnaround)

    // init and refresh
    logic [2:0]           st_q, st_d;
    logic [15:0]          init_w_q, init_w_d;
    logic [3:0]           init_n_q, init_n_d;
    logic [15:0]          refi_q, refi_d;
    logic                 ref_pend_q, ref_pend_d;

    // SDRAM pin registers
    // CS# starts high (INHIBIT) from configuration on, before the first reset edge: the SDRAM
    // must see no command during its power-up wait
    logic                 cs_n_q = 1'b1;
    logic                 cs_n_d;
    logic [2:0]           cmd_q, cmd_d;
    logic [1:0]           ba_q, ba_d;
    logic [12:0]          a_q, a_d;
    logic [1:0]           dqm_q, dqm_d;
    logic [15:0]          dq_q, dq_d;
    logic                 dq_oe_q, dq_oe_d;
    logic [47:0]          wsh_q, wsh_d;       // the write beat's words 1..3
    logic [5:0]           wsm_q, wsm_d;       // and their strobes
    logic [1:0]           wsn_q, wsn_d;       // words of it still to drive

    // read return
    logic [TOK_LEN-1:0]   tok_q, tok_d;       // tok_q[k]: a READ issued k cycles ago
    logic [47:0]          asm_q, asm_d;       // words 0..2 of the beat being captured
    logic [16*ReadDelay+15:0] dqin_q;         // DQ input registers, newest in [15:0]
    wire [15:0]           dqin = dqin_q[16*ReadDelay +: 16];

    // ---- FIFOs ------------------------------------------------------------------------------
    wire [DataBytes*8-1:0] wf_data;
    wire [DataBytes-1:0]   wf_strb;
    wire                   wf_empty, wf_full;
    logic                  wf_pop;
    wire [2:0]             wf_count;
    sdr_fifo #(.Width(DataBytes*9), .DepthLog2(2)) u_wfifo (
        .clk_i(clk_i), .rst_i(rst_i), .push_i(s_wvalid_i), .data_i({s_wstrb_i, s_wdata_i}),
        .pop_i(wf_pop), .data_o({wf_strb, wf_data}), .empty_o(wf_empty), .full_o(wf_full),
        .count_o(wf_count)
    );
    assign s_wready_o = ~wf_full;

    logic                  bf_push;
    logic [IdBits+1:0]     bf_in;
    wire                   bf_empty, bf_full;
    wire [2:0]             bf_count;
    sdr_fifo #(.Width(IdBits+2), .DepthLog2(2)) u_bfifo (
        .clk_i(clk_i), .rst_i(rst_i), .push_i(bf_push), .data_i(bf_in),
        .pop_i(s_bready_i), .data_o({s_bid_o, s_bresp_o}), .empty_o(bf_empty), .full_o(bf_full),
        .count_o(bf_count)
    );
    assign s_bvalid_o = ~bf_empty;

    logic                  rf_push;
    logic [DataBytes*8+IdBits+2:0] rf_in;
    wire                   rf_empty, rf_full;
    wire [RBeatsLog2:0]    rf_count;
    sdr_fifo #(.Width(DataBytes*8+IdBits+3), .DepthLog2(RBeatsLog2)) u_rfifo (
        .clk_i(clk_i), .rst_i(rst_i), .push_i(rf_push), .data_i(rf_in),
        .pop_i(s_rready_i), .data_o({s_rlast_o, s_rresp_o, s_rid_o, s_rdata_o}),
        .empty_o(rf_empty), .full_o(rf_full), .count_o(rf_count)
    );
    assign s_rvalid_o = ~rf_empty;

    // READs in flight: their ID and RLAST, in order (at most RBeats, so never full when used)
    logic                  mf_push, mf_pop;
    logic [IdBits:0]       mf_in;
    wire [IdBits-1:0]      mf_id;
    wire                   mf_last, mf_empty, mf_full;
    wire [RBeatsLog2:0]    mf_count;
    sdr_fifo #(.Width(IdBits+1), .DepthLog2(RBeatsLog2)) u_mfifo (
        .clk_i(clk_i), .rst_i(rst_i), .push_i(mf_push), .data_i(mf_in), .pop_i(mf_pop),
        .data_o({mf_last, mf_id}), .empty_o(mf_empty), .full_o(mf_full), .count_o(mf_count)
    );

    wire unused_ok = ^{s_wlast_i, wf_count, bf_full, rf_full, mf_full};

    // ---- AXI address acceptance ---------------------------------------------------------------
    assign s_awready_o = ~aw_v_q;
    assign s_arready_o = ~ar_v_q;
    assign ready_o = (st_q == StReady);

    function automatic [1:0] resp_of(input [AddrBits-1:0] addr, input [2:0] size,
                                     input [1:0] burst);
        logic [AddrBits:0] hi;
        begin
            hi = {1'b0, addr} >> CAP_BITS;
            if (hi != {(AddrBits+1){1'b0}}) resp_of = RESP_DECERR;
            else if (size != 3'd3 || burst != 2'b01) resp_of = RESP_SLVERR;
            else resp_of = RESP_OKAY;
        end
    endfunction

    // ---- the current beat ---------------------------------------------------------------------
    wire [1:0]          c_bank = cur_ba_q[ColBits-1:ColBits-2];
    wire [RowBits-1:0]  c_row = cur_ba_q[BA_BITS-1:ColBits];
    wire [ColBits-1:0]  c_col = {cur_ba_q[ColBits-3:0], 2'b00};
    wire                c_open = open_q[c_bank];
    wire                c_hit = c_open && (row_q[c_bank*RowBits +: RowBits] == c_row);
    wire [RBeatsLog2+1:0] r_used = {1'b0, rf_count} + {1'b0, mf_count};
    wire                r_room = (r_used < (1 << RBeatsLog2));

    function automatic [TW-1:0] tmax(input [TW-1:0] a, input [TW-1:0] b);
        tmax = (a > b) ? a : b;
    endfunction
    function automatic [TW-1:0] tdec(input [TW-1:0] a);
        tdec = (a == {TW{1'b0}}) ? a : a - 1'b1;
    endfunction

    always_comb begin : p_sched
        logic beat_done;   // the current beat is issued (or answered) this cycle
        logic all_act_ok, all_pre_ok;
        logic take_w, take_r;
        logic ev_act, ev_pre, ev_rd, ev_wr;   // a command for the current beat's bank
        integer b;

        aw_v_d = aw_v_q; aw_id_d = aw_id_q; aw_ba_d = aw_ba_q; aw_len_d = aw_len_q;
        aw_resp_d = aw_resp_q;
        ar_v_d = ar_v_q; ar_id_d = ar_id_q; ar_ba_d = ar_ba_q; ar_len_d = ar_len_q;
        ar_resp_d = ar_resp_q;
        cur_v_d = cur_v_q; cur_wr_d = cur_wr_q; cur_id_d = cur_id_q; cur_ba_d = cur_ba_q;
        cur_left_d = cur_left_q; cur_resp_d = cur_resp_q; last_rd_d = last_rd_q;
        open_d = open_q; row_d = row_q;
        st_d = st_q; init_w_d = init_w_q; init_n_d = init_n_q;
        refi_d = refi_q; ref_pend_d = ref_pend_q;
        cs_n_d = 1'b0; cmd_d = CMD_NOP; ba_d = ba_q; a_d = a_q; dqm_d = 2'b00;
        dq_d = dq_q; dq_oe_d = 1'b0; wsh_d = wsh_q; wsm_d = wsm_q; wsn_d = wsn_q;
        tok_d = {tok_q[TOK_LEN-2:0], 1'b0};
        asm_d = asm_q;
        wf_pop = 1'b0; bf_push = 1'b0; bf_in = {cur_id_q, cur_resp_q};
        rf_push = 1'b0; rf_in = {DataBytes*8+IdBits+3{1'b0}};
        mf_push = 1'b0; mf_in = {1'b0, cur_id_q}; mf_pop = 1'b0;
        beat_done = 1'b0;
        take_w = 1'b0;
        take_r = 1'b0;
        ev_act = 1'b0;
        ev_pre = 1'b0;
        ev_rd = 1'b0;
        ev_wr = 1'b0;

        for (b = 0; b < 4; b = b + 1) begin
            act_w_d[b*TW +: TW] = tdec(act_w_q[b*TW +: TW]);
            rw_w_d[b*TW +: TW] = tdec(rw_w_q[b*TW +: TW]);
            pre_w_d[b*TW +: TW] = tdec(pre_w_q[b*TW +: TW]);
        end
        rrd_w_d = tdec(rrd_w_q);
        col_w_d = tdec(col_w_q);
        wr_w_d = tdec(wr_w_q);
        all_act_ok = 1'b1;
        all_pre_ok = 1'b1;
        for (b = 0; b < 4; b = b + 1) begin
            if (act_w_q[b*TW +: TW] != {TW{1'b0}}) all_act_ok = 1'b0;
            if (open_q[b] && pre_w_q[b*TW +: TW] != {TW{1'b0}}) all_pre_ok = 1'b0;
        end

        // AXI address channels
        if (s_awvalid_i && !aw_v_q) begin
            aw_v_d = 1'b1;
            aw_id_d = s_awid_i;
            aw_ba_d = s_awaddr_i[CAP_BITS-1:3];
            aw_len_d = s_awlen_i;
            aw_resp_d = resp_of(s_awaddr_i, s_awsize_i, s_awburst_i);
        end
        if (s_arvalid_i && !ar_v_q) begin
            ar_v_d = 1'b1;
            ar_id_d = s_arid_i;
            ar_ba_d = s_araddr_i[CAP_BITS-1:3];
            ar_len_d = s_arlen_i;
            ar_resp_d = resp_of(s_araddr_i, s_arsize_i, s_arburst_i);
        end

        // write data words 1..3 of a WRITE issued before
        if (wsn_q != 2'd0) begin
            dq_d = wsh_q[15:0];
            dqm_d = ~wsm_q[1:0];
            dq_oe_d = 1'b1;
            wsh_d = {16'd0, wsh_q[47:16]};
            wsm_d = {2'b00, wsm_q[5:2]};
            wsn_d = wsn_q - 2'd1;
        end

        // read data: words captured TOK0..TOK0+3 cycles after their READ
        if (tok_q[TOK0]) asm_d[15:0] = dqin;
        if (tok_q[TOK0+1]) asm_d[31:16] = dqin;
        if (tok_q[TOK0+2]) asm_d[47:32] = dqin;
        if (tok_q[TOK0+3]) begin
            rf_push = 1'b1;
            rf_in = {mf_last, RESP_OKAY, mf_id, dqin, asm_q};
            mf_pop = 1'b1;
        end

        // refresh timer, free-running
        if (refi_q == 16'd0) begin
            refi_d = T_REFI[15:0] - 16'd1;
            ref_pend_d = 1'b1;
        end else begin
            refi_d = refi_q - 16'd1;
        end

        case (st_q)
            StPower: begin
                cs_n_d = 1'b1;   // INHIBIT
                if (init_w_q == 16'd0) st_d = StPrecharge;
                else init_w_d = init_w_q - 16'd1;
            end
            StPrecharge: begin
                cmd_d = CMD_PRE;
                a_d = 13'h0400;   // A10: all banks
                for (b = 0; b < 4; b = b + 1) act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_RP);
                open_d = 4'b0000;
                init_n_d = InitRefresh[3:0];
                st_d = StRefresh;
            end
            StRefresh: begin
                if (all_act_ok) begin
                    if (init_n_q == 4'd0) begin
                        st_d = StMode;
                    end else begin
                        cmd_d = CMD_REF;
                        for (b = 0; b < 4; b = b + 1) act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_RFC);
                        init_n_d = init_n_q - 4'd1;
                    end
                end
            end
            StMode: begin
                cmd_d = CMD_MRS;
                ba_d = 2'b00;
                a_d = MODE;
                for (b = 0; b < 4; b = b + 1) act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_MRD);
                st_d = StModeWait;
            end
            StModeWait: begin
                if (all_act_ok) begin
                    st_d = StReady;
                    ref_pend_d = 1'b0;
                    refi_d = T_REFI[15:0] - 16'd1;
                end
            end
            default: begin  // StReady
                if (ref_pend_q) begin
                    // close every bank, then refresh; no new beat starts meanwhile
                    if (open_q != 4'b0000) begin
                        if (all_pre_ok) begin
                            cmd_d = CMD_PRE;
                            a_d = 13'h0400;
                            open_d = 4'b0000;
                            for (b = 0; b < 4; b = b + 1) act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_RP);
                        end
                    end else if (all_act_ok) begin
                        cmd_d = CMD_REF;
                        for (b = 0; b < 4; b = b + 1) act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_RFC);
                        ref_pend_d = (refi_q == 16'd0);
                    end
                end else if (cur_v_q && cur_resp_q != RESP_OKAY) begin
                    // a burst in error: no SDRAM command, W consumed, R/B with the error
                    if (cur_wr_q) begin
                        if (!wf_empty) begin
                            wf_pop = 1'b1;
                            beat_done = 1'b1;
                            bf_push = (cur_left_q == 8'd0);
                        end
                    end else if (mf_empty && r_room) begin
                        rf_push = 1'b1;
                        rf_in = {cur_left_q == 8'd0, cur_resp_q, cur_id_q, {DataBytes*8{1'b0}}};
                        beat_done = 1'b1;
                    end
                end else if (cur_v_q) begin
                    if (c_hit) begin
                        if (col_w_q == {TW{1'b0}} && rw_w_q[c_bank*TW +: TW] == {TW{1'b0}}) begin
                            if (cur_wr_q) begin
                                if (!wf_empty && wr_w_q == {TW{1'b0}}) begin
                                    cmd_d = CMD_WRITE;
                                    ba_d = c_bank;
                                    a_d = {{(13-ColBits){1'b0}}, c_col};
                                    dq_d = wf_data[15:0];
                                    dqm_d = ~wf_strb[1:0];
                                    dq_oe_d = 1'b1;
                                    wsh_d = wf_data[63:16];
                                    wsm_d = wf_strb[7:2];
                                    wsn_d = 2'd3;
                                    wf_pop = 1'b1;
                                    col_w_d = L_BL;
                                    ev_wr = 1'b1;
                                    bf_push = (cur_left_q == 8'd0);
                                    beat_done = 1'b1;
                                end
                            end else if (r_room) begin
                                cmd_d = CMD_READ;
                                ba_d = c_bank;
                                a_d = {{(13-ColBits){1'b0}}, c_col};
                                tok_d[0] = 1'b1;
                                mf_push = 1'b1;
                                mf_in = {cur_left_q == 8'd0, cur_id_q};
                                col_w_d = L_BL;
                                wr_w_d = tmax(wr_w_d, L_RD_WR);
                                ev_rd = 1'b1;
                                beat_done = 1'b1;
                            end
                        end
                    end else if (c_open) begin
                        if (pre_w_q[c_bank*TW +: TW] == {TW{1'b0}}) begin
                            cmd_d = CMD_PRE;
                            ba_d = c_bank;
                            a_d = 13'h0000;
                            ev_pre = 1'b1;
                        end
                    end else if (act_w_q[c_bank*TW +: TW] == {TW{1'b0}} && rrd_w_q == {TW{1'b0}}) begin
                        cmd_d = CMD_ACT;
                        ba_d = c_bank;
                        a_d = {{(13-RowBits){1'b0}}, c_row};
                        ev_act = 1'b1;
                        rrd_w_d = tmax(rrd_w_d, L_RRD);
                    end
                end
            end
        endcase

        // the current beat's bank: written with constant indices (a variable part-select
        // write costs a shifter over the whole vector)
        for (b = 0; b < 4; b = b + 1) begin
            if (c_bank == b[1:0]) begin
                if (ev_act) begin
                    open_d[b] = 1'b1;
                    row_d[b*RowBits +: RowBits] = c_row;
                    act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_RC);
                    rw_w_d[b*TW +: TW] = tmax(rw_w_d[b*TW +: TW], L_RCD);
                    pre_w_d[b*TW +: TW] = tmax(pre_w_d[b*TW +: TW], L_RAS);
                end
                if (ev_pre) begin
                    open_d[b] = 1'b0;
                    act_w_d[b*TW +: TW] = tmax(act_w_d[b*TW +: TW], L_RP);
                end
                if (ev_wr) pre_w_d[b*TW +: TW] = tmax(pre_w_d[b*TW +: TW], L_WR_PRE);
                if (ev_rd) pre_w_d[b*TW +: TW] = tmax(pre_w_d[b*TW +: TW], L_BL);
            end
        end

        // next beat, or the next burst once this one is done (or when there is none)
        if (beat_done) begin
            cur_ba_d = cur_ba_q + 1'b1;
            cur_left_d = cur_left_q - 8'd1;
            if (cur_left_q == 8'd0) cur_v_d = 1'b0;
        end
        if (!cur_v_q || (beat_done && cur_left_q == 8'd0)) begin
            // a write burst needs room for its B (one more may be pushed this cycle)
            take_w = aw_v_q && (bf_count < 3'd3);
            take_r = ar_v_q;
            if (take_w && take_r) begin
                take_w = last_rd_q;
                take_r = !last_rd_q;
            end
            if (take_r) begin
                cur_v_d = 1'b1; cur_wr_d = 1'b0; cur_id_d = ar_id_q; cur_ba_d = ar_ba_q;
                cur_left_d = ar_len_q; cur_resp_d = ar_resp_q; ar_v_d = 1'b0; last_rd_d = 1'b1;
            end else if (take_w) begin
                cur_v_d = 1'b1; cur_wr_d = 1'b1; cur_id_d = aw_id_q; cur_ba_d = aw_ba_q;
                cur_left_d = aw_len_q; cur_resp_d = aw_resp_q; aw_v_d = 1'b0; last_rd_d = 1'b0;
            end
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            aw_v_q <= 1'b0;
            ar_v_q <= 1'b0;
            cur_v_q <= 1'b0;
            last_rd_q <= 1'b0;
            open_q <= 4'b0000;
            act_w_q <= {4*TW{1'b0}};
            rw_w_q <= {4*TW{1'b0}};
            pre_w_q <= {4*TW{1'b0}};
            rrd_w_q <= {TW{1'b0}};
            col_w_q <= {TW{1'b0}};
            wr_w_q <= {TW{1'b0}};
            st_q <= StPower;
            init_w_q <= T_POWER[15:0];
            init_n_q <= 4'd0;
            refi_q <= T_REFI[15:0] - 16'd1;
            ref_pend_q <= 1'b0;
            cs_n_q <= 1'b1;
            cmd_q <= CMD_NOP;
            dq_oe_q <= 1'b0;
            wsn_q <= 2'd0;
            tok_q <= {TOK_LEN{1'b0}};
        end else begin
            aw_v_q <= aw_v_d;
            ar_v_q <= ar_v_d;
            cur_v_q <= cur_v_d;
            last_rd_q <= last_rd_d;
            open_q <= open_d;
            act_w_q <= act_w_d;
            rw_w_q <= rw_w_d;
            pre_w_q <= pre_w_d;
            rrd_w_q <= rrd_w_d;
            col_w_q <= col_w_d;
            wr_w_q <= wr_w_d;
            st_q <= st_d;
            init_w_q <= init_w_d;
            init_n_q <= init_n_d;
            refi_q <= refi_d;
            ref_pend_q <= ref_pend_d;
            cs_n_q <= cs_n_d;
            cmd_q <= cmd_d;
            dq_oe_q <= dq_oe_d;
            wsn_q <= wsn_d;
            tok_q <= tok_d;
        end
        aw_id_q <= aw_id_d; aw_ba_q <= aw_ba_d; aw_len_q <= aw_len_d; aw_resp_q <= aw_resp_d;
        ar_id_q <= ar_id_d; ar_ba_q <= ar_ba_d; ar_len_q <= ar_len_d; ar_resp_q <= ar_resp_d;
        cur_wr_q <= cur_wr_d; cur_id_q <= cur_id_d; cur_ba_q <= cur_ba_d;
        cur_left_q <= cur_left_d; cur_resp_q <= cur_resp_d;
        row_q <= row_d;
        ba_q <= ba_d;
        a_q <= a_d;
        dqm_q <= dqm_d;
        dq_q <= dq_d;
        wsh_q <= wsh_d;
        wsm_q <= wsm_d;
        asm_q <= asm_d;
    end

    // DQ input registers: the first is the pin's capture flop
    if (ReadDelay == 0) begin : g_dqin0
        always_ff @(posedge clk_i) dqin_q <= sdr_dq_i;
    end else begin : g_dqin
        always_ff @(posedge clk_i) dqin_q <= {dqin_q[16*ReadDelay-1:0], sdr_dq_i};
    end

    assign sdr_cke_o = 1'b1;
    assign sdr_cs_n_o = cs_n_q;
    assign sdr_ras_n_o = cmd_q[2];
    assign sdr_cas_n_o = cmd_q[1];
    assign sdr_we_n_o = cmd_q[0];
    assign sdr_ba_o = ba_q;
    assign sdr_a_o = a_q;
    assign sdr_dqm_o = dqm_q;
    assign sdr_dq_o = dq_q;
    assign sdr_dq_oe_o = dq_oe_q;
endmodule
`default_nettype wire
