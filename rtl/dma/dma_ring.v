// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// dma_ring: the ring's pointers and the check of one ring entry (rtl/dma/README.md).
// Contract: head_o is the oldest entry not completed, always below the ring size; work_o while
// it differs from the tail (both modulo the size). advance_i moves the head one entry on;
// drop_i sets it to the tail (a preemption or engine reset removes the queued entries);
// clear_i (core soft reset) sets it to 0. entry_i holds the entry's four qwords (qword 0 in
// bits 63:0); bad_o: a reserved bit is set, the buffer is misaligned or its length is not a
// multiple of 8. priv_o: the entry's PRIV bit (qword 3 bit 1), which only the kernel's own
// packets carry: it lets the entry's commands name VRAM-physical and host-physical addresses.
module dma_ring (
    input  wire         clk_i,
    input  wire         rst_i,       // synchronous, active high
    input  wire         clear_i,
    input  wire [63:0]  base_i,      // bits 11:0 zero
    input  wire [3:0]   log2_i,
    input  wire [15:0]  tail_i,
    input  wire         advance_i,
    input  wire         drop_i,
    output wire [15:0]  head_o,
    output wire [15:0]  tail_o,      // tail_i modulo the size
    output wire         work_o,
    output wire [63:0]  entry_addr_o,
    input  wire [255:0] entry_i,
    output wire         bad_o,
    output wire [63:0]  buf_addr_o,
    output wire [31:0]  buf_len_o,
    output wire [31:0]  fence_o,
    output wire         use_root_o,
    output wire [51:0]  root_o,
    output wire         irq_o,
    output wire         priv_o
);
    logic [15:0] head_q;
    wire  [15:0] mask = ~(16'hffff << log2_i);
    wire  [15:0] head = head_q & mask;

    always_ff @(posedge clk_i) begin
        if (rst_i || clear_i) head_q <= 16'd0;
        else if (drop_i) head_q <= tail_o;
        else if (advance_i) head_q <= (head + 16'd1) & mask;
    end

    assign head_o = head;
    assign tail_o = tail_i & mask;
    assign work_o = head != tail_o;
    assign entry_addr_o = base_i + {43'd0, head, 5'd0};

    wire [63:0] q0 = entry_i[63:0];
    wire [63:0] q1 = entry_i[127:64];
    wire [63:0] q2 = entry_i[191:128];
    wire [63:0] q3 = entry_i[255:192];
    assign bad_o = q0[2:0] != 3'd0 || q1[2:0] != 3'd0 || q2[11:1] != 11'd0 ||
                   q2[63:52] != 12'd0 || q3[63:2] != 62'd0;
    assign buf_addr_o = q0;
    assign buf_len_o = q1[31:0];
    assign fence_o = q1[63:32];
    assign use_root_o = q2[0];
    assign root_o = {q2[51:12], 12'h000};
    assign irq_o = q3[0];
    assign priv_o = q3[1];
endmodule
`default_nettype wire
