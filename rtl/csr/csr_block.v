// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// csr_block: BAR0 of gpu_core: the AXI4-Lite CSR port, the generated register file, the soft
// reset sequencer and the interrupt block.
// Contract: s_csr_* is a full AXI4-Lite slave (see csr_axil). soft_rst_o is the core soft
// reset for every other block; they hold idle_i low while they still have bus traffic to
// drain. irq_o is a level (see csr_irq). The other ports are the fields of the blocks'
// registers, named after them (rtl/csr/REGISTERS.md).
module csr_block #(
    parameter AddrBits   = 16,        // BAR0 byte address bits; must match regtool's map
    parameter BoardId    = 8'd0,      // ID_BUILD.BOARD: 0 simulation, others per boards/
    parameter BuildStamp = 24'd0,     // ID_BUILD.STAMP: chosen by the build
    parameter BuildDate  = 32'd0      // ID_DATE: the build's date, BCD YYYYMMDD, 0 for none
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
    output wire                irq_o,
    // memory controller fields (rtl/mc/mc_top), named as in REGISTERS.md
    input  wire [47:0]         mc_vram_bytes_i,
    input  wire [31:0]         mc_ap_bytes_i,
    output wire [19:0]         mc_ap_base_page_o,
    output wire [19:0]         vpr_base_page_o,
    output wire [19:0]         vpr_limit_page_o,
    output wire                vpr_enable_o,
    input  wire                mc_fault_irq_i,     // one cycle per fault
    input  wire                mc_fault_set_i,
    output wire                mc_fault_valid_o,
    input  wire [2:0]          mc_fault_type_i,
    input  wire [2:0]          mc_fault_source_i,
    input  wire                mc_fault_write_i,
    input  wire [47:0]         mc_fault_addr_i,
    input  wire [31:0]         mc_fault_count_i,
    output wire                mmu_enable_o,
    output wire [19:0]         mmu_root_page_o,
    output wire                mmu_invalidate_o,
    input  wire [31:0]         mmu_tlb_hits_i,
    input  wire [31:0]         mmu_tlb_misses_i,
    output wire [47:0]         probe_va_o,
    output wire                probe_go_o,
    output wire                probe_write_o,
    output wire                probe_physical_o,
    input  wire                probe_busy_i,
    input  wire                probe_done_i,
    input  wire                probe_fault_i,
    input  wire [2:0]          probe_fault_type_i,
    input  wire                probe_system_i,
    input  wire                probe_cacheable_i,
    input  wire [4:0]          probe_page_shift_i,
    input  wire [51:0]         probe_pa_i,
    // DMA engine fields (rtl/dma/dma_top), named as in REGISTERS.md
    input  wire                dma_fence_irq_i,      // one-cycle interrupt source pulses
    input  wire                dma_preempted_irq_i,
    input  wire                dma_fault_irq_i,
    output wire                dma_enable_o,
    output wire                dma_preempt_o,        // one-cycle strobes
    output wire                dma_reset_o,
    input  wire                dma_idle_i,
    input  wire                dma_preempted_i,
    input  wire                dma_hung_i,
    input  wire                dma_faulted_i,
    input  wire                dma_resetting_i,
    input  wire [3:0]          dma_state_i,
    output wire [63:0]         dma_ring_base_o,      // bits 11:0 zero
    output wire [3:0]          dma_ring_log2_o,
    input  wire [15:0]         dma_ring_head_i,
    output wire [15:0]         dma_ring_tail_o,
    output wire [63:0]         dma_fence_addr_o,     // bits 2:0 zero
    input  wire [31:0]         dma_completed_fence_i,
    output wire [31:0]         dma_preempt_fence_o,
    input  wire [15:0]         dma_stop_head_i,
    input  wire [15:0]         dma_stop_tail_i,
    input  wire [31:0]         dma_stop_offset_i,
    input  wire [31:0]         dma_stop_done_i,
    output wire [31:0]         dma_watchdog_o,
    input  wire [3:0]          dma_fault_type_i,
    input  wire [2:0]          dma_fault_mmu_type_i,
    input  wire                dma_fault_write_i,
    input  wire [15:0]         dma_fault_entry_i,
    input  wire [63:0]         dma_fault_addr_i,
    output wire                dma_ts_lo_read_o,     // DMA_TIMESTAMP_LO is being read
    input  wire [63:0]         dma_timestamp_i,      // bits 63:32 as latched by the LO read
    input  wire [31:0]         dma_perf_busy_i,
    input  wire [63:0]         dma_perf_bytes_i,
    input  wire [31:0]         dma_perf_stalls_i,
    input  wire [31:0]         dma_perf_cmds_i,
    input  wire [31:0]         dma_perf_last_cmd_i
);
    if (AddrBits != 16) begin : g_bad_addr_bits
        `CMN_PARAM_ERROR("csr_block: AddrBits must be 16, the BAR0 size of gpu_regs.rdl")
    end

    wire                req, we, err, hit;
    wire [AddrBits-1:0] addr;
    wire [31:0]         wdata, rdata;
    wire [3:0]          wstrb;
    wire                reset_req, reset_done;
    wire [4:0]          irq_state, irq_enable, irq_test, irq_set;
    wire [19:0]         dma_ring_base_page;
    wire [28:0]         dma_fence_addr_qw;
    wire                vpr_lock;

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
        .id_date_value_i(BuildDate),
        .reset_ctrl_core_o(reset_req),
        .irq_state_reset_done_set_i(irq_set[0]),
        .irq_state_reset_done_o(irq_state[0]),
        .irq_state_mc_fault_set_i(irq_set[1]),
        .irq_state_mc_fault_o(irq_state[1]),
        .irq_enable_reset_done_o(irq_enable[0]),
        .irq_enable_mc_fault_o(irq_enable[1]),
        .irq_test_reset_done_o(irq_test[0]),
        .irq_test_mc_fault_o(irq_test[1]),
        .irq_state_dma_fence_set_i(irq_set[2]),
        .irq_state_dma_fence_o(irq_state[2]),
        .irq_state_dma_preempted_set_i(irq_set[3]),
        .irq_state_dma_preempted_o(irq_state[3]),
        .irq_state_dma_fault_set_i(irq_set[4]),
        .irq_state_dma_fault_o(irq_state[4]),
        .irq_enable_dma_fence_o(irq_enable[2]),
        .irq_enable_dma_preempted_o(irq_enable[3]),
        .irq_enable_dma_fault_o(irq_enable[4]),
        .irq_test_dma_fence_o(irq_test[2]),
        .irq_test_dma_preempted_o(irq_test[3]),
        .irq_test_dma_fault_o(irq_test[4]),
        .mc_vram_size_lo_bytes_i(mc_vram_bytes_i[31:0]),
        .mc_vram_size_hi_bytes_i(mc_vram_bytes_i[47:32]),
        .mc_ap_size_bytes_i(mc_ap_bytes_i),
        .mc_ap_base_page_o(mc_ap_base_page_o),
        .vpr_base_page_o(vpr_base_page_o),
        .vpr_limit_page_o(vpr_limit_page_o),
        .vpr_ctrl_enable_o(vpr_enable_o),
        .vpr_ctrl_lock_o(vpr_lock),
        .mc_fault_status_valid_set_i(mc_fault_set_i),
        .mc_fault_status_valid_o(mc_fault_valid_o),
        .mc_fault_status_type_i(mc_fault_type_i),
        .mc_fault_status_source_i(mc_fault_source_i),
        .mc_fault_status_write_i(mc_fault_write_i),
        .mc_fault_addr_lo_addr_i(mc_fault_addr_i[31:0]),
        .mc_fault_addr_hi_addr_i(mc_fault_addr_i[47:32]),
        .mc_fault_count_count_i(mc_fault_count_i),
        .mmu_ctrl_enable_o(mmu_enable_o),
        .mmu_root_page_o(mmu_root_page_o),
        .mmu_invalidate_all_o(mmu_invalidate_o),
        .mmu_tlb_hits_count_i(mmu_tlb_hits_i),
        .mmu_tlb_misses_count_i(mmu_tlb_misses_i),
        .mmu_probe_va_lo_va_o(probe_va_o[31:0]),
        .mmu_probe_va_hi_va_o(probe_va_o[47:32]),
        .mmu_probe_ctrl_go_o(probe_go_o),
        .mmu_probe_ctrl_write_o(probe_write_o),
        .mmu_probe_ctrl_physical_o(probe_physical_o),
        .mmu_probe_status_busy_i(probe_busy_i),
        .mmu_probe_status_done_i(probe_done_i),
        .mmu_probe_status_fault_i(probe_fault_i),
        .mmu_probe_status_fault_type_i(probe_fault_type_i),
        .mmu_probe_status_system_i(probe_system_i),
        .mmu_probe_status_cacheable_i(probe_cacheable_i),
        .mmu_probe_status_page_shift_i(probe_page_shift_i),
        .mmu_probe_pa_lo_pa_i(probe_pa_i[31:0]),
        .mmu_probe_pa_hi_pa_i(probe_pa_i[51:32]),
        .dma_ctrl_enable_o(dma_enable_o),
        .dma_ctrl_preempt_o(dma_preempt_o),
        .dma_ctrl_reset_o(dma_reset_o),
        .dma_status_idle_i(dma_idle_i),
        .dma_status_preempted_i(dma_preempted_i),
        .dma_status_hung_i(dma_hung_i),
        .dma_status_faulted_i(dma_faulted_i),
        .dma_status_resetting_i(dma_resetting_i),
        .dma_status_state_i(dma_state_i),
        .dma_ring_base_lo_page_o(dma_ring_base_page),
        .dma_ring_base_hi_addr_o(dma_ring_base_o[63:32]),
        .dma_ring_size_log2_o(dma_ring_log2_o),
        .dma_ring_head_index_i(dma_ring_head_i),
        .dma_ring_tail_index_o(dma_ring_tail_o),
        .dma_fence_addr_lo_addr_o(dma_fence_addr_qw),
        .dma_fence_addr_hi_addr_o(dma_fence_addr_o[63:32]),
        .dma_completed_fence_id_i(dma_completed_fence_i),
        .dma_preempt_fence_id_o(dma_preempt_fence_o),
        .dma_stop_head_index_i(dma_stop_head_i),
        .dma_stop_tail_index_i(dma_stop_tail_i),
        .dma_stop_offset_bytes_i(dma_stop_offset_i),
        .dma_stop_done_bytes_i(dma_stop_done_i),
        .dma_watchdog_cycles_o(dma_watchdog_o),
        .dma_fault_status_type_i(dma_fault_type_i),
        .dma_fault_status_mmu_type_i(dma_fault_mmu_type_i),
        .dma_fault_status_write_i(dma_fault_write_i),
        .dma_fault_status_entry_i(dma_fault_entry_i),
        .dma_fault_addr_lo_addr_i(dma_fault_addr_i[31:0]),
        .dma_fault_addr_hi_addr_i(dma_fault_addr_i[63:32]),
        .dma_timestamp_lo_cycles_swacc_o(dma_ts_lo_read_o),
        .dma_timestamp_lo_cycles_i(dma_timestamp_i[31:0]),
        .dma_timestamp_hi_cycles_i(dma_timestamp_i[63:32]),
        .dma_perf_busy_cycles_i(dma_perf_busy_i),
        .dma_perf_bytes_lo_bytes_i(dma_perf_bytes_i[31:0]),
        .dma_perf_bytes_hi_bytes_i(dma_perf_bytes_i[63:32]),
        .dma_perf_stalls_cycles_i(dma_perf_stalls_i),
        .dma_perf_cmds_count_i(dma_perf_cmds_i),
        .dma_perf_last_cmd_cycles_i(dma_perf_last_cmd_i),
        .hit_o(hit)
    );

    csr_reset u_reset (
        .clk_i(clk_i), .rst_i(rst_i),
        .req_i(reset_req),
        .idle_i(idle_i),
        .soft_rst_o(soft_rst_o),
        .done_o(reset_done)
    );

    assign dma_ring_base_o[31:0] = {dma_ring_base_page, 12'h000};
    assign dma_fence_addr_o[31:0] = {dma_fence_addr_qw, 3'b000};

    csr_irq #(.Sources(5)) u_irq (
        .clk_i(clk_i), .rst_i(rst_i),
        .src_i({dma_fault_irq_i, dma_preempted_irq_i, dma_fence_irq_i, mc_fault_irq_i, reset_done}),
        .test_i(irq_test),
        .state_i(irq_state),
        .enable_i(irq_enable),
        .set_o(irq_set),
        .irq_o(irq_o)
    );

    wire unused_hit = ^{hit, vpr_lock};  // err covers holes; the lock acts inside csr_regs
endmodule
`default_nettype wire
