// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// link_crc32: one 32-bit word of zlib's CRC-32 (polynomial 0x04C11DB7 reflected = 0xEDB88320),
// combinational, for the link framing (bridge/PROTOCOL.md).
// Contract: crc_i is the running register, not inverted: 32'hFFFF_FFFF before the first word.
// data_i is one word as it crosses the wire, byte 0 = data_i[7:0] first, each byte least
// significant bit first. crc_o is the register after the word; the CRC of the words so far
// (what zlib's crc32() returns and the frame carries) is ~crc_o.
module link_crc32 (
    input  wire [31:0] crc_i,
    input  wire [31:0] data_i,
    output wire [31:0] crc_o
);
    function automatic [31:0] crc_word(input [31:0] c, input [31:0] d);
        integer i;
        reg [31:0] x;
        begin
            x = c;
            for (i = 0; i < 32; i = i + 1)
                x = (x[0] ^ d[i]) ? ((x >> 1) ^ 32'hEDB8_8320) : (x >> 1);
            crc_word = x;
        end
    endfunction

    assign crc_o = crc_word(crc_i, data_i);
endmodule
`default_nettype wire
