// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_pcie_req_split: pcie_req_split, the rule that cuts a transfer into request TLPs. Every
// limit (128..4096 bytes, and the reserved encodings 6 and 7 as 4096) with fixed cases, then
// random transfers of the seed's stream cut TLP by TLP: each TLP at least one byte and at most
// the limit, none crossing a 4 KiB boundary, every one after the first starting limit-aligned,
// the lengths adding up to the transfer. Output is TAP; +seed=N picks the transfers (default 1).
module tb_pcie_req_split;
    localparam integer PLAN = 6;
    logic [11:0] addr;
    logic [12:0] bytes;
    logic [2:0]  sel;
    wire  [12:0] len;
    pcie_req_split dut (.addr_i(addr), .bytes_i(bytes), .limit_sel_i(sel), .len_o(len));

    // ---- seed, waves, TAP checks: the kit --------------------------------------------
`define TB_TOP tb_pcie_req_split
`include "tb/unit/common/tb_kit.svh"

    logic [63:0] rs;
    function automatic [31:0] rnd();
        rs = rs ^ (rs >> 12);
        rs = rs ^ (rs << 25);
        rs = rs ^ (rs >> 27);
        rnd = 32'(((rs * 64'h2545_F491_4F6C_DD1D) >> 32));
    endfunction

    task automatic cut(input [11:0] a, input [12:0] b, input [2:0] s, output [12:0] l);
        begin
            addr = a;
            bytes = b;
            sel = s;
            #1;
            l = len;
        end
    endtask

    initial begin
        integer j, bad_len, bad_4k, bad_align, bad_sum, lim, s;
        reg [63:0] a, first_a;
        reg [12:0] l, l2, total, left;
        tb_start(PLAN);
        rs = 64'h9E37_79B9_7F4A_7C15 ^ {32'd0, seed};
        cut(12'h000, 13'd4096, 3'd0, l); cut(12'h000, 13'd4096, 3'd5, l2);
        check(l == 13'd128 && l2 == 13'd4096, "aligned: the limit (128 and 4096 bytes)");
        cut(12'h040, 13'd4096, 3'd0, l); cut(12'hf00, 13'd4096, 3'd5, l2);
        check(l == 13'd64 && l2 == 13'd256,
              "unaligned: up to the next limit-aligned address (64 of 128; 256 to the 4 KiB edge)");
        cut(12'h010, 13'd8, 3'd2, l); cut(12'hff8, 13'd1, 3'd1, l2);
        check(l == 13'd8 && l2 == 13'd1, "short transfers go whole");
        cut(12'h000, 13'd4096, 3'd6, l); cut(12'h000, 13'd4096, 3'd7, l2);
        check(l == 13'd4096 && l2 == 13'd4096, "reserved encodings 6 and 7 act as 4096");
        bad_len = 0; bad_4k = 0; bad_align = 0; bad_sum = 0;
        for (j = 0; j < 2000; j = j + 1) begin
            s = rnd() % 6;
            lim = 128 << s;
            first_a = {32'd0, rnd()} & 64'h0000_0000_ffff_fffc;
            total = 13'(rnd() % 4096 + 1);
            a = first_a;
            left = total;
            while (left != 0) begin
                cut(a[11:0], left, s[2:0], l);
                if (l == 0 || l > lim[12:0] || l > left) begin
                    bad_len = bad_len + 1;
                    l = left;
                end
                if (((a + {51'd0, l} - 64'd1) >> 12) != (a >> 12)) bad_4k = bad_4k + 1;
                if (a != first_a && (a % {32'd0, lim}) != 0) bad_align = bad_align + 1;
                a = a + {51'd0, l};
                left = left - l;
            end
            if (a != first_a + {51'd0, total}) bad_sum = bad_sum + 1;
        end
        check(bad_len == 0 && bad_sum == 0,
              "2000 random transfers: every TLP 1..limit bytes, lengths add up to the transfer");
        check(bad_4k == 0 && bad_align == 0,
              "no TLP crosses 4 KiB; every TLP after the first starts limit-aligned");
        tb_finish("");
    end
endmodule
`default_nettype wire
