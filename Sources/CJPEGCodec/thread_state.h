// What each thread keeps between calls into the JPEG codec: TurboJPEG handles (not thread-safe,
// and costly to make per call) and scratch buffers (wi_scratch_buffer.h). Freed when the thread
// ends.

#ifndef WI_THREAD_STATE_H
#define WI_THREAD_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <turbojpeg.h>

#include "wi_scratch_buffer.h"

typedef struct {
    tjhandle decompressor;
    tjhandle compressor;
    unsigned char *encoded;      // TurboJPEG's output buffer (tjAlloc), reused while big enough
    unsigned long encoded_size;
    wi_buffer decoded;           // a decoded JPEG on its way to the resampler
    wi_buffer dc_only;           // a progressive JPEG cut to the scans a 1/8 decode reads
    wi_buffer dc_coefficients;   // its DC coefficients (jpeg_dc.c)
    char error[200];             // the last TurboJPEG failure's message
} wi_thread_state;

// This thread's state, or NULL when out of memory.
wi_thread_state *wi_thread_state_get(void);

#endif
