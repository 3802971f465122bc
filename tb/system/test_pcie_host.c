/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_pcie_host: pcie:// (bridge/host/gr_link_pcie.c) on fixture trees, without a board.
 *
 * Each case builds a sysfs and /dev tree in a temporary directory (devices/<bdf>/vendor, device,
 * driver and iommu_group links, resource and config files, uio nodes) and opens it with
 * ?root=DIR. Covered: every malformed address refused with the accepted form in the message; a
 * device that is not there, not gpuref's, bound to another driver (named, with the rebind
 * commands) or to none; no IOMMU group; the group's node missing or not permitted (as root, in
 * a child running as nobody, whom the mode stops); a container
 * node that is not VFIO's (the ioctls refuse a regular file, which is as far as the VFIO path
 * goes without a device). The uio_pci_generic fallback runs end to end on files: BAR0 and BAR1
 * are mapped from resource0/resource1 (regular files here), the command register is set in
 * config, /dev/uioN is a FIFO the test plays the kernel's side of, and DMA is refused.
 * Nothing random: no seed.
 */
#define _GNU_SOURCE /* mkdtemp, nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpuref/gr_regmap.h"
#include "gpuref/gr_status.h"
#include "gr_link.h"
#include "gr_link_pcie.h"

#define BDF "0000:01:00.0"
#define GROUP "7"
#define UIO "3"
#define BAR1_BYTES (1u << 20)

typedef struct fixture {
    char root[64];
    char dev[160]; /* ROOT/sys/bus/pci/devices/BDF */
} fixture_t;

static void assert_says(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("expected \"%s\" in \"%s\"", want, text);
}

static void put(const fixture_t *f, const char *rel, const void *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", f->root, rel);
    FILE *fp = fopen(path, "we");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
}

static void put_text(const fixture_t *f, const char *rel, const char *text)
{
    put(f, rel, text, strlen(text));
}

static void mkdirs(const fixture_t *f, const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", f->root, rel);
    for (char *p = path + strlen(f->root) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    }
    assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void symlink_in(const fixture_t *f, const char *target, const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", f->root, rel);
    assert_int_equal(symlink(target, path), 0);
}

static void set_driver(const fixture_t *f, const char *name)
{
    char target[128], dir[128];
    snprintf(dir, sizeof dir, "sys/bus/pci/drivers/%s", name);
    mkdirs(f, dir);
    snprintf(target, sizeof target, "../../../bus/pci/drivers/%s", name);
    symlink_in(f, target, "sys/bus/pci/devices/" BDF "/driver");
}

static void set_group(const fixture_t *f)
{
    mkdirs(f, "sys/kernel/iommu_groups/" GROUP);
    symlink_in(f, "../../../kernel/iommu_groups/" GROUP, "sys/bus/pci/devices/" BDF "/iommu_group");
}

/* A gpuref device (IDs, BARs with ID_MAGIC, config space) bound to no driver. */
static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->root, sizeof f->root, "/tmp/gr_pcie_XXXXXX");
    assert_non_null(mkdtemp(f->root));
    snprintf(f->dev, sizeof f->dev, "%s/sys/bus/pci/devices/" BDF, f->root);
    mkdirs(f, "sys/bus/pci/devices/" BDF);
    mkdirs(f, "dev/vfio");
    put_text(f, "sys/bus/pci/devices/" BDF "/vendor", "0x10ee\n");
    put_text(f, "sys/bus/pci/devices/" BDF "/device", "0x6770\n");
    static uint8_t bar0[GR_REGMAP_BAR0_BYTES];
    uint32_t magic = 0x47505552u; /* "GPUR", rtl/csr/REGISTERS.md */
    memcpy(bar0 + GR_REG_ID_MAGIC, &magic, 4);
    put(f, "sys/bus/pci/devices/" BDF "/resource0", bar0, sizeof bar0);
    char path[256];
    snprintf(path, sizeof path, "%s/resource1", f->dev);
    put(f, "sys/bus/pci/devices/" BDF "/resource1", "", 0);
    assert_int_equal(truncate(path, BAR1_BYTES), 0);
    uint8_t cfg[256] = {0xee, 0x10, 0x70, 0x67, 0x00, 0x00};
    put(f, "sys/bus/pci/devices/" BDF "/config", cfg, sizeof cfg);
    *state = f;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* Opens pcie://BDF?root=ROOT[&extra]; the link must not open when rc is an error. */
