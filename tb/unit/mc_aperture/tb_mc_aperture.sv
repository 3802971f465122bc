// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_mc_aperture: self-checking unit test of mc_aperture (BAR1 window and VPR) under Icarus 11
// and Verilator 5.006 --timing (-Wall, widths included), with a VRAM model that stalls every
// channel at random.
//
// Output is TAP ("1..N", "# seed=S", "ok N - name") through the kit (tb/unit/common/tb_kit.svh,
// which also reads +seed=N and +wave=<file>); exits through $fatal when a check failed.
//
// A reference copy of VRAM predicts every read. Random bursts (INCR, 1..16 beats of 8 bytes,
// random strobes and IDs, never crossing 4 KiB) go through a randomly placed window; a random
// VPR covers some pages. Inside the VPR a write must leave VRAM untouched and a read must
// return zeros, each with one fault pulse carrying the VRAM address; outside, data round-trips.
// Reads are also pipelined (several ARs before any R) to fill the aperture's outstanding FIFO.
// The VRAM model takes writes in each order a legal AXI slave may impose (IHI0022 A3.3.1),
// chosen per burst: W only after its AW, AWREADY only once a W beat is in, or only once the
// burst's WLAST is in; the aperture must never make W wait for the VRAM's AWREADY. The master
// sends cache 0011 and prot 010, which must reach VRAM with size 8 bytes, INCR and no lock.
module tb_mc_aperture;
    localparam integer ApBits = 16;      // 64 KiB window
    localparam integer VramBits = 18;    // 256 KiB VRAM
    localparam integer VRAM_BYTES = 1 << VramBits;
    localparam integer PLAN = 12;
    localparam integer OPS = 600;
    localparam integer TIMEOUT = 5000;

    logic clk = 1'b0;
    logic rst = 1'b1;
    initial forever #5 clk = ~clk;

    // ---- DUT ------------------------------------------------------------------------------
    logic [VramBits-1:0] window_base = '0;
    logic                vpr_en = 1'b0;
    logic [VramBits-13:0] vpr_base = '0, vpr_limit = '0;
    logic [VramBits-12:0] vram_pages = {1'b1, {(VramBits-12){1'b0}}};  // all of the VRAM space
    wire                 fault_wr, fault_rd, idle;
    wire [VramBits-1:0]  fault_wr_addr, fault_rd_addr;

    logic [3:0] awid = 4'd0; logic [ApBits-1:0] awaddr = '0; logic [7:0] awlen = 8'd0;
    logic awvalid = 1'b0; wire awready;
    logic [63:0] wdata = 64'd0; logic [7:0] wstrb = 8'd0; logic wlast = 1'b0; logic wvalid = 1'b0;
    wire wready; wire [3:0] bid; wire [1:0] bresp; wire bvalid; logic bready = 1'b0;
    logic [3:0] arid = 4'd0; logic [ApBits-1:0] araddr = '0; logic [7:0] arlen = 8'd0;
    logic arvalid = 1'b0; wire arready;
    wire [3:0] rid; wire [63:0] rdata; wire [1:0] rresp; wire rlast, rvalid; logic rready = 1'b0;

    wire [VramBits-1:0] m_awaddr, m_araddr; wire [7:0] m_awlen, m_arlen;
    wire [2:0] m_awsize, m_arsize, m_awprot, m_arprot; wire [1:0] m_awburst, m_arburst;
    wire m_awlock, m_arlock; wire [3:0] m_awcache, m_arcache;
    wire m_awvalid, m_wvalid, m_wlast, m_bready, m_arvalid, m_rready;
    wire [63:0] m_wdata; wire [7:0] m_wstrb;
    logic m_awready = 1'b0, m_wready = 1'b0, m_arready = 1'b0;
    logic m_bvalid = 1'b0, m_rvalid = 1'b0, m_rlast = 1'b0;
    logic [63:0] m_rdata = 64'd0;

    mc_aperture #(.ApAddrBits(ApBits), .VramAddrBits(VramBits), .DataBytes(8), .IdBits(4),
                  .Outstanding(4)) dut (
        .clk_i(clk), .rst_i(rst), .window_base_i(window_base), .vpr_en_i(vpr_en),
        .vpr_base_i(vpr_base), .vpr_limit_i(vpr_limit), .vram_pages_i(vram_pages), .fault_wr_o(fault_wr),
        .fault_wr_addr_o(fault_wr_addr), .fault_rd_o(fault_rd), .fault_rd_addr_o(fault_rd_addr),
        .idle_o(idle),
        .s_ap_awid_i(awid), .s_ap_awaddr_i(awaddr), .s_ap_awlen_i(awlen), .s_ap_awsize_i(3'd3),
        .s_ap_awburst_i(2'b01), .s_ap_awlock_i(1'b0), .s_ap_awcache_i(4'b0011), .s_ap_awprot_i(3'b010),
        .s_ap_awvalid_i(awvalid), .s_ap_awready_o(awready),
        .s_ap_wdata_i(wdata), .s_ap_wstrb_i(wstrb), .s_ap_wlast_i(wlast), .s_ap_wvalid_i(wvalid),
        .s_ap_wready_o(wready), .s_ap_bid_o(bid), .s_ap_bresp_o(bresp), .s_ap_bvalid_o(bvalid),
        .s_ap_bready_i(bready),
        .s_ap_arid_i(arid), .s_ap_araddr_i(araddr), .s_ap_arlen_i(arlen), .s_ap_arsize_i(3'd3),
        .s_ap_arburst_i(2'b01), .s_ap_arlock_i(1'b0), .s_ap_arcache_i(4'b0011), .s_ap_arprot_i(3'b010),
        .s_ap_arvalid_i(arvalid), .s_ap_arready_o(arready),
        .s_ap_rid_o(rid), .s_ap_rdata_o(rdata), .s_ap_rresp_o(rresp), .s_ap_rlast_o(rlast),
        .s_ap_rvalid_o(rvalid), .s_ap_rready_i(rready),
        .m_vram_awaddr_o(m_awaddr), .m_vram_awlen_o(m_awlen), .m_vram_awsize_o(m_awsize),
        .m_vram_awburst_o(m_awburst), .m_vram_awlock_o(m_awlock), .m_vram_awcache_o(m_awcache),
        .m_vram_awprot_o(m_awprot), .m_vram_awvalid_o(m_awvalid), .m_vram_awready_i(m_awready),
        .m_vram_wdata_o(m_wdata), .m_vram_wstrb_o(m_wstrb), .m_vram_wlast_o(m_wlast),
        .m_vram_wvalid_o(m_wvalid), .m_vram_wready_i(m_wready),
        .m_vram_bresp_i(2'b00), .m_vram_bvalid_i(m_bvalid), .m_vram_bready_o(m_bready),
        .m_vram_araddr_o(m_araddr), .m_vram_arlen_o(m_arlen), .m_vram_arsize_o(m_arsize),
        .m_vram_arburst_o(m_arburst), .m_vram_arlock_o(m_arlock), .m_vram_arcache_o(m_arcache),
        .m_vram_arprot_o(m_arprot), .m_vram_arvalid_o(m_arvalid), .m_vram_arready_i(m_arready),
        .m_vram_rdata_i(m_rdata), .m_vram_rresp_i(2'b00), .m_vram_rlast_i(m_rlast),
        .m_vram_rvalid_i(m_rvalid), .m_vram_rready_o(m_rready)
    );

`define TB_TOP tb_mc_aperture
/* verilator lint_off BLKSEQ */  // the memory model's clocked blocks draw too
`include "tb/unit/common/tb_kit.svh"
/* verilator lint_on BLKSEQ */
    // One generator (the kit's) that every process draws from at once.
    task automatic coin(output logic c);  // 0 or 1
        logic [31:0] r;
        rnd32(r);
        c = r >= 32'h8000_0000;
    endtask

    // ---- VRAM model: in order, one burst per direction at a time, random stalls ------------
    // Writes: W beats go into a queue (taken before their AW unless vram_order is 0) and are
    // applied once the burst's AW is in.
    logic [7:0] vram [0:VRAM_BYTES-1];
    logic [7:0] ref_vram [0:VRAM_BYTES-1];
    integer stall_pct = 30;
    integer vram_order = 0;   // 0: W after AW, 1: AW after a W beat, 2: AW after WLAST
    integer w_early = 0;      // bursts whose first W beat the VRAM took before their AW
    logic [VramBits-1:0] mw_addr; integer mw_left = 0; logic mw_busy = 1'b0; logic mb_pend = 1'b0;
    logic [VramBits-1:0] mr_addr; integer mr_left = 0; logic mr_busy = 1'b0;
    logic [63:0] wq_d [0:31]; logic [7:0] wq_s [0:31]; logic wq_l [0:31];
    integer wq_wr = 0, wq_rd = 0, wq_last = 0;  // wq_last: WLAST beats in the queue
    integer mi;
    logic [63:0] rd;
    integer attr_errors = 0;  // a VRAM burst without the master's size, burst, lock, cache, prot
    // The model keeps its state in variables it updates at once (blocking) and drives the
    // aperture's inputs with nonblocking assignments.
    /* verilator lint_off BLKSEQ */
    always @(negedge clk) begin : vram_ready
        integer r_aw, r_w, r_ar;
        rndn(100, r_aw); rndn(100, r_w); rndn(100, r_ar);
        m_awready <= !mw_busy && !mb_pend && r_aw >= stall_pct &&
                     (vram_order == 0 || (vram_order == 1 ? wq_wr != wq_rd : wq_last > 0));
        m_wready <= (vram_order == 0 ? mw_busy : wq_wr - wq_rd < 30) && r_w >= stall_pct;
        m_arready <= !mr_busy && r_ar >= stall_pct;
    end
    always @(posedge clk) begin : vram_side
        integer r;
        if (m_wvalid && m_wready) begin
            if (!mw_busy && wq_wr == wq_rd) w_early = w_early + 1;
            wq_d[wq_wr % 32] = m_wdata; wq_s[wq_wr % 32] = m_wstrb; wq_l[wq_wr % 32] = m_wlast;
            wq_wr = wq_wr + 1;
            if (m_wlast) wq_last = wq_last + 1;
        end
        if (m_awvalid && m_awready) begin
            mw_busy = 1'b1; mw_addr = m_awaddr; mw_left = 32'(m_awlen) + 1;
            if (m_awsize != 3'd3 || m_awburst != 2'b01 || m_awlock || m_awcache != 4'b0011 ||
                m_awprot != 3'b010)
                attr_errors = attr_errors + 1;
        end
        while (mw_busy && wq_wr != wq_rd) begin
            for (mi = 0; mi < 8; mi = mi + 1)
                if (wq_s[wq_rd % 32][mi])
                    vram[{mw_addr[VramBits-1:3], 3'b000} + VramBits'(mi)] = wq_d[wq_rd % 32][mi*8 +: 8];
            mw_addr = mw_addr + VramBits'(8);
            mw_left = mw_left - 1;
            if (wq_l[wq_rd % 32]) begin mw_busy = 1'b0; mb_pend <= 1'b1; wq_last = wq_last - 1; end
            wq_rd = wq_rd + 1;
        end
        if (mb_pend && !m_bvalid) begin
            rndn(100, r);
            if (r >= stall_pct) m_bvalid <= 1'b1;
        end
        if (m_bvalid && m_bready) begin m_bvalid <= 1'b0; mb_pend <= 1'b0; end
        if (m_arvalid && m_arready) begin
            mr_busy <= 1'b1; mr_addr <= m_araddr; mr_left <= 32'(m_arlen) + 1;
            if (m_arsize != 3'd3 || m_arburst != 2'b01 || m_arlock || m_arcache != 4'b0011 ||
                m_arprot != 3'b010)
                attr_errors = attr_errors + 1;
        end
        if (m_rvalid && m_rready) begin
            m_rvalid <= 1'b0;
            if (m_rlast) mr_busy <= 1'b0;
        end else if (mr_busy && !m_rvalid && mr_left > 0) begin
            rndn(100, r);
            if (r >= stall_pct) begin
                for (mi = 0; mi < 8; mi = mi + 1) rd[mi*8 +: 8] = vram[{mr_addr[VramBits-1:3], 3'b000} + VramBits'(mi)];
                m_rdata <= rd;
                m_rlast <= (mr_left == 1);
                m_rvalid <= 1'b1;
                mr_addr <= mr_addr + VramBits'(8);
                mr_left <= mr_left - 1;
            end
        end
    end

    // ---- checks -----------------------------------------------------------------------------
    integer data_errors = 0, vpr_leaks = 0, id_errors = 0;
    integer faults_seen = 0, faults_expected = 0;
    integer fault_addr_errors = 0;
    always @(posedge clk) begin
        if (fault_wr) faults_seen = faults_seen + 1;
        if (fault_rd) faults_seen = faults_seen + 1;
        if ((fault_wr && !in_vpr(32'(fault_wr_addr))) || (fault_rd && !in_vpr(32'(fault_rd_addr))))
            fault_addr_errors = fault_addr_errors + 1;
    end
    /* verilator lint_on BLKSEQ */
    function automatic logic in_vpr(input integer vaddr);
        in_vpr = vpr_en && (vaddr >> 12) >= 32'(vpr_base) && (vaddr >> 12) < 32'(vpr_limit);
    endfunction

    // At or past the VRAM size (vram_pages): the burst answers DECERR, writes nothing, reads 0.
    integer oob_leaks = 0, oob_bursts = 0;
    function automatic logic oob(input integer vaddr);
        oob = (vaddr >> 12) >= 32'(vram_pages);
    endfunction

    // One write burst: AW and W run concurrently (W may lead), then B.
    task automatic write_burst(input integer off, input integer beats, input [3:0] id);
        integer b, i, v, waited, gap_aw, gap_w, r;
        logic [63:0] d; logic [7:0] s; logic [31:0] hi, lo;
        v = 32'(window_base) + off;
        fork
            begin
                rndn(3, gap_aw);
                repeat (gap_aw) @(negedge clk);
                awid = id; awaddr = off[ApBits-1:0]; awlen = 8'(beats - 1); awvalid = 1'b1;
                @(posedge clk); while (!awready) @(posedge clk);
                @(negedge clk); awvalid = 1'b0;
            end
            begin
                for (b = 0; b < beats; b = b + 1) begin
                    rndn(2, gap_w);
                    repeat (gap_w) @(negedge clk);
                    rnd32(hi); rnd32(lo); d = {hi, lo}; rndn(256, r); s = 8'(r);
                    wdata = d; wstrb = s; wlast = (b == beats - 1); wvalid = 1'b1;
                    @(posedge clk); while (!wready) @(posedge clk);
                    if (!in_vpr(v) && !oob(v))
                        for (i = 0; i < 8; i = i + 1) if (s[i]) ref_vram[v + b * 8 + i] = d[i*8 +: 8];
                    @(negedge clk); wvalid = 1'b0;
                end
            end
        join
        coin(bready);
        waited = 0;
        @(posedge clk);
        while (!(bvalid && bready)) begin
            @(negedge clk); rndn(100, r); bready = r >= stall_pct;
            @(posedge clk); waited = waited + 1;
            if (waited > TIMEOUT) begin $display("# write response timeout"); $fatal(1); end
        end
        if (oob(v)) oob_bursts = oob_bursts + 1;
        if (bid !== id || bresp !== (oob(v) ? 2'b11 : 2'b00)) begin
            if (id_errors == 0) $display("# first B error: id %0d want %0d resp %0d at %0t", bid, id, bresp, $time);
            id_errors = id_errors + 1;
        end
        @(negedge clk); bready = 1'b0;
        if (in_vpr(v)) faults_expected = faults_expected + 1;
    endtask

    // count read bursts issued back to back; R beats checked against the reference in order.
    task automatic read_bursts(input integer count);
        integer offs [0:7]; integer lens [0:7]; logic [3:0] ids [0:7];
        integer k, kr, b, i, v, got, waited, r, r2, gap_ar, r_r;
        for (k = 0; k < count; k = k + 1) begin
            rndn(16, r); lens[k] = 1 + r;
            rndn(1 << ApBits, r); rndn(512 - lens[k] + 1, r2);
            offs[k] = (r & ~4095) + 8 * r2;
            rndn(16, r); ids[k] = 4'(r);
        end
        fork
            for (k = 0; k < count; k = k + 1) begin
                rndn(2, gap_ar);
                repeat (gap_ar) @(negedge clk);
                arid = ids[k]; araddr = offs[k][ApBits-1:0]; arlen = 8'(lens[k] - 1); arvalid = 1'b1;
                @(posedge clk); while (!arready) @(posedge clk);
                @(negedge clk); arvalid = 1'b0;
                if (in_vpr(32'(window_base) + offs[k])) faults_expected = faults_expected + 1;
            end
            for (kr = 0; kr < count; kr = kr + 1)
                for (b = 0; b < lens[kr]; b = b + 1) begin
                    waited = 0;
                    @(negedge clk); rndn(100, r_r); rready = r_r >= stall_pct;
                    @(posedge clk);
                    while (!(rvalid && rready)) begin
                        @(negedge clk); rndn(100, r_r); rready = r_r >= stall_pct;
                        @(posedge clk); waited = waited + 1;
                        if (waited > TIMEOUT) begin $display("# read timeout"); $fatal(1); end
                    end
                    v = 32'(window_base) + offs[kr] + b * 8;
                    if (b == 0 && oob(v)) oob_bursts = oob_bursts + 1;
                    if (rid !== ids[kr] || rresp !== (oob(v) ? 2'b11 : 2'b00) || rlast !== (b == lens[kr] - 1)) begin
                        if (id_errors == 0) $display("# first R error: id %0d want %0d last %0d beat %0d/%0d at %0t", rid, ids[kr], rlast, b, lens[kr], $time);
                        id_errors = id_errors + 1;
                    end
                    for (i = 0; i < 8; i = i + 1) begin
                        got = 32'(rdata[i*8 +: 8]);
                        if (oob(v)) begin
                            if (got != 0) oob_leaks = oob_leaks + 1;
                        end else if (in_vpr(v)) begin
                            if (got != 0) vpr_leaks = vpr_leaks + 1;
                        end else if (got != 32'(ref_vram[v + i])) data_errors = data_errors + 1;
                    end
                end
        join
        @(negedge clk); rready = 1'b0;
    endtask

    // Watchdog: a lost handshake must fail the run, not hang it.
    initial begin
        #20000000;
        $display("Bail out! watchdog: no progress (seed %0d)", seed);
        $fatal(1);
    end

    integer op, k, off, beats, protected_changed, dr, dr2;
    logic heads;
    initial begin
        tb_start(PLAN);
        for (k = 0; k < VRAM_BYTES; k = k + 1) begin
            rndn(256, dr); vram[k] = 8'(dr); ref_vram[k] = vram[k];
        end
        rndn(VRAM_BYTES - (1 << ApBits), dr);
        window_base = VramBits'(dr & ~4095);
        rndn(8, dr);
        vpr_base = (VramBits-12)'((window_base >> 12) + VramBits'(dr));
        rndn(4, dr);
        vpr_limit = vpr_base + (VramBits-12)'(1 + dr);
        vpr_en = 1'b1;
        repeat (4) @(negedge clk);
        rst = 1'b0;
        for (op = 0; op < OPS; op = op + 1) begin
            rndn(2, dr);
            if (dr == 0) begin
                rndn(3, vram_order);
                rndn(16, dr); beats = 1 + dr;
                // Half the bursts aim at the VPR's pages so both sides get exercised.
                coin(heads);
                if (heads) begin
                    rndn(32'(vpr_limit) - 32'(vpr_base) + 1, dr);
                    off = (32'(vpr_base) - (32'(window_base) >> 12) + dr) << 12;
                end else begin
                    rndn(1 << ApBits, dr);
                    off = dr & ~4095;
                end
                rndn(512 - beats + 1, dr);
                off = (off + 8 * dr) & ((1 << ApBits) - 1);
                rndn(16, dr);
                write_burst(off, beats, 4'(dr));
            end else begin
                rndn(6, dr);
                read_bursts(1 + dr);
            end
        end
        repeat (20) @(negedge clk);
        protected_changed = 0;
        for (k = 0; k < VRAM_BYTES; k = k + 1) begin
            if (vram[k] !== ref_vram[k]) begin
                if (in_vpr(k)) protected_changed = protected_changed + 1;
                else data_errors = data_errors + 1;
            end
        end
        $display("# window 0x%05x, VPR pages [0x%0x, 0x%0x), %0d faults", window_base, vpr_base,
                 vpr_limit, faults_seen);
        check(data_errors == 0, "data outside the VPR round-trips through the window");
        check(protected_changed == 0, "writes inside the VPR leave VRAM untouched");
        check(vpr_leaks == 0, "reads inside the VPR return zeros");
        check(id_errors == 0, "B and R carry the master's ID, OKAY, RLAST on the last beat");
        check(faults_expected > 0 && faults_seen == faults_expected, "one fault per protected burst");
        check(fault_addr_errors == 0, "every fault address lies in the VPR");
        check(idle === 1'b1, "idle after every burst completed");
        check(w_early > 0, "W goes to VRAM without waiting for AWREADY (VRAM took W first)");
        check(attr_errors == 0, "VRAM bursts carry the master's size, burst, lock, cache, prot");
        // VPR off: the same pages are an ordinary part of the window again.
        vpr_en = 1'b0;
        data_errors = 0;
        write_burst((32'(vpr_base) - (32'(window_base) >> 12)) << 12, 4, 4'd3);
        read_bursts(1);
        check(data_errors == 0 && vpr_leaks == 0, "with the VPR disabled its pages round-trip");
        // VRAM ends two pages into the window (the size strap): past it every burst answers
        // DECERR, reads zeros and writes nothing, with no fault; below it bytes round-trip.
        vram_pages = (VramBits-11)'((32'(window_base) >> 12) + 2);
        data_errors = 0; id_errors = 0; faults_seen = 0;
        for (k = 0; k < 40; k = k + 1) begin
            rndn(16, dr); beats = 1 + dr;
            rndn(4, dr); rndn(512 - beats + 1, dr2);
            off = (dr << 12) + 8 * dr2;
            coin(heads);
            if (heads) begin
                rndn(16, dr);
                write_burst(off, beats, 4'(dr));
            end else begin
                rndn(4, dr);
                read_bursts(1 + dr);
            end
        end
        repeat (20) @(negedge clk);
        for (k = 0; k < VRAM_BYTES; k = k + 1)
            if (vram[k] !== ref_vram[k]) data_errors = data_errors + 1;
        $display("# VRAM ends at page 0x%0x: %0d bursts past it", vram_pages, oob_bursts);
        check(oob_bursts > 0 && id_errors == 0 && faults_seen == 0,
              "bursts past the VRAM size answer DECERR (others OKAY), no fault");
        check(data_errors == 0 && oob_leaks == 0, "past the VRAM size writes change nothing, reads return zeros");
        tb_finish("");
    end
endmodule
`default_nettype wire
