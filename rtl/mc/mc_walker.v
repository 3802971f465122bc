// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_walker: the GPU MMU's page-table walker. Walks the 4-level tables (rtl/mc/README.md, "Page
// tables") for one VA at a time through an AXI4 read port into VRAM, one 8-byte read per level,
// starting at the deepest table its page-walk cache (mc_pwc) knows for the VA.
// Contract:
//   - walk_valid_i/walk_ready_o: a walk of walk_vpn_i from the L3 table at walk_root_i; both
//     are taken at the handshake, and so is the page-walk cache's answer for them. walk_ready_o
//     is high exactly while the walker is idle. The first read's ARVALID rises the cycle after
//     the handshake (unit tests date walks by it).
//   - pwc_fill_i: in a cycle a result without a fault is held (res_valid_o, once per result),
//     the walk's table pointers go into the page-walk cache; the caller leaves it low when an
//     invalidate met the walk. pwc_flush_i empties the cache (and drops a fill of its cycle).
//     With PwcEntries 0 there is no cache: every walk reads from the root.
//   - res_valid_o/res_ready_i: the walk's one result, held until taken: a page (size, PA,
//     leaf attributes) or a fault (type 1 unmapped: an invalid entry, or LEAF in an L3/L2 entry;
//     type 3 decode error: a read answered SLVERR/DECERR, or a table (the root included) or a
//     VRAM page at or above vram_pages_i pages, which is not read). On a fault the page fields
//     hold whatever the last entry read left there (mc_mmu reads them only without one).
//   - vram_pages_i: 4 KiB pages of VRAM present (a strap, static while walks run), at most
//     2^(VramAddrBits-12).
//   - m_pt_*: one read outstanding at most (ARLEN 0, ARSIZE 3, INCR, ID 0); ARVALID and the
//     address hold until ARREADY; RREADY is high only while the read is outstanding. With
//     DataBytes > 8 the entry is taken from the byte lane of its address. Nothing but rst_i
//     cuts a read short; rst_i in the middle of one must reset the m_pt interconnect too (AXI's
//     common reset), otherwise apply it only while idle_o is high.
//   - idle_o: no walk in progress, no read outstanding, no result waiting.
module mc_walker #(
    parameter VramAddrBits = 32,  // VRAM byte address bits, 13..48
    parameter DataBytes    = 8,   // m_pt_* data bus width in bytes: 8, 16, 32 or 64
    parameter PtIdBits     = 2,   // m_pt_* ID width
    parameter PwcEntries   = 4    // page-walk cache entries, 0..16 (0: none)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,            // synchronous, active high
    // walk request
    input  wire                    walk_valid_i,
    output wire                    walk_ready_o,
    input  wire [35:0]             walk_vpn_i,       // VA[47:12]
    input  wire [VramAddrBits-1:0] walk_root_i,      // L3 table; bits [11:0] ignored
    input  wire [VramAddrBits-12:0] vram_pages_i,    // VRAM size in 4 KiB pages
    // walk result
    output wire                    res_valid_o,
    input  wire                    res_ready_i,
    output wire [1:0]              res_size_o,       // 0: 4 KiB, 1: 64 KiB, 2: 2 MiB
    output wire [39:0]             res_ppn_o,        // PA[51:12]; bits inside a large page zero
    output wire                    res_writable_o,
    output wire                    res_system_o,
    output wire                    res_cacheable_o,
    output wire                    res_fault_o,
    output wire [2:0]              res_fault_type_o, // 1 unmapped, 3 decode error
    output wire                    idle_o,
    // page-walk cache
    input  wire                    pwc_fill_i,
    input  wire                    pwc_flush_i,
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
    localparam [1:0] SIZE_4K = 2'd0;
    localparam [1:0] SIZE_64K = 2'd1;
    localparam [1:0] SIZE_2M = 2'd2;
    localparam [2:0] FAULT_NONE = 3'd0;
    localparam [2:0] FAULT_UNMAPPED = 3'd1;
    localparam [2:0] FAULT_DECODE = 3'd3;
    // Entry bits (README "Page tables").
    localparam integer PTE_VALID = 0;
    localparam integer PTE_WRITABLE = 1;
    localparam integer PTE_SYSTEM = 2;
    localparam integer PTE_CACHEABLE = 3;
    localparam integer PTE_LEAF = 4;
    localparam integer PTE_PT64 = 5;
    // Page-number bits of a VRAM address (PA[VramAddrBits-1:12]).
    localparam integer PpnBits = VramAddrBits - 12;
    // Walk reads are the MMU's own: privileged data; normal non-cacheable non-bufferable, so a
    // walk after an invalidate sees the newest tables.
    localparam [3:0] PT_ARCACHE = 4'b0010;
    localparam [2:0] PT_ARPROT = 3'b001;

    if (VramAddrBits < 13 || VramAddrBits > 48) begin : g_bad_vram
        `CMN_PARAM_ERROR("mc_walker: VramAddrBits must be 13..48")
    end
    if (DataBytes != 8 && DataBytes != 16 && DataBytes != 32 && DataBytes != 64) begin : g_bad_width
        `CMN_PARAM_ERROR("mc_walker: DataBytes must be 8, 16, 32 or 64")
    end
    if (PwcEntries < 0 || PwcEntries > 16) begin : g_bad_pwc
        `CMN_PARAM_ERROR("mc_walker: PwcEntries must be 0..16")
    end

    typedef enum logic [1:0] {
        StIdle = 2'd0,  // waiting for a walk
        StAr   = 2'd1,  // read address out
        StR    = 2'd2,  // waiting for the entry
        StDone = 2'd3   // result held
    } state_e;

    state_e                   state_q, state_d;
    logic [35:0]              vpn_q, vpn_d;
    logic [1:0]               level_q, level_d;     // 3..0
    logic                     pt64_q, pt64_d;       // level 0 is a 64 KiB-page table
    logic [1:0]               size_q, size_d;
    logic [39:0]              ppn_q, ppn_d;
    logic                     writable_q, writable_d;
    logic                     system_q, system_d;
    logic                     cacheable_q, cacheable_d;
    logic [2:0]               fault_q, fault_d;
    // The walk's path, for the page-walk cache: the root and the tables below it.
    logic [PpnBits-1:0]       root_q, root_d;
    logic [PpnBits-1:0]       l2_q, l2_d;
    logic [PpnBits-1:0]       l1_q, l1_d;
    logic [PpnBits-1:0]       l0_q, l0_d;

    // The page-walk cache's answer for the walk being offered.
    wire  [1:0]               pwc_level;
    wire  [PpnBits-1:0]       pwc_l2, pwc_l1, pwc_l0;
    wire                      pwc_pt64;

    wire  [63:0]              entry;
    wire  [39:0]              next_ppn;             // entry[51:12]
    logic [39:0]              page_ppn;             // leaf's page, masked to its size

    // Root bits inside the 4 KiB table, RID (one read outstanding), RLAST (single beats), the
    // EXOKAY bit of RRESP (an ordinary read never gets EXOKAY; only bit 1, an error, counts).
    wire unused_ok = ^{walk_root_i[11:0], m_pt_rid_i, m_pt_rlast_i, m_pt_rresp_i[0]};

    // Does a page number lie beyond VRAM (at or above the pages present)? Its bits above the
    // strap's width are an OR beside a compare as wide as the strap (not one 40-bit compare).
    function automatic logic beyond(input [39:0] p, input [PpnBits:0] limit);
        beyond = p[39:PpnBits+1] != {(39-PpnBits){1'b0}} || p[PpnBits:0] >= limit;
    endfunction
    wire root_beyond = beyond({{(40-PpnBits){1'b0}}, walk_root_i[VramAddrBits-1:12]},
                              vram_pages_i);

    // The entry's index in the current table.
    wire [8:0] index = (level_q == 2'd3) ? vpn_q[35:27] :
                       (level_q == 2'd2) ? vpn_q[26:18] :
                       (level_q == 2'd1) ? vpn_q[17:9] :
                       pt64_q ? {4'd0, vpn_q[8:4]} : vpn_q[8:0];

    // The table being read, PA[VramAddrBits-1:12]: the walk's path at its level. No register of
    // its own: loading one at the handshake put the page-walk cache's lookup and a level mux
    // in front of it.
    wire [PpnBits-1:0] table_cur = (level_q == 2'd0) ? l0_q :
                                   (level_q == 2'd1) ? l1_q :
                                   (level_q == 2'd2) ? l2_q : root_q;

    assign m_pt_araddr_o = {table_cur, index, 3'b000};

    // The entry's byte lane on a bus wider than 8 bytes.
    if (DataBytes == 8) begin : g_lane8
        assign entry = m_pt_rdata_i;
    end else begin : g_lane
        localparam integer LaneBits = $clog2(DataBytes / 8);
        wire [LaneBits-1:0] lane = m_pt_araddr_o[LaneBits+2:3];
        assign entry = m_pt_rdata_i[lane*64 +: 64];
    end

    assign next_ppn = entry[51:12];

    always_comb begin
        state_d = state_q;
        vpn_d = vpn_q;
        level_d = level_q;
        pt64_d = pt64_q;
        size_d = size_q;
        ppn_d = ppn_q;
        writable_d = writable_q;
        system_d = system_q;
        cacheable_d = cacheable_q;
        fault_d = fault_q;
        root_d = root_q;
        l2_d = l2_q;
        l1_d = l1_q;
        l0_d = l0_q;

        case (level_q)
            2'd1:    page_ppn = {next_ppn[39:9], 9'd0};
            2'd0:    page_ppn = pt64_q ? {next_ppn[39:4], 4'd0} : next_ppn;
            default: page_ppn = next_ppn;
        endcase

        case (state_q)
            StIdle: if (walk_valid_i) begin
                state_d = StAr;
                vpn_d = walk_vpn_i;
                root_d = walk_root_i[VramAddrBits-1:12];
                l2_d = pwc_l2;
                l1_d = pwc_l1;
                l0_d = pwc_l0;
                level_d = pwc_level;
                pt64_d = (pwc_level == 2'd0) && pwc_pt64;
                // A walk from a root beyond VRAM ends before any read, as a decode error.
                if (pwc_level == 2'd3 && root_beyond) begin
                    state_d = StDone;
                    fault_d = FAULT_DECODE;
                end
            end
            StAr: if (m_pt_arready_i) state_d = StR;
            StR: if (m_pt_rvalid_i) begin
                // Decide from this entry: a result (StDone) or the next table (StAr). The
                // page fields and the walk's path load from every entry (their enable is
                // RVALID alone, for timing); the fault, the level and the state say which is
                // meant.
                state_d = StDone;
                size_d = (level_q == 2'd1) ? SIZE_2M : (pt64_q ? SIZE_64K : SIZE_4K);
                ppn_d = page_ppn;
                writable_d = entry[PTE_WRITABLE];
                system_d = entry[PTE_SYSTEM];
                cacheable_d = entry[PTE_CACHEABLE];
                // The table this entry points to, at the level below: read next when the walk
                // goes on; a walk that ends here (a leaf or a fault) fills nothing from it.
                case (level_q)
                    2'd3:    l2_d = next_ppn[PpnBits-1:0];
                    2'd2:    l1_d = next_ppn[PpnBits-1:0];
                    2'd1:    l0_d = next_ppn[PpnBits-1:0];
                    default: ;
                endcase
                fault_d = FAULT_NONE;
                if (m_pt_rresp_i[1]) begin
                    fault_d = FAULT_DECODE;
                end else if (!entry[PTE_VALID]) begin
                    fault_d = FAULT_UNMAPPED;
                end else if (level_q != 2'd0 && !(level_q == 2'd1 && entry[PTE_LEAF])) begin
                    // A table pointer. LEAF above L1 is not a page size this format has.
                    if (level_q != 2'd1 && entry[PTE_LEAF]) begin
                        fault_d = FAULT_UNMAPPED;
                    end else if (beyond(next_ppn, vram_pages_i)) begin
                        fault_d = FAULT_DECODE;
                    end else begin
                        state_d = StAr;
                        level_d = level_q - 2'd1;
                        pt64_d = (level_q == 2'd1) && entry[PTE_PT64];
                    end
                end else begin
                    // A leaf: L1 with LEAF (2 MiB) or any level-0 entry (4 KiB or 64 KiB).
                    if (!entry[PTE_SYSTEM] && beyond(page_ppn, vram_pages_i)) begin
                        fault_d = FAULT_DECODE;
                    end
                end
            end
            StDone: if (res_ready_i) state_d = StIdle;
            default: state_d = StIdle;
        endcase
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) state_q <= StIdle;
        else state_q <= state_d;
        // Data path: no reset needed, qualified by the state.
        vpn_q <= vpn_d;
        level_q <= level_d;
        pt64_q <= pt64_d;
        size_q <= size_d;
        ppn_q <= ppn_d;
        writable_q <= writable_d;
        system_q <= system_d;
        cacheable_q <= cacheable_d;
        fault_q <= fault_d;
        root_q <= root_d;
        l2_q <= l2_d;
        l1_q <= l1_d;
        l0_q <= l0_d;
    end

    // The page-walk cache. A result in StDone ended at level 1 (a 2 MiB page) or 0.
    if (PwcEntries > 0) begin : g_pwc
        mc_pwc #(
            .PwcEntries(PwcEntries),
            .PpnBits(PpnBits)
        ) u_pwc (
            .clk_i(clk_i),
            .rst_i(rst_i),
            .lookup_tag_i(walk_vpn_i[35:9]),
            .lookup_root_i(walk_root_i[VramAddrBits-1:12]),
            .lookup_level_o(pwc_level),
            .lookup_l2_o(pwc_l2),
            .lookup_l1_o(pwc_l1),
            .lookup_l0_o(pwc_l0),
            .lookup_pt64_o(pwc_pt64),
            .fill_i(pwc_fill_i),
            .fill_tag_i(vpn_q[35:9]),
            .fill_root_i(root_q),
            .fill_l2_i(l2_q),
            .fill_l1_i(l1_q),
            .fill_has_l0_i(level_q == 2'd0),
            .fill_l0_i(l0_q),
            .fill_pt64_i(pt64_q),
            .flush_i(pwc_flush_i)
        );
    end else begin : g_no_pwc
        assign pwc_level = 2'd3;
        assign pwc_l2 = {PpnBits{1'b0}};
        assign pwc_l1 = {PpnBits{1'b0}};
        assign pwc_l0 = {PpnBits{1'b0}};
        assign pwc_pt64 = 1'b0;
        wire unused_pwc = ^{pwc_fill_i, pwc_flush_i, root_q, l2_q, l1_q, l0_q};
    end

    assign walk_ready_o = (state_q == StIdle);
    assign res_valid_o = (state_q == StDone);
    assign res_size_o = size_q;
    assign res_ppn_o = ppn_q;
    assign res_writable_o = writable_q;
    assign res_system_o = system_q;
    assign res_cacheable_o = cacheable_q;
    assign res_fault_o = (fault_q != FAULT_NONE);
    assign res_fault_type_o = fault_q;
    assign idle_o = (state_q == StIdle);

    assign m_pt_arid_o = {PtIdBits{1'b0}};
    assign m_pt_arlen_o = 8'd0;
    assign m_pt_arsize_o = 3'd3;
    assign m_pt_arburst_o = 2'b01;
    assign m_pt_arcache_o = PT_ARCACHE;
    assign m_pt_arprot_o = PT_ARPROT;
    assign m_pt_arvalid_o = (state_q == StAr);
    assign m_pt_rready_o = (state_q == StR);

`ifdef GR_ASSERT
    // AXI: a read address, once valid, holds until taken.
    logic        ar_wait_q = 1'b0;
    logic [VramAddrBits-1:0] ar_addr_q;
    always @(posedge clk_i) begin
        if (!rst_i && ar_wait_q && !(m_pt_arvalid_o && m_pt_araddr_o == ar_addr_q))
            $error("mc_walker %m: ARVALID or ARADDR changed before ARREADY");
        if (!rst_i && m_pt_rvalid_i && m_pt_rready_o && !m_pt_rlast_i)
            $error("mc_walker %m: RLAST low on the only beat of a single-beat read");
        if (!rst_i && pwc_fill_i && !(res_valid_o && !res_fault_o))
            $error("mc_walker %m: page-walk cache fill without a good result");
        ar_wait_q <= !rst_i && m_pt_arvalid_o && !m_pt_arready_i;
        ar_addr_q <= m_pt_araddr_o;
    end
`endif
endmodule
`default_nettype wire
