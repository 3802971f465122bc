# host/install.mk: libgpuref for programs outside this tree, and `make install`.
# Included by the top Makefile after host.mk and harness.mk (LIBGPUREF_SRCS, HOST_CFLAGS, GPUCTL,
# GPUREF_SIMD, GPUREF_USB_LDLIBS, SIM_DIR, SIM_LDLIBS, SIM_VFLAGS, SIM_CXXFLAGS come from there).
#
#   make gpuctl                          build/bin/gpuctl and only what it needs
#   make install PREFIX=/usr/local       (DESTDIR honoured) installs:
#     $(LIBDIR)/libgpuref.so.$(GPUREF_VERSION) with its soname libgpuref.so.$(GPUREF_SOVERSION)
#       and the libgpuref.so link, libgpuref.a, $(PKGCONFIGDIR)/gpuref.pc,
#     $(INCLUDEDIR)/gpuref/*.h, $(INCLUDEDIR)/d3dkmddi.h and dispmprt.h,
#     $(BINDIR)/gpuctl and gpuref-simd.
#
# The installed library carries the simulation backend (sim://: tb/harness's libgr_sim, the
# Verilated gpu_core) inside it, so `cc prog.c $(pkg-config --cflags --libs gpuref)` is the
# whole link line. The in-tree build/lib/libgpuref.a is not that library: it leaves the
# simulation to $(SIM_LIB), as the tests link it. A shared library needs position-independent
# code throughout, so libgpuref's sources and the harness are built a second time with -fPIC
# (build/host-pic, build/sim-pic); the tests' non-PIC builds stay as they are.
#
# When libgpuref gains a dependency, extend these (nothing else here names one):
#   GPUREF_BUNDLED_LIBS   static archives, built with -fPIC, folded into libgpuref.so and into
#                         the installed libgpuref.a (today the PIC simulation library)
#   GPUREF_PIC_VARS       the make variables that build those archives' PIC copies elsewhere
#                         (a build directory moved, -fPIC added to its compilers' flags)
#   GPUREF_SO_LDLIBS      what libgpuref.so links against; a static link of libgpuref.a needs
#                         the same, so gpuref.pc's Libs.private is made from it
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install

# The library's own version (not the device's register map version, which gr_device_info
# reports); the soname changes when the ABI does.
GPUREF_VERSION := 0.1.0
GPUREF_SOVERSION := 0

# ---- gpuctl alone --------------------------------------------------------------------------
gpuctl: $(GPUCTL)
# The demo's README section is followed by gpuctl examples: build it too.
demo: $(GPUCTL)

# ---- position-independent builds -----------------------------------------------------------
GPUREF_PIC_OBJ_DIR := $(BUILD)/host-pic
LIBGPUREF_PIC_OBJS := $(patsubst %.c,$(GPUREF_PIC_OBJ_DIR)/%.o,$(LIBGPUREF_SRCS))

$(GPUREF_PIC_OBJ_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -fPIC -c $< -o $@

-include $(LIBGPUREF_PIC_OBJS:.o=.d)

# The bundled libraries again, with -fPIC, by their own .mk rules in one make of its own with
# their build directories moved (harness.mk knows one SIM_DIR per make run): GPUREF_PIC_VARS
# moves them and adds the flags (Verilator's --CFLAGS reaches the model and its run-time
# library), GPUREF_BUNDLED_LIBS names the archives that make builds.
SIM_PIC_DIR := $(BUILD)/sim-pic
SIM_PIC_LIB := $(SIM_PIC_DIR)/libgr_sim.a
GPUREF_PIC_VARS := SIM_DIR=$(SIM_PIC_DIR) SIM_VFLAGS='$(SIM_VFLAGS) --CFLAGS -fPIC' \
                   SIM_CXXFLAGS='$(SIM_CXXFLAGS) -fPIC'

# ---- the libraries -------------------------------------------------------------------------
GPUREF_BUNDLED_LIBS := $(SIM_PIC_LIB)
GPUREF_SO_LDLIBS := $(SIM_LDLIBS) $(GPUREF_USB_LDLIBS) -pthread

# The make of its own runs every time (it knows when the archives are up to date); in it, the
# archives are the .mk files' targets.
ifneq ($(GPUREF_PIC_MAKE),1)
$(GPUREF_BUNDLED_LIBS): gpuref-pic-libs ;
gpuref-pic-libs:
	+@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) GPUREF_PIC_MAKE=1 \
	  $(GPUREF_PIC_VARS) $(GPUREF_BUNDLED_LIBS)
