/* SPDX-License-Identifier: Apache-2.0 */
/* gr_link_pcie.c: pcie://, a board on PCIe through VFIO or uio_pci_generic (gr_link_pcie.h). */
#define _GNU_SOURCE
#include "gr_link_pcie.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpuref/gr_regmap.h"
#include "gpuref/gr_regs.h"

static const char *const pcie_keys[] = {"anyid", "root", NULL};

#define PCI_VENDOR_ID 0x00
#define PCI_COMMAND 0x04
#define PCI_COMMAND_MEMORY 0x2u
#define PCI_COMMAND_MASTER 0x4u
#define NO_IRQ (~0u)

enum { MODE_VFIO, MODE_UIO };

/* One dma_alloc buffer; the list is kept in IOVA order for the first-fit allocator. */
typedef struct pcie_dma {
    struct pcie_dma *next;
    void *cpu;
    uint64_t iova;
    size_t bytes; /* whole pages */
} pcie_dma_t;

typedef struct pcie_ctx {
    char bdf[13];
    int mode;
    unsigned group;
    int container, group_fd, device_fd; /* VFIO */
    uint64_t cfg_off;                   /* VFIO: the config region's offset in device_fd */
    int cfg_fd;                         /* uio: sysfs config */
    int irq_fd;                         /* the eventfd (VFIO) or /dev/uioN; -1: none */
    unsigned irq_index;                 /* VFIO: VFIO_PCI_{MSIX,MSI,INTX}_IRQ_INDEX, or NO_IRQ */
    bool intx_masked;                   /* VFIO INTx: delivered, masked until the next wait */
    int req_fd;                         /* VFIO: the device request eventfd (removal); -1: none */
    bool reset_works;                   /* VFIO: VFIO_DEVICE_FLAGS_RESET */
    bool gone;                          /* the device was removed: no call touches it again */
    unsigned uio;
    volatile uint8_t *bar0, *bar1;      /* mapped BARs; NULL: reached with pread/pwrite */
    uint64_t bar0_off, bar1_off;        /* VFIO: the BAR regions' offsets in device_fd */
    size_t bar0_len, bar1_len;
    pcie_dma_t *dma;
    uint64_t iova_lo, iova_hi; /* dma_alloc's window: [lo, hi) */
    uint64_t iova_next;        /* where dma_alloc looks first: past the last buffer it gave */
} pcie_ctx_t;

/* Parses DDDD:BB:DD.F strictly into lower case (sysfs spells it so). */
static int parse_bdf(const char *s, char out[13])
{
    static const char form[] = "hhhh:hh:hh.h";
    if (strlen(s) != 12)
        return -1;
    for (int i = 0; i < 12; i++) {
        char c = s[i];
        if (form[i] == 'h') {
            if (c >= 'A' && c <= 'F')
                c = (char)(c - 'A' + 'a');
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                return -1;
        } else if (c != form[i]) {
            return -1;
        }
        out[i] = c;
    }
    out[12] = '\0';
    unsigned dev = (unsigned)strtoul(out + 8, NULL, 16);
    unsigned fn = (unsigned)strtoul(out + 11, NULL, 16);
    return dev > 0x1f || fn > 7 ? -1 : 0;
}

/* The status an open() errno maps to, with the message naming path and fix. */
static int open_error(const char *bdf, const char *path, const char *what, int e)
{
    if (e == EACCES || e == EPERM) {
        gr_link_set_error("pcie://%s: no permission to open %s (%s): %s; run as a user who may "
                          "(usually: a udev rule giving %s to group vfio, and the user in it)",
                          bdf, path, what, strerror(e), path);
        return GR_E_IO;
    }
    if (e == EBUSY) {
        gr_link_set_error("pcie://%s: %s (%s) is in use: it is open in another process, or in another link of "
                          "this one (one driver stack per device; gpuref-broker shares one)",
                          bdf, path, what);
        return GR_E_BUSY;
    }
    gr_link_set_error("pcie://%s: cannot open %s (%s): %s", bdf, path, what, strerror(e));
    return e == ENOENT || e == ENODEV || e == ENXIO ? GR_E_NO_DEVICE : GR_E_IO;
}

/* Reads a sysfs number file ("0x10ee\n"). */
static int read_hex_file(const char *path, unsigned *out)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[32] = "";
    char *ok = fgets(line, sizeof line, f);
    fclose(f);
    if (!ok)
        return -1;
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(line, &end, 0);
    if (errno || end == line || (*end && *end != '\n') || v > 0xffffffffu)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* The last part of a symlink's target ("vfio-pci", "12"); -1 with errno on failure. */
static int link_name(const char *path, char *out, size_t cap)
{
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
        return -1;
    target[n] = '\0';
    const char *slash = strrchr(target, '/');
    const char *name = slash ? slash + 1 : target;
    size_t len = strlen(name);
    if (len >= cap) /* no driver or group name is this long: cut, the message still shows it */
        len = cap - 1;
    memcpy(out, name, len);
    out[len] = '\0';
    return 0;
}

static int ioctl_error(const pcie_ctx_t *c, const char *what, const char *node)
{
    int e = errno;
    gr_link_set_error("pcie://%s: %s failed on %s: %s%s", c->bdf, what, node, strerror(e),
                      e == ENOTTY ? " (not a VFIO device node)" : "");
    return GR_E_IO;
}

/* Narrows dma_alloc's window to the largest part of [GR_PCIE_IOVA_BASE, GR_PCIE_IOVA_END) that
 * the IOMMU can map, when the kernel reports its valid IOVA ranges (reserved regions such as an
 * MSI window or HyperTransport's hole are outside them). Without the report the window stays. */
