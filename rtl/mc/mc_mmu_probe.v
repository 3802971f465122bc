// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// mc_mmu_probe: translates one GPU virtual address on the host's request, through the same MMU
// and TLB the engines use, and keeps the answer for the host (MMU_PROBE_* registers). It lets
// a driver check a mapping (bring-up, conformance: a read-only mapping must refuse a write)
// without running an engine.
// Contract: go_i starts a translation of va_i (write_i: as a write; physical_i: no
// translation); a go_i while busy_o is ignored. The answer (pa, attributes, fault) is held from
// the cycle done_o rises until the next go_i. A fault also pulses fault_o with the VA.
module mc_mmu_probe #(
    parameter VaBits = 48
) (
    input  wire              clk_i,
    input  wire              rst_i,        // synchronous, active high
    input  wire              go_i,         // one-cycle start (MMU_PROBE_CTRL.GO)
    input  wire [VaBits-1:0] va_i,
    input  wire              write_i,
    input  wire              physical_i,
    output wire              busy_o,
    output wire              done_o,       // an answer is held
    output wire [51:0]       pa_o,
    output wire              system_o,
    output wire              cacheable_o,
    output wire [4:0]        page_shift_o,
    output wire              fault_o,      // the held answer is a fault
    output wire [2:0]        fault_type_o,
    output wire              fault_pulse_o, // one cycle, when a faulting answer arrives
    output wire [VaBits-1:0] fault_va_o,
    output wire              fault_write_o,
    // MMU translation port
    output wire              req_valid_o,
    input  wire              req_ready_i,
    output wire [VaBits-1:0] req_va_o,
    output wire              req_write_o,
    output wire              req_physical_o,
    input  wire              rsp_valid_i,
    output wire              rsp_ready_o,
    input  wire [51:0]       rsp_pa_i,
    input  wire              rsp_system_i,
    input  wire              rsp_cacheable_i,
    input  wire [4:0]        rsp_page_shift_i,
    input  wire              rsp_fault_i,
    input  wire [2:0]        rsp_fault_type_i
);
    typedef enum logic [1:0] {
        StIdle = 2'd0,
        StReq  = 2'd1,
        StWait = 2'd2
    } state_e;

    state_e              state_q, state_d;
    logic [VaBits-1:0]   va_q, va_d;
    logic                write_q, write_d, physical_q, physical_d;
    logic                done_q, done_d;
    logic [51:0]         pa_q, pa_d;
    logic                system_q, system_d, cacheable_q, cacheable_d;
    logic [4:0]          shift_q, shift_d;
    logic                fault_q, fault_d, pulse_q, pulse_d;
    logic [2:0]          type_q, type_d;

    always_comb begin
        state_d = state_q;
        va_d = va_q;
        write_d = write_q;
        physical_d = physical_q;
        done_d = done_q;
        pa_d = pa_q;
        system_d = system_q;
        cacheable_d = cacheable_q;
        shift_d = shift_q;
        fault_d = fault_q;
        type_d = type_q;
        pulse_d = 1'b0;
        case (state_q)
            StIdle: if (go_i) begin
                state_d = StReq;
                va_d = va_i;
                write_d = write_i;
                physical_d = physical_i;
                done_d = 1'b0;
            end
            StReq: if (req_ready_i) state_d = StWait;
            StWait: if (rsp_valid_i) begin
                state_d = StIdle;
                done_d = 1'b1;
                pa_d = rsp_pa_i;
                system_d = rsp_system_i;
                cacheable_d = rsp_cacheable_i;
                shift_d = rsp_page_shift_i;
                fault_d = rsp_fault_i;
                type_d = rsp_fault_type_i;
                pulse_d = rsp_fault_i;
            end
            default: state_d = StIdle;
        endcase
    end

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            state_q <= StIdle;
            done_q <= 1'b0;
            fault_q <= 1'b0;
            pulse_q <= 1'b0;
            va_q <= {VaBits{1'b0}};
            write_q <= 1'b0;
            physical_q <= 1'b0;
            pa_q <= 52'd0;
            system_q <= 1'b0;
            cacheable_q <= 1'b0;
            shift_q <= 5'd0;
            type_q <= 3'd0;
        end else begin
            state_q <= state_d;
            done_q <= done_d;
            fault_q <= fault_d;
            pulse_q <= pulse_d;
            va_q <= va_d;
            write_q <= write_d;
            physical_q <= physical_d;
            pa_q <= pa_d;
            system_q <= system_d;
            cacheable_q <= cacheable_d;
            shift_q <= shift_d;
            type_q <= type_d;
        end
    end

    assign busy_o = state_q != StIdle;
    assign done_o = done_q;
    assign pa_o = pa_q;
    assign system_o = system_q;
    assign cacheable_o = cacheable_q;
    assign page_shift_o = shift_q;
    assign fault_o = fault_q;
    assign fault_type_o = type_q;
    assign fault_pulse_o = pulse_q;
    assign fault_va_o = va_q;
    assign fault_write_o = write_q;
    assign req_valid_o = state_q == StReq;
    assign req_va_o = va_q;
    assign req_write_o = write_q;
    assign req_physical_o = physical_q;
    assign rsp_ready_o = state_q == StWait;
endmodule
`default_nettype wire
