// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// IBUFDS_GTE4 (lint stub): the UltraScale+ GT reference clock buffer (UNISIM primitive, AMD
// UG974) with the ports and the parameter u200_top uses, so that the top lints and elaborates
// without Vivado's libraries. O follows I; ODIV2 is a constant (no clock divides here). Never
// built into a bitstream: Vivado uses its own primitive.
module IBUFDS_GTE4 #(
    parameter [1:0] REFCLK_HROW_CK_SEL = 2'b00
) (
    input  wire I,
    input  wire IB,
    input  wire CEB,
    output wire O,
    output wire ODIV2
);
    assign O = I;
    assign ODIV2 = 1'b0;
    wire unused_ok = ^{IB, CEB, REFCLK_HROW_CK_SEL};
endmodule
`default_nettype wire
