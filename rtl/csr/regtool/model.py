# SPDX-License-Identifier: Apache-2.0
"""Register model: the elaborated SystemRDL map reduced to what gpuref's generators need."""
from dataclasses import dataclass, field
from typing import List

from systemrdl import RDLCompileError, RDLCompiler
from systemrdl.rdltypes import AccessType, OnWriteType, PrecedenceType

# Field kinds. Each generator maps these, so a map that needs another kind fails here
# with a clear message instead of producing RTL that silently differs from the C side.
CONST = "const"      # sw=r, hw=na: a constant (its reset value)
HW_RO = "hw_ro"      # sw=r, hw=w: read-only, driven by hardware
RW = "rw"            # sw=rw: storage written by software
W1C = "w1c"          # sw=rw, onwrite=woclr, hwset: interrupt-style state
PULSE = "pulse"      # sw=rw, singlepulse: a one-cycle strobe, reads zero
W1S = "w1s"          # sw=rw, onwrite=woset: sticky; once set, only a hard reset clears it

# The licence every generated file names in its SPDX-License-Identifier line (LICENSE).
SPDX = "Apache-2.0"


@dataclass
class Field:
    name: str
    lsb: int
    width: int
    kind: str
    reset: int
    desc: str
    hw_readable: bool
    lock: str = ""            # "REG_FIELD": writes are ignored while that field is 1 (swwel)
    hard_reset_only: bool = False  # a core soft reset leaves it alone
    swacc: bool = False       # the hardware gets a strobe in the cycle the register is read
    volatile: bool = False    # changes by itself (gr_volatile): never compared across reads
    action: bool = False      # a strobe that makes the device access memory (gr_action)

    @property
    def msb(self):
        return self.lsb + self.width - 1

    @property
    def mask(self):
        return ((1 << self.width) - 1) << self.lsb


@dataclass
class Register:
    name: str
    offset: int
    title: str
    desc: str
    fields: List[Field] = field(default_factory=list)

    @property
    def reset(self):
        return sum(f.reset << f.lsb for f in self.fields)

    @property
    def mask(self):
        return sum(f.mask for f in self.fields)


@dataclass
class RegMap:
    name: str
    source: str
    hash: int
    registers: List[Register]
    root: object  # the elaborated RootNode, for PeakRDL exporters


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def _kind(f, path):
    sw, hw = f.get_property("sw"), f.get_property("hw")
    onwrite = f.get_property("onwrite")
    if f.get_property("singlepulse"):
        if sw != AccessType.rw:
            raise ValueError(f"{path}: singlepulse needs sw=rw")
        return PULSE
    if onwrite == OnWriteType.woclr:
        if not f.get_property("hwset") or f.get_property("precedence") != PrecedenceType.hw:
            raise ValueError(f"{path}: woclr fields must be hwset with precedence=hw "
                             "(an event in the clearing cycle must not be lost)")
        return W1C
    if onwrite == OnWriteType.woset:
        if sw != AccessType.rw or f.get_property("hwset") or f.get_property("hwclr"):
            raise ValueError(f"{path}: woset fields must be sw=rw with no hardware set or clear")
        return W1S
    if onwrite is not None:
        raise ValueError(f"{path}: onwrite={onwrite.name} is not supported")
    if sw == AccessType.r and hw == AccessType.na:
        return CONST
    if sw == AccessType.r and hw == AccessType.w:
        return HW_RO
    if sw == AccessType.rw and hw in (AccessType.r, AccessType.na):
        return RW
    raise ValueError(f"{path}: sw={sw.name} hw={hw.name} is not supported")


def load(path: str) -> RegMap:
    # The hash is the map's identity: a licence line in the source is not part of it (the hash,
    # and with it the RTL's ID_REGMAP, stays the same whether gpu_regs.rdl carries one or not).
    with open(path, "rb") as fh:
        digest = fnv1a32(b"".join(line for line in fh.readlines()
                                  if b"SPDX-License-Identifier:" not in line))
    rdlc = RDLCompiler()
    try:
        rdlc.compile_file(path)
        root = rdlc.elaborate()
    except RDLCompileError as e:  # the compiler has printed where and why
        raise ValueError(f"{path} does not compile: {e}") from None
    top = root.top
    regs = []
    for r in top.registers():
        if r.get_property("regwidth") != 32 or r.is_array:
            raise ValueError(f"{r.get_path()}: only single 32-bit registers are supported")
        reg = Register(r.inst_name, r.address_offset, r.get_property("name"),
                       (r.get_property("desc") or "").strip())
        for f in r.fields():
            kind = _kind(f, f.get_path())
            reset = f.get_property("reset") or 0
            if f.get_property("gr_regmap_hash", default=False):
                if kind != CONST or f.width != 32:
                    raise ValueError(f"{f.get_path()}: gr_regmap_hash needs a 32-bit constant")
                reset = digest
                # So PeakRDL's header and reference show the hash too, not a placeholder 0.
                f.inst.properties["reset"] = digest
            hw_readable = f.get_property("hw") in (AccessType.r, AccessType.rw)
            lock = ""
            swwel = f.get_property("swwel")
            if swwel is not False and swwel is not None:
                if not hasattr(swwel, "inst_name") or swwel.get_property("fieldwidth") != 1:
                    raise ValueError(f"{f.get_path()}: swwel must name a 1-bit field")
                lock = f"{swwel.parent.inst_name}_{swwel.inst_name}"
            if f.get_property("swwe") not in (False, None):
                raise ValueError(f"{f.get_path()}: swwe is not supported (use swwel)")
            hard_only = bool(f.get_property("gr_hard_reset_only", default=False))
            if hard_only and kind not in (W1S, RW):
                raise ValueError(f"{f.get_path()}: gr_hard_reset_only needs a storage field")
            swacc = bool(f.get_property("swacc"))
            if f.get_property("swmod"):
                raise ValueError(f"{f.get_path()}: swmod is not supported")
            volatile = bool(f.get_property("gr_volatile", default=False))
            if volatile and kind != HW_RO:
                raise ValueError(f"{f.get_path()}: gr_volatile needs a hardware-driven field")
            action = bool(f.get_property("gr_action", default=False))
            if action and kind != PULSE:
                raise ValueError(f"{f.get_path()}: gr_action needs a singlepulse field")
            reg.fields.append(Field(f.inst_name, f.lsb, f.width, kind, reset,
                                    (f.get_property("desc") or "").strip(), hw_readable,
                                    lock, hard_only, swacc, volatile, action))
        regs.append(reg)
    regs.sort(key=lambda x: x.offset)
    return RegMap(top.inst_name, path, digest, regs, root)
