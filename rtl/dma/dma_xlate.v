// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// dma_xlate: the DMA engine's translation client. Turns a command-space address (space 0 GPU
// virtual, 1 VRAM physical, 2 host physical) into a bus address and a port, one request at a
// time, for two requesters (0: the read side, 1: the write side; round-robin).
// Contract:
//   - req_*: one valid/ready stream per requester; a requester keeps at most one request
//     outstanding and its answer is the one-cycle rsp_valid_o[i] with the shared rsp_* payload.
//   - GPU virtual: through the MMU port (mmu_req_*/mmu_rsp_*, valid/ready; the memory
//     controller's mc_mmu with this entry's root when use_root_i). A leaf with SYSTEM routes to
//     the host port. VA bits 63:48 set fault as unmapped and a root at or above 4 GiB as a
//     page-table decode error, without asking the MMU.
//   - VRAM physical at or above the VRAM present (vram_pages_i 4 KiB pages, a strap static
//     after reset, at most 2^(VramAddrBits-12)) answers a bus error (fault type 3): nothing
//     would answer it. A GPU virtual address whose page the MMU places in VRAM at or above it
//     (the part of a large page that lies past VRAM's end) faults as a page-table decode error
//     (MMU type 3), as the walker does for a page that starts there. Host physical never
//     faults here.
//   - rsp_vpr_o: the page is in VRAM inside the enabled VPR.
//   - idle_o: nothing accepted and not answered.
module dma_xlate #(
    parameter VramAddrBits = 32
) (
    input  wire                    clk_i,
    input  wire                    rst_i,       // synchronous, active high
    input  wire                    use_root_i,  // the ring entry's USE_ROOT
    input  wire [51:0]             root_i,      // the ring entry's ROOT (bits 11:0 ignored)
    input  wire                    vpr_en_i,
    input  wire [VramAddrBits-13:0] vpr_base_i,  // VRAM page numbers: [base, limit)
    input  wire [VramAddrBits-13:0] vpr_limit_i,
    input  wire [VramAddrBits-12:0] vram_pages_i, // VRAM size in 4 KiB pages
    input  wire [1:0]              req_valid_i,
    output wire [1:0]              req_ready_o,
    input  wire [3:0]              req_space_i,  // {requester 1, requester 0}
    input  wire [127:0]            req_addr_i,
    input  wire [1:0]              req_write_i,
    output wire [1:0]              rsp_valid_o,
    output wire                    rsp_host_o,
    output wire [63:0]             rsp_pa_o,
    output wire                    rsp_cacheable_o,
    output wire                    rsp_vpr_o,
    output wire                    rsp_fault_o,
    output wire [3:0]              rsp_type_o,      // DMA_FAULT_STATUS.TYPE: 2 MMU, 3 bus
    output wire [2:0]              rsp_mmu_type_o,  // MC_FAULT_STATUS.TYPE for an MMU fault
    output wire                    idle_o,
    // MMU translation port (rtl/mc/mc_top)
    output wire                    mmu_req_valid_o,
    input  wire                    mmu_req_ready_i,
    output wire [47:0]             mmu_req_va_o,
    output wire                    mmu_req_write_o,
    output wire                    mmu_req_use_root_o,
    output wire [VramAddrBits-1:0] mmu_req_root_o,
    input  wire                    mmu_rsp_valid_i,
    output wire                    mmu_rsp_ready_o,
    input  wire [51:0]             mmu_rsp_pa_i,
    input  wire                    mmu_rsp_system_i,
    input  wire                    mmu_rsp_cacheable_i,
    input  wire                    mmu_rsp_fault_i,
    input  wire [2:0]              mmu_rsp_fault_type_i
);
    if (VramAddrBits < 13 || VramAddrBits > 48) begin : g_bad_vram
        `CMN_PARAM_ERROR("dma_xlate: VramAddrBits must be 13..48")
    end

    localparam [3:0] T_MMU = 4'd2;
    localparam [3:0] T_BUS = 4'd3;
    localparam [2:0] MMU_UNMAPPED = 3'd1;
    localparam [2:0] MMU_DECODE = 3'd3;

    typedef enum logic [1:0] {
        StIdle = 2'd0,
        StMmu  = 2'd1,   // request presented to the MMU
        StWait = 2'd2,   // waiting for the MMU's answer
        StRsp  = 2'd3    // answer to the requester
    } state_e;

    state_e       state_q, state_d;
    logic         who_q, who_d;      // requester being served
    logic         last_q, last_d;    // requester served last (round-robin)
    logic [63:0]  addr_q, addr_d;
    logic         write_q, write_d;
    logic         host_q, host_d;
    logic [63:0]  pa_q, pa_d;
    logic         cache_q, cache_d;
    logic         fault_q, fault_d;
    logic [3:0]   type_q, type_d;
    logic [2:0]   mmu_q, mmu_d;

    wire        pick = (req_valid_i[0] && req_valid_i[1]) ? !last_q : req_valid_i[1];
    wire [1:0]  space = pick ? req_space_i[3:2] : req_space_i[1:0];
    wire [63:0] addr = pick ? req_addr_i[127:64] : req_addr_i[63:0];
    wire        accept = (state_q == StIdle) && (req_valid_i != 2'b00);
    wire        root_far = use_root_i && root_i[51:VramAddrBits] != {(52-VramAddrBits){1'b0}};

    // A VRAM page from the MMU at or past the end of VRAM.
    wire        mmu_beyond = mmu_rsp_pa_i[51:VramAddrBits] != {(52-VramAddrBits){1'b0}} ||
                             {1'b0, mmu_rsp_pa_i[VramAddrBits-1:12]} >= vram_pages_i;

    assign req_ready_o = {accept && pick, accept && !pick};

    always_comb begin
        state_d = state_q;
        who_d = who_q;
        last_d = last_q;
        addr_d = addr_q;
        write_d = write_q;
        host_d = host_q;
        pa_d = pa_q;
        cache_d = cache_q;
        fault_d = fault_q;
        type_d = type_q;
        mmu_d = mmu_q;
        case (state_q)
            StIdle: if (accept) begin
                who_d = pick;
                last_d = pick;
                addr_d = addr;
                write_d = pick ? req_write_i[1] : req_write_i[0];
                host_d = 1'b0;
                pa_d = addr;
                cache_d = 1'b0;
                fault_d = 1'b0;
                type_d = 4'd0;
                mmu_d = 3'd0;
                state_d = StRsp;
                if (space == 2'd0) begin
                    if (addr[63:48] != 16'h0) begin
                        fault_d = 1'b1;
                        type_d = T_MMU;
                        mmu_d = MMU_UNMAPPED;
                    end else if (root_far) begin
                        fault_d = 1'b1;
                        type_d = T_MMU;
                        mmu_d = MMU_DECODE;
                    end else begin
                        state_d = StMmu;
                    end
                end else if (space == 2'd2) begin
                    host_d = 1'b1;
                end else if (addr[63:VramAddrBits] != {(64-VramAddrBits){1'b0}} ||
                             {1'b0, addr[VramAddrBits-1:12]} >= vram_pages_i) begin
                    fault_d = 1'b1;
                    type_d = T_BUS;
                end
            end
            StMmu: if (mmu_req_ready_i) state_d = StWait;
            StWait: if (mmu_rsp_valid_i) begin
                state_d = StRsp;
                host_d = mmu_rsp_system_i;
                pa_d = {12'h000, mmu_rsp_pa_i};
                cache_d = mmu_rsp_cacheable_i;
                fault_d = mmu_rsp_fault_i;
                type_d = mmu_rsp_fault_i ? T_MMU : 4'd0;
                mmu_d = mmu_rsp_fault_type_i;
                if (!mmu_rsp_fault_i && !mmu_rsp_system_i && mmu_beyond) begin
                    host_d = 1'b0;
                    pa_d = 64'd0;
                    cache_d = 1'b0;
                    fault_d = 1'b1;
                    type_d = T_MMU;
                    mmu_d = MMU_DECODE;
                end
            end
            StRsp: state_d = StIdle;
            default: state_d = StIdle;
        endcase
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            state_q <= StIdle;
            last_q <= 1'b0;
        end else begin
            state_q <= state_d;
            last_q <= last_d;
        end
        who_q <= who_d;
        addr_q <= addr_d;
        write_q <= write_d;
        host_q <= host_d;
        pa_q <= pa_d;
        cache_q <= cache_d;
        fault_q <= fault_d;
        type_q <= type_d;
        mmu_q <= mmu_d;
    end

    wire [VramAddrBits-13:0] page = pa_q[VramAddrBits-1:12];
    assign rsp_valid_o = {state_q == StRsp && who_q, state_q == StRsp && !who_q};
    assign rsp_host_o = host_q;
    assign rsp_pa_o = pa_q;
    assign rsp_cacheable_o = cache_q;
    assign rsp_vpr_o = !host_q && vpr_en_i && page >= vpr_base_i && page < vpr_limit_i;
    assign rsp_fault_o = fault_q;
    assign rsp_type_o = type_q;
    assign rsp_mmu_type_o = mmu_q;
    assign idle_o = state_q == StIdle;

    assign mmu_req_valid_o = state_q == StMmu;
    assign mmu_req_va_o = addr_q[47:0];
    assign mmu_req_write_o = write_q;
    assign mmu_req_use_root_o = use_root_i;
    assign mmu_req_root_o = root_i[VramAddrBits-1:0];
    assign mmu_rsp_ready_o = state_q == StWait;
endmodule
`default_nettype wire
