// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// tb_link_crc32: link_crc32 against zlib. The expected values below were computed with
// python3 -c 'import zlib, struct; print(hex(zlib.crc32(b"".join(struct.pack("<I", w)
// for w in WORDS))))' (words little endian, as they cross the wire). Then random words of the
// seed's stream against a byte-at-a-time model of zlib's crc32(), prefix by prefix.
// Output is TAP through the kit (tb/unit/common/tb_kit.svh); +seed=N picks the random words.
module tb_link_crc32;
    localparam integer PLAN = 7;
    logic [31:0] c_in, d_in;
    wire  [31:0] c_out;
    link_crc32 dut (.crc_i(c_in), .data_i(d_in), .crc_o(c_out));

`define TB_TOP tb_link_crc32
`include "tb/unit/common/tb_kit.svh"

    // zlib's crc32 one byte at a time (reflected, table-free)
    function automatic [31:0] ref_word(input [31:0] c, input [31:0] w);
        integer b, k;
        reg [31:0] x;
        begin
            x = c;
            for (b = 0; b < 4; b = b + 1) begin
                x = x ^ {24'd0, w[8*b +: 8]};
                for (k = 0; k < 8; k = k + 1) x = x[0] ? ((x >> 1) ^ 32'hEDB8_8320) : (x >> 1);
            end
            ref_word = x;
        end
    endfunction

    logic [31:0] words [0:15];
    task automatic run(input integer n, output [31:0] crc);
        integer i;
        reg [31:0] c;
        begin
            c = 32'hFFFF_FFFF;
            for (i = 0; i < n; i = i + 1) begin
                c_in = c;
                d_in = words[i];
                #1;
                c = c_out;
            end
            crc = ~c;
        end
    endtask

    initial begin
        integer i, j, bad;
        reg [31:0] got, x, r, w;
        tb_start(PLAN);
        rng_q = 64'h9E37_79B9_7F4A_7C15 ^ {32'd0, seed};  // the stream this bench always drew
        words[0] = 32'h0000_0000; run(1, got);
        check(got == 32'h2144_DF1C, "crc32 of one zero word = zlib 0x2144df1c");
        words[0] = 32'hFFFF_FFFF; run(1, got);
        check(got == 32'hFFFF_FFFF, "crc32 of ff ff ff ff = zlib 0xffffffff");
        words[0] = 32'h3433_3231; words[1] = 32'h3837_3635; run(2, got);
        check(got == 32'h9AE0_DAAF, "crc32 of \"12345678\" = zlib 0x9ae0daaf (byte 0 first)");
        words[0] = 32'h5AA5_5247; run(1, got);
        check(got == 32'h1071_B500, "crc32 of SYNC = zlib 0x1071b500");
        words[0] = 32'h0004_0110; words[1] = 32'h0000_0000; run(2, got);
        check(got == 32'h247F_A7E0, "HCRC of a HELLO header (LEN 4, REL, SEQ 0, ACK 0)");
        x = 32'h1;
        for (i = 0; i < 16; i = i + 1) begin
            x = x * 32'h9E37_79B9 + 32'h7F4A_7C15;
            words[i] = x;
        end
        run(16, got);
        check(got == 32'hF2B7_55B9, "crc32 of 16 words = zlib 0xf2b755b9");
        bad = 0;
        for (j = 0; j < 200; j = j + 1) begin
            r = 32'hFFFF_FFFF;
            for (i = 0; i < 16; i = i + 1) begin
                rnd32(w);
                words[i] = w;
                r = ref_word(r, words[i]);
                run(i + 1, got);
                if (got !== ~r) bad = bad + 1;  // an X word counts as wrong
            end
        end
        check(bad == 0, "200 random 16-word streams, every prefix, against the byte-wise model");
        tb_finish("");
    end
endmodule
`default_nettype wire
