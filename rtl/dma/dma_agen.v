// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// dma_agen: one side (read or write) of a data mover operation: walks `beats` qwords from a
// command-space address, translates each 4 KiB page once (through dma_xlate) and cuts the
// range into INCR bursts of at most 16 beats that end on 128-byte boundaries, so that a burst
// never crosses 4 KiB.
// Contract:
//   - start_i loads an operation (while a previous one is finished: done_o, !busy_o).
//   - bst_*: the next burst, a valid/ready stream; its payload is stable while bst_valid_o. Its
//     length is also capped by limit_i (1..16), which may change only while nothing is taken.
//   - A translation is asked (xreq_*, valid/ready) when the walk enters a page; its answer
//     (xrsp_valid_i, a one-cycle pulse) either opens the page or faults: fault_o pulses with
//     the answer's fault type and faulted_o holds until the next start_i. A faulted side
//     issues nothing more.
//   - stop_i: no new translation and no new burst (one already asked is still answered).
//   - busy_o: a translation is outstanding. page_idx_o is the index (in beats from the start)
//     of the current page's first beat; page_vpr_o / prev_vpr_o are that page's and the
//     previous page's xrsp_vpr_i.
module dma_agen #(
    parameter BeatBits = 61   // width of beat counts: 2^BeatBits qwords at most
) (
    input  wire                clk_i,
    input  wire                rst_i,      // synchronous, active high
    input  wire                start_i,
    input  wire [1:0]          space_i,
    input  wire [63:0]         addr_i,     // command-space address, 8-byte aligned
    input  wire [BeatBits-1:0] beats_i,
    input  wire                write_i,    // translations check write permission
    input  wire                stop_i,
    input  wire [4:0]          limit_i,
    // translation
    output wire                xreq_valid_o,
    input  wire                xreq_ready_i,
    output wire [1:0]          xreq_space_o,
    output wire [63:0]         xreq_addr_o,
    output wire                xreq_write_o,
    input  wire                xrsp_valid_i,
    input  wire                xrsp_host_i,
    input  wire [63:0]         xrsp_pa_i,
    input  wire                xrsp_cacheable_i,
    input  wire                xrsp_vpr_i,
    input  wire                xrsp_fault_i,
    input  wire [3:0]          xrsp_type_i,
    input  wire [2:0]          xrsp_mmu_type_i,
    // bursts
    output wire                bst_valid_o,
    input  wire                bst_ready_i,
    output wire                bst_host_o,
    output wire [63:0]         bst_addr_o,    // bus address of the first beat
    output wire [4:0]          bst_len_o,     // beats, 1..16
    output wire [4:0]          bst_len0_o,    // bst_len_o before the cap by limit_i (a register)
    output wire [3:0]          bst_cache_o,
    output wire [63:0]         bst_vaddr_o,   // command-space address of the first beat
    output wire [BeatBits-1:0] bst_idx_o,     // beats before it in the operation
    output wire                bst_vpr_o,     // its page lies in the VPR
    // state
    output wire                done_o,        // every beat was issued
    output wire                busy_o,
    output wire [BeatBits-1:0] page_idx_o,
    output wire                page_vpr_o,
    output wire                prev_vpr_o,
    output wire                fault_o,       // one cycle
    output wire                faulted_o,
    output wire [3:0]          fault_type_o,
    output wire [2:0]          fault_mmu_type_o,
    output wire [63:0]         fault_addr_o
);
    if (BeatBits < 7) begin : g_bad_beats
        `CMN_PARAM_ERROR("dma_agen: BeatBits must be >= 7")
    end

    localparam [3:0] CACHE_ON = 4'b1111;
    localparam [3:0] CACHE_OFF = 4'b0011;

    logic [1:0]          space_q, space_d;
    logic                write_q, write_d;
    logic [63:0]         vaddr_q, vaddr_d;
    logic [BeatBits-1:0] left_q, left_d;
    logic [BeatBits-1:0] idx_q, idx_d;
    logic                xreq_q, xreq_d;      // request presented
    logic                xwait_q, xwait_d;    // request taken, answer due
    logic                pv_q, pv_d;          // the page at vaddr_q is translated
    logic                host_q, host_d;
    logic [51:0]         ppage_q, ppage_d;    // bus address bits 63:12
    logic                cache_q, cache_d;
    logic                vpr_q, vpr_d, prev_vpr_q, prev_vpr_d;
    logic [BeatBits-1:0] pidx_q, pidx_d;
    logic                faulted_q, faulted_d, fault_q, fault_d;
    logic [3:0]          ftype_q, ftype_d;
    logic [2:0]          fmmu_q, fmmu_d;

    // What is left is also kept as two flags (small_q: left_q < 16, have_q: left_q != 0), so
    // that the burst length and bst_valid_o depend on no wide compare: they sit on the path
    // from the buffer's level to the write side's decision (dma_mover), which must close at
    // 100 MHz. The flags' next values compare left_q's upper bits (a register) and its low six
    // bits with len, never the result of the wide subtraction.
    logic small_q, small_d, have_q, have_d;

    // The burst length before limit_i is a register too (len0_q: the beats to the next 128-byte
    // boundary, tb_q = 16 - vaddr_q[6:3], capped by what is left when that is below 16), its
    // next value computed from this cycle's length; only the cap by limit_i is left to the cycle
    // the burst is taken in.
    logic [4:0] tb_q, tb_d, len0_q, len0_d;
    wire  [4:0] len = (limit_i < len0_q) ? limit_i : len0_q;

    wire have = have_q;
    wire upper_zero = left_q[BeatBits-1:6] == {(BeatBits-6){1'b0}};
    // len is never 0 while have_q: len0_q is 1..16 then and limit_i is 1..16.
    assign bst_valid_o = pv_q && have && !faulted_q && !stop_i;
    wire take = bst_valid_o && bst_ready_i;
    wire [63:0] next_vaddr = vaddr_q + {56'd0, len, 3'b000};

    // What a take leaves, computed beside the take itself (from registers and limit_i), so that
    // bst_ready_i (the data mover's decision) selects among finished values at the end of the
    // cone: left_q - len < 16 and left_q - len != 0 from left_q's register bits, the beats to
    // the next 128-byte boundary, and the next burst's length before the cap.
    wire [4:0] left_t = left_q[4:0] - len;
    wire       small_t = upper_zero && {1'b0, left_q[5:0]} < {2'b00, len} + 7'd16;
    wire       have_t = !(upper_zero && left_q[5:0] == {1'b0, len});
    wire [4:0] tb_t = (tb_q == len) ? 5'd16 : tb_q - len;
    wire [4:0] len0_t = (small_t && left_t < tb_t) ? left_t : tb_t;
    // ... and what a start loads.
    wire [4:0] tb_s = 5'd16 - {1'b0, addr_i[6:3]};
    wire       small_s = beats_i[BeatBits-1:4] == {(BeatBits-4){1'b0}};
    wire [4:0] len0_s = (small_s && beats_i[4:0] < tb_s) ? beats_i[4:0] : tb_s;

    always_comb begin
        space_d = space_q;
        write_d = write_q;
        vaddr_d = vaddr_q;
        left_d = left_q;
        idx_d = idx_q;
        xreq_d = xreq_q;
        xwait_d = xwait_q;
        pv_d = pv_q;
        host_d = host_q;
        ppage_d = ppage_q;
        cache_d = cache_q;
        vpr_d = vpr_q;
        prev_vpr_d = prev_vpr_q;
        pidx_d = pidx_q;
        small_d = small_q;
        have_d = have_q;
        faulted_d = faulted_q;
        fault_d = 1'b0;
        tb_d = tb_q;
        ftype_d = ftype_q;
        fmmu_d = fmmu_q;

        if (start_i) begin
            space_d = space_i;
            write_d = write_i;
            vaddr_d = addr_i;
            left_d = beats_i;
            small_d = small_s;
            have_d = beats_i != {BeatBits{1'b0}};
            tb_d = tb_s;
            idx_d = {BeatBits{1'b0}};
            pv_d = 1'b0;
            vpr_d = 1'b0;
            prev_vpr_d = 1'b0;
            pidx_d = {BeatBits{1'b0}};
            faulted_d = 1'b0;
        end else begin
            if (take) begin
                vaddr_d = next_vaddr;
                left_d = left_q - {{(BeatBits-5){1'b0}}, len};
                small_d = small_t;
                have_d = have_t;
                tb_d = tb_t;
                idx_d = idx_q + {{(BeatBits-5){1'b0}}, len};
                if (next_vaddr[11:0] == 12'h000) pv_d = 1'b0;
            end
            // Ask for the page as soon as the walk enters it.
            if (!pv_q && have && !faulted_q && !xreq_q && !xwait_q && !stop_i) xreq_d = 1'b1;
            if (xreq_q && xreq_ready_i) begin
                xreq_d = 1'b0;
                xwait_d = 1'b1;
            end
            if (xwait_q && xrsp_valid_i) begin
                xwait_d = 1'b0;
                if (xrsp_fault_i) begin
                    faulted_d = 1'b1;
                    fault_d = 1'b1;
                    ftype_d = xrsp_type_i;
                    fmmu_d = xrsp_mmu_type_i;
                end else begin
                    pv_d = 1'b1;
                    host_d = xrsp_host_i;
                    ppage_d = xrsp_pa_i[63:12];
                    cache_d = xrsp_cacheable_i;
                    prev_vpr_d = vpr_q;
                    vpr_d = xrsp_vpr_i;
                    pidx_d = idx_q;
                end
            end
        end
        // len0_q is a function of small_q, left_q and tb_q, which change only here.
        len0_d = start_i ? len0_s : take ? len0_t : len0_q;
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            left_q <= {BeatBits{1'b0}};
            small_q <= 1'b1;
            have_q <= 1'b0;
            tb_q <= 5'd16;
            len0_q <= 5'd0;
            xreq_q <= 1'b0;
            xwait_q <= 1'b0;
            pv_q <= 1'b0;
            faulted_q <= 1'b0;
            fault_q <= 1'b0;
        end else begin
            left_q <= left_d;
            small_q <= small_d;
            have_q <= have_d;
            tb_q <= tb_d;
            len0_q <= len0_d;
            xreq_q <= xreq_d;
            xwait_q <= xwait_d;
            pv_q <= pv_d;
            faulted_q <= faulted_d;
            fault_q <= fault_d;
        end
        space_q <= space_d;
        write_q <= write_d;
        vaddr_q <= vaddr_d;
        idx_q <= idx_d;
        host_q <= host_d;
        ppage_q <= ppage_d;
        cache_q <= cache_d;
        vpr_q <= vpr_d;
        prev_vpr_q <= prev_vpr_d;
        pidx_q <= pidx_d;
        ftype_q <= ftype_d;
        fmmu_q <= fmmu_d;
    end

    assign xreq_valid_o = xreq_q;
    assign xreq_space_o = space_q;
    assign xreq_addr_o = vaddr_q;
    assign xreq_write_o = write_q;
    assign bst_host_o = host_q;
    assign bst_addr_o = {ppage_q, vaddr_q[11:0]};
    assign bst_len_o = len;
    assign bst_len0_o = len0_q;
    assign bst_cache_o = cache_q ? CACHE_ON : CACHE_OFF;
    assign bst_vaddr_o = vaddr_q;
    assign bst_idx_o = idx_q;
    assign bst_vpr_o = vpr_q;
    assign done_o = !have;
    assign busy_o = xreq_q || xwait_q;
    assign page_idx_o = pidx_q;
    assign page_vpr_o = vpr_q;
    assign prev_vpr_o = prev_vpr_q;
    assign fault_o = fault_q;
    assign faulted_o = faulted_q;
    assign fault_type_o = ftype_q;
    assign fault_mmu_type_o = fmmu_q;
    assign fault_addr_o = vaddr_q;

    wire unused_ok = ^{xrsp_pa_i[11:0]};  // the page offset comes from the walk's own address
endmodule
`default_nettype wire
