# SPDX-License-Identifier: Apache-2.0
# sim/board/board.mk: the board-simulation library (gr_board.h): per kind, a wrapper
# verilated into its own model class Vboard_<kind> (the link-chip kinds: board.v, fpga_core + the
# kind's PHY + the link chip's model, with -GKind=N; limesdr and ulx3s: board_<kind>.v around the
# exact ECP5 top from boards/ with the primitives' and chips' models), one BoardImpl per model,
# the C API, the VRAM model from sim/harness, merged into one archive.
# Included by the top Makefile after harness.mk (BUILD, RTL_ROOT, RTL_INC, RTL_SRCS, VERILATOR,
# CXX, CC, WARN, CFLAGS, JOBS, SIM_DIR, HARNESS_SRC, SIM_VROOT, SIM_VDEFS come from there).
# Exports:
#   BOARD_LIB       the archive (build/board/libgr_board.a)
#   BOARD_LDLIBS    what a program linking BOARD_LIB also needs: the harness library (its AXI
#                   and VRAM models and Verilator's run-time library, built with the same
#                   options as these models, so one copy serves both) and its libraries
#   BOARD_CPPFLAGS  include paths for gr_board.h and gpuref/*.h
# Every kind is built (gr_board_kind_built() still tells a program which kinds it has).
BOARD_SRC := sim/board
BOARD_DIR ?= $(BUILD)/board
BOARD_LIB := $(BOARD_DIR)/libgr_board.a
BOARD_LDLIBS = $(SIM_LIB) $(SIM_LDLIBS)
BOARD_CPPFLAGS := -I$(BOARD_SRC) -Isim/harness -Ihost/include

# kind -> board.v's Kind (the HELLO Link number). Every model is read for every kind: board.v
# names them all, in generate branches of which one is elaborated.
BOARD_KIND_stream := 1
BOARD_KIND_uart := 2
BOARD_KIND_ft601 := 3
BOARD_KIND_ft245 := 4
BOARD_CHIPS := sim/models/uart/uart_line_model.v sim/models/ft601/ft601_model.v \
    sim/models/ft2232h/ft2232h_model.v
BOARD_ALL_KINDS := stream uart ft601 ft245 limesdr ulx3s
BOARD_KINDS := $(BOARD_ALL_KINDS)

