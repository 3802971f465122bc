/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpuctl_trace.c: waveforms around gpuctl commands (trace on FILE, trace off) on sim://, where
 * the device is gpu_core under Verilator in gpuctl's own process (sim/harness/gr_sim.h). The
 * waveform is VCD when FILE ends in .vcd, else FST, with a GTKWave save file next to it
 * (gpu_core's ports, DMA engine and MMU grouped). Whenever a waveform is closed, the one a
 * `trace off` closes, one still open at the end, or the one `sim://?trace=` (or `fst=`,
 * $GR_SIM_FST) opened, gpuctl prints where it is, its format, the cycles it holds and the
 * gtkwave command that opens it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gpuctl.h"
#include "gr_link_sim.h"
#include "gr_sim.h"

int parse_trace(int argc, char **argv, trace_req_t *out)
{
    if (argc >= 2 && !strcmp(argv[1], "off")) {
        memset(out, 0, sizeof *out);
        return 2;
    }
    if (argc >= 2 && !strcmp(argv[1], "on")) {
        if (argc < 3 || !argv[2][0]) {
            fprintf(stderr, "gpuctl: trace on takes a file: trace on FILE (.vcd: VCD, else FST)\n");
            return -1;
        }
        memset(out, 0, sizeof *out);
        out->on = true;
        out->path = argv[2];
        return 3;
    }
    fprintf(stderr, "gpuctl: trace takes 'on FILE' or 'off' (got '%s')\n", argc >= 2 ? argv[1] : "nothing");
    return -1;
}

/* The device's sim:// link, or NULL. Waveform calls go through it (gr_link_sim.h), under the
 * link's lock: the miniport's interrupt thread clocks the same model meanwhile. */
static gr_link_t *sim_link_of(gr_device_t *dev)
{
    gr_link_t *link = dev ? gr_device_link(dev) : NULL;
    return gr_link_sim_of(link) ? link : NULL;
}

/* "wrote" or "recording": one line (or one JSON document) about a waveform. */
static void report(const opts_t *o, const char *state, const gr_sim_trace_info_t *t, uint64_t cycle)
{
    const char *format = t->vcd ? "vcd" : "fst";
    if (o->json) {
        printf("{\"command\":\"trace\",\"state\":");
        json_str(state);
        printf(",\"path\":");
        json_str(t->path);
        printf(",\"format\":\"%s\",\"gtkw\":", format);
        json_str(t->gtkw_path);
        if (!strcmp(state, "recording"))
            printf(",\"cycle\":%" PRIu64, cycle);
        else if (t->recorded)
            printf(",\"first_cycle\":%" PRIu64 ",\"last_cycle\":%" PRIu64, t->first_cycle, t->last_cycle);
        printf("}\n");
    } else if (!strcmp(state, "recording")) {
        printf("trace: recording %s (%s) from cycle %" PRIu64 "; GTKWave save file %s\n", t->path,
               t->vcd ? "VCD" : "FST", cycle, t->gtkw_path);
    } else {
        if (t->recorded)
            printf("trace: wrote %s (%s, cycles %" PRIu64 "..%" PRIu64 "); open with: gtkwave -a %s %s\n", t->path,
                   t->vcd ? "VCD" : "FST", t->first_cycle, t->last_cycle, t->gtkw_path, t->path);
        else
            printf("trace: wrote %s (%s, no cycle inside its window)\n", t->path, t->vcd ? "VCD" : "FST");
    }
    fflush(stdout);
}

int cmd_trace(const opts_t *o, gr_device_t *dev, const trace_req_t *q)
{
    const char *cmd = q->on ? "trace on" : "trace off";
    gr_link_t *link = sim_link_of(dev);
    if (!link)
        return fail_status(o, cmd, 0, EXIT_USAGE,
                           "%s: waveforms come from the simulation: the device must be sim:// (gpu_core in "
                           "this process)", cmd);
    gr_sim_trace_info_t t;
    int rc;
    if (q->on) {
        uint64_t cycle;
        if ((rc = gr_link_sim_trace_start(link, q->path, &t, &cycle)))
            return fail_status(o, cmd, rc, rc == GR_E_IO ? EXIT_DEVICE : EXIT_USAGE, "%s: %s", cmd, gr_sim_error());
        report(o, "recording", &t, cycle);
        return EXIT_OK;
    }
    rc = gr_link_sim_trace_stop(link, &t);
    if (rc == GR_E_UNSUPPORTED)
        return fail_status(o, cmd, 0, EXIT_USAGE, "trace off: no waveform is being recorded (trace on FILE first)");
    if (rc)
        return fail_status(o, cmd, rc, EXIT_DEVICE, "trace off: %s", gr_sim_error());
    report(o, "wrote", &t, 0);
    return EXIT_OK;
}

int trace_finish(const opts_t *o, gr_device_t *dev, int rc)
{
    gr_link_t *link = sim_link_of(dev);
    gr_sim_trace_info_t t;
    if (!link || gr_link_sim_trace_info(link, &t) != GR_OK || !t.open)
        return rc;
    const int stop = gr_link_sim_trace_stop(link, &t);
    if (stop) {
        const int code = fail_status(o, "trace", stop, EXIT_DEVICE, "trace: %s", gr_sim_error());
        return rc ? rc : code;
    }
    report(o, "wrote", &t, 0);
    return rc;
}
