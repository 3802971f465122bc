/* SPDX-License-Identifier: Apache-2.0 */
/* vfio_emu.c: a gpuref card on an emulated VFIO bus (gr_vfio_emu.h, README.md). The kernel's
 * side of each call follows drivers/vfio (vfio_main.c, vfio_iommu_type1.c, pci/vfio_pci_core.c)
 * as linux/vfio.h documents it: the checks and errno values are the ones a real container,
 * group and vfio-pci device give. */
#define _GNU_SOURCE
#include "gr_vfio_emu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "gpuref/gr_regmap.h"
#include "gr_pcie_card.h"
#include "gr_sim.h"

#define PAGE 4096ull
#define MAX_FD 4096
#define MAX_MAPS 512
#define REGION_SHIFT 40
#define CFG_BYTES 256u
#define PCI_COMMAND 0x04
#define CMD_MEMORY 0x0002u
#define CMD_MASTER 0x0004u
#define CMD_INTX_DISABLE 0x0400u
#define CHUNK_CYCLES 64u
#define UNMAP_CYCLES 1000u /* 10 us at gpu_core's 100 MHz */
#define NO_IRQ (~0u)

enum role { R_NONE, R_CONTAINER, R_GROUP, R_DEVICE };

typedef struct map {
    uint64_t iova, size;
    uint8_t *host;
    bool alias; /* host is a mapping of our own (mremap of the caller's shared pages) */
} map_t;

/* ---- the real calls -------------------------------------------------------------------------- */
static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static int (*real_ioctl)(int, unsigned long, ...);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);