BOARD_RTL := $(sort $(wildcard bridge/rtl/*.v))
BOARD_VLT := $(BOARD_SRC)/board.vlt $(wildcard $(RTL_ROOT)/lint.vlt)
# The exact board tops (boards/): each has its own wrapper (board_<kind>.v, board.v's ports)
# around the top as a bitstream build reads it, with the simulation models of the ECP5
# primitives it instantiates (boards/common/sim) and its chips' models.
BOARD_ECP5_SIM := boards/common/sim/EHXPLLL.v boards/common/sim/ODDRX1F.v boards/common/ecp5_clk_rst.v
# An exact top's parameter checks (the PLL arithmetic, the primitives' settings) stop the build:
# -Wno-fatal below must not let their $error through.
BOARD_VFLAGS_limesdr := -Werror-USERERROR
BOARD_VFLAGS_ulx3s := -Werror-USERERROR
BOARD_TOP_limesdr := board_limesdr
BOARD_SRCS_limesdr := $(BOARD_ECP5_SIM) boards/common/vram_ram.v \
    boards/limesdr_mini_v2/limesdr_top.v sim/models/ft601/ft601_model.v $(BOARD_SRC)/board_limesdr.v
BOARD_TOP_ulx3s := board_ulx3s
BOARD_SRCS_ulx3s := $(BOARD_ECP5_SIM) boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v \
    boards/ulx3s/ulx3s_top.v sim/models/uart/uart_line_model.v sim/models/sdram/sdram_model.v \
    $(BOARD_SRC)/board_ulx3s.v
# The link-chip kinds: board.v with -GKind=N.
$(foreach k,stream uart ft601 ft245,$(eval BOARD_TOP_$(k) := board)\
  $(eval BOARD_SRCS_$(k) := $(BOARD_CHIPS) $(BOARD_SRC)/board.v))
BOARD_GKIND = $(if $(BOARD_KIND_$(1)),-GKind=$(BOARD_KIND_$(1)))
# -Wno-fatal: the link RTL is linted by `make lint`; a warning in it must not keep the board
# library (and every test over a board) from building. Warnings stay in the build log.
BOARD_VERILATE = $(VERILATOR) --cc --trace-fst -Wall -Wno-fatal --timescale 1ns/1ps \
    -I$(RTL_INC) -Ibridge/rtl --top-module $(BOARD_TOP_$(1)) $(call BOARD_GKIND,$(1)) $(BOARD_VFLAGS_$(1)) --prefix Vboard_$(1) \
    --Mdir $(BOARD_DIR)/$(1)/obj $(BOARD_VLT) $(wildcard boards/common/sim/boards.vlt) $(RTL_SRCS) $(BOARD_RTL) $(BOARD_SRCS_$(1))

BOARD_CXX = $(CXX) -std=c++17 $(SIM_CXXFLAGS) $(WARN) -MMD -MP $(BOARD_CPPFLAGS) \
    -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd $(SIM_VDEFS) -faligned-new
BOARD_HAVE := $(foreach k,$(BOARD_ALL_KINDS),-DGR_BOARD_HAVE_$(shell echo $(k) | tr a-z A-Z)=$(if $(filter $(k),$(BOARD_KINDS)),1,0))

# $(call board_kind,KIND): verilate board.v for KIND, build its model, compile its factory.
define board_kind
$(BOARD_DIR)/$(1)/verilate.cmd: _board_force
	@mkdir -p $$(@D)
	@echo '$$(call BOARD_VERILATE,$(1))' | cmp -s - $$@ || echo '$$(call BOARD_VERILATE,$(1))' > $$@

$(BOARD_DIR)/$(1)/obj/.stamp: $(BOARD_DIR)/$(1)/verilate.cmd $(RTL_SRCS) $(BOARD_RTL) $(BOARD_SRCS_$(1)) \
        $(BOARD_VLT) $(wildcard $(RTL_INC)/*.vh)
	@rm -rf $(BOARD_DIR)/$(1)/obj
	@mkdir -p $(BOARD_DIR)/$(1)/obj
	@scripts/build-step.sh VERILATE 'board $(1): $(BOARD_TOP_$(1))$(if $(BOARD_KIND_$(1)), Kind=$(BOARD_KIND_$(1))) to C++' \
	  $(BOARD_DIR)/$(1)/obj/build.log -- $$(call BOARD_VERILATE,$(1))
	@scripts/build-step.sh --append --progress $(BOARD_DIR)/$(1)/obj MODEL 'board $(1): the Verilated model' \
	  $(BOARD_DIR)/$(1)/obj/build.log -- \
	  $(MAKE) --no-print-directory $$(SIM_SUBMAKE_J) -C $(BOARD_DIR)/$(1)/obj -f Vboard_$(1).mk Vboard_$(1)__ALL.a
	@touch $$@

$(BOARD_DIR)/kind_$(1).o: $(BOARD_SRC)/board_kind.cpp $(BOARD_DIR)/$(1)/obj/.stamp
	@mkdir -p $$(@D)
	$$(call quiet,CXX,$$<)$$(BOARD_CXX) -I$(BOARD_DIR)/$(1)/obj -DGR_BOARD_VTOP=Vboard_$(1) -DGR_BOARD_FACTORY=gr_board_new_$(1) \
	  -c $$< -o $$@
endef
$(foreach k,$(BOARD_KINDS),$(eval $(call board_kind,$(k))))

$(BOARD_DIR)/board_api.o: $(BOARD_SRC)/board_api.cpp $(BOARD_DIR)/kinds.cmd
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(BOARD_CXX) $(BOARD_HAVE) -c $< -o $@

# The API object is rebuilt when the set of kinds changes.
$(BOARD_DIR)/kinds.cmd: _board_force
	@mkdir -p $(@D)
	@echo '$(BOARD_KINDS)' | cmp -s - $@ || echo '$(BOARD_KINDS)' > $@

BOARD_OBJS := $(BOARD_DIR)/board_api.o $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/kind_$(k).o)
$(BOARD_LIB): $(BOARD_OBJS) $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/$(k)/obj/.stamp)
	@rm -f $@ $@.mri
	@{ echo "create $@"; \
	   for k in $(BOARD_KINDS); do echo "addlib $(BOARD_DIR)/$$k/obj/Vboard_$$k""__ALL.a"; done; \
	   for o in $(BOARD_OBJS); do echo "addmod $$o"; done; \
	   echo "save"; echo "end"; } > $@.mri
	$(call quiet,AR,$@)$(AR) -M < $@.mri
	@rm -f $@.mri
	@ranlib $@

all: $(BOARD_LIB)

-include $(BOARD_DIR)/board_api.d $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/kind_$(k).d)

.PHONY: _board_force
