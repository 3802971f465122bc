// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_mmu: the GPU MMU: translates 48-bit GPU virtual addresses to physical ones through a TLB
// (mc_tlb) and, on a miss, a walk of the page tables in VRAM (mc_walker, which starts from the
// deepest table its page-walk cache mc_pwc knows); format and policy in rtl/mc/README.md.
// Contract:
//   - req_*: one translation per handshake. Physical requests (req_physical_i, or any request
//     while enable_i is low; enable_i is taken with the request) are not translated: PA =
//     VA[VramAddrBits-1:0], system 0, cacheable 0, page shift 12, never a fault.
//   - rsp_*: exactly one response per request, in request order, held until rsp_ready_i. A
//     fault (rsp_fault_o, rsp_fault_type_o 1 unmapped, 2 write to read-only, 3 decode error)
//     answers with PA, system, cacheable and page shift all zero; it never stalls the MMU.
//     Otherwise rsp_pa_o = page base + VA offset, rsp_page_shift_o = 12, 16 or 21.
//   - One request is translated at a time: a TLB hit accepted in cycle N is answered (rsp_valid_o)
//     in cycle N+2, hits stream at one per cycle; a miss answers after its walk, and requests
//     behind it wait. req_ready_o may depend on rsp_ready_i in the same cycle.
//   - tlb_invalidate_i (pulse) empties the TLB; tlb_inv_page_i (pulse) drops the entries that
//     cover tlb_inv_page_va_i. Either pulse empties the page-walk cache. Every request accepted
//     in or after the pulse's cycle sees the invalidation. A walk in progress at the pulse still
//     answers its own request with what it read, but fills neither the TLB nor the cache.
//   - vram_pages_i: the 4 KiB pages of VRAM present, at most 2^(VramAddrBits-12); static while
//     translations run. A table or a VRAM page at or above it is a decode error (type 3).
//   - root_i (the L3 table in VRAM, 4 KiB aligned) is taken when a walk starts. After changing
//     it, or any page-table entry that may be cached, invalidate. (The page-walk cache is also
//     tagged with its root: a walk from another root never uses it.)
//   - Counters (modulo 2^32, reset by rst_i only): tlb_hits_o + tlb_misses_o counts translated
//     requests; walks_o counts walks (one per miss here).
//   - idle_o: no request held, no response waiting, no page-table read outstanding. m_pt_* is
//     never left inside a transaction except by rst_i.
module mc_mmu #(
    parameter VramAddrBits = 32,  // VRAM byte address bits, 13..48
    parameter IdBits       = 4,   // req_id_i / rsp_id_o width
    parameter TlbEntries   = 16,  // TLB entries, 1..256
    parameter DataBytes    = 8,   // m_pt_* data bus width in bytes: 8, 16, 32 or 64
    parameter PtIdBits     = 2,   // m_pt_* ID width
    parameter PwcEntries   = 4    // page-walk cache entries, 0..16 (0: every walk from the root)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,               // synchronous, active high
    // control
    input  wire                    enable_i,            // 0: every request is physical
    input  wire [VramAddrBits-1:0] root_i,              // L3 table; bits [11:0] ignored
    input  wire [VramAddrBits-12:0] vram_pages_i,       // VRAM size in 4 KiB pages (a strap)
    input  wire                    tlb_invalidate_i,    // pulse: drop every TLB entry
    input  wire                    tlb_inv_page_i,      // pulse: drop the entries covering ...
    input  wire [47:0]             tlb_inv_page_va_i,   // ... this VA
    // translation requests
    input  wire                    req_valid_i,
    output wire                    req_ready_o,
    input  wire [47:0]             req_va_i,
    input  wire                    req_write_i,
    input  wire                    req_physical_i,
    input  wire [IdBits-1:0]       req_id_i,
    // translation responses
    output wire                    rsp_valid_o,
    input  wire                    rsp_ready_i,
    output wire [IdBits-1:0]       rsp_id_o,
    output wire [51:0]             rsp_pa_o,
    output wire                    rsp_system_o,        // route to m_host
    output wire                    rsp_cacheable_o,     // drives AxCACHE
    output wire [4:0]              rsp_page_shift_o,    // 12, 16 or 21 (0 on a fault)
    output wire                    rsp_fault_o,
    output wire [2:0]              rsp_fault_type_o,    // 0 none, 1 unmapped, 2 read-only, 3 decode
    // counters
    output wire [31:0]             tlb_hits_o,
    output wire [31:0]             tlb_misses_o,
    output wire [31:0]             walks_o,
    output wire                    idle_o,
    // AXI4 read master toward VRAM (page tables)
    output wire [PtIdBits-1:0]     m_pt_arid_o,
    output wire [VramAddrBits-1:0] m_pt_araddr_o,
    output wire [7:0]              m_pt_arlen_o,
    output wire [2:0]              m_pt_arsize_o,
    output wire [1:0]              m_pt_arburst_o,
    output wire [3:0]              m_pt_arcache_o,
    output wire [2:0]              m_pt_arprot_o,
    output wire                    m_pt_arvalid_o,
    input  wire                    m_pt_arready_i,
    input  wire [PtIdBits-1:0]     m_pt_rid_i,
    input  wire [DataBytes*8-1:0]  m_pt_rdata_i,
    input  wire [1:0]              m_pt_rresp_i,
    input  wire                    m_pt_rlast_i,
    input  wire                    m_pt_rvalid_i,
    output wire                    m_pt_rready_o
);
    localparam [1:0] SIZE_64K = 2'd1;
    localparam [1:0] SIZE_2M = 2'd2;
    localparam [2:0] FAULT_NONE = 3'd0;
    localparam [2:0] FAULT_READ_ONLY = 3'd2;

    if (VramAddrBits < 13 || VramAddrBits > 48) begin : g_bad_vram
        `CMN_PARAM_ERROR("mc_mmu: VramAddrBits must be 13..48")
    end
    if (IdBits < 1) begin : g_bad_id
        `CMN_PARAM_ERROR("mc_mmu: IdBits must be at least 1")
    end

    // The request being translated ("stage A").
    logic              a_valid_q, a_valid_d;
    logic [47:0]       a_va_q, a_va_d;
    logic              a_write_q, a_write_d;
    logic              a_phys_q, a_phys_d;
    logic [IdBits-1:0] a_id_q, a_id_d;
    logic              a_walking_q, a_walking_d;  // its walk was started
    logic              stale_q, stale_d;          // an invalidate came during that walk
    // The response register.
    logic              rsp_valid_q, rsp_valid_d;
    logic [IdBits-1:0] rsp_id_q, rsp_id_d;
    logic [51:0]       rsp_pa_q, rsp_pa_d;
    logic              rsp_system_q, rsp_system_d;
    logic              rsp_cacheable_q, rsp_cacheable_d;
    logic [4:0]        rsp_shift_q, rsp_shift_d;
    logic [2:0]        rsp_fault_q, rsp_fault_d;
    logic [31:0]       walks_q, walks_d;

    // TLB and walker
    wire        tlb_hit;
    wire [1:0]  tlb_size;
    wire [39:0] tlb_ppn;
    wire        tlb_writable, tlb_system, tlb_cacheable;
    wire        walk_valid, walk_ready;
    wire        res_valid, res_ready;
    wire [1:0]  res_size;
    wire [39:0] res_ppn;
    wire        res_writable, res_system, res_cacheable, res_fault;
    wire [2:0]  res_fault_type;
    wire        walker_idle;

    // Handshakes and decisions of this cycle.
    wire out_free = !rsp_valid_q || rsp_ready_i;
    wire a_xlate = a_valid_q && !a_phys_q && !a_walking_q;
    wire use_phys = a_valid_q && a_phys_q && out_free;
    wire use_hit = a_xlate && tlb_hit && out_free;
    assign walk_valid = a_xlate && !tlb_hit;
    wire walk_start = walk_valid && walk_ready;
    assign res_ready = a_walking_q && out_free;
    wire use_walk = res_valid && res_ready;
    wire a_done = use_phys || use_hit || use_walk;
    wire inv_any = tlb_invalidate_i || tlb_inv_page_i;
    // The TLB and the page-walk cache drop a fill in the cycle of an invalidate themselves
    // (inv_any may come late: mc_top's change of root at a request's accept).
    // The fill goes in the first cycle the walk's good result is held, not when it is taken:
    // rsp_ready_i (the client's) stays off the TLB's and the cache's write enables. An
    // invalidate after that cycle flushes what it filled, as it would have dropped the fill.
    logic filled_q;
    wire fill = res_valid && a_walking_q && !res_fault && !stale_q && !filled_q;

    assign req_ready_o = !a_valid_q || a_done;

    wire unused_ok = ^{tlb_inv_page_va_i[11:0]};  // the page offset: any VA in the page will do

    // PA of a page: its base (size-aligned) plus the VA's offset inside it.
    function automatic [51:0] page_pa(input [39:0] ppn, input [1:0] size, input [20:0] va);
        case (size)
            SIZE_64K: page_pa = {ppn[39:4], va[15:0]};
            SIZE_2M:  page_pa = {ppn[39:9], va[20:0]};
            default:  page_pa = {ppn, va[11:0]};
        endcase
    endfunction

    function automatic [4:0] page_shift(input [1:0] size);
        case (size)
            SIZE_64K: page_shift = 5'd16;
            SIZE_2M:  page_shift = 5'd21;
            default:  page_shift = 5'd12;
        endcase
    endfunction

    always_comb begin
        a_valid_d = a_valid_q;
        a_va_d = a_va_q;
        a_write_d = a_write_q;
        a_phys_d = a_phys_q;
        a_id_d = a_id_q;
        a_walking_d = a_walking_q;
        stale_d = stale_q;
        rsp_valid_d = rsp_valid_q;
        rsp_id_d = rsp_id_q;
        rsp_pa_d = rsp_pa_q;
        rsp_system_d = rsp_system_q;
        rsp_cacheable_d = rsp_cacheable_q;
        rsp_shift_d = rsp_shift_q;
        rsp_fault_d = rsp_fault_q;
        walks_d = walks_q;

        if (rsp_ready_i) rsp_valid_d = 1'b0;

        if (walk_start) begin
            a_walking_d = 1'b1;
            stale_d = inv_any;
            walks_d = walks_q + 32'd1;
        end else if (a_walking_q && inv_any) begin
            stale_d = 1'b1;
        end

        // The answer's page fields load whenever the output is free, chosen by the request's
        // own registers (physical, walked, or else a TLB hit): their enable and select leave
        // out the TLB's compare and the fault checks, which decide rsp_valid_d and
        // rsp_fault_d alone. A fault's answer reads as zeros at the outputs.
        if (out_free) begin
            rsp_id_d = a_id_q;
            if (a_phys_q) begin
                rsp_pa_d = {{(52 - VramAddrBits){1'b0}}, a_va_q[VramAddrBits-1:0]};
                rsp_system_d = 1'b0;
                rsp_cacheable_d = 1'b0;
                rsp_shift_d = 5'd12;
            end else if (a_walking_q) begin
                rsp_pa_d = page_pa(res_ppn, res_size, a_va_q[20:0]);
                rsp_system_d = res_system;
                rsp_cacheable_d = res_cacheable;
                rsp_shift_d = page_shift(res_size);
            end else begin
                rsp_pa_d = page_pa(tlb_ppn, tlb_size, a_va_q[20:0]);
                rsp_system_d = tlb_system;
                rsp_cacheable_d = tlb_cacheable;
                rsp_shift_d = page_shift(tlb_size);
            end
        end
        if (a_done) begin
            a_valid_d = 1'b0;
            a_walking_d = 1'b0;
            rsp_valid_d = 1'b1;
            rsp_fault_d = FAULT_NONE;
            if (use_phys) begin
                rsp_fault_d = FAULT_NONE;
            end else if (use_walk && res_fault) begin
                rsp_fault_d = res_fault_type;
            end else if (a_write_q && !(use_hit ? tlb_writable : res_writable)) begin
                rsp_fault_d = FAULT_READ_ONLY;
            end
        end

        if (req_valid_i && req_ready_o) begin
            a_valid_d = 1'b1;
            a_va_d = req_va_i;
            a_write_d = req_write_i;
            a_phys_d = req_physical_i || !enable_i;
            a_id_d = req_id_i;
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            a_valid_q <= 1'b0;
            a_walking_q <= 1'b0;
            stale_q <= 1'b0;
            filled_q <= 1'b0;
            rsp_valid_q <= 1'b0;
            walks_q <= 32'd0;
        end else begin
            a_valid_q <= a_valid_d;
            a_walking_q <= a_walking_d;
            stale_q <= stale_d;
            filled_q <= !use_walk && (filled_q || fill);
            rsp_valid_q <= rsp_valid_d;
            walks_q <= walks_d;
        end
        // Data path: no reset needed, qualified by the valid bits above.
        a_va_q <= a_va_d;
        a_write_q <= a_write_d;
        a_phys_q <= a_phys_d;
        a_id_q <= a_id_d;
        rsp_id_q <= rsp_id_d;
        rsp_pa_q <= rsp_pa_d;
        rsp_system_q <= rsp_system_d;
        rsp_cacheable_q <= rsp_cacheable_d;
        rsp_shift_q <= rsp_shift_d;
        rsp_fault_q <= rsp_fault_d;
    end

    mc_tlb #(
        .TlbEntries(TlbEntries)
    ) u_tlb (
        .clk_i(clk_i),
        .rst_i(rst_i),
        .lookup_load_i(req_valid_i && req_ready_o),
        .lookup_next_vpn_i(req_va_i[47:12]),
        .lookup_vpn_i(a_va_q[47:12]),
        .lookup_count_i(use_hit || walk_start),
        .lookup_hit_o(tlb_hit),
        .lookup_size_o(tlb_size),
        .lookup_ppn_o(tlb_ppn),
        .lookup_writable_o(tlb_writable),
        .lookup_system_o(tlb_system),
        .lookup_cacheable_o(tlb_cacheable),
        .fill_i(fill),
        .fill_vpn_i(a_va_q[47:12]),
        .fill_size_i(res_size),
        .fill_ppn_i(res_ppn),
        .fill_writable_i(res_writable),
        .fill_system_i(res_system),
        .fill_cacheable_i(res_cacheable),
        .inv_all_i(tlb_invalidate_i),
        .inv_page_i(tlb_inv_page_i),
        .inv_vpn_i(tlb_inv_page_va_i[47:12]),
        .hits_o(tlb_hits_o),
        .misses_o(tlb_misses_o)
    );

    mc_walker #(
        .VramAddrBits(VramAddrBits),
        .DataBytes(DataBytes),
        .PtIdBits(PtIdBits),
        .PwcEntries(PwcEntries)
    ) u_walker (
        .clk_i(clk_i),
        .rst_i(rst_i),
        .walk_valid_i(walk_valid),
        .walk_ready_o(walk_ready),
        .walk_vpn_i(a_va_q[47:12]),
        .walk_root_i(root_i),
        .vram_pages_i(vram_pages_i),
        .res_valid_o(res_valid),
        .res_ready_i(res_ready),
        .res_size_o(res_size),
        .res_ppn_o(res_ppn),
        .res_writable_o(res_writable),
        .res_system_o(res_system),
        .res_cacheable_o(res_cacheable),
        .res_fault_o(res_fault),
        .res_fault_type_o(res_fault_type),
        .idle_o(walker_idle),
        .pwc_fill_i(fill),
        .pwc_flush_i(inv_any),
        .m_pt_arid_o(m_pt_arid_o),
        .m_pt_araddr_o(m_pt_araddr_o),
        .m_pt_arlen_o(m_pt_arlen_o),
        .m_pt_arsize_o(m_pt_arsize_o),
        .m_pt_arburst_o(m_pt_arburst_o),
        .m_pt_arcache_o(m_pt_arcache_o),
        .m_pt_arprot_o(m_pt_arprot_o),
        .m_pt_arvalid_o(m_pt_arvalid_o),
        .m_pt_arready_i(m_pt_arready_i),
        .m_pt_rid_i(m_pt_rid_i),
        .m_pt_rdata_i(m_pt_rdata_i),
        .m_pt_rresp_i(m_pt_rresp_i),
        .m_pt_rlast_i(m_pt_rlast_i),
        .m_pt_rvalid_i(m_pt_rvalid_i),
        .m_pt_rready_o(m_pt_rready_o)
    );

    assign rsp_valid_o = rsp_valid_q;
    assign rsp_id_o = rsp_id_q;
    wire   rsp_ok = rsp_fault_q == FAULT_NONE;
    assign rsp_pa_o = rsp_ok ? rsp_pa_q : 52'd0;
    assign rsp_system_o = rsp_ok && rsp_system_q;
    assign rsp_cacheable_o = rsp_ok && rsp_cacheable_q;
    assign rsp_page_shift_o = rsp_ok ? rsp_shift_q : 5'd0;
    assign rsp_fault_o = !rsp_ok;
    assign rsp_fault_type_o = rsp_fault_q;
    assign walks_o = walks_q;
    assign idle_o = !a_valid_q && !rsp_valid_q && walker_idle;

`ifdef GR_ASSERT
    // Streams: a response, once valid, holds its payload until taken; the requester's likewise.
    logic                rsp_wait_q = 1'b0;
    logic [IdBits+61:0]  rsp_seen_q;
    logic                req_wait_q = 1'b0;
    logic [IdBits+49:0]  req_seen_q;
    wire  [IdBits+61:0]  rsp_now = {rsp_id_q, rsp_pa_q, rsp_system_q, rsp_cacheable_q,
                                    rsp_shift_q, rsp_fault_q};
    wire  [IdBits+49:0]  req_now = {req_id_i, req_va_i, req_write_i, req_physical_i};
    always @(posedge clk_i) begin
        if (!rst_i && rsp_wait_q && !(rsp_valid_o && rsp_now == rsp_seen_q))
            $error("mc_mmu %m: response changed or dropped before rsp_ready_i");
        if (!rst_i && req_wait_q && !(req_valid_i && req_now == req_seen_q))
            $error("mc_mmu %m: request changed or dropped before req_ready_o");
        if (!rst_i && use_walk && !a_valid_q)
            $error("mc_mmu %m: walk result without a request");
        rsp_wait_q <= !rst_i && rsp_valid_o && !rsp_ready_i;
        rsp_seen_q <= rsp_now;
        req_wait_q <= !rst_i && req_valid_i && !req_ready_o;
        req_seen_q <= req_now;
    end
`endif
endmodule
`default_nettype wire
