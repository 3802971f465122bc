# SPDX-License-Identifier: Apache-2.0
# mk/rules.mk: the rule-makers, one per kind of build or test, and the names of what one fragment
# builds and another uses; read first, then the fragments in any order. Target-specific
# variables are private, or a prerequisite's flags file would depend on who asked first.
# ---- shared names ----------------------------------------------------------------------------
# sim/sim.mk: the harness (gr_sim.h), the board models (gr_board.h), the USB chip emulation
# (gr_usb_emu.h, usb_env.o). *_LDLIBS: what a program linking the library also needs.
SIM_DIR ?= $(BUILD)/sim
SIM_LIB := $(SIM_DIR)/libgr_sim.a
# zlib for the FST writer, the C++ runtime, libm, and threads and atomics as Verilator links them
SIM_LDLIBS := -lz -lstdc++ -lm -lpthread -latomic $(COV_LDLIBS)
SIM_CPPFLAGS := -Isim/harness -Ihost/include
BOARD_DIR ?= $(BUILD)/board
BOARD_LIB := $(BOARD_DIR)/libgr_board.a
BOARD_LDLIBS = $(SIM_LIB) $(SIM_LDLIBS)
BOARD_CPPFLAGS := -Isim/board -Isim/harness -Ihost/include
BOARD_ALL_KINDS := stream uart ft601 ft245 limesdr ulx3s
BOARD_KINDS := $(BOARD_ALL_KINDS)
USB_DIR := $(BUILD)/usb
USB_EMU_OBJ := $(USB_DIR)/usb_emu.o
USB_ENV_OBJ := $(USB_DIR)/usb_env.o
# The VFIO emulation (sim/vfio): a preload library with gpu_core's simulation inside, hidden.
VFIO_DIR := $(BUILD)/vfio
VFIO_EMU_SO := $(VFIO_DIR)/libgr_vfio_emu.so
# umockdev's preload library linked in, as libusb's own umockdev test does: the program runs in
# the mock environment without LD_PRELOAD (--no-as-needed keeps the unreferenced library).
USB_UMOCKDEV_LIBS = $(eval USB_UMOCKDEV_LIBS := $$(shell pkg-config --libs umockdev-1.0))$(USB_UMOCKDEV_LIBS)
USB_LDLIBS = -Wl,--push-state,--no-as-needed -lumockdev-preload -Wl,--pop-state $(USB_UMOCKDEV_LIBS) \
             -lftdi1 -lusb-1.0 -lcmocka -ldl
# host/host.mk: the gr_* library (status and registers, the transports, the miniport, the OS
# stand-in), gpuctl, the demo and gpuref-simd. PIC_CFLAGS: these objects are libgpuref.so's too.
HOST_OBJ_DIR := $(BUILD)/host
HOST_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) $(DEBUG_FLAGS) $(CPPFLAGS_HOST) -Ihost/conformance \
               -Ihost/kmd -Ihost/dxgk -Ihost/dxgk/vidmm -Ihost/dxgk/vidsch -Ihost/broker -pthread -MMD -MP $(PIC_CFLAGS)
