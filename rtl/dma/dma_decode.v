// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// dma_decode: decodes and checks one command of a DMA buffer (format in rtl/dma/README.md).
// Contract: combinational. cmd_i holds the qwords fetched at the command's offset (qword 0 in
// bits 63:0), avail_i of them (1..4: fewer only where the buffer ends). bad_o: the command
// breaks a rule (unknown opcode, reserved header bits, an unused or reserved space, IRQ on
// anything but FENCE, it does not fit in the buffer, a misaligned address or size, a nested
// or misaligned INDIRECT, or an INDIRECT length of 4 GiB or more) and must do nothing.
// unpriv_o: the command is well formed but needs a privileged entry (priv_i clear): it names
// VRAM-physical or host-physical space (source or destination), or it is an INDIRECT (whose
// buffer is a host-physical address). An unprivileged entry reaches memory only through its
// GPU virtual address space.
module dma_decode (
    input  wire [255:0] cmd_i,
    input  wire [2:0]   avail_i,
    input  wire         in_indirect_i,
    input  wire         priv_i,
    output wire [7:0]   op_o,
    output logic [2:0]  nq_o,          // the command's qwords
    output wire [1:0]   src_space_o,
    output wire [1:0]   dst_space_o,
    output wire         irq_o,
    output wire [31:0]  imm_o,
    output logic        bad_o,
    output wire         unpriv_o
);
    localparam [7:0] OP_NOP = 8'h00, OP_COPY = 8'h01, OP_FILL = 8'h02, OP_FENCE = 8'h03,
                     OP_INDIRECT = 8'h04, OP_TLB_INV = 8'h05, OP_TIMESTAMP = 8'h06,
                     OP_WAIT = 8'h07;

    wire [63:0] q0 = cmd_i[63:0];
    wire [2:0]  q1 = cmd_i[66:64];        // only the low bits of the operands are checked here
    wire [2:0]  q2 = cmd_i[130:128];
    wire [31:0] q2_hi = cmd_i[191:160];
    wire [2:0]  q3 = cmd_i[194:192];
    wire [1:0]  src = q0[9:8];
    wire [1:0]  dst = q0[11:10];
    wire unused_ok = ^{cmd_i[127:67], cmd_i[159:131], cmd_i[255:195]};

    assign op_o = q0[7:0];
    assign src_space_o = src;
    assign dst_space_o = dst;
    assign irq_o = q0[12];
    assign imm_o = q0[63:32];
    assign unpriv_o = !priv_i && (src != 2'd0 || dst != 2'd0 || q0[7:0] == OP_INDIRECT);

    logic known, src_used, dst_used, aligned;
    always_comb begin
        known = 1'b1;
        src_used = 1'b0;
        dst_used = 1'b0;
        aligned = 1'b1;
        nq_o = 3'd1;
        case (q0[7:0])
            OP_NOP, OP_TLB_INV: nq_o = 3'd1;
            OP_COPY: begin
                nq_o = 3'd4;
                src_used = 1'b1;
                dst_used = 1'b1;
                aligned = q1 == 3'd0 && q2 == 3'd0 && q3 == 3'd0;
            end
            OP_FILL: begin
                nq_o = 3'd3;
                dst_used = 1'b1;
                aligned = q1 == 3'd0 && q2 == 3'd0;
            end
            OP_FENCE: begin
                nq_o = 3'd3;
                dst_used = 1'b1;
                aligned = q1 == 3'd0;
            end
            OP_INDIRECT: begin
                nq_o = 3'd3;
                aligned = !in_indirect_i && q1 == 3'd0 && q2 == 3'd0 &&
                          q2_hi == 32'd0;
            end
            OP_TIMESTAMP: begin
                nq_o = 3'd2;
                dst_used = 1'b1;
                aligned = q1 == 3'd0;
            end
            OP_WAIT: begin
                nq_o = 3'd3;
                src_used = 1'b1;
                aligned = q1 == 3'd0;
            end
            default: known = 1'b0;
        endcase
        bad_o = !known || q0[31:13] != 19'd0 || (q0[12] && q0[7:0] != OP_FENCE) ||
                (!src_used && src != 2'd0) || (!dst_used && dst != 2'd0) ||
                src == 2'd3 || dst == 2'd3 || nq_o > avail_i || !aligned;
    end
endmodule
`default_nettype wire
