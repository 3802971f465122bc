# host/layers.mk: the host side's layering, checked. The table of components and what each may
# depend on is in scripts/check_layers.py (the one place it is written); the check reads every
# include of host/ and bridge/host, and nm of the objects below for who calls whom.
#   make check-layers    the check, in words (exit status 1 on a violation or a loop)
#   make test-layers     the same as a suite of make test
LAYERS_OBJS := $(LIBGPUREF_OBJS) $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) \
               $(HOST_OBJ_DIR)/host/tools/gr_demo.o $(HOST_OBJ_DIR)/host/tools/gpuref_simd.o

.PHONY: check-layers
check-layers: $(LAYERS_OBJS)
	python3 scripts/check_layers.py --objdir $(HOST_OBJ_DIR)

TEST_SUITES += layers
test-layers: $(LAYERS_OBJS)
	$(call tap_run,layers,python3 scripts/check_layers.py --tap --objdir $(HOST_OBJ_DIR))
