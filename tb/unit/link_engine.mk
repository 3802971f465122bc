# tb/unit/link_engine.mk: the link engine's unit testbenches (bridge/rtl/link_*), each under
# Icarus and Verilator through unit_tb (tb/unit/unit.mk): link_crc32 against zlib's values,
# link_engine against a testbench host speaking bridge/PROTOCOL.md. Included by the top Makefile.
LINK_RTL_DIR := bridge/rtl
LINK_ENGINE_RTL := $(addprefix $(LINK_RTL_DIR)/,link_crc32.v link_ram.v link_rx_align.v \
    link_rx.v link_tx.v link_dispatch.v link_host_slave.v link_engine.v)
$(eval $(call unit_tb,link_crc32,$(LINK_RTL_DIR)/link_crc32.v))
$(eval $(call unit_tb,link_engine,$(LINK_ENGINE_RTL)))
