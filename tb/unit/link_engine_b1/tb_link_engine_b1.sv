// SPDX-License-Identifier: Apache-2.0
// tb_link_engine_b1: tb_link_engine on an 8-bit PHY (link_engine PhyBytes = 1): frames go to
// the engine a byte per beat, garbage runs of odd byte counts make it hunt SYNC at every byte
// offset, and the device's bytes are packed back into words. 80 requests and 24 DMA bursts per
// phase; timers four times longer. Everything else as tb_link_engine.sv.
`define LINK_TB_NAME tb_link_engine_b1
`define LINK_TB_PB 1
`include "tb_link_engine.sv"
