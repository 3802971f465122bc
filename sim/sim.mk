# SPDX-License-Identifier: Apache-2.0
# sim/sim.mk: the simulator that ships (sim/README.md), each library and nothing else: the
# harness (SIM_LIB: gpu_core verilated, the CSR driver, the AXI host-memory and VRAM models,
# Verilator's run-time), the board models (BOARD_LIB: per kind a wrapper verilated into its own
# class Vboard_<kind>, one BoardImpl each, the C API) and the USB chip emulation. Their names are
# in mk/rules.mk. Another RTL tree into another directory:
#   make RTL_ROOT=/tmp/mutant/rtl SIM_DIR=build/sim-mutant test-harness
# ---- harness ---------------------------------------------------------------------------------
SIM_OBJ := $(SIM_DIR)/obj
# Objects that do not include the Verilated model (the models' unit tests link these).
HARNESS_MODEL_OBJS := $(patsubst %,$(SIM_DIR)/harness/%.o,axi_mem_model axi_test_master csr_driver \
                        host_memory txlog vram_memory)
HARNESS_OBJS := $(HARNESS_MODEL_OBJS) $(SIM_DIR)/harness/sim_core.o $(SIM_DIR)/harness/wave.o
# Verilator's include directory, asked once per make run and only when it is needed.
SIM_VROOT = $(eval SIM_VROOT := $$(shell $(VERILATOR) --getenv VERILATOR_ROOT))$(SIM_VROOT)
# The defines must match the model's build (see $(SIM_OBJ)/V$(RTL_TOP)_classes.mk).
SIM_VDEFS := -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0
SIM_CXXFLAGS ?= $(CFLAGS)
HARNESS_CXX = $(CXX) -std=c++17 $(SIM_CXXFLAGS) $(PIC_CFLAGS) $(WARN) -MMD -MP $(SIM_CPPFLAGS)
# SIM_VFLAGS adds Verilator options (mutant builds pass -Wno-fatal: a mutant may leave a signal unused).
SIM_VFLAGS ?=
# ID_BUILD.STAMP of the simulated gpu_core: a date as the hex digits YYMMDD (0x261126), of
# $SOURCE_DATE_EPOCH when set, else of the checkout's last commit (UTC), else 0; the same tree
# always gets the same stamp. GR_BUILD_STAMP=N (0..0xffffff, decimal or 0x hex) sets it. A new
# stamp changes the Verilator command below, which re-verilates.
GR_BUILD_STAMP ?= $(shell if [ -n "$$SOURCE_DATE_EPOCH" ]; then date -u -d "@$$SOURCE_DATE_EPOCH" +0x%y%m%d; \
                    else TZ=UTC git log -1 --format=%cd --date=format-local:0x%y%m%d 2>/dev/null | grep . || echo 0; fi)
SIM_BUILD_STAMP := $(shell echo '$(GR_BUILD_STAMP)' | grep -Eqx '0[xX][0-9a-fA-F]{1,6}|0|[1-9][0-9]{0,7}' && \
                     v=$$(( $(GR_BUILD_STAMP) )) && [ "$$v" -le 16777215 ] && echo $$v)
ifeq ($(SIM_BUILD_STAMP),)
$(error GR_BUILD_STAMP='$(GR_BUILD_STAMP)' is not a stamp (accepted: 0..0xffffff, decimal or 0x hex))
endif
SIM_VERILATE := $(VERILATOR) --cc --trace-fst -Wall $(SIM_VFLAGS) $(addprefix --CFLAGS ,$(PIC_CFLAGS)) -GBuildStamp=$(SIM_BUILD_STAMP) -I$(RTL_INC) --top-module $(RTL_TOP) \
                --Mdir $(SIM_OBJ) $(wildcard $(RTL_ROOT)/lint.vlt) $(RTL_SRCS)
