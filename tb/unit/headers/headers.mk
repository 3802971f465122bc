# tb/unit/headers/headers.mk: every public header compiles alone as C11 and as C++17
# (check_headers.sh; the list is what `make install` installs).
HEADERS_CHECKED := $(patsubst host/include/%,%,$(sort $(wildcard host/include/gpuref/*.h)) \
                     host/include/d3dkmddi.h host/include/dispmprt.h)

TEST_SUITES += headers
test-headers:
	$(call tap_run,headers,CC=$(CC) CXX=$(CXX) \
	  tb/unit/headers/check_headers.sh $(BUILD)/headers $(HEADERS_CHECKED))

.PHONY: test-headers