static int narrow_iova(pcie_ctx_t *c)
{
    c->iova_lo = c->iova_next = GR_PCIE_IOVA_BASE;
    c->iova_hi = GR_PCIE_IOVA_END;
    struct vfio_iommu_type1_info head = {.argsz = sizeof head};
    if (ioctl(c->container, VFIO_IOMMU_GET_INFO, &head) != 0 ||
        !(head.flags & VFIO_IOMMU_INFO_CAPS) || head.argsz <= sizeof head)
        return GR_OK;
    uint32_t size = head.argsz;
    struct vfio_iommu_type1_info *info = calloc(1, size);
    if (!info)
        return GR_E_NO_MEMORY;
    info->argsz = size;
    if (ioctl(c->container, VFIO_IOMMU_GET_INFO, info) != 0 || info->argsz > size) {
        free(info);
        return GR_OK;
    }
    uint64_t best_lo = 0, best_hi = 0;
    bool reported = false;
    for (uint32_t off = info->cap_offset; off && off + sizeof(struct vfio_info_cap_header) <= size;) {
        const struct vfio_info_cap_header *h = (const void *)((const char *)info + off);
        if (h->id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE &&
            off + sizeof(struct vfio_iommu_type1_info_cap_iova_range) <= size) {
            const struct vfio_iommu_type1_info_cap_iova_range *r = (const void *)h;
            reported = true;
            for (uint32_t i = 0; i < r->nr_iovas; i++) {
                if (off + sizeof *r + (i + 1u) * sizeof r->iova_ranges[0] > size)
                    break;
                /* end is inclusive */
                uint64_t lo = r->iova_ranges[i].start > GR_PCIE_IOVA_BASE ? r->iova_ranges[i].start
                                                                          : GR_PCIE_IOVA_BASE;
                uint64_t hi = r->iova_ranges[i].end < GR_PCIE_IOVA_END - 1u
                                  ? r->iova_ranges[i].end + 1u
                                  : GR_PCIE_IOVA_END;
                if (lo < hi && hi - lo > best_hi - best_lo) {
                    best_lo = lo;
                    best_hi = hi;
                }
            }
        }
        if (h->next <= off)
            break;
        off = h->next;
    }
    free(info);
    if (reported) {
        if (best_hi - best_lo < (1u << 20)) {
            gr_link_set_error("pcie://%s: the IOMMU maps nothing between 0x%llx and 0x%llx for "
                              "DMA buffers",
                              c->bdf, (unsigned long long)GR_PCIE_IOVA_BASE,
                              (unsigned long long)GR_PCIE_IOVA_END);
            return GR_E_UNSUPPORTED;
        }
        c->iova_lo = (best_lo + 0xfffu) & ~0xfffull;
        c->iova_hi = best_hi & ~0xfffull;
    }
    c->iova_next = c->iova_lo;
    return GR_OK;
}

static const char *irq_name(uint32_t index)
{
    switch (index) {
    case VFIO_PCI_MSIX_IRQ_INDEX: return "MSI-X";
    case VFIO_PCI_MSI_IRQ_INDEX: return "MSI";
    case VFIO_PCI_INTX_IRQ_INDEX: return "INTx";
    default: return "device request";
    }
}

/* VFIO_DEVICE_SET_IRQS with one SET_IRQS header and count values of data after it. */
static int set_irqs(const pcie_ctx_t *c, uint32_t index, uint32_t flags, uint32_t count,
                    const void *data, size_t data_bytes)
{
    union {
        struct vfio_irq_set s;
        uint8_t bytes[sizeof(struct vfio_irq_set) + sizeof(int32_t)];
    } set;
    memset(&set, 0, sizeof set);
    set.s.argsz = (uint32_t)(sizeof(struct vfio_irq_set) + data_bytes);
    set.s.flags = flags;
    set.s.index = index;
    set.s.start = 0;
    set.s.count = count;
    if (data_bytes)
        memcpy(set.bytes + sizeof(struct vfio_irq_set), data, data_bytes);
    return ioctl(c->device_fd, VFIO_DEVICE_SET_IRQS, &set);
}

/* Vector 0 of an interrupt index delivered to a new eventfd. */
static int irq_eventfd(pcie_ctx_t *c, uint32_t index, int *out_fd)
{
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (efd < 0) {
        gr_link_set_error("pcie://%s: eventfd: %s", c->bdf, strerror(errno));
        return GR_E_IO;
    }
    const int32_t fd32 = efd;
    if (set_irqs(c, index, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER, 1, &fd32,
                 sizeof fd32) != 0) {
        int e = errno;
        close(efd);
        errno = e;
        char what[64];
        snprintf(what, sizeof what, "VFIO_DEVICE_SET_IRQS (%s)", irq_name(index));
        return ioctl_error(c, what, "the device");
    }
    *out_fd = efd;
    return GR_OK;
}

