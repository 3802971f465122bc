/* SPDX-License-Identifier: Apache-2.0 */
// vram_port.h: a Verilated model's m_vram_* AXI4 master port (gpu_core's, as the board tops and
// the PCIe card carry it out) copied into an AxiPins and the slave's answer copied back, for any
// model with those port names and any data width Verilator gives them (a scalar up to 64 bits,
// a VlWide above). One copy of the port list for every harness that puts a VRAM model on it.
#ifndef GPUREF_SIM_HARNESS_VRAM_PORT_H
#define GPUREF_SIM_HARNESS_VRAM_PORT_H

#include <verilated.h>

#include <cstddef>
#include <cstdint>

#include "axi_pins.h"

namespace gr {

// Verilated ports <-> byte arrays (lane i = byte i).
template <typename T> inline void port_to_bytes(uint8_t *dst, unsigned n, T v)
{
    for (unsigned i = 0; i < n; ++i)
        dst[i] = i < 8 ? uint8_t(uint64_t(v) >> (8 * i)) : 0;
}
template <std::size_t W> inline void port_to_bytes(uint8_t *dst, unsigned n, const VlWide<W> &v)
{
    for (unsigned i = 0; i < n; ++i)
        dst[i] = uint8_t(v[i / 4] >> (8 * (i % 4)));
}
template <typename T> inline void bytes_to_port(T &port, const uint8_t *src, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n && i < 8; ++i)
        v |= uint64_t(src[i]) << (8 * i);
    port = T(v);
}
template <std::size_t W> inline void bytes_to_port(VlWide<W> &port, const uint8_t *src, unsigned n)
{
    for (unsigned w = 0; w < W; ++w)
        port[w] = 0;
    for (unsigned i = 0; i < n; ++i)
        port[i / 4] |= EData(src[i]) << (8 * (i % 4));
}

/** The master's outputs (requests, write data, ready) into p; data_bytes wide. */
template <typename Top> inline void vram_port_sample(const Top &t, AxiPins &p, unsigned data_bytes)
{
    p.awvalid = t.m_vram_awvalid_o;
    p.aw.id = t.m_vram_awid_o;
    p.aw.addr = t.m_vram_awaddr_o;
    p.aw.len = t.m_vram_awlen_o;
    p.aw.size = t.m_vram_awsize_o;
    p.aw.burst = t.m_vram_awburst_o;
    p.aw.lock = t.m_vram_awlock_o;
    p.aw.cache = t.m_vram_awcache_o;
    p.aw.prot = t.m_vram_awprot_o;
    p.wvalid = t.m_vram_wvalid_o;
    port_to_bytes(p.wdata, data_bytes, t.m_vram_wdata_o);
    p.wstrb = t.m_vram_wstrb_o;
    p.wlast = t.m_vram_wlast_o;
    p.bready = t.m_vram_bready_o;
    p.arvalid = t.m_vram_arvalid_o;
    p.ar.id = t.m_vram_arid_o;
    p.ar.addr = t.m_vram_araddr_o;
    p.ar.len = t.m_vram_arlen_o;
    p.ar.size = t.m_vram_arsize_o;
    p.ar.burst = t.m_vram_arburst_o;
    p.ar.lock = t.m_vram_arlock_o;
    p.ar.cache = t.m_vram_arcache_o;
    p.ar.prot = t.m_vram_arprot_o;
    p.rready = t.m_vram_rready_o;
}

/** The slave's answer in p (ready, responses, read data) onto the master's inputs. */
template <typename Top> inline void vram_port_drive(Top &t, const AxiPins &p, unsigned data_bytes)
{
    t.m_vram_awready_i = p.awready;
    t.m_vram_wready_i = p.wready;
    t.m_vram_bvalid_i = p.bvalid;
    t.m_vram_bid_i = p.bid;
    t.m_vram_bresp_i = p.bresp;
    t.m_vram_arready_i = p.arready;
    t.m_vram_rvalid_i = p.rvalid;
    t.m_vram_rid_i = p.rid;
    bytes_to_port(t.m_vram_rdata_i, p.rdata, data_bytes);
    t.m_vram_rresp_i = p.rresp;
    t.m_vram_rlast_i = p.rlast;
}

} // namespace gr

#endif
