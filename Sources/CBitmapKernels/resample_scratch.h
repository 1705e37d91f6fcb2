// The resampler's buffers, kept per thread (wi_scratch_buffer.h) and freed when the thread ends.

#ifndef WI_RESAMPLE_SCRATCH_H
#define WI_RESAMPLE_SCRATCH_H

#include "wi_scratch_buffer.h"

typedef struct {
    wi_buffer rows;      // the vertical pass
    wi_buffer shrunk;    // the box shrink
    wi_buffer weighted;  // the premultiplied copy of a bitmap with alpha
} wi_resample_scratch;

// This thread's buffers, or NULL when out of memory.
wi_resample_scratch *wi_resample_scratch_get(void);

#endif
