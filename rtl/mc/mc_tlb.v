// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_tlb: the GPU MMU's translation lookaside buffer: TlbEntries fully associative entries, each
// one page of 4 KiB, 64 KiB or 2 MiB (tag = the VA bits above the page offset) with its physical
// page and the leaf's WRITABLE, SYSTEM and CACHEABLE bits.
// Contract:
//   - Lookup: lookup_load_i loads lookup_next_vpn_i as the VPN looked up from the next cycle on
//     (the caller keeps it in its own register and presents it as lookup_vpn_i). In every cycle
//     lookup_hit_o and the entry's fields answer for that VPN against the entries of that cycle
//     (fills and invalidates of earlier cycles included), as a combinational lookup of
//     lookup_vpn_i would. Which entries cover it is registered (match_q): its next value is
//     compared from lookup_next_vpn_i and the entries one cycle ahead, and this cycle's fill or
//     invalidate only masks or sets its bits, so no tag compare lies on the path from the
//     answer to the caller's decisions. When several entries cover the VA (possible only when
//     software changed a page size without invalidating), the lowest index answers.
//     lookup_count_i marks the cycle whose answer the user acts on: it counts one hit or one
//     miss.
//   - fill_i writes one entry: the lowest-index invalid entry if there is one, else the entry
//     under a round-robin pointer, which then advances. The caller fills only after a miss for
//     that VA. An invalidate (either kind) in the same cycle drops the fill.
//   - inv_all_i clears every entry; inv_page_i clears every entry covering inv_vpn_i. Both
//     take effect for lookups from the next cycle on.
//   - hits_o and misses_o count lookups modulo 2^32 (they wrap; the host takes differences).
//   - rst_i clears every entry, the pointer and the counters.
module mc_tlb #(
    parameter TlbEntries = 16  // entries, 1..256
) (
    input  wire        clk_i,
    input  wire        rst_i,               // synchronous, active high
    // lookup (answers for the VPN loaded last)
    input  wire        lookup_load_i,       // look up lookup_next_vpn_i from the next cycle on
    input  wire [35:0] lookup_next_vpn_i,   // VA[47:12]
    input  wire [35:0] lookup_vpn_i,        // VA[47:12] loaded last (the caller's register)
    input  wire        lookup_count_i,      // count this cycle's answer as a hit or a miss
    output wire        lookup_hit_o,
    output wire [1:0]  lookup_size_o,       // 0: 4 KiB, 1: 64 KiB, 2: 2 MiB
    output wire [39:0] lookup_ppn_o,        // PA[51:12]; the bits inside a large page are zero
    output wire        lookup_writable_o,
    output wire        lookup_system_o,
    output wire        lookup_cacheable_o,
    // fill
    input  wire        fill_i,
    input  wire [35:0] fill_vpn_i,          // VA[47:12]; bits inside a large page are ignored
    input  wire [1:0]  fill_size_i,
    input  wire [39:0] fill_ppn_i,          // PA[51:12]; bits inside a large page are ignored
    input  wire        fill_writable_i,
    input  wire        fill_system_i,
    input  wire        fill_cacheable_i,
    // invalidate
    input  wire        inv_all_i,
    input  wire        inv_page_i,
    input  wire [35:0] inv_vpn_i,           // VA[47:12] of the page to drop
    // counters
    output wire [31:0] hits_o,
    output wire [31:0] misses_o
);
    localparam [1:0] SIZE_4K = 2'd0;
    localparam [1:0] SIZE_64K = 2'd1;
    localparam [1:0] SIZE_2M = 2'd2;
    localparam integer IdxBits = (TlbEntries > 1) ? $clog2(TlbEntries) : 1;
    localparam integer LAST = TlbEntries - 1;

    if (TlbEntries < 1 || TlbEntries > 256) begin : g_bad_entries
        `CMN_PARAM_ERROR("mc_tlb: TlbEntries must be 1..256")
    end

    // Tag and page kept masked to the page size, so a compare needs no size-dependent mask on
    // the stored side.
    logic [TlbEntries-1:0]    valid_q, valid_d;
    logic [TlbEntries*36-1:0] vpn_q, vpn_d;
    logic [TlbEntries*2-1:0]  size_q, size_d;
    logic [TlbEntries*40-1:0] ppn_q, ppn_d;
    logic [TlbEntries-1:0]    writable_q, writable_d;
    logic [TlbEntries-1:0]    system_q, system_d;
    logic [TlbEntries-1:0]    cacheable_q, cacheable_d;
    logic [IdxBits-1:0]       rr_q, rr_d;
    logic [31:0]              hits_q, hits_d;
    logic [31:0]              misses_q, misses_d;

    logic [TlbEntries-1:0]    victim;          // one-hot: the entry a fill would write
    logic [TlbEntries-1:0]    write;           // one-hot or zero: the entry filled now
    logic [TlbEntries-1:0]    wdata;           // one-hot or zero: the entry whose fields are written
    integer                   i;

    // Does an entry with tag e and size s cover the page v?
    function automatic logic covers(input [35:0] e, input [1:0] s, input [35:0] v);
        case (s)
            SIZE_4K:  covers = (e == v);
            SIZE_64K: covers = (e[35:4] == v[35:4]);
            SIZE_2M:  covers = (e[35:9] == v[35:9]);
            default:  covers = 1'b0;
        endcase
    endfunction

    function automatic [35:0] mask_vpn(input [35:0] v, input [1:0] s);
        case (s)
            SIZE_64K: mask_vpn = {v[35:4], 4'd0};
            SIZE_2M:  mask_vpn = {v[35:9], 9'd0};
            default:  mask_vpn = v;
        endcase
    endfunction

    function automatic [39:0] mask_ppn(input [39:0] p, input [1:0] s);
        case (s)
            SIZE_64K: mask_ppn = {p[39:4], 4'd0};
            SIZE_2M:  mask_ppn = {p[39:9], 9'd0};
            default:  mask_ppn = p;
        endcase
    endfunction

    // The lowest set bit of v alone (none when v is zero).
    function automatic [TlbEntries-1:0] lowest(input [TlbEntries-1:0] v);
        lowest = v & (-v);  // two's complement keeps the lowest set bit alone
    endfunction

    // The fields of the one entry selected by a one-hot (zero when none is selected).
    function automatic [1:0] pick_size(input [TlbEntries-1:0] sel, input [TlbEntries*2-1:0] v);
        integer k;
        pick_size = 2'd0;
        for (k = 0; k < TlbEntries; k = k + 1)
            if (sel[k]) pick_size = pick_size | v[k*2 +: 2];
    endfunction

    function automatic [39:0] pick_ppn(input [TlbEntries-1:0] sel, input [TlbEntries*40-1:0] v);
        integer k;
        pick_ppn = 40'd0;
        for (k = 0; k < TlbEntries; k = k + 1)
            if (sel[k]) pick_ppn = pick_ppn | v[k*40 +: 40];
    endfunction

    // The round-robin pointer as a one-hot.
    function automatic [TlbEntries-1:0] onehot(input [IdxBits-1:0] idx);
        integer k;
        onehot = {TlbEntries{1'b0}};
        for (k = 0; k < TlbEntries; k = k + 1)
            if (idx == k[IdxBits-1:0]) onehot[k] = 1'b1;
    endfunction

    // Lookup: which entries cover the VA (match_q, kept for lookup_vpn_i); the lowest one answers.
    logic [TlbEntries-1:0]    match_q, match_d;
    wire [TlbEntries-1:0]     match_next;      // valid entries covering lookup_next_vpn_i
    wire [TlbEntries-1:0]     inv_match;       // entries covering inv_vpn_i
    wire                      hit = |match_q;
    wire [TlbEntries-1:0]     hit_sel = lowest(match_q);
    wire                      free_found = ~&valid_q;
    wire [TlbEntries-1:0]     free_sel = lowest(~valid_q);
    // Does the entry a fill writes cover the VPN looked up next (either candidate)?
    wire [35:0]               fill_tag = mask_vpn(fill_vpn_i, fill_size_i);
    wire                      fill_covers_next = covers(fill_tag, fill_size_i, lookup_next_vpn_i);
    wire                      fill_covers_cur = covers(fill_tag, fill_size_i, lookup_vpn_i);

    genvar g;
    for (g = 0; g < TlbEntries; g = g + 1) begin : g_match
        assign match_next[g] = valid_q[g] && covers(vpn_q[g*36 +: 36], size_q[g*2 +: 2],
                                                   lookup_next_vpn_i);
        assign inv_match[g] = covers(vpn_q[g*36 +: 36], size_q[g*2 +: 2], inv_vpn_i);
    end

    always_comb begin
        valid_d = valid_q;
        vpn_d = vpn_q;
        size_d = size_q;
        ppn_d = ppn_q;
        writable_d = writable_q;
        system_d = system_q;
        cacheable_d = cacheable_q;
        rr_d = rr_q;
        hits_d = hits_q;
        misses_d = misses_q;

        victim = free_found ? free_sel : onehot(rr_q);

        if (lookup_count_i) begin
            if (hit) hits_d = hits_q + 32'd1;
            else misses_d = misses_q + 32'd1;
        end

        // An invalidate drops a fill of the same cycle.
        if (inv_all_i) valid_d = {TlbEntries{1'b0}};
        else if (inv_page_i) valid_d = valid_q & ~inv_match;
        write = (fill_i && !inv_all_i && !inv_page_i) ? victim : {TlbEntries{1'b0}};
        // The victim's fields are written without regard to inv_all_i (the entry is dropped
        // anyway then), so that the late invalidate (a change of root at the request's accept)
        // drives only the valid bits, not the enables of every entry's fields.
        wdata = (fill_i && !inv_page_i) ? victim : {TlbEntries{1'b0}};
        for (i = 0; i < TlbEntries; i = i + 1) begin
            if (write[i]) valid_d[i] = 1'b1;
            if (wdata[i]) begin
                vpn_d[i*36 +: 36] = mask_vpn(fill_vpn_i, fill_size_i);
                size_d[i*2 +: 2] = fill_size_i;
                ppn_d[i*40 +: 40] = mask_ppn(fill_ppn_i, fill_size_i);
                writable_d[i] = fill_writable_i;
                system_d[i] = fill_system_i;
                cacheable_d[i] = fill_cacheable_i;
            end
        end
        // The looked-up VPN's matches in the next cycle: this cycle's (or the new VPN's, from
        // the entries as they are now), less what is invalidated, with the entry filled now.
        match_d = lookup_load_i ? match_next : match_q;
        if (inv_all_i) match_d = {TlbEntries{1'b0}};
        else if (inv_page_i) match_d = match_d & ~inv_match;
        match_d = (match_d & ~write) |
                  (write & {TlbEntries{lookup_load_i ? fill_covers_next : fill_covers_cur}});
        // The round-robin pointer moves on a fill an invalidate drops as well: the invalidates
        // (late) stay off its enable.
        if (fill_i && !free_found)
            rr_d = (rr_q == LAST[IdxBits-1:0]) ? {IdxBits{1'b0}} : rr_q + 1'b1;
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            valid_q <= {TlbEntries{1'b0}};
            match_q <= {TlbEntries{1'b0}};
            rr_q <= {IdxBits{1'b0}};
            hits_q <= 32'd0;
            misses_q <= 32'd0;
        end else begin
            valid_q <= valid_d;
            match_q <= match_d;
            rr_q <= rr_d;
            hits_q <= hits_d;
            misses_q <= misses_d;
        end
        // Entry contents: no reset needed, qualified by valid_q.
        vpn_q <= vpn_d;
        size_q <= size_d;
        ppn_q <= ppn_d;
        writable_q <= writable_d;
        system_q <= system_d;
        cacheable_q <= cacheable_d;
    end

    assign lookup_hit_o = hit;
    assign lookup_size_o = pick_size(hit_sel, size_q);
    assign lookup_ppn_o = pick_ppn(hit_sel, ppn_q);
    assign lookup_writable_o = |(hit_sel & writable_q);
    assign lookup_system_o = |(hit_sel & system_q);
    assign lookup_cacheable_o = |(hit_sel & cacheable_q);
    assign hits_o = hits_q;
    assign misses_o = misses_q;
endmodule
`default_nettype wire
