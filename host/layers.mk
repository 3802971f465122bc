# SPDX-License-Identifier: Apache-2.0
# host/layers.mk: the host side's layering, checked. The table of components and what each may
# depend on is in scripts/check_layers.py (the one place it is written); the check reads every
# include of host/ and bridge/host, and nm of the objects below for who calls whom. It also
# checks that nothing shipped is built from tb/ (tests only): no include of host/, bridge/ or
# sim/ lands there, and the products that ship (LAYERS_SHIPPED: libgpuref's archives, of the
# same sources as libgpuref.so, which is checked too when built; gpuref-simd; the Verilator
# commands of gpu_core and of each board) name no source or include folder of tb/.
#   make check-layers    the check, in words (exit status 1 on a violation or a loop)
#   make test-layers     the same as a suite of make test, with the check's own tests
#                        (tb/unit/layers: fixtures it must fail)
LAYERS_OBJS := $(LIBGPUREF_OBJS) $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) \
               $(HOST_OBJ_DIR)/host/tools/gr_demo.o $(HOST_OBJ_DIR)/host/tools/gpuref_simd.o
LAYERS_SHIPPED := $(LIBGPUREF) $(SIM_LIB) $(BOARD_LIB) $(GPUREF_SIMD) $(SIM_DIR)/verilate.cmd \
                  $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/$(k)/verilate.cmd)
LAYERS_CHECK = python3 scripts/check_layers.py --objdir $(HOST_OBJ_DIR) \
               --shipped $(LAYERS_SHIPPED) $(wildcard $(GPUREF_SO))

.PHONY: check-layers
check-layers: $(LAYERS_OBJS) $(LAYERS_SHIPPED)
	$(LAYERS_CHECK)

$(eval $(call suite,layers,$(LAYERS_OBJS) $(LAYERS_SHIPPED),$$(LAYERS_CHECK) --tap; s=$$$$?; python3 tb/unit/layers/test_check_layers.py || s=1; exit $$$$s))
