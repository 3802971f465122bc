# SPDX-License-Identifier: Apache-2.0
"""tb/unit/pcie: the C driver over TLPs. libgpuref (with the register conformance suite, the
test-only cocotb:// backend and the jobs of pcie_driver_jobs.c: $PCIE_LIBGPUREF) is loaded with
ctypes and runs in a cocotb.external thread (gr_link_cocotb_run); each gr_link operation comes
back here as a cocotb.function coroutine: BAR0 reads as MRd TLPs (status checked), BAR0 writes
and BAR1 accesses through the root complex's BAR windows, DMA buffers from the root complex's
memory (the device's MRd/MWr land in them; the C side gets the mmap's address), wait_irq on
the MSI. In front of the RTL the same cocotbext-pcie RootComplex and UltraScale+ hard IP model
as test_pcie_shell.py, VRAM a cocotbext-axi AXI4 RAM.

Checks are recorded as TAP lines in $PCIE_TAP_CHECKS; run.py prints them."""

import ctypes
import logging
import os
import random
from ctypes import CFUNCTYPE, POINTER, Structure, c_char, c_int, c_size_t, c_uint32, c_uint64, c_void_p

import cocotb
from cocotb.result import SimTimeoutError
from cocotb.triggers import RisingEdge, Timer, with_timeout
from cocotb.utils import get_sim_time

from cocotbext.axi import AxiBus, AxiRam, AxiStreamBus
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.core.tlp import Tlp, TlpType, CplStatus
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.xilinx.us import UltraScalePlusPcieDevice

from test_pcie_shell import Checks

GR_OK, GR_E_BUS, GR_E_TIMEOUT, GR_E_IO = 0, -5, -6, -11
MSI_SETTLE_NS = 1000

R32 = CFUNCTYPE(c_int, c_uint32, POINTER(c_uint32))
W32 = CFUNCTYPE(c_int, c_uint32, c_uint32)
APR = CFUNCTYPE(c_int, c_uint64, c_void_p, c_size_t)
APW = CFUNCTYPE(c_int, c_uint64, c_void_p, c_size_t)
DMA_ALLOC = CFUNCTYPE(c_int, c_size_t, POINTER(c_uint64), POINTER(c_uint64))
DMA_FREE = CFUNCTYPE(c_int, c_uint64)
WAIT_IRQ = CFUNCTYPE(c_int, c_uint32, POINTER(c_int))
TLP_COUNTS = CFUNCTYPE(c_int, POINTER(c_uint64))


class Callbacks(Structure):
    """gr_link_cocotb_cb_t"""
    _fields_ = [("read32", R32), ("write32", W32), ("ap_read", APR), ("ap_write", APW),
                ("dma_alloc", DMA_ALLOC), ("dma_free", DMA_FREE), ("wait_irq", WAIT_IRQ),
                ("tlp_counts", TLP_COUNTS)]


class TlpCount:
    """TLPs and their wire bytes (Tlp.get_wire_size: header, payload, 8 bytes of framing,
    sequence number and LCRC) each way on the root complex's port to the device, the device's
    DMA requests and the completions to them included; DLLPs are not counted."""

    def __init__(self, bridge):
        self.n = [0, 0, 0, 0]    # TLPs down, TLPs up, bytes down, bytes up
        send = bridge.downstream_tx_handler
        recv = bridge.downstream_port.rx_handler

        async def down(tlp):
            self.n[0] += 1
            self.n[2] += tlp.get_wire_size()
            await send(tlp)

        async def up(tlp):
            self.n[1] += 1
            self.n[3] += tlp.get_wire_size()
            await recv(tlp)
        bridge.downstream_tx_handler = down
        bridge.downstream_port.rx_handler = up


class JobResult(Structure):
    """pcie_job_result_t"""
    _fields_ = [("passed", c_uint32), ("failed", c_uint32), ("registers", c_uint32),
                ("rc", c_int), ("seed", c_uint32), ("log", c_char * 16384)]


async def make_env(dut):
    """Root complex, hard IP model and VRAM, enumerated; returns (rc, fn, vram, tlps)."""
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
    dev.functions[0].configure_bar(0, 2 ** csr_bits)
    dev.functions[0].configure_bar(1, 2 ** ap_bits, ext=True, prefetch=True)
    port = rc.make_port()
    port.connect(dev)
    tlps = TlpCount(port)
    vram = AxiRam(AxiBus.from_prefix(dut, "vram"), dut.user_clk, dut.user_reset, size=2 ** 32)
    await RisingEdge(dut.user_clk)
    await with_timeout(rc.enumerate(), 2, "ms")
    fn = rc.find_device(dev.functions[0].pcie_id)
    await fn.enable_device()
    await fn.set_master()
    await fn.alloc_irq_vectors(1, 1)
    # The models log every TLP and burst at INFO: thousands of lines that cost more than the
    # simulation they describe.
    for name in ("cocotb.pcie", "cocotb." + dut._name):
        logging.getLogger(name).setLevel(logging.WARNING)
    return rc, fn, vram, tlps


