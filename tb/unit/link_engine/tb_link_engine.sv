// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_link_engine: link_engine (32-bit streams, MaxPayload 256, RxWindow 1024 words, replay
// buffer 2048 words, 8 DMA tags) against a testbench host that speaks bridge/PROTOCOL.md from
// its own code: frames built and checked with its own CRC, sequence numbers, credits, ACK/NAK
// and go-back-N replay of its frames, and a checker of the device's. Behind the engine: an
// AXI4-Lite register model on m_csr (1024 registers, SLVERR above 0xFFC, every write counted),
// an AXI4 byte memory on m_ap (64 KiB, beats counted), random READY/VALID stalls everywhere;
// on s_host an AXI4 master issuing read and write bursts (1..16 beats) whose DMA requests the
// host answers out of order from its own memory (most reads continue the last one at a
// 128-byte boundary, so the engine, DmaJoinWait 48, joins them; the host answers DECERR for
// one page, where two whole bursts are read; most writes continue the last one too, and the
// engine, DmaWrJoinWait 48, joins them into one DMA_WR, except a burst of zero strobes, which
// the host must never write; each phase also writes six bursts in a row from a page's start,
// the third of zero strobes). irq_i toggles.
// Phases: RESET/RESET_ACK, HELLO (every HELLO_RSP field), a clean phase of random RD32 / WR32
// (posted or not, partial strobes, failing offsets) / AP_RD / AP_WR (FBE/LBE, posted or not)
// / out-of-BAR1 reads, DMA and IRQs; then the same with link faults both ways: garbage
// between frames, corrupted header and payload bits, dropped and duplicated host frames,
// dropped device frames (ACKs among them); then a DMA read the host never answers in time
// (SLVERR, its late answer dropped) and a link RESET while a DMA read is outstanding (SLVERR).
// Checks: every request answered exactly once with the expected values (register values,
// aperture bytes), posted writes answered only on error, every register write applied exactly
// once (write counts), every aperture beat written once, the aperture and host memories equal
// to the reference at the end, every DMA R beat exact (DECERR on every beat of that page),
// reads joined into fewer DMA_RD requests, writes joined into fewer DMA_WR requests no longer
// than the device's MaxPayload and the one of the host's last HELLO (67 words in the fault
// phase, 34 after the RESET: no joining), B OKAY, IRQ messages in order, replays
// and NAKs observed in the fault phase, no frame the device sends is bad.
// Output is TAP through the kit (tb/unit/common/tb_kit.svh: +seed=N, +wave=<file>); inputs
// change after the falling edge, handshakes are taken from the values settled before the rising
// edge.
// The testbench (never the RTL) is written as behavioural code: blocking assignments in its
// clocked processes, integer arithmetic on header fields, counters it does not read back.
/* verilator lint_off BLKSEQ */
/* verilator lint_off WIDTH */
/* verilator lint_off UNUSEDSIGNAL */
// tb_link_engine_b1 includes this file to build the same module under its own name.
/* verilator lint_off DECLFILENAME */
`ifndef LINK_TB_NAME
`define LINK_TB_NAME tb_link_engine
`define LINK_TB_PB 4
`endif
module `LINK_TB_NAME;
    localparam integer PB = `LINK_TB_PB;        // PHY bytes per beat: 4, or 1 (tb_link_engine_b1)
    localparam integer TS = (PB == 1) ? 4 : 1;  // timers scale with the cycles a word takes
    localparam integer MP = 256;
    localparam integer RXL = 10;
    localparam integer RXW = 1 << RXL;
    localparam integer TAGS = 8;
    localparam integer DMATO = 40000 * TS;
    localparam integer RTO = 3000 * TS;
    localparam integer PLAN = 29;
    localparam [31:0] SYNC = 32'h5AA5_5247;
    localparam integer OBN = 1 << 16;
    // requests and DMA bursts per phase; Icarus, some 30 times slower, runs fewer
`ifdef __ICARUS__
    localparam integer NOPS = (PB == 1) ? 30 : 80;
    localparam integer NDMA = (PB == 1) ? 12 : 24;
`else
    localparam integer NOPS = (PB == 1) ? 80 : 240;
    localparam integer NDMA = (PB == 1) ? 24 : 60;
