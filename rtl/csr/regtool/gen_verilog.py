# SPDX-License-Identifier: Apache-2.0
"""Writes csr_regs.v: the register file of a map, in the RTL subset gpuref allows."""
from model import CONST, HW_RO, RW, W1C, PULSE, W1S, SPDX


def _name(reg, f, suffix):
    return f"{reg.name.lower()}_{f.name.lower()}_{suffix}"


def _vec(width):
    return f"[{width - 1}:0] " if width > 1 else ""


def _wbits(f):
    return f"wdata_i[{f.msb}:{f.lsb}]" if f.width > 1 else f"wdata_i[{f.lsb}]"


def generate(m, addr_bits: int) -> str:
    ports, decls, resets, strobes, writes, sets, reads = [], [], [], [], [], [], []
    rsels = []  # each register's read select, decoded a cycle ahead from next_addr_i
    hard = []  # fields only a hard reset clears: their own clocked block
    for reg in m.registers:
        sel = f"sel_{reg.name.lower()}"
        decls.append(f"    wire {sel} = (word == {addr_bits - 2}'h{reg.offset >> 2:x});")
        rsel = f"rsel_{reg.name.lower()}_q"
        decls.append(f"    logic {rsel};")
        rsels.append(f"        {rsel} <= (next_word == {addr_bits - 2}'h{reg.offset >> 2:x});")
        parts = []
        for f in reg.fields:
            w, q = f.width, _name(reg, f, "q")
            if f.swacc:
                # SystemRDL swacc: a strobe in the cycle the register is read (not on a write).
                ports.append(f"    output wire {_name(reg, f, 'swacc_o')},  // read strobe")
                decls.append(f"    assign {_name(reg, f, 'swacc_o')} = req_i & ~we_i & {sel};")
            if f.kind == CONST:
                parts.append((f.lsb, f"{w}'h{f.reset:x}"))
                continue
            if f.kind == HW_RO:
                ports.append(f"    input  wire {_vec(w)}{_name(reg, f, 'i')},")
                parts.append((f.lsb, _name(reg, f, "i")))
                continue
            decls.append(f"    logic {_vec(w)}{q};")
            # swwel: a software write lands only while the locking field is 0, whatever the kind.
            cond = f"{sel} && !{f.lock.lower()}_q" if f.lock else sel
            if f.hard_reset_only:
                value = f"{q} | {_wbits(f)}" if f.kind == W1S else _wbits(f)
                hard.append(f"    always_ff @(posedge clk_i) begin  // kept across a soft reset\n"
                            f"        if (rst_i) {q} <= {w}'h{f.reset:x};\n"
                            f"        else if (write_ok && !soft_rst_i && {cond}) {q} <= {value};\n"
                            f"    end")
                parts.append((f.lsb, q))
            elif f.kind == W1S:
                resets.append(f"            {q} <= {w}'h{f.reset:x};")
                writes.append(f"                if ({cond}) {q} <= {q} | {_wbits(f)};")
                parts.append((f.lsb, q))
            elif f.kind == RW:
                resets.append(f"            {q} <= {w}'h{f.reset:x};")
                writes.append(f"                if ({cond}) {q} <= {_wbits(f)};")
                parts.append((f.lsb, q))
            elif f.kind == PULSE:
                # A strobe, not state: high for the one cycle after a write of 1, reads zero.
                resets.append(f"            {q} <= {w}'h{f.reset:x};")
                strobes.append(f"            {q} <= {w}'h0;")
                writes.append(f"                if ({cond}) {q} <= {_wbits(f)};")
            elif f.kind == W1C:
                resets.append(f"            {q} <= {w}'h{f.reset:x};")
                ports.append(f"    input  wire {_vec(w)}{_name(reg, f, 'set_i')},"
                             "  // wins over a clear in the same cycle")
                writes.append(f"                if ({cond}) {q} <= {q} & ~{_wbits(f)};")
                sets.append(f"            if (|{_name(reg, f, 'set_i')}) "
                            f"{q} <= {q} & ~({{{w}{{write_ok & {cond}}}}} & {_wbits(f)}) "
                            f"| {_name(reg, f, 'set_i')};")
                parts.append((f.lsb, q))
            if f.hw_readable:
                ports.append(f"    output wire {_vec(w)}{_name(reg, f, 'o')},")
                decls.append(f"    assign {_name(reg, f, 'o')} = {q};")
        word, pos = [], 0
        widths = {fl.lsb: fl for fl in reg.fields}
        for lsb, value in sorted(parts):
            if lsb > pos:
                word.append(f"{lsb - pos}'h0")
            word.append(value)
            pos = widths[lsb].msb + 1
        if pos < 32:
            word.append(f"{32 - pos}'h0")
        reads.append(f"        rdata_o = rdata_o | ({{32{{{rsel}}}}} & {{{', '.join(reversed(word))}}});")
    decode = " |\n                   ".join(f"sel_{r.name.lower()}" for r in m.registers)
    clocked = strobes + ["            if (write_ok) begin"] + writes + ["            end"] + sets
    return TEMPLATE.format(
        source=m.source, hash=m.hash, spdx=SPDX, abm1=addr_bits - 1, abm3=addr_bits - 3,
        ports="\n".join(ports), decls="\n".join(decls), decode=decode,
        reset="\n".join(resets), clocked="\n".join(clocked),
        reads="\n".join(reads), rsels="\n".join(rsels),
        hard=("\n" + "\n".join(hard) + "\n") if hard else "")