LIBGPUREF_SRCS := $(foreach d,host/lib bridge/host host/kmd host/dxgk host/dxgk/vidmm host/dxgk/vidsch host/broker,\
                    $(sort $(wildcard $(d)/*.c)))
LIBGPUREF_OBJS := $(patsubst %.c,$(HOST_OBJ_DIR)/%.o,$(LIBGPUREF_SRCS))
LIBGPUREF := $(BUILD)/lib/libgpuref.a
CONFORMANCE_OBJS := $(HOST_OBJ_DIR)/host/conformance/gr_conformance.o
# gpuctl: the command line and dispatch, its help, the register, allocation, command-path and
# waveform and trace-diff commands, then the session and the output helpers they share.
GPUCTL := $(BUILD)/bin/gpuctl
GPUCTL_OBJS := $(patsubst %,$(HOST_OBJ_DIR)/host/tools/%.o,gpuctl gpuctl_help gpuctl_regs gpuctl_alloc \
                 gpuctl_submit gpuctl_trace gpuctl_tracediff gpuctl_session gpuctl_out)
GR_DEMO := $(BUILD)/bin/gr_demo
GPUREF_SIMD := $(BUILD)/bin/gpuref-simd
GPUREF_BROKER := $(BUILD)/bin/gpuref-broker
# Everything a program needs to drive a device over any built-in transport (usb://: libftdi1, libusb).
GPUREF_USB_LDLIBS := -lftdi1 -lusb-1.0
GPUREF_LINK := $(LIBGPUREF) $(SIM_LIB) $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread
GPUREF_SO_LDLIBS := $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread
# ---- helpers ---------------------------------------------------------------------------------
empty :=
space := $(empty) $(empty)
# Run a sub-make in parallel unless we already share make's job server.
SUBMAKE_J = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(JOBS))
# `$(MAKE) $(SELF) TARGET` in a recipe: this build again (make sees $(MAKE) in the line: -n runs it).
SELF = --no-print-directory -f $(firstword $(MAKEFILE_LIST))
# make follows files, not flags: $(call cmdfile,FILE,TEXT) rewrites FILE only when its text is
# not TEXT, so a rule depending on FILE reruns when its command changes (stripped: in a recipe,
# $(file <) keeps the last newline).
cmdfile_differ = $(subst $(1),,$(2))$(subst $(2),,$(1))
cmdfile = $(if $(call cmdfile_differ,$(strip $(file <$(1))),$(strip $(2))),$(shell mkdir -p $(dir $(1)))$(file >$(1),$(2)))
.PHONY: _force
_force:
# $(call ar_merge,ARCHIVES,OBJECTS): the recipe lines that make $@ of the archives' members and
# the objects (an ar MRI script).
define ar_merge
	@rm -f $@ $@.mri
	@{ echo "create $@"; for a in $(1); do echo "addlib $$a"; done; \
	   for o in $(2); do echo "addmod $$o"; done; echo "save"; echo "end"; } > $@.mri
	$(call quiet,AR,$@)$(AR) -M < $@.mri
	@rm -f $@.mri
	@ranlib $@
endef
# $(call verilated_lib,DIR,NAME,WHAT,VERILATE,DEPS,MAKEARGS,STEPARGS): the Verilator command in
# the variable VERILATE (WHAT to C++) into DIR/obj, again when the command changes
# (DIR/verilate.cmd), then the model's own make with MAKEARGS; DIR/obj/.stamp when both are
# done. scripts/build-step.sh keeps their output in DIR/obj/build.log, a line per stage.
define verilated_lib
$(1)/verilate.cmd: _force
	@:$$(call cmdfile,$$@,$$($(4)))
$(1)/obj/.stamp: $(1)/verilate.cmd $(5)
	@rm -rf $(1)/obj
	@mkdir -p $(1)/obj
	@scripts/build-step.sh VERILATE '$(2): $(3) to C++' $(1)/obj/build.log -- $$($(4))
	@scripts/build-step.sh --append --progress $(1)/obj $(7)MODEL '$(2): the Verilated model' $(1)/obj/build.log -- \
	  $$(MAKE) --no-print-directory $$(SUBMAKE_J) -C $(1)/obj $(6)
	@touch $$@
endef
# ---- tests -----------------------------------------------------------------------------------
# Each suite is a target test-<name> that writes TAP to $(BUILD)/test/<name>.tap and its exit
# status as a last "# exit N" line; tb/tap_summary.py sums them into the closing line (a skip is
# counted as skipped, and fails under CI=true). A suite run alone (make test-NAME) fails on a
# "not ok" or a non-zero exit; make test passes TAP_KEEP_GOING=1 and judges in the summary.
# $(call tap_run,NAME,COMMAND)
define tap_run
	@mkdir -p $(BUILD)/test
	@echo "== $(1)"
	@t0=$$(date +%s); set -o pipefail; ( $(2) ) 2>&1 | tee $(BUILD)/test/$(1).tap | grep -E "^(not ok|ok|Bail out)" ; \
	  rc=$${PIPESTATUS[0]}; echo "# exit $$rc" >> $(BUILD)/test/$(1).tap; \
	  echo "# wall seconds $$(( $$(date +%s) - t0 ))" >> $(BUILD)/test/$(1).tap; \
	  $(if $(TAP_KEEP_GOING),true,[ $$rc = 0 ] && ! grep -qE "^(not ok|Bail out)" $(BUILD)/test/$(1).tap)
endef
# $(call suite,NAME,PREREQUISITES,COMMAND): suite NAME, test-NAME running COMMAND (a shell suite,
# a script or any command printing TAP).
TEST_SUITES :=
define suite
TEST_SUITES += $(1)
.PHONY: test-$(1)
test-$(1): $(2)
	$$(call tap_run,$(1),$(3))
endef
# $(call cmocka_suite,NAME,PROGRAM,ARGS): suite NAME running the cmocka program PROGRAM (built by
# its own rule) with its TAP output.
cmocka_suite = $(call suite,$(1),$(2),CMOCKA_MESSAGE_OUTPUT=TAP $(2)$(if $(3), $(3)))
# $(call cocotb_suite,NAME,ARGS,PREREQUISITES,BEFORE): suite NAME running a cocotb test in the
# pinned venv: BEFORE (shell commands, an environment) then python ARGS (tb/unit/<dir>/run.py,
# its output directory, the seed).
cocotb_suite = $(call suite,$(1),$$(VENV)/.stamp $(3),$(if $(4),$(4) )$$(VENV_PY) $(2))
# $(call unit_tb,NAME,RTL,DEFINES,ICARUS_SEEDS): tb/unit/NAME/tb_NAME.sv with the RTL files,
# built with Icarus and with Verilator, and its suites unit-NAME-icarus and unit-NAME-verilator
# over UNIT_SEEDS (Icarus over ICARUS_SEEDS when given). DEFINES: for both. Before the line if
# needed: UNIT_VFLAGS_<tb> Verilator options after UNIT_VFLAGS, UNIT_INCS_<tb> include
# directories, UNIT_DEPS_<tb> what else its build reads or needs first.
UNIT_OUT := $(BUILD)/unit
UNIT_SEEDS ?= 1 2 3
UNIT_VLT := $(wildcard $(RTL_ROOT)/lint.vlt)
# The test kit every bench may include (tb/unit/common): a change to it rebuilds the benches.
UNIT_KIT := $(wildcard tb/unit/common/*.svh)
# Verilator: --binary --timing, -Wall on TB and RTL alike; --unroll-count 1, or a testbench's
# loops of register accesses become megabytes of C++. UNIT_TRACE=1 compiles FST tracing in (for
# +wave=<file>; it doubles the build time).
UNIT_TRACE ?= 0
UNIT_VFLAGS = --binary --timing -Wall --unroll-count 1 -j $(JOBS) \
              $(if $(filter 1,$(UNIT_TRACE)),--trace-fst -DUNIT_TRACE)
UNIT_IFLAGS := -g2012 -Wall
UNIT_ALL :=
define unit_tb
$(if $(3),UNIT_DEFS_$(1) = $(3))
$(if $(4),UNIT_ICARUS_SEEDS_$(1) := $(4))
UNIT_TB_$(1) := tb/unit/$(1)/tb_$(1).sv
UNIT_RTL_$(1) := $(2)
UNIT_VVP_$(1) := $(UNIT_OUT)/$(1)/icarus/tb_$(1).vvp
UNIT_VBIN_$(1) := $(UNIT_OUT)/$(1)/verilator/Vtb_$(1)
UNIT_ICMD_$(1) = $(IVERILOG) $(UNIT_IFLAGS) $$(addprefix -I,$$(UNIT_INCS_$(1)) $(RTL_INC)) \
    $$(UNIT_DEFS_$(1)) -s tb_$(1) -o $$(UNIT_VVP_$(1)) $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1))
UNIT_VCMD_$(1) = $(VERILATOR) $$(UNIT_VFLAGS)$$(if $$(UNIT_VFLAGS_$(1)), $$(UNIT_VFLAGS_$(1))) $$(addprefix -I,$$(UNIT_INCS_$(1)) $(RTL_INC)) \
    $$(UNIT_DEFS_$(1)) \
    --top-module tb_$(1) --Mdir $(UNIT_OUT)/$(1)/verilator -o Vtb_$(1) \
    $(UNIT_VLT) $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1))
$(UNIT_OUT)/$(1)/icarus/build.cmd: _force
	@:$$(call cmdfile,$$@,$$(UNIT_ICMD_$(1)))
$(UNIT_OUT)/$(1)/verilator/build.cmd: _force
	@:$$(call cmdfile,$$@,$$(UNIT_VCMD_$(1)))
$$(UNIT_VVP_$(1)): $(UNIT_OUT)/$(1)/icarus/build.cmd $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1)) $$(UNIT_DEPS_$(1)) $(UNIT_KIT)
	$$(call quiet,IVERILOG,tb_$(1) (log: $(UNIT_OUT)/$(1)/icarus/build.log))$$(UNIT_ICMD_$(1)) \
	  >$(UNIT_OUT)/$(1)/icarus/build.log 2>&1 || { cat $(UNIT_OUT)/$(1)/icarus/build.log; exit 1; }
$$(UNIT_VBIN_$(1)): $(UNIT_OUT)/$(1)/verilator/build.cmd $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1)) $$(UNIT_DEPS_$(1)) $(UNIT_KIT) $(UNIT_VLT)
	$$(call quiet,VERILATE,tb_$(1) (log: $(UNIT_OUT)/$(1)/verilator/build.log))$$(UNIT_VCMD_$(1)) \
	  >$(UNIT_OUT)/$(1)/verilator/build.log 2>&1 || \
	  { grep -E "%(Error|Warning)" -A3 $(UNIT_OUT)/$(1)/verilator/build.log || tail -30 $(UNIT_OUT)/$(1)/verilator/build.log; exit 1; }
.PHONY: unit-$(1)-icarus unit-$(1)-verilator
unit-$(1)-icarus: $$(UNIT_VVP_$(1))
unit-$(1)-verilator: $$(UNIT_VBIN_$(1))
all: $$(UNIT_VVP_$(1)) $$(UNIT_VBIN_$(1))
UNIT_ALL += unit-$(1)-icarus unit-$(1)-verilator
$$(eval $$(call suite,unit-$(1)-icarus,$$(UNIT_VVP_$(1)),tb/unit/run_seeds.sh "$$$$(or $$$$(UNIT_ICARUS_SEEDS_$(1)),$$$$(UNIT_SEEDS))" $(VVP) -n $$(UNIT_VVP_$(1))))
$$(eval $$(call suite,unit-$(1)-verilator,$$(UNIT_VBIN_$(1)),tb/unit/run_seeds.sh "$$$$(UNIT_SEEDS)" $$(UNIT_VBIN_$(1))))
endef
# $(call host_unit,NAME,SRCS,FLAGS,LIBS): $(BUILD)/tb/unit/NAME/test_NAME (HOST_UNIT_NAME) built
# from SRCS in one command (the library's source straight in: no device, no link), its .d beside.
define host_unit
HOST_UNIT_$(1) := $(BUILD)/tb/unit/$(1)/test_$(1)
$$(HOST_UNIT_$(1)): $(2)
	@mkdir -p $$(@D)
	$$(call quiet,LD,$$@)$$(CC) $$(CSTD) $$(WARN) $$(CFLAGS) $(3) -MMD -MP -o $$@ $(2) $(4)
all: $$(HOST_UNIT_$(1))
-include $$(HOST_UNIT_$(1)).d
endef
# $(call program,PATH,OBJECTS,LINK): PATH linked from the objects (and the archives among the
# prerequisites) with the libraries LINK, part of `make`.
define program
$(1): $(2)
	@mkdir -p $$(@D)
	$$(call quiet,LD,$$@)$$(CC) -o $$@ $$(filter %.o,$$^) $(3)
all: $(1)
endef
# $(call system_suite,SUITE,NAME,VAR,LINK,SEEDS): tb/system/test_NAME.c built into
# $(BUILD)/tb/system/test_NAME (VAR_TEST) and run as suite SUITE: once for each seed in VAR_SEEDS
# (default SEEDS), or once without --seed when SEEDS is empty. LINK: gpuref (libgpuref and the
# harness), sched (that and the VidSch fixture) or sim (the harness alone: the engine is driven
# through its registers, not the host library). Optional: SYSTEM_ENV_<suite> a shell prefix,
# SYSTEM_ARGS_<suite> more arguments, SYSTEM_DEPS_<suite> more prerequisites of the run,
# SYSTEM_OBJS_<suite> more objects to link.
define system_suite
$(3)_TEST := $(BUILD)/tb/system/test_$(2)
$(3)_SEEDS ?= $(5)
$$(eval $$(call program,$$($(3)_TEST),$(HOST_OBJ_DIR)/tb/system/test_$(2).o $$(SYSTEM_OBJS_$(1)) \
  $(if $(filter sched,$(4)),$$(SCHED_FIXTURE_OBJ)) $(if $(filter sim,$(4)),,$$(LIBGPUREF)) $$(SIM_LIB),\
  $(if $(filter sim,$(4)),$$$$(SIM_LIB) $$$$(SIM_LDLIBS),$$$$(GPUREF_LINK)) -lcmocka))
TEST_SUITES += $(1)
.PHONY: test-$(1)
test-$(1): $$($(3)_TEST) $$(SYSTEM_DEPS_$(1))
	$$(call tap_run,$(1),$$(SYSTEM_ENV_$(1))$(if $(5),for s in $$($(3)_SEEDS); do CMOCKA_MESSAGE_OUTPUT=TAP $$< --seed $$$$s$$(SYSTEM_ARGS_$(1)) || exit 1; done,CMOCKA_MESSAGE_OUTPUT=TAP $$<))
endef