static void resolve(void)
{
    if (real_ioctl)
        return;
    real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    real_openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    real_pread = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
    real_pwrite = (ssize_t(*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
    real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
    real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
}

/* ---- state (all under mu) -------------------------------------------------------------------- */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int waiting; /* threads waiting for mu: the clock thread steps aside for them */

static bool active;                  /* $GR_VFIO_EMU was set */
static dev_t node_dev;               /* the placeholder nodes' device, and their inodes */
static ino_t container_ino, group_ino;
static uint8_t roles[MAX_FD];

static unsigned irq_offer = 1u << VFIO_PCI_MSI_IRQ_INDEX;
static bool reset_works = true;
static bool tlm_card; /* card=tlm: gpu_core alone at the transaction level, not pcie_core */
static bool bar_mmap; /* mmap: the BARs carry VFIO_REGION_INFO_FLAG_MMAP */
static unsigned long fail_req; /* fail=NAME: that ioctl fails with EIO (0: none) */

/* The ioctls fail= names. */
static const struct {
    const char *name;
    unsigned long req;
} ioctl_names[] = {
    {"VFIO_GET_API_VERSION", VFIO_GET_API_VERSION},
    {"VFIO_CHECK_EXTENSION", VFIO_CHECK_EXTENSION},
    {"VFIO_SET_IOMMU", VFIO_SET_IOMMU},
    {"VFIO_IOMMU_GET_INFO", VFIO_IOMMU_GET_INFO},
    {"VFIO_IOMMU_MAP_DMA", VFIO_IOMMU_MAP_DMA},
    {"VFIO_IOMMU_UNMAP_DMA", VFIO_IOMMU_UNMAP_DMA},
    {"VFIO_GROUP_GET_STATUS", VFIO_GROUP_GET_STATUS},
    {"VFIO_GROUP_SET_CONTAINER", VFIO_GROUP_SET_CONTAINER},
    {"VFIO_GROUP_GET_DEVICE_FD", VFIO_GROUP_GET_DEVICE_FD},
    {"VFIO_DEVICE_GET_INFO", VFIO_DEVICE_GET_INFO},
    {"VFIO_DEVICE_GET_REGION_INFO", VFIO_DEVICE_GET_REGION_INFO},
    {"VFIO_DEVICE_GET_IRQ_INFO", VFIO_DEVICE_GET_IRQ_INFO},
    {"VFIO_DEVICE_SET_IRQS", VFIO_DEVICE_SET_IRQS},
    {"VFIO_DEVICE_RESET", VFIO_DEVICE_RESET},
};

static bool group_open, group_in_container, iommu_set;
static int iommu_type;
static map_t maps[MAX_MAPS];
static unsigned nmaps;

static int device_fd = -1;
static gr_sim_t *sim;         /* card=tlm */
static gr_pcie_card_t *card;  /* card=shell (the default) */
static gr_pcie_card_counts_t card_done; /* the counts of the cards destroyed so far */
static uint8_t cfg[CFG_BYTES];
static unsigned irq_index = NO_IRQ;
static int trigger_fd = -1, req_fd = -1, err_fd = -1;
static bool intx_masked, level_prev;
static gr_vfio_emu_fault_t fault;
static gr_vfio_emu_stats_t st;

static pthread_t clock_thread;
static bool clock_started, quitting;

static void lock(void)
{
    __atomic_add_fetch(&waiting, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&mu);
    __atomic_sub_fetch(&waiting, 1, __ATOMIC_SEQ_CST);
}

static void unlock(void)
{
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static uint16_t cmd(void)
{
    return (uint16_t)(cfg[PCI_COMMAND] | cfg[PCI_COMMAND + 1] << 8);
}

/* ---- the IOMMU: m_host of gpu_core --------------------------------------------------------- */
static const map_t *find_map(uint64_t iova, uint64_t len)
{
    for (unsigned i = 0; i < nmaps; i++)
        if (iova >= maps[i].iova && len <= maps[i].size && iova - maps[i].iova <= maps[i].size - len)
            return &maps[i];
    return NULL;
}

static bool port_contains(void *arg, uint64_t bus, uint64_t len)
{
    (void)arg;
    if (!(cmd() & CMD_MASTER)) {
        st.dma_blocked++;
        return false;
    }
    if (find_map(bus, len))
        return true;
    if (!st.iommu_faults++)
        st.first_fault_iova = bus;
    fprintf(stderr, "vfio_emu: IOMMU fault: the device named IOVA 0x%llx (+%llu), which no "
                    "mapping covers\n",
            (unsigned long long)bus, (unsigned long long)len);
    return false;
}

static void port_read(void *arg, uint64_t bus, void *dst, size_t len)
{
    (void)arg;
    const map_t *m = find_map(bus, len);
    memcpy(dst, m->host + (bus - m->iova), len);
}

static void port_write(void *arg, uint64_t bus, const void *src, size_t len)
{
    (void)arg;
    const map_t *m = find_map(bus, len);
    memcpy(m->host + (bus - m->iova), src, len);
}

/* ---- the card -------------------------------------------------------------------------------- */
/* Either pcie_core under Verilator behind our root complex (gr_pcie_card.h: BAR accesses as TLPs
 * on CQ/CC, the shell's requests on RQ/RC through the IOMMU, MSI and INTA from the shell's
 * interrupt interface), or, with card=tlm, gpu_core alone with the harness's bus models. */
static bool have_card(void)
{
    return card || sim;
}

static void drop_card(void)
{
    if (card) {
        gr_pcie_card_counts_t k;
        gr_pcie_card_counts(card, &k);
        card_done.cq_tlps += k.cq_tlps;
        card_done.rq_mwr += k.rq_mwr;
        card_done.rq_mrd += k.rq_mrd;
        card_done.ur_cpls += k.ur_cpls;
        card_done.cpl_timeouts += k.cpl_timeouts;
        card_done.msis += k.msis;
        card_done.cc_tlps += k.cc_tlps;
        card_done.rc_tlps += k.rc_tlps;
        card_done.bytes_down += k.bytes_down;
        card_done.bytes_up += k.bytes_up;
        gr_pcie_card_destroy(card);
        card = NULL;
    }
    gr_sim_destroy(sim);
    sim = NULL;
}

/* What the hard IP learns from config space: bus mastering, MSI (or MSI-X) on, INTx disabled. */
static void card_config(void)
{
    if (card)
        gr_pcie_card_config(card, cmd() & CMD_MASTER,
                            irq_index == VFIO_PCI_MSI_IRQ_INDEX || irq_index == VFIO_PCI_MSIX_IRQ_INDEX,
                            cmd() & CMD_INTX_DISABLE);
}

static void card_run(uint64_t cycles)
{
    if (card)
        gr_pcie_card_run(card, cycles);
    else
        gr_sim_run(sim, cycles);
}

static uint64_t card_cycle(void)
{
    return card ? gr_pcie_card_cycle(card) : sim ? gr_sim_cycle(sim) : 0;
}

static int make_sim(void)
{
    const char *seed_s = getenv("GR_TEST_SEED");
    uint64_t seed = seed_s ? strtoull(seed_s, NULL, 0) : 1;
    if (!seed)
        seed = 1;
    const gr_sim_host_port_t port = {port_contains, port_read, port_write, NULL};
    if (!tlm_card) {
        gr_pcie_card_t *c = NULL;
        if (gr_pcie_card_create(seed, &port, &c) != GR_OK) {
            fprintf(stderr, "vfio_emu: the card could not be built\n");
            return -1;
        }
        drop_card();
        card = c;
        level_prev = false;
        card_config();
        return 0;
    }
    gr_sim_config_t c;
    memset(&c, 0, sizeof c);
    c.seed = seed;
    gr_sim_t *s = NULL;
    if (gr_sim_create(&c, &s) != GR_OK) {
        fprintf(stderr, "vfio_emu: gr_sim_create: %s\n", gr_sim_error());
        return -1;
    }
    gr_sim_set_host_port(s, &port);
    drop_card();
    sim = s;
    level_prev = false;
    return 0;
}

static void signal_fd(int fd)
{
    if (fd < 0)
        return;
    const uint64_t one = 1;
    if (write(fd, &one, sizeof one) == (ssize_t)sizeof one)
        st.irqs++;
}

/* The interrupt to the eventfd. The shell's card: each MSI it sent (pcie_irq sends one on a rising
 * edge of irq_o and again after a BAR0 write while the line stays high) goes to the MSI or MSI-X
 * eventfd; INTx while its INTA is asserted and unmasked, masked by each delivery
 * (VFIO_IRQ_INFO_AUTOMASKED). card=tlm: the same rules applied to gpu_core's irq_o here. */
static void irq_update(bool after_write)
{
    if (!have_card() || fault != GR_VFIO_EMU_HEALTHY)
        return;
    const bool msi = irq_index == VFIO_PCI_MSI_IRQ_INDEX || irq_index == VFIO_PCI_MSIX_IRQ_INDEX;
    if (card) {
        for (unsigned n = gr_pcie_card_take_msis(card); n && msi; n--)
            signal_fd(trigger_fd);
    }
    const bool level = card ? gr_pcie_card_inta(card) : gr_sim_irq(sim);
    if (msi && !card) {
        if (level && (!level_prev || after_write) && (cmd() & CMD_MASTER))
            signal_fd(trigger_fd);
    } else if (irq_index == VFIO_PCI_INTX_IRQ_INDEX) {
        if (level && !intx_masked && !(cmd() & CMD_INTX_DISABLE) && trigger_fd >= 0) {
            intx_masked = true;
            signal_fd(trigger_fd);
        }
    }
    level_prev = level;
}

static void *clock_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!quitting) {
        if (device_fd < 0 || !have_card() || fault == GR_VFIO_EMU_REMOVED ||
            __atomic_load_n(&waiting, __ATOMIC_SEQ_CST)) {
            pthread_cond_wait(&cv, &mu);
            continue;
        }
        card_run(CHUNK_CYCLES);
        irq_update(false);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void reset_function(void)
{
    st.resets++;
    make_sim();
}

static void disable_irqs(void)
{
    if (trigger_fd >= 0)
        real_close(trigger_fd);
    trigger_fd = -1;
    irq_index = NO_IRQ;
    intx_masked = false;
    card_config();
}

static void init_cfg(void)
{
    memset(cfg, 0, sizeof cfg);
    cfg[0] = 0xee; /* 0x10ee */
    cfg[1] = 0x10;
    cfg[2] = 0x70; /* 0x6770 */
    cfg[3] = 0x67;
    cfg[0x08] = 0x01;             /* revision */
    cfg[0x0b] = 0x03;             /* class: display controller */
    cfg[0x3d] = irq_offer & (1u << VFIO_PCI_INTX_IRQ_INDEX) ? 1 : 0; /* INTA or no pin */
}

/* ---- the fixture tree ------------------------------------------------------------------------ */
static void die(const char *what, const char *detail)
{
    fprintf(stderr, "vfio_emu: %s (%s)\n", what, detail);
    printf("Bail out! vfio_emu: %s (%s)\n", what, detail);
    fflush(stdout);
    exit(2);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "we");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        die("cannot write the fixture tree", path);
}

static void mkdir_p(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    mkdir(path, 0755);
}

static void build_tree(const char *dir)
{
    char p[PATH_MAX / 2], q[PATH_MAX];
    if (strlen(dir) > PATH_MAX / 4)
        die("the directory's name is too long", dir);
    snprintf(p, sizeof p, "%s/sys/bus/pci/devices/%s", dir, GR_VFIO_EMU_BDF);
    mkdir_p(p);
    snprintf(q, sizeof q, "%s/vendor", p);
    put_file(q, "0x10ee\n");
    snprintf(q, sizeof q, "%s/device", p);
    put_file(q, "0x6770\n");
    snprintf(q, sizeof q, "%s/driver", p);
    unlink(q);
    if (symlink("../../../../bus/pci/drivers/vfio-pci", q) != 0)
        die("cannot write the fixture tree", q);
    snprintf(q, sizeof q, "%s/iommu_group", p);
    unlink(q);
    char target[64];
    snprintf(target, sizeof target, "../../../../kernel/iommu_groups/%u", GR_VFIO_EMU_GROUP);
    if (symlink(target, q) != 0)
        die("cannot write the fixture tree", q);
    snprintf(p, sizeof p, "%s/dev/vfio", dir);
    mkdir_p(p);
    struct stat s;
    snprintf(q, sizeof q, "%s/vfio", p);
    put_file(q, "");
    if (stat(q, &s) != 0)
        die("cannot stat", q);
    node_dev = s.st_dev;
    container_ino = s.st_ino;
    snprintf(q, sizeof q, "%s/%u", p, GR_VFIO_EMU_GROUP);
    put_file(q, "");
    if (stat(q, &s) != 0)
        die("cannot stat", q);
    group_ino = s.st_ino;
}

/* The options; the card's kind stays what it was unless card= names it. */
static int parse_opts(const char *opts, unsigned *out_irqs, bool *out_reset, bool *out_tlm, bool *out_mmap,
                      unsigned long *out_fail)
{
    unsigned irqs = 1u << VFIO_PCI_MSI_IRQ_INDEX;
    bool reset = true, tlm = *out_tlm, mm = false;
    unsigned long fail_at = 0;
    char buf[256];
    if (strlen(opts) >= sizeof buf)
        return -1;
    strcpy(buf, opts);
    for (char *save = NULL, *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
        if (strcmp(o, "noreset") == 0) {
            reset = false;
        } else if (strcmp(o, "card=shell") == 0 || strcmp(o, "card=tlm") == 0) {
            tlm = o[5] == 't';
        } else if (strncmp(o, "fail=", 5) == 0) {
            for (size_t i = 0; i < sizeof ioctl_names / sizeof ioctl_names[0] && !fail_at; i++)
                if (strcmp(o + 5, ioctl_names[i].name) == 0)
                    fail_at = ioctl_names[i].req;
            if (!fail_at)
                return -1;
        } else if (strcmp(o, "mmap") == 0) {
#if defined(__x86_64__)
            mm = true;
#else
            return -1; /* the accesses to a mapping are decoded as x86-64 instructions */
#endif
        } else if (strncmp(o, "irqs=", 5) == 0) {
            irqs = 0;
            char *s2 = NULL;
            for (char *k = strtok_r(o + 5, "+", &s2); k; k = strtok_r(NULL, "+", &s2)) {
                if (strcmp(k, "msi") == 0)
                    irqs |= 1u << VFIO_PCI_MSI_IRQ_INDEX;
                else if (strcmp(k, "msix") == 0)
                    irqs |= 1u << VFIO_PCI_MSIX_IRQ_INDEX;
                else if (strcmp(k, "intx") == 0)
                    irqs |= 1u << VFIO_PCI_INTX_IRQ_INDEX;
                else if (strcmp(k, "none") != 0)
                    return -1;
            }
        } else {
            return -1;
        }
    }
    *out_irqs = irqs;
    *out_reset = reset;
    *out_tlm = tlm;
    *out_mmap = mm;
    *out_fail = fail_at;
    return 0;
}

__attribute__((constructor)) static void vfio_emu_start(void)
{
    resolve();
    const char *dir = getenv("GR_VFIO_EMU");
    if (!dir || !*dir)
        return;
    const char *opts = getenv("GR_VFIO_EMU_OPTS");
    if (opts && parse_opts(opts, &irq_offer, &reset_works, &tlm_card, &bar_mmap, &fail_req) != 0)
        die("GR_VFIO_EMU_OPTS: expected irqs=msi+msix+intx (any of them, or none), noreset, "
            "card=shell or card=tlm, mmap (x86-64 only) and fail=VFIO_IOCTL_NAME, comma-separated",
            opts);
    build_tree(dir);
    init_cfg();
    active = true;
}

__attribute__((destructor)) static void vfio_emu_stop(void)
{
    if (!active)
        return;
    pthread_mutex_lock(&mu);
    quitting = true;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (clock_started)
        pthread_join(clock_thread, NULL);
    drop_card();
}

/* ---- the public API ------------------------------------------------------------------------- */
int gr_vfio_emu_configure(const char *opts)
{
    unsigned irqs;
    bool reset, tlm = tlm_card, mm;
    unsigned long fail_at;
    lock();
    int rc = device_fd >= 0 || !opts || parse_opts(opts, &irqs, &reset, &tlm, &mm, &fail_at) != 0 ? -1 : 0;
    if (!rc) {
        irq_offer = irqs;
        reset_works = reset;
        bar_mmap = mm;
        fail_req = fail_at;
        if (tlm != tlm_card) /* the other card from the next open */
            drop_card();
        tlm_card = tlm;
        init_cfg();
    }
    unlock();
    return rc;
}

void gr_vfio_emu_fault(gr_vfio_emu_fault_t f)
{
    lock();
    fault = f;
    if (card)
        gr_pcie_card_mute(card, f == GR_VFIO_EMU_CPL_TIMEOUT);
    if (f == GR_VFIO_EMU_REMOVED)
        signal_fd(req_fd); /* the kernel asks the user to release the device */
    unlock();
}

int gr_vfio_emu_reset(void)
{
    lock();
    int rc = device_fd >= 0 && have_card() ? 0 : -1;
    if (!rc) {
        reset_function();
        /* nobody restored the config space: memory decoding and bus mastering are off */
        cfg[PCI_COMMAND] &= (uint8_t)~(CMD_MEMORY | CMD_MASTER);
    }
    unlock();
    return rc;
}

void gr_vfio_emu_stats(gr_vfio_emu_stats_t *out)
{
    lock();
    st.mappings = nmaps;
    st.cycles = card_cycle();
    st.shell = card != NULL || (!sim && !tlm_card);
    if (card) {
        gr_pcie_card_counts_t k;
        gr_pcie_card_counts(card, &k);
        st.cq_tlps = card_done.cq_tlps + k.cq_tlps;
        st.rq_tlps = card_done.rq_mwr + card_done.rq_mrd + k.rq_mwr + k.rq_mrd;
        st.ur_cpls = card_done.ur_cpls + k.ur_cpls;
        st.cpl_timeouts = card_done.cpl_timeouts + k.cpl_timeouts;
        st.msis = card_done.msis + k.msis;
        st.cc_tlps = card_done.cc_tlps + k.cc_tlps;
        st.rc_tlps = card_done.rc_tlps + k.rc_tlps;
        st.bytes_down = card_done.bytes_down + k.bytes_down;
        st.bytes_up = card_done.bytes_up + k.bytes_up;
    }
    st.open = device_fd >= 0;
    st.irq_index = irq_index;
    *out = st;
    unlock();
}

/* ---- the ioctls ------------------------------------------------------------------------------ */
static enum role role_of(int fd)
{
    return fd >= 0 && fd < MAX_FD ? (enum role)roles[fd] : R_NONE;
}

static int fail(int e)
{
    errno = e;
    return -1;
}

static int container_ioctl(unsigned long req, void *arg)
{
    switch (req) {
    case VFIO_GET_API_VERSION:
        return VFIO_API_VERSION;
    case VFIO_CHECK_EXTENSION: {
        const unsigned long ext = (unsigned long)(uintptr_t)arg & 0xffffffffu;
        return ext == VFIO_TYPE1_IOMMU || ext == VFIO_TYPE1v2_IOMMU ? 1 : 0;
    }
    case VFIO_SET_IOMMU: {
        const unsigned long type = (unsigned long)(uintptr_t)arg & 0xffffffffu;
        if (!group_in_container)
            return fail(EINVAL); /* no group to set an IOMMU for */
        if (iommu_set)
            return fail(EBUSY);
        if (type != VFIO_TYPE1_IOMMU && type != VFIO_TYPE1v2_IOMMU)
            return fail(ENODEV);
        iommu_set = true;
        iommu_type = (int)type;
        return 0;
    }
    default:
        break;
    }
    if (!iommu_set)
        return fail(EINVAL);
    switch (req) {
    case VFIO_IOMMU_GET_INFO: {
        struct vfio_iommu_type1_info *info = arg;
        const size_t minsz = offsetof(struct vfio_iommu_type1_info, iova_pgsizes) + sizeof info->iova_pgsizes;
        if (info->argsz < minsz)
            return fail(EINVAL);
        /* The capability chain: the valid IOVA ranges (an x86 IOMMU's, the MSI window left out)
         * and the number of mappings left. */
        struct {
            struct vfio_iommu_type1_info_cap_iova_range r;
            struct vfio_iova_range ranges[2];
            struct vfio_iommu_type1_info_dma_avail a;
        } caps;
        memset(&caps, 0, sizeof caps);
        const uint32_t base = (uint32_t)sizeof(struct vfio_iommu_type1_info);
        caps.r.header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
        caps.r.header.version = 1;
        caps.r.header.next = base + (uint32_t)offsetof(__typeof__(caps), a);
        caps.r.nr_iovas = 2;
        caps.ranges[0].start = 0;
        caps.ranges[0].end = 0xfedfffffull;
        caps.ranges[1].start = 0xfef00000ull;
        caps.ranges[1].end = (1ull << 48) - 1;
        caps.a.header.id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL;
        caps.a.header.version = 1;
        caps.a.avail = MAX_MAPS - nmaps;
        const uint32_t need = base + (uint32_t)sizeof caps;
        info->flags = VFIO_IOMMU_INFO_PGSIZES | VFIO_IOMMU_INFO_CAPS;
        info->iova_pgsizes = PAGE | (2ull << 20) | (1ull << 30);
        if (info->argsz < need) {
            info->argsz = need;
            if (info->argsz >= base)
                info->cap_offset = 0;
        } else {
            info->cap_offset = base;
            memcpy((uint8_t *)info + base, &caps, sizeof caps);
        }
        return 0;
    }
    case VFIO_IOMMU_MAP_DMA: {
        struct vfio_iommu_type1_dma_map *m = arg;
        const size_t minsz = offsetof(struct vfio_iommu_type1_dma_map, size) + sizeof m->size;
        if (m->argsz < minsz || (m->flags & ~(uint32_t)(VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)))
            return fail(EINVAL);
        if (!(m->flags & (VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)))
            return fail(EINVAL);
        if (!m->size || (m->size | m->iova | m->vaddr) & (PAGE - 1) || m->iova + m->size - 1 < m->iova ||
            m->vaddr + m->size - 1 < m->vaddr)
            return fail(EINVAL);
        for (unsigned i = 0; i < nmaps; i++)
            if (m->iova < maps[i].iova + maps[i].size && maps[i].iova < m->iova + m->size)
                return fail(EEXIST);
        if (nmaps == MAX_MAPS)
            return fail(ENOSPC);
        void *va = (void *)(uintptr_t)m->vaddr;
        /* The kernel pins the pages: memory that is not there is EFAULT. */
        if (madvise(va, m->size, MADV_NORMAL) != 0)
            return fail(EFAULT);
        /* Pinned pages outlive the caller's mapping: a second mapping of shared pages does so
         * here; private pages are reached where they are. */
        void *alias = mremap(va, 0, m->size, MREMAP_MAYMOVE);
        maps[nmaps].iova = m->iova;
        maps[nmaps].size = m->size;
        maps[nmaps].alias = alias != MAP_FAILED;
        maps[nmaps].host = alias != MAP_FAILED ? alias : va;
        nmaps++;
        return 0;
    }
    case VFIO_IOMMU_UNMAP_DMA: {
        struct vfio_iommu_type1_dma_unmap *u = arg;
        const size_t minsz = offsetof(struct vfio_iommu_type1_dma_unmap, size) + sizeof u->size;
        if (u->argsz < minsz || u->flags || (u->iova | u->size) & (PAGE - 1) || !u->size)
            return fail(EINVAL);
        const uint64_t lo = u->iova, hi = u->iova + u->size;
        /* type 1 v2: a range that cuts a mapping in two is refused */
        for (unsigned i = 0; i < nmaps; i++) {
            const uint64_t a = maps[i].iova, b = maps[i].iova + maps[i].size;
            if (a < hi && lo < b && (a < lo || b > hi) && iommu_type == VFIO_TYPE1v2_IOMMU)
                return fail(EINVAL);
        }
        uint64_t done = 0;
        for (unsigned i = 0; i < nmaps;) {
            if (maps[i].iova >= lo && maps[i].iova + maps[i].size <= hi) {
                if (maps[i].alias)
                    munmap(maps[i].host, maps[i].size);
                done += maps[i].size;
                maps[i] = maps[--nmaps];
            } else {
                i++;
            }
        }
        u->size = done;
        /* The device runs on while the kernel unmaps (an IOTLB invalidation takes microseconds). */
        if (done && have_card() && device_fd >= 0 && fault != GR_VFIO_EMU_REMOVED) {
            card_run(UNMAP_CYCLES);
            irq_update(false);
        }
        return 0;
    }
    default:
        return fail(ENOTTY);
    }
}

static int open_device(const char *name);

static int group_ioctl(unsigned long req, void *arg)
{
    switch (req) {
    case VFIO_GROUP_GET_STATUS: {
        struct vfio_group_status *s = arg;
        if (s->argsz < sizeof *s)
            return fail(EINVAL);
        s->flags = VFIO_GROUP_FLAGS_VIABLE | (group_in_container ? VFIO_GROUP_FLAGS_CONTAINER_SET : 0);
        return 0;
    }
    case VFIO_GROUP_SET_CONTAINER: {
        const int fd = *(const int *)arg;
        if (role_of(fd) != R_CONTAINER)
            return fail(EINVAL);
        if (group_in_container)
            return fail(EINVAL);
        group_in_container = true;
        return 0;
    }
    case VFIO_GROUP_UNSET_CONTAINER:
        if (!group_in_container)
            return fail(EINVAL);
        if (device_fd >= 0)
            return fail(EBUSY);
        group_in_container = false;
        iommu_set = false;
        return 0;
    case VFIO_GROUP_GET_DEVICE_FD:
        if (!group_in_container || !iommu_set)
            return fail(EINVAL);
        return open_device((const char *)arg);
    default:
        return fail(ENOTTY);
    }
}

static int open_device(const char *name)
{
    if (strcmp(name, GR_VFIO_EMU_BDF) != 0)
        return fail(ENODEV);
    if (device_fd >= 0)
        return fail(EBUSY);
    if (!have_card() && make_sim() != 0)
        return fail(EIO);
    const int fd = real_open("/dev/null", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fd >= MAX_FD) {
        real_close(fd);
        return fail(EMFILE);
    }
    roles[fd] = R_DEVICE;
    device_fd = fd;
    if (!clock_started && pthread_create(&clock_thread, NULL, clock_main, NULL) == 0)
        clock_started = true;
    return fd;
}

static uint32_t irq_count(unsigned index)
{
    switch (index) {
    case VFIO_PCI_INTX_IRQ_INDEX:
    case VFIO_PCI_MSI_IRQ_INDEX:
    case VFIO_PCI_MSIX_IRQ_INDEX:
        return irq_offer & (1u << index) ? 1 : 0;
    case VFIO_PCI_ERR_IRQ_INDEX:
    case VFIO_PCI_REQ_IRQ_INDEX:
        return 1;
    default:
        return 0;
    }
}

static int set_irqs(struct vfio_irq_set *s)
{
    const size_t minsz = offsetof(struct vfio_irq_set, count) + sizeof s->count;
    if (s->argsz < minsz || s->index >= VFIO_PCI_NUM_IRQS)
        return fail(EINVAL);
    const uint32_t data = s->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
    const uint32_t action = s->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK;
    if ((s->flags & ~(VFIO_IRQ_SET_DATA_TYPE_MASK | VFIO_IRQ_SET_ACTION_TYPE_MASK)) ||
        __builtin_popcount(data) != 1 || __builtin_popcount(action) != 1)
        return fail(EINVAL);
    const uint32_t max = irq_count(s->index);
    if (!max || s->start >= max + (s->count == 0) || s->count > max - (s->start < max ? s->start : max))
        return fail(EINVAL);
    if (!s->count && data != VFIO_IRQ_SET_DATA_NONE)
        return fail(EINVAL);
    const size_t dsize = data == VFIO_IRQ_SET_DATA_BOOL ? s->count : data == VFIO_IRQ_SET_DATA_EVENTFD ? 4u * s->count : 0;
    if (s->argsz < minsz + dsize)
        return fail(EINVAL);
    const bool intx = s->index == VFIO_PCI_INTX_IRQ_INDEX;
    const bool msi = s->index == VFIO_PCI_MSI_IRQ_INDEX || s->index == VFIO_PCI_MSIX_IRQ_INDEX;
    if (action == VFIO_IRQ_SET_ACTION_MASK || action == VFIO_IRQ_SET_ACTION_UNMASK) {
        if (!intx || data == VFIO_IRQ_SET_DATA_EVENTFD)
            return fail(EINVAL); /* only INTx masks (an unmask eventfd is not emulated) */
        if (irq_index != VFIO_PCI_INTX_IRQ_INDEX)
            return 0;
        const bool yes = data == VFIO_IRQ_SET_DATA_NONE || s->data[0];
        if (yes)
            intx_masked = action == VFIO_IRQ_SET_ACTION_MASK;
        if (!intx_masked)
            irq_update(false);
        return 0;
    }
    /* TRIGGER */
    if (data == VFIO_IRQ_SET_DATA_NONE && !s->count) {
        if (irq_index == s->index)
            disable_irqs();
        return 0;
    }
    if (data == VFIO_IRQ_SET_DATA_EVENTFD) {
        int32_t fd;
        memcpy(&fd, s->data, sizeof fd);
        if (s->index == VFIO_PCI_REQ_IRQ_INDEX || s->index == VFIO_PCI_ERR_IRQ_INDEX) {
            int *slot = s->index == VFIO_PCI_REQ_IRQ_INDEX ? &req_fd : &err_fd;
            if (*slot >= 0)
                real_close(*slot);
            *slot = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
            return fd >= 0 && *slot < 0 ? fail(EINVAL) : 0;
        }
        if ((intx || msi) && irq_index != NO_IRQ && irq_index != s->index)
            return fail(EINVAL); /* one of INTx, MSI, MSI-X at a time */
        if (fd < 0) {
            if (irq_index == s->index)
                disable_irqs();
            return 0;
        }
        const int dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (dup < 0)
            return fail(EINVAL);
        if (trigger_fd >= 0)
            real_close(trigger_fd);
        trigger_fd = dup;
        irq_index = s->index;
        intx_masked = false;
        level_prev = false;
        card_config();
        irq_update(false);
        return 0;
    }
    /* a loopback trigger (DATA_NONE or BOOL true): the interrupt fires as if the device sent it */
    if (s->index == irq_index && (data == VFIO_IRQ_SET_DATA_NONE || s->data[0]))
        signal_fd(trigger_fd);
    return 0;
}

static int device_ioctl(unsigned long req, void *arg)
{
    if (fault == GR_VFIO_EMU_REMOVED)
        return fail(ENODEV);
    switch (req) {
    case VFIO_DEVICE_GET_INFO: {
        struct vfio_device_info *i = arg;
        const size_t minsz = offsetof(struct vfio_device_info, num_irqs) + sizeof i->num_irqs;
        if (i->argsz < minsz)
            return fail(EINVAL);
        i->flags = VFIO_DEVICE_FLAGS_PCI | (reset_works ? VFIO_DEVICE_FLAGS_RESET : 0);
        i->num_regions = VFIO_PCI_NUM_REGIONS;
        i->num_irqs = VFIO_PCI_NUM_IRQS;
        return 0;
    }
    case VFIO_DEVICE_GET_REGION_INFO: {
        struct vfio_region_info *r = arg;
        const size_t minsz = offsetof(struct vfio_region_info, offset) + sizeof r->offset;
        if (r->argsz < minsz || r->index >= VFIO_PCI_NUM_REGIONS)
            return fail(EINVAL);
        r->offset = (uint64_t)r->index << REGION_SHIFT;
        r->flags = 0;
        r->size = 0;
        if (r->index == VFIO_PCI_BAR0_REGION_INDEX)
            r->size = GR_REGMAP_BAR0_BYTES;
        else if (r->index == VFIO_PCI_BAR1_REGION_INDEX)
            r->size = GR_VFIO_EMU_BAR1_BYTES;
        else if (r->index == VFIO_PCI_CONFIG_REGION_INDEX)
            r->size = CFG_BYTES;
        if (r->size)
            r->flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
        if (bar_mmap && r->index != VFIO_PCI_CONFIG_REGION_INDEX && r->size)
            r->flags |= VFIO_REGION_INFO_FLAG_MMAP;
        return 0;
    }
    case VFIO_DEVICE_GET_IRQ_INFO: {
        struct vfio_irq_info *i = arg;
        const size_t minsz = offsetof(struct vfio_irq_info, count) + sizeof i->count;
        if (i->argsz < minsz || i->index >= VFIO_PCI_NUM_IRQS)
            return fail(EINVAL);
        i->count = irq_count(i->index);
        i->flags = VFIO_IRQ_INFO_EVENTFD;
        if (i->index == VFIO_PCI_INTX_IRQ_INDEX)
            i->flags |= VFIO_IRQ_INFO_MASKABLE | VFIO_IRQ_INFO_AUTOMASKED;
        else
            i->flags |= VFIO_IRQ_INFO_NORESIZE;
        return 0;
    }
    case VFIO_DEVICE_SET_IRQS:
        return set_irqs(arg);
    case VFIO_DEVICE_RESET:
        if (!reset_works)
            return fail(EINVAL);
        reset_function();
        return 0;
    default:
        return fail(ENOTTY);
    }
}

/* ---- region access --------------------------------------------------------------------------- */
static ssize_t device_rw(bool write, void *buf, size_t n, off_t off)
{
    if (fault == GR_VFIO_EMU_REMOVED)
        return fail(ENODEV);
    const uint64_t index = (uint64_t)off >> REGION_SHIFT;
    const uint64_t at = (uint64_t)off & ((1ull << REGION_SHIFT) - 1);
    const bool all_ones = fault == GR_VFIO_EMU_REMOVED_ALL_ONES || fault == GR_VFIO_EMU_CPL_TIMEOUT;
    if (index == VFIO_PCI_CONFIG_REGION_INDEX) {
        if (at > CFG_BYTES || n > CFG_BYTES - at)
            return fail(EINVAL);
        if (fault == GR_VFIO_EMU_REMOVED_ALL_ONES) {
            if (!write)
                memset(buf, 0xff, n);
            return (ssize_t)n;
        }
        if (!write) {
            memcpy(buf, cfg + at, n);
            return (ssize_t)n;
        }
        /* Only the command register's memory, bus master and INTx disable bits are writable. */
        for (size_t i = 0; i < n; i++) {
            const uint64_t a = at + i;
            const uint8_t v = ((const uint8_t *)buf)[i];
            if (a == PCI_COMMAND)
                cfg[a] = (uint8_t)((cfg[a] & ~0x06u) | (v & 0x06u));
            else if (a == PCI_COMMAND + 1)
                cfg[a] = (uint8_t)((cfg[a] & ~0x04u) | (v & 0x04u));
        }
        card_config();
        if (irq_index == VFIO_PCI_INTX_IRQ_INDEX)
            irq_update(false);
        return (ssize_t)n;
    }
    uint64_t size = index == VFIO_PCI_BAR0_REGION_INDEX   ? GR_REGMAP_BAR0_BYTES
                    : index == VFIO_PCI_BAR1_REGION_INDEX ? GR_VFIO_EMU_BAR1_BYTES
                                                          : 0;
    if (!size || at > size || n > size - at || !n)
        return fail(EINVAL);
    if (!(cmd() & CMD_MEMORY))
        return fail(EIO); /* vfio-pci refuses BAR access with memory decoding off */
    write ? st.bar_writes++ : st.bar_reads++;
    if (fault == GR_VFIO_EMU_CPL_TIMEOUT && card && !write) {
        /* the request reaches the card, its completion never comes: the root complex's
         * completion timeout answers all ones */
    } else if (all_ones) {
        if (fault == GR_VFIO_EMU_CPL_TIMEOUT)
            usleep(50); /* the completion timeout, at its shortest (50 us) */
        if (!write)
            memset(buf, 0xff, n);
        return (ssize_t)n;
    }
    if (index == VFIO_PCI_BAR0_REGION_INDEX) {
        if ((at | n) & 3u)
            return fail(EINVAL);
        for (size_t i = 0; i < n; i += 4) {
            uint32_t v;
            if (write) {
                memcpy(&v, (const uint8_t *)buf + i, 4);
                /* posted: no answer comes back */
                if (card)
                    gr_pcie_card_bar0_write(card, (uint32_t)(at + i), v);
                else
                    gr_sim_mmio_write(sim, (uint32_t)(at + i), v);
            } else {
                /* UR, CA or no completion: the root complex's all ones */
                if ((card ? gr_pcie_card_bar0_read(card, (uint32_t)(at + i), &v)
                          : gr_sim_mmio_read(sim, (uint32_t)(at + i), &v)) != GR_OK)
                    v = 0xffffffffu;
                memcpy((uint8_t *)buf + i, &v, 4);
            }
        }
        irq_update(write);
        return (ssize_t)n;
    }
    int rc;
    if (card) {
        rc = GR_OK;
        if (write)
            gr_pcie_card_bar1_write(card, at, buf, n);
        else
            rc = gr_pcie_card_bar1_read(card, at, buf, n); /* all ones where it failed */
    } else {
        rc = write ? gr_sim_ap_write(sim, at, buf, n) : gr_sim_ap_read(sim, at, buf, n);
        if (rc != GR_OK && !write)
            memset(buf, 0xff, n);
    }
    irq_update(false);
    return (ssize_t)n;
}

/* ---- the interposed calls ------------------------------------------------------------------- */
static int track_open(int fd)
{
    if (fd < 0 || !active)
        return fd;
    struct stat s;
    if (fstat(fd, &s) != 0 || s.st_dev != node_dev ||
        (s.st_ino != container_ino && s.st_ino != group_ino) || fd >= MAX_FD)
        return fd;
    lock();
    if (s.st_ino == group_ino) {
        if (group_open) { /* one open of a group at a time */
            unlock();
            real_close(fd);
            return fail(EBUSY);
        }
        group_open = true;
        roles[fd] = R_GROUP;
    } else {
        roles[fd] = R_CONTAINER;
    }
    unlock();
    return fd;
}

int open(const char *path, int flags, ...)
{
    resolve();
    mode_t mode = 0;
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    return track_open(real_open(path, flags, mode));
}
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
    resolve();
    mode_t mode = 0;
    if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    return track_open(real_openat(dirfd, path, flags, mode));
}
int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int close(int fd)
{
    resolve();
    const enum role r = role_of(fd);
    if (r != R_NONE) {
        lock();
        roles[fd] = R_NONE;
        if (r == R_DEVICE) {
            /* vfio-pci on release: interrupts off, bus mastering off, the function reset */
            disable_irqs();
            cfg[PCI_COMMAND] &= (uint8_t)~(CMD_MEMORY | CMD_MASTER);
            device_fd = -1;
            if (reset_works && fault != GR_VFIO_EMU_REMOVED)
                reset_function();
        } else if (r == R_GROUP) {
            group_open = false;
            group_in_container = false;
            iommu_set = false;
        }
        if (r == R_GROUP || r == R_CONTAINER) {
            /* The last group leaving the container takes the IOMMU and its mappings along. */
            if (!group_in_container) {
                for (unsigned i = 0; i < nmaps; i++)
                    if (maps[i].alias)
                        munmap(maps[i].host, maps[i].size);
                nmaps = 0;
            }
        }
        unlock();
    }
    return real_close(fd);
}

int ioctl(int fd, unsigned long req, ...)
{
    resolve();
    va_list ap;
    va_start(ap, req);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    const enum role r = role_of(fd);
    if (r == R_NONE)
        return real_ioctl(fd, req, arg);
    lock();
    int rc = fail_req && req == fail_req ? fail(EIO)
             : r == R_CONTAINER          ? container_ioctl(req, arg)
             : r == R_GROUP              ? group_ioctl(req, arg)
                                         : device_ioctl(req, arg);
    const int e = errno;
    unlock();
    errno = e;
    return rc;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    resolve();
    if (role_of(fd) != R_DEVICE)
        return real_pread(fd, buf, n, off);
    lock();
    ssize_t rc = device_rw(false, buf, n, off);
    const int e = errno;
    unlock();
    errno = e;
    return rc;
}
ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    resolve();
    if (role_of(fd) != R_DEVICE)
        return real_pwrite(fd, buf, n, off);
    lock();
    ssize_t rc = device_rw(true, (void *)buf, n, off);
    const int e = errno;
    unlock();
    errno = e;
    return rc;
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) __attribute__((alias("pwrite")));

