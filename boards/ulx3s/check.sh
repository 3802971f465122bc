#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# boards/ulx3s/check.sh: the hardware checks on a ULX3S running the gpuref bitstream, over its
# FT231X at 3 Mbaud: boards/common/hw_check.sh (info, conformance, the DDI path).
#   boards/ulx3s/check.sh [URI]      default uart:///dev/ttyUSB0?baud=3000000
# Refuses (exit 2) when the serial device is missing or nothing answers.
exec "$(dirname "$0")/../common/hw_check.sh" ulx3s "${1:-uart:///dev/ttyUSB0?baud=3000000}"
