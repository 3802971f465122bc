#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# demo.sh: the co-simulation demo (gr_demo) on one device: `make demo DEVICE=...` runs it.
#   demo.sh GR_DEMO GPUREF_SIMD [DEVICE]
#   DEVICE empty or "sim"       the in-process simulation (sim://)
#   stream|ft601|ft2232h|uart   a simulated board served by gpuref-simd (the same link RTL, PHY
#                               and chip model a board carries); the demo reaches it over
#                               simd:// (uart: over a pseudo-terminal with uart://)
#   usb-ft601|usb-ft2232h       the chip emulated at the usbdevfs ioctl level in the demo's own
#                               process (umockdev), under the real libusb / libftdi: the demo's
#                               usb flavour, $GR_DEMO_USB (build/usb/gr_demo_usb)
#   broker                      gpuref-broker ($GPUREF_BROKER) owning sim://, the demo one of its
#                               clients over broker:// (host/broker/README.md)
#   anything with "://"         that URI, as is (a board on a real cable: uart:///dev/ttyUSB0)
# The exit status is the demo's (2: a bad DEVICE, or the server did not start).
set -u
demo=$1 simd=$2 device=${3:-}
case "$device" in
    "" | sim) exec "$demo" ;;
    *://*) exec "$demo" "$device" ;;
    usb-ft601 | usb-ft2232h)
        chip=${device#usb-}
        [ -x "${GR_DEMO_USB:-}" ] || { echo "demo: GR_DEMO_USB is not the demo's usb flavour" >&2; exit 2; }
        echo "demo: an emulated $chip on the USB bus, reached at usb://$chip?serial=GRSIMDEMO1"
        # The board runs at simulation speed: the link's wall-clock timers get room for that.
        GR_USB_EMU="$chip:GRSIMDEMO1" exec "$GR_DEMO_USB" \
            "usb://$chip?serial=GRSIMDEMO1&dead_ms=60000&timeout_ms=120000&keepalive_ms=2000&replay_ms=5000"
        ;;
    stream | ft601 | ft2232h | uart) ;;
    broker) [ -x "${GPUREF_BROKER:-}" ] || { echo "demo: GPUREF_BROKER is not gpuref-broker" >&2; exit 2; } ;;
    *)
        echo "demo: DEVICE='$device' is not sim, stream, ft601, ft2232h, uart, usb-ft601, usb-ft2232h, broker or a URI" >&2
        exit 2
        ;;
esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuref-demo.XXXXXX")
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
if [ "$device" = broker ]; then
    "$GPUREF_BROKER" --socket "$dir/sock" sim:// >"$dir/server.log" 2>&1 &
elif [ "$device" = uart ]; then
    "$simd" --pty --pty-link "$dir/tty" --board uart >"$dir/server.log" 2>&1 &
else
    "$simd" --socket "$dir/sock" --board "$device" >"$dir/server.log" 2>&1 &
fi
server=$!
# The banner comes once the socket listens (or the pty is there).
for _ in $(seq 1 600); do
    grep -Eq "^gpuref-simd: (serving |.* board on /)" "$dir/server.log" 2>/dev/null && break
    [ "$device" = broker ] && [ -S "$dir/sock" ] && break
    if ! kill -0 "$server" 2>/dev/null; then
        cat "$dir/server.log" >&2
        echo "demo: the server did not start ($device)" >&2
        exit 2
    fi
    sleep 0.1
done
if [ "$device" = broker ]; then
    uri="broker://$dir/sock"
    echo "demo: gpuref-broker owning sim://, the demo one of its clients at $uri"
    "$demo" "$uri"
    rc=$?
    # What the broker said of its clients (the demo's connections, the device lent and given back).
    sed 's/^/  | /' "$dir/server.log"
    exit $rc
fi
if [ "$device" = uart ]; then
    # The simulated 3 Mbaud line is far slower in wall time than a real one (a 4 KiB frame is
    # 1.4M core cycles), and the link's timers are wall time: they get room for that.
    uri="uart://$(cat "$dir/tty")?replay_ms=5000&dead_ms=30000&timeout_ms=60000"
else
    uri="simd://$dir/sock"
fi
echo "demo: a simulated $device board behind gpuref-simd, reached at $uri"
"$demo" "$uri"