static int open_fx(const fixture_t *f, const char *extra, gr_link_t **out)
{
    char uri[256];
    snprintf(uri, sizeof uri, "pcie://" BDF "?root=%s%s%s", f->root, extra ? "&" : "",
             extra ? extra : "");
    gr_link_t *link = NULL;
    int rc = gr_link_open(uri, &link);
    if (rc)
        assert_null(link);
    if (out)
        *out = link;
    else
        gr_link_close(link);
    return rc;
}

static void bad_addresses_are_refused_with_the_accepted_form(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",             "0000:01:00",    "0:01:00.0",      "0000:01:00.8",  "0000:01:20.0",
        "0000:0g:00.0", "0000-01-00.0",  "0000:01:00.0x",  " 000:01:00.0",  "+000:01:00.0",
        "00000:1:00.0", "0000:01:00:0",  "0000:01:00.-1",  "0000:01::00.0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char uri[64];
        snprintf(uri, sizeof uri, "pcie://%s", bad[i]);
        gr_link_t *link = NULL;
        int rc = gr_link_open(uri, &link);
        if (rc != GR_E_BAD_URI)
            fail_msg("'%s' gave %d, not GR_E_BAD_URI", uri, rc);
        assert_null(link);
        assert_says(gr_link_error(), "the accepted form is DDDD:BB:DD.F");
    }
}

static void bad_parameters_are_refused(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(open_fx(f, "anyid=2", NULL), GR_E_BAD_URI);
    assert_says(gr_link_error(), "anyid (0 or 1)");
    assert_int_equal(gr_link_open("pcie://" BDF "?bar=1", &(gr_link_t *){NULL}), GR_E_BAD_URI);
    assert_says(gr_link_error(), "accepted: anyid, root");
    assert_says(gr_link_schemes(), "pcie://");
}

static void a_missing_device_is_named(void **state)
{
    fixture_t *f = *state;
    char uri[160];
    /* Upper-case hex is accepted and looked up as sysfs spells it. */
    snprintf(uri, sizeof uri, "pcie://0000:0A:1F.7?root=%s", f->root);
    assert_int_equal(gr_link_open(uri, &(gr_link_t *){NULL}), GR_E_NO_DEVICE);
    assert_says(gr_link_error(), "no PCI device at");
    assert_says(gr_link_error(), "/sys/bus/pci/devices/0000:0a:1f.7");
}

static void another_vendor_is_refused_unless_anyid(void **state)
{
    fixture_t *f = *state;
    put_text(f, "sys/bus/pci/devices/" BDF "/device", "0x9038\n");
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    assert_says(gr_link_error(), "device 10ee:9038 is not a gpuref board (10ee:6770)");
    /* anyid=1 passes the IDs and stops at the next step: no driver. */
    assert_int_equal(open_fx(f, "anyid=1", NULL), GR_E_NO_DEVICE);
    assert_says(gr_link_error(), "no driver is bound");
}

static void no_driver_says_how_to_bind(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    assert_says(gr_link_error(), "no driver is bound to the device");
    assert_says(gr_link_error(), "echo vfio-pci > ");
    assert_says(gr_link_error(), "/driver_override");
}

static void another_driver_is_named_with_the_rebind(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "nvme");
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_BUSY);
    assert_says(gr_link_error(), "bound to driver 'nvme', not vfio-pci");
    assert_says(gr_link_error(), "echo " BDF " > ");
    assert_says(gr_link_error(), "/driver/unbind");
    assert_says(gr_link_error(), "driver_override");
}

static void vfio_without_an_iommu_group(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "vfio-pci");
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_UNSUPPORTED);
    assert_says(gr_link_error(), "has no IOMMU group");
    assert_says(gr_link_error(), "intel_iommu=on");
    assert_says(gr_link_error(), "uio_pci_generic (no DMA)");
}

static void vfio_group_node_missing(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "vfio-pci");
    set_group(f);
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    char want[160];
    snprintf(want, sizeof want, "%s/dev/vfio/" GROUP " does not exist", f->root);
    assert_says(gr_link_error(), want);
}

