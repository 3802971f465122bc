// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// mc_fault: the memory controller's fault unit. Keeps the first fault (address, type, source,
// direction) until the host acknowledges it, counts every fault, and raises the MC_FAULT
// interrupt source for each one.
// Contract: src_valid_i[i] is a one-cycle event from source i with its type, address and
// direction. When several sources fault in one cycle the lowest index is the one kept. A fault
// is kept only while no earlier one is held (held_i low: MC_FAULT_STATUS.VALID clear); the
// count and the interrupt still see the others. Faults never stall their sources.
module mc_fault #(
    parameter Sources   = 2,   // fault sources (see MC_FAULT_STATUS.SOURCE)
    parameter AddrBits  = 48
) (
    input  wire                      clk_i,
    input  wire                      rst_i,        // synchronous, active high (hard or soft)
    input  wire [Sources-1:0]        src_valid_i,
    input  wire [Sources*3-1:0]      src_type_i,   // 3 bits per source
    input  wire [Sources*AddrBits-1:0] src_addr_i,
    input  wire [Sources-1:0]        src_write_i,
    input  wire                      held_i,       // MC_FAULT_STATUS.VALID
    output wire                      set_valid_o,  // to MC_FAULT_STATUS.VALID's hardware set
    output wire [2:0]                type_o,
    output wire [2:0]                source_o,
    output wire                      write_o,
    output wire [AddrBits-1:0]       addr_o,
    output wire [31:0]               count_o,      // saturates at 2^32-1
    output wire                      irq_o         // one cycle per fault cycle
);
    if (Sources < 1 || Sources > 8) begin : g_bad_sources
        `CMN_PARAM_ERROR("mc_fault: Sources must be 1..8")
    end

    logic [2:0]          type_q, type_d;
    logic [2:0]          source_q, source_d;
    logic                write_q, write_d;
    logic [AddrBits-1:0] addr_q, addr_d;
    logic [31:0]         count_q, count_d;
    logic                set_q, set_d;
    logic                irq_q, irq_d;
    integer              i;
    logic                found;

    always_comb begin
        type_d = type_q;
        source_d = source_q;
        write_d = write_q;
        addr_d = addr_q;
        count_d = count_q;
        set_d = 1'b0;
        irq_d = |src_valid_i;
        found = 1'b0;
        for (i = 0; i < Sources; i = i + 1) begin
            if (src_valid_i[i] && !found) begin
                found = 1'b1;
                if (!held_i && !set_q) begin
                    type_d = src_type_i[i*3 +: 3];
                    source_d = i[2:0];
                    write_d = src_write_i[i];
                    addr_d = src_addr_i[i*AddrBits +: AddrBits];
                    set_d = 1'b1;
                end
            end
        end
        if (found && count_q != 32'hffff_ffff) count_d = count_q + 32'd1;
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            type_q <= 3'd0;
            source_q <= 3'd0;
            write_q <= 1'b0;
            addr_q <= {AddrBits{1'b0}};
            count_q <= 32'd0;
            set_q <= 1'b0;
            irq_q <= 1'b0;
        end else begin
            type_q <= type_d;
            source_q <= source_d;
            write_q <= write_d;
            addr_q <= addr_d;
            count_q <= count_d;
            set_q <= set_d;
            irq_q <= irq_d;
        end
    end

    assign set_valid_o = set_q;
    assign type_o = type_q;
    assign source_o = source_q;
    assign write_o = write_q;
    assign addr_o = addr_q;
    assign count_o = count_q;
    assign irq_o = irq_q;
endmodule
`default_nettype wire
