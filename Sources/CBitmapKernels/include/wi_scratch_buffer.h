// Scratch buffers kept by a thread between calls into the C kernels: a fresh allocation of a few
// hundred kilobytes per call costs its page faults every time, which two threads take in turn
// (one memory map per process). Shared with the JPEG codec (CJPEGCodec).

#ifndef WI_SCRATCH_BUFFER_H
#define WI_SCRATCH_BUFFER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

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

// The calling thread's value under `key` (made once by `make_key`, which gives it the
// destructor that frees it when the thread ends): `size` zeroed bytes the first time; NULL when
// out of memory.
void *wi_thread_value(pthread_key_t *key, pthread_once_t *once, void (*make_key)(void), size_t size);

#endif