static void vfio_group_node_not_permitted(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "vfio-pci");
    set_group(f);
    put_text(f, "dev/vfio/" GROUP, "");
    char path[160];
    snprintf(path, sizeof path, "%s/dev/vfio/" GROUP, f->root);
    assert_int_equal(chmod(path, 0), 0);
    int rc;
    char text[600] = "";
    if (geteuid() != 0) {
        rc = open_fx(f, NULL, NULL);
        snprintf(text, sizeof text, "%s", gr_link_error());
    } else {
        /* root opens any mode: the open runs in a child as nobody, which the mode stops. */
        assert_int_equal(chmod(f->root, 0755), 0);
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(p[0]);
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(100);
            char uri[256];
            snprintf(uri, sizeof uri, "pcie://" BDF "?root=%s", f->root);
            gr_link_t *link = NULL;
            int r = gr_link_open(uri, &link);
            const char *e = gr_link_error();
            ssize_t n = write(p[1], e, strlen(e));
            (void)n;
            _exit(link ? 101 : -r);
        }
        close(p[1]);
        ssize_t n = read(p[0], text, sizeof text - 1);
        text[n > 0 ? n : 0] = '\0';
        close(p[0]);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) >= 100)
            fail_msg("the child could not become nobody, or opened the link (%d)",
                     WEXITSTATUS(status));
        rc = -WEXITSTATUS(status);
    }
    assert_int_equal(rc, GR_E_IO);
    assert_says(text, "no permission to open");
    assert_says(text, path);
    assert_says(text, "group vfio");
}

static void vfio_container_missing(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "vfio-pci");
    set_group(f);
    put_text(f, "dev/vfio/" GROUP, "");
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    char want[160];
    snprintf(want, sizeof want, "cannot open %s/dev/vfio/vfio (the VFIO container)", f->root);
    assert_says(gr_link_error(), want);
}

/* Regular files where VFIO's nodes belong: the first ioctl is refused and named. This is as far
 * as the VFIO path goes without the kernel's VFIO and a device. */
static void vfio_nodes_that_are_not_vfio(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "vfio-pci");
    set_group(f);
    put_text(f, "dev/vfio/" GROUP, "");
    put_text(f, "dev/vfio/vfio", "");
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_IO);
    assert_says(gr_link_error(), "VFIO_GET_API_VERSION failed on");
    assert_says(gr_link_error(), "(not a VFIO device node)");
}

static void set_uio(const fixture_t *f)
{
    set_driver(f, "uio_pci_generic");
    mkdirs(f, "sys/bus/pci/devices/" BDF "/uio/uio" UIO);
    char path[160];
    snprintf(path, sizeof path, "%s/dev/uio" UIO, f->root);
    assert_int_equal(mkfifo(path, 0600), 0);
}

static uint32_t fifo_read_u32(int fd)
{
    uint32_t v = 0xdeadbeefu;
    assert_int_equal(read(fd, &v, 4), 4);
    return v;
}

static void uio_fallback_end_to_end(void **state)
{
    fixture_t *f = *state;
    set_uio(f);
    char path[200];
    snprintf(path, sizeof path, "%s/dev/uio" UIO, f->root);
    /* The kernel's side of /dev/uioN: reads the driver's unmask writes, writes interrupt counts. */
    int kernel = open(path, O_RDWR | O_NONBLOCK);
    assert_true(kernel >= 0);
    gr_link_t *link = NULL;
    assert_int_equal(open_fx(f, NULL, &link), GR_OK);
    assert_int_equal(fifo_read_u32(kernel), 1); /* INTx unmasked at open */

    char desc[128];
    gr_link_describe(link, desc, sizeof desc);
    assert_says(desc, "pcie " BDF " uio" UIO " bar0=64KiB bar1=1MiB");
    assert_int_equal(gr_link_caps(link), GR_LINK_CAP_IRQ | GR_LINK_CAP_POSTED_WRITES | GR_LINK_CAP_READ_ERRORS_ALL_ONES);

    /* Memory space and bus mastering on in the command register. */
    int cfg = open(f->dev, O_RDONLY | O_DIRECTORY);
    assert_true(cfg >= 0);
    int cfd = openat(cfg, "config", O_RDONLY);
    uint16_t cmd = 0;
    assert_int_equal(pread(cfd, &cmd, 2, 4), 2);
    assert_int_equal(cmd, 0x6);

    uint32_t v = 0;
    assert_int_equal(gr_link_read32(link, GR_REG_ID_MAGIC, &v), GR_OK);
    assert_int_equal(v, 0x47505552u);
    assert_int_equal(gr_link_write32(link, GR_REG_SCRATCH, 0x12345678u), GR_OK);
    int r0 = openat(cfg, "resource0", O_RDONLY);
    assert_int_equal(pread(r0, &v, 4, GR_REG_SCRATCH), 4);
    assert_int_equal(v, 0x12345678u);
    assert_int_equal(gr_link_read32(link, GR_REG_SCRATCH, &v), GR_OK);
    assert_int_equal(v, 0x12345678u);

    /* BAR1: unaligned head and tail around whole words, both ways, byte-exact. */
    uint8_t out[77], in[77], file[77];
    for (size_t i = 0; i < sizeof out; i++)
        out[i] = (uint8_t)(i * 37u + 5u);
    const uint64_t at = BAR1_BYTES - 100u + 3u;
    assert_int_equal(gr_link_ap_write(link, at, out, sizeof out), GR_OK);
    int r1 = openat(cfg, "resource1", O_RDONLY);
    assert_int_equal(pread(r1, file, sizeof file, (off_t)at), (ssize_t)sizeof file);
    assert_memory_equal(file, out, sizeof out);
    memset(in, 0, sizeof in);
    assert_int_equal(gr_link_ap_read(link, at, in, sizeof in), GR_OK);
    assert_memory_equal(in, out, sizeof out);
    assert_int_equal(gr_link_ap_read(link, BAR1_BYTES - 4u, in, 5), GR_E_RANGE);
    assert_int_equal(gr_link_ap_write(link, BAR1_BYTES, out, 1), GR_E_RANGE);
    assert_says(gr_link_error(), "outside BAR1");

    gr_dma_buf_t buf = {0};
    assert_int_equal(gr_link_dma_alloc(link, 4096, &buf), GR_E_UNSUPPORTED);
    assert_null(buf.cpu);
    assert_says(gr_link_error(), "no DMA through uio_pci_generic");

    bool raised = true;
    assert_int_equal(gr_link_wait_irq(link, 0, &raised), GR_OK);
    assert_false(raised);
    uint32_t count = 1;
    assert_int_equal(write(kernel, &count, 4), 4);
    assert_int_equal(gr_link_wait_irq(link, 2000000, &raised), GR_OK);
    assert_true(raised);
    assert_int_equal(fifo_read_u32(kernel), 1); /* unmasked again after the interrupt */
    assert_int_equal(gr_link_wait_irq(link, 1000, &raised), GR_OK);
    assert_false(raised);

    gr_link_close(link);
    close(r1);
    close(r0);
    close(cfd);
    close(cfg);
    close(kernel);
}