/* VFIO: container, group, device; BARs, command register, interrupts. */
static int open_vfio(pcie_ctx_t *c, const char *devroot, const char *sysdev)
{
    char path[PATH_MAX], name[64];
    snprintf(path, sizeof path, "%s/iommu_group", sysdev);
    if (link_name(path, name, sizeof name) != 0) {
        gr_link_set_error("pcie://%s: the device has no IOMMU group (%s missing): VFIO needs an "
                          "IOMMU; enable it (intel_iommu=on or amd_iommu=on on the kernel command "
                          "line, and in the firmware), or bind the device to uio_pci_generic (no DMA)",
                          c->bdf, path);
        return GR_E_UNSUPPORTED;
    }
    char *end = NULL;
    unsigned long g = strtoul(name, &end, 10);
    if (!name[0] || *end || g > 0xffffffu) {
        gr_link_set_error("pcie://%s: %s points at '%s', not a group number", c->bdf, path, name);
        return GR_E_IO;
    }
    c->group = (unsigned)g;
    char gpath[PATH_MAX], cpath[PATH_MAX];
    snprintf(gpath, sizeof gpath, "%s/vfio/%u", devroot, c->group);
    snprintf(cpath, sizeof cpath, "%s/vfio/vfio", devroot);
    c->group_fd = open(gpath, O_RDWR | O_CLOEXEC);
    if (c->group_fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            gr_link_set_error("pcie://%s: %s does not exist: IOMMU group %u has no VFIO node "
                              "(is the device bound to vfio-pci, and vfio-pci loaded?)",
                              c->bdf, gpath, c->group);
            return GR_E_NO_DEVICE;
        }
        return open_error(c->bdf, gpath, "the VFIO group", e);
    }
    c->container = open(cpath, O_RDWR | O_CLOEXEC);
    if (c->container < 0)
        return open_error(c->bdf, cpath, "the VFIO container", errno);
    int v = ioctl(c->container, VFIO_GET_API_VERSION);
    if (v < 0)
        return ioctl_error(c, "VFIO_GET_API_VERSION", cpath);
    if (v != VFIO_API_VERSION) {
        gr_link_set_error("pcie://%s: VFIO API version %d, this build knows %d", c->bdf, v,
                          VFIO_API_VERSION);
        return GR_E_UNSUPPORTED;
    }
    int type = ioctl(c->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) > 0 ? VFIO_TYPE1v2_IOMMU
               : ioctl(c->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU) > 0 ? VFIO_TYPE1_IOMMU
                                                                                  : -1;
    if (type < 0) {
        gr_link_set_error("pcie://%s: the VFIO container offers no type 1 IOMMU", c->bdf);
        return GR_E_UNSUPPORTED;
    }
    struct vfio_group_status gs = {.argsz = sizeof gs};
    if (ioctl(c->group_fd, VFIO_GROUP_GET_STATUS, &gs) != 0)
        return ioctl_error(c, "VFIO_GROUP_GET_STATUS", gpath);
    if (!(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
        gr_link_set_error("pcie://%s: IOMMU group %u is not viable: every device in %s/devices "
                          "must be bound to vfio-pci (or to no driver)",
                          c->bdf, c->group, path);
        return GR_E_BUSY;
    }
    if (ioctl(c->group_fd, VFIO_GROUP_SET_CONTAINER, &c->container) != 0)
        return ioctl_error(c, "VFIO_GROUP_SET_CONTAINER", gpath);
    if (ioctl(c->container, VFIO_SET_IOMMU, type) != 0)
        return ioctl_error(c, "VFIO_SET_IOMMU", cpath);
    int rc = narrow_iova(c);
    if (rc)
        return rc;
    c->device_fd = ioctl(c->group_fd, VFIO_GROUP_GET_DEVICE_FD, c->bdf);
    if (c->device_fd < 0)
        return ioctl_error(c, "VFIO_GROUP_GET_DEVICE_FD", gpath);

    struct vfio_device_info di = {.argsz = sizeof di};
    if (ioctl(c->device_fd, VFIO_DEVICE_GET_INFO, &di) != 0)
        return ioctl_error(c, "VFIO_DEVICE_GET_INFO", gpath);
    c->reset_works = (di.flags & VFIO_DEVICE_FLAGS_RESET) != 0;
    /* A known state before anything is mapped for the device: whatever an earlier user left
     * running stops here (without a function reset, pcie_open resets the DMA engine instead). */
    if (c->reset_works && ioctl(c->device_fd, VFIO_DEVICE_RESET) != 0)
        c->reset_works = false; /* refused (another function shares the reset): the fallback */

    uint32_t idx[2] = {VFIO_PCI_BAR0_REGION_INDEX, VFIO_PCI_BAR1_REGION_INDEX};
    volatile uint8_t **bars[2] = {&c->bar0, &c->bar1};
    uint64_t *offs[2] = {&c->bar0_off, &c->bar1_off};
    size_t *lens[2] = {&c->bar0_len, &c->bar1_len};
    for (int i = 0; i < 2; i++) {
        struct vfio_region_info ri = {.argsz = sizeof ri, .index = idx[i]};
        if (ioctl(c->device_fd, VFIO_DEVICE_GET_REGION_INFO, &ri) != 0)
            return ioctl_error(c, "VFIO_DEVICE_GET_REGION_INFO (BAR)", gpath);
        const uint32_t rw = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
        if (ri.size == 0 || (ri.flags & rw) != rw || ri.size > SIZE_MAX) {
            gr_link_set_error("pcie://%s: BAR%d (%llu bytes, flags 0x%x) cannot be read and "
                              "written through VFIO",
                              c->bdf, i, (unsigned long long)ri.size, ri.flags);
            return GR_E_UNSUPPORTED;
        }
        *offs[i] = ri.offset;
        *lens[i] = (size_t)ri.size;
        /* Mapped where VFIO allows it; else each access is a pread or pwrite at the region's
         * offset (a BAR vfio-pci cannot map: smaller than a page, or with MSI-X in it). */
        if (ri.flags & VFIO_REGION_INFO_FLAG_MMAP) {
            void *m = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, c->device_fd,
                           (off_t)ri.offset);
            if (m == MAP_FAILED) {
                gr_link_set_error("pcie://%s: mmap of BAR%d failed: %s", c->bdf, i,
                                  strerror(errno));
                return GR_E_IO;
            }
            *bars[i] = m;
        }
    }
    struct vfio_region_info cfg = {.argsz = sizeof cfg, .index = VFIO_PCI_CONFIG_REGION_INDEX};
    if (ioctl(c->device_fd, VFIO_DEVICE_GET_REGION_INFO, &cfg) != 0)
        return ioctl_error(c, "VFIO_DEVICE_GET_REGION_INFO (config)", gpath);
    c->cfg_off = cfg.offset;

    /* MSI-X, else MSI, else INTx as the last resort, as the kernel's own drivers choose;
     * none: the link works without GR_LINK_CAP_IRQ (polling). */
    static const uint32_t kinds[] = {VFIO_PCI_MSIX_IRQ_INDEX, VFIO_PCI_MSI_IRQ_INDEX,
                                     VFIO_PCI_INTX_IRQ_INDEX};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0] && c->irq_fd < 0; k++) {
        struct vfio_irq_info ii = {.argsz = sizeof ii, .index = kinds[k]};
        if (ioctl(c->device_fd, VFIO_DEVICE_GET_IRQ_INFO, &ii) != 0 || ii.count < 1 ||
            !(ii.flags & VFIO_IRQ_INFO_EVENTFD))
            continue;
        int efd = -1;
        int rc = irq_eventfd(c, kinds[k], &efd);
        if (rc)
            return rc;
        c->irq_fd = efd;
        c->irq_index = kinds[k];
    }
    /* The kernel asks for the device back through this one when it is being removed. */
    struct vfio_irq_info ri = {.argsz = sizeof ri, .index = VFIO_PCI_REQ_IRQ_INDEX};
    if (ioctl(c->device_fd, VFIO_DEVICE_GET_IRQ_INFO, &ri) == 0 && ri.count >= 1 &&
        (ri.flags & VFIO_IRQ_INFO_EVENTFD)) {
        int rc = irq_eventfd(c, VFIO_PCI_REQ_IRQ_INDEX, &c->req_fd);
        if (rc)
            return rc;
    }
    return GR_OK;
}

