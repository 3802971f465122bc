// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// BB: simulation model of the Lattice ECP5 bidirectional I/O buffer, for the board tops'
// simulation and lint (yosys and nextpnr use their own ECP5 cell). Vendor port names.
// A top uses it for a bidirectional pin whose output and tristate control come from registers
// in the pin's I/O cell (link_phy_ioreg): T drives the buffer's tristate control directly.
// Contract:
//   - B is driven with I while T is low and released (high impedance) while T is high.
//   - O is the pin as it is (the value another driver puts on it while T is high).
module BB (
    input  wire I,
    input  wire T,
    output wire O,
    inout  wire B
);
    assign B = T ? 1'bz : I;
    assign O = B;
endmodule
`default_nettype wire
