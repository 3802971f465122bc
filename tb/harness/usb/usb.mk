# tb/harness/usb/usb.mk: the USB chips emulated at the usbdevfs ioctl level (umockdev) over
# the board library, and the usb:// system test on the real libusb and libftdi.
# Included by the top Makefile after host.mk, conformance.mk and board.mk (LIBGPUREF,
# GPUREF_LINK, CONFORMANCE_OBJS, HOST_OBJ_DIR, BOARD_LIB, BOARD_SRC come from there).
#   make test-usb                        build/usb/test_usb --seed N replays a seed
USB_SRC := tb/harness/usb
USB_DIR := $(BUILD)/usb
USB_EMU_OBJ := $(USB_DIR)/usb_emu.o
USB_TEST := $(USB_DIR)/test_usb
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

$(HOST_OBJ_DIR)/tb/system/test_usb.o: HOST_CFLAGS += -I$(USB_SRC) -I$(BOARD_SRC)
$(USB_TEST): $(HOST_OBJ_DIR)/tb/system/test_usb.o $(USB_EMU_OBJ) $(CONFORMANCE_OBJS) $(LIBGPUREF) \
             $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

all: $(USB_TEST)

TEST_SUITES += usb
test-usb: $(USB_TEST)
	$(call tap_run,usb,CMOCKA_MESSAGE_OUTPUT=TAP $(USB_TEST))

-include $(USB_EMU_OBJ:.o=.d) $(HOST_OBJ_DIR)/tb/system/test_usb.d

.PHONY: test-usb

# The usb flavour of the system suites that the link matrix runs (tb/system/links.mk): the same
# test objects, with usb_env.o putting an emulated chip on the bus at the suite's start.
USB_ENV_OBJ := $(USB_DIR)/usb_env.o
USB_SUITES := alloc kmd_submit vidsch residency
USB_SUITE_TESTS := $(patsubst %,$(USB_DIR)/test_%_usb,$(USB_SUITES))

$(USB_ENV_OBJ): $(USB_SRC)/usb_env.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -MMD -MP $(BOARD_CPPFLAGS) -c $< -o $@

$(USB_DIR)/test_%_usb: $(HOST_OBJ_DIR)/tb/system/test_%.o $(SCHED_FIXTURE_OBJ) $(USB_ENV_OBJ) $(USB_EMU_OBJ) \
                       $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

# ... and of the demo: `make demo DEVICE=usb-ft601` (scripts/demo.sh) runs it on the chip.
GR_DEMO_USB := $(USB_DIR)/gr_demo_usb
$(GR_DEMO_USB): $(HOST_OBJ_DIR)/host/tools/gr_demo.o $(CONFORMANCE_OBJS) $(USB_ENV_OBJ) $(USB_EMU_OBJ) \
                $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

all: $(USB_SUITE_TESTS) $(GR_DEMO_USB)

-include $(USB_ENV_OBJ:.o=.d)
