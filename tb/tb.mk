# SPDX-License-Identifier: Apache-2.0
# tb/tb.mk: every test suite of `make test`, one table line each, by kind: RTL unit benches under
# Icarus and Verilator (unit_tb), host unit tests (host_unit), cmocka system suites
# (system_suite), cocotb tests (cocotb_suite) and scripts printing TAP (suite); the rule-makers
# are in mk/rules.mk, tb/README.md says how to add one. Seeds: <VAR>_SEEDS or the suite's own.
# ---- RTL unit benches (tb/README.md, "Running one suite") ------------------------------------
# tb_csr_block reads the host's register map (gr_regdesc.c, as a Verilog include by gen_csr_map)
# and checks that the device reports the hash the host was built with (GR_REGMAP_HASH).
UNIT_REGMAP_H := host/include/gpuref/gr_regmap.h
UNIT_REGMAP_HASH = $(shell sed -n 's/^\#define GR_REGMAP_HASH 0x\([0-9a-fA-F]*\)u.*/\1/p' $(UNIT_REGMAP_H))
UNIT_CSR_GEN := $(UNIT_OUT)/csr_block/gen
UNIT_INCS_csr_block := $(UNIT_CSR_GEN)
UNIT_DEPS_csr_block := $(UNIT_CSR_GEN)/csr_map.vh $(UNIT_REGMAP_H)
$(UNIT_CSR_GEN)/gen_csr_map: tb/unit/csr_block/gen_csr_map.c host/lib/gr_regdesc.c host/lib/gr_regdesc_query.c \
                             host/include/gpuref/gr_regdesc.h
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -std=c11 -Wall -Wextra -Werror -Ihost/include -o $@ $(filter %.c,$^)
$(UNIT_CSR_GEN)/csr_map.vh: $(UNIT_CSR_GEN)/gen_csr_map $(UNIT_REGMAP_H)
	@test -n "$(UNIT_REGMAP_HASH)" || { echo "tb.mk: no GR_REGMAP_HASH in $(UNIT_REGMAP_H)"; exit 1; }
	$(call quiet,GEN,$@)$< >$@.tmp && mv $@.tmp $@
# Each bench is described in tb/unit/README.md. Icarus runs the DMA, SDRAM and link engine benches
# one seed (minutes each), Verilator every seed; the CDC primitives, PHYs and chip models build
# with GR_ASSERT (the FIFOs' pointer and Gray-code checks).
UNIT_DMA_MEM := tb/unit/common/tb_dma_mems.sv tb/unit/common/tb_dma_axi_mem.sv
UNIT_PCIE := bridge/rtl/pcie
UNIT_VFLAGS_pcie_req := --unroll-count 64  # its tag and slot loops assign with <=: Verilator 5.006 needs them unrolled (BLKLOOPINIT)
UNIT_SDR := boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v sim/models/sdram/sdram_model.v
UNIT_INCS_sdr_ctrl_cl2 := tb/unit/sdr_ctrl
UNIT_DEPS_sdr_ctrl_cl2 := tb/unit/sdr_ctrl/tb_sdr_ctrl.sv
UNIT_LINK := $(addprefix bridge/rtl/,link_crc32.v link_ram.v link_rx_align.v link_rx.v link_tx.v \
    link_dispatch.v link_host_slave.v link_engine.v)
UNIT_INCS_link_engine_b1 := tb/unit/link_engine
UNIT_DEPS_link_engine_b1 := tb/unit/link_engine/tb_link_engine.sv
UNIT_CDC := $(RTL_ROOT)/common/cmn_sync2.v $(RTL_ROOT)/common/cmn_async_fifo.v
#                      bench              RTL (and models)                     defines    Icarus seeds
$(eval $(call unit_tb,csr_block,$(filter $(RTL_ROOT)/csr/%,$(RTL_SRCS)),"-DREGMAP_HASH=32'h$$(UNIT_REGMAP_HASH)"))
$(eval $(call unit_tb,cmn_axi_err_slave,$(RTL_ROOT)/common/cmn_axi_err_slave.v))
$(eval $(call unit_tb,dma_mover,$(UNIT_DMA_MEM) $(addprefix $(RTL_ROOT)/dma/,dma_fifo.v dma_agen.v dma_mover.v dma_xlate.v),,1))
$(eval $(call unit_tb,dma_top,$(UNIT_DMA_MEM) $(filter $(RTL_ROOT)/dma/%,$(RTL_SRCS)),,1))
$(eval $(call unit_tb,mc_aperture,$(RTL_ROOT)/mc/mc_aperture.v))
$(eval $(call unit_tb,mc_vram_arb,$(RTL_ROOT)/mc/mc_vram_arb.v))
$(eval $(call unit_tb,pcie_req_split,$(UNIT_PCIE)/pcie_req_split.v))
$(eval $(call unit_tb,pcie_irq,$(UNIT_PCIE)/pcie_irq.v))
$(eval $(call unit_tb,pcie_cpl,$(UNIT_PCIE)/pcie_cpl.v))
$(eval $(call unit_tb,pcie_req,$(UNIT_PCIE)/pcie_req.v $(UNIT_PCIE)/pcie_req_split.v))
$(eval $(call unit_tb,sdr_ctrl,$(UNIT_SDR),,1))
$(eval $(call unit_tb,sdr_ctrl_cl2,$(UNIT_SDR),,1))
$(eval $(call unit_tb,link_crc32,bridge/rtl/link_crc32.v))
$(eval $(call unit_tb,link_engine,$(UNIT_LINK),,1))
$(eval $(call unit_tb,link_engine_b1,$(UNIT_LINK),,1))
$(eval $(call unit_tb,cmn_async_fifo,$(UNIT_CDC),-DGR_ASSERT))
$(eval $(call unit_tb,link_phy_uart,$(UNIT_CDC) bridge/rtl/link_phy_uart.v sim/models/uart/uart_line_model.v,-DGR_ASSERT))
$(eval $(call unit_tb,link_phy_ft601,$(UNIT_CDC) bridge/rtl/link_phy_ioreg.v bridge/rtl/link_phy_ftfifo.v bridge/rtl/link_phy_ft600bus.v bridge/rtl/link_phy_ft601.v sim/models/ft601/ft601_model.v,-DGR_ASSERT))
$(eval $(call unit_tb,link_phy_ft245,$(UNIT_CDC) bridge/rtl/link_phy_ftfifo.v bridge/rtl/link_phy_ft245.v sim/models/ft2232h/ft2232h_model.v,-DGR_ASSERT))
# Every unit bench built with both simulators (no run).
.PHONY: unit
unit: $(UNIT_ALL)
# The Verilator 5.006 bug the mc_vram_arb bench works around, reduced (tb/unit/mc_vram_arb/README.md):
# Icarus passes it, Verilator 5.006 fails it. Not a suite: it tests the simulator.
VL_SELW_DIR := $(UNIT_OUT)/mc_vram_arb/vl_select_write
VL_SELW_SRC := tb/unit/mc_vram_arb/vl_select_write.sv
.PHONY: vl-select-write
vl-select-write:
	@mkdir -p $(VL_SELW_DIR)
	@$(IVERILOG) -g2012 -Wall -s vl_select_write -o $(VL_SELW_DIR)/icarus.vvp $(VL_SELW_SRC)
	@echo "# Icarus:"; $(VVP) -n $(VL_SELW_DIR)/icarus.vvp | grep -v '\$$finish'
	@$(VERILATOR) --binary --timing -Wall --top-module vl_select_write --Mdir $(VL_SELW_DIR)/verilator \
	  -o Vvl_select_write $(VL_SELW_SRC) >$(VL_SELW_DIR)/verilator.log 2>&1 || { cat $(VL_SELW_DIR)/verilator.log; exit 1; }
	@echo "# $$($(VERILATOR) --version):"; $(VL_SELW_DIR)/verilator/Vvl_select_write | grep -v '\$$finish'
