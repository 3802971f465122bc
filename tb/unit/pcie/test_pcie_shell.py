# SPDX-License-Identifier: Apache-2.0
"""tb/unit/pcie: pcie_shell + gpu_core under cocotb, the host side a cocotbext-pcie RootComplex
with the UltraScalePlusPcieDevice model of the hard IP in front of the RTL.

One cocotb test runs every check in order (enumeration once; the model's coroutines live for
one test). Each check is recorded as a TAP line in the file $PCIE_TAP_CHECKS; run.py prints them.
The seed (cocotb's RANDOM_SEED, printed by cocotb and by run.py) drives the random data."""

import json
import os
import random
import re

import cocotb
from cocotb.triggers import RisingEdge, Timer, with_timeout

from cocotbext.axi import AxiBus, AxiMaster, AxiRam, AxiStreamBus
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.core.tlp import Tlp, TlpType, CplStatus
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us import UltraScalePlusPcieDevice
from cocotbext.pcie.xilinx.us.tlp import Tlp_us

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def regs_md():
    """ID_MAGIC's reset value and the offsets of ID_MAGIC and SCRATCH, from rtl/csr/REGISTERS.md."""
    text = open(os.path.join(ROOT, "rtl", "csr", "REGISTERS.md")).read()
    offs = dict((m.group(2), int(m.group(1), 16))
                for m in re.finditer(r"^\|\s*(0x[0-9A-Fa-f]+)\|\s*(\w+)\s*\|", text, re.M))
    sec = text[text.index("### ID_MAGIC register"):]
    sec = sec[:sec.index("###", 5)]
    magic = 0
    for m in re.finditer(r"^\|\s*(\d+):(\d+)\|\s*\w+\s*\|\s*r\s*\|\s*(0x[0-9A-Fa-f]+)\s*\|", sec, re.M):
        magic |= int(m.group(3), 16) << int(m.group(2))
    return offs, magic


class Checks:
    def __init__(self, path):
        self.path = path
        self.items = []

    def ok(self, cond, name):
        self.items.append([bool(cond), name])
        if self.path:
            with open(self.path, "w") as f:
                json.dump(self.items, f)
        if not cond:
            cocotb.log.error("check failed: %s", name)
        return cond


async def ur_or_ca(rc, addr, length=4):
    """A raw memory read TLP; the status of its first completion."""
    req = Tlp()
    req.fmt_type = TlpType.MEM_READ_64 if addr > 0xffffffff else TlpType.MEM_READ
    req.requester_id = PcieId(0, 0, 0)
    req.set_addr_be(addr, length)
    cpls = await rc.perform_nonposted_operation(req, timeout=20000, timeout_unit="ns")
    return cpls[0].status if cpls else None


