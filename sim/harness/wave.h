/* SPDX-License-Identifier: Apache-2.0 */
// wave.h: what sim_core.cpp needs around a waveform file besides Verilator's FST writer: the
// format a path asks for, the VCD written from the recorded FST, and the GTKWave save file that
// goes next to a waveform with gpu_core's ports, DMA engine and MMU signals grouped.
#ifndef GPUREF_HARNESS_WAVE_H
#define GPUREF_HARNESS_WAVE_H

#include <string>

namespace gr {

// True when path ends in ".vcd" (any case): the waveform is written as VCD; anything else is FST.
bool wave_is_vcd(const std::string &path);

// The save file's path: path with its extension (if any) replaced by ".gtkw".
std::string wave_gtkw_path(const std::string &path);

// Writes the VCD at vcd_path from the closed FST at fst_path (header, scopes, every value
// change). GR_OK, or GR_E_IO with *err saying which file and why.
int wave_fst_to_vcd(const std::string &fst_path, const std::string &vcd_path, std::string *err);

// Writes the GTKWave save file at gtkw_path for the waveform at wave_path: groups of the
// gpu_core ports (s_csr, s_ap, m_host, m_vram), the DMA engine (u_dma) and the MMU
// (u_mc.u_mmu), with the names and bit ranges the trace carries (tb/system/test_wave.sh checks
// every one against a recorded trace). GR_OK, or GR_E_IO with *err.
int wave_write_gtkw(const std::string &gtkw_path, const std::string &wave_path, std::string *err);

} // namespace gr

#endif
