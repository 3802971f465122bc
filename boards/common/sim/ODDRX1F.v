// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// ODDRX1F: simulation model of the Lattice ECP5 output DDR register (x1 gearing), for the board
// tops' simulation and lint (yosys and nextpnr use their own ECP5 cell). Vendor port names.
// A top uses it to forward a clock to a pin (D0 = 1, D1 = 0: the pin follows SCLK with the
// delay of an I/O register, the same as the data pins registered beside it).
// Contract:
//   - Q is D0 while SCLK is high and D1 while it is low, taken as they are: exact for constant
//     D0/D1 (clock forwarding, the only use in the tops; a Verilator build folds it into SCLK,
//     so the forwarded clock has no delta-cycle lag behind the core's). The chip registers D0
//     at the rising and D1 at the falling edge; data through it is not modelled.
//   - RST high holds Q low. GSR is accepted and ignored.
module ODDRX1F #(
    parameter GSR = "ENABLED"
) (
    input  wire SCLK,
    input  wire RST,
    input  wire D0,
    input  wire D1,
    output wire Q
);
    assign Q = !RST && (SCLK ? D0 : D1);
endmodule
`default_nettype wire
