# tb/system/easy.mk: the convenience layer (gpuref/gr_easy.h) over sim:// (test_easy.c).
# Included by the top Makefile after host/host.mk.
#   make test-system-easy                     build and run (seeds EASY_SEEDS, default 1 2)
#   make test-system-easy EASY_SEEDS=7        replay one seed
EASY_SEEDS ?= 1 2
EASY_TEST := $(BUILD)/tb/system/test_easy

$(EASY_TEST): $(HOST_OBJ_DIR)/tb/system/test_easy.o $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $< $(GPUREF_LINK) -lcmocka

all: $(EASY_TEST)

TEST_SUITES += system-easy
test-system-easy: $(EASY_TEST)
	$(call tap_run,system-easy,for s in $(EASY_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $< --seed $$s || exit 1; done)

-include $(HOST_OBJ_DIR)/tb/system/test_easy.d

.PHONY: test-system-easy
