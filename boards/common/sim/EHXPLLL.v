// SPDX-License-Identifier: Apache-2.0
`default_nettype none
`include "cmn_param.vh"
// EHXPLLL: simulation model of the Lattice ECP5 PLL primitive, for the board tops' simulation
// and lint (yosys and nextpnr use their own ECP5 cell). Ports and parameters keep the vendor's
// names and defaults (yosys' ecp5/cells_bb.v), so a top instantiates the real primitive.
// How it makes its output clock in a cycle-based harness: it does not synthesize a frequency.
// CLKOP is CLKI, and the harness drives the board oscillator pin at the period of the PLL's
// output (the core clock), so the core sees exactly the clock edges the harness schedules.
// The frequency arithmetic is the top's to prove: every top that uses this model states its
// oscillator and core frequencies and stops elaboration (in every tool, synthesis included)
// unless OscHz / CLKI_DIV * CLKFB_DIV == CoreHz with the PFD and VCO in the ECP5's ranges.
// Contract:
//   - Modelled: FEEDBK_PATH "CLKOP" (CLKFB unused: the feedback is internal), CLKOP only
//     (CLKOS..CLKOS3 must be "DISABLED" and stay low), CLKOP_CPHASE == CLKOP_DIV - 1 and
//     CLKOP_FPHASE == 0 (no phase shift, as ecppll sets them); anything else stops elaboration.
//     CLKI_DIV, CLKFB_DIV and CLKOP_DIV must be 1..128.
//   - LOCK rises after PLL_LOCK_DELAY rising CLKI edges with RST low and falls at once with RST
//     high; the count starts at power-up (the model's flops start at zero). INTLOCK equals LOCK.
//   - CLKOP toggles from power-up (a top holds its logic in reset until LOCK, as on the chip,
//     where the output before lock is not to be used). ENCLKOP low stops CLKOP (low).
//   - Not modelled: dynamic phase shift (PHASE* inputs), standby, REFCLK and CLKINTFB (low).
module EHXPLLL #(
    parameter CLKI_DIV = 1,
    parameter CLKFB_DIV = 1,
    parameter CLKOP_DIV = 8,
    parameter CLKOS_DIV = 8,
    parameter CLKOS2_DIV = 8,
    parameter CLKOS3_DIV = 8,
    parameter CLKOP_ENABLE = "ENABLED",
    parameter CLKOS_ENABLE = "DISABLED",
    parameter CLKOS2_ENABLE = "DISABLED",
    parameter CLKOS3_ENABLE = "DISABLED",
    parameter CLKOP_CPHASE = 0,
    parameter CLKOS_CPHASE = 0,
    parameter CLKOS2_CPHASE = 0,
    parameter CLKOS3_CPHASE = 0,
    parameter CLKOP_FPHASE = 0,
    parameter CLKOS_FPHASE = 0,
    parameter CLKOS2_FPHASE = 0,
    parameter CLKOS3_FPHASE = 0,
    parameter FEEDBK_PATH = "CLKOP",
    parameter CLKOP_TRIM_POL = "RISING",
    parameter CLKOP_TRIM_DELAY = 0,
    parameter CLKOS_TRIM_POL = "RISING",
    parameter CLKOS_TRIM_DELAY = 0,
    parameter OUTDIVIDER_MUXA = "DIVA",
    parameter OUTDIVIDER_MUXB = "DIVB",
    parameter OUTDIVIDER_MUXC = "DIVC",
    parameter OUTDIVIDER_MUXD = "DIVD",
    parameter PLL_LOCK_MODE = 0,
    parameter PLL_LOCK_DELAY = 200,
    parameter STDBY_ENABLE = "DISABLED",
    parameter REFIN_RESET = "DISABLED",
    parameter SYNC_ENABLE = "DISABLED",
    parameter INT_LOCK_STICKY = "ENABLED",
    parameter DPHASE_SOURCE = "DISABLED",
    parameter PLLRST_ENA = "DISABLED",
    parameter INTFB_WAKE = "DISABLED"
) (
    input  wire CLKI,
    input  wire CLKFB,
    input  wire PHASESEL1,
    input  wire PHASESEL0,
    input  wire PHASEDIR,
    input  wire PHASESTEP,
    input  wire PHASELOADREG,
    input  wire STDBY,
    input  wire PLLWAKESYNC,
    input  wire RST,
    input  wire ENCLKOP,
    input  wire ENCLKOS,
    input  wire ENCLKOS2,
    input  wire ENCLKOS3,
    output wire CLKOP,
    output wire CLKOS,
    output wire CLKOS2,
    output wire CLKOS3,
    output wire LOCK,
    output wire INTLOCK,
    output wire REFCLK,
    output wire CLKINTFB
);
    if (FEEDBK_PATH != "CLKOP" || CLKOP_ENABLE != "ENABLED") begin : g_bad_fb
        `CMN_PARAM_ERROR("EHXPLLL model: only FEEDBK_PATH CLKOP with CLKOP enabled is modelled")
    end
    if (CLKOS_ENABLE != "DISABLED" || CLKOS2_ENABLE != "DISABLED" || CLKOS3_ENABLE != "DISABLED") begin : g_bad_os
        `CMN_PARAM_ERROR("EHXPLLL model: CLKOS, CLKOS2 and CLKOS3 are not modelled")
    end
    if (CLKI_DIV < 1 || CLKI_DIV > 128 || CLKFB_DIV < 1 || CLKFB_DIV > 128 ||
        CLKOP_DIV < 1 || CLKOP_DIV > 128) begin : g_bad_div
        `CMN_PARAM_ERROR("EHXPLLL model: CLKI_DIV, CLKFB_DIV and CLKOP_DIV must be 1..128")
    end
    if (CLKOP_CPHASE != CLKOP_DIV - 1 || CLKOP_FPHASE != 0) begin : g_bad_phase
        `CMN_PARAM_ERROR("EHXPLLL model: CLKOP_CPHASE must be CLKOP_DIV - 1, CLKOP_FPHASE 0")
    end
    if (PLL_LOCK_DELAY < 1 || PLL_LOCK_DELAY > 65535) begin : g_bad_lock
        `CMN_PARAM_ERROR("EHXPLLL model: PLL_LOCK_DELAY must be 1..65535")
    end

    // Power-up state: counting from zero, not locked (the chip's GSR clears it likewise).
    reg [15:0] pll_cnt_q = 16'd0;
    reg        pll_lock_q = 1'b0;

    always @(posedge CLKI) begin
        if (RST) begin
            pll_cnt_q <= 16'd0;
            pll_lock_q <= 1'b0;
        end else if (!pll_lock_q) begin
            pll_cnt_q <= pll_cnt_q + 16'd1;
            pll_lock_q <= pll_cnt_q == PLL_LOCK_DELAY - 1;
        end
    end

    assign CLKOP = CLKI & ENCLKOP;
    assign CLKOS = 1'b0;
    assign CLKOS2 = 1'b0;
    assign CLKOS3 = 1'b0;
    assign LOCK = pll_lock_q;
    assign INTLOCK = pll_lock_q;
    assign REFCLK = 1'b0;
    assign CLKINTFB = 1'b0;
endmodule
`default_nettype wire
