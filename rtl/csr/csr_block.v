`default_nettype none
`include "cmn_param.vh"
// csr_block: BAR0 of gpu_core: the AXI4-Lite CSR port, the generated register file, the soft
// reset sequencer and the interrupt block.
// Contract: s_csr_* is a full AXI4-Lite slave (see csr_axil). soft_rst_o is the core soft
// reset for every other block; they hold idle_i low while they still have bus traffic to
// drain. irq_o is a level (see csr_irq).
module csr_block #(
    parameter AddrBits   = 16,        // BAR0 byte address bits; must match regtool's map
    parameter BoardId    = 8'd0,      // ID_BUILD.BOARD: 0 simulation, others per boards/
    parameter BuildStamp = 24'd0      // ID_BUILD.STAMP: chosen by the build
) (
    input  wire                clk_i,
    input  wire                rst_i,  // synchronous, active high
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
    input  wire                idle_i,      // every other block idle, nothing outstanding
    output wire                soft_rst_o,  // core soft reset to every other block
    output wire                irq_o
);
    if (AddrBits != 16) begin : g_bad_addr_bits
        `CMN_PARAM_ERROR("csr_block: AddrBits must be 16, the BAR0 size of gpu_regs.rdl")
    end

    wire                req, we, err, hit;
    wire [AddrBits-1:0] addr;
    wire [31:0]         wdata, rdata;
    wire [3:0]          wstrb;
    wire                reset_req, reset_done;
    wire                irq_state, irq_enable, irq_test, irq_set;

    csr_axil #(.AddrBits(AddrBits)) u_axil (
        .clk_i(clk_i), .rst_i(rst_i),
        .s_csr_awaddr_i(s_csr_awaddr_i), .s_csr_awprot_i(s_csr_awprot_i), .s_csr_awvalid_i(s_csr_awvalid_i), .s_csr_awready_o(s_csr_awready_o),
        .s_csr_wdata_i(s_csr_wdata_i), .s_csr_wstrb_i(s_csr_wstrb_i), .s_csr_wvalid_i(s_csr_wvalid_i), .s_csr_wready_o(s_csr_wready_o),
        .s_csr_bresp_o(s_csr_bresp_o), .s_csr_bvalid_o(s_csr_bvalid_o), .s_csr_bready_i(s_csr_bready_i),
        .s_csr_araddr_i(s_csr_araddr_i), .s_csr_arprot_i(s_csr_arprot_i), .s_csr_arvalid_i(s_csr_arvalid_i), .s_csr_arready_o(s_csr_arready_o),
        .s_csr_rdata_o(s_csr_rdata_o), .s_csr_rresp_o(s_csr_rresp_o), .s_csr_rvalid_o(s_csr_rvalid_o), .s_csr_rready_i(s_csr_rready_i),
        .req_o(req), .we_o(we), .addr_o(addr), .wdata_o(wdata), .wstrb_o(wstrb),
        .rdata_i(rdata), .err_i(err)
    );

    csr_regs u_regs (
        .clk_i(clk_i), .rst_i(rst_i),
        .soft_rst_i(soft_rst_o),
        .req_i(req), .we_i(we), .addr_i(addr), .wdata_i(wdata), .wstrb_i(wstrb),
        .rdata_o(rdata), .err_o(err),
        .id_build_stamp_i(BuildStamp),
        .id_build_board_i(BoardId),
        .reset_ctrl_core_o(reset_req),
        .irq_state_reset_done_set_i(irq_set),
        .irq_state_reset_done_o(irq_state),
        .irq_enable_reset_done_o(irq_enable),
        .irq_test_reset_done_o(irq_test),
        .hit_o(hit)
    );

    csr_reset u_reset (
        .clk_i(clk_i), .rst_i(rst_i),
        .req_i(reset_req),
        .idle_i(idle_i),
        .soft_rst_o(soft_rst_o),
        .done_o(reset_done)
    );

    csr_irq #(.Sources(1)) u_irq (
        .clk_i(clk_i), .rst_i(rst_i),
        .src_i(reset_done),
        .test_i(irq_test),
        .state_i(irq_state),
        .enable_i(irq_enable),
        .set_o(irq_set),
        .irq_o(irq_o)
    );

    wire unused_hit = hit;  // err already covers holes
endmodule
`default_nettype wire