/* Maps a sysfs resourceN file whole. */
static int map_resource(pcie_ctx_t *c, const char *sysdev, int bar, volatile uint8_t **out,
                        size_t *out_len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/resource%d", sysdev, bar);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return open_error(c->bdf, path, "a BAR", errno);
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        close(fd);
        gr_link_set_error("pcie://%s: %s has no size: BAR%d is not assigned", c->bdf, path, bar);
        return GR_E_UNSUPPORTED;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping stays */
    if (m == MAP_FAILED) {
        gr_link_set_error("pcie://%s: mmap of %s failed: %s", c->bdf, path, strerror(errno));
        return GR_E_UNSUPPORTED;
    }
    *out = m;
    *out_len = (size_t)st.st_size;
    return GR_OK;
}

/* uio_pci_generic: sysfs resources, sysfs config, INTx through /dev/uioN. */
static int open_uio(pcie_ctx_t *c, const char *devroot, const char *sysdev)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/uio", sysdev);
    DIR *d = opendir(path);
    bool found = false;
    if (d) {
        struct dirent *e;
        while (!found && (e = readdir(d)))
            found = sscanf(e->d_name, "uio%u", &c->uio) == 1;
        closedir(d);
    }
    if (!found) {
        gr_link_set_error("pcie://%s: bound to uio_pci_generic but %s names no uio device",
                          c->bdf, path);
        return GR_E_NO_DEVICE;
    }
    int rc = map_resource(c, sysdev, 0, &c->bar0, &c->bar0_len);
    if (!rc)
        rc = map_resource(c, sysdev, 1, &c->bar1, &c->bar1_len);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/config", sysdev);
    c->cfg_fd = open(path, O_RDWR | O_CLOEXEC);
    if (c->cfg_fd < 0)
        return open_error(c->bdf, path, "config space", errno);
    snprintf(path, sizeof path, "%s/uio%u", devroot, c->uio);
    c->irq_fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (c->irq_fd < 0)
        return open_error(c->bdf, path, "the uio device", errno);
    /* uio_pci_generic masks INTx after each interrupt; writing 1 unmasks it. */
    uint32_t one = 1;
    if (write(c->irq_fd, &one, sizeof one) != (ssize_t)sizeof one) {
        gr_link_set_error("pcie://%s: cannot enable interrupts on %s: %s", c->bdf, path,
                          strerror(errno));
        return GR_E_IO;
    }
    return GR_OK;
}

/* Config space through the VFIO region or sysfs config. */
static int cfg_rw16(pcie_ctx_t *c, unsigned off, uint16_t *v, bool write)
{
    int fd = c->mode == MODE_VFIO ? c->device_fd : c->cfg_fd;
    off_t at = (off_t)((c->mode == MODE_VFIO ? c->cfg_off : 0) + off);
    ssize_t n = write ? pwrite(fd, v, 2, at) : pread(fd, v, 2, at);
    if (n != 2) {
        int e = n < 0 ? errno : 0;
        gr_link_set_error("pcie://%s: config space %s at 0x%x failed: %s", c->bdf,
                          write ? "write" : "read", off, e ? strerror(e) : "short");
        if (e == ENODEV)
            c->gone = true;
        return e == ENODEV ? GR_E_NO_DEVICE : GR_E_IO;
    }
    return GR_OK;
}

/* What a failed or all-ones BAR access means. PCIe gives user space no status for a read: the
 * root complex answers one that fails (UR, CA, a completion timeout, a device that is gone)
 * with all ones, and vfio-pci refuses BAR access once memory decoding is off. So the config
 * space is asked: a vendor ID of all ones (or ENODEV) is a removed device; memory decoding
 * off in the command register that pcie_open set is a function reset that came from outside
 * (a slot reset, a link that went down): it is turned back on and the caller is told the
 * device lost its state; else, for an all-ones read, ID_MAGIC is read again: all ones there
 * too is a device that does not complete reads. GR_OK: the all-ones value was the register's. */
static int bar_fault(pcie_ctx_t *c, bool all_ones)
{
    if (c->gone) {
        gr_link_set_error("pcie://%s: the device is gone (removed)", c->bdf);
        return GR_E_NO_DEVICE;
    }
    uint16_t vendor = 0, cmd = 0;
    int rc = cfg_rw16(c, PCI_VENDOR_ID, &vendor, false);
    if (rc == GR_E_NO_DEVICE || (!rc && vendor == 0xffffu)) {
        c->gone = true;
        gr_link_set_error("pcie://%s: the device is gone (surprise removal: %s)", c->bdf,
                          rc ? "its VFIO device answers ENODEV" : "config space reads all ones");
        return GR_E_NO_DEVICE;
    }
    if (!rc)
        rc = cfg_rw16(c, PCI_COMMAND, &cmd, false);
    if (rc)
        return rc;
    if (!(cmd & PCI_COMMAND_MEMORY)) {
        cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
        rc = cfg_rw16(c, PCI_COMMAND, &cmd, true);
        if (rc)
            return rc;
        gr_link_set_error("pcie://%s: the function was reset (memory decoding was off): its "
                          "registers are at their reset values",
                          c->bdf);
        return GR_E_DEVICE_RESET;
    }
    if (!all_ones) {
        gr_link_set_error("pcie://%s: a BAR access failed with memory decoding on", c->bdf);
        return GR_E_IO;
    }
    uint32_t magic = 0xffffffffu;
    if (c->bar0)
        magic = *(volatile uint32_t *)(c->bar0 + GR_REG_ID_MAGIC);
    else if (pread(c->device_fd, &magic, 4, (off_t)(c->bar0_off + GR_REG_ID_MAGIC)) != 4)
        magic = 0xffffffffu;
    if (magic == 0xffffffffu) {
        gr_link_set_error("pcie://%s: BAR0 reads complete with all ones while config space "
                          "answers: the device does not complete reads (completion timeout)",
                          c->bdf);
        return GR_E_TIMEOUT;
    }
    return GR_OK;
}