/* ---- BARs through mmap (option mmap) ---------------------------------------------------------
 * A mapping of a BAR is an anonymous PROT_NONE reservation: every load and store to it faults,
 * and the SIGSEGV handler below decodes the instruction (the MOV and MOVZX forms with a memory
 * operand), performs the access on the card through device_rw as a pread or pwrite of its width
 * would, puts a load's value in its register and steps over the instruction, as a hypervisor
 * emulates MMIO. Any other instruction touching a BAR ends the process with a message. Faults
 * elsewhere go to the handler that was there before. */
#define MAX_BAR_MAPS 8
typedef struct bar_map {
    uintptr_t base;
    size_t len;
    uint64_t off; /* the device fd offset the mapping starts at */
} bar_map_t;
static pthread_mutex_t bar_mu = PTHREAD_MUTEX_INITIALIZER; /* never held around a BAR access */
static bar_map_t bar_maps[MAX_BAR_MAPS];
static unsigned nbar_maps;
static struct sigaction prev_segv;
static bool segv_installed;

static bool bar_lookup(uintptr_t a, uint64_t *out_off)
{
    bool found = false;
    pthread_mutex_lock(&bar_mu);
    for (unsigned i = 0; i < nbar_maps && !found; i++)
        if (a >= bar_maps[i].base && a - bar_maps[i].base < bar_maps[i].len) {
            *out_off = bar_maps[i].off + (a - bar_maps[i].base);
            found = true;
        }
    pthread_mutex_unlock(&bar_mu);
    return found;
}

