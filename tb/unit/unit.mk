# SPDX-License-Identifier: Apache-2.0
# tb/unit/unit.mk: the RTL unit testbenches, each built with Icarus and with Verilator and run
# as TAP suites over several seeds. Included by the top Makefile (BUILD, RTL_ROOT, RTL_INC,
# RTL_SRCS, VERILATOR, IVERILOG, JOBS and tap_run come from there).
#   make test-unit-csr_block-icarus            one suite (seeds UNIT_SEEDS, default 1 2 3)
#   make unit-csr_block-verilator              just build; binaries under $(BUILD)/unit/<tb>/
#   make test-unit-csr_block-icarus UNIT_SEEDS="17 18"
#   make RTL_ROOT=/tmp/mutant/rtl BUILD=build/mutant test-unit-csr_block-verilator
# A new testbench: tb/unit/<tb>/tb_<tb>.sv, then $(eval $(call unit_tb,<tb>,<rtl files>))
# below (UNIT_DEFS_/UNIT_INCS_/UNIT_DEPS_<tb> if it needs them). See tb/unit/README.md.

UNIT_SRC := tb/unit
UNIT_OUT := $(BUILD)/unit
UNIT_SEEDS ?= 1 2 3
UNIT_RUN := $(UNIT_SRC)/run_seeds.sh
VVP ?= vvp
UNIT_VLT := $(wildcard $(RTL_ROOT)/lint.vlt)
# The test kit every bench may include (tb/unit/common): a change to it rebuilds the benches.
UNIT_KIT := $(wildcard $(UNIT_SRC)/common/*.svh)

# Per testbench, optional: UNIT_DEFS_<tb> preprocessor flags (the same for both simulators;
# quoted for the shell), UNIT_VFLAGS_<tb> Verilator options after UNIT_VFLAGS (a later
# --unroll-count wins), UNIT_INCS_<tb> include directories, UNIT_DEPS_<tb> what else the
# build reads or needs made first, UNIT_ICARUS_SEEDS_<tb> the seeds of its Icarus suite when
# they should be fewer than UNIT_SEEDS (a bench that Icarus runs for minutes a seed: the
# Verilator suite still runs every seed).

# tb_csr_block reads the register map as regtool generates it for the host (gr_regdesc.c),
# turned into a Verilog include by gen_csr_map, and checks that the device reports the hash
# the host was built with (GR_REGMAP_HASH).
UNIT_REGMAP_H := host/include/gpuref/gr_regmap.h
UNIT_REGMAP_HASH = $(shell sed -n 's/^\#define GR_REGMAP_HASH 0x\([0-9a-fA-F]*\)u.*/\1/p' $(UNIT_REGMAP_H))
UNIT_CSR_GEN := $(UNIT_OUT)/csr_block/gen
UNIT_DEFS_csr_block = "-DREGMAP_HASH=32'h$(UNIT_REGMAP_HASH)"
UNIT_INCS_csr_block := $(UNIT_CSR_GEN)
UNIT_DEPS_csr_block := $(UNIT_CSR_GEN)/csr_map.vh $(UNIT_REGMAP_H)

$(UNIT_CSR_GEN)/gen_csr_map: $(UNIT_SRC)/csr_block/gen_csr_map.c host/lib/gr_regdesc.c host/lib/gr_regdesc_query.c \
                             host/include/gpuref/gr_regdesc.h
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -std=c11 -Wall -Wextra -Werror -Ihost/include -o $@ $(filter %.c,$^)
$(UNIT_CSR_GEN)/csr_map.vh: $(UNIT_CSR_GEN)/gen_csr_map $(UNIT_REGMAP_H)
	@test -n "$(UNIT_REGMAP_HASH)" || { echo "unit.mk: no GR_REGMAP_HASH in $(UNIT_REGMAP_H)"; exit 1; }
	$(call quiet,GEN,$@)$< >$@.tmp && mv $@.tmp $@

# Verilator: --binary --timing (5.006 builds the TB's delays and event controls with C++20
# coroutines, g++ 12 is fine), -Wall on TB and RTL alike. --unroll-count 1: Verilator unrolls
# loops of up to 64 passes by default, and a testbench's loops of register accesses then
# become megabytes of C++ that take minutes to compile. UNIT_TRACE=1 compiles FST tracing in
# (for +wave=<file>; it doubles the build time, so it is off by default).
UNIT_TRACE ?= 0
UNIT_VFLAGS = --binary --timing -Wall --unroll-count 1 -j $(JOBS) \
              $(if $(filter 1,$(UNIT_TRACE)),--trace-fst -DUNIT_TRACE)
UNIT_IFLAGS := -g2012 -Wall

# A build is redone when its command line changes (another RTL_ROOT, a new register map hash,
# an RTL file added), not only when a file it reads is newer.
# $(call unit_cmdfile,FILE,COMMAND): rewrite FILE when its text differs from COMMAND.
unit_differ = $(subst $(1),,$(2))$(subst $(2),,$(1))
unit_cmdfile = $(if $(call unit_differ,$(file <$(1)),$(2)),$(shell mkdir -p $(dir $(1)))$(file >$(1),$(2)))

# $(call unit_tb,NAME,RTL_FILES): the Icarus and Verilator builds of tb/unit/NAME/tb_NAME.sv
# and their suites unit-NAME-icarus and unit-NAME-verilator.
define unit_tb
UNIT_TB_$(1) := $(UNIT_SRC)/$(1)/tb_$(1).sv
UNIT_RTL_$(1) := $(2)
UNIT_VVP_$(1) := $(UNIT_OUT)/$(1)/icarus/tb_$(1).vvp
UNIT_VBIN_$(1) := $(UNIT_OUT)/$(1)/verilator/Vtb_$(1)
UNIT_ICMD_$(1) = $(IVERILOG) $(UNIT_IFLAGS) $$(addprefix -I,$$(UNIT_INCS_$(1)) $(RTL_INC)) \
    $$(UNIT_DEFS_$(1)) -s tb_$(1) -o $$(UNIT_VVP_$(1)) $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1))
