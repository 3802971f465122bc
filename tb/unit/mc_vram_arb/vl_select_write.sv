// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// vl_select_write: the Verilator 5.006 scheduling bug that kept tb_mc_vram_arb off Verilator,
// reduced. A variable that a process with timing controls writes only through a bit select
// (here v[0], after #6) does not wake the logic that reads it: `any` stays 0 under Verilator
// 5.006 --timing, while Icarus (and the standard) has it follow v. Written whole (v = 2'b01),
// or once whole anywhere in the same process, the net follows. TAP, one test.
//   make vl-select-write      both simulators; Icarus passes, Verilator 5.006 fails
module vl_select_write;
    logic [1:0] v;
    wire any = |v;
    initial v = 2'b00;
    initial begin
        #6 v[0] = 1'b1;
        #1;
        $display("1..1");
        if (any) $display("ok 1 - |v follows a bit-select write of v (v=%b, any=%b)", v, any);
        else $display("not ok 1 - |v follows a bit-select write of v (v=%b, any=%b: stale)", v, any);
        $finish;
    end
endmodule
`default_nettype wire