static void uio_with_a_wrong_magic(void **state)
{
    fixture_t *f = *state;
    set_uio(f);
    static uint8_t bar0[GR_REGMAP_BAR0_BYTES];
    memset(bar0, 0xff, sizeof bar0);
    put(f, "sys/bus/pci/devices/" BDF "/resource0", bar0, sizeof bar0);
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    assert_says(gr_link_error(), "BAR0 ID_MAGIC reads 0xffffffff, not gpuref's 0x47505552 (the "
                                 "device does not answer)");
}

static void uio_with_a_small_bar0(void **state)
{
    fixture_t *f = *state;
    set_uio(f);
    put(f, "sys/bus/pci/devices/" BDF "/resource0", "RUPG", 4);
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_IO);
    assert_says(gr_link_error(), "BAR0 has 4 bytes, gpuref's registers need 65536");
}

static void uio_without_a_uio_node(void **state)
{
    fixture_t *f = *state;
    set_driver(f, "uio_pci_generic");
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    assert_says(gr_link_error(), "bound to uio_pci_generic but");
    assert_says(gr_link_error(), "names no uio device");
    mkdirs(f, "sys/bus/pci/devices/" BDF "/uio/uio" UIO);
    assert_int_equal(open_fx(f, NULL, NULL), GR_E_NO_DEVICE);
    char want[160];
    snprintf(want, sizeof want, "cannot open %s/dev/uio" UIO " (the uio device)", f->root);
    assert_says(gr_link_error(), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_addresses_are_refused_with_the_accepted_form),
        cmocka_unit_test_setup_teardown(bad_parameters_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(a_missing_device_is_named, setup, teardown),
        cmocka_unit_test_setup_teardown(another_vendor_is_refused_unless_anyid, setup, teardown),
        cmocka_unit_test_setup_teardown(no_driver_says_how_to_bind, setup, teardown),
        cmocka_unit_test_setup_teardown(another_driver_is_named_with_the_rebind, setup, teardown),
        cmocka_unit_test_setup_teardown(vfio_without_an_iommu_group, setup, teardown),
        cmocka_unit_test_setup_teardown(vfio_group_node_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(vfio_group_node_not_permitted, setup, teardown),
        cmocka_unit_test_setup_teardown(vfio_container_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(vfio_nodes_that_are_not_vfio, setup, teardown),
        cmocka_unit_test_setup_teardown(uio_fallback_end_to_end, setup, teardown),
        cmocka_unit_test_setup_teardown(uio_with_a_wrong_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(uio_with_a_small_bar0, setup, teardown),
        cmocka_unit_test_setup_teardown(uio_without_a_uio_node, setup, teardown),
    };
    return cmocka_run_group_tests_name("system-pcie-host", tests, NULL, NULL);
}
