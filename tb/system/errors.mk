# tb/system/errors.mk: what a failed open says through the public API (test_errors.c).
ERRORS_TEST := $(BUILD)/tb/system/test_errors

$(ERRORS_TEST): $(HOST_OBJ_DIR)/tb/system/test_errors.o $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(GPUREF_LINK) -lcmocka

all: $(ERRORS_TEST)

TEST_SUITES += system-errors
test-system-errors: $(ERRORS_TEST)
	$(call tap_run,system-errors,CMOCKA_MESSAGE_OUTPUT=TAP $<)

-include $(HOST_OBJ_DIR)/tb/system/test_errors.d

.PHONY: test-system-errors
