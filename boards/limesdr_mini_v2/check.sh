#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boards/limesdr_mini_v2/check.sh: the hardware checks on a LimeSDR Mini v2 running the gpuref
# bitstream, over USB 3 (FT601): boards/common/hw_check.sh (info, conformance, the DDI path).
#   boards/limesdr_mini_v2/check.sh [URI]      default usb://ft601
# Refuses (exit 2) when no FT601 is on USB or nothing answers.
exec "$(dirname "$0")/../common/hw_check.sh" limesdr_mini_v2 "${1:-usb://ft601}"
