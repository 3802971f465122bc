// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// link_ram: simple dual-port memory (one write port, one read port, one clock) of the link
// engine's buffers; written so that Yosys and FPGA tools infer block RAM.
// Contract: a write (we_i) lands at the rising edge; a read (re_i) presents mem[raddr_i] on
// rdata_o after the next rising edge and holds it until the next read. A read of the address
// written in the same cycle returns the old word when OldOnCollision is 1; with 0 it returns an
// undefined word (the old one in simulation) and the memory carries no_rw_check, so that
// synthesis adds no collision logic around the block RAM (a register per write data and address
// bit, an address compare and a read mux): for a user that never uses a word read in the cycle
// it is written. No reset: the contents are undefined until written.
module link_ram #(
    parameter AddrBits       = 10,  // Words = 2^AddrBits
    parameter DataBits       = 32,
    parameter OldOnCollision = 1
) (
    input  wire                clk_i,
    input  wire                we_i,
    input  wire [AddrBits-1:0] waddr_i,
    input  wire [DataBits-1:0] wdata_i,
    input  wire                re_i,
    input  wire [AddrBits-1:0] raddr_i,
    output reg  [DataBits-1:0] rdata_o
);
    generate
        if (OldOnCollision != 0) begin : g_old
            reg [DataBits-1:0] mem [0:(1 << AddrBits) - 1];
            always @(posedge clk_i) begin
                if (we_i) mem[waddr_i] <= wdata_i;
            end
            always @(posedge clk_i) begin
                if (re_i) rdata_o <= mem[raddr_i];
            end
        end else begin : g_any
            (* no_rw_check *)
            reg [DataBits-1:0] mem [0:(1 << AddrBits) - 1];
            always @(posedge clk_i) begin
                if (we_i) mem[waddr_i] <= wdata_i;
            end
            always @(posedge clk_i) begin
                if (re_i) rdata_o <= mem[raddr_i];
            end
        end
    endgenerate
endmodule
`default_nettype wire
