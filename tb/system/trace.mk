# tb/system/trace.mk: waveforms a gpuctl user aims on sim:// (test_trace.sh): trace on/off, the
# URI's window, VCD and FST, the GTKWave save file, the printed path, the errors.
# Included by the top Makefile after host/host.mk.
TRACE_TEST_OUT := $(BUILD)/test-trace

TEST_SUITES += system-trace
test-system-trace: $(GPUCTL)
	$(call tap_run,system-trace,tb/system/test_trace.sh $(GPUCTL) $(TRACE_TEST_OUT))

.PHONY: test-system-trace
