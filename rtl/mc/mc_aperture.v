// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_aperture: the BAR1 CPU aperture: a window of 2^ApAddrBits bytes into VRAM starting at
// window_base_i, with the video protected range (VPR) enforced on the way.
// Contract:
//   - s_ap_* is a full AXI4 slave; every burst is passed to m_vram_* at window_base_i + offset,
//     in order, with up to Outstanding bursts in flight per direction. Responses keep the
//     master's ID (the VRAM side sees ID 0 only, so its responses return in order).
//   - Write order (IHI0022 A3.3.1), both ways: a write address taken on s_ap goes into a
//     one-entry register that drives m_vram_aw*; s_ap_awready waits only for that register (free,
//     or emptied by m_vram_awready in the same cycle) and for room among the Outstanding bursts,
//     never for W. W beats pass once their burst's address is taken on s_ap (they need it: the
//     VPR decides their strobes), so on m_vram W goes with its AW or after it but never waits
//     for m_vram_awready: a VRAM slave may hold AWREADY until it has W, or the whole burst. On
//     s_ap, W that comes before its AW waits for it (a slave may), and the AW is still taken.
//   - A burst never crosses 4 KiB (AXI rule) and the VPR is page-granular, so a burst is either
//     wholly inside the VPR or wholly outside. Inside (while vpr_en_i): a write still completes
//     but with every strobe cleared (dropped), a read returns zeros; each logs a fault (a
//     fault_wr_o / fault_rd_o pulse with the burst's VRAM address). Protected content never
//     reaches the CPU.
//   - VRAM ends at vram_pages_i 4 KiB pages (a strap: static after reset). A burst at or past
//     that page is out of range: it is still passed on (AXI cannot cancel one) but a write with
//     every strobe cleared and a read's data replaced by zeros, and it answers DECERR (each
//     beat of a read). It logs no fault: the CPU sees the error in its own response.
//   - window_base_i and the VPR inputs are sampled when a burst's address is accepted; change
//     them only while the aperture is idle.
module mc_aperture #(
    parameter ApAddrBits   = 28,  // window size: 2^ApAddrBits bytes
    parameter VramAddrBits = 32,  // VRAM byte address bits
    parameter DataBytes    = 8,   // data bus width in bytes
    parameter IdBits       = 4,   // s_ap_* ID width
    parameter Outstanding  = 4    // bursts in flight per direction (power of two)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,  // synchronous, active high
    input  wire [VramAddrBits-1:0] window_base_i,
    input  wire                    vpr_en_i,
    input  wire [VramAddrBits-13:0] vpr_base_i,   // first protected 4 KiB page
    input  wire [VramAddrBits-13:0] vpr_limit_i,  // first page past the VPR
    input  wire [VramAddrBits-12:0] vram_pages_i, // VRAM size in 4 KiB pages
    output wire                    fault_wr_o,    // one cycle: a write burst hit the VPR
    output wire [VramAddrBits-1:0] fault_wr_addr_o,
    output wire                    fault_rd_o,    // one cycle: a read burst hit the VPR
    output wire [VramAddrBits-1:0] fault_rd_addr_o,
    output wire                    idle_o,        // no burst in flight
    // AXI4 slave (BAR1)
    input  wire [IdBits-1:0]       s_ap_awid_i,
    input  wire [ApAddrBits-1:0]   s_ap_awaddr_i,
    input  wire [7:0]              s_ap_awlen_i,
    input  wire [2:0]              s_ap_awsize_i,
    input  wire [1:0]              s_ap_awburst_i,
    input  wire                    s_ap_awlock_i,
    input  wire [3:0]              s_ap_awcache_i,
    input  wire [2:0]              s_ap_awprot_i,
    input  wire                    s_ap_awvalid_i,
    output wire                    s_ap_awready_o,
    input  wire [DataBytes*8-1:0]  s_ap_wdata_i,
    input  wire [DataBytes-1:0]    s_ap_wstrb_i,
    input  wire                    s_ap_wlast_i,
    input  wire                    s_ap_wvalid_i,
    output wire                    s_ap_wready_o,
    output wire [IdBits-1:0]       s_ap_bid_o,
    output wire [1:0]              s_ap_bresp_o,
    output wire                    s_ap_bvalid_o,
    input  wire                    s_ap_bready_i,
    input  wire [IdBits-1:0]       s_ap_arid_i,
    input  wire [ApAddrBits-1:0]   s_ap_araddr_i,
    input  wire [7:0]              s_ap_arlen_i,
    input  wire [2:0]              s_ap_arsize_i,
    input  wire [1:0]              s_ap_arburst_i,
    input  wire                    s_ap_arlock_i,
    input  wire [3:0]              s_ap_arcache_i,
    input  wire [2:0]              s_ap_arprot_i,
    input  wire                    s_ap_arvalid_i,
    output wire                    s_ap_arready_o,
    output wire [IdBits-1:0]       s_ap_rid_o,
    output wire [DataBytes*8-1:0]  s_ap_rdata_o,
    output wire [1:0]              s_ap_rresp_o,
    output wire                    s_ap_rlast_o,
    output wire                    s_ap_rvalid_o,
    input  wire                    s_ap_rready_i,
    // AXI4 master toward VRAM (ID 0)
    output wire [VramAddrBits-1:0] m_vram_awaddr_o,
    output wire [7:0]              m_vram_awlen_o,
    output wire [2:0]              m_vram_awsize_o,
    output wire [1:0]              m_vram_awburst_o,
    output wire                    m_vram_awlock_o,
    output wire [3:0]              m_vram_awcache_o,
    output wire [2:0]              m_vram_awprot_o,
    output wire                    m_vram_awvalid_o,
    input  wire                    m_vram_awready_i,
    output wire [DataBytes*8-1:0]  m_vram_wdata_o,
    output wire [DataBytes-1:0]    m_vram_wstrb_o,
    output wire                    m_vram_wlast_o,
    output wire                    m_vram_wvalid_o,
    input  wire                    m_vram_wready_i,
    input  wire [1:0]              m_vram_bresp_i,
    input  wire                    m_vram_bvalid_i,
    output wire                    m_vram_bready_o,
    output wire [VramAddrBits-1:0] m_vram_araddr_o,
    output wire [7:0]              m_vram_arlen_o,
    output wire [2:0]              m_vram_arsize_o,
    output wire [1:0]              m_vram_arburst_o,
    output wire                    m_vram_arlock_o,
    output wire [3:0]              m_vram_arcache_o,
    output wire [2:0]              m_vram_arprot_o,
    output wire                    m_vram_arvalid_o,
    input  wire                    m_vram_arready_i,
    input  wire [DataBytes*8-1:0]  m_vram_rdata_i,
    input  wire [1:0]              m_vram_rresp_i,
    input  wire                    m_vram_rlast_i,
    input  wire                    m_vram_rvalid_i,
    output wire                    m_vram_rready_o
);
    localparam PtrBits = $clog2(Outstanding);

    if (ApAddrBits > VramAddrBits || ApAddrBits < 12) begin : g_bad_ap_bits
        `CMN_PARAM_ERROR("mc_aperture: ApAddrBits must be 12..VramAddrBits")
    end
    if (Outstanding < 2 || (Outstanding & (Outstanding - 1)) != 0) begin : g_bad_outstanding
        `CMN_PARAM_ERROR("mc_aperture: Outstanding must be a power of two >= 2")
    end

    // Per-direction FIFOs of {id, protected} in burst order. A write burst's entry is also
    // read by the W path (w_rd) before the B path retires it (b_rd).
    logic [IdBits-1:0] aw_id_q [0:Outstanding-1];
    logic              aw_vpr_q [0:Outstanding-1];
    logic              aw_oob_q [0:Outstanding-1];
    logic [PtrBits:0]  aw_wr_q, w_rd_q, b_rd_q;
    logic [IdBits-1:0] ar_id_q [0:Outstanding-1];
    logic              ar_vpr_q [0:Outstanding-1];
    logic              ar_oob_q [0:Outstanding-1];
    logic [PtrBits:0]  ar_wr_q, r_rd_q;

    wire [VramAddrBits-1:0] aw_vram = window_base_i + {{(VramAddrBits-ApAddrBits){1'b0}}, s_ap_awaddr_i};
    wire [VramAddrBits-1:0] ar_vram = window_base_i + {{(VramAddrBits-ApAddrBits){1'b0}}, s_ap_araddr_i};
    wire [VramAddrBits-13:0] aw_page = aw_vram[VramAddrBits-1:12];
    wire [VramAddrBits-13:0] ar_page = ar_vram[VramAddrBits-1:12];
    wire aw_in_vpr = vpr_en_i && aw_page >= vpr_base_i && aw_page < vpr_limit_i;
    wire ar_in_vpr = vpr_en_i && ar_page >= vpr_base_i && ar_page < vpr_limit_i;
    wire aw_oob = {1'b0, aw_page} >= vram_pages_i;
    wire ar_oob = {1'b0, ar_page} >= vram_pages_i;

    wire aw_full = (aw_wr_q - b_rd_q) == Outstanding[PtrBits:0];
    wire ar_full = (ar_wr_q - r_rd_q) == Outstanding[PtrBits:0];
    wire w_have  = aw_wr_q != w_rd_q;   // a burst whose data is still to pass
    wire b_have  = w_rd_q != b_rd_q;    // a burst whose data passed, response pending
    wire r_have  = ar_wr_q != r_rd_q;

    // The VRAM-side write address register.
    logic                    awq_valid_q;
    logic [VramAddrBits-1:0] awq_addr_q;
    logic [7:0]              awq_len_q;
    logic [2:0]              awq_size_q, awq_prot_q;
    logic [1:0]              awq_burst_q;
    logic                    awq_lock_q;
    logic [3:0]              awq_cache_q;
    wire awq_free = !awq_valid_q || m_vram_awready_i;

    wire aw_go = s_ap_awvalid_i && awq_free && !aw_full;
    wire ar_go = s_ap_arvalid_i && m_vram_arready_i && !ar_full;
    wire w_go  = s_ap_wvalid_i && m_vram_wready_i && w_have;
    wire b_go  = m_vram_bvalid_i && s_ap_bready_i && b_have;
    wire r_go  = m_vram_rvalid_i && s_ap_rready_i && r_have;

    wire w_vpr = aw_vpr_q[w_rd_q[PtrBits-1:0]];
    wire r_vpr = ar_vpr_q[r_rd_q[PtrBits-1:0]];
    wire w_oob = aw_oob_q[w_rd_q[PtrBits-1:0]];
    wire b_oob = aw_oob_q[b_rd_q[PtrBits-1:0]];
    wire r_oob = ar_oob_q[r_rd_q[PtrBits-1:0]];
    localparam [1:0] DECERR = 2'b11;

    assign m_vram_awaddr_o  = awq_addr_q;
    assign m_vram_awlen_o   = awq_len_q;
    assign m_vram_awsize_o  = awq_size_q;
    assign m_vram_awburst_o = awq_burst_q;
    assign m_vram_awlock_o  = awq_lock_q;
    assign m_vram_awcache_o = awq_cache_q;
    assign m_vram_awprot_o  = awq_prot_q;
    assign m_vram_awvalid_o = awq_valid_q;
    assign s_ap_awready_o   = awq_free && !aw_full;

    assign m_vram_wdata_o  = s_ap_wdata_i;
    assign m_vram_wstrb_o  = (w_vpr || w_oob) ? {DataBytes{1'b0}} : s_ap_wstrb_i;
    assign m_vram_wlast_o  = s_ap_wlast_i;
    assign m_vram_wvalid_o = s_ap_wvalid_i && w_have;
    assign s_ap_wready_o   = m_vram_wready_i && w_have;

    assign s_ap_bid_o      = aw_id_q[b_rd_q[PtrBits-1:0]];
    assign s_ap_bresp_o    = b_oob ? DECERR : m_vram_bresp_i;
    assign s_ap_bvalid_o   = m_vram_bvalid_i && b_have;
    assign m_vram_bready_o = s_ap_bready_i && b_have;

    assign m_vram_araddr_o  = ar_vram;
    assign m_vram_arlen_o   = s_ap_arlen_i;
    assign m_vram_arsize_o  = s_ap_arsize_i;
    assign m_vram_arburst_o = s_ap_arburst_i;
    assign m_vram_arlock_o  = s_ap_arlock_i;
    assign m_vram_arcache_o = s_ap_arcache_i;
    assign m_vram_arprot_o  = s_ap_arprot_i;
    assign m_vram_arvalid_o = s_ap_arvalid_i && !ar_full;
    assign s_ap_arready_o   = m_vram_arready_i && !ar_full;

    assign s_ap_rid_o      = ar_id_q[r_rd_q[PtrBits-1:0]];
    assign s_ap_rdata_o    = (r_vpr || r_oob) ? {DataBytes*8{1'b0}} : m_vram_rdata_i;
    assign s_ap_rresp_o    = r_oob ? DECERR : m_vram_rresp_i;
    assign s_ap_rlast_o    = m_vram_rlast_i;
    assign s_ap_rvalid_o   = m_vram_rvalid_i && r_have;
    assign m_vram_rready_o = s_ap_rready_i && r_have;

    // Faults: one per protected burst, at its address handshake, registered.
    logic                    fault_wr_q, fault_rd_q;
    logic [VramAddrBits-1:0] fault_wr_addr_q, fault_rd_addr_q;
    assign fault_wr_o = fault_wr_q;
    assign fault_wr_addr_o = fault_wr_addr_q;
    assign fault_rd_o = fault_rd_q;
    assign fault_rd_addr_o = fault_rd_addr_q;
    assign idle_o = (aw_wr_q == b_rd_q) && (ar_wr_q == r_rd_q);

    always_ff @(posedge clk_i) begin
        fault_wr_addr_q <= aw_vram;
        fault_rd_addr_q <= ar_vram;
        if (aw_go) begin
            awq_addr_q <= aw_vram;
            awq_len_q <= s_ap_awlen_i;
            awq_size_q <= s_ap_awsize_i;
            awq_burst_q <= s_ap_awburst_i;
            awq_lock_q <= s_ap_awlock_i;
            awq_cache_q <= s_ap_awcache_i;
            awq_prot_q <= s_ap_awprot_i;
        end
        if (rst_i) begin
            awq_valid_q <= 1'b0;
            aw_wr_q <= {(PtrBits+1){1'b0}};
            w_rd_q <= {(PtrBits+1){1'b0}};
            b_rd_q <= {(PtrBits+1){1'b0}};
            ar_wr_q <= {(PtrBits+1){1'b0}};
            r_rd_q <= {(PtrBits+1){1'b0}};
            fault_wr_q <= 1'b0;
            fault_rd_q <= 1'b0;
        end else begin
            if (aw_go) awq_valid_q <= 1'b1;
            else if (m_vram_awready_i) awq_valid_q <= 1'b0;
            if (aw_go) begin
                aw_id_q[aw_wr_q[PtrBits-1:0]] <= s_ap_awid_i;
                aw_vpr_q[aw_wr_q[PtrBits-1:0]] <= aw_in_vpr;
                aw_oob_q[aw_wr_q[PtrBits-1:0]] <= aw_oob;
                aw_wr_q <= aw_wr_q + 1'b1;
            end
            if (w_go && s_ap_wlast_i) w_rd_q <= w_rd_q + 1'b1;
            if (b_go) b_rd_q <= b_rd_q + 1'b1;
            if (ar_go) begin
                ar_id_q[ar_wr_q[PtrBits-1:0]] <= s_ap_arid_i;
                ar_vpr_q[ar_wr_q[PtrBits-1:0]] <= ar_in_vpr;
                ar_oob_q[ar_wr_q[PtrBits-1:0]] <= ar_oob;
                ar_wr_q <= ar_wr_q + 1'b1;
            end
            if (r_go && m_vram_rlast_i) r_rd_q <= r_rd_q + 1'b1;
            fault_wr_q <= aw_go && aw_in_vpr;
            fault_rd_q <= ar_go && ar_in_vpr;
        end
    end
endmodule
`default_nettype wire
