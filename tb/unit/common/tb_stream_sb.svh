// SPDX-License-Identifier: Apache-2.0
// tb_stream_sb.svh: the link PHY benches' scoreboard of one direction of a byte or word stream
// (tb_link_phy_uart, tb_link_phy_ft245, tb_link_phy_ft601): what one end was given, in order,
// against what comes out of the other, none lost, repeated or extra. Included inside the
// testbench module (by its path from the tree's root, where the builds run).
//   `TB_STREAM_SB(D, WIDTH, DEPTH)   declares direction D: D_q (the last DEPTH words given),
//                                    D_sent, D_recv (the counts each way) and e_D (the words
//                                    that arrived wrong; the first five are printed)
//   `TB_SB_PUSH(D, V)                a word given at the sending end
//   `TB_SB_POP(D, GOT, BAD, WHAT)    a word out of the receiving end: wrong when BAD is set (a
//                                    side signal the bench checks, such as byte enables), when
//                                    nothing is outstanding, or when it is not the next word given
// The two are statements, not tasks: Icarus runs a task call as a thread of its own, which lets
// other processes woken at the same edge run in between and moves the benches' cycle counts.
// A bench that expects words to be dropped moves D_recv on past them itself.
`define TB_STREAM_SB(D, W, N) \
    localparam integer D``_depth = N; \
    logic [W-1:0] D``_q [0:N-1]; \
    integer D``_sent = 0, D``_recv = 0, e_``D = 0;
`define TB_SB_PUSH(D, V) \
    begin \
        D``_q[D``_sent % D``_depth] = V; \
        D``_sent = D``_sent + 1; \
    end
`define TB_SB_POP(D, GOT, BAD, WHAT) \
    begin \
        if ((BAD) || D``_recv >= D``_sent || (GOT) !== D``_q[D``_recv % D``_depth]) begin \
            if (e_``D < 5) $display("#   %s %0d: got %h expected %h", WHAT, D``_recv, GOT, \
                                    D``_q[D``_recv % D``_depth]); \
            e_``D = e_``D + 1; \
        end \
        D``_recv = D``_recv + 1; \
    end
