// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// u200_pcie (lint stub): the ports of the pcie4_uscale_plus hard IP that build.tcl generates
// under this name, as u200_top connects them, with the names and widths of the IP's user
// interface (AMD PG213) for a 64-bit AXI4-Stream interface and two lanes. Its outputs are
// constants: it exists so that u200_top lints under Verilator -Wall and elaborates in Icarus
// without Vivado (boards/alveo_u200/lint.sh); it is never built into a bitstream, and it was not
// compared with a generated IP (a port that differs shows as an error when Vivado elaborates
// u200_top).
module u200_pcie (
    output wire [1:0]  pci_exp_txp,
    output wire [1:0]  pci_exp_txn,
    input  wire [1:0]  pci_exp_rxp,
    input  wire [1:0]  pci_exp_rxn,
    input  wire        sys_clk,
    input  wire        sys_clk_gt,
    input  wire        sys_reset,
    output wire        user_clk,
    output wire        user_reset,
    output wire        user_lnk_up,
    output wire [63:0] m_axis_cq_tdata,
    output wire [1:0]  m_axis_cq_tkeep,
    output wire        m_axis_cq_tlast,
    output wire [87:0] m_axis_cq_tuser,
    output wire        m_axis_cq_tvalid,
    input  wire        m_axis_cq_tready,
    input  wire [63:0] s_axis_cc_tdata,
    input  wire [1:0]  s_axis_cc_tkeep,
    input  wire        s_axis_cc_tlast,
    input  wire [32:0] s_axis_cc_tuser,
    input  wire        s_axis_cc_tvalid,
    output wire [3:0]  s_axis_cc_tready,
    input  wire [63:0] s_axis_rq_tdata,
    input  wire [1:0]  s_axis_rq_tkeep,
    input  wire        s_axis_rq_tlast,
    input  wire [61:0] s_axis_rq_tuser,
    input  wire        s_axis_rq_tvalid,
    output wire [3:0]  s_axis_rq_tready,
    output wire [63:0] m_axis_rc_tdata,
    output wire [1:0]  m_axis_rc_tkeep,
    output wire        m_axis_rc_tlast,
    output wire [74:0] m_axis_rc_tuser,
    output wire        m_axis_rc_tvalid,
    input  wire        m_axis_rc_tready,
    input  wire [1:0]  pcie_cq_np_req,
    output wire [1:0]  cfg_max_payload,
    output wire [2:0]  cfg_max_read_req,
    output wire [15:0] cfg_function_status,
    input  wire [3:0]  cfg_interrupt_int,
    input  wire [3:0]  cfg_interrupt_pending,
    output wire        cfg_interrupt_sent,
    output wire [3:0]  cfg_interrupt_msi_enable,
    input  wire [31:0] cfg_interrupt_msi_int,
    output wire        cfg_interrupt_msi_sent,
    output wire        cfg_interrupt_msi_fail,
    input  wire [1:0]  cfg_interrupt_msi_select,
    input  wire [31:0] cfg_interrupt_msi_pending_status,
    input  wire        cfg_interrupt_msi_pending_status_data_enable,
    input  wire [1:0]  cfg_interrupt_msi_pending_status_function_num,
    input  wire [2:0]  cfg_interrupt_msi_attr,
    input  wire        cfg_interrupt_msi_tph_present,
    input  wire [1:0]  cfg_interrupt_msi_tph_type,
    input  wire [7:0]  cfg_interrupt_msi_tph_st_tag,
    input  wire [7:0]  cfg_interrupt_msi_function_number,
    output wire        cfg_power_state_change_interrupt,
    input  wire        cfg_power_state_change_ack,
    output wire [3:0]  cfg_flr_in_process,
    input  wire [3:0]  cfg_flr_done,
    input  wire        cfg_err_cor_in,
    input  wire        cfg_err_uncor_in,
    input  wire [63:0] cfg_dsn,
    input  wire        cfg_link_training_enable,
    input  wire        cfg_config_space_enable,
    input  wire        cfg_hot_reset_in
);
    assign pci_exp_txp = 2'b00;
    assign pci_exp_txn = 2'b00;
    assign user_clk = sys_clk;
    assign user_reset = !sys_reset;
    assign user_lnk_up = 1'b0;
    assign m_axis_cq_tdata = 64'd0;
    assign m_axis_cq_tkeep = 2'b00;
    assign m_axis_cq_tlast = 1'b0;
    assign m_axis_cq_tuser = 88'd0;
    assign m_axis_cq_tvalid = 1'b0;
    assign s_axis_cc_tready = 4'hf;
    assign s_axis_rq_tready = 4'hf;
    assign m_axis_rc_tdata = 64'd0;
    assign m_axis_rc_tkeep = 2'b00;
    assign m_axis_rc_tlast = 1'b0;
    assign m_axis_rc_tuser = 75'd0;
    assign m_axis_rc_tvalid = 1'b0;
    assign cfg_max_payload = 2'b00;
    assign cfg_max_read_req = 3'b000;
    assign cfg_function_status = 16'd0;
    assign cfg_interrupt_sent = 1'b0;
    assign cfg_interrupt_msi_enable = 4'h0;
    assign cfg_interrupt_msi_sent = 1'b0;
    assign cfg_interrupt_msi_fail = 1'b0;
    assign cfg_power_state_change_interrupt = 1'b0;
    assign cfg_flr_in_process = 4'h0;
    wire unused_ok = ^{pci_exp_rxp, pci_exp_rxn, sys_clk_gt, m_axis_cq_tready, s_axis_cc_tdata,
                       s_axis_cc_tkeep, s_axis_cc_tlast, s_axis_cc_tuser, s_axis_cc_tvalid,
                       s_axis_rq_tdata, s_axis_rq_tkeep, s_axis_rq_tlast, s_axis_rq_tuser,
                       s_axis_rq_tvalid, m_axis_rc_tready, pcie_cq_np_req, cfg_interrupt_int,
                       cfg_interrupt_pending, cfg_interrupt_msi_int, cfg_interrupt_msi_select,
                       cfg_interrupt_msi_pending_status,
                       cfg_interrupt_msi_pending_status_data_enable,
                       cfg_interrupt_msi_pending_status_function_num, cfg_interrupt_msi_attr,
                       cfg_interrupt_msi_tph_present, cfg_interrupt_msi_tph_type,
                       cfg_interrupt_msi_tph_st_tag, cfg_interrupt_msi_function_number,
                       cfg_power_state_change_ack, cfg_flr_done, cfg_err_cor_in,
                       cfg_err_uncor_in, cfg_dsn, cfg_link_training_enable,
                       cfg_config_space_enable, cfg_hot_reset_in};
endmodule
`default_nettype wire
