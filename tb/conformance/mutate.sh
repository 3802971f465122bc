#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mutate: RTL mutants the conformance suite must catch, each one deliberate bug in a copy of rtl/.
#   mutate.sh list                  the mutant names
#   mutate.sh pattern NAME          the conformance check that must fail on it (regex)
#   mutate.sh make NAME SRC DEST    copy SRC (an rtl/ tree) to DEST with the bug applied
set -eu
# Per mutant: the file under rtl/, the sed program, the failing check (regex on gpuctl's line,
# "FAIL REGISTER check: detail"). Each is one bug of the register block a host would meet.
NAMES=(scratch_reset ring_size_reset root_read_only read_wrong_register irq_state_w1c_as_rw
       fault_status_w1c_as_rw soft_reset_lost soft_reset_keeps_registers test_ignores_one_source
       irq_ignores_enable enable_bits_swapped pulse_latches reserved_bits_read_ones
       hole_answers_okay read_only_writable)
declare -A FILE EXPR CHECK
# A reset value wrong.
FILE[scratch_reset]=csr/csr_regs.v
EXPR[scratch_reset]="s/scratch_value_q <= 32'h0;/scratch_value_q <= 32'h1;/"
CHECK[scratch_reset]="SCRATCH +reset value"
FILE[ring_size_reset]=csr/csr_regs.v
EXPR[ring_size_reset]="s/dma_ring_size_log2_q <= 4'h4;/dma_ring_size_log2_q <= 4'h0;/"
CHECK[ring_size_reset]="DMA_RING_SIZE +reset value"
# A read-write register that ignores writes (RW become RO).
FILE[root_read_only]=csr/csr_regs.v
EXPR[root_read_only]="/if (sel_mmu_root) mmu_root_page_q <= wdata_i\[31:12\];/d"
CHECK[root_read_only]="MMU_ROOT +walking ones"
# Read data of the wrong register.
FILE[read_wrong_register]=csr/csr_regs.v
EXPR[read_wrong_register]="s/14'ha1: rdata_o = {mmu_root_page_q, 12'h0};/14'ha1: rdata_o = {mc_ap_base_page_q, 12'h0};/"
CHECK[read_wrong_register]="MMU_ROOT +walking ones"
# W1C bits that behave as read-write: writing 1 sets them.
FILE[irq_state_w1c_as_rw]=csr/csr_regs.v
EXPR[irq_state_w1c_as_rw]="s/irq_state_mc_fault_q <= irq_state_mc_fault_q & ~wdata_i\[1\];/irq_state_mc_fault_q <= wdata_i[1];/"
CHECK[irq_state_w1c_as_rw]="IRQ_STATE +clear all"
FILE[fault_status_w1c_as_rw]=csr/csr_regs.v
EXPR[fault_status_w1c_as_rw]="s/mc_fault_status_valid_q <= mc_fault_status_valid_q & ~wdata_i\[0\];/mc_fault_status_valid_q <= wdata_i[0];/"
CHECK[fault_status_w1c_as_rw]="MC_FAULT_STATUS +writing 1 to W1C bits leaves them clear"
# A write-only side effect lost: RESET_CTRL.CORE no longer resets the core.
FILE[soft_reset_lost]=csr/csr_regs.v
EXPR[soft_reset_lost]="/if (sel_reset_ctrl) reset_ctrl_core_q <= wdata_i\[0\];/d"
CHECK[soft_reset_lost]="RESET_CTRL +soft reset completes"
# The soft reset reaches the core but not the registers.
FILE[soft_reset_keeps_registers]=csr/csr_regs.v
EXPR[soft_reset_keeps_registers]="s/if (rst_i || soft_rst_i) begin/if (rst_i) begin/"
CHECK[soft_reset_keeps_registers]="RESET_CTRL +soft reset returns SCRATCH"
# A strobe ignored: IRQ_TEST.DMA_FENCE does not set its STATE bit.
FILE[test_ignores_one_source]=csr/csr_regs.v
EXPR[test_ignores_one_source]="s/if (sel_irq_test) irq_test_dma_fence_q <= wdata_i\[2\];/if (sel_irq_test) irq_test_dma_fence_q <= 1'h0;/"
CHECK[test_ignores_one_source]="IRQ_TEST +TEST sets every STATE bit"
# The interrupt enables ignored: the line is any STATE bit.
FILE[irq_ignores_enable]=csr/csr_irq.v
EXPR[irq_ignores_enable]="s/irq_q <= |(state_i & enable_i);/irq_q <= |state_i;/"
CHECK[irq_ignores_enable]="IRQ_ENABLE +line low while STATE is set"
# Two enable bits wired to each other's source.
FILE[enable_bits_swapped]=csr/csr_block.v
EXPR[enable_bits_swapped]="s/\.irq_enable_dma_fence_o(irq_enable\[2\])/.irq_enable_dma_fence_o(irq_enable[3])/;s/\.irq_enable_dma_preempted_o(irq_enable\[3\])/.irq_enable_dma_preempted_o(irq_enable[2])/"
CHECK[enable_bits_swapped]="IRQ_STATE +line falls when bit 2 is cleared"
# A strobe that holds what was written, and reads it back.
FILE[pulse_latches]=csr/csr_regs.v
EXPR[pulse_latches]="/end else begin/,/if (write_ok) begin/{/mmu_invalidate_all_q <= 1'h0;/d};s/14'ha3: rdata_o = {32'h0};/14'ha3: rdata_o = {31'h0, mmu_invalidate_all_q};/"
CHECK[pulse_latches]="MMU_INVALIDATE +strobe fields and reserved bits read zero"
# Reserved bits that read one.
FILE[reserved_bits_read_ones]=csr/csr_regs.v
EXPR[reserved_bits_read_ones]="s/14'h11: rdata_o = {27'h0,/14'h11: rdata_o = {27'h7ffffff,/"
CHECK[reserved_bits_read_ones]="IRQ_ENABLE +reset value"
# A hole that decodes as a register (answers OKAY).
FILE[hole_answers_okay]=csr/csr_regs.v
EXPR[hole_answers_okay]="s/assign hit_o = sel_id_magic |/assign hit_o = (word == 14'h6) | sel_id_magic |/"
CHECK[hole_answers_okay]="- +reads of holes answer a bus error"
# A read-only register that takes writes: ID_DATE reads and writes a register of its own.
FILE[read_only_writable]=csr/csr_regs.v
EXPR[read_only_writable]="s/14'h5: rdata_o = {id_date_value_i};/14'h5: rdata_o = {scratch_value_q};/;s/if (sel_scratch) scratch_value_q <= wdata_i\[31:0\];/if (sel_scratch | sel_id_date) scratch_value_q <= wdata_i[31:0];/"
CHECK[read_only_writable]="ID_DATE +read-only fields ignore writes"

known() {
    [ -n "${FILE[$1]:-}" ] || { echo "mutate: no mutant named '$1'" >&2; exit 1; }
}

case ${1:-} in
list)
    printf '%s\n' "${NAMES[@]}"
    ;;
pattern)
    known "$2"
    echo "${CHECK[$2]}"
    ;;
make)
    name=$2 src=$3 dest=$4
    known "$name"
    file=${FILE[$name]} expr=${EXPR[$name]}
    rm -rf "$dest" && mkdir -p "$dest" && cp -r "$src"/. "$dest"/
    sed -i "$expr" "$dest/$file"
    if cmp -s "$src/$file" "$dest/$file"; then
        echo "mutate: mutant '$name' no longer applies to $file; update tb/conformance/mutate.sh" >&2
        exit 1
    fi
    ;;
*)
    echo "usage: mutate.sh list | pattern NAME | make NAME SRC DEST" >&2
    exit 2
    ;;
esac
