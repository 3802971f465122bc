// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// link_phy_ioreg: one flip-flop meant for an FPGA pin's I/O cell: a PHY's register that drives
// a pin (its output or its tristate control, Dir 1) or samples one (Dir 0), so the pin's
// timing is the I/O register's and not a route's through the fabric.
// Contract:
//   - q_o is d_i one clk_i edge later; rst_i (synchronous, active high) loads Init, which is
//     also the power-up value. No enable: the I/O cell's registers share their clock, enable
//     and reset, so every register of one pin is this module on the same clk_i and rst_i.
//   - The pin side of q_o (Dir 1) or d_i (Dir 0) must meet the pin with nothing between: for
//     a bidirectional pin, a vendor buffer with a tristate control input (the ECP5's BB, in
//     the board top); q_o of a tristate register is that input (1: released).
//   - syn_useioff asks yosys/nextpnr (ECP5) to put the flip-flop in the pin's IOLOGIC, and
//     nextpnr stops with an error when it cannot; ioff_dir says which of the pin's registers
//     it is. keep_hierarchy keeps each instance a module of its own through synthesis: yosys
//     merges flip-flops with the same input and reset into one, and a tristate control
//     replicated per pin (the I/O cell has one per pin) must stay one register per pin.
//     Other tools ignore both attributes.
(* keep_hierarchy *)
module link_phy_ioreg #(
    parameter       Dir  = 1,       // 1: drives a pin (output or tristate), 0: samples a pin
    parameter [0:0] Init = 1'b1     // reset and power-up value
) (
    input  wire clk_i,
    input  wire rst_i,              // synchronous, active high
    input  wire d_i,
    output wire q_o
);
    if (Dir != 0 && Dir != 1) begin : g_bad_dir
        `CMN_PARAM_ERROR("link_phy_ioreg: Dir must be 0 or 1")
    end

    if (Dir == 1) begin : g_out
        (* syn_useioff, ioff_dir = "output" *) logic q_q = Init;
        always_ff @(posedge clk_i) q_q <= rst_i ? Init : d_i;
        assign q_o = q_q;
    end else begin : g_in
        (* syn_useioff, ioff_dir = "input" *) logic q_q = Init;
        always_ff @(posedge clk_i) q_q <= rst_i ? Init : d_i;
        assign q_o = q_q;
    end
endmodule
`default_nettype wire