UNIT_VCMD_$(1) = $(VERILATOR) $$(UNIT_VFLAGS)$$(if $$(UNIT_VFLAGS_$(1)), $$(UNIT_VFLAGS_$(1))) $$(addprefix -I,$$(UNIT_INCS_$(1)) $(RTL_INC)) \
    $$(UNIT_DEFS_$(1)) \
    --top-module tb_$(1) --Mdir $(UNIT_OUT)/$(1)/verilator -o Vtb_$(1) \
    $(UNIT_VLT) $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1))

$(UNIT_OUT)/$(1)/icarus/build.cmd: _unit_force
	@:$$(call unit_cmdfile,$$@,$$(UNIT_ICMD_$(1)))
$(UNIT_OUT)/$(1)/verilator/build.cmd: _unit_force
	@:$$(call unit_cmdfile,$$@,$$(UNIT_VCMD_$(1)))

$$(UNIT_VVP_$(1)): $(UNIT_OUT)/$(1)/icarus/build.cmd $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1)) \
                  $$(UNIT_DEPS_$(1)) $(UNIT_KIT)
	$$(call quiet,IVERILOG,tb_$(1) (log: $(UNIT_OUT)/$(1)/icarus/build.log))$$(UNIT_ICMD_$(1)) \
	  >$(UNIT_OUT)/$(1)/icarus/build.log 2>&1 || { cat $(UNIT_OUT)/$(1)/icarus/build.log; exit 1; }
$$(UNIT_VBIN_$(1)): $(UNIT_OUT)/$(1)/verilator/build.cmd $$(UNIT_TB_$(1)) $$(UNIT_RTL_$(1)) \
                   $$(UNIT_DEPS_$(1)) $(UNIT_KIT) $(UNIT_VLT)
	$$(call quiet,VERILATE,tb_$(1) (log: $(UNIT_OUT)/$(1)/verilator/build.log))$$(UNIT_VCMD_$(1)) \
	  >$(UNIT_OUT)/$(1)/verilator/build.log 2>&1 || \
	  { grep -E "%(Error|Warning)" -A3 $(UNIT_OUT)/$(1)/verilator/build.log || tail -30 $(UNIT_OUT)/$(1)/verilator/build.log; exit 1; }

.PHONY: unit-$(1)-icarus unit-$(1)-verilator test-unit-$(1)-icarus test-unit-$(1)-verilator
unit-$(1)-icarus: $$(UNIT_VVP_$(1))
unit-$(1)-verilator: $$(UNIT_VBIN_$(1))
all: $$(UNIT_VVP_$(1)) $$(UNIT_VBIN_$(1))
UNIT_ALL += unit-$(1)-icarus unit-$(1)-verilator

TEST_SUITES += unit-$(1)-icarus unit-$(1)-verilator
test-unit-$(1)-icarus: $$(UNIT_VVP_$(1))
	$$(call tap_run,unit-$(1)-icarus,$(UNIT_RUN) "$$(or $$(UNIT_ICARUS_SEEDS_$(1)),$$(UNIT_SEEDS))" $(VVP) -n $$(UNIT_VVP_$(1)))
test-unit-$(1)-verilator: $$(UNIT_VBIN_$(1))
	$$(call tap_run,unit-$(1)-verilator,$(UNIT_RUN) "$$(UNIT_SEEDS)" $$(UNIT_VBIN_$(1)))
endef

