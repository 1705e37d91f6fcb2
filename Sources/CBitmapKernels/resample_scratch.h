// The resampler's buffers, kept per thread (wi_scratch_buffer.h) and freed when the thread ends.

#ifndef WI_RESAMPLE_SCRATCH_H
#define WI_RESAMPLE_SCRATCH_H

#include "wi_scratch_buffer.h"

typedef struct {
    wi_buffer rows;      // the vertical pass
    wi_buffer shrunk;    // the box shrink
    wi_buffer weighted;  // the premultiplied copy of a bitmap with alpha
    // The last whole-bitmap resize's taps, for the next of the same sizes (photos of one size
    // thumbnailed to one size, as a server's steady load is): making them was 1.4% of a
    // 640x427 JPEG's thumbnail job.
    struct wi_resample_plan *last_plan;
} wi_resample_scratch;

// This thread's buffers, or NULL when out of memory.
wi_resample_scratch *wi_resample_scratch_get(void);

#endif
