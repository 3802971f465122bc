# SPDX-License-Identifier: Apache-2.0
# tb/system/links.mk: the link matrix. The system suites that run on sim:// (allocation,
# miniport submission, VidSch's submission, preemption, cancel and TDR, residency) run
# unchanged on every link to a simulated board, through tb/system/on_link.sh:
#   simd         gpuref-simd's stream board over its Unix socket
#   uart         gpuref-simd's UART board on a pseudo-terminal (termios)
#   usb-ft601    the FT601 and FT2232H emulated at the usbdevfs ioctl level (umockdev) under
#   usb-ft2232h  the real libusb and libftdi, in the suite's process (build/usb/test_*_usb)
# Each board runs the RTL packet engine and PHY that a board carries. Links are slower than
# sim:// in wall time (a board-level simulation, a byte stream, the USB stack): a chosen set of
# the suites runs here, the larger on simd://, a smaller one on USB and the UART (below).
# Included by the top Makefile after the system suites and sim/usb/usb.mk.
#   make test-system-links                          all links
#   make test-system-links LINKS=usb-ft601          one
#   make test-system-links LINKS_FULL=1             every test of every suite, on every link (long)
# The UART first: its lane is the longest (a 3 Mbaud line in simulation), so it runs on one core
# while the others take turns on the second.
LINKS ?= uart simd usb-ft601 usb-ft2232h
LINKS_FULL ?=

# The chosen sets: what each suite's sim:// run proves that a link could break (allocation and
# opens across processes, submission and fences, preemption, cancel, TDR and recovery, eviction
# and residency notification), without the tests that move hundreds of MiB. The USB and UART
# links get the smaller set: the USB emulation runs the board only while a URB is outstanding
# (bench/link: DMA at about 1% of the FT601's ceiling) and the simulated UART line moves a
# 4 KiB page in 1.4M core cycles, so their residency test is the one that moves a single page
# (an eviction with its notification, a stray access that faults, a page-in).
LINKS_ALLOC := segments_come_from_the_mc_registers,shared_resource_opens_read_only_in_another_process,opening_an_allocation_not_laid_out_for_sharing_fails,destroying_a_process_releases_everything,existing_sysmem_refuses_memory_the_device_cannot_reach
LINKS_KMD_SUBMIT := create_context_fills_context_info_and_refuses_bad_requests,submit_reports_the_fence_and_query_current_fence_agrees,a_lost_interrupt_is_reported_by_query_current_fence,cancel_frees_removed_packets,user_contexts_run_unprivileged,reset_from_timeout_stops_a_hung_wait_and_keeps_vram,the_watchdog_allows_the_links_longest_dma_answer,dma_answers_held_back_by_a_long_bar1_write_are_not_a_hang
LINKS_VIDSCH := copy_through_gpu_virtual_addresses_needs_no_patching,fence_ids_increase_and_patch_and_submit_agree,long_packet_is_preempted_by_the_quantum_and_not_reset,packets_that_ran_are_never_cancelled,cancel_during_preemption_cancels_once_and_resubmits_nothing_of_it,hung_packet_times_out_resets_the_gpu_and_the_device_recovers,destroying_a_context_with_work_pending_cancels_it_first
LINKS_RESIDENCY := pinned_allocations_are_never_evicted,residency_is_notified_and_an_evicted_va_faults_without_harm,bad_input_is_refused_and_changes_nothing
# The small set (usb-*, uart): allocation across processes, submission and fences, cancel, a
# TDR, through the miniport's and the allocation API's calls, and residency.
LINKS_SMALL_ALLOC := segments_come_from_the_mc_registers,opening_an_allocation_not_laid_out_for_sharing_fails
LINKS_SMALL_KMD_SUBMIT := create_context_fills_context_info_and_refuses_bad_requests,submit_reports_the_fence_and_query_current_fence_agrees,cancel_frees_removed_packets,reset_from_timeout_stops_a_hung_wait_and_keeps_vram,the_watchdog_allows_the_links_longest_dma_answer,dma_answers_held_back_by_a_long_bar1_write_are_not_a_hang
# Residency on USB and the UART: one page evicted (with its notification), faulted on and paged in.
LINKS_SMALL_RESIDENCY := residency_is_notified_and_an_evicted_va_faults_without_harm

# links_run LINK SUITE FILTER: one suite on one link (the usb links run its usb flavour).
links_bin = $(if $(filter usb-%,$(1)),$(USB_DIR)/test_$(2)_usb,$(BUILD)/tb/system/test_$(2))
links_run = GR_TEST_FILTER='$(if $(LINKS_FULL),,$(3))' CMOCKA_MESSAGE_OUTPUT=TAP \
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
links-run-%: $(GPUREF_SIMD) $(ALLOC_TEST) $(KMD_SUBMIT_TEST) $(VIDSCH_TEST) $(RESIDENCY_TEST) $(USB_SUITE_TESTS)
	@mkdir -p $(LINKS_OUT)
	@rc=0; { $(call links_one,$*) } >$(LINKS_OUT)/$*.out 2>&1; echo "# exit $$rc" >$(LINKS_OUT)/$*.rc

TEST_SUITES += system-links
test-system-links: $(GPUREF_SIMD) $(ALLOC_TEST) $(KMD_SUBMIT_TEST) $(VIDSCH_TEST) $(RESIDENCY_TEST) $(USB_SUITE_TESTS)
	@rm -rf $(LINKS_OUT)
	$(call tap_run,system-links,$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) -j2 \
	  $(addprefix links-run-,$(LINKS)) >/dev/null 2>&1; rc=0; \
	  for l in $(LINKS); do cat $(LINKS_OUT)/$$l.out; grep -q "exit 0" $(LINKS_OUT)/$$l.rc || rc=1; done; exit $$rc)

.PHONY: test-system-links
