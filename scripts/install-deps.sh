#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what gpuref needs on Debian 12 / Ubuntu 22.04+: the toolchain and simulators from the
# distribution, the register-map tools, the ECP5 flow and the cocotb test tools (tb/unit/pcie) from
# PyPI (pinned, in build/venv). Idempotent.
#   install-deps.sh          what building and testing need
#   install-deps.sh --bench  also what `make bench` needs (bench/*/DEPS: kernel source, gnuplot)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
    build-essential   # gcc, g++, make
    verilator         # co-simulation and lint (5.006 on Debian 12)
    iverilog          # second simulator for the RTL unit tests
    yosys             # synthesis check
    zlib1g-dev        # Verilator's FST waveforms
    gtkwave           # to look at them (sim://?trace=, gpuctl trace on; the .gtkw save files)
    libcmocka-dev     # C test framework
    libusb-1.0-0-dev  # usb://ft601: the FT601 backend talks to the chip through libusb
    libftdi1-dev      # usb://ft2232h: the FT2232H backend (synchronous FIFO) through libftdi
    libumockdev-dev   # the USB tests emulate the chips at the usbdevfs ioctl level
    umockdev          # umockdev-wrapper, to run a USB test program by hand
    clang-14 libclang-rt-14-dev  # libFuzzer and its sanitizer run-times (tb/fuzz)
    python3 python3-venv
)

# Each benchmark lists its Debian packages in bench/<name>/DEPS, one per line (# comments);
# a package two benchmarks need is installed once.
if [ "${1:-}" = --bench ]; then
    for deps in bench/*/DEPS; do
        while read -r p; do
            if [ -n "$p" ] && [[ " ${PACKAGES[*]} " != *" $p "* ]]; then PACKAGES+=("$p"); fi
        done < <(grep -v '^#' "$deps")
    done
fi

missing=()
for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=$([ "$(id -u)" -eq 0 ] && echo "" || echo sudo)
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

make -s --no-print-directory build/venv/.stamp
echo "install-deps: done ($(verilator --version | cut -d' ' -f1-2), $(iverilog -V 2>/dev/null | head -1 | cut -d' ' -f1-4), $(yosys -V | cut -d' ' -f1-2))"
