// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// vram_ram: gpu_core's VRAM in on-chip RAM, for a board top without external memory: an AXI4
// slave (64-bit data) over 2^AddrBits bytes. RamStyle picks the RAM the array asks for, the
// only difference between the boards that use it:
//   "block"  yosys' synth_ecp5 infers DP16KD block RAM (the LimeSDR Mini v2: 128 KiB is 64 of
//            the LFE5U-45F's 108 DP16KD), which ECP5 has instead of UltraRAM;
//   "ultra"  Vivado infers UltraRAM (the Alveo U200: the XCU200 has 960 UltraRAMs of 32 KiB of
//            64-bit data; 8 MiB is 256 of them).
// Both are one port with byte writes and a registered read (the shape of both vendors'
// templates). Any other RamStyle stops elaboration.
// Contract:
//   - One burst at a time; when both an AW and an AR wait, the kind not served last goes
//     first, so neither starves. A write takes its AW, then W one beat a cycle (WREADY only
//     after the AW), then answers B OKAY; a read takes its AR and streams R one beat a cycle
//     (RVALID the cycle after the AR, then back to back while RREADY is high).
//   - Every burst is served as INCR of 8-byte beats from the address's 8-byte word: the size
//     and burst type are not looked at (gpu_core's m_vram issues only full-width INCR bursts,
//     rtl/gpu_core.v) and an address past 2^AddrBits wraps. gpu_core's memory controller
//     never sends one: it refuses every VRAM address at or past its vram_bytes_i strap, which
//     the top sets to 2^AddrBits.
//   - WSTRB writes only the strobed bytes. RRESP and BRESP are OKAY; B and R carry the ID of
//     their burst.
//   - No reset of the contents: VRAM holds what was last written (the driver clears what it
//     allocates).
module vram_ram #(
    parameter AddrBits = 17,       // VRAM bytes = 2^AddrBits
    parameter IdBits   = 4,
    parameter RamStyle = "block"   // "block" (ECP5 DP16KD) or "ultra" (UltraScale+ UltraRAM)
) (
    input  wire                clk_i,
    input  wire                rst_i,
    input  wire [IdBits-1:0]   s_awid_i,
    input  wire [31:0]         s_awaddr_i,
    input  wire [7:0]          s_awlen_i,
    input  wire [2:0]          s_awsize_i,
    input  wire [1:0]          s_awburst_i,
    input  wire                s_awlock_i,
    input  wire [3:0]          s_awcache_i,
    input  wire [2:0]          s_awprot_i,
    input  wire                s_awvalid_i,
    output wire                s_awready_o,
    input  wire [63:0]         s_wdata_i,
    input  wire [7:0]          s_wstrb_i,
    input  wire                s_wlast_i,
    input  wire                s_wvalid_i,
    output wire                s_wready_o,
    output wire [IdBits-1:0]   s_bid_o,
    output wire [1:0]          s_bresp_o,
    output wire                s_bvalid_o,
    input  wire                s_bready_i,
    input  wire [IdBits-1:0]   s_arid_i,
    input  wire [31:0]         s_araddr_i,
    input  wire [7:0]          s_arlen_i,
    input  wire [2:0]          s_arsize_i,
    input  wire [1:0]          s_arburst_i,
    input  wire                s_arlock_i,
    input  wire [3:0]          s_arcache_i,
    input  wire [2:0]          s_arprot_i,
    input  wire                s_arvalid_i,
    output wire                s_arready_o,
    output wire [IdBits-1:0]   s_rid_o,
    output wire [63:0]         s_rdata_o,
    output wire [1:0]          s_rresp_o,
    output wire                s_rlast_o,
    output wire                s_rvalid_o,
    input  wire                s_rready_i
);
    localparam WordBits = AddrBits - 3;
    localparam [1:0] StIdle = 2'd0, StWrite = 2'd1, StResp = 2'd2, StRead = 2'd3;

    reg [1:0]          state_q;
    reg                last_write_q;  // the last burst served was a write (arbitration)
    reg [IdBits-1:0]   id_q;
    reg [WordBits-1:0] word_q;        // the next word to write, or to read from the RAM
    reg [7:0]          left_q;        // beats still to write, or to read from the RAM, less one
    reg                issued_all_q;  // a read burst's last word has been read from the RAM
    reg [63:0]         rdata_q;
    reg                rvalid_q;
    reg                rlast_q;

    wire take_aw = state_q == StIdle && s_awvalid_i && (!s_arvalid_i || !last_write_q);
    wire take_ar = state_q == StIdle && s_arvalid_i && !take_aw;
    wire wbeat   = state_q == StWrite && s_wvalid_i;
    // a read of the RAM when the burst has words left and R is empty or being emptied: R runs
    // one beat a cycle and rdata_q holds while the master stalls
    wire rd_en   = state_q == StRead && !issued_all_q && (!rvalid_q || s_rready_i);
    // the contract serves every burst as full-width INCR and counts beats by AxLEN; an
    // address's bits past the RAM wrap
    wire unused_ok = ^{s_awaddr_i[31:AddrBits], s_awaddr_i[2:0], s_awsize_i, s_awburst_i, s_awlock_i,
                       s_awcache_i, s_awprot_i, s_wlast_i, s_araddr_i[31:AddrBits], s_araddr_i[2:0],
                       s_arsize_i, s_arburst_i, s_arlock_i, s_arcache_i, s_arprot_i};

    assign s_awready_o = take_aw;
    assign s_arready_o = take_ar;
    assign s_wready_o  = state_q == StWrite;
    assign s_bid_o     = id_q;
    assign s_bresp_o   = 2'b00;
    assign s_bvalid_o  = state_q == StResp;
    assign s_rid_o     = id_q;
    assign s_rdata_o   = rdata_q;
    assign s_rresp_o   = 2'b00;
    assign s_rlast_o   = rlast_q;
    assign s_rvalid_o  = rvalid_q;

    // The RAM: one port, byte writes, a registered read. An attribute's value must be a
    // constant in yosys and Vivado, so each style declares its own array.
    generate
    if (RamStyle == "ultra") begin : g_ultra
        (* ram_style = "ultra" *) reg [63:0] mem_q [0:(1 << WordBits) - 1];
        integer b;
        always @(posedge clk_i) begin
            if (wbeat) begin
                for (b = 0; b < 8; b = b + 1)
                    if (s_wstrb_i[b]) mem_q[word_q][8*b +: 8] <= s_wdata_i[8*b +: 8];
            end
            if (rd_en) rdata_q <= mem_q[word_q];
        end
    end else if (RamStyle == "block") begin : g_block
        (* ram_style = "block" *) reg [63:0] mem_q [0:(1 << WordBits) - 1];
        integer b;
        always @(posedge clk_i) begin
            if (wbeat) begin
                for (b = 0; b < 8; b = b + 1)
                    if (s_wstrb_i[b]) mem_q[word_q][8*b +: 8] <= s_wdata_i[8*b +: 8];
            end
            if (rd_en) rdata_q <= mem_q[word_q];
        end
    end else begin : g_bad_style
        `CMN_PARAM_ERROR("vram_ram: RamStyle must be \"block\" or \"ultra\"")
    end
    endgenerate

    always @(posedge clk_i) begin
        if (rst_i) begin
            state_q      <= StIdle;
            last_write_q <= 1'b0;
            id_q         <= {IdBits{1'b0}};
            word_q       <= {WordBits{1'b0}};
            left_q       <= 8'd0;
            issued_all_q <= 1'b0;
            rvalid_q     <= 1'b0;
            rlast_q      <= 1'b0;
        end else begin
            case (state_q)
            StIdle: begin
                if (take_aw) begin
                    state_q      <= StWrite;
                    last_write_q <= 1'b1;
                    id_q         <= s_awid_i;
                    word_q       <= s_awaddr_i[AddrBits-1:3];
                    left_q       <= s_awlen_i;
                end else if (take_ar) begin
                    state_q      <= StRead;
                    last_write_q <= 1'b0;
                    id_q         <= s_arid_i;
                    word_q       <= s_araddr_i[AddrBits-1:3];
                    left_q       <= s_arlen_i;
                    issued_all_q <= 1'b0;
                end
            end
            StWrite: begin
                // the burst ends at its AWLEN (WLAST is the master's copy of the same count)
                if (wbeat) begin
                    word_q <= word_q + 1'b1;
                    left_q <= left_q - 8'd1;
                    if (left_q == 8'd0) state_q <= StResp;
                end
            end
            StResp: begin
                if (s_bready_i) state_q <= StIdle;
            end
            default: begin  // StRead
                if (rd_en) begin
                    rvalid_q     <= 1'b1;
                    rlast_q      <= left_q == 8'd0;
                    issued_all_q <= left_q == 8'd0;
                    word_q       <= word_q + 1'b1;
                    left_q       <= left_q - 8'd1;
                end else if (s_rready_i) begin
                    rvalid_q <= 1'b0;
                end
                if (rvalid_q && s_rready_i && rlast_q) begin
                    state_q  <= StIdle;
                    rvalid_q <= 1'b0;
                    rlast_q  <= 1'b0;
                end
            end
            endcase
        end
    end
endmodule
`default_nettype wire