TEMPLATE = """\
// Generated by rtl/csr/regtool from {source} (map hash 0x{hash:08x}). Do not edit: run `make regs`.
// SPDX-License-Identifier: {spdx}
`default_nettype none
// csr_regs: the register file of the gpuref BAR0 map.
// Contract: one access per cycle on the register bus. rdata_o and err_o are combinational,
// valid in the cycle of req_i; a write takes effect at the clock edge that ends that cycle.
// A read's address is also on next_addr_i in the cycle before its req_i: the read mux selects
// with a decode of it registered then, so that no address compare is on the read data's path
// (rdata_o is meaningless in a read whose address was not there). A hole reads zero.
// err_o flags a hole, or a write whose strobes are not all set; such a write changes nothing.
// Reserved bits and strobe fields read zero; writes to read-only fields are ignored.
// soft_rst_i returns every field to its reset value, as rst_i does, except the fields marked
// gr_hard_reset_only in the map (the VPR and its lock), which only rst_i resets; no write
// lands while soft_rst_i is high. A field marked swacc has a *_swacc_o strobe, high in the cycle
// its register is read.
module csr_regs (
    input  wire clk_i,
    input  wire rst_i,       // synchronous, active high
    input  wire soft_rst_i,  // core soft reset, synchronous, active high
    input  wire req_i,
    input  wire we_i,
    input  wire [{abm1}:0] addr_i,  // byte address; bits [1:0] are ignored
    input  wire [{abm1}:0] next_addr_i,  // the next read's addr_i, a cycle ahead
    input  wire [31:0] wdata_i,
    input  wire [3:0] wstrb_i,
    output logic [31:0] rdata_o,
    output wire err_o,
{ports}
    output wire hit_o        // addr_i decodes to a register
);
    wire [{abm3}:0] word = addr_i[{abm1}:2];  // a plain vector: Icarus 11 wants no selects in always_*
    wire [{abm3}:0] next_word = next_addr_i[{abm1}:2];
{decls}
    wire unused_ok = ^{{addr_i[1:0], next_addr_i[1:0], wdata_i}};  // ignored by design

    assign hit_o = {decode};
    assign err_o = req_i & (~hit_o | (we_i & (wstrb_i != 4'hf)));
    // Every write below is also gated by its register's select, which implies a hit: the
    // hole decode (an OR over every register) stays off the write enables.
    wire write_ok = req_i & we_i & (wstrb_i == 4'hf);

    always_ff @(posedge clk_i) begin
{rsels}
    end
    // (an OR of the selected registers in a process: Verilator 5.006 fails an internal check
    // on the same OR as one continuous assignment when it lints the U200 top)
    always_comb begin
        rdata_o = 32'h0;
{reads}
    end

    always_ff @(posedge clk_i) begin
        if (rst_i || soft_rst_i) begin
{reset}
        end else begin
{clocked}
        end
    end
{hard}endmodule
`default_nettype wire
"""