endif

GPUREF_LIB_DIR := $(BUILD)/lib/install
GPUREF_SO_NAME := libgpuref.so.$(GPUREF_SOVERSION)
GPUREF_SO := $(GPUREF_LIB_DIR)/libgpuref.so.$(GPUREF_VERSION)
GPUREF_A := $(GPUREF_LIB_DIR)/libgpuref.a
GPUREF_PC := $(GPUREF_LIB_DIR)/gpuref.pc

# Only the gr_* API is exported: the miniport's, VidMm's and Verilator's symbols stay inside,
# so a program with a Verilated model of its own does not meet gpuref's.
GPUREF_SO_MAP := host/libgpuref.map

$(GPUREF_SO): $(LIBGPUREF_PIC_OBJS) $(GPUREF_BUNDLED_LIBS) $(GPUREF_SO_MAP)
	@mkdir -p $(@D)
	$(CXX) -shared -o $@ -Wl,-soname,$(GPUREF_SO_NAME) -Wl,--no-undefined \
	  -Wl,--version-script,$(GPUREF_SO_MAP) $(LIBGPUREF_PIC_OBJS) $(GPUREF_BUNDLED_LIBS) $(GPUREF_SO_LDLIBS)

# The static library carries the same objects, the bundled archives' members included.
$(GPUREF_A): $(LIBGPUREF_PIC_OBJS) $(GPUREF_BUNDLED_LIBS)
	@mkdir -p $(@D)
	@rm -f $@ $@.mri
	@{ echo "create $@"; \
	   for a in $(GPUREF_BUNDLED_LIBS); do echo "addlib $$a"; done; \
	   for o in $(LIBGPUREF_PIC_OBJS); do echo "addmod $$o"; done; \
	   echo "save"; echo "end"; } > $@.mri
	$(AR) -M < $@.mri
	@rm -f $@.mri
	@ranlib $@

# gpuref.pc for PREFIX and LIBDIR/INCLUDEDIR as given; rewritten when they change.
$(GPUREF_PC): _gpuref_install_force
	@mkdir -p $(@D)
	@{ echo 'prefix=$(PREFIX)'; \
	   echo 'libdir=$(patsubst $(PREFIX)%,$${prefix}%,$(LIBDIR))'; \
	   echo 'includedir=$(patsubst $(PREFIX)%,$${prefix}%,$(INCLUDEDIR))'; \
	   echo; \
	   echo 'Name: gpuref'; \
	   echo 'Description: gpuref host library: the gr_* API over WDDM DDIs, with the sim:// Verilator backend'; \
	   echo 'Version: $(GPUREF_VERSION)'; \
	   echo 'Cflags: -I$${includedir}'; \
	   echo 'Libs: -L$${libdir} -lgpuref'; \
	   echo 'Libs.private: $(GPUREF_SO_LDLIBS)'; } > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

gpuref-libs: $(GPUREF_SO) $(GPUREF_A) $(GPUREF_PC)

# ---- install -------------------------------------------------------------------------------
GPUREF_PUBLIC_HEADERS := $(sort $(wildcard host/include/gpuref/*.h))
GPUREF_TOP_HEADERS := host/include/d3dkmddi.h host/include/dispmprt.h
# gpuref-simd is installed when this tree builds it (host.mk defines it).
GPUREF_INSTALL_BINS := $(GPUCTL) $(if $(GPUREF_SIMD),$(GPUREF_SIMD))

install: gpuref-libs $(GPUREF_INSTALL_BINS)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(INCLUDEDIR)/gpuref \
	  $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(GPUREF_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(GPUREF_SO)) $(DESTDIR)$(LIBDIR)/$(GPUREF_SO_NAME)
	ln -sf $(GPUREF_SO_NAME) $(DESTDIR)$(LIBDIR)/libgpuref.so
	$(INSTALL) -m 644 $(GPUREF_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 644 $(GPUREF_PC) $(DESTDIR)$(PKGCONFIGDIR)/
	$(INSTALL) -m 644 $(GPUREF_PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/gpuref/
	$(INSTALL) -m 644 $(GPUREF_TOP_HEADERS) $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL) -m 755 $(GPUREF_INSTALL_BINS) $(DESTDIR)$(BINDIR)/

.PHONY: gpuctl install gpuref-libs gpuref-pic-libs _gpuref_install_force
