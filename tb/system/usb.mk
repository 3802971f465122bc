# SPDX-License-Identifier: Apache-2.0
# tb/system/usb.mk: the usb:// system test on the real libusb and libftdi over the emulated
# chips (sim/usb), and the usb flavour of the system suites that the link matrix runs
# (tb/system/links.mk). Included by the top Makefile after sim/usb/usb.mk and system.mk
# (USB_SRC, USB_DIR, USB_EMU_OBJ, USB_ENV_OBJ, USB_LDLIBS, BOARD_SRC, SCHED_FIXTURE_OBJ come from
# there).
#   make test-usb                        build/usb/test_usb --seed N replays a seed
#   make test-usb-ft600                  the same with the FT601 in the LimeSDR Mini v2's factory
#                                        configuration (GR_FT601_EMU_CONFIG=$(FT601_CFG_LIMESDR))
#   make test-system-links-ft600         the usb-ft601 link's system suites in that configuration
USB_TEST := $(USB_DIR)/test_usb

$(HOST_OBJ_DIR)/tb/system/test_usb.o: HOST_CFLAGS += -I$(USB_SRC) -I$(BOARD_SRC)
$(USB_TEST): $(HOST_OBJ_DIR)/tb/system/test_usb.o $(USB_EMU_OBJ) $(CONFORMANCE_OBJS) $(LIBGPUREF) \
             $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

all: $(USB_TEST)

$(eval $(call suite,usb,$(USB_TEST),CMOCKA_MESSAGE_OUTPUT=TAP $$(USB_TEST)))
$(eval $(call suite,usb-ft600,$(USB_TEST) $(FT601_CFG_LIMESDR),GR_FT601_EMU_CONFIG=$(FT601_CFG_LIMESDR) CMOCKA_MESSAGE_OUTPUT=TAP $$(USB_TEST)))

-include $(HOST_OBJ_DIR)/tb/system/test_usb.d

.PHONY: test-usb

# The same test objects as the system suites, with usb_env.o putting an emulated chip on the
# bus at the suite's start.
USB_SUITES := alloc kmd_submit vidsch residency
USB_SUITE_TESTS := $(patsubst %,$(USB_DIR)/test_%_usb,$(USB_SUITES))

$(USB_DIR)/test_%_usb: $(HOST_OBJ_DIR)/tb/system/test_%.o $(SCHED_FIXTURE_OBJ) $(USB_ENV_OBJ) $(USB_EMU_OBJ) \
                       $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)

all: $(USB_SUITE_TESTS)

# The usb-ft601 link of the matrix (tb/system/links.mk) again, its FT601 in FT600 mode with two
# channels as the LimeSDR Mini v2 ships.
TEST_SUITES += system-links-ft600
.PHONY: test-system-links-ft600
test-system-links-ft600: $(USB_SUITE_TESTS) $(FT601_CFG_LIMESDR)
	$(call tap_run,system-links-ft600,export GR_FT601_EMU_CONFIG=$(FT601_CFG_LIMESDR); rc=0; \
	  $(call links_one,usb-ft601) exit $$rc)