/* One access to a BAR: a load or store on the mapping, or pread/pwrite at the region. */
static int bar_rw(pcie_ctx_t *c, int bar, uint64_t off, void *buf, size_t n, bool write)
{
    if (c->gone) {
        gr_link_set_error("pcie://%s: the device is gone (removed)", c->bdf);
        return GR_E_NO_DEVICE;
    }
    const uint64_t at = (bar ? c->bar1_off : c->bar0_off) + off;
    ssize_t r = write ? pwrite(c->device_fd, buf, n, (off_t)at) : pread(c->device_fd, buf, n, (off_t)at);
    if (r == (ssize_t)n)
        return GR_OK;
    int e = r < 0 ? errno : EIO;
    if (e == ENODEV)
        c->gone = true;
    int rc = bar_fault(c, false);
    if (rc == GR_E_IO)
        gr_link_set_error("pcie://%s: BAR%d %s of %zu bytes at 0x%llx failed: %s", c->bdf, bar,
                          write ? "write" : "read", n, (unsigned long long)off,
                          r < 0 ? strerror(e) : "short");
    return rc ? rc : GR_E_IO;
}

static void pcie_close(void *ctx)
{
    pcie_ctx_t *c = ctx;
    if (!c)
        return;
    if (c->mode == MODE_VFIO && c->device_fd >= 0 && !c->gone && c->dma) {
        /* The device must not reach the pages after they go back: bus mastering off first,
         * so that DMA still in flight ends at the function, not at an unmapped IOVA. */
        uint16_t cmd = 0;
        if (cfg_rw16(c, PCI_COMMAND, &cmd, false) == GR_OK) {
            cmd &= (uint16_t)~PCI_COMMAND_MASTER;
            (void)cfg_rw16(c, PCI_COMMAND, &cmd, true);
        }
    }
    while (c->dma) {
        pcie_dma_t *d = c->dma;
        c->dma = d->next;
        if (c->mode == MODE_VFIO) {
            struct vfio_iommu_type1_dma_unmap um = {
                .argsz = sizeof um, .iova = d->iova, .size = d->bytes};
            ioctl(c->container, VFIO_IOMMU_UNMAP_DMA, &um);
        }
        munmap(d->cpu, d->bytes);
        free(d);
    }
    if (c->irq_fd >= 0 && c->mode == MODE_VFIO && c->device_fd >= 0 && !c->gone)
        (void)set_irqs(c, c->irq_index, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0,
                       NULL, 0);
    if (c->bar0)
        munmap((void *)c->bar0, c->bar0_len);
    if (c->bar1)
        munmap((void *)c->bar1, c->bar1_len);
    int fds[] = {c->irq_fd, c->req_fd, c->cfg_fd, c->device_fd, c->group_fd, c->container};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(c);
}

