// What each thread keeps between calls into the C boundary: TurboJPEG handles (not
// thread-safe, and costly to make per call) and buffers (a fresh allocation of a few hundred
// kilobytes per call costs its page faults every time, which two threads take in turn: one
// memory map per process). Freed when the thread ends.

#ifndef WI_THREAD_STATE_H
#define WI_THREAD_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <turbojpeg.h>

// Buffers up to this size stay with their thread between calls (a 1 megapixel bitmap); larger
// ones are freed after use, so that one big image does not pin memory in every thread.
enum { WI_KEEP_BYTES = 4 << 20 };

typedef struct {
    uint8_t *bytes;
    size_t size;
} wi_buffer;

// The buffer's bytes with room for `size`, or NULL when out of memory.
uint8_t *wi_buffer_reserve(wi_buffer *buffer, size_t size);
// Frees the buffer when it is over WI_KEEP_BYTES.
void wi_buffer_trim(wi_buffer *buffer);

typedef struct {
    tjhandle decompressor;
    tjhandle compressor;
    unsigned char *encoded;      // TurboJPEG's output buffer (tjAlloc), reused while big enough
    unsigned long encoded_size;
    wi_buffer decoded;           // a decoded JPEG on its way to the resampler
    wi_buffer dc_only;           // a progressive JPEG cut to the scans a 1/8 decode reads
    wi_buffer dc_coefficients;   // its DC coefficients (jpeg_dc.c)
    wi_buffer resample_rows;     // the resampler's vertical pass
    wi_buffer resample_shrunk;   // the resampler's box shrink
    wi_buffer resample_weighted; // its premultiplied copy of a bitmap with alpha
    char error[200];             // the last TurboJPEG failure's message
} wi_thread_state;

// This thread's state, or NULL when out of memory.
wi_thread_state *wi_thread_state_get(void);

#endif