class Link:
    """The root complex's side of cocotb://: each method is one gr_link operation."""

    def __init__(self, rc, fn, tlps):
        self.rc = rc
        self.fn = fn
        self.tlps = tlps
        self.bar0 = fn.bar[0] & ~0xf
        self.b0 = fn.bar_window[0]
        self.b1 = fn.bar_window[1]
        self.msi = fn.msi_vectors[0].event
        self.msi.clear()
        self.bufs = {}        # bus address -> (region, exported buffer)
        self.counts = {"read32": 0, "write32": 0, "ap": 0, "dma_alloc": 0, "msi_seen": 0}

    async def read32(self, off):
        """A MRd TLP of one DWORD; (status, value): a UR or CA completion is GR_E_BUS, none within
        1 ms GR_E_TIMEOUT (inside the PCIe Base Specification's default completion timeout range,
        50 us to 50 ms: the read waits behind posted writes, which a 64 KiB BAR1 write makes
        about 100 us of)."""
        self.counts["read32"] += 1
        req = Tlp()
        req.fmt_type = TlpType.MEM_READ
        req.requester_id = PcieId(0, 0, 0)
        req.set_addr_be(self.bar0 + off, 4)
        cpls = await self.rc.perform_nonposted_operation(req, timeout=1000, timeout_unit="us")
        if not cpls:
            return GR_E_TIMEOUT, 0
        if cpls[0].status != CplStatus.SC:
            return GR_E_BUS, 0
        return GR_OK, int.from_bytes(cpls[0].get_data()[:4], "little")

    async def write32(self, off, value):
        self.counts["write32"] += 1
        await self.b0.write_dword(off, value)
        return GR_OK

    async def ap_read(self, off, n):
        self.counts["ap"] += 1
        return await self.b1.read(off, n)

    async def ap_write(self, off, data):
        self.counts["ap"] += 1
        await self.b1.write(off, data)

    def dma_alloc(self, n):
        """Root-complex memory, page-aligned (the pool's buddy allocator aligns to the rounded
        size), zeroed (a fresh anonymous mmap)."""
        self.counts["dma_alloc"] += 1
        size = max(4096, (n + 4095) & ~4095)
        region = self.rc.mem_pool.alloc_region(size)
        cbuf = c_char.from_buffer(region.mem)
        bus = region.get_absolute_address(0)
        self.bufs[bus] = (region, cbuf)
        return ctypes.addressof(cbuf), bus

    def dma_free(self, bus):
        region, _ = self.bufs.pop(bus)
        pool = self.rc.mem_pool
        pool.regions = [r for r in pool.regions if r[3] is not region]
        pool.allocator.free(bus - pool.get_absolute_address(0))

    async def wait_irq(self, us):
        """An MSI since the last report (latched, then cleared); waits up to us simulated µs.
        A report of one waits MSI_SETTLE_NS more, so that MSIs already under way (the shell
        sends another on a BAR0 write while irq_o stays high) join it instead of reading as a
        new interrupt after the ISR's acknowledge."""
        if not self.msi.is_set() and us:
            try:
                await with_timeout(self.msi.wait(), us, "us")
            except SimTimeoutError:
                pass
        raised = self.msi.is_set()
        if raised:
            await Timer(MSI_SETTLE_NS, "ns")
        self.msi.clear()
        self.counts["msi_seen"] += raised
        return raised


def callbacks(link):
    """The ctypes table for gr_link_cocotb_install. Each callback runs in the serving thread
    (cocotb.external) and waits for its coroutine (cocotb.function) in the simulator; an
    exception becomes GR_E_IO, so the driver sees a link error instead of a wrong value."""
    def guard(f):
        def g(*a):
            try:
                return f(*a)
            except Exception as e:  # noqa: BLE001 - any failure of the model is a link error
                cocotb.log.error("cocotb:// callback %s: %r", f.__name__, e)
                return GR_E_IO
        g.__name__ = f.__name__
        return g

    co_read32 = cocotb.function(link.read32)
    co_write32 = cocotb.function(link.write32)
    co_ap_read = cocotb.function(link.ap_read)
    co_ap_write = cocotb.function(link.ap_write)
    co_wait_irq = cocotb.function(link.wait_irq)

    @guard
    def read32(off, out):
        st, v = co_read32(off)
        if st == GR_OK:
            out[0] = v
        return st

    @guard
    def write32(off, v):
        return co_write32(off, v)

    @guard
    def ap_read(off, dst, n):
        data = co_ap_read(off, n)
        ctypes.memmove(dst, bytes(data), n)
        return GR_OK

    @guard
    def ap_write(off, src, n):
        co_ap_write(off, ctypes.string_at(src, n))
        return GR_OK

    @guard
    def dma_alloc(n, out_cpu, out_bus):
        cpu, bus = link.dma_alloc(n)
        out_cpu[0] = cpu
        out_bus[0] = bus
        return GR_OK

    @guard
    def dma_free(bus):
        link.dma_free(bus)
        return GR_OK

    @guard
    def wait_irq(us, out):
        out[0] = 1 if co_wait_irq(us) else 0
        return GR_OK

    @guard
    def tlp_counts(out):
        for i, v in enumerate(link.tlps.n):
            out[i] = v
        return GR_OK

    return Callbacks(R32(read32), W32(write32), APR(ap_read), APW(ap_write),
                     DMA_ALLOC(dma_alloc), DMA_FREE(dma_free), WAIT_IRQ(wait_irq),
                     TLP_COUNTS(tlp_counts))


