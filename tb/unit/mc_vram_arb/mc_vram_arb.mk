# tb/unit/mc_vram_arb: two masters contending through mc_vram_arb, under Icarus, three seeds.
# Under Verilator 5.006 --timing this testbench's memory model sees phantom read requests that
# Icarus does not (a scheduling difference in the testbench, not yet understood), so only the
# Icarus run is a suite; the arbiter also runs under Verilator in every sim:// system test.
MC_ARB_DIR := $(BUILD)/unit/mc_vram_arb
MC_ARB_SRCS := tb/unit/mc_vram_arb/tb_mc_vram_arb.sv $(RTL_ROOT)/mc/mc_vram_arb.v

$(MC_ARB_DIR)/icarus/tb.vvp: $(MC_ARB_SRCS)
	@mkdir -p $(@D)
	$(call quiet,IVERILOG,$@)$(IVERILOG) -g2012 -I$(RTL_INC) -s tb_mc_vram_arb -o $@ $(MC_ARB_SRCS)

all: $(MC_ARB_DIR)/icarus/tb.vvp

TEST_SUITES += unit-mc_vram_arb-icarus
test-unit-mc_vram_arb-icarus: $(MC_ARB_DIR)/icarus/tb.vvp
	$(call tap_run,unit-mc_vram_arb-icarus,$(foreach s,1 2 3,vvp -n $< +seed=$(s) &&) true)