# The GPU MMU's suites, in shapes of their own (tb/unit/README.md; replay: $(BUILD)/unit/mc_mmu/
# verilator/test_mc_mmu --seed N --verbose).
MC_MMU_DIR := $(UNIT_OUT)/mc_mmu
MC_MMU_RTL := $(addprefix $(RTL_ROOT)/mc/,mc_mmu.v mc_tlb.v mc_walker.v mc_pwc.v)
MC_MMU_SEEDS ?= 1 2 3 4 5 6
MC_MMU_TB_SEEDS ?= 1 2 3
MC_MMU_BIN := $(MC_MMU_DIR)/verilator/test_mc_mmu
MC_MMU_CXXFLAGS := -std=c++17 $(CFLAGS) -I$(abspath sim/harness) -I$(abspath tb/unit/mc_mmu) \
                   -I$(abspath tb/models/mmu_ref)
MMU_REF_OBJ := $(HOST_OBJ_DIR)/tb/models/mmu_ref/ref_walker.o
# Verilator builds model and test together; the test's own warnings are then checked with the
# project's flags (Verilator's generated code is not held to them).
$(MC_MMU_BIN): $(MC_MMU_RTL) tb/unit/mc_mmu/test_mc_mmu.cpp tb/models/mmu_ref/ref_walker.h \
               $(MMU_REF_OBJ) sim/harness/prng.h $(wildcard $(RTL_INC)/*.vh)
	@mkdir -p $(@D) && rm -f $@ # Verilator's make would not relink for a newer ref_walker.o
	$(call quiet,VERILATE,$@)$(VERILATOR) --cc --exe --build -j $(JOBS) -Wall -DGR_ASSERT -I$(RTL_INC) --top-module mc_mmu \
	  --Mdir $(@D)/obj -o $(abspath $@) -CFLAGS "$(MC_MMU_CXXFLAGS)" \
	  $(MC_MMU_RTL) $(abspath tb/unit/mc_mmu/test_mc_mmu.cpp) $(abspath $(MMU_REF_OBJ)) \
	  > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }
	$(CXX) $(MC_MMU_CXXFLAGS) $(WARN) -fsyntax-only -I$(@D)/obj \
	  -isystem $(SIM_VROOT)/include tb/unit/mc_mmu/test_mc_mmu.cpp
$(MC_MMU_DIR)/icarus/tb8.vvp $(MC_MMU_DIR)/icarus/tb16.vvp: $(MC_MMU_DIR)/icarus/tb%.vvp: \
    tb/unit/mc_mmu/tb_mc_mmu.sv tb/unit/common/tb_kit.svh $(MC_MMU_RTL)
	@mkdir -p $(@D)
	set -o pipefail; $(IVERILOG) -g2012 -DGR_ASSERT -I$(RTL_INC) -s tb_mc_mmu -P tb_mc_mmu.DataBytes=$* -o $@ \
	  tb/unit/mc_mmu/tb_mc_mmu.sv $(MC_MMU_RTL) 2>&1 | { grep -v "sorry: constant selects" || true; }
# The testbench (not the RTL) leans on Verilog's integer widening: WIDTH is off for it alone.
$(MC_MMU_DIR)/verilator/tb: tb/unit/mc_mmu/tb_mc_mmu.sv tb/unit/common/tb_kit.svh $(MC_MMU_RTL)
	@mkdir -p $(@D)
	$(call quiet,VERILATE,$@)$(VERILATOR) --binary --timing -j $(JOBS) -Wno-WIDTH -DGR_ASSERT -I$(RTL_INC) \
	  --top-module tb_mc_mmu --Mdir $(@D)/tbobj -o $(abspath $@) \
	  tb/unit/mc_mmu/tb_mc_mmu.sv $(MC_MMU_RTL) > $(@D)/tb-build.log 2>&1 \
	  || { cat $(@D)/tb-build.log; exit 1; }
all: $(MC_MMU_BIN) $(MC_MMU_DIR)/icarus/tb8.vvp $(MC_MMU_DIR)/icarus/tb16.vvp $(MC_MMU_DIR)/verilator/tb
$(eval $(call program,$(MC_MMU_DIR)/gpu_core/test_mc_mmu_gpu_core,$(HOST_OBJ_DIR)/tb/unit/mc_mmu/test_mc_mmu_gpu_core.o \
  $(HOST_OBJ_DIR)/host/lib/gr_status.o $(SIM_LIB),$$(SIM_LIB) $$(SIM_LDLIBS)))
$(eval $(call suite,unit-mc_mmu,$(MC_MMU_BIN),$$(foreach s,$$(MC_MMU_SEEDS),$$< --seed $$(s) &&) true))
$(eval $(call suite,unit-mc_mmu-icarus,$(MC_MMU_DIR)/icarus/tb8.vvp $(MC_MMU_DIR)/icarus/tb16.vvp,$$(foreach s,$$(MC_MMU_TB_SEEDS),\
  $$(VVP) -n $$(MC_MMU_DIR)/icarus/tb8.vvp +seed=$$(s) && $$(VVP) -n $$(MC_MMU_DIR)/icarus/tb16.vvp +seed=$$(s) &&) true))
$(eval $(call suite,unit-mc_mmu-verilator,$(MC_MMU_DIR)/verilator/tb,$$(foreach s,$$(MC_MMU_TB_SEEDS),$$< +seed=$$(s) &&) true))
$(eval $(call suite,unit-mc_mmu-lint,,VERILATOR="$$(VERILATOR)" IVERILOG="$$(IVERILOG)" YOSYS="$$(YOSYS)" \
  RTL_INC="$$(RTL_INC)" OUT="$$(MC_MMU_DIR)/lint" tb/unit/mc_mmu/lint_mc_mmu.sh $$(MC_MMU_RTL)))
$(eval $(call suite,unit-mc_mmu-gpu_core,$(MC_MMU_DIR)/gpu_core/test_mc_mmu_gpu_core,$$< --seed 1 && $$< --seed 2))
# ---- host unit tests, without a device ---------------------------------------------------------
# The library's sources straight into the test (tb/README.md). vidmm_flags' truth table runs
# again through gr_alloc_create on sim:// (test_vidmm_flags_vidmm, bus seed VIDMM_FLAGS_SEED).
VIDMM_I := -Ihost/include -Ihost/dxgk -Ihost/dxgk/vidmm
$(eval $(call host_unit,ddi_layout,tb/unit/ddi_layout/test_ddi_layout.c,-pedantic -Ihost/include -Itb/unit/ddi_layout))
$(eval $(call host_unit,vidmm_flags,tb/unit/vidmm_flags/test_vidmm_flags.c host/dxgk/vidmm/vidmm_flag_rules.c \
  host/lib/gr_status.c,$(VIDMM_I)))
$(eval $(call host_unit,vidmm_gpuva,tb/unit/vidmm_gpuva/test_vidmm_gpuva.c host/dxgk/vidmm/vidmm_gpuva.c \
  tb/models/mmu_ref/ref_walker.c host/lib/gr_status.c,$$(DEBUG_FLAGS) $(VIDMM_I) -Itb/models/mmu_ref,-lcmocka))
$(eval $(call host_unit,vidmm_segment,tb/unit/vidmm_segment/test_vidmm_segment.c host/dxgk/vidmm/vidmm_segment.c \
  host/lib/gr_status.c,$(VIDMM_I)))
$(eval $(call host_unit,vidmm_policy,tb/unit/vidmm_policy/test_vidmm_policy.c host/dxgk/vidmm/vidmm_policy.c \
  host/dxgk/vidmm/vidmm_segment.c host/lib/gr_status.c,$(VIDMM_I)))
DDI_LAYOUT_CXX := $(BUILD)/tb/unit/ddi_layout/test_ddi_layout_cxx
$(DDI_LAYOUT_CXX): tb/unit/ddi_layout/test_ddi_layout_cxx.cpp
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CXX) -std=c++17 $(WARN) -pedantic $(CFLAGS) -Ihost/include -Itb/unit/ddi_layout -MMD -MP -o $@ $<
all: $(DDI_LAYOUT_CXX)
VIDMM_FLAGS_VIDMM_TEST := $(BUILD)/tb/unit/vidmm_flags/test_vidmm_flags_vidmm
VIDMM_FLAGS_SEED ?= 1
$(VIDMM_FLAGS_VIDMM_TEST): tb/unit/vidmm_flags/test_vidmm_flags.c $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(HOST_CFLAGS) -DVIDMM_FLAGS_VIA_VIDMM -o $@ $< $(GPUREF_LINK)
all: $(VIDMM_FLAGS_VIDMM_TEST)
-include $(DDI_LAYOUT_CXX).d $(VIDMM_FLAGS_VIDMM_TEST).d
$(eval $(call suite,ddi-layout,$(HOST_UNIT_ddi_layout) $(DDI_LAYOUT_CXX),$(HOST_UNIT_ddi_layout); s=$$$$?; $(DDI_LAYOUT_CXX) || s=1; exit $$$$s))
$(eval $(call suite,vidmm-flags,$(HOST_UNIT_vidmm_flags) $(VIDMM_FLAGS_VIDMM_TEST),$(HOST_UNIT_vidmm_flags); rc=$$$$?; \
  $(VIDMM_FLAGS_VIDMM_TEST) --seed $$(VIDMM_FLAGS_SEED) || rc=1; exit $$$$rc))
$(eval $(call suite,vidmm-gpuva,$(HOST_UNIT_vidmm_gpuva),CMOCKA_MESSAGE_OUTPUT=TAP $(HOST_UNIT_vidmm_gpuva) --seed 1 && \
  CMOCKA_MESSAGE_OUTPUT=TAP $(HOST_UNIT_vidmm_gpuva) --seed 2))
$(eval $(call suite,vidmm-segment,$(HOST_UNIT_vidmm_segment),$(HOST_UNIT_vidmm_segment)))
# VidMm's placement around pinned ranges (vidmm_policy.c) on the real segment allocator.
$(eval $(call suite,vidmm-policy,$(HOST_UNIT_vidmm_policy),$(HOST_UNIT_vidmm_policy) --seed 1 && \
  $(HOST_UNIT_vidmm_policy) --seed 2))
# ---- the simulator's own tests, the reference models -------------------------------------------
# harness-models links the harness objects without the model. Files the tests write (waveforms,
# logs) stay in test-out for a look after a failure.
HARNESS_TEST := $(SIM_DIR)/test_harness
HARNESS_MODELS_TEST := $(SIM_DIR)/test_harness_models
HARNESS_MODELS_OBJS := $(patsubst tb/unit/harness_models/%.cpp,$(SIM_DIR)/harness_models/%.o,\
                         $(wildcard tb/unit/harness_models/*.cpp))
HARNESS_TEST_ARGS ?=
$(SIM_DIR)/test_harness.o: tb/unit/harness/test_harness.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) -std=c11 $(CFLAGS) $(WARN) -MMD -MP $(SIM_CPPFLAGS) -isystem $(SIM_VROOT)/include -c $< -o $@
$(HARNESS_TEST): $(SIM_DIR)/test_harness.o $(SIM_LIB)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $< $(SIM_LIB) -lcmocka $(SIM_LDLIBS)
$(SIM_DIR)/harness_models/%.o: tb/unit/harness_models/%.cpp
	@mkdir -p $(@D)
	$(call quiet,CXX,$<)$(HARNESS_CXX) -c $< -o $@
$(HARNESS_MODELS_TEST): $(HARNESS_MODELS_OBJS) $(HARNESS_MODEL_OBJS)
	$(call quiet,LD,$@)$(CXX) $(SIM_CXXFLAGS) -o $@ $^
BOARD_TEST := $(BOARD_DIR)/test_board
$(BOARD_DIR)/test_board.o: tb/system/test_board.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) -std=c11 $(CFLAGS) $(WARN) -MMD -MP $(BOARD_CPPFLAGS) -c $< -o $@
$(BOARD_TEST): $(BOARD_DIR)/test_board.o $(BOARD_LIB) $(SIM_LIB)
	$(call quiet,LD,$@)$(CC) $(CFLAGS) -o $@ $< $(BOARD_LIB) -lcmocka $(BOARD_LDLIBS)
all: $(BOARD_TEST)
-include $(SIM_DIR)/test_harness.d $(HARNESS_MODELS_OBJS:.o=.d) $(BOARD_DIR)/test_board.d
$(eval $(call suite,harness,$(HARNESS_TEST),rm -rf $$(SIM_DIR)/test-out && mkdir -p $$(SIM_DIR)/test-out && \
  CMOCKA_MESSAGE_OUTPUT=TAP $$(HARNESS_TEST) --outdir $$(SIM_DIR)/test-out $$(HARNESS_TEST_ARGS)))
$(eval $(call suite,harness-models,$(HARNESS_MODELS_TEST),$$(HARNESS_MODELS_TEST) $$(HARNESS_TEST_ARGS)))
$(eval $(call suite,board,$(BOARD_TEST),rm -rf $$(BOARD_DIR)/test-out && mkdir -p $$(BOARD_DIR)/test-out && \
  CMOCKA_MESSAGE_OUTPUT=TAP $$(BOARD_TEST) --outdir $$(BOARD_DIR)/test-out))
# The DMA engine's reference model and the MMU walker it translates with (tb/models).
DMA_REF_OBJS := $(HOST_OBJ_DIR)/tb/models/dma_ref/dma_ref.o $(MMU_REF_OBJ)
$(HOST_OBJ_DIR)/tb/models/%.o $(HOST_OBJ_DIR)/tb/system/test_dma_ref.o: private HOST_CFLAGS += -Itb/models/dma_ref -Itb/models/mmu_ref
$(eval $(call program,$(BUILD)/tb/models/dma_ref/test_dma_ref_model,$(HOST_OBJ_DIR)/tb/models/dma_ref/test_dma_ref_model.o \
  $(DMA_REF_OBJS),-lcmocka))
$(eval $(call cmocka_suite,models-dma_ref,$(BUILD)/tb/models/dma_ref/test_dma_ref_model))
# ---- system suites: the whole host stack over sim:// (cmocka) ----------------------------------
# sched_fixture: what the VidSch suites share (main's start, raw registers, gates, counters).
SCHED_FIXTURE_OBJ := $(HOST_OBJ_DIR)/tb/system/sched_fixture.o
# ID_BUILD.STAMP must be the stamp the model was verilated with. gpuref-simd --connect puts the
# server's switch in front of link-proto's C device end. Two seeds: the bus models' timing, the
# random mappings, where the faults fall differ, the results must not.
SYSTEM_ENV_system-device = export GR_EXPECT_BUILD_STAMP=$(SIM_BUILD_STAMP);$(space)
SYSTEM_ARGS_system-link-proto = $(space)--simd $(GPUREF_SIMD)
SYSTEM_DEPS_system-link-proto = $(GPUREF_SIMD)
# system-dma-ref: random command streams checked byte for byte against the reference model,
# DMA_REF_STREAMS streams of each kind from seed DMA_REF_SEED (stream i: seed + i; replay:
# build/tb/system/test_dma_ref --seed S --streams 1).
DMA_REF_SEED ?= 1
DMA_REF_STREAMS ?= 10
SYSTEM_ARGS_system-dma-ref = $(space)--streams $(DMA_REF_STREAMS)
SYSTEM_OBJS_system-dma-ref = $(DMA_REF_OBJS)
# system-broker: forked processes sharing one device through gpuref-broker (host/broker/README.md).
BROKER_TEST := $(BUILD)/tb/system/test_broker
BROKER_ROUNDS ?= 50
$(eval $(call program,$(BROKER_TEST),$(HOST_OBJ_DIR)/tb/system/test_broker.o $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
$(eval $(call suite,system-broker,$(BROKER_TEST) $(GPUREF_BROKER) $(GPUCTL),$(BROKER_TEST) $(GPUREF_BROKER) 'sim://?seed=1' $$(BROKER_ROUNDS) $(GPUCTL)))
# system-vpr-lock: no register writer reaches protected content once the VPR is locked.
VPR_LOCK_TEST := $(BUILD)/tb/system/test_vpr_lock
$(eval $(call program,$(VPR_LOCK_TEST),$(HOST_OBJ_DIR)/tb/system/test_vpr_lock.o $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
$(eval $(call suite,system-vpr-lock,$(VPR_LOCK_TEST),$(VPR_LOCK_TEST) 1))
# system-binding: one driver stack per device on direct opens, on a gpuref-simd stream board.
$(eval $(call suite,system-binding,$(BROKER_TEST) $(GPUREF_BROKER) $(GPUREF_SIMD),$(BROKER_TEST) --binding $(GPUREF_SIMD) $(GPUREF_BROKER)))
#                          suite              tb/system/test_<name>.c  VAR  link    seeds
$(eval $(call system_suite,system-link,link,LINK,gpuref,))
$(eval $(call system_suite,system-device,device,DEVICE,gpuref,1 2))
$(eval $(call system_suite,system-errors,errors,ERRORS,gpuref,))
$(eval $(call system_suite,system-pcie-host,pcie_host,PCIE_HOST,gpuref,))
$(eval $(call system_suite,system-easy,easy,EASY,gpuref,1 2))
$(eval $(call system_suite,system-gpuva,gpuva_sim,GPUVA_SIM,gpuref,1 2))
# The DMA engine is driven through its registers (gr_sim), not the host library.
$(eval $(call system_suite,system-dma-smoke,dma_smoke,DMA_SMOKE,sim,1 2))
$(eval $(call system_suite,system-dma-ref,dma_ref,DMA_REF,sim,$$(DMA_REF_SEED)))
$(eval $(call system_suite,system-dma,dma,DMA,sim,1 2 3))
$(eval $(call system_suite,system-axi-slaves,axi_slaves,AXI_SLAVES,sim,1 2))
$(eval $(call system_suite,system-alloc,alloc,ALLOC,sched,1 2))
$(eval $(call system_suite,system-kmd-submit,kmd_submit,KMD_SUBMIT,sched,1 2))
$(eval $(call system_suite,system-vidsch,vidsch,VIDSCH,sched,1 2))
$(eval $(call system_suite,system-residency,residency,RESIDENCY,sched,1 2))
$(eval $(call system_suite,system-timeline,timeline,TIMELINE,sched,1 2))
$(eval $(call system_suite,system-link-proto,link_proto,LINK_PROTO,gpuref,1 2))
$(eval $(call system_suite,system-isolation,isolation,ISOLATION,sched,1 2))
$(eval $(call system_suite,system-vram-size,vram_size,VRAM_SIZE,gpuref,1))
# system-pcie-vfio: pcie://'s VFIO path and the card's faults on the emulation (sim/vfio/README.md).
PCIE_VFIO_TEST := $(VFIO_DIR)/test_pcie_vfio
$(HOST_OBJ_DIR)/tb/system/test_pcie_vfio.o: private HOST_CFLAGS += -Isim/vfio
$(eval $(call program,$(PCIE_VFIO_TEST),$(HOST_OBJ_DIR)/tb/system/test_pcie_vfio.o $(VFIO_EMU_SO) $(LIBGPUREF) \
  $(SIM_LIB),$$(VFIO_EMU_SO) -Wl$$(comma)-rpath$$(comma)$$(abspath $$(VFIO_DIR)) $$(GPUREF_LINK) -lcmocka))
# Once with each card: pcie_core behind TLPs (the default), then gpu_core alone (card=tlm). The
# mapped BARs' fault handler must see SIGSEGV before ASan (SAN=address) does.
$(eval $(call suite,system-pcie-vfio,$(PCIE_VFIO_TEST),d=$$$$(mktemp -d) && rc=0 && \
  export ASAN_OPTIONS="$$$${ASAN_OPTIONS:+$$$$ASAN_OPTIONS:}allow_user_segv_handler=1" && \
  for card in shell tlm; do echo "# card=$$$$card"; GR_VFIO_EMU_OPTS=card=$$$$card GR_VFIO_EMU=$$$$d/$$$$card \
  CMOCKA_MESSAGE_OUTPUT=TAP $(PCIE_VFIO_TEST) || rc=1; done; rm -rf $$$$d; exit $$$$rc))
# usb:// on the real libusb and libftdi over the emulated chips (build/usb/test_usb --seed N
# replays; --gpuctl diffs its transaction logs against sim://'s), and the usb flavours of the link matrix's suites: the same test objects, with
# usb_env.o putting an emulated chip on the bus at the suite's start.
$(HOST_OBJ_DIR)/tb/system/test_usb.o: private HOST_CFLAGS += -Isim/usb -Isim/board
$(eval $(call program,$(USB_DIR)/test_usb,$(HOST_OBJ_DIR)/tb/system/test_usb.o $(USB_EMU_OBJ) $(CONFORMANCE_OBJS) \
  $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB),$$(BOARD_LIB) $$(GPUREF_LINK) $$(USB_LDLIBS)))
$(eval $(call suite,usb,$(USB_DIR)/test_usb $(GPUCTL),CMOCKA_MESSAGE_OUTPUT=TAP $(USB_DIR)/test_usb --gpuctl $(GPUCTL)))
# The LimeSDR Mini v2's FT601 as it ships (FT600 mode, 2 channels, features 0x0002) for $GR_FT601_EMU_CONFIG.
FT601_CFG_LIMESDR := $(USB_DIR)/ft601_limesdr_mini_v2.cfg
$(FT601_CFG_LIMESDR): sim/usb/ft601_config.py
	@mkdir -p $(@D)
	$(call quiet,GEN,$@)python3 $< --fifo-mode 600 --channels 2 --features 0x0002 -o $@
all: $(FT601_CFG_LIMESDR)
$(eval $(call suite,usb-ft600,$(USB_DIR)/test_usb $(FT601_CFG_LIMESDR) $(GPUCTL),GR_FT601_EMU_CONFIG=$(FT601_CFG_LIMESDR) \
  CMOCKA_MESSAGE_OUTPUT=TAP $(USB_DIR)/test_usb --gpuctl $(GPUCTL)))
USB_SUITE_TESTS := $(patsubst %,$(USB_DIR)/test_%_usb,alloc kmd_submit vidsch residency)
$(USB_DIR)/test_%_usb: $(HOST_OBJ_DIR)/tb/system/test_%.o $(SCHED_FIXTURE_OBJ) $(USB_ENV_OBJ) $(USB_EMU_OBJ) \
                       $(LIBGPUREF) $(BOARD_LIB) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(filter %.o,$^) $(BOARD_LIB) $(GPUREF_LINK) $(USB_LDLIBS)
all: $(USB_SUITE_TESTS)
# The link matrix (tb/system/on_link.sh, tb/README.md): sim://'s system suites unchanged on every
# link. The UART first: its lane is the longest (a 3 Mbaud line), on one core.
LINKS ?= uart simd usb-ft601 usb-ft2232h pcie-vfio
LINKS_FULL ?=
# What a link could break, without the tests that move hundreds of MiB; the slow USB and UART
# links get the smaller set (its residency test moves a single page).
LINKS_ALLOC := segments_come_from_the_mc_registers,shared_resource_opens_read_only_in_another_process,opening_an_allocation_not_laid_out_for_sharing_fails,destroying_a_process_releases_everything,existing_sysmem_refuses_memory_the_device_cannot_reach
LINKS_KMD_SUBMIT := create_context_fills_context_info_and_refuses_bad_requests,submit_reports_the_fence_and_query_current_fence_agrees,a_lost_interrupt_is_reported_by_query_current_fence,cancel_frees_removed_packets,user_contexts_run_unprivileged,reset_from_timeout_stops_a_hung_wait_and_keeps_vram,the_watchdog_allows_the_links_longest_dma_answer,dma_answers_held_back_by_a_long_bar1_write_are_not_a_hang
LINKS_VIDSCH := copy_through_gpu_virtual_addresses_needs_no_patching,fence_ids_increase_and_patch_and_submit_agree,long_packet_is_preempted_by_the_quantum_and_not_reset,packets_that_ran_are_never_cancelled,cancel_during_preemption_cancels_once_and_resubmits_nothing_of_it,hung_packet_times_out_resets_the_gpu_and_the_device_recovers,destroying_a_context_with_work_pending_cancels_it_first
LINKS_RESIDENCY := pinned_allocations_are_never_evicted,residency_is_notified_and_an_evicted_va_faults_without_harm,bad_input_is_refused_and_changes_nothing
LINKS_SMALL_ALLOC := segments_come_from_the_mc_registers,opening_an_allocation_not_laid_out_for_sharing_fails
LINKS_SMALL_KMD_SUBMIT := create_context_fills_context_info_and_refuses_bad_requests,submit_reports_the_fence_and_query_current_fence_agrees,cancel_frees_removed_packets,reset_from_timeout_stops_a_hung_wait_and_keeps_vram,the_watchdog_allows_the_links_longest_dma_answer,dma_answers_held_back_by_a_long_bar1_write_are_not_a_hang
LINKS_SMALL_RESIDENCY := residency_is_notified_and_an_evicted_va_faults_without_harm
# links_run LINK SUITE FILTER: one suite on one link (the usb links run its usb flavour).
links_bin = $(if $(filter usb-%,$(1)),$(USB_DIR)/test_$(2)_usb,$(BUILD)/tb/system/test_$(2))
links_run = GR_TEST_FILTER='$(if $(LINKS_FULL),,$(3))' CMOCKA_MESSAGE_OUTPUT=TAP GR_VFIO_EMU_SO=$(VFIO_EMU_SO) \
  tb/system/on_link.sh $(1) $(GPUREF_SIMD) $(call links_bin,$(1),$(2))
links_one = $(if $(or $(LINKS_FULL),$(filter simd,$(1))),\
  $(call links_run,$(1),alloc,$(LINKS_ALLOC)) || rc=1; \
  $(call links_run,$(1),kmd_submit,$(LINKS_KMD_SUBMIT)) || rc=1; \
  $(call links_run,$(1),vidsch,$(LINKS_VIDSCH)) || rc=1; \
  $(call links_run,$(1),residency,$(LINKS_RESIDENCY)) || rc=1;,\
  $(call links_run,$(1),alloc,$(LINKS_SMALL_ALLOC)) || rc=1; \
  $(call links_run,$(1),kmd_submit,$(LINKS_SMALL_KMD_SUBMIT)) || rc=1; \
  $(call links_run,$(1),residency,$(LINKS_SMALL_RESIDENCY)) || rc=1;)
# Two links at a time (each is one busy simulation), their TAP kept apart and printed in order.
LINKS_OUT := $(BUILD)/test/links
LINKS_DEPS := $(GPUREF_SIMD) $(ALLOC_TEST) $(KMD_SUBMIT_TEST) $(VIDSCH_TEST) $(RESIDENCY_TEST) $(USB_SUITE_TESTS) $(VFIO_EMU_SO)
links-run-%: $(LINKS_DEPS)
	@mkdir -p $(LINKS_OUT)
	@rc=0; { $(call links_one,$*) } >$(LINKS_OUT)/$*.out 2>&1; echo "# exit $$rc" >$(LINKS_OUT)/$*.rc
$(eval $(call suite,system-links,$(LINKS_DEPS),rm -rf $$(LINKS_OUT) && $$(MAKE) $$(SELF) -j2 \
  $$(addprefix links-run-,$$(LINKS)) >/dev/null 2>&1; rc=0; \
  for l in $$(LINKS); do cat $$(LINKS_OUT)/$$$$l.out; grep -q "exit 0" $$(LINKS_OUT)/$$$$l.rc || rc=1; done; exit $$$$rc))
$(eval $(call suite,system-links-ft600,$(LINKS_DEPS) $(FT601_CFG_LIMESDR),export GR_FT601_EMU_CONFIG=$(FT601_CFG_LIMESDR); \
  rc=0; $$(call links_one,usb-ft601) exit $$$$rc))
# ---- cocotb ------------------------------------------------------------------------------------
# pcie: pcie_shell + gpu_core against cocotbext-pcie's hard IP model (bridge/rtl/pcie/README.md),
# with the shell's lint as one more test; pcie-verilator: the same under Verilator. u200-vram:
# the Alveo U200's VRAM slave against cocotbext-axi. GR_TEST_SEED=N (or PCIE_SEED=N) replays.
PCIE_OUT := $(UNIT_OUT)/pcie
PCIE_SEED ?= $(or $(GR_TEST_SEED),1)
U200_VRAM_SEED ?= $(or $(GR_TEST_SEED),1)
$(eval $(call cocotb_suite,pcie,tb/unit/pcie/run.py $$(PCIE_OUT)/cocotb --seed $$(PCIE_SEED) --extra "$$$$lint" \
  "pcie_shell: verilator -Wall clean and icarus elaborates (log: $$(PCIE_OUT)/lint.log)",,set -o pipefail; \
  mkdir -p $$(PCIE_OUT); if $$(MAKE) $$(SELF) lint-pcie-fast >$$(PCIE_OUT)/lint.log 2>&1; then lint="ok"; else lint="not ok"; fi;))
$(eval $(call cocotb_suite,pcie-verilator,tb/unit/pcie/run.py $$(PCIE_OUT)/verilator --seed $$(PCIE_SEED) --sim verilator))
$(eval $(call cocotb_suite,u200-vram,tb/unit/u200_vram/run.py $$(BUILD)/unit/u200_vram --seed $$(U200_VRAM_SEED)))
# pcie-driver (the register conformance suite) and pcie-driver-smoke (the DDI smoke test): the C
# driver over TLPs through cocotbext-pcie's root complex. The test loads PCIE_DRV_SO with ctypes:
# libgpuref's objects, the conformance suite, the test-only cocotb:// backend and the jobs, with
# SIM_LIB folded in and hidden. make bench-link-pcie: bench/link's tables over it (--smoke: tiny).
PCIE_DRV_OUT := $(UNIT_OUT)/pcie-driver
PCIE_DRV_OBJS := $(patsubst %.c,$(HOST_OBJ_DIR)/%.o,tb/unit/pcie/gr_link_cocotb.c tb/unit/pcie/pcie_driver_jobs.c \
                   host/conformance/gr_conformance.c)
PCIE_DRV_SO := $(PCIE_DRV_OUT)/libgpuref_cocotb.so
PCIE_BENCH_OBJ := $(PCIE_DRV_OUT)/bench_link_cocotb.o
$(HOST_OBJ_DIR)/tb/unit/pcie/pcie_driver_jobs.o: private HOST_CFLAGS += -Ibench/link
$(PCIE_BENCH_OBJ): bench/link/bench_link.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(HOST_CFLAGS) -fPIC -DGR_BENCH_COCOTB -Itb/unit/pcie -c $< -o $@
$(PCIE_DRV_SO): $(LIBGPUREF_OBJS) $(PCIE_DRV_OBJS) $(PCIE_BENCH_OBJ) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CXX) -shared -o $@ -Wl,--no-undefined -Wl,--exclude-libs,ALL $(LIBGPUREF_OBJS) \
	  $(PCIE_DRV_OBJS) $(PCIE_BENCH_OBJ) $(SIM_LIB) $(GPUREF_SO_LDLIBS)
-include $(PCIE_BENCH_OBJ:.o=.d)
# system-pcie-vfio-jobs: the pcie-driver suites' conformance and smoke jobs on pcie:// over VFIO,
# the BARs reached with pread/pwrite, then mapped (the emulation's option mmap).
PCIE_JOBS_TEST := $(VFIO_DIR)/test_pcie_jobs
$(eval $(call program,$(PCIE_JOBS_TEST),$(HOST_OBJ_DIR)/tb/system/test_pcie_jobs.o $(PCIE_DRV_OBJS) $(PCIE_BENCH_OBJ) \
  $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
$(eval $(call suite,system-pcie-vfio-jobs,$(PCIE_JOBS_TEST) $(VFIO_EMU_SO),rc=0; export GR_VFIO_EMU_SO=$(VFIO_EMU_SO); \
  tb/system/on_link.sh pcie-vfio \
  $(GPUREF_SIMD) $(PCIE_JOBS_TEST) || rc=1; export ASAN_OPTIONS="$$$${ASAN_OPTIONS:+$$$$ASAN_OPTIONS:}allow_user_segv_handler=1"; \
  GR_VFIO_EMU_OPTS=mmap tb/system/on_link.sh pcie-vfio $(GPUREF_SIMD) $(PCIE_JOBS_TEST) || rc=1; exit $$$$rc))
# test-examples builds the same objects and simulation library in a make of its own (its
# install): when both run in one make (make test, maybe -j2), this waits for it instead of
# writing the same files at the same time.
ifneq ($(filter test-examples,$(MAKECMDGOALS)),)
$(PCIE_DRV_SO): | test-examples
endif
PCIE_DRV_RUN = PCIE_LIBGPUREF=$(abspath $(PCIE_DRV_SO)) PCIE_DRIVER_JOBS=$(1)
$(eval $(call cocotb_suite,pcie-driver,tb/unit/pcie/run.py $$(PCIE_DRV_OUT)/conformance --seed $$(PCIE_SEED) \
  --module test_pcie_driver,$(PCIE_DRV_SO),mkdir -p $$(PCIE_DRV_OUT); $$(call PCIE_DRV_RUN,conformance)))
$(eval $(call cocotb_suite,pcie-driver-smoke,tb/unit/pcie/run.py $$(PCIE_DRV_OUT)/smoke --seed $$(PCIE_SEED) \
  --module test_pcie_driver,$(PCIE_DRV_SO),mkdir -p $$(PCIE_DRV_OUT); $$(call PCIE_DRV_RUN,smoke)))
PCIE_BENCH_ARGS ?=
PCIE_BENCH_MD := $(BUILD)/bench/link-pcie.md
.PHONY: bench-link-pcie
bench: bench-link-pcie
bench-link-pcie: $(VENV)/.stamp $(PCIE_DRV_SO)
	@mkdir -p $(PCIE_DRV_OUT) $(dir $(PCIE_BENCH_MD)) && rm -f $(PCIE_BENCH_MD)
	$(call PCIE_DRV_RUN,bench) PCIE_BENCH_ARGS="--out $(abspath $(PCIE_BENCH_MD)) $(PCIE_BENCH_ARGS)" \
	  $(VENV_PY) tb/unit/pcie/run.py $(PCIE_DRV_OUT)/bench --seed $(PCIE_SEED) --module test_pcie_driver
	@cat $(PCIE_BENCH_MD)
	@echo "bench-link-pcie: $(PCIE_BENCH_MD)"
# ---- scripts printing TAP ----------------------------------------------------------------------
# The generated register files are fresh, and regtool catches a stale or unsupported map.
$(eval $(call suite,regtool,$(VENV)/.stamp,tb/unit/regtool/test_regtool.sh $$(VENV_PY)))
# tap_summary.py's own counts, on fixture TAP files.
$(eval $(call suite,tap-summary,,python3 tb/unit/tap_summary/test_tap_summary.py))
# Every source file names its licence (scripts/spdx.py), and the check fails on a file without it.
$(eval $(call suite,spdx,,tb/unit/spdx/test_spdx.sh))
# Every relative link in the Markdown points to a file a fresh clone has (scripts/check_links.py).
$(eval $(call suite,readme-links,,tb/unit/readme_links/test_readme_links.sh))
# Every public header compiles alone as C11 and as C++17 (the list is what `make install` installs).
HEADERS_CHECKED := $(patsubst host/include/%,%,$(sort $(wildcard host/include/gpuref/*.h)) \
                     host/include/d3dkmddi.h host/include/dispmprt.h)
$(eval $(call suite,headers,,CC=$$(CC) CXX=$$(CXX) tb/unit/headers/check_headers.sh $(BUILD)/headers $(HEADERS_CHECKED)))
# make lint (gpu_core, the PCIe shell, the U200 and ECP5 tops); bridge-lint: Verilator and Icarus
# for every unit a board carries, Yosys for fpga_core and link_phy_ft601 with gpu_core as a black
# box (suite lint synthesizes gpu_core itself; again inside fpga_core it took most of 3.5 minutes).
# The SDR controller is outside rtl/, so make lint does not see it: the same three checks.
$(eval $(call suite,lint,,echo 1..1; if $$(MAKE) $$(SELF) lint; then echo "ok 1 - lint: verilator -Wall and icarus and yosys"; else echo "not ok 1 - lint"; fi))
BRIDGE_SYNTH_TEST := fpga_core link_phy_ft601
$(eval $(call suite,bridge-lint,,mkdir -p $$(BRIDGE_LINT); echo 1..$$(words $$(BRIDGE_TOPS) $$(BRIDGE_SYNTH_TEST)); n=0; \
  for t in $$(BRIDGE_TOPS); do n=$$$$((n + 1)); \
    if $$(MAKE) $$(SELF) lint-bridge-$$$$t >$$(BRIDGE_LINT)/$$$$t.log 2>&1; \
    then echo "ok $$$$n - $$$$t: verilator -Wall clean and icarus elaborates"; \
    else echo "not ok $$$$n - $$$$t: verilator or icarus (log: $$(BRIDGE_LINT)/$$$$t.log)"; fi; done; \
  for t in $$(BRIDGE_SYNTH_TEST); do n=$$$$((n + 1)); \
    if $$(MAKE) $$(SELF) synth-bridge-$$$$t BRIDGE_SYNTH_BB=gpu_core >$$(BRIDGE_LINT)/$$$$t.synth.log 2>&1; \
    then echo "ok $$$$n - $$$$t: yosys synthesizes and check -assert passes"; \
      grep -E "Number of cells" $$(BRIDGE_LINT)/$$$$t.stat | tail -1 | sed "s/^ */# /"; \
    else echo "not ok $$$$n - $$$$t: yosys (log: $$(BRIDGE_LINT)/$$$$t.synth.log)"; fi; done))