@cocotb.test()
async def pcie_shell(dut):
    chk = Checks(os.environ.get("PCIE_TAP_CHECKS"))
    seed = int(os.environ.get("RANDOM_SEED", cocotb.RANDOM_SEED))
    rnd = random.Random(seed)
    offs, magic = regs_md()
    csr_bits = int(dut.CsrAddrBits.value)
    ap_bits = int(dut.ApAddrBits.value)

    dut.host_sel.value = 0
    for s in ("awid", "awaddr", "awlen", "awsize", "awburst", "awlock", "awcache", "awprot",
              "awvalid", "wdata", "wstrb", "wlast", "wvalid", "bready", "arid", "araddr",
              "arlen", "arsize", "arburst", "arlock", "arcache", "arprot", "arvalid", "rready"):
        getattr(dut, "tm_" + s).setimmediatevalue(0)

    rc = RootComplex()
    rc.max_payload_size = 0x1            # 256 bytes
    rc.max_read_request_size = 0x2       # 512 bytes
    dev = UltraScalePlusPcieDevice(
        pcie_generation=3, user_clk_frequency=250e6, alignment="dword",
        cq_straddle=False, cc_straddle=False, rq_straddle=False, rc_straddle=False,
        rc_4tlp_straddle=False, pf_count=1, max_payload_size=256, enable_client_tag=True,
        enable_extended_tag=False, enable_parity=False, enable_rx_msg_interface=False,
        enable_sriov=False, enable_extended_configuration=False,
        pf0_msi_enable=True, pf0_msi_count=1,
        user_clk=dut.user_clk, user_reset=dut.user_reset, user_lnk_up=dut.user_lnk_up,
        rq_bus=AxiStreamBus.from_prefix(dut, "m_axis_rq"),
        rc_bus=AxiStreamBus.from_prefix(dut, "s_axis_rc"),
        cq_bus=AxiStreamBus.from_prefix(dut, "s_axis_cq"),
        pcie_cq_np_req=dut.pcie_cq_np_req,
        cc_bus=AxiStreamBus.from_prefix(dut, "m_axis_cc"),
        cfg_max_payload=dut.cfg_max_payload, cfg_max_read_req=dut.cfg_max_read_req,
        cfg_function_status=dut.cfg_function_status,
        cfg_interrupt_int=dut.cfg_interrupt_int, cfg_interrupt_sent=dut.cfg_interrupt_sent,
        cfg_interrupt_pending=dut.cfg_interrupt_pending,
        cfg_interrupt_msi_enable=dut.cfg_interrupt_msi_enable,
        cfg_interrupt_msi_int=dut.cfg_interrupt_msi_int,
        cfg_interrupt_msi_sent=dut.cfg_interrupt_msi_sent,
        cfg_interrupt_msi_fail=dut.cfg_interrupt_msi_fail,
    )
    # BAR sizes from the RTL's parameters: BAR0 32-bit, BAR1 64-bit prefetchable (slots 1-2);
    # BAR3 is one the shell does not map.
    dev.functions[0].configure_bar(0, 2 ** csr_bits)
    dev.functions[0].configure_bar(1, 2 ** ap_bits, ext=True, prefetch=True)
    dev.functions[0].configure_bar(3, 4096)
    rc.make_port().connect(dev)
    vram = AxiRam(AxiBus.from_prefix(dut, "vram"), dut.user_clk, dut.user_reset, size=2 ** 32)
    tm = AxiMaster(AxiBus.from_prefix(dut, "tm"), dut.user_clk, dut.user_reset, max_burst_len=16)

    await RisingEdge(dut.user_clk)
    await with_timeout(rc.enumerate(), 2, "ms")
    fn = rc.find_device(dev.functions[0].pcie_id)
    chk.ok(fn is not None and fn.vendor_id == dev.functions[0].vendor_id,
           "enumeration finds the endpoint")
    await fn.enable_device()
    await fn.set_master()
    b0, b1, b3 = fn.bar_window[0], fn.bar_window[1], fn.bar_window[3]
    chk.ok(b0 is not None and b0.size == 2 ** csr_bits and (fn.bar[0] & ~0xf) % (2 ** csr_bits) == 0,
           f"BAR0 assigned, {2 ** csr_bits} bytes (CsrAddrBits {csr_bits})")
    chk.ok(b1 is not None and b1.size == 2 ** ap_bits and (fn.bar[1] & ~0xf) % (2 ** ap_bits) == 0,
           f"BAR1 assigned, 64-bit, {2 ** ap_bits} bytes (ApAddrBits {ap_bits})")

    # ---- BAR0 ------------------------------------------------------------------------------
    v = await with_timeout(b0.read_dword(offs["ID_MAGIC"]), 100, "us")
    chk.ok(v == magic, f"BAR0 ID_MAGIC reads 0x{v:08x}, REGISTERS.md says 0x{magic:08x}")
    pat = rnd.getrandbits(32)
    await b0.write_dword(offs["SCRATCH"], pat)
    v = await b0.read_dword(offs["SCRATCH"])
    chk.ok(v == pat, f"BAR0 SCRATCH write/read 0x{pat:08x} -> 0x{v:08x}")
    # gpu_core refuses partial strobes (SLVERR, no effect); the posted write's error is dropped
    await b0.write(offs["SCRATCH"] + 1, b"\x5a")
    v = await b0.read_dword(offs["SCRATCH"])
    chk.ok(v == pat, "BAR0 byte write (first BE 0010) reaches s_csr as WSTRB 0010: refused, "
                     "SCRATCH unchanged")
    v = await b0.read(offs["SCRATCH"] + 1, 2)
    chk.ok(v == pat.to_bytes(4, "little")[1:3],
           "BAR0 2-byte read at offset 1 (Lower Address and Byte Count from the BEs)")
    q = await b0.read(offs["ID_MAGIC"], 8)
    chk.ok(int.from_bytes(q[:4], "little") == magic, "BAR0 2-DWORD read returns both registers")

    # ---- BAR1: the aperture (gpu_core maps it onto VRAM from AP_BASE 0) ------------------------
    ok = True
    for n, (off, size) in enumerate([(0x0, 8), (0x104, 12), (0x1000 - 8, 16), (0x2002, 300),
                                      (0x3000, 1024), (0x40f0, 4096 - 0xf0 - 4)]):
        data = bytes(rnd.getrandbits(8) for _ in range(size))
        await b1.write(off, data)
        back = await b1.read(off, size)
        ok &= back == data and vram.read(off, size) == data
        if back != data:
            cocotb.log.error("BAR1 burst %d at 0x%x, %d bytes: read back differs: %s %s %s", n, off, size,
                             data[:16].hex(), back[:16].hex(), vram.read(off, min(size, 16)).hex())
    chk.ok(ok, "BAR1 bursts (8 B .. 4 KiB, unaligned, split at Max_Payload_Size) write VRAM "
               "and read back byte-exact")

    # ---- UR and CA ---------------------------------------------------------------------------
    st = await ur_or_ca(rc, fn.bar[3] & ~0xf)
    chk.ok(st == CplStatus.UR, f"a read of BAR3 (not mapped by the shell) completes UR ({st})")
    st = await ur_or_ca(rc, (fn.bar[0] & ~0xf) + 0xfffc)
    chk.ok(st == CplStatus.CA, f"a read of a BAR0 hole (AXI SLVERR) completes CA ({st})")
    ur = int(dut.ur_count.value)
    chk.ok(ur == 1, f"the shell counted one UR completion ({ur})")
    v = await b0.read_dword(offs["SCRATCH"])
    chk.ok(v == pat, "BAR0 works after the UR and CA")

    # requests the root complex model does not route, put on CQ as the hard IP would
    async def on_cq(fmt_type, addr, data, bar_id=0, aperture=None, discontinue=False):
        tag = await rc.alloc_tag()
        t = Tlp_us()
        t.fmt_type = fmt_type
        t.requester_id = PcieId(0, 0, 0)
        t.completer_id = fn.pcie_id
        t.tag = tag
        t.address = addr
        t.length = max(len(data) // 4, 1)
        t.first_be = 0xf
        t.last_be = 0xf if t.length > 1 else 0
        t.data = bytearray(data)
        t.bar_id = bar_id
        t.bar_aperture = csr_bits if aperture is None else aperture
        t.discontinue = discontinue
        await dev.cq_source.send(t.pack_us_cq())
        cpl = None
        if fmt_type not in (TlpType.MEM_WRITE, TlpType.MEM_WRITE_64):
            cpl = await rc.recv_cpl(tag, timeout=20000, timeout_unit="ns")
        rc.release_tag(tag)
        return cpl
    scratch = (fn.bar[0] & ~0xf) + offs["SCRATCH"]
    cpl = await on_cq(TlpType.FETCH_ADD, scratch, b"\1\0\0\0")
    chk.ok(cpl is not None and cpl.status == CplStatus.UR,
           f"an atomic FetchAdd to BAR0 completes UR ({cpl.status if cpl else None})")
    cpl = await on_cq(TlpType.MEM_READ, scratch, b"", aperture=csr_bits + 1)
    chk.ok(cpl is not None and cpl.status == CplStatus.UR,
           "a read whose BAR aperture is not the RTL's BAR0 size completes UR")
    await on_cq(TlpType.MEM_WRITE, scratch, (pat ^ 0xffffffff).to_bytes(4, "little"),
                discontinue=True)
    await on_cq(TlpType.MEM_WRITE, scratch, (pat ^ 0xffffffff).to_bytes(4, "little") * 2,
                discontinue=True)
    v = await b0.read_dword(offs["SCRATCH"])
    chk.ok(v == pat, "writes carrying discontinue (poisoned) change nothing")

    # ---- requester: a test master on m_host into the root complex's memory --------------------
    dut.host_sel.value = 1
    mem_base, mem = rc.alloc_region(64 * 1024)
    mem[0:64 * 1024] = bytes(rnd.getrandbits(8) for _ in range(64 * 1024))
    ok = True
    for n in range(12):
        off = rnd.randrange(0, 60 * 1024) & ~7
        beats = rnd.randrange(1, 17)
        if (off & 0xfff) + beats * 8 > 0x1000:
            off = (off & ~0xfff) + 0x1000 - beats * 8
        data = bytes(rnd.getrandbits(8) for _ in range(beats * 8))
        await with_timeout(tm.write(mem_base + off, data), 100, "us")
        await tm.read(mem_base + off, 8)     # a read does not pass the posted write
        if bytes(mem[off:off + len(data)]) != data:
            cocotb.log.error("m_host write at 0x%x, %d beats: %s / %s", off, beats, data[:24].hex(),
                             bytes(mem[off:off + 24]).hex())
            ok = False
    chk.ok(ok, "m_host write bursts (1..16 beats) land in host memory byte-exact")
    ok = True
    for n in range(12):
        off = rnd.randrange(0, 60 * 1024) & ~7
        beats = rnd.randrange(1, 17)
        if (off & 0xfff) + beats * 8 > 0x1000:
            off = (off & ~0xfff) + 0x1000 - beats * 8
        want = bytes(mem[off:off + beats * 8])
        got = await with_timeout(tm.read(mem_base + off, beats * 8), 100, "us")
        ok &= got.data == want
    chk.ok(ok, "m_host read bursts return host memory byte-exact")
    # several reads in flight, completions split on every RCB
    rc.split_on_all_rcb = True
    reqs = []
    for n in range(8):
        off = (n * 0x800 + 0x40) & ~7
        reqs.append((off, cocotb.start_soon(tm.read(mem_base + off, 128))))
    ok = True
    for off, t in reqs:
        r = await with_timeout(t.join(), 200, "us")
        ok &= r.data == bytes(mem[off:off + 128]) and r.resp == 0
    rc.split_on_all_rcb = False
    chk.ok(ok, "8 read bursts in flight, completions split at every 64-byte RCB, reassembled")
    # partial strobes: only the enabled bytes change
    mem[0x100:0x110] = b"\xee" * 16
    await tm.write(mem_base + 0x101, b"\x11\x22\x33")
    await tm.read(mem_base + 0x100, 8)
    chk.ok(bytes(mem[0x100:0x108]) == b"\xee\x11\x22\x33\xee\xee\xee\xee",
           "a narrow write changes only its strobed bytes")
    # a read the root complex answers UR (no memory there) -> SLVERR
    r = await with_timeout(tm.read(0x7000_0000, 64), 200, "us")
    chk.ok(r.resp == 2, f"a read of unbacked host memory answers SLVERR (resp {r.resp})")
    # Max_Payload_Size and Max_Read_Request_Size 128 (as the root complex would program them):
    # 128-byte bursts not 128-aligned become two MWr / two MRd, and BAR1 completions split at 128
    pcap = dev.functions[0].pcie_cap
    pcap.max_payload_size, pcap.max_read_request_size = 0, 0
    for _ in range(4):
        await RisingEdge(dut.user_clk)
    ok = int(dut.cfg_max_payload.value) == 0 and int(dut.cfg_max_read_req.value) == 0
    for n in range(6):
        off = 0xa000 + n * 0x100 + 0x40
        data = bytes(rnd.getrandbits(8) for _ in range(128))
        await with_timeout(tm.write(mem_base + off, data), 100, "us")
        got = await with_timeout(tm.read(mem_base + off, 128), 100, "us")
        ok &= bytes(mem[off:off + 128]) == data and got.data == data
    data = bytes(rnd.getrandbits(8) for _ in range(512))
    await b1.write(0x6040, data)
    ok &= await b1.read(0x6040, 512) == data
    pcap.max_payload_size, pcap.max_read_request_size = 1, 2
    chk.ok(ok, "with Max_Payload_Size and Max_Read_Request_Size 128: unaligned 128-byte bursts "
               "cut in two MWr / MRd, BAR1 completions at 128 bytes, all byte-exact")
    v = await b0.read(offs["SCRATCH"], 0)
    chk.ok(v == b"", "a zero-length read of BAR0 completes (Byte Count 1, nothing read)")
    # write bursts streamed into MWr: 16 KiB as 128 back-to-back 16-beat bursts, AW and W
    # without waiting for B. The RQ stream as the hard IP model takes it, cycle by cycle: each
    # pair of bursts must leave as one 256-byte MWr (Max_Payload_Size), started before its data
    # is all in, and the whole at 85% of the Gen3 x2 link or more (a requester that stores
    # each burst before its MWr takes about 70 cycles a burst: 23%)
    rq_log = []
    rq_gaps = [0]          # cycles with tvalid low inside a TLP (the hard IP would nullify it)

    async def rq_watch():
        cyc, k, w_seen = 0, 0, 0
        while True:
            await RisingEdge(dut.user_clk)
            cyc += 1
            if k and not int(dut.m_axis_rq_tvalid.value):
                rq_gaps[0] += 1
            if int(dut.m_axis_rq_tvalid.value) and int(dut.m_axis_rq_tready.value):
                d = int(dut.m_axis_rq_tdata.value)
                if k == 1:
                    rq_log.append([cyc, (d >> 11) & 0xf, d & 0x7ff, 0, cyc, w_seen])
                if int(dut.m_axis_rq_tuser.value) >> 11 & 1:
                    rq_log[-1][3] = 1
                k += 1
                if int(dut.m_axis_rq_tlast.value):
                    rq_log[-1][4] = cyc
                    k = 0
            if int(dut.tm_wvalid.value) and int(dut.tm_wready.value):
                w_seen += 1
    watch = cocotb.start_soon(rq_watch())
    off = 0x4000
    data = bytes(rnd.getrandbits(8) for _ in range(16384))
    await with_timeout(tm.write(mem_base + off, data), 200, "us")
    watch.kill()
    await tm.read(mem_base + off, 8)     # the posted writes have landed
    mwr = [t for t in rq_log if t[1] == 1]
    span = mwr[-1][4] - mwr[0][0] + 2 if mwr else 1      # cycles from descriptor to last beat
    rate = 16384 / (span * 4e-9) / 1e6
    link = 2 * 8e9 * 128 / 130 / 8 / 1e6
    # a MWr goes out while its W still arrives: at its descriptor, the W beats seen so far do
    # not yet reach its last byte (the first ones; later W runs ahead of the link, buffered)
    early, end = 0, 0
    for t in mwr:
        end += t[2] * 4
        early += t[5] * 8 < end
    big = sum(1 for t in mwr if t[2] == 64)
    chk.ok(bytes(mem[off:off + 16384]) == data and end == 16384 and big >= 60 and
           all(t[2] in (32, 64) and not t[3] for t in mwr) and mwr[0][5] * 8 < mwr[0][2] * 4 and
           rq_gaps[0] == 0 and
           rate >= 0.85 * link,
           f"16 KiB of back-to-back write bursts: {len(mwr)} MWr, {big} of 256 bytes (two bursts), "
           f"the others 128; {early} begun before their data was all in, the first among them; "
           f"none discontinued, tvalid never low inside one; {span} cycles: "
           f"{rate:.0f} MB/s, {100 * rate / link:.1f}% of the {link:.0f} MB/s link; byte-exact")
    # read bursts the same way: 16 KiB as 128 16-beat bursts, AR without waiting for R; pairs
    # of contiguous bursts go as one 256-byte MRd, up to ReadSlots bursts in flight cover the
    # round trip, and the completions fill the link
    rq_log.clear()
    watch = cocotb.start_soon(rq_watch())
    t0 = cocotb.utils.get_sim_time("ns")
    got = await with_timeout(tm.read(mem_base + off, 16384), 200, "us")
    span = int((cocotb.utils.get_sim_time("ns") - t0) / 4)
    watch.kill()
    mrd = [t for t in rq_log if t[1] == 0]
    rate = 16384 / (span * 4e-9) / 1e6
    big = sum(1 for t in mrd if t[2] == 64)
    chk.ok(got.data == data and got.resp == 0 and sum(t[2] for t in mrd) * 4 == 16384 and
           big >= 48 and rate >= 0.85 * link,
           f"16 KiB of back-to-back read bursts: {len(mrd)} MRd, {big} of 256 bytes (two bursts); "
           f"{span} cycles from the first AR to the last R: {rate:.0f} MB/s, "
           f"{100 * rate / link:.1f}% of the link; byte-exact")
    # paired MRd answered in 64-byte pieces (every RCB), reassembled across both bursts' slots
    rq_log.clear()
    rc.split_on_all_rcb = True
    watch = cocotb.start_soon(rq_watch())
    got = await with_timeout(tm.read(mem_base + off + 0x800, 4096), 200, "us")
    watch.kill()
    rc.split_on_all_rcb = False
    big = sum(1 for t in rq_log if t[1] == 0 and t[2] == 64)
    chk.ok(got.data == data[0x800:0x1800] and got.resp == 0 and big >= 4,
           f"4 KiB of read bursts with every completion split at the 64-byte RCB: {big} MRd of "
           f"256 bytes among them, byte-exact")
    # the root complex's read handler, wrapped: reads of one page are dropped (a completion
    # timeout), of another answered with a poisoned completion
    hole, poison = mem_base + 0x8000, mem_base + 0x9000
    plain = rc.rx_tlp_handler[TlpType.MEM_READ]

    async def odd_reads(tlp):
        if hole <= tlp.address < hole + 0x1000:
            return
        if poison <= tlp.address < poison + 0x1000:
            cpl = Tlp.create_completion_data_for_tlp(tlp, PcieId(0, 0, 0))
            cpl.byte_count = tlp.length * 4
            cpl.lower_address = tlp.address & 0x7f
            cpl.set_data(bytes(tlp.length * 4))
            cpl.ep = True
            await rc.send(cpl)
            return
        await plain(tlp)
    rc.register_rx_tlp_handler(TlpType.MEM_READ, odd_reads)
    cyc = 0
    t0 = cocotb.utils.get_sim_time("ns")
    r = await with_timeout(tm.read(hole, 64), 500, "us")
    cyc = int((cocotb.utils.get_sim_time("ns") - t0) / 4)
    tmo = int(dut.cpl_timeouts.value)
    chk.ok(r.resp == 2 and tmo == 1 and cyc >= int(dut.CplTimeout.value),
           f"a read never completed answers SLVERR after the completion timeout "
           f"({cyc} cycles >= CplTimeout {int(dut.CplTimeout.value)}; timeouts counted {tmo})")
    r = await with_timeout(tm.read(poison, 32), 100, "us")
    chk.ok(r.resp == 2 and int(dut.cpl_errors.value) >= 1,
           "a poisoned completion answers SLVERR (completion errors counted "
           f"{int(dut.cpl_errors.value)})")
    rc.register_rx_tlp_handler(TlpType.MEM_READ, plain)
    ok = True
    for n in range(2 * 8):                  # every tag again, the timed-out one included
        r = await with_timeout(tm.read(mem_base + n * 64, 64), 100, "us")
        ok &= r.resp == 0 and r.data == bytes(mem[n * 64:n * 64 + 64])
    chk.ok(ok, "after them reads go on byte-exact through every tag")
    # bus mastering off: SLVERR without a TLP
    await fn.set_master(False)
    r = await with_timeout(tm.read(mem_base, 16), 100, "us")
    w = await with_timeout(tm.write(mem_base, b"\0" * 8), 100, "us")
    chk.ok(r.resp == 2 and w.resp == 2, "with bus mastering off reads and writes answer SLVERR")
    await fn.set_master(True)
    dut.host_sel.value = 0

    # ---- MSI from irq_o ----------------------------------------------------------------------
    await fn.alloc_irq_vectors(1, 1)
    ev = fn.msi_vectors[0].event
    ev.clear()
    chk.ok(int(dut.cfg_interrupt_msi_enable.value) & 1 == 1, "MSI enabled by the root complex")
    irq_test = offs["IRQ_TEST"]
    irq_en = offs["IRQ_ENABLE"]
    irq_state = offs["IRQ_STATE"]

    async def settle(n=40):
        for _ in range(n):
            await RisingEdge(dut.user_clk)
    await b0.write_dword(irq_en, 0x1f)
    await b0.write_dword(irq_test, 0x5)         # two sources: RESET_DONE and DMA_FENCE
    await with_timeout(ev.wait(), 100, "us")
    await settle()
    n1 = int(dut.msi_count.value)
    chk.ok(ev.is_set() and int(dut.irq.value) == 1 and n1 == 1,
           f"IRQ_TEST raises irq_o and exactly one MSI arrives ({n1})")
    ev.clear()
    await b0.write_dword(irq_state, 0x1)         # the ISR acknowledges one; the other stays
    await b0.read_dword(irq_state)
    await with_timeout(ev.wait(), 100, "us")
    await settle()
    n2 = int(dut.msi_count.value)
    chk.ok(ev.is_set() and int(dut.irq.value) == 1 and n2 == 2,
           f"an acknowledge that leaves a source pending sends another MSI ({n2})")
    ev.clear()
    await b0.write_dword(irq_state, 0x4)
    await b0.read_dword(irq_state)
    await settle()
    n3 = int(dut.msi_count.value)
    chk.ok(int(dut.irq.value) == 0 and n3 == 2 and not ev.is_set(),
           f"the last acknowledge lowers irq_o and sends nothing ({n3} MSIs in all)")
    await b0.write_dword(irq_en, 0)

    # ---- gpu_core's DMA engine through the requester ------------------------------------------
    # One kernel ring entry in host memory whose DMA buffer FILLs host memory, COPYs host memory
    # into VRAM and VRAM back to host memory; the engine fetches ring and buffer with MRd,
    # writes with MWr, writes the fence record and raises DMA_FENCE (an MSI).
    ring_base, ring = rc.alloc_region(0x4000)
    ring[0:0x4000] = bytes(0x4000)
    src = bytes(rnd.getrandbits(8) for _ in range(4096))
    ring[0x1000:0x2000] = src                       # COPY source
    vaddr = 0x10_0000                               # VRAM physical
    pattern = rnd.getrandbits(32)

    def q(v):
        return int(v).to_bytes(8, "little")
    HOST, VRAM = 2, 1
    buf = (q(0x02 | HOST << 10 | pattern << 32) + q(ring_base + 0x2000) + q(2048) +
           q(0x01 | HOST << 8 | VRAM << 10) + q(ring_base + 0x1000) + q(vaddr) + q(4096) +
           q(0x01 | VRAM << 8 | HOST << 10) + q(vaddr) + q(ring_base + 0x3000) + q(4096))
    ring[0x800:0x800 + len(buf)] = buf
    fence_id = 0x1234_0000 | rnd.getrandbits(16)
    ring[0:32] = q(ring_base + 0x800) + q(len(buf) | fence_id << 32) + q(0) + q(0x3)
    ev.clear()
    n0 = int(dut.msi_count.value)
    await b0.write_dword(irq_en, 0x4)
    await b0.write_dword(offs["DMA_RING_BASE_LO"], (ring_base & 0xffffffff) & ~0xfff)
    await b0.write_dword(offs["DMA_RING_BASE_HI"], ring_base >> 32)
    await b0.write_dword(offs["DMA_FENCE_ADDR_LO"], (ring_base + 0x700) & 0xffffffff)
    await b0.write_dword(offs["DMA_FENCE_ADDR_HI"], (ring_base + 0x700) >> 32)
    await b0.write_dword(offs["DMA_CTRL"], 1)
    await b0.write_dword(offs["DMA_RING_TAIL"], 1)
    await with_timeout(ev.wait(), 2, "ms")
    fence = int.from_bytes(ring[0x700:0x708], "little")
    chk.ok(fence == fence_id and int(dut.msi_count.value) == n0 + 1,
           f"a DMA ring entry fetched over PCIe completes: fence record 0x{fence:x}, one MSI")
    chk.ok(bytes(ring[0x2000:0x2800]) == pattern.to_bytes(4, "little") * 512,
           "the engine's FILL of 2 KiB host memory arrived as MWr")
    chk.ok(vram.read(vaddr, 4096) == src and bytes(ring[0x3000:0x4000]) == src,
           "its COPY host -> VRAM -> host of 4 KiB is byte-exact (MRd completions reassembled)")
    await b0.write_dword(offs["IRQ_STATE"], 0x4)
    await b0.write_dword(irq_en, 0)
