# tb/unit/mc_aperture: mc_aperture (BAR1 window, VPR) under Icarus and Verilator -Wall (unit_tb,
# tb/unit/unit.mk: suites unit-mc_aperture-icarus and unit-mc_aperture-verilator).
$(eval $(call unit_tb,mc_aperture,$(RTL_ROOT)/mc/mc_aperture.v))