$(eval $(call suite,lint-sdr_ctrl,,VERILATOR=$$(VERILATOR) IVERILOG=$$(IVERILOG) YOSYS=$$(YOSYS) \
  tb/unit/sdr_ctrl/lint.sh $$(BUILD)/lint-sdr_ctrl))
# gpu_core's and the link engine's place and route against their floors (synth/synth.mk).
$(eval $(call suite,timing,$(VENV)/.stamp,VENV=$$(VENV) synth/timing.sh --out $$(TIMING_DIR) --seed $$(TIMING_SEEDS) --floor $$(TIMING_FLOOR)))
$(eval $(call suite,link-timing,$(VENV)/.stamp,$$(LINK_TIMING_CMD) --floor $$(LINK_TIMING_FLOOR) --max-lut $$(LINK_TIMING_MAX_LUT)))
# Conformance through gpuctl on sim://, and against RTL mutants (tb/conformance/mutate.sh: a copy
# of rtl/ with one bug, its own harness and gpuctl, built unoptimized) failing at the check named.
MUTANT_DIR := $(BUILD)/mutant
MUTANTS := $(shell tb/conformance/mutate.sh list)
.PRECIOUS: $(MUTANT_DIR)/%/rtl/.stamp
$(MUTANT_DIR)/%/rtl/.stamp: $(RTL_SRCS) $(wildcard $(RTL_ROOT)/common/*.vh) tb/conformance/mutate.sh
	tb/conformance/mutate.sh make $* $(RTL_ROOT) $(@D)
	touch $@
$(MUTANT_DIR)/%/gpuctl: $(MUTANT_DIR)/%/rtl/.stamp $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) $(LIBGPUREF)
	$(MAKE) $(SELF) RTL_ROOT=$(MUTANT_DIR)/$*/rtl SIM_VFLAGS=-Wno-fatal SIM_DIR=$(MUTANT_DIR)/$*/sim \
	  OPT_FAST=-O0 OPT_GLOBAL=-O0 SIM_CXXFLAGS=-O0 $(MUTANT_DIR)/$*/sim/libgr_sim.a
	$(call quiet,LD,$@)$(CC) -o $@ $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) $(LIBGPUREF) $(MUTANT_DIR)/$*/sim/libgr_sim.a $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS)
