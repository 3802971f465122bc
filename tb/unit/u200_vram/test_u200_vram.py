# SPDX-License-Identifier: Apache-2.0
"""tb/unit/u200_vram: the Alveo U200 and LimeSDR tops' VRAM (boards/common/vram_ram.v), an AXI4
slave over on-chip RAM, driven by cocotbext-axi's AxiMaster and compared with a byte model. Checks go
to $U200_VRAM_CHECKS (run.py prints them as TAP)."""

import json
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge, ReadOnly
from cocotbext.axi import AxiBus, AxiMaster


class Checks:
    def __init__(self, path):
        self.path = path
        self.items = []

    def ok(self, cond, name):
        self.items.append([bool(cond), name])
        if self.path:
            with open(self.path, "w") as f:
                json.dump(self.items, f)


def pauses(rng, share):
    while True:
        yield rng.random() < share


@cocotb.test()
async def u200_vram(dut):
    chk = Checks(os.environ.get("U200_VRAM_CHECKS"))
    seed = int(os.environ.get("RANDOM_SEED", cocotb.RANDOM_SEED))
    rng = random.Random(seed)
    size = 1 << int(dut.AddrBits.value)
    cocotb.start_soon(Clock(dut.clk, 4, units="ns").start())
    axi = AxiMaster(AxiBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    model = bytearray(size)
    # the RAM is not reset: give every byte a known value first
    init = bytes(rng.getrandbits(8) for _ in range(size))
    await axi.write(0, init)
    model[:] = init
    back = await axi.read(0, size)
    chk.ok(back.data == model, f"all {size} bytes written in 256-beat bursts read back exact")

    # a narrow write changes only its strobed bytes
    await axi.write(0x1003, b"\xa5")
    model[0x1003] = 0xa5
    back = await axi.read(0x1000, 8)
    chk.ok(back.data == model[0x1000:0x1008],
           "a one-byte write changes that byte only (WSTRB), its word's other bytes kept")

    # random unaligned writes and reads, with pauses on every channel
    axi.write_if.aw_channel.set_pause_generator(pauses(rng, 0.2))
    axi.write_if.w_channel.set_pause_generator(pauses(rng, 0.3))
    axi.write_if.b_channel.set_pause_generator(pauses(rng, 0.3))
    axi.read_if.ar_channel.set_pause_generator(pauses(rng, 0.2))
    axi.read_if.r_channel.set_pause_generator(pauses(rng, 0.4))
    bad = 0
    for _ in range(150):
        addr = rng.randrange(size - 600)
        n = rng.randrange(1, 600)
        data = bytes(rng.getrandbits(8) for _ in range(n))
        await axi.write(addr, data)
        model[addr:addr + n] = data
        a2 = rng.randrange(size - 600)
        n2 = rng.randrange(1, 600)
        got = await axi.read(a2, n2)
        bad += got.data != model[a2:a2 + n2]
    chk.ok(bad == 0, f"150 random unaligned writes and reads of 1-600 bytes with stalls on "
                     f"AW, W, B, AR and R exact ({bad} reads differ)")

    # reads and writes at once on disjoint regions: neither starves, each exact
    async def writer(base):
        for i in range(8):
            d = bytes(rng.getrandbits(8) for _ in range(256))
            await axi.write(base + i * 256, d)
            model[base + i * 256:base + i * 256 + 256] = d

    async def reader(base, out):
        for i in range(8):
            r = await axi.read(base + i * 256, 256)
            out.append(r.data == model[base + i * 256:base + i * 256 + 256])
    res = []
    tasks = [cocotb.start_soon(writer(0x4000 + k * 0x1000)) for k in range(2)]
    tasks += [cocotb.start_soon(reader(0x8000 + k * 0x1000, res)) for k in range(2)]
    for t in tasks:
        await t
    whole = await axi.read(0, size)
    chk.ok(len(res) == 16 and all(res) and whole.data == model,
           "two writers and two readers at once: 16 reads exact, then all memory as the model")

    # R streams one beat a cycle: a 32-beat read without stalls takes the AR, the first beat a
    # cycle later, then a beat every cycle
    for ch in (axi.read_if.ar_channel, axi.read_if.r_channel):
        ch.set_pause_generator(None)
    beats = []

    async def watch():
        while len(beats) < 32:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if dut.s_axi_rvalid.value and dut.s_axi_rready.value:
                beats.append(cocotb.utils.get_sim_time("ns"))
    w = cocotb.start_soon(watch())
    await axi.read(0x2000, 256)
    await w
    span = (beats[-1] - beats[0]) / 4 + 1 if len(beats) == 32 else 0
    chk.ok(span == 32, f"a 32-beat read streams a beat a cycle ({span:.0f} cycles from first to "
                       f"last beat)")
