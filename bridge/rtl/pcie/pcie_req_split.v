// SPDX-License-Identifier: Apache-2.0
`default_nettype none
// pcie_req_split: how many bytes the next request TLP of a transfer may carry.
// Contract (combinational): len_o = min(bytes_i, limit - (addr_i mod limit)), limit =
// 128 << limit_sel_i bytes (Max_Payload_Size for writes, Max_Read_Request_Size for reads; the
// PCIe encoding, 0..5 = 128..4096). Since the limit divides 4096, no TLP crosses a 4 KiB
// boundary, and every TLP after the first of a transfer starts limit-aligned (so completions of
// reads split at the completer's RCB stay whole). bytes_i: 1..4096; limit_sel_i 6 and 7 are
// treated as 5 (reserved encodings).
module pcie_req_split (
    input  wire [11:0] addr_i,        // byte address bits [11:0] of the TLP's first byte
    input  wire [12:0] bytes_i,       // bytes still to transfer
    input  wire [2:0]  limit_sel_i,
    output wire [12:0] len_o
);
    wire [2:0]  sel   = (limit_sel_i > 3'd5) ? 3'd5 : limit_sel_i;
    wire [12:0] limit = 13'd128 << sel;
    wire [12:0] used  = {1'b0, addr_i} & (limit - 13'd1);
    wire [12:0] room  = limit - used;
    assign len_o = (bytes_i < room) ? bytes_i : room;
endmodule
`default_nettype wire