$(eval $(call suite,conformance,$(GPUCTL),tb/conformance/run_conformance.sh $$(GPUCTL) 'sim://?seed=1' pass && \
  tb/conformance/run_conformance.sh $$(GPUCTL) 'sim://?seed=7&stall=60&latency=20' pass))
$(eval $(call suite,conformance-mutants,$(foreach m,$(MUTANTS),$(MUTANT_DIR)/$(m)/gpuctl),$$(foreach m,$$(MUTANTS),\
  tb/conformance/run_conformance.sh $$(MUTANT_DIR)/$$(m)/gpuctl 'sim://?seed=1' "fail:$$$$(tb/conformance/mutate.sh pattern $$(m))" &&) true))
# gpuctl on sim://; its waveforms (trace on/off, the URI's window, VCD/FST, the save file, the
# errors); gpuref-simd and gpuctl over simd:// and uart:// against every board's RTL.
$(eval $(call suite,system-gpuctl,$(GPUCTL),tb/system/test_gpuctl.sh $(GPUCTL)))
$(eval $(call suite,system-trace,$(GPUCTL),tb/system/test_trace.sh $(GPUCTL) $(BUILD)/test-trace))
$(eval $(call suite,system-simd,$(GPUREF_SIMD) $(GPUCTL),tb/system/test_simd.sh $(GPUREF_SIMD) $(GPUCTL) 1))
# The demo (scripts/demo.sh) on the FT601 board and through gpuref-broker; the slower boards by
# hand, DEMO_LINK_KINDS="stream ft2232h uart" (docs/demo.md has their times).
DEMO_LINK_KINDS ?= ft601 broker
$(eval $(call suite,demo-links,$(GR_DEMO) $(GPUREF_SIMD) $(GPUREF_BROKER),GPUREF_BROKER=$(GPUREF_BROKER) \
  tb/system/test_demo_links.sh $(GR_DEMO) $(GPUREF_SIMD) $$(DEMO_LINK_KINDS)))
