// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// csr_axil: AXI4-Lite slave in front of the register bus of csr_regs.
// Contract: AW and W may arrive in any order and are held until both are present; one write
// and one read are in flight at most. An access is chosen into a command register first and
// reaches the register bus from there in the next cycle, so the register file's decode and read
// mux start at a flip-flop (the arbitration is not on that path); reads and writes alternate
// when both wait. Responses are registered and held until the master takes them. A bus error
// from the register file answers SLVERR. A read's error is a hole, which csr_regs reads as
// zero itself (regtool's default), so the data goes through unmasked: the hole decode (an OR
// over every register) stays off the read data's path.
// AxPROT is accepted and ignored: every BAR0 access is allowed.
module csr_axil #(
    parameter AddrBits = 16  // byte address bits of the CSR window
) (
    input  wire                clk_i,
    input  wire                rst_i,  // synchronous, active high
    // AXI4-Lite slave
    input  wire [AddrBits-1:0] s_csr_awaddr_i,
    input  wire [2:0]          s_csr_awprot_i,
    input  wire                s_csr_awvalid_i,
    output wire                s_csr_awready_o,
    input  wire [31:0]         s_csr_wdata_i,
    input  wire [3:0]          s_csr_wstrb_i,
    input  wire                s_csr_wvalid_i,
    output wire                s_csr_wready_o,
    output wire [1:0]          s_csr_bresp_o,
    output wire                s_csr_bvalid_o,
    input  wire                s_csr_bready_i,
    input  wire [AddrBits-1:0] s_csr_araddr_i,
    input  wire [2:0]          s_csr_arprot_i,
    input  wire                s_csr_arvalid_i,
    output wire                s_csr_arready_o,
    output wire [31:0]         s_csr_rdata_o,
    output wire [1:0]          s_csr_rresp_o,
    output wire                s_csr_rvalid_o,
    input  wire                s_csr_rready_i,
    // register bus (csr_regs)
    output wire                req_o,
    output wire                we_o,
    output wire [AddrBits-1:0] addr_o,
    output wire [31:0]         wdata_o,
    output wire [3:0]          wstrb_o,
    input  wire [31:0]         rdata_i,
    input  wire                err_i
);
    localparam [1:0] RESP_OKAY = 2'b00;
    localparam [1:0] RESP_SLVERR = 2'b10;

    logic                aw_full_q, aw_full_d;
    logic [AddrBits-1:0] aw_addr_q, aw_addr_d;
    logic                w_full_q, w_full_d;
    logic [31:0]         w_data_q, w_data_d;
    logic [3:0]          w_strb_q, w_strb_d;
    logic                ar_full_q, ar_full_d;
    logic [AddrBits-1:0] ar_addr_q, ar_addr_d;
    logic                b_valid_q, b_valid_d;
    logic [1:0]          b_resp_q, b_resp_d;
    logic                r_valid_q, r_valid_d;
    logic [31:0]         r_data_q, r_data_d;
    logic [1:0]          r_resp_q, r_resp_d;
    logic                prefer_read_q, prefer_read_d;
    logic                cmd_valid_q, cmd_valid_d;  // the access on the register bus this cycle
    logic                cmd_we_q, cmd_we_d;
    logic [AddrBits-1:0] cmd_addr_q, cmd_addr_d;
    logic [31:0]         cmd_wdata_q, cmd_wdata_d;
    logic [3:0]          cmd_wstrb_q, cmd_wstrb_d;

    wire unused_prot = ^{s_csr_awprot_i, s_csr_arprot_i};

    assign s_csr_awready_o = ~aw_full_q;
    assign s_csr_wready_o  = ~w_full_q;
    assign s_csr_arready_o = ~ar_full_q;
    assign s_csr_bvalid_o  = b_valid_q;
    assign s_csr_bresp_o   = b_resp_q;
    assign s_csr_rvalid_o  = r_valid_q;
    assign s_csr_rdata_o   = r_data_q;
    assign s_csr_rresp_o   = r_resp_q;

    // A write may issue once address and data are held and its response slot is free;
    // likewise a read; one command at a time, so the slot checked here is still free when the
    // command runs. When both can, the one that waited last time goes first.
    wire write_can = aw_full_q & w_full_q & ~b_valid_q & ~cmd_valid_q;
    wire read_can  = ar_full_q & ~r_valid_q & ~cmd_valid_q;
    wire do_read   = read_can & (~write_can | prefer_read_q);
    wire do_write  = write_can & ~do_read;

    assign req_o   = cmd_valid_q;
    assign we_o    = cmd_we_q;
    assign addr_o  = cmd_addr_q;
    assign wdata_o = cmd_wdata_q;
    assign wstrb_o = cmd_wstrb_q;

    always_comb begin
        aw_full_d = aw_full_q;
        aw_addr_d = aw_addr_q;
        w_full_d = w_full_q;
        w_data_d = w_data_q;
        w_strb_d = w_strb_q;
        ar_full_d = ar_full_q;
        ar_addr_d = ar_addr_q;
        b_valid_d = b_valid_q;
        b_resp_d = b_resp_q;
        r_valid_d = r_valid_q;
        r_data_d = r_data_q;
        r_resp_d = r_resp_q;
        prefer_read_d = prefer_read_q;
        cmd_valid_d = 1'b0;
        cmd_we_d = cmd_we_q;
        cmd_addr_d = cmd_addr_q;
        cmd_wdata_d = cmd_wdata_q;
        cmd_wstrb_d = cmd_wstrb_q;

        if (s_csr_bready_i) b_valid_d = 1'b0;
        if (s_csr_rready_i) r_valid_d = 1'b0;

        if (s_csr_awvalid_i && !aw_full_q) begin
            aw_full_d = 1'b1;
            aw_addr_d = s_csr_awaddr_i;
        end
        if (s_csr_wvalid_i && !w_full_q) begin
            w_full_d = 1'b1;
            w_data_d = s_csr_wdata_i;
            w_strb_d = s_csr_wstrb_i;
        end
        if (s_csr_arvalid_i && !ar_full_q) begin
            ar_full_d = 1'b1;
            ar_addr_d = s_csr_araddr_i;
        end

        // Issue: the chosen access moves into the command register.
        if (do_write) begin
            aw_full_d = 1'b0;
            w_full_d = 1'b0;
            cmd_valid_d = 1'b1;
            cmd_we_d = 1'b1;
            cmd_addr_d = aw_addr_q;
            cmd_wdata_d = w_data_q;
            cmd_wstrb_d = w_strb_q;
            prefer_read_d = 1'b1;
        end
        if (do_read) begin
            ar_full_d = 1'b0;
            cmd_valid_d = 1'b1;
            cmd_we_d = 1'b0;
            cmd_addr_d = ar_addr_q;
            prefer_read_d = 1'b0;
        end

        // Run: the command is on the register bus; its answer goes to its response slot.
        if (cmd_valid_q && cmd_we_q) begin
            b_valid_d = 1'b1;
            b_resp_d = err_i ? RESP_SLVERR : RESP_OKAY;
        end
        if (cmd_valid_q && !cmd_we_q) begin
            r_valid_d = 1'b1;
            r_data_d = rdata_i;
            r_resp_d = err_i ? RESP_SLVERR : RESP_OKAY;
        end
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            aw_full_q <= 1'b0;
            w_full_q <= 1'b0;
            ar_full_q <= 1'b0;
            b_valid_q <= 1'b0;
            r_valid_q <= 1'b0;
            prefer_read_q <= 1'b0;
            cmd_valid_q <= 1'b0;
        end else begin
            aw_full_q <= aw_full_d;
            w_full_q <= w_full_d;
            ar_full_q <= ar_full_d;
            b_valid_q <= b_valid_d;
            r_valid_q <= r_valid_d;
            prefer_read_q <= prefer_read_d;
            cmd_valid_q <= cmd_valid_d;
        end
        // Data path: no reset needed, qualified by the valid bits above.
        aw_addr_q <= aw_addr_d;
        w_data_q <= w_data_d;
        w_strb_q <= w_strb_d;
        ar_addr_q <= ar_addr_d;
        b_resp_q <= b_resp_d;
        r_data_q <= r_data_d;
        r_resp_q <= r_resp_d;
        cmd_we_q <= cmd_we_d;
        cmd_addr_q <= cmd_addr_d;
        cmd_wdata_q <= cmd_wdata_d;
        cmd_wstrb_q <= cmd_wstrb_d;
    end
endmodule
`default_nettype wire
