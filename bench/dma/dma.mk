# SPDX-License-Identifier: Apache-2.0
# bench/dma: the DMA engine's command path in simulated cycles (bench/dma/README.md): copy
# efficiency, preemption latency, submit-to-fence latency (bare and through the miniport) and
# simulation speed (Verilator with and without the driver, Icarus Verilog).
#   make bench-dma                          the full run (a few minutes), tables and plot
#   make bench-dma BDMA_ARGS=--quick        a shorter one
#   make test-bench-dma-smoke               the smoke test (TAP), part of make test
BDMA_DIR   := $(BUILD)/bench/dma
BDMA_BENCH := $(BDMA_DIR)/bench_dma
BDMA_VVP   := $(BDMA_DIR)/bdma_tb.vvp
BDMA_OBJS  := $(HOST_OBJ_DIR)/bench/dma/bench_dma.o
BDMA_TB    := bench/dma/bdma_tb.v bench/dma/bdma_axi_mem.v
BDMA_ARGS  ?=

# The miniport and sim:// for the driver-in-the-loop numbers, gr_sim directly for the rest.
$(BDMA_BENCH): $(BDMA_OBJS) $(LIBGPUREF) $(SIM_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) -o $@ $(BDMA_OBJS) $(GPUREF_LINK)

# The same gpu_core under Icarus, with the testbench's behavioural memories.
$(BDMA_VVP): $(BDMA_TB) $(RTL_SRCS) $(wildcard $(RTL_INC)/*.vh)
	@mkdir -p $(@D)
	$(call quiet,IVERILOG,$@)$(IVERILOG) -g2012 -I$(RTL_INC) -s bdma_tb -o $@ $(BDMA_TB) $(RTL_SRCS) 2>$(BDMA_DIR)/iverilog.log \
	  || { cat $(BDMA_DIR)/iverilog.log; exit 1; }

all: $(BDMA_BENCH)

# Prints the tables, writes $(BUILD)/bench/dma.md, dma.dat and the plot dma.png.
.PHONY: bench-dma test-bench-dma-smoke
bench: bench-dma
bench-dma: $(BDMA_BENCH) $(BDMA_VVP)
	@mkdir -p $(BUILD)/bench
	$(BDMA_BENCH) --out $(BUILD)/bench --vvp $(BDMA_VVP) $(BDMA_ARGS)
	@command -v gnuplot >/dev/null || { echo "bench-dma: gnuplot is missing, no plot drawn. Install gnuplot-nox (bench/dma/DEPS; make deps)." >&2; exit 1; }
	gnuplot -e "datafile='$(BUILD)/bench/dma.dat'; outfile='$(BUILD)/bench/dma.png'" bench/dma/dma.gp
	@echo "bench-dma: $(BUILD)/bench/dma.md, $(BUILD)/bench/dma.png"

# A tiny run of every measurement, twice: bytes exact, cycles positive and repeatable.
$(eval $(call suite,bench-dma-smoke,$(BDMA_BENCH) $(BDMA_VVP),$$(BDMA_BENCH) --smoke --vvp $$(BDMA_VVP)))

-include $(BDMA_OBJS:.o=.d)
