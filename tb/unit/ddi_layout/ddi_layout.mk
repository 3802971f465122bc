# tb/unit/ddi_layout: host/include/d3dkmddi.h has the WDK's x64 layout (sizes, offsets, flag
# bits, status codes, DDI prototypes), built as C11 and as C++17 with the project's warnings
# and -pedantic (the header holds to ISO C11 and C++17, GR_ANON_STRUCT aside: d3dkmddi.h).
# The layout is also _Static_assert'ed, so a wrong header fails to build as well as to run.
DDI_LAYOUT_DIR := $(BUILD)/tb/unit/ddi_layout
DDI_LAYOUT_C   := $(DDI_LAYOUT_DIR)/test_ddi_layout
DDI_LAYOUT_CXX := $(DDI_LAYOUT_DIR)/test_ddi_layout_cxx
DDI_LAYOUT_INC := -Ihost/include -Itb/unit/ddi_layout

$(DDI_LAYOUT_C): tb/unit/ddi_layout/test_ddi_layout.c
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CC) $(CSTD) $(WARN) -pedantic $(CFLAGS) $(DDI_LAYOUT_INC) -MMD -MP -o $@ $<

$(DDI_LAYOUT_CXX): tb/unit/ddi_layout/test_ddi_layout_cxx.cpp
	@mkdir -p $(@D)
	$(call quiet,LD,$@)$(CXX) -std=c++17 $(WARN) -pedantic $(CFLAGS) $(DDI_LAYOUT_INC) -MMD -MP -o $@ $<

all: $(DDI_LAYOUT_C) $(DDI_LAYOUT_CXX)

# Both programs always run; the suite fails if either does.
TEST_SUITES += ddi-layout
test-ddi-layout: $(DDI_LAYOUT_C) $(DDI_LAYOUT_CXX)
	$(call tap_run,ddi-layout,$(DDI_LAYOUT_C); s=$$?; $(DDI_LAYOUT_CXX) || s=1; exit $$s)

-include $(DDI_LAYOUT_C).d $(DDI_LAYOUT_CXX).d
