# tb/system/pcie_host.mk: pcie:// on fixture sysfs and /dev trees, without a board
# (tb/system/test_pcie_host.c): address parsing, discovery, the open errors, the uio fallback.
PCIE_HOST_TEST := $(BUILD)/tb/system/test_pcie_host

$(PCIE_HOST_TEST): $(HOST_OBJ_DIR)/tb/system/test_pcie_host.o $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(GPUREF_LINK) -lcmocka

all: $(PCIE_HOST_TEST)

TEST_SUITES += system-pcie-host
test-system-pcie-host: $(PCIE_HOST_TEST)
	$(call tap_run,system-pcie-host,CMOCKA_MESSAGE_OUTPUT=TAP $<)

-include $(HOST_OBJ_DIR)/tb/system/test_pcie_host.d

.PHONY: test-system-pcie-host
