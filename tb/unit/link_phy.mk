# SPDX-License-Identifier: Apache-2.0
# tb/unit/link_phy.mk: unit testbenches of the clock-domain-crossing primitives, the link PHYs
# (bridge/rtl/link_phy_*.v) and the link chip models they run against (sim/models/ft601,
# ft2232h, uart). Included by the top Makefile after tb/unit/unit.mk, whose unit_tb macro
# builds each testbench with Icarus and Verilator and adds its two suites to TEST_SUITES:
#   make test-unit-link_phy_ft601-verilator UNIT_SEEDS="5 6"
# Every build here has GR_ASSERT on (the FIFOs' pointer and Gray-code assertions).

LINK_PHY_CDC := $(RTL_ROOT)/common/cmn_sync2.v $(RTL_ROOT)/common/cmn_async_fifo.v

UNIT_DEFS_cmn_async_fifo := -DGR_ASSERT
$(eval $(call unit_tb,cmn_async_fifo,$(LINK_PHY_CDC)))

UNIT_DEFS_link_phy_uart := -DGR_ASSERT
$(eval $(call unit_tb,link_phy_uart,$(LINK_PHY_CDC) bridge/rtl/link_phy_uart.v sim/models/uart/uart_line_model.v))

UNIT_DEFS_link_phy_ft601 := -DGR_ASSERT
$(eval $(call unit_tb,link_phy_ft601,$(LINK_PHY_CDC) bridge/rtl/link_phy_ftfifo.v bridge/rtl/link_phy_ft600bus.v bridge/rtl/link_phy_ft601.v sim/models/ft601/ft601_model.v))

UNIT_DEFS_link_phy_ft245 := -DGR_ASSERT
$(eval $(call unit_tb,link_phy_ft245,$(LINK_PHY_CDC) bridge/rtl/link_phy_ftfifo.v bridge/rtl/link_phy_ft245.v sim/models/ft2232h/ft2232h_model.v))
