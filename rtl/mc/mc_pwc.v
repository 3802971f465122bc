// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_pwc: the page-walk cache of the GPU MMU's walker: PwcEntries fully associative entries, each
// the table pointers one successful walk went through for a 2 MiB region (tag VA[47:21]): the L2
// table (from the L3 entry), the L1 table (from the L2 entry) and, unless the region is a 2 MiB
// page, the L0 or PT64 table (from the L1 entry). A walk starts at the deepest table the cache
// knows for its VA: one read when the 2 MiB region is cached, two when only its 1 GiB region is,
// three for its 512 GiB region, four otherwise. Leaves are never held here (that is the TLB).
// Contract:
//   - Lookup is combinational on lookup_tag_i and lookup_root_i. lookup_level_o is the level of
//     the table the walk starts at: 0 (lookup_l0_o, a 64 KiB-page table when lookup_pt64_o),
//     1 (lookup_l1_o), 2 (lookup_l2_o) or 3 (nothing known: the root). Every entry belongs to
//     one root: while lookup_root_i differs from it, the answer is 3. Each pointer comes from
//     the lowest-index entry that knows it for the VA (lookup_l1_o from the lowest entry in
//     the VA's 1 GiB region, whatever the level), so the three are picked side by side and not
//     behind the level's priority (timing); the tables being consistent, which is the flush
//     rule below, they are the pointers of one walk. Outside the answer's level and those above
//     it, a pointer is zero or meaningless.
//   - fill_i writes one entry from a walk that ended with a page: the entry with the same tag
//     if there is one, else the lowest-index invalid entry, else the entry under a round-robin
//     pointer, which then advances. A fill for another root than the entries' drops them all
//     first. A flush in the same cycle drops the fill.
//   - flush_i drops every entry, for lookups from the next cycle on.
//   - rst_i drops every entry and resets the pointer.
// The entries hold what the tables said when they were read: after changing any table entry
// (or the root's contents), flush; that is the TLB's contract too (rtl/mc/README.md).
module mc_pwc #(
    parameter PwcEntries = 4,   // entries, 1..16
    parameter PpnBits    = 20   // table page-number bits: VramAddrBits - 12
) (
    input  wire               clk_i,
    input  wire               rst_i,           // synchronous, active high
    // lookup (combinational)
    input  wire [26:0]        lookup_tag_i,    // VA[47:21]
    input  wire [PpnBits-1:0] lookup_root_i,   // the L3 table's page number
    output wire [1:0]         lookup_level_o,  // 0..2: a table known at that level; 3: none
    output wire [PpnBits-1:0] lookup_l2_o,
    output wire [PpnBits-1:0] lookup_l1_o,
    output wire [PpnBits-1:0] lookup_l0_o,
    output wire               lookup_pt64_o,
    // fill
    input  wire               fill_i,
    input  wire [26:0]        fill_tag_i,      // VA[47:21]
    input  wire [PpnBits-1:0] fill_root_i,
    input  wire [PpnBits-1:0] fill_l2_i,
    input  wire [PpnBits-1:0] fill_l1_i,
    input  wire               fill_has_l0_i,   // 0: the region is a 2 MiB page
    input  wire [PpnBits-1:0] fill_l0_i,
    input  wire               fill_pt64_i,
    // invalidate
    input  wire               flush_i
);
    localparam integer IdxBits = (PwcEntries > 1) ? $clog2(PwcEntries) : 1;
    localparam integer LAST = PwcEntries - 1;
    localparam integer N = PwcEntries;
    localparam integer P = PpnBits;

    if (PwcEntries < 1 || PwcEntries > 16) begin : g_bad_entries
        `CMN_PARAM_ERROR("mc_pwc: PwcEntries must be 1..16")
    end
    if (PpnBits < 1 || PpnBits > 36) begin : g_bad_ppn
        `CMN_PARAM_ERROR("mc_pwc: PpnBits must be 1..36")
    end

    logic [N-1:0]    valid_q, valid_d;
    logic [N*27-1:0] tag_q, tag_d;        // VA[47:21]
    logic [N-1:0]    has_l0_q, has_l0_d;
    logic [N-1:0]    pt64_q, pt64_d;
    logic [N*P-1:0]  l2_q, l2_d;
    logic [N*P-1:0]  l1_q, l1_d;
    logic [N*P-1:0]  l0_q, l0_d;
    logic [P-1:0]    root_q, root_d;
    logic [IdxBits-1:0] rr_q, rr_d;

    logic [N-1:0]    victim;              // one-hot: the entry a fill writes
    logic [N-1:0]    write;               // one-hot or zero: the entry filled
    logic [N-1:0]    wdata;               // one-hot or zero: the entry whose fields are written
    logic [N-1:0]    keep;                // entries that survive this cycle's fill
    integer          i;

    function automatic [N-1:0] lowest(input [N-1:0] v);
        lowest = v & (-v);  // two's complement keeps the lowest set bit alone
    endfunction

    function automatic [P-1:0] pick(input [N-1:0] sel, input [N*P-1:0] v);
        integer k;
        pick = {P{1'b0}};
        for (k = 0; k < N; k = k + 1)
            if (sel[k]) pick = pick | v[k*P +: P];
    endfunction

    function automatic [N-1:0] onehot(input [IdxBits-1:0] idx);
        integer k;
        onehot = {N{1'b0}};
        for (k = 0; k < N; k = k + 1)
            if (idx == k[IdxBits-1:0]) onehot[k] = 1'b1;
    endfunction

    // Lookup: the entries that know the L0, L1 or L2 table of the VA.
    wire [N-1:0] m0, m1, m2, same;
    genvar g;
    for (g = 0; g < N; g = g + 1) begin : g_match
        wire [26:0] t = tag_q[g*27 +: 27];
        assign m0[g] = valid_q[g] && has_l0_q[g] && t == lookup_tag_i;
        assign m1[g] = valid_q[g] && t[26:9] == lookup_tag_i[26:9];
        assign m2[g] = valid_q[g] && t[26:18] == lookup_tag_i[26:18];
        assign same[g] = valid_q[g] && t == fill_tag_i;
    end
    wire         root_ok = (root_q == lookup_root_i);
    wire [1:0]   level = !root_ok ? 2'd3 : (|m0) ? 2'd0 : (|m1) ? 2'd1 : (|m2) ? 2'd2 : 2'd3;

    // Fill: with another root, every entry goes and the first one takes the walk.
    wire         new_root = (fill_root_i != root_q);
    wire         free_found = new_root || !(&valid_q);

    always_comb begin
        valid_d = valid_q;
        tag_d = tag_q;
        has_l0_d = has_l0_q;
        pt64_d = pt64_q;
        l2_d = l2_q;
        l1_d = l1_q;
        l0_d = l0_q;
        root_d = root_q;
        rr_d = rr_q;

        keep = new_root ? {N{1'b0}} : valid_q;
        if (!new_root && (|same)) victim = lowest(same);
        else if (free_found) victim = lowest(~keep);
        else victim = onehot(rr_q);
        write = (fill_i && !flush_i) ? victim : {N{1'b0}};
        // The victim's fields are written whether or not a flush drops the fill (the flush
        // drops every entry then): flush_i (late, a change of root at the MMU's accept) drives
        // only the valid bits and the root, not the enables of the fields.
        wdata = fill_i ? victim : {N{1'b0}};

        if (flush_i) valid_d = {N{1'b0}};
        else if (fill_i) begin
            valid_d = keep;
            root_d = fill_root_i;
        end
        for (i = 0; i < N; i = i + 1) begin
            if (write[i]) valid_d[i] = 1'b1;
            if (wdata[i]) begin
                tag_d[i*27 +: 27] = fill_tag_i;
                has_l0_d[i] = fill_has_l0_i;
                pt64_d[i] = fill_has_l0_i && fill_pt64_i;
                l2_d[i*P +: P] = fill_l2_i;
                l1_d[i*P +: P] = fill_l1_i;
                l0_d[i*P +: P] = fill_l0_i;
            end
        end
        // (a fill a flush drops moves it too: flush_i stays off its enable)
        if (fill_i && !free_found && !(|same))
            rr_d = (rr_q == LAST[IdxBits-1:0]) ? {IdxBits{1'b0}} : rr_q + 1'b1;
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            valid_q <= {N{1'b0}};
            rr_q <= {IdxBits{1'b0}};
            root_q <= {P{1'b0}};
        end else begin
            valid_q <= valid_d;
            rr_q <= rr_d;
            root_q <= root_d;
        end
        // Contents: no reset needed, qualified by valid_q.
        tag_q <= tag_d;
        has_l0_q <= has_l0_d;
        pt64_q <= pt64_d;
        l2_q <= l2_d;
        l1_q <= l1_d;
        l0_q <= l0_d;
    end

    assign lookup_level_o = level;
    assign lookup_l2_o = pick(lowest(m2), l2_q);
    assign lookup_l1_o = pick(lowest(m1), l1_q);
    assign lookup_l0_o = pick(lowest(m0), l0_q);
    assign lookup_pt64_o = |(lowest(m0) & pt64_q);
endmodule
`default_nettype wire
