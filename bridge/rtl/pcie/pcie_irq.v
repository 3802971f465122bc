// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// pcie_irq: gpu_core's level interrupt (irq_i) as MSI, or as legacy INTA when MSI is off, on the
// UltraScale+ PCIe4 hard IP's interrupt interface.
// Contract:
//   - MSI enabled (cfg_interrupt_msi_enable_i[0], PF0): a rising edge of irq_i asks for MSI
//     vector 0 (cfg_interrupt_msi_int_o[0] high for one cycle), then waits for the hard IP's
//     cfg_interrupt_msi_sent_i or _fail_i; a failed message is asked again after RetryCycles.
//     rearm_i (one cycle: the host wrote a BAR0 register, e.g. the ISR acknowledged IRQ_STATE)
//     asks for another message if irq_i is still high RearmDelay cycles later (gpu_core's
//     irq_o follows a write a cycle or two after its B response) and no rising edge came in
//     between, so a source that became pending while the line stayed high is not lost, an
//     acknowledge that lowers the line sends nothing, and a write that raises it sends one.
//   - MSI disabled: cfg_interrupt_int_o[0] (INTA) follows irq_i (the hard IP sends
//     Assert_INTA/Deassert_INTA on its edges); cfg_interrupt_pending_o[0] = irq_i in both modes.
//   - msi_count_o counts MSI messages sent (16-bit, wrapping).
module pcie_irq #(
    parameter RetryCycles = 64,
    parameter RearmDelay  = 8      // 2..255
) (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        irq_i,
    input  wire        rearm_i,
    input  wire [3:0]  cfg_interrupt_msi_enable_i,
    input  wire        cfg_interrupt_msi_sent_i,
    input  wire        cfg_interrupt_msi_fail_i,
    output wire [31:0] cfg_interrupt_msi_int_o,
    output wire [3:0]  cfg_interrupt_int_o,
    output wire [3:0]  cfg_interrupt_pending_o,
    input  wire        cfg_interrupt_sent_i,
    output wire [15:0] msi_count_o
);
    localparam [1:0] StIdle = 2'd0, StAsk = 2'd1, StWait = 2'd2, StRetry = 2'd3;
    logic [1:0]  st_q;
    logic        irq_q, want_q;
    logic [15:0] cnt_q, tmr_q;
    logic [7:0]  rearm_q;           // counts down after rearm_i; 1: look at irq_i
    wire msi_en = cfg_interrupt_msi_enable_i[0];

    assign cfg_interrupt_msi_int_o = {31'd0, st_q == StAsk};
    assign cfg_interrupt_int_o     = {3'd0, irq_i && !msi_en};
    assign cfg_interrupt_pending_o = {3'd0, irq_i};
    assign msi_count_o = cnt_q;

    always_ff @(posedge clk_i) begin
        if (rst_i) begin
            st_q <= StIdle;
            irq_q <= 1'b0;
            want_q <= 1'b0;
            rearm_q <= 8'd0;
            cnt_q <= 16'd0;
            tmr_q <= 16'd0;
        end else begin
            irq_q <= irq_i;
            if (irq_i && !irq_q) rearm_q <= 8'd0;       // the write raised the line: one MSI
            else if (rearm_i) rearm_q <= RearmDelay[7:0];
            else if (rearm_q != 8'd0) rearm_q <= rearm_q - 8'd1;
            if (msi_en && ((irq_i && !irq_q) || (rearm_q == 8'd1 && irq_i))) want_q <= 1'b1;
            case (st_q)
                StIdle: if (want_q && msi_en) begin
                    want_q <= 1'b0;
                    st_q <= StAsk;
                end
                StAsk: st_q <= StWait;
                StWait: begin
                    if (cfg_interrupt_msi_sent_i) begin
                        cnt_q <= cnt_q + 16'd1;
                        st_q <= StIdle;
                    end else if (cfg_interrupt_msi_fail_i) begin
                        tmr_q <= 16'd0;
                        st_q <= StRetry;
                    end
                end
                StRetry: begin
                    tmr_q <= tmr_q + 16'd1;
                    if (tmr_q >= RetryCycles - 1) st_q <= (irq_i && msi_en) ? StAsk : StIdle;
                end
                default: st_q <= StIdle;
            endcase
            if (!msi_en) want_q <= 1'b0;
        end
    end

    wire unused = ^{cfg_interrupt_msi_enable_i[3:1], cfg_interrupt_sent_i};
endmodule
`default_nettype wire