static int pcie_open(const gr_uri_t *uri, void **out_ctx)
{
    char bdf[13];
    if (parse_bdf(uri->path, bdf) != 0) {
        gr_link_set_error("pcie://%s: not a PCI address; the accepted form is DDDD:BB:DD.F "
                          "(hex domain, bus, device 00-1f, function 0-7, as lspci -D prints "
                          "it), e.g. pcie://0000:01:00.0",
                          uri->path);
        return GR_E_BAD_URI;
    }
    const char *anyid = gr_uri_param(uri, "anyid");
    if (anyid && strcmp(anyid, "0") != 0 && strcmp(anyid, "1") != 0) {
        gr_link_set_error("pcie://%s: bad value '%s' for anyid (0 or 1)", bdf, anyid);
        return GR_E_BAD_URI;
    }
    const char *root = gr_uri_param(uri, "root");
    char sysdev[GR_URI_TEXT_MAX + 64], devroot[GR_URI_TEXT_MAX + 8], path[PATH_MAX];
    snprintf(sysdev, sizeof sysdev, "%s/sys/bus/pci/devices/%s", root ? root : "", bdf);
    snprintf(devroot, sizeof devroot, "%s/dev", root ? root : "");

    struct stat st;
    if (stat(sysdev, &st) != 0) {
        gr_link_set_error("pcie://%s: no PCI device at %s (%s); lspci -D lists the devices",
                          bdf, sysdev, strerror(errno));
        return GR_E_NO_DEVICE;
    }
    unsigned vendor = 0, device = 0;
    snprintf(path, sizeof path, "%s/vendor", sysdev);
    int bad = read_hex_file(path, &vendor);
    snprintf(path, sizeof path, "%s/device", sysdev);
    bad = bad || read_hex_file(path, &device);
    if (bad) {
        gr_link_set_error("pcie://%s: cannot read the vendor and device IDs in %s", bdf, sysdev);
        return GR_E_IO;
    }
    if ((!anyid || strcmp(anyid, "1") != 0) &&
        (vendor != GR_PCIE_VENDOR_ID || device != GR_PCIE_DEVICE_ID)) {
        gr_link_set_error("pcie://%s: device %04x:%04x is not a gpuref board (%04x:%04x); "
                          "?anyid=1 accepts any ID",
                          bdf, vendor, device, GR_PCIE_VENDOR_ID, GR_PCIE_DEVICE_ID);
        return GR_E_NO_DEVICE;
    }
    char driver[64];
    snprintf(path, sizeof path, "%s/driver", sysdev);
    int mode;
    if (link_name(path, driver, sizeof driver) != 0) {
        gr_link_set_error("pcie://%s: no driver is bound to the device; bind it to vfio-pci: "
                          "echo vfio-pci > %s/driver_override; echo %s > "
                          "/sys/bus/pci/drivers_probe",
                          bdf, sysdev, bdf);
        return GR_E_NO_DEVICE;
    }
    if (strcmp(driver, "vfio-pci") == 0) {
        mode = MODE_VFIO;
    } else if (strcmp(driver, "uio_pci_generic") == 0) {
        mode = MODE_UIO;
    } else {
        gr_link_set_error("pcie://%s: the device is bound to driver '%s', not vfio-pci; rebind "
                          "it: echo %s > %s/driver/unbind; echo vfio-pci > %s/driver_override; "
                          "echo %s > /sys/bus/pci/drivers_probe",
                          bdf, driver, bdf, sysdev, sysdev, bdf);
        return GR_E_BUSY;
    }

    pcie_ctx_t *c = calloc(1, sizeof *c);
    if (!c) {
        gr_link_set_error("out of memory");
        return GR_E_NO_MEMORY;
    }
    memcpy(c->bdf, bdf, sizeof c->bdf);
    c->mode = mode;
    c->container = c->group_fd = c->device_fd = c->cfg_fd = c->irq_fd = c->req_fd = -1;
    c->irq_index = NO_IRQ;
    int rc = mode == MODE_VFIO ? open_vfio(c, devroot, sysdev) : open_uio(c, devroot, sysdev);
    if (!rc && c->bar0_len < GR_REGMAP_BAR0_BYTES) {
        gr_link_set_error("pcie://%s: BAR0 has %zu bytes, gpuref's registers need %u", bdf,
                          c->bar0_len, GR_REGMAP_BAR0_BYTES);
        rc = GR_E_IO;
    }
    uint16_t cmd = 0;
    if (!rc)
        rc = cfg_rw16(c, PCI_COMMAND, &cmd, false);
    if (!rc) {
        /* Memory space for the BARs now; bus mastering (gpu_core's DMA, MSI writes) only once
         * nothing an earlier user started can use it. */
        cmd |= PCI_COMMAND_MEMORY;
        rc = cfg_rw16(c, PCI_COMMAND, &cmd, true);
    }
    uint32_t magic = 0;
    if (!rc)
        rc = c->bar0 ? (magic = *(volatile uint32_t *)(c->bar0 + GR_REG_ID_MAGIC), GR_OK)
                     : bar_rw(c, 0, GR_REG_ID_MAGIC, &magic, 4, false);
    if (!rc) {
        if (magic != GPU_REGS__ID_MAGIC__VALUE_reset) {
            gr_link_set_error("pcie://%s: BAR0 ID_MAGIC reads 0x%08x, not gpuref's 0x%08x%s", bdf,
                              magic, GPU_REGS__ID_MAGIC__VALUE_reset,
                              magic == 0xffffffffu ? " (the device does not answer)" : "");
            rc = GR_E_NO_DEVICE;
        }
    }
    if (!rc && c->mode == MODE_VFIO && !c->reset_works) {
        /* No function reset: the device's own. The DMA engine drains the bus and drops what an
         * earlier user queued; no interrupt source stays enabled. */
        uint32_t v = GPU_REGS__DMA_CTRL__RESET_bm, off = 0;
        rc = bar_rw(c, 0, GR_REG_DMA_CTRL, &v, 4, true);
        if (!rc)
            rc = bar_rw(c, 0, GR_REG_IRQ_ENABLE, &off, 4, true);
        /* The drain ends with bus mastering still off: its requests end at the function. */
        unsigned n = 0;
        for (v = 0; !rc && !(v & GPU_REGS__DMA_STATUS__IDLE_bm) && n < 10000; n++)
            rc = bar_rw(c, 0, GR_REG_DMA_STATUS, &v, 4, false);
        if (!rc && !(v & GPU_REGS__DMA_STATUS__IDLE_bm)) {
            gr_link_set_error("pcie://%s: the DMA engine does not go idle after its reset "
                              "(DMA_STATUS 0x%08x)", bdf, v);
            rc = GR_E_TIMEOUT;
        }
    }
    if (!rc) {
        cmd |= PCI_COMMAND_MASTER;
        rc = cfg_rw16(c, PCI_COMMAND, &cmd, true);
    }
    if (rc) {
        pcie_close(c);
        return rc;
    }
    *out_ctx = c;
    return GR_OK;
}

static int pcie_read32(void *ctx, uint32_t offset, uint32_t *out_value)
{
    pcie_ctx_t *c = ctx;
    uint32_t v;
    if (c->gone)
        return bar_fault(c, true);
    if (c->bar0) {
        v = *(volatile uint32_t *)(c->bar0 + offset);
    } else {
        int rc = bar_rw(c, 0, offset, &v, 4, false);
        if (rc)
            return rc;
    }
    if (v == 0xffffffffu) {
        int rc = bar_fault(c, true);
        if (rc)
            return rc;
    }
    *out_value = v;
    return GR_OK;
}

static int pcie_write32(void *ctx, uint32_t offset, uint32_t value)
{
    pcie_ctx_t *c = ctx;
    if (c->gone)
        return bar_fault(c, true);
    if (!c->bar0)
        return bar_rw(c, 0, offset, &value, 4, true);
    *(volatile uint32_t *)(c->bar0 + offset) = value;
    return GR_OK;
}

