# SPDX-License-Identifier: Apache-2.0
# sim/harness/verilated_lib.mk: read by make after the Verilator-generated V<top>.mk (see
# sim/sim.mk), to build the Verilator run-time library next to the model with the same flags:
# Verilator 5.006's --build makes only V<top>__ALL.a and leaves libverilated.a to the user.
libverilated.a: $(VK_GLOBAL_OBJS)
