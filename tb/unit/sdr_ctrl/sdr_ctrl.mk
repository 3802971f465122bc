# tb/unit/sdr_ctrl/sdr_ctrl.mk: the SDR SDRAM controller (boards/common/sdram) against the
# SDRAM model written from the IS42S16160G data sheet (sim/models/sdram), at 143 MHz with CAS
# latency 3 (sdr_ctrl) and at 100 MHz with CAS latency 2 (sdr_ctrl_cl2, which includes the same
# testbench). Included by the top Makefile after tb/unit/unit.mk, whose unit_tb macro builds
# each with Icarus and Verilator and adds their suites:
#   make test-unit-sdr_ctrl-verilator UNIT_SEEDS="5 6"
# Icarus runs the testbench with fewer operations and one seed (it is ~100x slower here).
SDR_RTL := boards/common/sdram/sdr_fifo.v boards/common/sdram/sdr_ctrl.v sim/models/sdram/sdram_model.v

UNIT_ICARUS_SEEDS_sdr_ctrl := 1
$(eval $(call unit_tb,sdr_ctrl,$(SDR_RTL)))

UNIT_INCS_sdr_ctrl_cl2 := $(UNIT_SRC)/sdr_ctrl
UNIT_DEPS_sdr_ctrl_cl2 := $(UNIT_SRC)/sdr_ctrl/tb_sdr_ctrl.sv
UNIT_ICARUS_SEEDS_sdr_ctrl_cl2 := 1
$(eval $(call unit_tb,sdr_ctrl_cl2,$(SDR_RTL)))

# The controller is outside rtl/, so make lint does not see it: the same three checks here.
TEST_SUITES += lint-sdr_ctrl
.PHONY: test-lint-sdr_ctrl
test-lint-sdr_ctrl:
	$(call tap_run,lint-sdr_ctrl,VERILATOR=$(VERILATOR) IVERILOG=$(IVERILOG) YOSYS=$(YOSYS) tb/unit/sdr_ctrl/lint.sh $(BUILD)/lint-sdr_ctrl)