`endif

    // ---- DUT --------------------------------------------------------------------------------
    logic clk = 1'b0;
    logic rst = 1'b1;
    always #5 clk = ~clk;
    logic [PB*8-1:0] rx_data = '0;
    logic            rx_valid = 1'b0;
    wire             rx_ready;
    wire  [PB*8-1:0] tx_data;
    wire             tx_valid;
    logic            tx_ready = 1'b0;
    logic            irq = 1'b0;
    // csr
    wire [15:0] c_awaddr, c_araddr;
    wire [2:0]  c_awprot, c_arprot;
    wire        c_awvalid, c_wvalid, c_bready, c_arvalid, c_rready;
    logic       c_awready = 0, c_wready = 0, c_bvalid = 0, c_arready = 0, c_rvalid = 0;
    wire [31:0] c_wdata;
    wire [3:0]  c_wstrb;
    logic [1:0] c_bresp = 0, c_rresp = 0;
    logic [31:0] c_rdata = 0;
    // ap
    wire [3:0]  a_awid, a_arid;
    wire [27:0] a_awaddr, a_araddr;
    wire [7:0]  a_awlen, a_arlen;
    wire [2:0]  a_awsize, a_arsize, a_awprot, a_arprot;
    wire [1:0]  a_awburst, a_arburst;
    wire        a_awlock, a_arlock;
    wire [3:0]  a_awcache, a_arcache;
    wire        a_awvalid, a_wvalid, a_wlast, a_bready, a_arvalid, a_rready;
    logic       a_awready = 0, a_wready = 0, a_bvalid = 0, a_arready = 0, a_rvalid = 0, a_rlast = 0;
    wire [63:0] a_wdata;
    wire [7:0]  a_wstrb;
    logic [1:0] a_bresp = 0, a_rresp = 0;
    logic [63:0] a_rdata = 0;
    // host
    logic [3:0]  h_awid = 0, h_arid = 0;
    logic [63:0] h_awaddr = 0, h_araddr = 0;
    logic [7:0]  h_awlen = 0, h_arlen = 0;
    logic        h_awvalid = 0, h_wvalid = 0, h_wlast = 0, h_bready = 0, h_arvalid = 0, h_rready = 0;
    wire         h_awready, h_wready, h_bvalid, h_arready, h_rvalid, h_rlast;
    logic [63:0] h_wdata = 0;
    logic [7:0]  h_wstrb = 0;
    wire  [3:0]  h_bid, h_rid;
    wire  [1:0]  h_bresp, h_rresp;
    wire  [63:0] h_rdata;
    wire         link_up;
    wire  [15:0] crc_errs, naks, replays, bad_frames, dma_timeouts;

    link_engine #(
        .PhyBytes(PB), .MaxPayload(MP), .RxWindowLog2(RXL), .ReplayLog2(11), .DmaTags(TAGS),
        .DmaJoinWait(48), .DmaWrJoinWait(48), .LinkKind(1), .CoreHz(100000000), .ReplayTimeout(RTO),
        .DmaTimeout(DMATO), .AckDelay(256)
    ) dut (
        .clk_i(clk), .rst_i(rst),
        .rx_data_i(rx_data), .rx_valid_i(rx_valid), .rx_ready_o(rx_ready),
        .tx_data_o(tx_data), .tx_valid_o(tx_valid), .tx_ready_i(tx_ready),
        .m_csr_awaddr_o(c_awaddr), .m_csr_awprot_o(c_awprot), .m_csr_awvalid_o(c_awvalid),
        .m_csr_awready_i(c_awready), .m_csr_wdata_o(c_wdata), .m_csr_wstrb_o(c_wstrb),
        .m_csr_wvalid_o(c_wvalid), .m_csr_wready_i(c_wready), .m_csr_bresp_i(c_bresp),
        .m_csr_bvalid_i(c_bvalid), .m_csr_bready_o(c_bready), .m_csr_araddr_o(c_araddr),
        .m_csr_arprot_o(c_arprot), .m_csr_arvalid_o(c_arvalid), .m_csr_arready_i(c_arready),
        .m_csr_rdata_i(c_rdata), .m_csr_rresp_i(c_rresp), .m_csr_rvalid_i(c_rvalid),
        .m_csr_rready_o(c_rready),
        .m_ap_awid_o(a_awid), .m_ap_awaddr_o(a_awaddr), .m_ap_awlen_o(a_awlen),
        .m_ap_awsize_o(a_awsize), .m_ap_awburst_o(a_awburst), .m_ap_awlock_o(a_awlock),
        .m_ap_awcache_o(a_awcache), .m_ap_awprot_o(a_awprot), .m_ap_awvalid_o(a_awvalid),
        .m_ap_awready_i(a_awready), .m_ap_wdata_o(a_wdata), .m_ap_wstrb_o(a_wstrb),
        .m_ap_wlast_o(a_wlast), .m_ap_wvalid_o(a_wvalid), .m_ap_wready_i(a_wready),
        .m_ap_bid_i(4'd0), .m_ap_bresp_i(a_bresp), .m_ap_bvalid_i(a_bvalid),
        .m_ap_bready_o(a_bready), .m_ap_arid_o(a_arid), .m_ap_araddr_o(a_araddr),
        .m_ap_arlen_o(a_arlen), .m_ap_arsize_o(a_arsize), .m_ap_arburst_o(a_arburst),
        .m_ap_arlock_o(a_arlock), .m_ap_arcache_o(a_arcache), .m_ap_arprot_o(a_arprot),
        .m_ap_arvalid_o(a_arvalid), .m_ap_arready_i(a_arready), .m_ap_rid_i(4'd0),
        .m_ap_rdata_i(a_rdata), .m_ap_rresp_i(a_rresp), .m_ap_rlast_i(a_rlast),
        .m_ap_rvalid_i(a_rvalid), .m_ap_rready_o(a_rready),
        .s_host_awid_i(h_awid), .s_host_awaddr_i(h_awaddr), .s_host_awlen_i(h_awlen),
        .s_host_awsize_i(3'd3), .s_host_awburst_i(2'd1), .s_host_awlock_i(1'b0),
        .s_host_awcache_i(4'd0), .s_host_awprot_i(3'd0), .s_host_awvalid_i(h_awvalid),
        .s_host_awready_o(h_awready), .s_host_wdata_i(h_wdata), .s_host_wstrb_i(h_wstrb),
        .s_host_wlast_i(h_wlast), .s_host_wvalid_i(h_wvalid), .s_host_wready_o(h_wready),
        .s_host_bid_o(h_bid), .s_host_bresp_o(h_bresp), .s_host_bvalid_o(h_bvalid),
        .s_host_bready_i(h_bready), .s_host_arid_i(h_arid), .s_host_araddr_i(h_araddr),
        .s_host_arlen_i(h_arlen), .s_host_arsize_i(3'd3), .s_host_arburst_i(2'd1),
        .s_host_arlock_i(1'b0), .s_host_arcache_i(4'd0), .s_host_arprot_i(3'd0),
        .s_host_arvalid_i(h_arvalid), .s_host_arready_o(h_arready), .s_host_rid_o(h_rid),
        .s_host_rdata_o(h_rdata), .s_host_rresp_o(h_rresp), .s_host_rlast_o(h_rlast),
        .s_host_rvalid_o(h_rvalid), .s_host_rready_i(h_rready),
        .irq_i(irq), .link_up_o(link_up), .crc_errs_o(crc_errs), .naks_o(naks),
        .replays_o(replays), .bad_frames_o(bad_frames), .dma_timeouts_o(dma_timeouts));

    // ---- TAP and random ---------------------------------------------------------------------
`define TB_TOP `LINK_TB_NAME
`include "tb/unit/common/tb_kit.svh"
    integer errors = 0;
    string  first_err = "";
    task automatic err(input string what);
        if (errors == 0) begin
            first_err = what;
            if ($test$plusargs("dump")) dump_state();
        end
        if (errors < 10) $display("# error at %0t: %0s", $time, what);
        errors = errors + 1;
    endtask
    task automatic pct(input integer p, output bit b);  // true p times in 100
        integer r;
        rndn(100, r);
        b = r < p;
    endtask
    function automatic [31:0] crc_w(input [31:0] c, input [31:0] w);
        integer b, k;
        reg [31:0] x;
        begin
            x = c;
            for (b = 0; b < 4; b = b + 1) begin
                x = x ^ {24'd0, w[8*b +: 8]};
                for (k = 0; k < 8; k = k + 1) x = x[0] ? ((x >> 1) ^ 32'hEDB8_8320) : (x >> 1);
            end
            crc_w = x;
        end
    endfunction

    integer stall = 20;      // percent of cycles a READY or VALID of the testbench is low
    bit     faults = 0;      // link faults on
    bit     rx_drop_on = 0;  // drop device frames
    integer cyc = 0;
    always @(posedge clk) cyc <= cyc + 1;

    // ---- register model (m_csr) ---------------------------------------------------------------
    logic [31:0] csr_mem [0:1023];
    logic [31:0] csr_ref [0:1023];
    integer      csr_wcnt [0:1023];
    integer      csr_wexp [0:1023];
    logic        c_aw_got = 0, c_w_got = 0;
    logic [15:0] c_aw_a;
    logic [31:0] c_w_d;
    logic [3:0]  c_w_s;
    bit          c_b_hs = 0, c_r_hs = 0, c_ar_hs = 0;
    logic [15:0] c_ar_a;
    integer      k;
    // Each model: at the falling edge it applies the handshakes of the last rising edge and
    // drives new values; 1 time unit later it notes the handshakes the next rising edge takes.
    bit          c_st_aw, c_st_w, c_st_ar;   // the model's stall draws
    always @(negedge clk) begin
        if (!rst) begin
            if (c_b_hs) c_bvalid = 0;
            if (c_r_hs) c_rvalid = 0;
            if (c_ar_hs) begin
                c_rvalid = 1;
                c_rresp = (c_ar_a >= 16'h1000) ? 2'd2 : 2'd0;
                c_rdata = (c_ar_a >= 16'h1000) ? 32'd0 : csr_mem[c_ar_a[11:2]];
            end
            if (c_aw_got && c_w_got && !c_bvalid) begin
                c_aw_got = 0;
                c_w_got = 0;
                if (c_aw_a >= 16'h1000) begin
                    c_bresp = 2'd2;
                end else begin
                    c_bresp = 2'd0;
                    for (k = 0; k < 4; k = k + 1)
                        if (c_w_s[k]) csr_mem[c_aw_a[11:2]][8*k +: 8] = c_w_d[8*k +: 8];
                    csr_wcnt[c_aw_a[11:2]] = csr_wcnt[c_aw_a[11:2]] + 1;
                end
                c_bvalid = 1;
            end
            pct(stall, c_st_aw); pct(stall, c_st_w); pct(stall, c_st_ar);
            c_awready = !c_aw_got && !c_st_aw;
            c_wready = !c_w_got && !c_st_w;
            c_arready = !c_rvalid && !c_ar_hs && !c_st_ar;
            #1;
            c_b_hs = c_bvalid && c_bready;
            c_r_hs = c_rvalid && c_rready;
            c_ar_hs = c_arvalid && c_arready;
            c_ar_a = c_araddr;
            if (c_awvalid && c_awready) begin c_aw_got = 1; c_aw_a = c_awaddr; end
            if (c_wvalid && c_wready) begin c_w_got = 1; c_w_d = c_wdata; c_w_s = c_wstrb; end
        end
    end

    // ---- aperture memory (m_ap) ----------------------------------------------------------------
    logic [7:0]  ap_mem [0:65535];
    logic [7:0]  ap_ref [0:65535];
    integer      ap_beats = 0, ap_beats_exp = 0;
    logic [27:0] aw_q_a [0:63];
    logic [7:0]  aw_q_l [0:63];
    integer      aw_wr = 0, aw_rd = 0, w_beat = 0, b_pend = 0;
    logic [27:0] ar_q_a [0:63];
    logic [7:0]  ar_q_l [0:63];
    integer      ar_wr = 0, ar_rd = 0, r_beat = 0;
    bit          a_b_hs = 0, a_r_hs = 0;
    bit          a_st_b, a_st_r, a_st_aw, a_st_w, a_st_ar;   // the model's stall draws
    always @(negedge clk) begin
        if (!rst) begin
            if (a_b_hs) a_bvalid = 0;
            if (a_r_hs) begin
                a_rvalid = 0;
                if (r_beat == integer'(ar_q_l[ar_rd % 64])) begin
                    r_beat = 0;
                    ar_rd = ar_rd + 1;
                end else begin
                    r_beat = r_beat + 1;
                end
            end
            pct(stall, a_st_b); pct(stall, a_st_r);
            pct(stall, a_st_aw); pct(stall, a_st_w); pct(stall, a_st_ar);
            if (!a_bvalid && b_pend > 0 && !a_st_b) begin
                a_bvalid = 1;
                a_bresp = 2'd0;
                b_pend = b_pend - 1;
            end
            if (!a_rvalid && ar_rd != ar_wr && !a_st_r) begin
                a_rvalid = 1;
                a_rresp = 2'd0;
                a_rlast = (r_beat == integer'(ar_q_l[ar_rd % 64]));
                for (k = 0; k < 8; k = k + 1)
                    a_rdata[8*k +: 8] = ap_mem[(ar_q_a[ar_rd % 64][15:0] + 16'(r_beat * 8) + 16'(k))];
            end
            a_awready = !a_st_aw;
            a_wready = (aw_rd != aw_wr) && !a_st_w;
            a_arready = !a_st_ar;
            #1;
            a_b_hs = a_bvalid && a_bready;
            a_r_hs = a_rvalid && a_rready;
            if (a_awvalid && a_awready) begin
                aw_q_a[aw_wr % 64] = a_awaddr;
                aw_q_l[aw_wr % 64] = a_awlen;
                aw_wr = aw_wr + 1;
                if (a_awsize != 3'd3 || a_awburst != 2'd1 || a_awlen > 8'd15 ||
                    ({1'b0, a_awaddr[11:3]} + {2'b0, a_awlen}) > 10'd511 || a_awaddr[2:0] != 0)
                    err("AW burst breaks the rules (size, INCR, <= 16 beats, 4 KiB)");
            end
            if (a_wvalid && a_wready) begin
                for (k = 0; k < 8; k = k + 1)
                    if (a_wstrb[k]) ap_mem[(aw_q_a[aw_rd % 64][15:0] + 16'(w_beat * 8) + 16'(k))] = a_wdata[8*k +: 8];
                ap_beats = ap_beats + 1;
                if (a_wlast != (w_beat == integer'(aw_q_l[aw_rd % 64]))) err("WLAST wrong on s_ap");
                if (w_beat == integer'(aw_q_l[aw_rd % 64])) begin
                    w_beat = 0;
                    aw_rd = aw_rd + 1;
                    b_pend = b_pend + 1;
                end else begin
                    w_beat = w_beat + 1;
                end
            end
            if (a_arvalid && a_arready) begin
                ar_q_a[ar_wr % 64] = a_araddr;
                ar_q_l[ar_wr % 64] = a_arlen;
                ar_wr = ar_wr + 1;
                if (a_arsize != 3'd3 || a_arburst != 2'd1 || a_arlen > 8'd15 ||
                    ({1'b0, a_araddr[11:3]} + {2'b0, a_arlen}) > 10'd511 || a_araddr[2:0] != 0)
                    err("AR burst breaks the rules (size, INCR, <= 16 beats, 4 KiB)");
            end
        end
    end

    // ---- host memory --------------------------------------------------------------------------
    // 0x10000..0x1FFFF: read region (fixed pattern), 0x20000..0x2FFFF: write region
    logic [7:0] hm [0:196607];
    logic [7:0] hm_ref [0:196607];
    function automatic [7:0] pat(input integer a);
        pat = 8'(a * 7 + (a >> 8) * 13 + 1);
    endfunction

    // ---- host: outgoing words ------------------------------------------------------------------
    logic [31:0] ob_w [0:OBN-1];
    logic        ob_g [0:OBN-1];        // a lone garbage byte (8-bit PHY only)
    integer      ob_wr = 0, ob_rd = 0, ob_b = 0;
    task automatic ob_push(input [31:0] w);
        ob_w[ob_wr % OBN] = w;
        ob_g[ob_wr % OBN] = 1'b0;
        ob_wr = ob_wr + 1;
    endtask
    bit rx_st;
    always @(negedge clk) begin
        if (!rst) begin
            pct(stall, rx_st);
            rx_valid <= (ob_rd != ob_wr) && !rx_st;
            rx_data <= ob_w[ob_rd % OBN] >> (8 * ob_b);
            #1;
            if (rx_valid && rx_ready) begin
                // a lone garbage byte (8-bit PHY) is one beat; a word is 4 / PB beats
                if (ob_g[ob_rd % OBN] || ob_b + PB >= 4) begin
                    ob_rd = ob_rd + 1;
                    ob_b = 0;
                end else ob_b = ob_b + PB;
            end
        end
    end

    // host link state
    integer      h_next = 0, h_acked = 0, h_rxexp = 0, h_unacked_w = 0;
    logic [7:0]  hs_type [0:63];
    integer      hs_len [0:63];
    logic [31:0] hs_pl [0:64*512-1];
    integer      h_tmr = 0, h_replays = 0, h_nak_sent_for = -1;
    bit          h_need_ack = 0;
    integer      n_corrupt = 0, n_drop = 0, n_dup = 0, n_garb = 0, n_rxdrop = 0;
    bit          corrupt_next_rel = 0;   // corrupt the next reliable frame's payload
    logic [31:0] pl [0:1023];

    // one frame onto the wire, with the faults of the phase
    task automatic emit(input [7:0] typ, input bit rel, input integer seq, input integer len,
                        input integer src);   // src: -1 pl[], else replay slot
        integer i, nw, bad_i, copies, c, g, r;
        bit p1, p2;
        reg [31:0] fw [0:1023];
        reg [31:0] cr, w;
        begin
            fw[0] = SYNC;
            fw[1] = {16'(len), 7'd0, rel, typ};
            fw[2] = {16'(h_rxexp), 16'(seq)};
            fw[3] = ~crc_w(crc_w(32'hFFFF_FFFF, fw[1]), fw[2]);
            cr = 32'hFFFF_FFFF;
            for (i = 0; i < len; i = i + 1) begin
                fw[4 + i] = (src < 0) ? pl[i] : hs_pl[src * 512 + i];
                cr = crc_w(cr, fw[4 + i]);
            end
            nw = 4 + len;
            if (len > 0) begin
                fw[nw] = ~cr;
                nw = nw + 1;
            end
            copies = 1;
            if (faults) begin
                pct(3, p1); pct(3, p2);
                if (p1) begin copies = 0; n_drop = n_drop + 1; end
                else if (p2) begin copies = 2; n_dup = n_dup + 1; end
            end
            for (c = 0; c < copies; c = c + 1) begin
                p1 = 0;
                if (faults) pct(4, p1);
                if (p1) begin
                    rndn(6, g);
                    g = g + 1;
                    n_garb = n_garb + 1;
                    for (i = 0; i < g; i = i + 1) begin
                        rnd32(w);
                        ob_push(w & 32'hFFFF_00FF);
                        if (PB == 1) begin   // odd byte counts
                            pct(70, p2);
                            ob_g[(ob_wr - 1) % OBN] = p2;
                        end
                    end
                end
                bad_i = -1;
                p1 = 0;
                if (faults) pct(4, p1);
                if (p1) begin
                    rndn(nw, bad_i);
                    n_corrupt = n_corrupt + 1;
                end else if (faults && corrupt_next_rel && rel && len > 0) begin
                    // the fault phase's first reliable frame with a payload gets a bad PCRC,
                    // so that a NAK is owed however the random faults fall
                    rndn(len, bad_i);
                    bad_i = 4 + bad_i;
                    n_corrupt = n_corrupt + 1;
                end
                if (faults && rel && len > 0) corrupt_next_rel = 0;
                for (i = 0; i < nw; i = i + 1)
                    if (i == bad_i) begin
                        rndn(32, r);
                        ob_push(fw[i] ^ (32'd1 << r));
                    end else ob_push(fw[i]);
            end
        end
    endtask
    task automatic send_ctl(input [7:0] typ, input integer len);
        emit(typ, 1'b0, 0, len, -1);
    endtask
    function automatic bit credit_ok(input integer len);
        credit_ok = (h_unacked_w + len + 5 <= RXW) && (h_next - h_acked < 60);
    endfunction
    task automatic send_rel(input [7:0] typ, input integer len);
        integer s, i;
        begin
            s = h_next % 64;
            hs_type[s] = typ;
            hs_len[s] = len;
            for (i = 0; i < len; i = i + 1) hs_pl[s * 512 + i] = pl[i];
            emit(typ, 1'b1, h_next, len, -1);
            h_next = h_next + 1;
            h_unacked_w = h_unacked_w + len + 5;
            h_need_ack = 0;
        end
    endtask
    task automatic replay_from_acked();
        integer s;
        begin
            h_replays = h_replays + 1;
            if ($test$plusargs("trace"))
                $display("# %0t host replays %0d..%0d (device rx_next %0d)", $time, h_acked, h_next - 1,
                         dut.u_rx.rx_next_q);
            for (s = h_acked; s < h_next; s = s + 1)
                emit(hs_type[s % 64], 1'b1, s, hs_len[s % 64], s % 64);
            h_tmr = 0;
        end
    endtask
    task automatic take_ack(input integer a16);
        integer d;
        begin
            d = (a16 - h_acked) & 16'hFFFF;
            if (d <= h_next - h_acked) begin
                if (d > 0) h_tmr = 0;
                while (d > 0) begin
                    h_unacked_w = h_unacked_w - hs_len[h_acked % 64] - 5;
                    h_acked = h_acked + 1;
                    d = d - 1;
                end
            end else begin
                err("device ACK outside the host's window");
            end
        end
    endtask

    // ---- expectations -----------------------------------------------------------------------
    integer      next_id = 1;
    integer      outstanding = 0;
    logic [7:0]  ex_type [0:255];
    integer      ex_len [0:255];
    bit          ex_on [0:255];
    logic [31:0] ex_w [0:256*512-1];
    integer      n_rsp = 0, n_rsp_exp = 0;
    // DMA requests waiting for the host's answer
    integer      pd_n = 0;
    bit          pd_wr [0:31], pd_dec [0:31];
    integer      want_dec = 0, dec_beats = 0, dec_frames = 0;   // reads of the DECERR page
    integer      pd_tag [0:31], pd_addr [0:31], pd_dw [0:31], pd_due [0:31];
    integer      dma_wr_frames = 0, dma_rd_frames = 0, late_sent = 0;
    integer      wr_len_max = 0, wr_joined = 0;   // the longest DMA_WR; those of > 1 burst
    integer      irq_msgs = 0, irq_seq_exp = 0;
    bit          irq_seq_any = 0;
    logic        irq_lvl_exp = 0;
    bit          hello_ok = 0, rack_ok = 0, h_resetting = 0, drop_next_rel = 0;
    integer      rack_epoch = -1;
    integer      bad_dev_frames = 0;

    // ---- host: incoming frames ------------------------------------------------------------------
    integer      ds = 0, dlen = 0, dcnt = 0;
    logic [31:0] dw1, dw2, dcrc;
    logic [31:0] dp [0:1023];
    task automatic dev_frame();
        integer typ, rel, seq, ackf, len, id, i, s, cnt, r;
        reg [31:0] w0;
        bit drop;
        begin
            typ = dw1[7:0];
            rel = dw1[8];
            len = dw1[31:16];
            seq = dw2[15:0];
            ackf = dw2[31:16];
            drop = 0;
            if (rx_drop_on) pct(3, drop);
            if (rx_drop_on && (drop || (drop_next_rel && rel))) begin
                // the first reliable frame of the phase always goes: a replay is certain
                if (rel) drop_next_rel = 0;
                n_rxdrop = n_rxdrop + 1;
            end else if (h_resetting && !(typ == 8'h05 && !rel)) begin
                // frames sent before the device saw our RESET
            end else begin
                take_ack(ackf);
                if (!rel) begin
                    if (typ == 8'h02) replay_from_acked();
                    else if (typ == 8'h05) begin
                        rack_epoch = dp[0][15:0];
                        h_resetting = 0;
                    end else if (typ != 8'h01) err("device sent an unknown control frame");
                end else if (seq != (h_rxexp & 16'hFFFF)) begin
                    if (((seq - h_rxexp) & 16'hFFFF) < 16'h8000) begin
                        if (h_nak_sent_for != h_rxexp) begin
                            h_nak_sent_for = h_rxexp;
                            send_ctl(8'h02, 0);
                        end
                    end else begin
                        h_need_ack = 1;
                    end
                end else begin
                    h_rxexp = h_rxexp + 1;
                    h_need_ack = 1;
                    w0 = dp[0];
                    case (typ)
                        8'h90: begin
                            hello_ok = (len == 10) && dp[0] == 32'h0001_0000 &&
                                       dp[1] == {16'(RXW), 16'(MP)} &&
                                       dp[2] == {8'd28, 8'd16, 8'd1, 8'(TAGS)} &&
                                       dp[3] == 32'd100000000 && dp[4] == 32'(RTO) &&
                                       dp[5] == 32'(DMATO) && dp[6] == 0 && dp[7] == 0 &&
                                       dp[8] == 0 && dp[9] == 0;
                        end
                        8'h91, 8'h92, 8'h93, 8'h94: begin
                            id = w0[15:0] % 256;
                            if (!ex_on[id] || ex_type[id] != typ[7:0] || ex_len[id] != len)
                                err($sformatf("unexpected answer type %02x len %0d id %0d", typ, len, w0[15:0]));
                            else begin
                                for (i = 0; i < len; i = i + 1)
                                    if (dp[i] != ex_w[id * 512 + i])
                                        err($sformatf("answer %02x id %0d word %0d: %08x, expected %08x",
                                                      typ, w0[15:0], i, dp[i], ex_w[id * 512 + i]));
                                ex_on[id] = 0;
                                outstanding = outstanding - 1;
                                n_rsp = n_rsp + 1;
                            end
                        end
                        8'h20: begin
                            dma_rd_frames = dma_rd_frames + 1;
                            if (len != 4) err("DMA_RD length");
                            pd_wr[pd_n] = 0;
                            pd_tag[pd_n] = dp[0][7:0];
                            pd_addr[pd_n] = dp[1];
                            pd_dw[pd_n] = dp[3][15:0];
                            // the page at 0x1F000 is not the host's: DECERR
                            pd_dec[pd_n] = dp[1] >= 32'h1F000 && dp[1] < 32'h20000;
                            if (dp[1] == 32'h1F000 && dp[3][15:0] == 64) dec_frames = dec_frames + 1;
                            rndn(400, r);
                            pd_due[pd_n] = cyc + 20 + r;
                            if (dp[1] >= 32'h30000) pd_due[pd_n] = cyc + DMATO + 2000;
                            pd_n = pd_n + 1;
                        end
                        8'h21: begin
                            dma_wr_frames = dma_wr_frames + 1;
                            if (len > wr_len_max) wr_len_max = len;
                            if (len > 35) wr_joined = wr_joined + 1;
                            cnt = len - 3;
                            for (i = 0; i < cnt; i = i + 1)
                                for (s = 0; s < 4; s = s + 1)
                                    if ((i == 0 ? dp[0][16 + s] : (i == cnt - 1 ? dp[0][20 + s] : 1'b1)) &&
                                        dp[1] + 4 * i + s < 196608)
                                        hm[dp[1] + 4 * i + s] = dp[3 + i][8 * s +: 8];
                            pd_wr[pd_n] = 1;
                            pd_dec[pd_n] = 0;
                            pd_dw[pd_n] = 0;
                            pd_addr[pd_n] = dp[1];
                            pd_tag[pd_n] = dp[0][7:0];
                            rndn(400, r);
                            pd_due[pd_n] = cyc + 20 + r;
                            pd_n = pd_n + 1;
                        end
                        8'h22: begin
                            irq_msgs = irq_msgs + 1;
                            if (!irq_seq_any && dp[0][15:0] != 16'(irq_seq_exp)) err("IRQSEQ out of order");
                            irq_seq_any = 0;
                            irq_seq_exp = dp[0][15:0] + 1;
                            irq_lvl_exp = dp[0][16];
                        end
                        default: err("device sent an unknown reliable frame");
                    endcase
                end
            end
        end
    endtask

    logic [31:0] tw_acc = 0;
    bit          tx_st;
    integer      tw_n = 0;
    always @(negedge clk) begin
        if (!rst) begin
            pct(stall, tx_st);
            tx_ready <= !tx_st;
            #1;
            if (tx_valid && tx_ready) begin
                tw_acc = (tw_acc >> (8 * PB)) | (32'(tx_data) << (32 - 8 * PB));
                tw_n = tw_n + PB;
            end
            if (tw_n == 4) begin
                tw_n = 0;
                case (ds)
                    0: if (tw_acc == SYNC) ds = 1;
                       else begin bad_dev_frames = bad_dev_frames + 1; err("device sent a word outside a frame"); end
                    1: begin dw1 = tw_acc; ds = 2; end
                    2: begin dw2 = tw_acc; ds = 3; end
                    3: begin
                        if (tw_acc != ~crc_w(crc_w(32'hFFFF_FFFF, dw1), dw2)) begin
                            err("device HCRC wrong");
                            bad_dev_frames = bad_dev_frames + 1;
                            ds = 0;
                        end else begin
                            dlen = dw1[31:16];
                            dcnt = 0;
                            dcrc = 32'hFFFF_FFFF;
                            if (dlen == 0) begin dev_frame(); ds = 0; end
                            else ds = 4;
                        end
                    end
                    4: begin
                        if (dcnt == dlen) begin
                            if (tw_acc != ~dcrc) begin
                                err("device PCRC wrong");
                                bad_dev_frames = bad_dev_frames + 1;
                            end else dev_frame();
                            ds = 0;
                        end else begin
                            dp[dcnt] = tw_acc;
                            dcrc = crc_w(dcrc, tw_acc);
                            dcnt = dcnt + 1;
                        end
                    end
                    default: ds = 0;
                endcase
            end
        end
    end

    // ---- host: requests and DMA answers ---------------------------------------------------------
    integer ops_left = 0;
    task automatic new_id(output integer id);
        begin
            while (ex_on[next_id % 256]) next_id = next_id + 1;
            id = next_id % 65536;
            next_id = next_id + 1;
        end
    endtask
    task automatic gen_op();
        integer kind, id, cnt, i, b, off, posted, err_any, n, addr, room, s, r;
        reg [3:0] strb, fbe, lbe;
        reg [31:0] v;
        bit p;
        begin
            rndn(100, kind);
            new_id(id);
            s = (id % 256) * 512;
            if (kind < 25) begin
                rndn(8, cnt);
                cnt = cnt + 1;
                pl[0] = {16'(cnt), 16'(id)};
                ex_w[s] = pl[0];
                for (i = 0; i < cnt; i = i + 1) begin
                    pct(5, p);
                    if (p) begin rndn(1000, r); off = 32'h1000 + 4 * r; end
                    else begin rndn(1024, r); off = 4 * r; end
                    pl[1 + i] = off;
                    ex_w[s + 1 + 2 * i] = off >= 32'h1000 ? 2 : 0;
                    ex_w[s + 2 + 2 * i] = off >= 32'h1000 ? 0 : csr_ref[off / 4];
                end
                ex_on[id % 256] = 1; ex_type[id % 256] = 8'h91; ex_len[id % 256] = 1 + 2 * cnt;
                outstanding = outstanding + 1; n_rsp_exp = n_rsp_exp + 1;
                send_rel(8'h11, 1 + cnt);
            end else if (kind < 50) begin
                rndn(8, cnt);
                cnt = cnt + 1;
                pct(50, p);
                posted = p;
                err_any = 0;
                pl[0] = {16'(cnt), 16'(id)};
                pl[1] = posted;
                ex_w[s] = pl[0];
                for (i = 0; i < cnt; i = i + 1) begin
                    pct(4, p);
                    if (p) begin rndn(1000, r); off = 32'h1000 + 4 * r; end
                    else begin rndn(1024, r); off = 4 * r; end
                    pct(70, p);
                    if (p) strb = 4'hF;
                    else begin rnd32(v); strb = 4'(v); end
                    rnd32(v);
                    pl[2 + 2 * i] = {12'd0, strb, 16'(off)};
                    pl[3 + 2 * i] = v;
                    if (off >= 32'h1000) begin
                        err_any = 1;
                        ex_w[s + 1 + i] = 2;
                    end else begin
                        ex_w[s + 1 + i] = 0;
                        for (b = 0; b < 4; b = b + 1)
                            if (strb[b]) csr_ref[off / 4][8 * b +: 8] = v[8 * b +: 8];
                        csr_wexp[off / 4] = csr_wexp[off / 4] + 1;
                    end
                end
                if (!posted || err_any) begin
                    ex_on[id % 256] = 1; ex_type[id % 256] = 8'h92; ex_len[id % 256] = 1 + cnt;
                    outstanding = outstanding + 1; n_rsp_exp = n_rsp_exp + 1;
                end
                send_rel(8'h12, 2 + 2 * cnt);
            end else if (kind < 75) begin
                rndn(16384, addr);
                addr = 4 * addr;
                room = (4096 - addr % 4096) / 4;
                rndn(MP - 3 < room ? MP - 3 : room, n);
                n = n + 1;
                pct(50, p);
                posted = p;
                pct(50, p);
                if (p) fbe = 4'hF;
                else begin rndn(15, r); fbe = 4'(1 + r); end
                lbe = 4'hF;
                if (n == 1) lbe = 4'h0;
                else begin
                    pct(50, p);
                    if (!p) begin rndn(15, r); lbe = 4'(1 + r); end
                end
                pl[0] = {7'd0, 1'(posted), lbe, fbe, 16'(id)};
                pl[1] = addr;
                pl[2] = 0;
                for (i = 0; i < n; i = i + 1) begin
                    rnd32(v);
                    pl[3 + i] = v;
                    strb = i == 0 ? fbe : (i == n - 1 ? lbe : 4'hF);
                    for (b = 0; b < 4; b = b + 1)
                        if (strb[b]) ap_ref[addr + 4 * i + b] = v[8 * b +: 8];
                end
                ap_beats_exp = ap_beats_exp + ((addr + 4 * n - 1) / 8 - addr / 8 + 1);
                if (!posted) begin
                    ex_w[s] = {14'd0, 2'd0, 16'(id)};
                    ex_on[id % 256] = 1; ex_type[id % 256] = 8'h94; ex_len[id % 256] = 1;
                    outstanding = outstanding + 1; n_rsp_exp = n_rsp_exp + 1;
                end
                send_rel(8'h14, 3 + n);
            end else begin
                rndn(16384, addr);
                addr = 4 * addr;
                room = (4096 - addr % 4096) / 4;
                rndn(MP - 1 < room ? MP - 1 : room, n);
                n = n + 1;
                pl[0] = id;
                pl[1] = addr;
                pct(4, p);
                pl[2] = p ? 32'h1 : 0;   // outside BAR1: DECERR
                pl[3] = n;
                ex_w[s] = {14'd0, pl[2] != 0 ? 2'd3 : 2'd0, 16'(id)};
                for (i = 0; i < n; i = i + 1)
                    for (b = 0; b < 4; b = b + 1)
                        ex_w[s + 1 + i][8 * b +: 8] = pl[2] != 0 ? 8'd0 : ap_ref[addr + 4 * i + b];
                ex_on[id % 256] = 1; ex_type[id % 256] = 8'h93; ex_len[id % 256] = 1 + n;
                outstanding = outstanding + 1; n_rsp_exp = n_rsp_exp + 1;
                send_rel(8'h13, 4);
            end
        end
    endtask
    task automatic answer_dma(input integer j);
        integer i, b;
        begin
            if (pd_wr[j]) begin
                pl[0] = pd_tag[j];
                send_rel(8'hA1, 1);
            end else if (pd_dec[j]) begin
                pl[0] = {14'd0, 2'd3, 16'(pd_tag[j])};
                send_rel(8'hA0, 1);
            end else begin
                pl[0] = pd_tag[j];
                for (i = 0; i < pd_dw[j]; i = i + 1)
                    for (b = 0; b < 4; b = b + 1)
                        pl[1 + i][8 * b +: 8] = (pd_addr[j] + 4 * i + b < 196608) ? hm[pd_addr[j] + 4 * i + b] : 8'd0;
                if (pd_addr[j] >= 32'h30000) late_sent = late_sent + 1;
                send_rel(8'hA0, 1 + pd_dw[j]);
            end
            pd_n = pd_n - 1;
            pd_wr[j] = pd_wr[pd_n];
            pd_dec[j] = pd_dec[pd_n];
            pd_tag[j] = pd_tag[pd_n];
            pd_addr[j] = pd_addr[pd_n];
            pd_dw[j] = pd_dw[pd_n];
            pd_due[j] = pd_due[pd_n];
        end
    endtask
    integer j0, jj;
    always @(negedge clk) begin
        if (!rst) begin
            #3;
            if (ob_wr - ob_rd < 600) begin
                // answers to the device's DMA first (any order among those due)
                j0 = -1;
                if (pd_n > 0) begin
                    rndn(pd_n, jj);
                    if (cyc >= pd_due[jj] && credit_ok(1 + pd_dw[jj])) j0 = jj;
                end
                if (j0 >= 0) answer_dma(j0);
                else if (ops_left > 0 && outstanding < 24 && credit_ok(4 + MP)) begin
                    gen_op();
                    ops_left = ops_left - 1;
                end else if (h_need_ack) begin
                    send_ctl(8'h01, 0);
                    h_need_ack = 0;
                end
            end
            if (h_acked != h_next) begin
                h_tmr = h_tmr + 1;
                if (h_tmr > 3000 * TS) replay_from_acked();
            end else h_tmr = 0;
        end
    end

    // ---- DMA master on s_host ----------------------------------------------------------------
    integer dm_left = 0, dm_rd_out = 0, dm_wr_out = 0;
    integer rq_addr [0:63], rq_len [0:63], rq_id [0:63];
    bit     rq_err [0:63], rq_dec [0:63];
    integer rq_wr = 0, rq_rd = 0, rbeat = 0;
    integer bq_id [0:63];
    bit     bq_zero [0:63];
    integer bq_wr = 0, bq_rd = 0;
    integer wq_addr [0:63], wq_len [0:63];
    bit     wq_zero [0:63];
    logic [63:0] wq_data [0:64*16-1];
    integer wq_wr = 0, wq_rd = 0, wbeat = 0;
    integer r_ok = 0, r_bad = 0, b_ok = 0, b_bad = 0, slverr_seen = 0, dm_zero_bursts = 0;
    integer dm_rd_bursts = 0, rd_next = 0;   // read bursts issued; where the last one ended
    integer dm_wr_bursts = 0, wr_next = 0, dm_zero_cont = 0;   // the same for writes; zero
                                                               // bursts that continued one
    bit     want_blackhole = 0, blackhole_done = 0;
    integer want_ws = 0, ws_page = 32'h2E000;   // bursts of the six-burst write run still to go
    task automatic gen_dma();
        integer a, l, i, b, id;
        bit p, c;
        logic [31:0] hi, lo;
        begin
            rndn(16, id);
            pct(50, p);
            // a read that ended on a 128-byte boundary inside its page is mostly continued by
            // the next read, as in gpu_core's copies (the device may join them into one request)
            pct(80, c);
            c = c && rd_next % 128 == 0 && rd_next % 4096 != 0;
            if (c || want_dec > 0) p = 1;
            if (want_ws > 0) p = 0;
            if (want_blackhole) begin
                want_blackhole = 0;
                h_arvalid = 1; h_araddr = 64'h30000; h_arlen = 8'd3; h_arid = 4'(id);
                rq_addr[rq_wr % 64] = 32'h30000; rq_len[rq_wr % 64] = 3; rq_id[rq_wr % 64] = id;
                rq_err[rq_wr % 64] = 1;
                rq_dec[rq_wr % 64] = 0;
                rq_wr = rq_wr + 1;
                dm_rd_out = dm_rd_out + 1;
            end else if (p && dm_rd_out < 6) begin
                rndn(16, l);
                rndn(7680, a);   // below the DECERR page
                a = 32'h10000 + 8 * a;
                if ((a % 4096) / 8 + l > 511) a = a - 8 * l;
                if (c) a = rd_next;
                pct(75, p);
                if (p) l = 15 - (a / 8) % 16;   // to the next 128-byte boundary
                // two whole bursts in the host's DECERR page, one after the other
                if (want_dec > 0) begin
                    a = 32'h1F000 + 128 * (2 - want_dec);
                    l = 15;
                    want_dec = want_dec - 1;
                end
                rd_next = (a >= 32'h1F000) ? 0 : a + 8 * (l + 1);
                dm_rd_bursts = dm_rd_bursts + 1;
                h_arvalid = 1; h_araddr = 64'(a); h_arlen = 8'(l); h_arid = 4'(id);
                rq_addr[rq_wr % 64] = a; rq_len[rq_wr % 64] = l; rq_id[rq_wr % 64] = id;
                rq_err[rq_wr % 64] = 0;
                rq_dec[rq_wr % 64] = a >= 32'h1F000 && a < 32'h20000;
                rq_wr = rq_wr + 1;
                dm_rd_out = dm_rd_out + 1;
                dm_left = dm_left - 1;
            end else if (dm_wr_out < 6) begin
                rndn(16, l);
                rndn(8192, a);
                a = 32'h20000 + 8 * a;
                if ((a % 4096) / 8 + l > 511) a = a - 8 * l;
                // most writes continue the last one at a 128-byte boundary, as gpu_core's
                // copies do (the device may join them into one DMA_WR)
                pct(80, c);
                if (want_ws > 0) begin
                    // six whole bursts from the page's start, the third of zero strobes
                    a = ws_page + 128 * (6 - want_ws);
                    l = 15;
                    c = want_ws == 4;
                end else if (c && wr_next % 128 == 0 && wr_next % 4096 != 0) begin
                    a = wr_next;
                    pct(80, p);
                    if (p) l = 15;
                end else c = 0;
                wr_next = a + 8 * (l + 1);
                dm_wr_bursts = dm_wr_bursts + 1;
                h_awvalid = 1; h_awaddr = 64'(a); h_awlen = 8'(l); h_awid = 4'(id);
                bq_id[bq_wr % 64] = id;
                pct(8, p);
                if (want_ws > 0) begin
                    p = want_ws == 4;
                    want_ws = want_ws - 1;
                    dm_left = dm_left + 1;   // not one of the phase's random ones
                end
                bq_zero[bq_wr % 64] = p;
                if (p && c) dm_zero_cont = dm_zero_cont + 1;
                wq_addr[wq_wr % 64] = a; wq_len[wq_wr % 64] = l; wq_zero[wq_wr % 64] = bq_zero[bq_wr % 64];
                if (bq_zero[bq_wr % 64]) dm_zero_bursts = dm_zero_bursts + 1;
                for (i = 0; i <= l; i = i + 1) begin
                    rnd32(hi); rnd32(lo);
                    wq_data[(wq_wr % 64) * 16 + i] = {hi, lo};
                    if (!bq_zero[bq_wr % 64])
                        for (b = 0; b < 8; b = b + 1)
                            hm_ref[a + 8 * i + b] = wq_data[(wq_wr % 64) * 16 + i][8 * b +: 8];
                end
                bq_wr = bq_wr + 1;
                wq_wr = wq_wr + 1;
                dm_wr_out = dm_wr_out + 1;
                dm_left = dm_left - 1;
            end
        end
    endtask
    bit h_ar_hs = 0, h_aw_hs = 0, h_w_hs = 0;
    bit h_st_r, h_st_b, h_st_w, h_go;   // the master's draws
    always @(negedge clk) begin
        if (!rst) begin
            if (h_ar_hs) h_arvalid = 0;
            if (h_aw_hs) h_awvalid = 0;
            if (h_w_hs) begin
                h_wvalid = 0;
                if (wbeat == wq_len[wq_rd % 64]) begin
                    wbeat = 0;
                    wq_rd = wq_rd + 1;
                end else wbeat = wbeat + 1;
            end
            pct(stall, h_st_r); pct(stall, h_st_b); pct(10, h_go); pct(stall, h_st_w);
            h_rready = !h_st_r;
            h_bready = !h_st_b;
            if (!h_arvalid && !h_awvalid && (dm_left > 0 || want_blackhole || want_ws > 0) &&
                (h_go || want_ws > 0)) gen_dma();
            // W: independent of AW (may run ahead of it)
            if (!h_wvalid && wq_rd != wq_wr && !h_st_w) begin
                h_wvalid = 1;
                h_wdata = wq_data[(wq_rd % 64) * 16 + wbeat];
                h_wstrb = wq_zero[wq_rd % 64] ? 8'h00 : 8'hFF;
                h_wlast = (wbeat == wq_len[wq_rd % 64]);
            end
            #1;
            h_ar_hs = h_arvalid && h_arready;
            h_aw_hs = h_awvalid && h_awready;
            h_w_hs = h_wvalid && h_wready;
            if (h_rvalid && h_rready) begin
                if (rq_rd == rq_wr) err("R beat with no read outstanding");
                else begin
                    if (h_rid != 4'(rq_id[rq_rd % 64])) err("RID out of order");
                    if (h_rlast != (rbeat == rq_len[rq_rd % 64])) err("RLAST wrong on s_host");
                    if (rq_dec[rq_rd % 64]) begin
                        if (h_rresp == 2'd3) dec_beats = dec_beats + 1;
                        else err("a DMA read answered DECERR did not end DECERR");
                    end else if (rq_err[rq_rd % 64]) begin
                        if (h_rresp == 2'd2) slverr_seen = slverr_seen + 1;
                        else err("a timed-out DMA read did not end SLVERR");
                    end else if (h_rresp != 0) begin
                        r_bad = r_bad + 1;
                        err("DMA read not OKAY");
                    end else begin
                        for (k = 0; k < 8; k = k + 1)
                            if (h_rdata[8 * k +: 8] != pat(rq_addr[rq_rd % 64] + 8 * rbeat + k)) begin
                                r_bad = r_bad + 1;
                                err($sformatf("DMA read data at %x", rq_addr[rq_rd % 64] + 8 * rbeat + k));
                            end
                        r_ok = r_ok + 1;
                    end
                    if (rbeat == rq_len[rq_rd % 64]) begin
                        rbeat = 0;
                        rq_rd = rq_rd + 1;
                        dm_rd_out = dm_rd_out - 1;
                    end else rbeat = rbeat + 1;
                end
            end
            if (h_bvalid && h_bready) begin
                if (bq_rd == bq_wr) err("B with no write outstanding");
                else begin
                    if (h_bid != 4'(bq_id[bq_rd % 64])) err("BID out of order");
                    if (h_bresp == 0) b_ok = b_ok + 1;
                    else begin b_bad = b_bad + 1; err("DMA write not OKAY"); end
                    bq_rd = bq_rd + 1;
                    dm_wr_out = dm_wr_out - 1;
                end
            end
        end
    end

    // ---- IRQ --------------------------------------------------------------------------------
    integer irq_toggles = 0, irq_left = 0, irq_expect = 0;   // messages: changes + one per HELLO
    bit     irq_go;
    always @(negedge clk) begin
        // the next change only after the last one was reported: a level that goes and comes
        // back while the replay buffer's writer is busy is (rightly) not a change
        irq_go = 0;
        if (!rst && irq_left > 0 && irq_msgs == irq_expect) pct(1, irq_go);
        if (irq_go) begin
            irq <= !irq;
            irq_toggles = irq_toggles + 1;
            irq_expect = irq_expect + 1;
            irq_left = irq_left - 1;
        end
    end

    // ---- scenario ---------------------------------------------------------------------------
    task automatic dump_state();
        $display("# stuck: ops_left %0d outstanding %0d pd_n %0d dm_left %0d rd_out %0d wr_out %0d h_next %0d h_acked %0d h_rxexp %0d ob %0d/%0d",
                 ops_left, outstanding, pd_n, dm_left, dm_rd_out, dm_wr_out, h_next, h_acked, h_rxexp, ob_rd, ob_wr);
        $display("#   dispatch ds %0d rptr %0d wptr %0d; tx ts %0d next %0d acked %0d send %0d own %0d; hs ss %0d; rx_next %0d ack_seq %0d",
                 dut.u_dispatch.ds_q, dut.u_dispatch.rptr_q, dut.u_rx.wptr_q, dut.u_tx.ts_q, dut.u_tx.next_q,
                 dut.u_tx.acked_q, dut.u_tx.send_q, dut.u_tx.own_q, dut.u_host.ss_q, dut.u_rx.rx_next_q, dut.u_rx.ack_seq_q);
        for (int q = 0; q < pd_n; q++) $display("#   pd %0d: wr %0d tag %0d addr %x dw %0d due %0d (cyc %0d)", q, pd_wr[q], pd_tag[q], pd_addr[q], pd_dw[q], pd_due[q], cyc);
    endtask
    task automatic wait_quiet(input integer limit);
        integer t;
        begin
            t = 0;
            while (t < limit && !(ops_left == 0 && outstanding == 0 && pd_n == 0 && dm_left == 0 &&
                                  want_ws == 0 &&
                                  dm_rd_out == 0 && dm_wr_out == 0 && h_acked == h_next &&
                                  ob_rd == ob_wr && irq_left == 0)) begin
                @(posedge clk);
                t = t + 1;
            end
            repeat (400) @(posedge clk);
            if (t >= limit) dump_state();
        end
    endtask
    function automatic bit mem_equal();
        integer a;
        begin
            mem_equal = 1;
            for (a = 0; a < 65536; a = a + 1) if (ap_mem[a] !== ap_ref[a]) mem_equal = 0;
        end
    endfunction
    function automatic bit hm_equal();
        integer a;
        begin
            hm_equal = 1;
            for (a = 32'h20000; a < 32'h30000; a = a + 1) if (hm[a] !== hm_ref[a]) hm_equal = 0;
        end
    endfunction
    function automatic bit csr_equal();
        integer a;
        begin
            csr_equal = 1;
            for (a = 0; a < 1024; a = a + 1)
                if (csr_mem[a] !== csr_ref[a] || csr_wcnt[a] != csr_wexp[a]) csr_equal = 0;
        end
    endfunction

    initial begin
        integer a, i, r0, n0, c0, t, lim;
        tb_start(PLAN);
        if (!$value$plusargs("limit=%d", lim)) lim = 400000;
        for (a = 0; a < 1024; a = a + 1) begin
            csr_mem[a] = 32'(a * 32'h0101_0101); csr_ref[a] = csr_mem[a];
            csr_wcnt[a] = 0; csr_wexp[a] = 0;
        end
        for (a = 0; a < 65536; a = a + 1) begin ap_mem[a] = 8'(a ^ (a >> 8)); ap_ref[a] = ap_mem[a]; end
        for (a = 0; a < 196608; a = a + 1) begin hm[a] = pat(a); hm_ref[a] = hm[a]; end
        for (a = 0; a < 256; a = a + 1) ex_on[a] = 0;
        repeat (5) @(posedge clk);
        rst = 1'b0;
        repeat (5) @(posedge clk);

        // ---- RESET and HELLO ----
        pl[0] = 32'h0000_1234;
        send_ctl(8'h04, 1);
        t = 0;
        while (rack_epoch < 0 && t < 2000) begin @(posedge clk); t = t + 1; end
        check(rack_epoch == 32'h1234, "RESET answered by RESET_ACK with its EPOCH");
        pl[0] = 32'h0001_0000;
        pl[1] = 32'd1024;
        irq_expect = irq_expect + 1;
        send_rel(8'h10, 2);
        t = 0;
        while (!(hello_ok && irq_msgs == 1) && t < 3000) begin @(posedge clk); t = t + 1; end
        check(hello_ok && irq_msgs == 1 && irq_lvl_exp == 1'b0, "HELLO_RSP: 1.0, MaxPayload 256, RxWindow 1024, 8 tags, stream, 16/28, CoreHz, timeouts, no DMA window; then an IRQ with the level");
        check(link_up, "link_up after HELLO");

        // ---- clean phase ----
        stall = 20;
        ops_left = NOPS;
        dm_left = NDMA / 2;
        want_dec = 2;
        want_ws = 6;
        irq_left = 4;
        wait_quiet(lim);
        check(ops_left == 0 && outstanding == 0, $sformatf("clean: %0d requests, every answer came (%0d answers)", NOPS, n_rsp));
        check(errors == 0, $sformatf("clean: every answer exact, no protocol error (%0d errors; first: %0s)", errors, first_err));
        check(csr_equal(), "clean: registers equal the reference, every write applied exactly once");
        check(mem_equal() && ap_beats == ap_beats_exp, $sformatf("clean: aperture bytes exact, %0d W beats as expected", ap_beats));
        check(hm_equal() && r_bad == 0 && b_bad == 0 && dm_rd_out == 0 && dm_wr_out == 0,
              $sformatf("clean: DMA data exact (%0d R beats), every B OKAY (%0d)", r_ok, b_ok));
        check(irq_msgs == irq_expect && irq_lvl_exp == irq, $sformatf("clean: one IRQ message per irq change (%0d), in order", irq_msgs));
        check(crc_errs == 0 && naks == 0 && bad_frames == 0, "clean: no CRC error, NAK or bad frame counted");
        check(dec_beats == 32, $sformatf("clean: two read bursts answered DECERR end DECERR on every beat (%0d; joined into one DMA_RD: %0d)", dec_beats, dec_frames));
        check(dma_rd_frames < dm_rd_bursts, $sformatf("clean: consecutive DMA reads joined (%0d read bursts in %0d DMA_RD requests)", dm_rd_bursts, dma_rd_frames));
        check(wr_joined > 0 && dma_wr_frames < dm_wr_bursts - dm_zero_bursts,
              $sformatf("clean: consecutive DMA writes joined (%0d bursts with data in %0d DMA_WR requests, %0d of several)", dm_wr_bursts - dm_zero_bursts, dma_wr_frames, wr_joined));
        check(wr_len_max <= MP && dm_zero_cont > 0,
              $sformatf("clean: a DMA_WR at most MaxPayload (%0d words); %0d zero-strobe bursts that continued a write were not joined (host memory exact)", wr_len_max, dm_zero_cont));

        // ---- a HELLO with a MaxPayload of 67 words: DMA_WR requests of at most 2 bursts ----
        hello_ok = 0;
        pl[0] = 32'h0001_0000;
        pl[1] = 32'd67;
        irq_seq_any = 1;
        irq_expect = irq_msgs + 1;
        send_rel(8'h10, 2);
        t = 0;
        while (!(hello_ok && irq_msgs == irq_expect) && t < 3000) begin @(posedge clk); t = t + 1; end
        wr_len_max = 0;
        wr_joined = 0;
        ws_page = 32'h2D000;
        want_ws = 6;

        // ---- faults ----
        r0 = replays; n0 = naks; c0 = crc_errs;
        faults = 1;
        rx_drop_on = 1;
        drop_next_rel = 1;
        corrupt_next_rel = 1;
        stall = 30;
        ops_left = NOPS;
        dm_left = NDMA / 2;
        irq_left = 4;
        wait_quiet(lim * 4);
        faults = 0;
        rx_drop_on = 0;
        wait_quiet(100000);
        $display("# faults: %0d corrupted, %0d dropped, %0d duplicated, %0d garbage runs sent; %0d device frames dropped",
                 n_corrupt, n_drop, n_dup, n_garb, n_rxdrop);
        $display("# device: crc_errs %0d naks %0d replays %0d; host replays %0d", crc_errs, naks, replays, h_replays);
        check(ops_left == 0 && outstanding == 0 && n_rsp == n_rsp_exp, $sformatf("faults: every request answered exactly once (%0d answers)", n_rsp));
        check(errors == 0, $sformatf("faults: every answer exact, no protocol error (%0d errors; first: %0s)", errors, first_err));
        check(csr_equal(), "faults: every register write applied exactly once");
        check(mem_equal() && ap_beats == ap_beats_exp, $sformatf("faults: aperture exact, %0d W beats = expected (no BAR1 write doubled)", ap_beats));
        check(hm_equal() && r_bad == 0 && b_bad == 0, $sformatf("faults: DMA data exact (%0d R beats, %0d B)", r_ok, b_ok));
        check(irq_msgs == irq_expect, "faults: IRQ messages in order, none lost or doubled");
        check(crc_errs > c0 && naks > n0, $sformatf("faults: the device counted CRC errors (%0d) and sent NAKs (%0d)", crc_errs - c0, naks - n0));
        check(replays > r0, $sformatf("faults: the device replayed go-back-N (%0d)", replays - r0));
        check(bad_dev_frames == 0, "faults: every device frame well formed");
        check(hello_ok && wr_joined > 0 && wr_len_max <= 67,
              $sformatf("faults, after a HELLO of MaxPayload 67: writes joined (%0d) into DMA_WR requests of at most 67 words (%0d)", wr_joined, wr_len_max));

        // ---- DMA timeout ----
        want_blackhole = 1;
        while (want_blackhole) @(posedge clk);
        wait_quiet(DMATO * 3);
        $display("# timeout: slverr beats %0d, dma_timeouts %0d, late answers %0d, errors %0d", slverr_seen, dma_timeouts, late_sent, errors);
        check(slverr_seen == 4 && dma_timeouts == 1, "a DMA read unanswered for DmaTimeout ends SLVERR on every beat");
        check(late_sent == 1 && errors == 0 && rq_rd == rq_wr, "its late answer is dropped (no R beat, no error)");

        // ---- link reset with a DMA read outstanding ----
        want_blackhole = 1;
        t = 0;
        while (pd_n == 0 && t < 20000) begin @(posedge clk); t = t + 1; end
        pd_n = 0;   // the host forgets it
        pl[0] = 32'h0000_BEEF;
        rack_epoch = -1;
        h_resetting = 1;
        send_ctl(8'h04, 1);
        h_next = 0; h_acked = 0; h_rxexp = 0; h_unacked_w = 0; h_nak_sent_for = -1;
        t = 0;
        while (rack_epoch < 0 && t < 5000) begin @(posedge clk); t = t + 1; end
        repeat (200) @(posedge clk);
        check(rack_epoch == 32'hBEEF && slverr_seen == 8 && rq_rd == rq_wr && !link_up,
              "link RESET: RESET_ACK, the outstanding DMA read ends SLVERR, link_up falls");
        hello_ok = 0;
        pl[0] = 32'h0001_0000;
        pl[1] = 32'd34;
        irq_seq_any = 1;
        irq_expect = irq_msgs + 1;
        send_rel(8'h10, 2);
        t = 0;
        while (!hello_ok && t < 3000) begin @(posedge clk); t = t + 1; end
        ops_left = 20;
        wr_len_max = 0;
        wr_joined = 0;
        n0 = dm_wr_bursts;
        dm_left = NDMA / 2;
        ws_page = 32'h2C000;
        want_ws = 6;
        wait_quiet(100000);
        check(hello_ok && errors == 0 && outstanding == 0 && irq_msgs == irq_expect,
              "after the RESET: HELLO (and its IRQ) and 20 requests from SEQ 0 again");
        check(hm_equal() && b_bad == 0 && dm_wr_out == 0 && dm_wr_bursts > n0 && wr_joined == 0 &&
              wr_len_max <= 35 && wr_len_max > 0,
              $sformatf("after a HELLO of MaxPayload 34: %0d write bursts, none joined (longest DMA_WR %0d words), host memory exact", dm_wr_bursts - n0, wr_len_max));
        $display("# %0d cycles", cyc);
        tb_finish("");
    end

    initial begin
        #200_000_000;
        $display("Bail out! cycle budget exhausted");
        $fatal(1, "hang");
    end
endmodule
`default_nettype wire
