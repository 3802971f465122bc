#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# on_link.sh: runs a system suite (or any program that opens $GR_TEST_DEVICE) on a link to a
# simulated board, the same RTL packet engine and PHYs a board carries:
#   simd         gpuref-simd with the stream board, over its Unix socket (simd://)
#   uart         gpuref-simd with the UART board on a pseudo-terminal (uart://, termios)
#   usb-ft601    an FT601 emulated at the usbdevfs ioctl level in the suite's process (usb://,
#   usb-ft2232h  the real libusb / libftdi); PROGRAM must be the usb flavour (build/usb/*_usb)
#   pcie-vfio    pcie:// on the VFIO emulation (sim/vfio) preloaded into PROGRAM: the backend's
#                VFIO path, with gpu_core behind the emulated device ($GR_VFIO_EMU_SO, else
#                build/vfio/libgr_vfio_emu.so)
# The server is started for the run and stopped after it; its log is printed on a failure.
# Usage: on_link.sh LINK GPUREF_SIMD PROGRAM [ARGS...]   (exit status: PROGRAM's)
set -u
LINK=${1:?usage: on_link.sh LINK GPUREF_SIMD PROGRAM [ARGS...]}
SIMD=${2:?usage: on_link.sh LINK GPUREF_SIMD PROGRAM [ARGS...]}
shift 2
[ $# -ge 1 ] || { echo "usage: on_link.sh LINK GPUREF_SIMD PROGRAM [ARGS...]" >&2; exit 2; }
SEED=${GR_TEST_SEED:-1}
. "$(dirname "$0")/../lib/tap.sh"
tap_init link
dir=$TAP_DIR

# The client's timers are wall time and the device runs at simulation speed (a few hundred
# thousand core cycles a second, less on a loaded machine): room for that.
FAST="dead_ms=30000&timeout_ms=60000"
SLOW="dead_ms=60000&timeout_ms=120000&keepalive_ms=2000&replay_ms=5000"

# serve ARGS...: gpuref-simd started, or the run bails out with its log.
serve() {
    start_server "$@" && return 0
    echo "Bail out! gpuref-simd did not start:"
    sed 's/^/# /' "$err"
    exit 1
}

case "$LINK" in
simd)
    serve --socket "$dir/s.sock" --board stream
    export GR_TEST_DEVICE="simd://$dir/s.sock?$FAST"
    ;;
uart)
    serve --pty --pty-link "$dir/pty"
    export GR_TEST_DEVICE="uart://$(cat "$dir/pty")?$SLOW"
    ;;
usb-ft601 | usb-ft2232h)
    chip=${LINK#usb-}
    export GR_USB_EMU="$chip:GRSIMLINK1"
    export GR_TEST_DEVICE="usb://$chip?serial=GRSIMLINK1&$SLOW"
    ;;
pcie-vfio)
    so=${GR_VFIO_EMU_SO:-build/vfio/libgr_vfio_emu.so}
    [ -f "$so" ] || { echo "Bail out! $so is not built (make $so)"; exit 1; }
    export GR_VFIO_EMU="$dir/vfio"
    export LD_PRELOAD="$(cd "$(dirname "$so")" && pwd)/$(basename "$so")${LD_PRELOAD:+:$LD_PRELOAD}"
    export GR_TEST_DEVICE="pcie://0000:01:00.0?root=$dir/vfio"
    # Under SAN=address the preloaded library comes before ASan's run-time, which it accepts.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    ;;
*)
    echo "on_link.sh: unknown link '$LINK' (simd, uart, usb-ft601, usb-ft2232h, pcie-vfio)" >&2
    exit 2
    ;;
esac
# The suites' hang alarm (120 s a test) is for sim://; a test on a slow link takes longer.
case "$LINK" in
simd | pcie-vfio) ;;
*) export GR_TEST_TIMEOUT_SCALE=${GR_TEST_TIMEOUT_SCALE:-10} ;;
esac
echo "# link $LINK: $GR_TEST_DEVICE"
"$@"
rc=$?
if [ $rc -ne 0 ] && [ -n "$server" ]; then
    server_tail
fi
exit $rc
