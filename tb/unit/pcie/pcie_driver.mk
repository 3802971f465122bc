# SPDX-License-Identifier: Apache-2.0
# tb/unit/pcie/pcie_driver.mk: the C driver over TLPs (suite pcie-driver). Included by the top
# Makefile after host/install.mk (libgpuref's PIC objects and the PIC simulation library).
#   make test-pcie-driver    libgpuref's register conformance suite (gr_conformance_run) in a
#                            cocotb test through cocotbext-pcie's root complex, pcie_shell and
#                            gpu_core under Icarus (tb/unit/pcie/run.py --module test_pcie_driver;
#                            GR_TEST_SEED=N or PCIE_SEED=N replays a seed); part of make test
#   make bench-link-pcie     bench/link's tables for PCIe (cocotb:// pcie, and sim:// beside it)
#                            through the same set-up: the job pcie_job_bench (bench_link.c built
#                            with GR_BENCH_COCOTB), into $(BUILD)/bench/link-pcie.md; part of
#                            make bench, not of make test (PCIE_BENCH_ARGS=--smoke: tiny sizes)
#   make test-pcie-driver-smoke
#                            the DDI smoke test the same way (allocate, fill, copy, preempt,
#                            cancel, TDR): about 370 us simulated, twice the conformance suite's
#                            run time; part of make test
# The test loads $(PCIE_DRV_SO) with ctypes: libgpuref's PIC objects, the conformance suite, the
# test-only cocotb:// backend and the jobs, with the PIC simulation library libgpuref carries
# (sim://) folded in and hidden.
PCIE_DRV_OUT := $(BUILD)/unit/pcie-driver
PCIE_DRV_SRCS := tb/unit/pcie/gr_link_cocotb.c tb/unit/pcie/pcie_driver_jobs.c host/conformance/gr_conformance.c
PCIE_DRV_OBJS := $(patsubst %.c,$(GPUREF_PIC_OBJ_DIR)/%.o,$(PCIE_DRV_SRCS))
PCIE_DRV_SO := $(PCIE_DRV_OUT)/libgpuref_cocotb.so
# bench/link's measuring code, built for cocotb:// (the job pcie_job_bench calls it)
PCIE_BENCH_OBJ := $(PCIE_DRV_OUT)/bench_link_cocotb.o

$(GPUREF_PIC_OBJ_DIR)/tb/unit/pcie/pcie_driver_jobs.o: HOST_CFLAGS += -Ibench/link

$(PCIE_BENCH_OBJ): bench/link/bench_link.c
	@mkdir -p $(@D)
	$(call quiet,CC,$<)$(CC) $(HOST_CFLAGS) -fPIC -DGR_BENCH_COCOTB -Itb/unit/pcie -c $< -o $@

$(PCIE_DRV_SO): $(LIBGPUREF_PIC_OBJS) $(PCIE_DRV_OBJS) $(PCIE_BENCH_OBJ) $(SIM_PIC_LIB)
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CXX) -shared -o $@ -Wl,--no-undefined -Wl,--exclude-libs,ALL $(LIBGPUREF_PIC_OBJS) \
	  $(PCIE_DRV_OBJS) $(PCIE_BENCH_OBJ) $(SIM_PIC_LIB) $(GPUREF_SO_LDLIBS)

-include $(PCIE_DRV_OBJS:.o=.d) $(PCIE_BENCH_OBJ:.o=.d)

# test-examples builds the same PIC objects and simulation library in a make of its own (its
# install): when both run in one make (make test, maybe -j2), this waits for it instead of
# writing the same files at the same time.
ifneq ($(filter test-examples,$(MAKECMDGOALS)),)
$(PCIE_DRV_SO): | test-examples
endif

TEST_SUITES += pcie-driver
test-pcie-driver: $(VENV)/.stamp $(PCIE_DRV_SO)
	@mkdir -p $(PCIE_DRV_OUT)
	$(call tap_run,pcie-driver,PCIE_LIBGPUREF=$(abspath $(PCIE_DRV_SO)) PCIE_DRIVER_JOBS=conformance \
	  $(VENV_PY) tb/unit/pcie/run.py $(PCIE_DRV_OUT)/conformance --seed $(PCIE_SEED) --module test_pcie_driver)

TEST_SUITES += pcie-driver-smoke
test-pcie-driver-smoke: $(VENV)/.stamp $(PCIE_DRV_SO)
	@mkdir -p $(PCIE_DRV_OUT)
	$(call tap_run,pcie-driver-smoke,PCIE_LIBGPUREF=$(abspath $(PCIE_DRV_SO)) PCIE_DRIVER_JOBS=smoke \
	  $(VENV_PY) tb/unit/pcie/run.py $(PCIE_DRV_OUT)/smoke --seed $(PCIE_SEED) --module test_pcie_driver)

# The benchmark: tables on stdout (the run's TAP lines) and in $(BUILD)/bench/link-pcie.md.
PCIE_BENCH_ARGS ?=
PCIE_BENCH_MD := $(BUILD)/bench/link-pcie.md
bench: bench-link-pcie
bench-link-pcie: $(VENV)/.stamp $(PCIE_DRV_SO)
	@mkdir -p $(PCIE_DRV_OUT) $(dir $(PCIE_BENCH_MD)) && rm -f $(PCIE_BENCH_MD)
	PCIE_LIBGPUREF=$(abspath $(PCIE_DRV_SO)) PCIE_DRIVER_JOBS=bench \
	  PCIE_BENCH_ARGS="--out $(abspath $(PCIE_BENCH_MD)) $(PCIE_BENCH_ARGS)" \
	  $(VENV_PY) tb/unit/pcie/run.py $(PCIE_DRV_OUT)/bench --seed $(PCIE_SEED) --module test_pcie_driver
	@cat $(PCIE_BENCH_MD)
	@echo "bench-link-pcie: $(PCIE_BENCH_MD)"

.PHONY: test-pcie-driver test-pcie-driver-smoke bench-link-pcie