def load_lib():
    lib = ctypes.CDLL(os.environ["PCIE_LIBGPUREF"])
    lib.gr_link_cocotb_install.argtypes = [POINTER(Callbacks)]
    lib.gr_link_cocotb_run.argtypes = [c_void_p, c_void_p]
    lib.gr_link_cocotb_ops_served.restype = c_uint64
    return lib


async def run_job(lib, name, res):
    """Runs the C job `name` over cocotb://; its status, simulated µs and operations served."""
    job = ctypes.cast(getattr(lib, name), c_void_p).value
    t0 = get_sim_time("ns")
    n0 = lib.gr_link_cocotb_ops_served()

    def serve():
        return lib.gr_link_cocotb_run(job, ctypes.addressof(res))
    st = await cocotb.external(serve)()
    return st, (get_sim_time("ns") - t0) / 1000, lib.gr_link_cocotb_ops_served() - n0


@cocotb.test()
async def pcie_driver(dut):
    chk = Checks(os.environ.get("PCIE_TAP_CHECKS"))
    seed = int(os.environ.get("RANDOM_SEED", cocotb.RANDOM_SEED))
    random.seed(seed)
    rc, fn, vram, tlps = await make_env(dut)
    link = Link(rc, fn, tlps)
    lib = load_lib()
    cbs = callbacks(link)
    st = lib.gr_link_cocotb_install(ctypes.byref(cbs))
    chk.ok(st == GR_OK, f"cocotb:// installed ({st})")

    jobs = os.environ.get("PCIE_DRIVER_JOBS", "conformance,smoke").split(",")

    # ---- the registry and cocotb:// outside a run (no simulation) -----------------------------
    res = JobResult()
    lib.pcie_job_registry(ctypes.byref(res))
    for line in res.log.decode(errors="replace").splitlines():
        if line.startswith("ok: "):
            chk.ok(True, "registry: " + line[4:])
        elif line.startswith("not ok: "):
            chk.ok(False, "registry: " + line[8:])
    chk.ok(res.passed == 7 and res.failed == 0, f"registry: {res.passed} of 7 checks ran and passed")

    # ---- the register conformance suite ------------------------------------------------------
    if "conformance" in jobs:
        res = JobResult()
        st, us, ops = await run_job(lib, "pcie_job_conformance", res)
        log = res.log.decode(errors="replace")
        if log:
            cocotb.log.info("conformance log:\n%s", log)
        cocotb.log.info("conformance over TLPs: %u registers, %u passed, %u failed, %.1f us "
                        "simulated, %d link operations (%s)", res.registers, res.passed,
                        res.failed, us, ops, link.counts)
        chk.ok(st == GR_OK and res.passed > 0,
               f"gr_conformance_run over cocotb:// ran to its end ({res.registers} registers, "
               f"{ops} link operations as TLPs, {us:.0f} us simulated)")
        chk.ok(st == GR_OK and res.failed == 0,
               f"every conformance check passes through pcie_shell ({res.passed} passed, "
               f"{res.failed} failed{': ' + log.splitlines()[0] if res.failed else ''})")

    # ---- the DDI smoke test --------------------------------------------------------------------
    if "smoke" in jobs:
        res = JobResult()
        res.seed = seed & 0xffffffff
        before = dict(link.counts)
        st, us, ops = await run_job(lib, "pcie_job_smoke", res)
        log = res.log.decode(errors="replace")
        cocotb.log.info("DDI smoke over TLPs: %u passed, %u failed, %.1f us simulated, %d link "
                        "operations (%s, before %s)\n%s", res.passed, res.failed, us, ops,
                        link.counts, before, log)
        for line in log.splitlines():
            if line.startswith("ok: "):
                chk.ok(True, "smoke: " + line[4:])
            elif line.startswith("not ok: "):
                chk.ok(False, "smoke: " + line[8:])
        chk.ok(st == GR_OK and res.failed == 0 and res.passed > 0,
               f"the DDI smoke test over cocotb:// ran to its end ({res.passed} checks, {ops} link "
               f"operations, {us:.0f} us simulated)")

    # ---- the link benchmark (make bench-link-pcie; not part of make test) --------------------
    if "bench" in jobs:
        res = JobResult()
        res.seed = seed & 0xffffffff
        st, us, ops = await run_job(lib, "pcie_job_bench", res)
        log = res.log.decode(errors="replace")
        cocotb.log.info("bench over TLPs: %.1f us simulated, %d link operations, %s TLPs "
                        "down/up, %s wire bytes down/up\n%s", us, ops, tlps.n[:2], tlps.n[2:], log)
        chk.ok(st == GR_OK, f"bench_link on cocotb:// ran to its end, bytes read back exact "
                            f"({ops} link operations, {us:.0f} us simulated){': ' + log if st else ''}")