UNIT_ALL :=
# The table: one line a testbench, its RTL (and the models it runs against), with what a bench
# needs beyond unit_tb's defaults just above its line.
$(eval $(call unit_tb,csr_block,$(filter $(RTL_ROOT)/csr/%,$(RTL_SRCS))))
$(eval $(call unit_tb,cmn_axi_err_slave,$(RTL_ROOT)/common/cmn_axi_err_slave.v))
# The DMA engine's testbenches share their two memories (tb/unit/common: tb_dma_mems, built on
# the AXI port model tb_dma_axi_mem).
UNIT_DMA_MEM := $(UNIT_SRC)/common/tb_dma_mems.sv $(UNIT_SRC)/common/tb_dma_axi_mem.sv
UNIT_DMA_RTL = $(filter $(RTL_ROOT)/dma/%,$(RTL_SRCS))
# Icarus runs the DMA benches for half a minute a seed: one seed there, every seed under Verilator.
UNIT_ICARUS_SEEDS_dma_mover := 1
UNIT_ICARUS_SEEDS_dma_top := 1
$(eval $(call unit_tb,dma_mover,$(UNIT_DMA_MEM) $(addprefix $(RTL_ROOT)/dma/,dma_fifo.v dma_agen.v dma_mover.v dma_xlate.v)))
$(eval $(call unit_tb,dma_top,$(UNIT_DMA_MEM) $(UNIT_DMA_RTL)))
# mc_aperture (BAR1 window, VPR); two masters contending through mc_vram_arb.
$(eval $(call unit_tb,mc_aperture,$(RTL_ROOT)/mc/mc_aperture.v))
$(eval $(call unit_tb,mc_vram_arb,$(RTL_ROOT)/mc/mc_vram_arb.v))
# The PCIe shell's blocks alone (bridge/rtl/pcie; the shell itself: tb/unit/pcie/pcie.mk): the
# TLP cutting rule, pcie_irq (MSI, retry, INTA), pcie_cpl (CQ in, CC out, BAR0/BAR1 models),
# pcie_req (AXI4 master, RQ sink, RC source). pcie_req's loops over its tag and slot arrays
# assign them with <=, which Verilator 5.006 only builds unrolled (BLKLOOPINIT): its
# testbench's build unrolls loops as a default build does.
UNIT_PCIE := bridge/rtl/pcie
$(eval $(call unit_tb,pcie_req_split,$(UNIT_PCIE)/pcie_req_split.v))
$(eval $(call unit_tb,pcie_irq,$(UNIT_PCIE)/pcie_irq.v))
$(eval $(call unit_tb,pcie_cpl,$(UNIT_PCIE)/pcie_cpl.v))
UNIT_VFLAGS_pcie_req := --unroll-count 64
$(eval $(call unit_tb,pcie_req,$(UNIT_PCIE)/pcie_req.v $(UNIT_PCIE)/pcie_req_split.v))
# The SDR SDRAM controller (boards/common/sdram) against the SDRAM model written from the
# IS42S16160G data sheet (sim/models/sdram), at 143 MHz with CAS latency 3 (sdr_ctrl) and at
# 100 MHz with CAS latency 2 (sdr_ctrl_cl2, which includes the same testbench). Icarus runs the
# testbench with fewer operations and one seed (it is ~100x slower here).
SDR_RTL := boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v sim/models/sdram/sdram_model.v
UNIT_ICARUS_SEEDS_sdr_ctrl := 1
$(eval $(call unit_tb,sdr_ctrl,$(SDR_RTL)))
UNIT_INCS_sdr_ctrl_cl2 := $(UNIT_SRC)/sdr_ctrl
UNIT_DEPS_sdr_ctrl_cl2 := $(UNIT_SRC)/sdr_ctrl/tb_sdr_ctrl.sv
UNIT_ICARUS_SEEDS_sdr_ctrl_cl2 := 1
$(eval $(call unit_tb,sdr_ctrl_cl2,$(SDR_RTL)))

# The SDR controller is outside rtl/, so make lint does not see it: the same three checks here.
TEST_SUITES += lint-sdr_ctrl
.PHONY: test-lint-sdr_ctrl
test-lint-sdr_ctrl:
	$(call tap_run,lint-sdr_ctrl,VERILATOR=$(VERILATOR) IVERILOG=$(IVERILOG) YOSYS=$(YOSYS) tb/unit/sdr_ctrl/lint.sh $(BUILD)/lint-sdr_ctrl)

# The Verilator 5.006 bug the mc_vram_arb bench works around, reduced (tb/unit/mc_vram_arb/README.md):
# Icarus passes it, Verilator 5.006 fails it. Not a suite: it tests the simulator.
VL_SELW_DIR := $(BUILD)/unit/mc_vram_arb/vl_select_write
VL_SELW_SRC := tb/unit/mc_vram_arb/vl_select_write.sv
.PHONY: vl-select-write
vl-select-write:
	@mkdir -p $(VL_SELW_DIR)
	@$(IVERILOG) -g2012 -Wall -s vl_select_write -o $(VL_SELW_DIR)/icarus.vvp $(VL_SELW_SRC)
	@echo "# Icarus:"; $(VVP) -n $(VL_SELW_DIR)/icarus.vvp | grep -v '\$$finish'
	@$(VERILATOR) --binary --timing -Wall --top-module vl_select_write --Mdir $(VL_SELW_DIR)/verilator \
	  -o Vvl_select_write $(VL_SELW_SRC) >$(VL_SELW_DIR)/verilator.log 2>&1 || { cat $(VL_SELW_DIR)/verilator.log; exit 1; }
	@echo "# $$($(VERILATOR) --version):"; $(VL_SELW_DIR)/verilator/Vvl_select_write | grep -v '\$$finish'

# Every unit testbench built with both simulators (no run).
.PHONY: unit _unit_force
unit: $(UNIT_ALL)
_unit_force:
