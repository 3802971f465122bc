// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// cmn_axi_err_slave: an AXI4 slave that answers every transaction with DECERR.
// It stands behind a port whose block is not built in, so a stray access completes with an
// error instead of hanging the bus. Contract: one write and one read burst at a time; all W
// beats of a burst are consumed (up to WLAST) before its B; a read returns ARLEN+1 beats of
// zero data with RLAST on the last, echoing the ID. Never stalls a response channel itself.
module cmn_axi_err_slave #(
    parameter AddrBits  = 32,
    parameter DataBytes = 8,
    parameter IdBits    = 4
) (
    input  wire                   clk_i,
    input  wire                   rst_i,  // synchronous, active high
    input  wire [IdBits-1:0]      s_awid_i,
    input  wire [AddrBits-1:0]    s_awaddr_i,
    input  wire [7:0]             s_awlen_i,
    input  wire [2:0]             s_awsize_i,
    input  wire [1:0]             s_awburst_i,
    input  wire                   s_awlock_i,
    input  wire [3:0]             s_awcache_i,
    input  wire [2:0]             s_awprot_i,
    input  wire                   s_awvalid_i,
    output wire                   s_awready_o,
    input  wire [DataBytes*8-1:0] s_wdata_i,
    input  wire [DataBytes-1:0]   s_wstrb_i,
    input  wire                   s_wlast_i,
    input  wire                   s_wvalid_i,
    output wire                   s_wready_o,
    output wire [IdBits-1:0]      s_bid_o,
    output wire [1:0]             s_bresp_o,
    output wire                   s_bvalid_o,
    input  wire                   s_bready_i,
    input  wire [IdBits-1:0]      s_arid_i,
    input  wire [AddrBits-1:0]    s_araddr_i,
    input  wire [7:0]             s_arlen_i,
    input  wire [2:0]             s_arsize_i,
    input  wire [1:0]             s_arburst_i,
    input  wire                   s_arlock_i,
    input  wire [3:0]             s_arcache_i,
    input  wire [2:0]             s_arprot_i,
    input  wire                   s_arvalid_i,
    output wire                   s_arready_o,
    output wire [IdBits-1:0]      s_rid_o,
    output wire [DataBytes*8-1:0] s_rdata_o,
    output wire [1:0]             s_rresp_o,
    output wire                   s_rlast_o,
    output wire                   s_rvalid_o,
    input  wire                   s_rready_i
);
    localparam [1:0] RESP_DECERR = 2'b11;

    if (DataBytes != 4 && DataBytes != 8 && DataBytes != 16 && DataBytes != 32) begin : g_bad_width
        `CMN_PARAM_ERROR("cmn_axi_err_slave: DataBytes must be 4, 8, 16 or 32")
    end

    // Write: idle -> taking W beats (after AW) -> B pending.
    logic              w_busy_q, w_busy_d;   // AW taken, W beats being drained
    logic              b_valid_q, b_valid_d;
    logic [IdBits-1:0] w_id_q, w_id_d;
    // Read: beats left to return for the accepted AR.
    logic              r_valid_q, r_valid_d;
    logic [7:0]        r_left_q, r_left_d;
    logic [IdBits-1:0] r_id_q, r_id_d;

    wire unused_ok = ^{s_awaddr_i, s_awlen_i, s_awsize_i, s_awburst_i, s_awlock_i, s_awcache_i,
                       s_awprot_i, s_wdata_i, s_wstrb_i, s_araddr_i, s_arsize_i, s_arburst_i,
                       s_arlock_i, s_arcache_i, s_arprot_i};

    assign s_awready_o = ~w_busy_q & ~b_valid_q;
    assign s_wready_o  = w_busy_q;
    assign s_bvalid_o  = b_valid_q;
    assign s_bid_o     = w_id_q;
    assign s_bresp_o   = RESP_DECERR;
    assign s_arready_o = ~r_valid_q;
    assign s_rvalid_o  = r_valid_q;
    assign s_rid_o     = r_id_q;
    assign s_rdata_o   = {DataBytes*8{1'b0}};
    assign s_rresp_o   = RESP_DECERR;
    assign s_rlast_o   = (r_left_q == 8'd0);

    always_comb begin
        w_busy_d = w_busy_q;
        b_valid_d = b_valid_q;
        w_id_d = w_id_q;
        r_valid_d = r_valid_q;
        r_left_d = r_left_q;
        r_id_d = r_id_q;

        if (s_awvalid_i && s_awready_o) begin
            w_busy_d = 1'b1;
            w_id_d = s_awid_i;
        end
        if (s_wvalid_i && s_wready_o && s_wlast_i) begin
            w_busy_d = 1'b0;
            b_valid_d = 1'b1;
        end
        if (s_bvalid_o && s_bready_i) b_valid_d = 1'b0;

        if (s_rvalid_o && s_rready_i) begin
            if (r_left_q == 8'd0) r_valid_d = 1'b0;
            else r_left_d = r_left_q - 8'd1;
        end
        if (s_arvalid_i && s_arready_o) begin
            r_valid_d = 1'b1;
            r_left_d = s_arlen_i;
            r_id_d = s_arid_i;
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            w_busy_q <= 1'b0;
            b_valid_q <= 1'b0;
            r_valid_q <= 1'b0;
        end else begin
            w_busy_q <= w_busy_d;
            b_valid_q <= b_valid_d;
            r_valid_q <= r_valid_d;
        end
        w_id_q <= w_id_d;
        r_left_q <= r_left_d;
        r_id_q <= r_id_d;
    end
endmodule
`default_nettype wire