static int ap_check(const pcie_ctx_t *c, uint64_t offset, size_t bytes)
{
    if (offset > c->bar1_len || bytes > c->bar1_len - offset) {
        gr_link_set_error("pcie://%s: aperture access 0x%llx+%zu outside BAR1 (%zu bytes)",
                          c->bdf, (unsigned long long)offset, bytes, c->bar1_len);
        return GR_E_RANGE;
    }
    return GR_OK;
}

/* Byte accesses to an 8-byte boundary, 8-byte accesses, bytes for the tail: each a single
 * load or store the CPU cannot merge or split differently (volatile). */
static int pcie_ap_read(void *ctx, uint64_t offset, void *dst, size_t bytes)
{
    pcie_ctx_t *c = ctx;
    int rc = ap_check(c, offset, bytes);
    if (rc || !bytes)
        return rc;
    if (c->gone)
        return bar_fault(c, true);
    if (!c->bar1) {
        rc = bar_rw(c, 1, offset, dst, bytes, false);
        if (rc)
            return rc;
    } else {
        const volatile uint8_t *s = c->bar1 + offset;
        uint8_t *d = dst;
        size_t left = bytes;
        while (left && ((uintptr_t)s & 7u)) {
            *d++ = *s++;
            left--;
        }
        for (; left >= 8; left -= 8, s += 8, d += 8) {
            uint64_t w = *(const volatile uint64_t *)s;
            memcpy(d, &w, 8);
        }
        while (left--)
            *d++ = *s++;
    }
    /* A read answers all ones when the device is gone or does not complete: all ones
     * throughout is looked into as read32 does (a removal, a reset, a completion timeout). */
    const uint8_t *p = dst;
    size_t i = 0;
    while (i < bytes && p[i] == 0xffu)
        i++;
    return i == bytes ? bar_fault(c, true) : GR_OK;
}

static int pcie_ap_write(void *ctx, uint64_t offset, const void *src, size_t bytes)
{
    pcie_ctx_t *c = ctx;
    int rc = ap_check(c, offset, bytes);
    if (rc || !bytes)
        return rc;
    if (!c->bar1)
        return bar_rw(c, 1, offset, (void *)(uintptr_t)src, bytes, true);
    if (c->gone)
        return bar_fault(c, true);
    volatile uint8_t *d = c->bar1 + offset;
    const uint8_t *s = src;
    while (bytes && ((uintptr_t)d & 7u)) {
        *d++ = *s++;
        bytes--;
    }
    for (; bytes >= 8; bytes -= 8, s += 8, d += 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        *(volatile uint64_t *)d = w;
    }
    while (bytes--)
        *d++ = *s++;
    return GR_OK;
}

/* The first gap of len bytes in the IOVA-ordered list at or past from; false: none. */
static bool find_gap(pcie_ctx_t *c, uint64_t from, size_t len, uint64_t *out_at,
                     pcie_dma_t ***out_link)
{
    uint64_t at = c->iova_lo;
    pcie_dma_t **link = &c->dma;
    for (;;) {
        const uint64_t start = at < from ? from : at;
        const uint64_t end = *link ? (*link)->iova : c->iova_hi;
        if (start <= end && end - start >= len) {
            *out_at = start;
            *out_link = link;
            return true;
        }
        if (!*link)
            return false;
        at = (*link)->iova + (*link)->bytes;
        link = &(*link)->next;
    }
}

static int pcie_dma_alloc(void *ctx, size_t bytes, gr_dma_buf_t *out_buf)
{
    pcie_ctx_t *c = ctx;
    if (c->mode != MODE_VFIO) {
        gr_link_set_error("pcie://%s: no DMA through uio_pci_generic: without an IOMMU there is "
                          "no safe bus address to give the device; bind it to vfio-pci",
                          c->bdf);
        return GR_E_UNSUPPORTED;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes > c->iova_hi - c->iova_lo) {
        gr_link_set_error("pcie://%s: %zu bytes do not fit the DMA window", c->bdf, bytes);
        return GR_E_NO_MEMORY;
    }
    size_t len = (bytes + page - 1) / page * page;
    /* Next fit: the first gap at or past the last buffer handed out, else from the bottom. A
     * freed IOVA is given again only after the whole window has gone round, so a device that
     * still holds an old address (a fence address, a ring it was never told to forget) meets
     * an IOMMU fault, not a new buffer's memory. */
    uint64_t at = 0;
    pcie_dma_t **link = NULL;
    if (!find_gap(c, c->iova_next, len, &at, &link) && !find_gap(c, c->iova_lo, len, &at, &link)) {
        gr_link_set_error("pcie://%s: IOVA range full (%zu bytes asked)", c->bdf, bytes);
        return GR_E_NO_MEMORY;
    }
    pcie_dma_t *d = calloc(1, sizeof *d);
    if (!d)
        return GR_E_NO_MEMORY;
    /* Shared, not private: after a fork a private page the parent writes would be copied away
     * from the one the IOMMU maps. */
    d->cpu = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (d->cpu == MAP_FAILED) {
        free(d);
        return GR_E_NO_MEMORY;
    }
    d->iova = at;
    d->bytes = len;
    c->iova_next = at + len;
    struct vfio_iommu_type1_dma_map m = {
        .argsz = sizeof m,
        .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
        .vaddr = (uint64_t)(uintptr_t)d->cpu,
        .iova = at,
        .size = len,
    };
    if (ioctl(c->container, VFIO_IOMMU_MAP_DMA, &m) != 0) {
        int e = errno;
        munmap(d->cpu, len);
        free(d);
        gr_link_set_error("pcie://%s: VFIO_IOMMU_MAP_DMA of %zu bytes failed: %s%s", c->bdf, len,
                          strerror(e),
                          e == ENOMEM ? " (over the locked-memory limit? ulimit -l)" : "");
        return e == ENOMEM ? GR_E_NO_MEMORY : GR_E_IO;
    }
    d->next = *link;
    *link = d;
    out_buf->cpu = d->cpu;
    out_buf->bus = d->iova;
    out_buf->bytes = bytes;
    return GR_OK;
}

