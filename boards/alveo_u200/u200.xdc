# SPDX-License-Identifier: Apache-2.0
# u200.xdc: the Alveo U200 pins u200_top uses. Pins, banks, I/O standards and net names are
# those of the card's user guide, AMD UG1289 (Alveo U200 and U250 Data Center Accelerator Cards
# User Guide: "Xilinx Design Constraints (XDC) File" appendix and the PCIe and LED sections).
# Part: xcu200-fsgd2104-2-e.

# Configuration (the card's SPI x4 flash at 1.8 V)
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property CONFIG_MODE SPIx4                         [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8          [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN disable [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN Pullup         [current_design]

# PCIe reference clock: net PEX_REFCLK_C_P/N, MGTREFCLK0P/N_226 (100 MHz from the slot)
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p_i]
set_property PACKAGE_PIN AM10 [get_ports pcie_refclk_n_i]
create_clock -name pcie_refclk -period 10.000 [get_ports pcie_refclk_p_i]

# PERST#: net PCIE_PERST_LS, bank 64 (VCCO 1.2 V), IO_L23P_T3U_N8_64
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12} [get_ports pcie_perst_n_i]
set_property PULLUP true [get_ports pcie_perst_n_i]
set_false_path -from [get_ports pcie_perst_n_i]

# The lanes (pcie_rxp_i/rxn_i, pcie_txp_o/txn_o) need no PACKAGE_PIN: the hard IP's GT
# locations, chosen in build.tcl (PCIe block X1Y2, GT quad 227: the edge connector's lanes 0-3),
# place them.

# Status LEDs: nets STATUS_LED0/1/2_FPGA, bank 64 (VCCO 1.2 V)
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 DRIVE 8} [get_ports {led_o[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 DRIVE 8} [get_ports {led_o[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 DRIVE 8} [get_ports {led_o[2]}]
set_false_path -to [get_ports {led_o[*]}]