#if defined(__x86_64__)
static const int gpr[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                            REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

/* A byte register without REX: 4..7 are AH, CH, DH, BH. */
static uint64_t reg_get(const greg_t *g, unsigned r, unsigned size, bool rex)
{
    if (size == 1 && !rex && r >= 4 && r < 8)
        return ((uint64_t)g[gpr[r - 4]] >> 8) & 0xff;
    return (uint64_t)g[gpr[r]];
}

static void reg_put(greg_t *g, unsigned r, unsigned size, bool rex, uint64_t v, bool zero_extend)
{
    if (size == 1 && !rex && r >= 4 && r < 8) {
        uint64_t x = (uint64_t)g[gpr[r - 4]];
        g[gpr[r - 4]] = (greg_t)((x & ~0xff00ull) | (v & 0xff) << 8);
        return;
    }
    uint64_t x = (uint64_t)g[gpr[r]];
    if (size >= 4 || zero_extend) /* a 32-bit destination clears the upper half */
        g[gpr[r]] = (greg_t)(size == 8 ? v : v & 0xffffffffull);
    else
        g[gpr[r]] = (greg_t)((x & ~((1ull << (8 * size)) - 1)) | (v & ((1ull << (8 * size)) - 1)));
}

static void bar_fault_handler(int sig, siginfo_t *si, void *uctx)
{
    uint64_t off;
    if (!bar_lookup((uintptr_t)si->si_addr, &off)) {
        if (prev_segv.sa_flags & SA_SIGINFO) {
            prev_segv.sa_sigaction(sig, si, uctx);
        } else if (prev_segv.sa_handler == SIG_DFL || prev_segv.sa_handler == SIG_IGN) {
            sigaction(SIGSEGV, &prev_segv, NULL); /* the instruction faults again, as before */
        } else {
            prev_segv.sa_handler(sig);
        }
        return;
    }
    ucontext_t *uc = uctx;
    greg_t *g = uc->uc_mcontext.gregs;
    const uint8_t *ip = (const uint8_t *)g[REG_RIP];
    size_t i = 0;
    bool opsz = false;
    uint8_t rex = 0;
    while (ip[i] == 0x66 || ip[i] == 0x2e || ip[i] == 0x3e || ip[i] == 0x26 || ip[i] == 0x36 ||
           ip[i] == 0x64 || ip[i] == 0x65)
        opsz |= ip[i++] == 0x66;
    if ((ip[i] & 0xf0) == 0x40)
        rex = ip[i++];
    const unsigned wide = rex & 8 ? 8 : opsz ? 2 : 4;
    unsigned size = 0, imm_bytes = 0, dst_size = 0;
    bool store = false, zext = false;
    const uint8_t op = ip[i++];
    if (op == 0x0f && (ip[i] == 0xb6 || ip[i] == 0xb7)) { /* MOVZX r, r/m8 | r/m16 */
        size = ip[i++] == 0xb6 ? 1 : 2;
        zext = true;
        dst_size = wide;
    } else if (op == 0x8a || op == 0x88 || op == 0xc6) { /* MOV r8 <-> r/m8, MOV r/m8, imm8 */
        size = 1;
        store = op != 0x8a;
        imm_bytes = op == 0xc6;
    } else if (op == 0x8b || op == 0x89 || op == 0xc7) { /* MOV r <-> r/m, MOV r/m, imm */
        size = wide;
        store = op != 0x8b;
        imm_bytes = op == 0xc7 ? (wide == 2 ? 2 : 4) : 0;
    }
    const uint8_t modrm = size ? ip[i++] : 0;
    if (!size || modrm >> 6 == 3 || (imm_bytes && ((modrm >> 3) & 7))) {
        fprintf(stderr, "vfio_emu: an instruction the BAR mapping cannot emulate touched BAR "
                        "offset 0x%llx at %p (bytes %02x %02x %02x %02x): only MOV and MOVZX "
                        "reach a mapped BAR here\n",
                (unsigned long long)off, (const void *)ip, ip[0], ip[1], ip[2], ip[3]);
        abort();
    }
    const unsigned mod = modrm >> 6, rm = modrm & 7, reg = ((modrm >> 3) & 7) | (rex & 4 ? 8 : 0);
    if (mod != 3 && rm == 4 && mod == 0 && (ip[i] & 7) == 5)
        i += 4; /* SIB without a base: disp32 */
    if (mod != 3 && rm == 4)
        i++; /* the SIB byte */
    if (mod == 0 && rm == 5)
        i += 4; /* RIP-relative disp32 */
    else if (mod == 1)
        i += 1;
    else if (mod == 2)
        i += 4;
    uint64_t v = 0;
    if (store) {
        if (imm_bytes) {
            int64_t imm = imm_bytes == 1 ? (int8_t)ip[i] : imm_bytes == 2 ? (int16_t)(ip[i] | ip[i + 1] << 8)
                                                                          : (int32_t)((uint32_t)ip[i] | (uint32_t)ip[i + 1] << 8 |
                                                                                      (uint32_t)ip[i + 2] << 16 | (uint32_t)ip[i + 3] << 24);
            v = (uint64_t)imm;
            i += imm_bytes;
        } else {
            v = reg_get(g, reg, size, rex != 0);
        }
    }
    uint8_t buf[8];
    memcpy(buf, &v, sizeof buf);
    const int e = errno;
    lock();
    const ssize_t r = device_rw(store, buf, size, (off_t)off);
    unlock();
    errno = e;
    if (!store) {
        if (r != (ssize_t)size)
            memset(buf, 0xff, size); /* the root complex's all ones */
        memcpy(&v, buf, sizeof v);
        v &= size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
        if (zext)
            reg_put(g, reg, dst_size, rex != 0, v, true);
        else
            reg_put(g, reg, size, rex != 0, v, false);
    }
    g[REG_RIP] += (greg_t)i;
}
#endif

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    resolve();
    if (role_of(fd) == R_NONE)
        return real_mmap(addr, len, prot, flags, fd, off);
    lock();
    const uint64_t index = (uint64_t)off >> REGION_SHIFT, at = (uint64_t)off & ((1ull << REGION_SHIFT) - 1);
    const uint64_t size = index == VFIO_PCI_BAR0_REGION_INDEX   ? GR_REGMAP_BAR0_BYTES
                          : index == VFIO_PCI_BAR1_REGION_INDEX ? GR_VFIO_EMU_BAR1_BYTES
                                                                : 0;
    int e = 0;
    if (role_of(fd) != R_DEVICE || fault == GR_VFIO_EMU_REMOVED)
        e = role_of(fd) == R_DEVICE ? ENODEV : EINVAL;
    else if (!bar_mmap || !size || !(flags & MAP_SHARED) || (at & (PAGE - 1)) || !len || at > size ||
             len > size - at)
        e = EINVAL; /* vfio-pci maps only regions with VFIO_REGION_INFO_FLAG_MMAP, shared */
    unlock();
    if (e) {
        errno = e;
        return MAP_FAILED;
    }
#if defined(__x86_64__)
    void *m = real_mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | (flags & MAP_FIXED), -1, 0);
    if (m == MAP_FAILED)
        return m;
    pthread_mutex_lock(&bar_mu);
    if (nbar_maps == MAX_BAR_MAPS) {
        pthread_mutex_unlock(&bar_mu);
        real_munmap(m, len);
        errno = ENOMEM;
        return MAP_FAILED;
    }
    bar_maps[nbar_maps++] = (bar_map_t){(uintptr_t)m, len, (uint64_t)off};
    if (!segv_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = bar_fault_handler;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGSEGV, &sa, &prev_segv) == 0)
            segv_installed = true;
    }
    pthread_mutex_unlock(&bar_mu);
    (void)prot;
    return m;
#else
    errno = EINVAL;
    return MAP_FAILED;
#endif
}
void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) __attribute__((alias("mmap")));

int munmap(void *addr, size_t len)
{
    resolve();
    pthread_mutex_lock(&bar_mu);
    for (unsigned i = 0; i < nbar_maps;) {
        if (bar_maps[i].base >= (uintptr_t)addr && bar_maps[i].base - (uintptr_t)addr < len)
            bar_maps[i] = bar_maps[--nbar_maps];
        else
            i++;
    }
    pthread_mutex_unlock(&bar_mu);
    return real_munmap(addr, len);
}