# sim/harness/verilated_lib.mk builds Verilator's run-time library next to the model with the same
# flags (and CXX, so a sanitizer build reaches it): 5.006's --build leaves it to the user.
$(eval $(call verilated_lib,$(SIM_DIR),$(RTL_TOP),the RTL,SIM_VERILATE,$(RTL_SRCS) $(wildcard $(RTL_INC)/*.vh) \
  $(wildcard $(RTL_ROOT)/lint.vlt) sim/harness/verilated_lib.mk,-f V$(RTL_TOP).mk CXX='$$(CXX)' \
  -f $(CURDIR)/sim/harness/verilated_lib.mk V$(RTL_TOP)__ALL.a libverilated.a,--runtime ))
$(SIM_DIR)/harness/sim_core.o: $(SIM_OBJ)/.stamp
$(SIM_DIR)/harness/sim_core.o: private HARNESS_CXX += -isystem $(SIM_VROOT)/include \
    -isystem $(SIM_VROOT)/include/vltstd -I$(SIM_OBJ) $(SIM_VDEFS) -faligned-new
# wave.cpp reads FST files with the reader in Verilator's bundled fstapi (libverilated has it).
$(SIM_DIR)/harness/wave.o: private HARNESS_CXX += -isystem $(SIM_VROOT)/include
$(SIM_DIR)/harness.cmd: _force
	@:$(call cmdfile,$@,$(HARNESS_CXX))
$(SIM_DIR)/harness/%.o: sim/harness/%.cpp $(SIM_DIR)/harness.cmd
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(HARNESS_CXX) -c $< -o $@
$(SIM_LIB): $(HARNESS_OBJS) $(SIM_OBJ)/.stamp
	$(call ar_merge,$(SIM_OBJ)/V$(RTL_TOP)__ALL.a $(SIM_OBJ)/libverilated.a,$(HARNESS_OBJS))
all: $(SIM_LIB)
-include $(HARNESS_OBJS:.o=.d)
# ---- board models ----------------------------------------------------------------------------
# The link-chip kinds are board.v (fpga_core + the kind's PHY + the link chip's model) with
# -GKind=N, the HELLO Link number; every chip model is read for each, in generate branches of
# which one is elaborated. limesdr and ulx3s: board_<kind>.v around the exact ECP5 top from
# boards/ as its bitstream build reads it, with the models of the primitives it instantiates
# (boards/common/sim) and of its chips. The VRAM model and Verilator's run-time come from SIM_LIB.
BOARD_KIND_stream := 1
BOARD_KIND_uart := 2
BOARD_KIND_ft601 := 3
BOARD_KIND_ft245 := 4
BOARD_RTL := $(sort $(wildcard bridge/rtl/*.v))
BOARD_VLT := sim/board/board.vlt $(wildcard $(RTL_ROOT)/lint.vlt)
BOARD_ECP5_SIM := boards/common/sim/BB.v boards/common/sim/EHXPLLL.v boards/common/sim/ODDRX1F.v boards/common/ecp5_clk_rst.v
# An exact top's parameter checks (the PLL arithmetic, the primitives' settings) stop the build:
# -Wno-fatal below must not let their $error through.
BOARD_VFLAGS_limesdr := -Werror-USERERROR
BOARD_VFLAGS_ulx3s := -Werror-USERERROR
BOARD_TOP_limesdr := board_limesdr
BOARD_SRCS_limesdr := $(BOARD_ECP5_SIM) boards/common/vram_ram.v \
    boards/limesdr_mini_v2/limesdr_top.v sim/models/ft601/ft601_model.v sim/board/board_limesdr.v
BOARD_TOP_ulx3s := board_ulx3s
BOARD_SRCS_ulx3s := $(BOARD_ECP5_SIM) boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v \
    boards/ulx3s/ulx3s_top.v sim/models/uart/uart_line_model.v sim/models/sdram/sdram_model.v \
    sim/board/board_ulx3s.v
$(foreach k,stream uart ft601 ft245,$(eval BOARD_TOP_$(k) := board)$(eval BOARD_SRCS_$(k) := \
  sim/models/uart/uart_line_model.v sim/models/ft601/ft601_model.v sim/models/ft2232h/ft2232h_model.v sim/board/board.v))
# -Wno-fatal: the link RTL is linted by `make lint`; a warning in it must not keep the board
# library (and every test over a board) from building. Warnings stay in the build log.
BOARD_VERILATE = $(VERILATOR) --cc --trace-fst -Wall -Wno-fatal --timescale 1ns/1ps \
    -I$(RTL_INC) -Ibridge/rtl --top-module $(BOARD_TOP_$(1)) $(if $(BOARD_KIND_$(1)),-GKind=$(BOARD_KIND_$(1))) $(BOARD_VFLAGS_$(1)) --prefix Vboard_$(1) \
    --Mdir $(BOARD_DIR)/$(1)/obj $(BOARD_VLT) $(wildcard boards/common/sim/boards.vlt) $(RTL_SRCS) $(BOARD_RTL) $(BOARD_SRCS_$(1))
BOARD_CXX = $(CXX) -std=c++17 $(SIM_CXXFLAGS) $(WARN) -MMD -MP $(BOARD_CPPFLAGS) \
    -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd $(SIM_VDEFS) -faligned-new
# Every kind is built (BOARD_KINDS); gr_board_kind_built() tells a program which kinds it has.
BOARD_HAVE := $(foreach k,$(BOARD_ALL_KINDS),-DGR_BOARD_HAVE_$(shell echo $(k) | tr a-z A-Z)=$(if $(filter $(k),$(BOARD_KINDS)),1,0))
define board_kind
BOARD_VERILATE_$(1) = $$(call BOARD_VERILATE,$(1))
$$(eval $$(call verilated_lib,$(BOARD_DIR)/$(1),board $(1),$(BOARD_TOP_$(1))$(if $(BOARD_KIND_$(1)), Kind=$(BOARD_KIND_$(1))),BOARD_VERILATE_$(1),\
  $(RTL_SRCS) $(BOARD_RTL) $(BOARD_SRCS_$(1)) $(BOARD_VLT) $(wildcard $(RTL_INC)/*.vh),\
  -f Vboard_$(1).mk Vboard_$(1)__ALL.a))
$(BOARD_DIR)/kind_$(1).o: sim/board/board_kind.cpp $(BOARD_DIR)/$(1)/obj/.stamp
	@mkdir -p $$(@D)
	$$(call quiet,CXX,$$<)$$(BOARD_CXX) -I$(BOARD_DIR)/$(1)/obj -DGR_BOARD_VTOP=Vboard_$(1) -DGR_BOARD_FACTORY=gr_board_new_$(1) \
	  -c $$< -o $$@
endef
$(foreach k,$(BOARD_KINDS),$(eval $(call board_kind,$(k))))
# The API object is rebuilt when the set of kinds changes.
$(BOARD_DIR)/kinds.cmd: _force
	@:$(call cmdfile,$@,$(BOARD_KINDS))
$(BOARD_DIR)/board_api.o: sim/board/board_api.cpp $(BOARD_DIR)/kinds.cmd
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(BOARD_CXX) $(BOARD_HAVE) -c $< -o $@
BOARD_OBJS := $(BOARD_DIR)/board_api.o $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/kind_$(k).o)
$(BOARD_LIB): $(BOARD_OBJS) $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/$(k)/obj/.stamp)
	$(call ar_merge,$(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/$(k)/obj/Vboard_$(k)__ALL.a),$(BOARD_OBJS))
all: $(BOARD_LIB)
-include $(BOARD_OBJS:.o=.d)
# ---- USB chip emulation ----------------------------------------------------------------------
# The chips emulated at the usbdevfs ioctl level (umockdev) over the board library; glib's and
# umockdev's flags asked once per make run and only when needed.
USB_UMOCKDEV_CFLAGS = $(eval USB_UMOCKDEV_CFLAGS := $$(shell pkg-config --cflags umockdev-1.0))$(USB_UMOCKDEV_CFLAGS)
$(USB_EMU_OBJ): sim/usb/usb_emu.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -MMD -MP $(BOARD_CPPFLAGS) -isystem /usr/include/umockdev-1.0 \
	  $(patsubst -I%,-isystem %,$(USB_UMOCKDEV_CFLAGS)) -c $< -o $@
$(USB_ENV_OBJ): sim/usb/usb_env.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) -MMD -MP $(BOARD_CPPFLAGS) -c $< -o $@
-include $(USB_EMU_OBJ:.o=.d) $(USB_ENV_OBJ:.o=.d)
# ---- VFIO emulation (sim/vfio/README.md): a preload library, the simulation inside it hidden ----
$(VFIO_DIR)/vfio_emu.o: sim/vfio/vfio_emu.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(CSTD) $(WARN) $(CFLAGS) $(PIC_CFLAGS) -MMD -MP -Isim/harness -Ihost/include -c $< -o $@
# The card behind it (sim/vfio/pcie_card.cpp): pcie_core (the shell and gpu_core) verilated as
# Vpcie_card, its VRAM model and Verilator's run-time from SIM_LIB. -Wno-fatal: the shell is
# linted by `make lint-pcie`.
PCIE_CARD_DIR := $(SIM_DIR)/pcie_card
PCIE_CARD_RTL := $(sort $(wildcard bridge/rtl/pcie/*.v))
PCIE_CARD_VERILATE = $(VERILATOR) --cc --trace-fst -Wall -Wno-fatal $(addprefix --CFLAGS ,$(PIC_CFLAGS)) \
    -GBuildStamp=$(SIM_BUILD_STAMP) -I$(RTL_INC) --top-module pcie_core --prefix Vpcie_card \
    --Mdir $(PCIE_CARD_DIR)/obj $(wildcard $(RTL_ROOT)/lint.vlt) $(RTL_SRCS) $(PCIE_CARD_RTL)
$(eval $(call verilated_lib,$(PCIE_CARD_DIR),pcie card,pcie_core,PCIE_CARD_VERILATE,$(RTL_SRCS) $(PCIE_CARD_RTL) \
  $(wildcard $(RTL_INC)/*.vh),-f Vpcie_card.mk Vpcie_card__ALL.a))
$(VFIO_DIR)/pcie_card.o: sim/vfio/pcie_card.cpp $(PCIE_CARD_DIR)/obj/.stamp
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(CXX) -std=c++17 $(SIM_CXXFLAGS) $(PIC_CFLAGS) $(WARN) -MMD -MP -Isim/harness -Ihost/include \
	  -isystem $(SIM_VROOT)/include -isystem $(SIM_VROOT)/include/vltstd -I$(PCIE_CARD_DIR)/obj $(SIM_VDEFS) \
	  -faligned-new -c $< -o $@
$(VFIO_EMU_SO): $(VFIO_DIR)/vfio_emu.o $(VFIO_DIR)/pcie_card.o $(PCIE_CARD_DIR)/obj/.stamp $(SIM_LIB)
	$(call quiet,LD,$@)$(CXX) -shared -o $@ -Wl,--no-undefined -Wl,--exclude-libs,ALL $(VFIO_DIR)/vfio_emu.o \
	  $(VFIO_DIR)/pcie_card.o $(PCIE_CARD_DIR)/obj/Vpcie_card__ALL.a $(SIM_LIB) $(SIM_LDLIBS) -ldl
all: $(VFIO_EMU_SO)
-include $(VFIO_DIR)/vfio_emu.d $(VFIO_DIR)/pcie_card.d