# boards-sim: the ECP5 tops behind gpuref-simd --board (tb/boards/README.md). Suite boards:
# board_ids.def, hw_check.sh and each ECP5 board's build.sh --ci (boards/README.md).
BOARD_SMOKE := $(BUILD)/boards-sim/test_board_smoke
$(HOST_OBJ_DIR)/tb/boards/test_board_smoke.o: private HOST_CFLAGS := $(CSTD) $(CFLAGS) $(WARN) -MMD -MP -Ihost/include
$(eval $(call program,$(BOARD_SMOKE),$(HOST_OBJ_DIR)/tb/boards/test_board_smoke.o $(LIBGPUREF) $(SIM_LIB),$$(GPUREF_LINK)))
# ?txlog= and tracediff: sim://, the FT601 and UART boards against sim://; a strap and a mutant caught.
$(eval $(call suite,tracediff,$(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE) $(MUTANT_DIR)/scratch_reset/gpuctl,tb/system/test_tracediff.sh $(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE) $(MUTANT_DIR)/scratch_reset/gpuctl SCRATCH))
BOARD_IDS_TEST := $(BUILD)/boards/test_board_ids
$(BOARD_IDS_TEST): boards/common/test_board_ids.c host/tools/gpuctl_build.h boards/board_ids.def
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CSTD) $(WARN) $(CFLAGS) -o $@ $<
all: $(BOARD_IDS_TEST)
BOARDS_SIM_KINDS ?= limesdr ulx3s
BOARDS_SIM_CONFORMANCE ?= limesdr ulx3s
$(eval $(call suite,boards-sim,$(GPUREF_SIMD) $(GPUCTL) $(BOARD_SMOKE),BOARDS_SIM_CONFORMANCE='$$(BOARDS_SIM_CONFORMANCE)' \
  tb/boards/test_boards_sim.sh $$(GPUREF_SIMD) $$(GPUCTL) $$(BOARD_SMOKE) $$(or $$(GR_TEST_SEED),1) $$(BOARDS_SIM_KINDS)))
