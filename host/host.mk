# SPDX-License-Identifier: Apache-2.0
# host/ and bridge/host/: the gr_* library (libgpuref.a) and gpuctl.
# PIC_CFLAGS: these objects are libgpuref.so's too (host/install.mk).
HOST_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) $(DEBUG_FLAGS) $(CPPFLAGS_HOST) -Ihost/conformance \
               -Ihost/kmd -Ihost/dxgk -Ihost/dxgk/vidmm -Ihost/dxgk/vidsch -pthread -MMD -MP $(PIC_CFLAGS)
HOST_OBJ_DIR := $(BUILD)/host

# The library: status and registers, the transports, the miniport and the OS stand-in.
LIBGPUREF_SRCS := $(sort $(wildcard host/lib/*.c)) $(sort $(wildcard bridge/host/*.c)) \
                  $(sort $(wildcard host/kmd/*.c)) $(sort $(wildcard host/dxgk/*.c)) \
                  $(sort $(wildcard host/dxgk/vidmm/*.c)) $(sort $(wildcard host/dxgk/vidsch/*.c))
LIBGPUREF_OBJS := $(patsubst %.c,$(HOST_OBJ_DIR)/%.o,$(LIBGPUREF_SRCS))
LIBGPUREF := $(BUILD)/lib/libgpuref.a

# The register conformance suite (host/conformance): gpuctl, the demo and the board checks call it.
CONFORMANCE_OBJS := $(HOST_OBJ_DIR)/host/conformance/gr_conformance.o
GPUCTL := $(BUILD)/bin/gpuctl
# gpuctl: the command line and dispatch, its help, the register, allocation, command-path and
# waveform commands, then the session and the output helpers they share.
GPUCTL_SRCS := host/tools/gpuctl.c host/tools/gpuctl_help.c host/tools/gpuctl_regs.c \
               host/tools/gpuctl_alloc.c host/tools/gpuctl_submit.c host/tools/gpuctl_trace.c host/tools/gpuctl_tracediff.c \
               host/tools/gpuctl_session.c host/tools/gpuctl_out.c
GPUCTL_OBJS := $(patsubst %.c,$(HOST_OBJ_DIR)/%.o,$(GPUCTL_SRCS))

# Everything a program needs to drive a device over any built-in transport (usb:// needs
# libftdi1 and libusb-1.0).
GPUREF_USB_LDLIBS := -lftdi1 -lusb-1.0
GPUREF_LINK := $(LIBGPUREF) $(SIM_LIB) $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread

# make follows files, not flags: the objects depend on a file that changes when the flags do
# (a new CFLAGS, PIC_CFLAGS or SAN rebuilds them).
HOST_CFLAGS_CMD := $(HOST_OBJ_DIR)/cflags.cmd
$(HOST_CFLAGS_CMD): _host_force
	@mkdir -p $(@D)
	@echo '$(CC) $(HOST_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(HOST_CFLAGS)' > $@
.PHONY: _host_force

$(HOST_OBJ_DIR)/%.o: %.c $(HOST_CFLAGS_CMD)
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(HOST_CFLAGS) -c $< -o $@

$(LIBGPUREF): $(LIBGPUREF_OBJS)
	@mkdir -p $(@D)
	$(call quiet,AR,$@)rm -f $@ && ar rcs $@ $^

$(GPUCTL): $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK)

all: $(LIBGPUREF) $(GPUCTL)

-include $(LIBGPUREF_OBJS:.o=.d) $(GPUCTL_OBJS:.o=.d) $(CONFORMANCE_OBJS:.o=.d)

GR_DEMO := $(BUILD)/bin/gr_demo
$(GR_DEMO): $(HOST_OBJ_DIR)/host/tools/gr_demo.o $(CONFORMANCE_OBJS) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(GPUREF_LINK)

all: $(GR_DEMO)

-include $(HOST_OBJ_DIR)/host/tools/gr_demo.d

# gpuref-simd: the simulation server (a board of sim/board behind simd:// or a pty).
GPUREF_SIMD := $(BUILD)/bin/gpuref-simd
$(HOST_OBJ_DIR)/host/tools/gpuref_simd.o: HOST_CFLAGS += $(BOARD_CPPFLAGS)
$(GPUREF_SIMD): $(HOST_OBJ_DIR)/host/tools/gpuref_simd.o $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(LIBGPUREF) $(BOARD_LIB) $(BOARD_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread

all: $(GPUREF_SIMD)
-include $(HOST_OBJ_DIR)/host/tools/gpuref_simd.d

# make demo: on sim:// by default; DEVICE=stream|ft601|ft2232h|uart runs it on that simulated
# board behind gpuref-simd (the board's link RTL, PHY and chip model), DEVICE=usb-ft601 or
# usb-ft2232h on the chip emulated under libusb (sim/usb), DEVICE=URI on any device.
DEVICE ?=
demo: $(GR_DEMO) $(if $(filter-out sim,$(DEVICE)),$(GPUREF_SIMD)) $(if $(filter usb-%,$(DEVICE)),$(BUILD)/usb/gr_demo_usb)
	$(Q)GR_DEMO_USB=$(BUILD)/usb/gr_demo_usb scripts/demo.sh $(GR_DEMO) $(GPUREF_SIMD) $(DEVICE)
