// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// csr_irq: the interrupt block around the STATE / ENABLE / TEST registers of csr_regs.
// Contract: a source pulse or a TEST write sets the STATE bit (csr_regs keeps it until the
// host writes 1); irq_o is a registered level, high while any STATE bit is also enabled, so
// it changes one cycle after the registers do and never glitches on a board pin.
module csr_irq #(
    parameter Sources = 1  // interrupt sources, one bit each in STATE/ENABLE/TEST
) (
    input  wire               clk_i,
    input  wire               rst_i,    // synchronous, active high
    input  wire [Sources-1:0] src_i,    // one-cycle event pulses from the blocks
    input  wire [Sources-1:0] test_i,   // IRQ_TEST strobes
    input  wire [Sources-1:0] state_i,  // IRQ_STATE
    input  wire [Sources-1:0] enable_i, // IRQ_ENABLE
    output wire [Sources-1:0] set_o,    // to IRQ_STATE's hardware set
    output wire               irq_o
);
    logic irq_q;

    assign set_o = src_i | test_i;
    assign irq_o = irq_q;

    always_ff @(posedge clk_i) begin
        if (rst_i) irq_q <= 1'b0;
        else irq_q <= |(state_i & enable_i);
    end

    if (Sources < 1 || Sources > 32) begin : g_bad_sources
        `CMN_PARAM_ERROR("csr_irq: Sources must be 1..32")
    end
endmodule
`default_nettype wire
