# tb/unit/mc_aperture: mc_aperture (BAR1 window, VPR) under Icarus and Verilator, three seeds each.
MC_AP_DIR := $(BUILD)/unit/mc_aperture
MC_AP_SRCS := tb/unit/mc_aperture/tb_mc_aperture.sv $(RTL_ROOT)/mc/mc_aperture.v
MC_AP_SEEDS := 1 2 3

$(MC_AP_DIR)/icarus/tb.vvp: $(MC_AP_SRCS)
	@mkdir -p $(@D)
	$(call quiet,IVERILOG,$@)$(IVERILOG) -g2012 -I$(RTL_INC) -s tb_mc_aperture -o $@ $(MC_AP_SRCS)

# The testbench (not the RTL) leans on Verilog's integer widening: WIDTH is off for it alone.
$(MC_AP_DIR)/verilator/tb: $(MC_AP_SRCS)
	@mkdir -p $(@D)
	$(call quiet,VERILATE,$@)$(VERILATOR) --binary --timing -Wno-WIDTH -I$(RTL_INC) --top-module tb_mc_aperture \
	  --Mdir $(@D)/obj -o ../tb $(MC_AP_SRCS) > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }

all: $(MC_AP_DIR)/icarus/tb.vvp $(MC_AP_DIR)/verilator/tb

TEST_SUITES += unit-mc_aperture-icarus unit-mc_aperture-verilator
test-unit-mc_aperture-icarus: $(MC_AP_DIR)/icarus/tb.vvp
	$(call tap_run,unit-mc_aperture-icarus,$(foreach s,$(MC_AP_SEEDS),vvp -n $< +seed=$(s) &&) true)
test-unit-mc_aperture-verilator: $(MC_AP_DIR)/verilator/tb
	$(call tap_run,unit-mc_aperture-verilator,$(foreach s,$(MC_AP_SEEDS),$< +seed=$(s) &&) true)
