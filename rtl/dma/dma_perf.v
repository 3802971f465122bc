// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// dma_perf: the DMA engine's clocks: the free-running timestamp, the watchdog and the
// performance counters (DMA_TIMESTAMP_*, DMA_WATCHDOG, DMA_PERF_*).
// Contract: every counter wraps; clear_i (core soft reset) zeroes them all as rst_i does.
// hang_o is high while armed_i has been high for `watchdog_i` cycles with no progress_i
// (0 disables it; each progress_i counts from the cycle after it); the caller disarms it.
// ts_lo_read_i (a read of DMA_TIMESTAMP_LO) latches the high word that timestamp_reg_o shows
// beside the live low word.
module dma_perf (
    input  wire        clk_i,
    input  wire        rst_i,        // synchronous, active high
    input  wire        clear_i,
    input  wire        busy_i,       // an entry is in progress
    input  wire        armed_i,      // the watchdog counts
    input  wire        progress_i,
    input  wire [31:0] watchdog_i,
    output wire        hang_o,
    input  wire        bytes_i,      // 8 bytes of a COPY or FILL were written
    input  wire        stall_i,
    input  wire        cmd_done_i,   // a command completed ...
    input  wire [63:0] cmd_start_i,  // ... whose fetch began at this timestamp
    input  wire        ts_lo_read_i,
    output wire [63:0] timestamp_o,
    output wire [63:0] timestamp_reg_o,
    output wire [31:0] busy_o,
    output wire [63:0] bytes_o,
    output wire [31:0] stalls_o,
    output wire [31:0] cmds_o,
    output wire [31:0] last_cmd_o
);
    logic [63:0] ts_q;
    logic [31:0] ts_hi_q;
    logic [31:0] wd_q;
    logic [31:0] busy_q, stalls_q, cmds_q, last_q;
    logic [63:0] bytes_q;
    // hang_o starts dma_seq's priority chain, so it comes from registers and armed_i alone:
    // wd_hit_q says wd_q >= watchdog_i - 1, from the count and limit of the cycle before;
    // wlim_q and wd_on_q follow DMA_WATCHDOG a cycle late, and prog_q is progress_i a cycle
    // late (the data mover's progress is its bus handshakes of the cycle).
    logic [31:0] wlim_q;
    logic        wd_on_q, wd_hit_q, prog_q;

    wire        wd_run = armed_i && !prog_q && wd_on_q;
    wire [31:0] wd_d = (wd_run && !hang_o) ? wd_q + 32'd1 : 32'd0;

    always_ff @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            ts_q <= 64'd0;
            ts_hi_q <= 32'd0;
            wd_q <= 32'd0;
            wd_hit_q <= 1'b0;
            prog_q <= 1'b0;
            busy_q <= 32'd0;
            stalls_q <= 32'd0;
            cmds_q <= 32'd0;
            last_q <= 32'd0;
            bytes_q <= 64'd0;
        end else begin
            ts_q <= ts_q + 64'd1;
            if (ts_lo_read_i) ts_hi_q <= ts_q[63:32];
            wd_q <= wd_d;
            wd_hit_q <= wd_d >= wlim_q;
            prog_q <= progress_i;
            if (busy_i) busy_q <= busy_q + 32'd1;
            if (busy_i && stall_i) stalls_q <= stalls_q + 32'd1;
            if (bytes_i) bytes_q <= bytes_q + 64'd8;
            if (cmd_done_i) begin
                cmds_q <= cmds_q + 32'd1;
                last_q <= ts_q[31:0] - cmd_start_i[31:0];
            end
        end
    end

    always_ff @(posedge clk_i) begin
        wlim_q <= watchdog_i - 32'd1;
        wd_on_q <= watchdog_i != 32'd0;
    end

    assign hang_o = wd_run && wd_hit_q;
    assign timestamp_o = ts_q;
    assign timestamp_reg_o = {ts_hi_q, ts_q[31:0]};
    assign busy_o = busy_q;
    assign bytes_o = bytes_q;
    assign stalls_o = stalls_q;
    assign cmds_o = cmds_q;
    assign last_cmd_o = last_q;

    wire unused_ok = ^{cmd_start_i[63:32]};  // latency is kept modulo 2^32
endmodule
`default_nettype wire
