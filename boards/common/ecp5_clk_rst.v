// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// ecp5_clk_rst: an ECP5 board top's core clock and reset. An EHXPLLL makes the core clock
// (CoreHz) from the board's oscillator (OscHz) on CLKOP, fed back through CLKOP; the core's reset
// is released ResetHold core cycles after the PLL has locked.
// Contract:
//   - The PLL arithmetic is checked at elaboration: OscHz / PllClkiDiv * PllClkfbDiv must be
//     CoreHz with OscHz a multiple of PllClkiDiv, the PFD (OscHz / PllClkiDiv) 3.125..400 MHz
//     and the VCO (CoreHz * PllClkopDiv) 400..800 MHz; ResetHold is 1..32. A failed check stops
//     elaboration.
//   - rst_o is high from power-up (the FPGA's configuration sets its flops' initial values)
//     until the PLL's LOCK has been seen high with hold_i low (through cmn_sync2, in the core
//     clock) for ResetHold core cycles, and high again whenever LOCK falls or hold_i rises (two
//     core cycles later, through the same synchronizer). There is no reset input besides hold_i.
//   - hold_i may be asynchronous (a button); tie it low where nothing holds the core.
//   - lock_o is the PLL's LOCK as it comes (for an LED), not synchronized.
module ecp5_clk_rst #(
    parameter OscHz       = 25000000,   // the oscillator on CLKI
    parameter CoreHz      = 30000000,   // clk_o
    parameter PllClkiDiv  = 5,
    parameter PllClkfbDiv = 6,
    parameter PllClkopDiv = 20,
    parameter ResetHold   = 16          // core cycles after LOCK before rst_o falls
) (
    input  wire osc_i,
    input  wire hold_i,
    output wire clk_o,
    output wire lock_o,
    output wire rst_o
);
    if (OscHz / PllClkiDiv * PllClkfbDiv != CoreHz || OscHz % PllClkiDiv != 0 ||
        OscHz / PllClkiDiv < 3125000 || OscHz / PllClkiDiv > 400000000 ||
        CoreHz * PllClkopDiv < 400000000 || CoreHz * PllClkopDiv > 800000000) begin : g_bad_pll
        `CMN_PARAM_ERROR("ecp5_clk_rst: the PLL settings do not make CoreHz from OscHz")
    end
    if (ResetHold < 1 || ResetHold > 32) begin : g_bad_hold
        `CMN_PARAM_ERROR("ecp5_clk_rst: ResetHold must be 1..32")
    end

    wire clk;
    wire pll_lock;

    EHXPLLL #(
        .CLKI_DIV(PllClkiDiv), .CLKFB_DIV(PllClkfbDiv), .CLKOP_DIV(PllClkopDiv),
        .CLKOP_CPHASE(PllClkopDiv - 1), .CLKOP_FPHASE(0), .CLKOP_ENABLE("ENABLED"),
        .FEEDBK_PATH("CLKOP")
    ) u_pll (
        .CLKI(osc_i), .CLKFB(clk), .PHASESEL1(1'b0), .PHASESEL0(1'b0), .PHASEDIR(1'b0),
        .PHASESTEP(1'b0), .PHASELOADREG(1'b0), .STDBY(1'b0), .PLLWAKESYNC(1'b0), .RST(1'b0),
        .ENCLKOP(1'b1), .ENCLKOS(1'b0), .ENCLKOS2(1'b0), .ENCLKOS3(1'b0),
        .CLKOP(clk), .CLKOS(), .CLKOS2(), .CLKOS3(), .LOCK(pll_lock), .INTLOCK(), .REFCLK(),
        .CLKINTFB());

    wire run_s;
    cmn_sync2 #(.Width(1)) u_lock_sync (.clk_i(clk), .d_i(pll_lock & !hold_i), .q_o(run_s));

    // Power-up: in reset (the FPGA's configuration sets these flops' initial values).
    reg [4:0] rst_cnt_q = 5'd0;
    reg       rst_q = 1'b1;
    always @(posedge clk) begin
        if (!run_s) begin
            rst_cnt_q <= 5'd0;
            rst_q <= 1'b1;
        end else if (rst_cnt_q != ResetHold[4:0] - 5'd1) begin
            rst_cnt_q <= rst_cnt_q + 5'd1;
        end else begin
            rst_q <= 1'b0;
        end
    end

    assign clk_o  = clk;
    assign lock_o = pll_lock;
    assign rst_o  = rst_q;
endmodule
`default_nettype wire
