// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_mc_mmu: directed unit test of mc_mmu under Icarus 11 and Verilator 5.006 --timing: a small
// page-table memory model behind m_pt_* (random ARREADY, latency and RVALID gaps; DECERR outside
// the table region), one page of each size, a read-only page, a host page, invalid entries at
// several levels, physical mode and an invalidate, the page-walk cache (reads per cached level,
// emptied by an invalidate, unused from another root), then a random mix of them with random
// rsp_ready backpressure. Expected answers are written out by hand from rtl/mc/README.md.
//
// Output is TAP ("1..N", "# seed=S", "ok N - name") through the kit (tb/unit/common/tb_kit.svh,
// which also reads +seed=N and +wave=<file>); exits through $fatal when a check failed.
// Parameter DataBytes (8 or 16; -P/-G) sets the
// m_pt data width: on 16 the model puts the entry in its address's lane and junk in the other.
module tb_mc_mmu #(
    parameter DataBytes = 8
);
    localparam integer VramBits = 24;      // 16 MiB VRAM: a 2 MiB page fits
    localparam integer PLAN = 15;
    localparam integer TIMEOUT = 4000;
    localparam integer LaneBits = (DataBytes > 8) ? $clog2(DataBytes / 8) : 1;
    // Table region: 16 tables at 0x10000..0x1ffff; any other page-table address answers DECERR.
    localparam [VramBits-1:0] T_L3 = 24'h010000, T_L2 = 24'h011000, T_L1 = 24'h012000;
    localparam [VramBits-1:0] T_L0 = 24'h013000, T_P64 = 24'h014000;
    // A second L0 table, and a second root with its own L2, L1 and L0 tables.
    localparam [VramBits-1:0] T_L0B = 24'h015000, T_L3B = 24'h016000, T_L2B = 24'h017000;
    localparam [VramBits-1:0] T_L1B = 24'h018000, T_L0C = 24'h019000;
    localparam [63:0] V = 64'h1, W = 64'h2, S = 64'h4, C = 64'h8, LEAF = 64'h10, PT64 = 64'h20;
    localparam [63:0] JUNK = 64'hfed0_0000_0000_0a40;  // reserved bits: ignored

    logic clk = 1'b0;
    logic rst = 1'b1;
    always #5 clk = ~clk;

    // ---- DUT ------------------------------------------------------------------------------
    logic enable = 1'b1;
    logic [VramBits-1:0] root = T_L3;
    logic [VramBits-12:0] vram_pages = {1'b1, {(VramBits-12){1'b0}}};  // all of the VRAM space
    logic inv = 1'b0, inv_page = 1'b0;
    logic [47:0] inv_va = 48'd0;
    logic req_valid = 1'b0, req_write = 1'b0, req_phys = 1'b0;
    logic [47:0] req_va = 48'd0;
    logic [3:0] req_id = 4'd0;
    wire req_ready;
    logic rsp_ready = 1'b0;
    wire rsp_valid, rsp_system, rsp_cacheable, rsp_fault;
    wire [3:0] rsp_id;
    wire [51:0] rsp_pa;
    wire [4:0] rsp_shift;
    wire [2:0] rsp_type;
    wire [31:0] hits, misses, walks;
    wire idle;
    wire [1:0] arid;
    wire [VramBits-1:0] araddr;
    wire [7:0] arlen;
    wire [2:0] arsize, arprot;
    wire [1:0] arburst;
    wire [3:0] arcache;
    wire arvalid, rready;
    logic arready = 1'b0, rvalid = 1'b0;
    logic [DataBytes*8-1:0] rdata = '0;
    logic [1:0] rresp = 2'b00;

    mc_mmu #(.VramAddrBits(VramBits), .IdBits(4), .TlbEntries(8), .DataBytes(DataBytes),
             .PtIdBits(2)) dut (
        .clk_i(clk), .rst_i(rst), .enable_i(enable), .root_i(root), .vram_pages_i(vram_pages),
        .tlb_invalidate_i(inv), .tlb_inv_page_i(inv_page), .tlb_inv_page_va_i(inv_va),
        .req_valid_i(req_valid), .req_ready_o(req_ready), .req_va_i(req_va),
        .req_write_i(req_write), .req_physical_i(req_phys), .req_id_i(req_id),
        .rsp_valid_o(rsp_valid), .rsp_ready_i(rsp_ready), .rsp_id_o(rsp_id), .rsp_pa_o(rsp_pa),
        .rsp_system_o(rsp_system), .rsp_cacheable_o(rsp_cacheable),
        .rsp_page_shift_o(rsp_shift), .rsp_fault_o(rsp_fault), .rsp_fault_type_o(rsp_type),
        .tlb_hits_o(hits), .tlb_misses_o(misses), .walks_o(walks), .idle_o(idle),
        .m_pt_arid_o(arid), .m_pt_araddr_o(araddr), .m_pt_arlen_o(arlen), .m_pt_arsize_o(arsize),
        .m_pt_arburst_o(arburst), .m_pt_arcache_o(arcache), .m_pt_arprot_o(arprot),
        .m_pt_arvalid_o(arvalid), .m_pt_arready_i(arready), .m_pt_rid_i(2'd0),
        .m_pt_rdata_i(rdata), .m_pt_rresp_i(rresp), .m_pt_rlast_i(1'b1),
        .m_pt_rvalid_i(rvalid), .m_pt_rready_o(rready)
    );

`define TB_TOP tb_mc_mmu
`include "tb/unit/common/tb_kit.svh"
    task automatic rnd64(output logic [63:0] v);
        logic [31:0] hi, lo;
        rnd32(hi);
        rnd32(lo);
        v = {hi, lo};
    endtask

    // ---- page-table memory model: one read at a time, random stalls ------------------------
    logic [63:0] pt [0:8191];  // 0x10000..0x1ffff
    integer stall_pct = 30;
    logic busy = 1'b0;
    logic [VramBits-1:0] rd_addr;
    integer rd_wait = 0;
    integer reads = 0, ar_errors = 0;
    logic [VramBits-1:0] last_ar = '0;  // the last page-table read's address
    integer li;
    always @(negedge clk) begin : pt_ready
        integer r;
        rndn(100, r);
        arready <= !busy && r >= stall_pct;
    end
    always @(posedge clk) begin : pt_side
        integer r;
        logic [63:0] junk;
        if (arvalid && arready) begin
            busy <= 1'b1;
            rd_addr <= araddr;
            rndn(4, r);
            rd_wait <= r;
            reads = reads + 1;
            last_ar = araddr;
            if (arlen !== 8'd0 || arsize !== 3'd3 || arburst !== 2'b01 || arid !== 2'd0 ||
                arcache !== 4'b0010 || arprot !== 3'b001 || araddr[2:0] !== 3'd0)
                ar_errors = ar_errors + 1;
        end
        if (rvalid && rready) begin
            rvalid <= 1'b0;
            busy <= 1'b0;
        end else if (busy && !rvalid) begin
            if (rd_wait > 0) rd_wait <= rd_wait - 1;
            else begin
                rndn(100, r);
                if (r >= stall_pct) begin
                    for (li = 0; li < DataBytes / 8; li = li + 1) begin
                        rnd64(junk);
                        rdata[li*64 +: 64] <= junk;
                    end
                    if (rd_addr[VramBits-1:16] == 8'h01) begin
                        if (DataBytes == 8) rdata <= pt[rd_addr[15:3]];
                        else rdata[rd_addr[LaneBits+2:3]*64 +: 64] <= pt[rd_addr[15:3]];
                        rresp <= 2'b00;
                    end else rresp <= 2'b11;
                    rvalid <= 1'b1;
                end
            end
        end
    end

    function automatic [47:0] va_of(input integer l3, input integer l2, input integer l1,
                                     input integer l0);
        va_of = ({39'd0, l3[8:0]} << 39) | ({39'd0, l2[8:0]} << 30) | ({39'd0, l1[8:0]} << 21) |
                ({39'd0, l0[8:0]} << 12);
    endfunction
    task automatic set_pte(input [VramBits-1:0] table_addr, input integer idx, input [63:0] e);
        pt[(table_addr - 24'h010000) / 8 + idx] = e;
    endtask

    // ---- checks -----------------------------------------------------------------------------
    integer id_errors = 0;  // a directed translation answered with another ID

    // One translation: request, then wait for its response under random rsp_ready.
    logic [51:0] got_pa; logic got_sys, got_cache, got_fault; logic [4:0] got_shift;
    logic [2:0] got_type; logic [3:0] got_id;
    integer got_reads;
    task automatic translate(input [47:0] va, input logic wr, input logic phys);
        integer waited, r0, r;
        r0 = reads;
        @(negedge clk);
        rndn(16, r);
        req_va = va; req_write = wr; req_phys = phys; req_id = 4'(r); req_valid = 1'b1;
        @(posedge clk); while (!req_ready) @(posedge clk);
        @(negedge clk); req_valid = 1'b0;
        waited = 0;
        rndn(2, r);
        rsp_ready = r[0];
        @(posedge clk);
        while (!(rsp_valid && rsp_ready)) begin
            @(negedge clk); rndn(100, r); rsp_ready = r >= stall_pct;
            @(posedge clk); waited = waited + 1;
            if (waited > TIMEOUT) begin $display("Bail out! no response for VA %h", va); $fatal(1); end
        end
        got_pa = rsp_pa; got_sys = rsp_system; got_cache = rsp_cacheable; got_shift = rsp_shift;
        got_fault = rsp_fault; got_type = rsp_type; got_id = rsp_id;
        @(negedge clk); rsp_ready = 1'b0;
        got_reads = reads - r0;
        if (got_id !== req_id) id_errors = id_errors + 1;
    endtask

    function automatic logic is(input [51:0] pa, input logic sys, input logic cache,
                                input [4:0] shift, input [2:0] ftype);
        is = got_pa === pa && got_sys === sys && got_cache === cache && got_shift === shift &&
             got_fault === (ftype != 3'd0) && got_type === ftype;
    endfunction

    // ---- the random mix: many requests in flight, each checked in order ----------------------
    localparam integer KINDS = 9;
    logic [47:0] k_va [0:KINDS-1];
    integer k_bits [0:KINDS-1];
    logic [51:0] k_pa [0:KINDS-1];
    logic k_sys [0:KINDS-1], k_cache [0:KINDS-1], k_ro [0:KINDS-1];
    logic [2:0] k_fault [0:KINDS-1];
    logic [47:0] q_va [0:255]; logic q_wr [0:255]; logic q_phys [0:255]; integer q_kind [0:255];
    logic [3:0] q_id [0:255];
    integer mix_errors = 0, hold_errors = 0;
    logic [63:0] held; logic holding = 1'b0;
    always @(posedge clk) begin
        if (holding && !(rsp_valid && {rsp_pa, rsp_id, rsp_type, rsp_shift} == held[63:0]))
            hold_errors = hold_errors + 1;
        holding <= rsp_valid && !rsp_ready;
        held <= {rsp_pa, rsp_id, rsp_type, rsp_shift};
    end

    task automatic mix(input integer n);
        integer i, j, waited, r, r_in, r_out;
        logic [63:0] off;
        logic [51:0] pa;
        for (i = 0; i < n; i = i + 1) begin
            rndn(KINDS, r); q_kind[i] = r;
            rnd64(off);
            off = off & ((64'd1 << k_bits[q_kind[i]]) - 64'd1);
            q_va[i] = k_va[q_kind[i]] | off[47:0];
            rndn(2, r); q_wr[i] = r[0];
            rndn(8, r); q_phys[i] = r == 0;
            q_id[i] = i[3:0];
        end
        fork
            for (i = 0; i < n; i = i + 1) begin
                @(negedge clk);
                rndn(4, r_in);
                while (r_in == 0) begin
                    @(negedge clk);
                    rndn(4, r_in);
                end
                req_va = q_va[i]; req_write = q_wr[i]; req_phys = q_phys[i]; req_id = q_id[i];
                req_valid = 1'b1;
                @(posedge clk); while (!req_ready) @(posedge clk);
                @(negedge clk); req_valid = 1'b0;
            end
            for (j = 0; j < n; j = j + 1) begin
                waited = 0;
                @(negedge clk); rndn(100, r_out); rsp_ready = r_out >= stall_pct;
                @(posedge clk);
                while (!(rsp_valid && rsp_ready)) begin
                    @(negedge clk); rndn(100, r_out); rsp_ready = r_out >= stall_pct;
                    @(posedge clk); waited = waited + 1;
                    if (waited > TIMEOUT) begin $display("Bail out! mix: no response"); $fatal(1); end
                end
                if (q_phys[j]) begin
                    got_pa = rsp_pa; got_sys = rsp_system; got_cache = rsp_cacheable;
                    got_shift = rsp_shift; got_fault = rsp_fault; got_type = rsp_type;
                    if (!is({28'd0, q_va[j][VramBits-1:0]}, 1'b0, 1'b0, 5'd12, 3'd0)) mix_errors = mix_errors + 1;
                end else begin
                    got_pa = rsp_pa; got_sys = rsp_system; got_cache = rsp_cacheable;
                    got_shift = rsp_shift; got_fault = rsp_fault; got_type = rsp_type;
                    pa = k_pa[q_kind[j]] | {4'd0, q_va[j] & ((48'd1 << k_bits[q_kind[j]]) - 48'd1)};
                    if (k_fault[q_kind[j]] != 3'd0) begin
                        if (!is(52'd0, 1'b0, 1'b0, 5'd0, k_fault[q_kind[j]])) mix_errors = mix_errors + 1;
                    end else if (q_wr[j] && k_ro[q_kind[j]]) begin
                        if (!is(52'd0, 1'b0, 1'b0, 5'd0, 3'd2)) mix_errors = mix_errors + 1;
                    end else if (!is(pa, k_sys[q_kind[j]], k_cache[q_kind[j]], k_bits[q_kind[j]], 3'd0))
                        mix_errors = mix_errors + 1;
                end
                if (rsp_id !== q_id[j]) mix_errors = mix_errors + 1;
                if (mix_errors == 1 && n_fail == 0)
                    $display("# first mix error: VA %h kind %0d wr %0d phys %0d: pa %h sys %0d cache %0d shift %0d fault %0d/%0d id %0d",
                             q_va[j], q_kind[j], q_wr[j], q_phys[j], rsp_pa, rsp_system,
                             rsp_cacheable, rsp_shift, rsp_fault, rsp_type, rsp_id);
            end
        join
        @(negedge clk); rsp_ready = 1'b0;
    endtask

    integer k, h0, m0, w0, t0;
    integer dr;
    logic ok;
    initial begin
        tb_start(PLAN);
        $display("# DataBytes=%0d", DataBytes);

        // ---- the page tables ----
        for (k = 0; k < 8192; k = k + 1) pt[k] = 64'd0;
        set_pte(T_L3, 0, T_L2 | V | JUNK | W | S);               // non-leaf attributes: ignored
        set_pte(T_L2, 1, T_L1 | V | JUNK | PT64);                // PT64 at L2: ignored
        set_pte(T_L2, 2, 64'h0000_0000_0020_0000 | V | LEAF);   // LEAF at L2: unmapped
        set_pte(T_L1, 1, T_L0 | V);                              // 4 KiB-page table
        set_pte(T_L1, 2, T_P64 | V | PT64 | JUNK);               // 64 KiB-page table
        set_pte(T_L1, 3, 64'h0060_5000 | V | LEAF | W | C | JUNK); // 2 MiB at 0x600000
        set_pte(T_L1, 4, 64'h0001_3000 | JUNK | W);              // VALID clear: unmapped
        set_pte(T_L1, 5, 64'h0003_0000 | V);                     // a table outside: DECERR
        set_pte(T_L0, 3, 64'h00ab_c000 | V | W | JUNK | LEAF);   // 4 KiB, LEAF ignored at L0
        set_pte(T_L0, 4, 64'h00de_f000 | V | C);                 // read-only
        set_pte(T_L0, 5, 64'h0012_3456_7000 | V | S | W);        // host page above VRAM
        set_pte(T_P64, 7, 64'h0087_3000 | V | W | S | JUNK);     // 64 KiB, bits [15:12] ignored

        k_va[0] = va_of(0, 1, 1, 3); k_bits[0] = 12; k_pa[0] = 52'h00abc000; k_sys[0] = 0; k_cache[0] = 0; k_ro[0] = 0; k_fault[0] = 0;
        k_va[1] = va_of(0, 1, 2, 7 * 16); k_bits[1] = 16; k_pa[1] = 52'h00870000; k_sys[1] = 1; k_cache[1] = 0; k_ro[1] = 0; k_fault[1] = 0;
        k_va[2] = va_of(0, 1, 3, 0); k_bits[2] = 21; k_pa[2] = 52'h00600000; k_sys[2] = 0; k_cache[2] = 1; k_ro[2] = 0; k_fault[2] = 0;
        k_va[3] = va_of(0, 1, 1, 4); k_bits[3] = 12; k_pa[3] = 52'h00def000; k_sys[3] = 0; k_cache[3] = 1; k_ro[3] = 1; k_fault[3] = 0;
        k_va[4] = va_of(0, 1, 1, 5); k_bits[4] = 12; k_pa[4] = 52'h1234567000; k_sys[4] = 1; k_cache[4] = 0; k_ro[4] = 0; k_fault[4] = 0;
        k_va[5] = va_of(0, 1, 1, 6); k_bits[5] = 12; k_pa[5] = 52'd0; k_sys[5] = 0; k_cache[5] = 0; k_ro[5] = 0; k_fault[5] = 3'd1;
        k_va[6] = va_of(0, 1, 4, 0); k_bits[6] = 21; k_pa[6] = 52'd0; k_sys[6] = 0; k_cache[6] = 0; k_ro[6] = 0; k_fault[6] = 3'd1;
        k_va[7] = va_of(0, 2, 0, 0); k_bits[7] = 30; k_pa[7] = 52'd0; k_sys[7] = 0; k_cache[7] = 0; k_ro[7] = 0; k_fault[7] = 3'd1;
        k_va[8] = va_of(0, 1, 5, 0); k_bits[8] = 21; k_pa[8] = 52'd0; k_sys[8] = 0; k_cache[8] = 0; k_ro[8] = 0; k_fault[8] = 3'd3;

        repeat (4) @(negedge clk);
        rst = 1'b0;

        // ---- directed ----
        translate(k_va[0] | 48'h123, 1'b1, 1'b0);
        ok = is(52'h00abc123, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4;
        translate(k_va[0] | 48'h456, 1'b0, 1'b0);
        check(ok && is(52'h00abc456, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 0,
              "4 KiB page: walked once (4 reads), then a TLB hit");
        // The page-walk cache knows the L1 table now: 2 reads (L1 entry, PT64 entry).
        translate(k_va[1] | 48'h59a8, 1'b0, 1'b0);
        ok = is(52'h008759a8, 1'b1, 1'b0, 5'd16, 3'd0) && got_reads == 2;
        translate(k_va[1] | 48'hf000, 1'b1, 1'b0);
        check(ok && is(52'h0087f000, 1'b1, 1'b0, 5'd16, 3'd0) && got_reads == 0,
              "64 KiB page (PT64 table, VA[20:16]): PA 64K-aligned, one TLB entry");
        translate(k_va[2] | 48'h1ab321, 1'b1, 1'b0);
        ok = is(52'h007ab321, 1'b0, 1'b1, 5'd21, 3'd0) && got_reads == 1 && last_ar == T_L1 + 24'd3 * 8;
        translate(k_va[2] | 48'h000008, 1'b0, 1'b0);
        check(ok && is(52'h00600008, 1'b0, 1'b1, 5'd21, 3'd0) && got_reads == 0,
              "2 MiB page (L1 LEAF, 1 read from the cached L1 table): address bits [20:12] ignored, cacheable");
        translate(k_va[3] | 48'h10, 1'b0, 1'b0);
        ok = is(52'h00def010, 1'b0, 1'b1, 5'd12, 3'd0);
        translate(k_va[3] | 48'h18, 1'b1, 1'b0);
        check(ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd2) && got_reads == 0,
              "read-only page: a read translates, a write faults 2 (from the TLB)");
        translate(k_va[4] | 48'hfff, 1'b1, 1'b0);
        check(is(52'h1234567fff, 1'b1, 1'b0, 5'd12, 3'd0), "host page: system 1, PA above VRAM allowed");
        // From here the page-walk cache holds the tables of VA (0, 1, 1, *): each miss reads the
        // entries below the deepest table it knows for the VA.
        translate(k_va[5], 1'b0, 1'b0);
        ok = is(52'd0, 1'b0, 1'b0, 5'd0, 3'd1) && got_reads == 1;
        translate(k_va[6] | 48'h1000, 1'b0, 1'b0);
        ok = ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd1) && got_reads == 1;
        translate(k_va[7], 1'b1, 1'b0);
        ok = ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd1) && got_reads == 1 && last_ar == T_L2 + 24'd2 * 8;
        translate(va_of(5, 0, 0, 0), 1'b0, 1'b0);
        ok = ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd1) && got_reads == 1;
        translate(k_va[5], 1'b0, 1'b0);
        check(ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd1) && got_reads == 1,
              "invalid entries at L0, L1, L3 and LEAF at L2: fault 1, never cached (walked again)");
        translate(k_va[8] | 48'h40, 1'b0, 1'b0);
        check(is(52'd0, 1'b0, 1'b0, 5'd0, 3'd3) && got_reads == 2, "DECERR on a table read: fault 3");
        h0 = hits; m0 = misses; w0 = walks;
        translate(48'hfedc_ba98_7654, 1'b1, 1'b1);
        ok = is(52'h00987654, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 0;
        enable = 1'b0;
        translate(k_va[0] | 48'h77, 1'b0, 1'b0);
        enable = 1'b1;
        check(ok && is({28'd0, k_va[0][23:0] | 24'h77}, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 0 &&
              hits == h0 && misses == m0 && walks == w0,
              "physical mode (req_physical_i, enable_i low): PA = VA[23:0], no walk, not counted");
        set_pte(T_L0, 3, 64'h00bb_b000 | V | W);
        translate(k_va[0] | 48'h10, 1'b0, 1'b0);
        ok = is(52'h00abc010, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 0;
        @(negedge clk); inv = 1'b1; @(negedge clk); inv = 1'b0;
        translate(k_va[0] | 48'h10, 1'b0, 1'b0);
        check(ok && is(52'h00bbb010, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4,
              "rewritten PTE: old mapping until tlb_invalidate_i, the new one after");
        set_pte(T_L0, 3, 64'h00ab_c000 | V | W | JUNK | LEAF);
        translate(k_va[2] | 48'h10, 1'b0, 1'b0);
        @(negedge clk); inv_page = 1'b1; inv_va = k_va[0] | 48'h999; @(negedge clk); inv_page = 1'b0;
        translate(k_va[2] | 48'h20, 1'b0, 1'b0);
        ok = got_reads == 0;
        translate(k_va[0] | 48'h10, 1'b0, 1'b0);
        check(ok && is(52'h00abc010, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4,
              "tlb_inv_page_i: that page walks again, another page still hits");

        // ---- page-walk cache ----
        @(negedge clk); inv = 1'b1; @(negedge clk); inv = 1'b0;
        translate(k_va[0] | 48'h8, 1'b0, 1'b0);
        ok = is(52'h00abc008, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4;
        translate(k_va[3] | 48'h8, 1'b0, 1'b0);
        ok = ok && is(52'h00def008, 1'b0, 1'b1, 5'd12, 3'd0) && got_reads == 1 && last_ar == T_L0 + 24'd4 * 8;
        // The L1 entry moves to another L0 table; the invalidate must empty the cache too.
        set_pte(T_L0B, 4, 64'h00cd_d000 | V | W);
        set_pte(T_L0B, 5, 64'h00ce_e000 | V | W);
        set_pte(T_L1, 1, T_L0B | V);
        @(negedge clk); inv = 1'b1; @(negedge clk); inv = 1'b0;
        translate(k_va[3] | 48'h8, 1'b0, 1'b0);
        ok = ok && is(52'h00cdd008, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4 && last_ar == T_L0B + 24'd4 * 8;
        translate(k_va[4] | 48'h8, 1'b1, 1'b0);
        check(ok && is(52'h00cee008, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 1,
              "page-walk cache: 1 read in a walked 2 MiB region; after tlb_invalidate_i a moved table is found");
        // Another root maps the same VA elsewhere; switched to without an invalidate.
        set_pte(T_L3B, 0, T_L2B | V);
        set_pte(T_L2B, 1, T_L1B | V);
        set_pte(T_L1B, 1, T_L0C | V);
        set_pte(T_L0C, 6, 64'h00ee_e000 | V | W);
        root = T_L3B;
        translate(k_va[5] | 48'h10, 1'b0, 1'b0);
        ok = is(52'h00eee010, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4 && last_ar == T_L0C + 24'd6 * 8;
        root = T_L3;  // and back (the TLB keeps root T_L3B's page: another page of the region)
        translate(va_of(0, 1, 1, 7) | 48'h10, 1'b0, 1'b0);
        check(ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd1) && got_reads == 4 && last_ar == T_L0B + 24'd7 * 8,
              "a walk from another root never uses the page-walk cache of the old one (no invalidate)");
        set_pte(T_L1, 1, T_L0 | V);
        @(negedge clk); inv = 1'b1; @(negedge clk); inv = 1'b0;

        // ---- the VRAM size (vram_pages_i, gpu_core's strap) ----
        // VRAM ends at T_L0's page: L3, L2 and L1 lie inside it, T_L0 and every page above not.
        vram_pages = T_L0 >> 12;
        translate(k_va[0] | 48'h10, 1'b0, 1'b0);
        ok = is(52'd0, 1'b0, 1'b0, 5'd0, 3'd3) && got_reads == 3 && last_ar == T_L1 + 24'd1 * 8;
        translate(k_va[2] | 48'h10, 1'b0, 1'b0);
        ok = ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd3) && got_reads == 3;
        translate(k_va[4] | 48'h10, 1'b0, 1'b0);
        ok = ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd3) && got_reads == 3;
        vram_pages = T_L3 >> 12;
        translate(k_va[0] | 48'h10, 1'b0, 1'b0);
        ok = ok && is(52'd0, 1'b0, 1'b0, 5'd0, 3'd3) && got_reads == 0;
        vram_pages = {1'b1, {(VramBits-12){1'b0}}};
        translate(k_va[0] | 48'h10, 1'b0, 1'b0);
        check(ok && is(52'h00abc010, 1'b0, 1'b0, 5'd12, 3'd0) && got_reads == 4,
              "past the VRAM size: a next table or a VRAM leaf faults 3 unread, a root beyond it with no read");
        @(negedge clk); inv = 1'b1; @(negedge clk); inv = 1'b0;

        // ---- random mix ----
        t0 = misses + hits;
        for (k = 0; k < 6; k = k + 1) begin
            rndn(70, stall_pct);
            rndn(3, dr);
            if (dr == 0) begin @(negedge clk); inv = 1'b1; @(negedge clk); inv = 1'b0; end
            mix(40);
        end
        check(mix_errors == 0 && hold_errors == 0,
              "240 mixed requests, many in flight, random stalls: each answer right, in order, held");
        repeat (3) @(negedge clk);
        check(idle === 1'b1 && ar_errors == 0 && hits + misses >= t0 && misses == walks &&
              id_errors == 0,
              "idle at the end; AR fields ARLEN 0 ARSIZE 3 INCR; misses == walks");
        $display("# hits %0d misses %0d walks %0d reads %0d", hits, misses, walks, reads);
        tb_finish($sformatf(", DataBytes=%0d", DataBytes));
    end
endmodule
`default_nettype wire
