# SPDX-License-Identifier: Apache-2.0
# sim/usb/usb.mk: the USB chips emulated at the usbdevfs ioctl level (umockdev) over the board
# library (usb_emu.o), usb_env.o that puts one on a program's bus before main, and the demo on
# the emulated chip. The usb:// tests over them are tb/system/usb.mk.
# Included by the top Makefile after host.mk, conformance.mk and board.mk (LIBGPUREF,
# GPUREF_LINK, CONFORMANCE_OBJS, HOST_OBJ_DIR, BOARD_LIB, BOARD_CPPFLAGS come from there).
# Exports:
#   USB_SRC, USB_DIR      this folder and its build directory
#   USB_EMU_OBJ           the emulation (gr_usb_emu.h)
#   USB_ENV_OBJ           the emulated chip on the bus at a program's start ($GR_USB_EMU)
#   USB_LDLIBS            what a program linking them also needs: umockdev, libftdi1, libusb
#   FT601_CFG_LIMESDR     the LimeSDR Mini v2's factory FT601 configuration (FT600 mode, two
#                         channels, optional features 0x0002) for $GR_FT601_EMU_CONFIG
USB_SRC := sim/usb
USB_DIR := $(BUILD)/usb
USB_EMU_OBJ := $(USB_DIR)/usb_emu.o
USB_ENV_OBJ := $(USB_DIR)/usb_env.o
# glib and umockdev, asked once per make run and only when needed
USB_UMOCKDEV_CFLAGS = $(eval USB_UMOCKDEV_CFLAGS := $$(shell pkg-config --cflags umockdev-1.0))$(USB_UMOCKDEV_CFLAGS)
USB_UMOCKDEV_LIBS = $(eval USB_UMOCKDEV_LIBS := $$(shell pkg-config --libs umockdev-1.0))$(USB_UMOCKDEV_LIBS)
# umockdev's preload library linked in, as libusb's own umockdev test does: the program runs
# in the mock environment without LD_PRELOAD (--no-as-needed keeps the unreferenced library).
USB_LDLIBS = -Wl,--push-state,--no-as-needed -lumockdev-preload -Wl,--pop-state $(USB_UMOCKDEV_LIBS) \
             -lftdi1 -lusb-1.0 -lcmocka -ldl

$(USB_EMU_OBJ): $(USB_SRC)/usb_emu.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -MMD -MP $(BOARD_CPPFLAGS) -isystem /usr/include/umockdev-1.0 \
	  $(patsubst -I%,-isystem %,$(USB_UMOCKDEV_CFLAGS)) -c $< -o $@

$(USB_ENV_OBJ): $(USB_SRC)/usb_env.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -MMD -MP $(BOARD_CPPFLAGS) -c $< -o $@

# The LimeSDR Mini v2's FT601 as it ships: GR_FT601_EMU_CONFIG=$(FT601_CFG_LIMESDR) emulates it.
FT601_CFG_LIMESDR := $(USB_DIR)/ft601_limesdr_mini_v2.cfg
$(FT601_CFG_LIMESDR): $(USB_SRC)/ft601_config.py
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)python3 $< --fifo-mode 600 --channels 2 --features 0x0002 -o $@
all: $(FT601_CFG_LIMESDR)

# The demo on the emulated chip: `make demo DEVICE=usb-ft601` (scripts/demo.sh) runs it.
GR_DEMO_USB := $(USB_DIR)/gr_demo_usb
$(GR_DEMO_USB): $(HOST_OBJ_DIR)/host/tools/gr_demo.o $(CONFORMANCE_OBJS) $(USB_ENV_OBJ) $(USB_EMU_OBJ) \
                $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

all: $(GR_DEMO_USB)

-include $(USB_EMU_OBJ:.o=.d) $(USB_ENV_OBJ:.o=.d)
