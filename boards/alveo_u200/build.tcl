# SPDX-License-Identifier: Apache-2.0
# build.tcl: the Alveo U200 bitstream of gpuref (u200_top) in Vivado, non-project flow after
# an in-memory project for the IP. Not run in gpuref's own checks (no Vivado there); see
# boards/alveo_u200/README.md.
#
#   vivado -mode batch -source boards/alveo_u200/build.tcl [-tclargs OUT_DIR [BUILD_STAMP]]
#
# Run from the repository's top. Writes OUT_DIR (default build/boards/alveo_u200): the
# generated IP, checkpoints, timing and utilization reports, u200_top.bit and u200_top.mcs
# (for the card's configuration flash).

set part    xcu200-fsgd2104-2-e
set root    [file normalize [file join [file dirname [info script]] .. ..]]
set out     [file normalize [expr {[llength $argv] > 0 ? [lindex $argv 0] : "$root/build/boards/alveo_u200"}]]
set stamp   [expr {[llength $argv] > 1 ? [lindex $argv 1] : 0}]
file mkdir $out

create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# ---- the PCIe hard IP, configured as bridge/rtl/pcie/README.md ("The hard IP's configuration
# the shell assumes") requires -----------------------------------------------------------------
# Gen3 x2 with the 64-bit AXI4-Stream interface at 250 MHz (the interface pcie_shell is written
# for; x2 is the widest Gen3 link that interface carries), the PCIe block next to the edge
# connector's lanes 0-3 (GT quad 227).
# BAR0: 32-bit memory, 64 KiB (gpu_core's CsrAddrBits = 16). BAR1: 64-bit prefetchable memory,
# 256 MiB (ApAddrBits = 28), i.e. BAR slots 1-2. No other BAR, no expansion ROM.
# MSI with one vector (64-bit addresses), no MSI-X; client tags (the shell's own, at most 32),
# no extended tags; Max_Payload_Size capability 256 bytes; parity off; DWORD-aligned mode (the
# IP's default for CQ, CC and RC; RQ descriptors ask for it per TLP); no straddling (not
# offered at 64 bits). Vendor:device 10ee:6770, gpuref's IDs (bridge/host/gr_link_pcie.h).
file mkdir $out/ip
create_ip -name pcie4_uscale_plus -vendor xilinx.com -library ip -module_name u200_pcie -dir $out/ip
set_property -dict [list \
    CONFIG.mode_selection                 {Advanced} \
    CONFIG.pcie_blk_locn                  {X1Y2} \
    CONFIG.en_gt_selection                {true} \
    CONFIG.select_quad                    {GTY_Quad_227} \
    CONFIG.PL_LINK_CAP_MAX_LINK_SPEED     {8.0_GT/s} \
    CONFIG.PL_LINK_CAP_MAX_LINK_WIDTH     {X2} \
    CONFIG.axisten_if_width               {64_bit} \
    CONFIG.axisten_freq                   {250} \
    CONFIG.axisten_if_enable_client_tag   {true} \
    CONFIG.extended_tag_field             {false} \
    CONFIG.pf0_dev_cap_max_payload        {256_bytes} \
    CONFIG.vendor_id                      {10EE} \
    CONFIG.PF0_DEVICE_ID                  {6770} \
    CONFIG.PF0_SUBSYSTEM_VENDOR_ID        {10EE} \
    CONFIG.PF0_SUBSYSTEM_ID               {6770} \
    CONFIG.PF0_Use_Class_Code_Lookup_Assistant {false} \
    CONFIG.PF0_CLASS_CODE                 {038000} \
    CONFIG.pf0_bar0_enabled               {true} \
    CONFIG.pf0_bar0_type                  {Memory} \
    CONFIG.pf0_bar0_64bit                 {false} \
    CONFIG.pf0_bar0_prefetchable          {false} \
    CONFIG.pf0_bar0_scale                 {Kilobytes} \
    CONFIG.pf0_bar0_size                  {64} \
    CONFIG.pf0_bar1_enabled               {true} \
    CONFIG.pf0_bar1_type                  {Memory} \
    CONFIG.pf0_bar1_64bit                 {true} \
    CONFIG.pf0_bar1_prefetchable          {true} \
    CONFIG.pf0_bar1_scale                 {Megabytes} \
    CONFIG.pf0_bar1_size                  {256} \
    CONFIG.pf0_bar3_enabled               {false} \
    CONFIG.pf0_bar4_enabled               {false} \
    CONFIG.pf0_bar5_enabled               {false} \
    CONFIG.pf0_expansion_rom_enabled      {false} \
    CONFIG.pf0_msi_enabled                {true} \
    CONFIG.PF0_MSI_CAP_MULTIMSGCAP        {1_vector} \
    CONFIG.pf0_msix_enabled               {false} \
    CONFIG.PF0_INTERRUPT_PIN              {INTA} \
] [get_ips u200_pcie]
generate_target {synthesis instantiation_template} [get_ips u200_pcie]
synth_ip [get_ips u200_pcie]

# ---- the design -------------------------------------------------------------------------------
read_verilog -sv [glob $root/rtl/gpu_core.v $root/rtl/*/*.v $root/bridge/rtl/pcie/*.v]
read_verilog -sv [list $root/boards/alveo_u200/u200_top.v $root/boards/common/vram_ram.v]
read_xdc $root/boards/alveo_u200/u200.xdc
set_property include_dirs [list $root/rtl/common] [current_fileset]

synth_design -top u200_top -part $part -include_dirs [list $root/rtl/common] \
    -generic BuildStamp=$stamp
write_checkpoint -force $out/u200_top_synth.dcp
report_utilization -file $out/utilization_synth.rpt

opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force $out/u200_top_routed.dcp
report_timing_summary -file $out/timing.rpt
report_utilization -file $out/utilization.rpt
report_drc -file $out/drc.rpt

# A design that misses timing is not written as a bitstream.
if {[get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]] < 0} {
    puts "build.tcl: setup timing not met (see $out/timing.rpt); no bitstream written"
    exit 1
}
write_bitstream -force $out/u200_top.bit
write_cfgmem -force -format mcs -size 128 -interface SPIx4 \
    -loadbit "up 0x01002000 $out/u200_top.bit" -file $out/u200_top.mcs
puts "build.tcl: $out/u200_top.bit and $out/u200_top.mcs"
