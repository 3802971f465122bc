/* SPDX-License-Identifier: Apache-2.0 */
/*
 * easy_copy.c: what fill_copy.c does, through the convenience layer (gpuref/gr_easy.h): two
 * 64 KiB buffers in VRAM, a FILL of the first and a COPY into the second on the DMA engine,
 * the second read back and checked. The same driver stack runs underneath (gr_alloc_create,
 * gr_submit and gr_wait, VidMm, VidSch, the miniport's DDIs); the layer fills in the private
 * data and keeps the allocation list.
 *
 *   cc easy_copy.c $(pkg-config --cflags --libs gpuref) -o easy_copy
 *   ./easy_copy [URI]          default $GR_DEVICE, else sim://
 *
 * Common subset of C11 and C++17. Exit status: 0 the copy reads back right, 1 it does not, 2 a
 * call failed (printed with gr_last_error()).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gpuref/gr_easy.h>

#define BYTES (64u * 1024u)
#define PATTERN 0x600dcafeu

static int failed(const char *call, int rc)
{
    fprintf(stderr, "easy_copy: %s: %s (%s)\n", call, gr_strerror(rc), gr_last_error());
    return 2;
}

int main(int argc, char **argv)
{
    gr_session_t *s = NULL;
    int rc = gr_session_open(argc > 1 ? argv[1] : NULL, &s);
    if (rc)
        return failed("gr_session_open", rc);
    gr_gpu_device_t *dev = gr_session_device(s);

    gr_alloc_t src = 0, dst = 0;
    gr_cmd_t *cmd = NULL;
    uint32_t *back = (uint32_t *)malloc(BYTES);
    int status = 2;
    if (!back)
        fprintf(stderr, "easy_copy: out of memory\n");
    else if ((rc = gr_buffer_create(dev, BYTES, 0, &src)))
        failed("gr_buffer_create (src)", rc);
    else if ((rc = gr_buffer_create(dev, BYTES, GR_BUF_CPU_READ, &dst)))
        failed("gr_buffer_create (dst)", rc);
    else if ((rc = gr_cmd_create(dev, gr_session_context(s), 0, &cmd)))
        failed("gr_cmd_create", rc);
    else if ((rc = gr_cmd_fill(cmd, src, 0, BYTES, PATTERN)) || (rc = gr_cmd_copy(cmd, src, 0, dst, 0, BYTES)))
        failed("recording the commands", rc);
    /* No time limit: a packet that hung would still end, in a GPU reset (GR_E_DEVICE_RESET). */
    else if ((rc = gr_cmd_submit_wait(cmd, GR_WAIT_FOREVER)))
        failed("gr_cmd_submit_wait", rc);
    else if ((rc = gr_buffer_read(dev, dst, 0, back, BYTES)))
        failed("gr_buffer_read", rc);
    else {
        uint32_t bad = 0;
        for (uint32_t i = 0; i < BYTES / 4u; i++)
            bad += back[i] != PATTERN;
        printf("easy_copy: %u KiB filled with 0x%08x and copied on the engine: %s\n", BYTES / 1024u, PATTERN,
               bad ? "MISMATCH" : "every word reads back");
        status = bad ? 1 : 0;
    }
    /* The writer goes first; closing the session destroys the buffers with its device. */
    if (cmd && (rc = gr_cmd_destroy(cmd)))
        status = failed("gr_cmd_destroy", rc);
    free(back);
    gr_session_close(s);
    return status;
}
