// SPDX-License-Identifier: Apache-2.0
// tb_sdr_ctrl_cl2: tb_sdr_ctrl at 100 MHz and CAS latency 2 (the other mode the -7 part runs
// in), with one more DQ input register in the controller (ReadDelay 1); see
// tb/unit/sdr_ctrl/tb_sdr_ctrl.sv.
/* verilator lint_off DECLFILENAME */
`define SDR_TB_NAME tb_sdr_ctrl_cl2
`define SDR_TCK_PS 10000
`define SDR_CL 2
`define SDR_READ_DELAY 1
`include "tb_sdr_ctrl.sv"
