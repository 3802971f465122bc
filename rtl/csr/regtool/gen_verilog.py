# SPDX-License-Identifier: Apache-2.0
"""Writes csr_regs.v: the register file of a map, in the RTL subset gpuref allows."""
from model import CONST, HW_RO, RW, W1C, PULSE, W1S, SPDX

# The read mux is two steps, a clock edge apart (timing): inside a group of 2**GROUP_BITS words
# by the word's low bits, then among the groups.
GROUP_BITS = 5


def _name(reg, f, suffix):
    return f"{reg.name.lower()}_{f.name.lower()}_{suffix}"


def _vec(width):
    return f"[{width - 1}:0] " if width > 1 else ""


def _wbits(f):
    return f"wdata_i[{f.msb}:{f.lsb}]" if f.width > 1 else f"wdata_i[{f.lsb}]"


def generate(m, addr_bits: int) -> str:
    ports, decls, resets, strobes, writes, sets = [], [], [], [], [], []
    reads = {}  # per group of 2**GROUP_BITS words: its case items
    hard = []  # fields only a hard reset clears: their own clocked block
    for reg in m.registers:
        sel = f"sel_{reg.name.lower()}"
        decls.append(f"    wire {sel} = (word == {addr_bits - 2}'h{reg.offset >> 2:x});")
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
        group = reg.offset >> (2 + GROUP_BITS)
        reads.setdefault(group, []).append(
            f"            {GROUP_BITS}'h{(reg.offset >> 2) & ((1 << GROUP_BITS) - 1):x}: "
            f"rd_g{group:x} = {{{', '.join(reversed(word))}}};")
    decode = " |\n                   ".join(f"sel_{r.name.lower()}" for r in m.registers)
    clocked = strobes + ["            if (write_ok) begin"] + writes + ["            end"] + sets
    groups = sorted(reads)
    hib = addr_bits - 2 - GROUP_BITS  # word bits above a group's
    rd_decls = "\n".join(f"    logic [31:0] rd_g{g:x}, rd_g{g:x}_q;" for g in groups)
    rd_muxes = "\n".join(
        "        case (word_lo)\n" + "\n".join(reads[g]) +
        f"\n            default: rd_g{g:x} = 32'h0;\n        endcase" for g in groups)
    rd_loads = "\n".join(f"        rd_g{g:x}_q <= rd_g{g:x};" for g in groups) + "\n" + "\n".join(
        f"        rd_sel_q[{i}] <= (word_hi == {hib}'h{g:x});" for i, g in enumerate(groups))
    rd_or = " |\n                     ".join(
        f"({{32{{rd_sel_q[{i}]}}}} & rd_g{g:x}_q)" for i, g in enumerate(groups))
    return TEMPLATE.format(
        source=m.source, hash=m.hash, spdx=SPDX, abm1=addr_bits - 1, abm3=addr_bits - 3,
        ports="\n".join(ports), decls="\n".join(decls), decode=decode,
        reset="\n".join(resets), clocked="\n".join(clocked),
        glo=GROUP_BITS + 2, gbm1=GROUP_BITS - 1, gtop=GROUP_BITS + 1, gwords=1 << GROUP_BITS,
        ngm1=len(groups) - 1, hibm1=hib - 1, rd_decls=rd_decls, rd_muxes=rd_muxes,
        rd_loads=rd_loads, rd_or=rd_or,
        hard=("\n" + "\n".join(hard) + "\n") if hard else "")


TEMPLATE = """\
// Generated by rtl/csr/regtool from {source} (map hash 0x{hash:08x}). Do not edit: run `make regs`.
// SPDX-License-Identifier: {spdx}
`default_nettype none
// csr_regs: the register file of the gpuref BAR0 map.
// Contract: one access per cycle on the register bus. err_o is combinational, valid in the
// cycle of req_i; a write takes effect at the clock edge that ends that cycle. rdata_o is
// registered: in the cycle after a read's req_i it holds what the register read in req_i's
// cycle (the read mux picks inside a group of {gwords} words at that clock edge, and among the
// groups after it, so no path runs through the whole decode); it is meaningless otherwise.
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
    input  wire [31:0] wdata_i,
    input  wire [3:0] wstrb_i,
    output wire [31:0] rdata_o,
    output wire err_o,
{ports}
    output wire hit_o        // addr_i decodes to a register
);
    wire [{abm3}:0] word = addr_i[{abm1}:2];  // a plain vector: Icarus 11 wants no selects in always_*
    wire [{gbm1}:0] word_lo = addr_i[{gtop}:2];  // the word inside its group
    wire [{hibm1}:0] word_hi = addr_i[{abm1}:{glo}];  // the group
{decls}
{rd_decls}
    logic [{ngm1}:0] rd_sel_q;  // one-hot or zero: the group read
    wire unused_ok = ^{{addr_i[1:0], wdata_i}};  // reserved bits are ignored by design

    assign hit_o = {decode};
    assign err_o = req_i & (~hit_o | (we_i & (wstrb_i != 4'hf)));
    // Every write below is also gated by its register's select, which implies a hit: the
    // hole decode (an OR over every register) stays off the write enables.
    wire write_ok = req_i & we_i & (wstrb_i == 4'hf);

    // Reads, first step: each group's word, for the address of this cycle (a hole reads zero).
    always_comb begin
{rd_muxes}
    end
    always_ff @(posedge clk_i) begin  // no reset: rdata_o is read only after a read
{rd_loads}
    end
    // Second step: the group addressed (none: a hole, zero).
    assign rdata_o = {rd_or};

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