$(eval $(call suite,boards,$(VENV)/.stamp $(BOARD_IDS_TEST) $(GPUCTL) $(BOARD_SMOKE) $(GPUREF_SIMD),rc=0; \
  $$(BOARD_IDS_TEST) boards || rc=1; tb/boards/test_hw_check.sh $$(GPUREF_SIMD) $$(GPUCTL) $$(BOARD_SMOKE) || rc=1; \
  for b in $$(ECP5_BOARDS); do VENV=$$(VENV) boards/common/build.sh $$$$b --ci || rc=1; done; exit $$$$rc))
# The examples against an installed gpuref (build/install-test, the library alone in
# build/install-test-lib), pkg-config alone; a failed install is a failed suite, its log named.
EXAMPLES_PREFIX := $(abspath $(BUILD)/install-test)
EXAMPLES_DIR := $(BUILD)/examples
$(eval $(call suite,examples,,mkdir -p $$(EXAMPLES_DIR) && rm -rf $$(EXAMPLES_PREFIX)-lib && \
  $$(MAKE) $$(SELF) install PREFIX=$$(EXAMPLES_PREFIX) DESTDIR= >$$(EXAMPLES_DIR)/install.log 2>&1 \
  || { echo "Bail out! make install PREFIX=$$(EXAMPLES_PREFIX) failed: see $$(EXAMPLES_DIR)/install.log"; exit 1; }; \
  $$(MAKE) $$(SELF) install-lib PREFIX=$$(EXAMPLES_PREFIX)-lib DESTDIR= >>$$(EXAMPLES_DIR)/install.log 2>&1 \
  || { echo "Bail out! make install-lib PREFIX=$$(EXAMPLES_PREFIX)-lib failed: see $$(EXAMPLES_DIR)/install.log"; exit 1; }; \
  CC=$$(CC) CXX=$$(CXX) examples/test_examples.sh $$(EXAMPLES_PREFIX) $$(EXAMPLES_DIR) $$(EXAMPLES_PREFIX)-lib))