static int pcie_dma_free(void *ctx, const gr_dma_buf_t *buf)
{
    pcie_ctx_t *c = ctx;
    for (pcie_dma_t **link = &c->dma; *link; link = &(*link)->next) {
        pcie_dma_t *d = *link;
        if (d->cpu == buf->cpu && d->iova == buf->bus) {
            struct vfio_iommu_type1_dma_unmap um = {
                .argsz = sizeof um, .iova = d->iova, .size = d->bytes};
            /* Unmapped from the IOMMU before the memory goes back: the device must not reach
             * pages that are someone else's. */
            if (ioctl(c->container, VFIO_IOMMU_UNMAP_DMA, &um) != 0) {
                gr_link_set_error("pcie://%s: VFIO_IOMMU_UNMAP_DMA failed: %s", c->bdf,
                                  strerror(errno));
                return GR_E_IO;
            }
            *link = d->next;
            munmap(d->cpu, d->bytes);
            free(d);
            return GR_OK;
        }
    }
    gr_link_set_error("pcie://%s: no DMA buffer at bus 0x%llx", c->bdf,
                      (unsigned long long)buf->bus);
    return GR_E_NOT_FOUND;
}

static int pcie_wait_irq(void *ctx, uint32_t timeout_us, bool *out_raised)
{
    pcie_ctx_t *c = ctx;
    if (c->irq_fd < 0) {
        gr_link_set_error("pcie://%s: the device offers no interrupt (MSI-X, MSI or INTx)", c->bdf);
        return GR_E_UNSUPPORTED;
    }
    if (c->gone)
        return bar_fault(c, true);
    if (c->intx_masked) {
        /* INTx is masked by each delivery; the interrupt routine has run since: unmask. */
        if (set_irqs(c, VFIO_PCI_INTX_IRQ_INDEX, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK,
                     1, NULL, 0) != 0) {
            if (errno == ENODEV)
                c->gone = true;
            return c->gone ? bar_fault(c, true) : ioctl_error(c, "VFIO_DEVICE_SET_IRQS (INTx unmask)", "the device");
        }
        c->intx_masked = false;
    }
    struct pollfd ps[2] = {{.fd = c->irq_fd, .events = POLLIN}, {.fd = c->req_fd, .events = POLLIN}};
    struct pollfd *pp = ps;
    struct timespec ts = {.tv_sec = timeout_us / 1000000u,
                          .tv_nsec = (long)(timeout_us % 1000000u) * 1000};
    int n;
    do
        n = ppoll(pp, c->req_fd >= 0 ? 2 : 1, &ts, NULL);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        gr_link_set_error("pcie://%s: poll on the interrupt: %s", c->bdf, strerror(errno));
        return GR_E_IO;
    }
    if (n > 0 && (ps[1].revents & POLLIN)) {
        c->gone = true; /* the kernel asks for the device back: it is being removed */
        return bar_fault(c, true);
    }
    const struct pollfd p = ps[0];
    bool raised = false;
    if (n > 0 && (p.revents & POLLIN)) {
        /* eventfd: the 8-byte count since the last read; uio: a 4-byte total count. */
        uint64_t count = 0;
        size_t want = c->mode == MODE_VFIO ? 8 : 4;
        ssize_t r = read(c->irq_fd, &count, want);
        if (r == (ssize_t)want) {
            raised = true;
        } else if (!(r < 0 && errno == EAGAIN)) {
            gr_link_set_error("pcie://%s: reading the interrupt count: %s", c->bdf,
                              r < 0 ? strerror(errno) : "short read");
            return GR_E_IO;
        }
        if (raised && c->mode == MODE_VFIO && c->irq_index == VFIO_PCI_INTX_IRQ_INDEX)
            c->intx_masked = true;
        if (raised && c->mode == MODE_UIO) {
            uint32_t one = 1; /* unmask INTx again */
            if (write(c->irq_fd, &one, sizeof one) != (ssize_t)sizeof one) {
                gr_link_set_error("pcie://%s: re-enabling INTx: %s", c->bdf, strerror(errno));
                return GR_E_IO;
            }
        }
    }
    *out_raised = raised;
    return GR_OK;
}

static uint32_t pcie_caps(void *ctx)
{
    pcie_ctx_t *c = ctx;
    /* Memory writes are posted TLPs: no completion, so no error, ever comes back for one. */
    return (c->mode == MODE_VFIO ? GR_LINK_CAP_DMA : 0u) | (c->irq_fd >= 0 ? GR_LINK_CAP_IRQ : 0u) | GR_LINK_CAP_POSTED_WRITES |
           GR_LINK_CAP_READ_ERRORS_ALL_ONES;
}

static void pcie_describe(void *ctx, char *buf, size_t len)
{
    pcie_ctx_t *c = ctx;
    if (c->mode == MODE_VFIO)
        snprintf(buf, len, "pcie %s vfio group %u bar0=%zuKiB bar1=%zuMiB%s%s%s", c->bdf, c->group,
                 c->bar0_len >> 10, c->bar1_len >> 20, c->bar0 ? "" : " pread/pwrite",
                 c->irq_fd >= 0 ? " " : "", c->irq_fd >= 0 ? irq_name(c->irq_index) : "");
    else
        snprintf(buf, len, "pcie %s uio%u bar0=%zuKiB bar1=%zuMiB intx (no DMA)", c->bdf, c->uio,
                 c->bar0_len >> 10, c->bar1_len >> 20);
}

const gr_link_ops_t gr_link_pcie_ops = {
    .scheme = "pcie",
    .summary = "a board on PCIe through VFIO (uio_pci_generic: no DMA)",
    .param_keys = pcie_keys,
    .open = pcie_open,
    .close = pcie_close,
    .read32 = pcie_read32,
    .write32 = pcie_write32,
    .ap_read = pcie_ap_read,
    .ap_write = pcie_ap_write,
    .dma_alloc = pcie_dma_alloc,
    .dma_free = pcie_dma_free,
    .wait_irq = pcie_wait_irq,
    .caps = pcie_caps,
    .describe = pcie_describe,
};
