#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ft601_config.py: writes an FT601 chip configuration (FTDI's FT_60XCONFIGURATION, 152 bytes,
little endian) for the emulated FT601 ($GR_FT601_EMU_CONFIG, sim/usb/usb_emu.c).

    ft601_config.py --fifo-mode 600 --channels 2 --features 0x0002 -o FILE   (LimeSDR Mini v2)
    ft601_config.py --fifo-mode 245 --channels 1 -o FILE                     (gpuref's default)

Fields: VendorID, ProductID (0x0403, 0x601F), StringDescriptors[128] (manufacturer "FTDI",
product "FTDI SuperSpeed-FIFO Bridge", serial), Reserved, PowerAttributes (0xE0),
PowerConsumption (0x60), Reserved2, FIFOClock (byte 137: 0 = 100 MHz), FIFOMode (byte 138: 0
245, 1 FT600), ChannelConfig (byte 139: 0 four channels, 1 two, 2 one, 3 one OUT pipe, 4 one IN
pipe), OptionalFeatureSupport (bytes 140-141), BatteryChargingGPIOConfig, FlashEEPROMDetection,
MSIO_Control, GPIO_Control (zero here).
"""
import argparse
import struct
import sys

CHANNELS = {"4": 0, "2": 1, "1": 2, "out": 3, "in": 4}


def string_desc(text):
    data = text.encode("utf-16-le")
    return bytes([2 + len(data), 3]) + data


def build(fifo_mode, channels, features, serial):
    strings = string_desc("FTDI") + string_desc("FTDI SuperSpeed-FIFO Bridge") + string_desc(serial)
    if len(strings) > 128:
        raise ValueError("the three strings take more than 128 bytes")
    cfg = struct.pack("<HH", 0x0403, 0x601F) + strings.ljust(128, b"\0")
    cfg += bytes([0, 0xE0, 0x60, 0, 0])                    # Reserved .. Reserved2 (132..136)
    cfg += bytes([0, 0 if fifo_mode == 245 else 1, CHANNELS[channels]])  # 137..139
    cfg += struct.pack("<H", features)                      # 140..141
    cfg = cfg.ljust(152, b"\0")
    assert len(cfg) == 152
    return cfg


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fifo-mode", type=int, choices=(245, 600), required=True)
    ap.add_argument("--channels", choices=sorted(CHANNELS), required=True)
    ap.add_argument("--features", type=lambda v: int(v, 0), default=0)
    ap.add_argument("--serial", default="000000000001")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if not 0 <= a.features <= 0xFFFF:
        ap.error("--features is a 16-bit value")
    if a.fifo_mode == 245 and a.channels != "1":
        ap.error("245 mode has one channel")
    with open(a.output, "wb") as f:
        f.write(build(a.fifo_mode, a.channels, a.features, a.serial))
    return 0


if __name__ == "__main__":
    sys.exit(main())