# The host side's layering and that nothing shipped is built from tb/ (scripts/check_layers.py
# holds the table; host/README.md): `make check-layers` says it in words, the suite adds the
# check's own tests (tb/unit/layers: fixtures it must fail).
LAYERS_OBJS := $(LIBGPUREF_OBJS) $(GPUCTL_OBJS) $(CONFORMANCE_OBJS) \
               $(HOST_OBJ_DIR)/host/tools/gr_demo.o $(HOST_OBJ_DIR)/host/tools/gpuref_simd.o
LAYERS_SHIPPED := $(LIBGPUREF) $(SIM_LIB) $(BOARD_LIB) $(GPUREF_SIMD) $(SIM_DIR)/verilate.cmd \
                  $(foreach k,$(BOARD_KINDS),$(BOARD_DIR)/$(k)/verilate.cmd)
LAYERS_CHECK = python3 scripts/check_layers.py --objdir $(HOST_OBJ_DIR) --shipped $(LAYERS_SHIPPED) \
               $(wildcard $(BUILD)/lib/install/libgpuref.so.*)
.PHONY: check-layers
check-layers: $(LAYERS_OBJS) $(LAYERS_SHIPPED)
	$(LAYERS_CHECK)
$(eval $(call suite,layers,$(LAYERS_OBJS) $(LAYERS_SHIPPED),$$(LAYERS_CHECK) --tap; s=$$$$?; python3 tb/unit/layers/test_check_layers.py || s=1; exit $$$$s))
# libFuzzer harnesses (tb/fuzz/README.md): clang with ASan and UBSan over the host library (the
# simulation library is the normal gcc build); `make fuzz-build` builds them into $(BUILD)/fuzz/.
FUZZ_CC ?= clang-14
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := $(CSTD) -O1 -g $(WARN) $(DEBUG_FLAGS) $(CPPFLAGS_HOST) -Ihost/kmd -Ihost/dxgk -Ihost/dxgk/vidmm -Ihost/dxgk/vidsch -Ihost/broker -pthread \
               $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP
FUZZERS := fuzz_uri fuzz_alloc_private fuzz_submit
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/,$(FUZZERS))
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(LIBGPUREF_SRCS))
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
.SECONDARY: $(patsubst %,$(FUZZ_DIR)/obj/tb/fuzz/%.o,$(FUZZERS))
$(FUZZ_DIR)/%: $(FUZZ_DIR)/obj/tb/fuzz/%.o $(FUZZ_LIB_OBJS) $(SIM_LIB)
	$(call quiet,LD,$@)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(SIM_LIB) $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread
.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)
-include $(FUZZ_LIB_OBJS:.o=.d) $(patsubst %,$(FUZZ_DIR)/obj/tb/fuzz/%.d,$(FUZZERS))
FUZZ_SEED ?= 1
FUZZ_RUNS_fuzz_uri ?= 500000
FUZZ_RUNS_fuzz_alloc_private ?= 8000
FUZZ_RUNS_fuzz_submit ?= 300
$(eval $(call suite,fuzz,$(FUZZ_BINS),tb/fuzz/run_fuzz.sh $$(FUZZ_DIR) $$(FUZZ_SEED) $$(foreach f,$$(FUZZERS),$$(f):$$(FUZZ_RUNS_$$(f)))))
# wire-fuzz: a hostile client of gpuref-simd written from bridge/PROTOCOL.md alone (tb/fuzz/README.md).
WIRE_FUZZ_SEED ?= 1
WIRE_FUZZ_COUNT ?= 600
$(eval $(call suite,wire-fuzz,$(GPUREF_SIMD),python3 tb/fuzz/wire_fuzz.py $(GPUREF_SIMD) --seed $$(WIRE_FUZZ_SEED) --count $$(WIRE_FUZZ_COUNT) --dir $$(BUILD)/wire-fuzz))
# ---- coverage --------------------------------------------------------------------------------
# make coverage (tb/README.md): host/ and bridge/host over make test's host lane (COV_SUITES).
COV_BUILD := build/cov
COV_OUT := build/coverage
COV_SUITES ?= $(TEST_LANE_HOST)
GCOVR ?= $(VENV_PY) -m gcovr
.PHONY: coverage
coverage: $(VENV)/.stamp
	@rm -rf $(COV_OUT) $(COV_BUILD)/test && mkdir -p $(COV_OUT)
	@if [ -d $(COV_BUILD) ]; then find $(COV_BUILD) -name '*.gcda' -delete; fi
	@rc=0; $(MAKE) $(SELF) BUILD=$(COV_BUILD) VENV=$(VENV) SIM_DIR=$(SIM_DIR) BOARD_DIR=$(BOARD_DIR) COVERAGE=1 TAP_KEEP_GOING=1 \
	  $(addprefix test-,$(COV_SUITES)) || rc=1; \
	  python3 tb/tap_summary.py $(addprefix $(COV_BUILD)/test/,$(addsuffix .tap,$(COV_SUITES))) || rc=1; \
	  $(GCOVR) --root . --object-directory $(COV_BUILD) --filter 'host/' --filter 'bridge/host/' \
	    --exclude '.*tb/' --txt $(COV_OUT)/summary.txt --html-details $(COV_OUT)/index.html || rc=1; \
	  cat $(COV_OUT)/summary.txt; echo "coverage: $(COV_OUT)/summary.txt, $(COV_OUT)/index.html"; exit $$rc
