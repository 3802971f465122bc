// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// csr_reset: sequences a core soft reset requested through RESET_CTRL.CORE.
// Contract: on req_i the core is held in soft reset (soft_rst_o high) for at least one cycle and
// until every block reports idle_i (blocks drain their outstanding bus traffic first: AXI
// cannot abort a burst); then done_o pulses for one cycle. Requests during a reset are absorbed.
module csr_reset (
    input  wire clk_i,
    input  wire rst_i,      // synchronous, active high
    input  wire req_i,      // one-cycle request
    input  wire idle_i,     // all blocks idle with no bus traffic outstanding
    output wire soft_rst_o,
    output wire done_o      // one cycle, after soft_rst_o falls
);
    typedef enum logic [1:0] {
        StIdle  = 2'd0,
        StReset = 2'd1,
        StDone  = 2'd2
    } state_e;

    state_e state_q, state_d;

    always_comb begin
        state_d = state_q;
        case (state_q)
            StIdle:  if (req_i) state_d = StReset;
            StReset: if (idle_i) state_d = StDone;
            StDone:  state_d = StIdle;
            default: state_d = StIdle;
        endcase
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) state_q <= StIdle;
        else state_q <= state_d;
    end

    assign soft_rst_o = (state_q == StReset);
    assign done_o = (state_q == StDone);
endmodule
`default_nettype wire
