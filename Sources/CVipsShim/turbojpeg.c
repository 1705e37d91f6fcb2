// TurboJPEG calls with one decompressor, one compressor and their buffers kept per thread:
// on a 640x427 photo, making a handle per call and letting TurboJPEG size a fresh output
// buffer each time cost as much as the page faults they caused. Handles are not thread-safe,
// so each thread has its own, freed when the thread ends.

#include "CVipsShim.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

// Buffers up to this size stay with their thread between calls (a 1 megapixel bitmap); larger
// ones are freed after use, so that one big image does not pin memory in every thread.
enum { WI_TJ_KEEP_BYTES = 4 << 20 };

typedef struct {
    tjhandle decompressor;
    tjhandle compressor;
    unsigned char *encoded;     // TurboJPEG's output buffer, reused while big enough
    unsigned long encoded_size;
    uint8_t *scratch;           // a decoded bitmap on its way to the resampler
    size_t scratch_size;
    char error[200];
} wi_tj_thread;

static pthread_key_t wi_tj_key;
static pthread_once_t wi_tj_key_once = PTHREAD_ONCE_INIT;

static void wi_tj_thread_free(void *value) {
    wi_tj_thread *state = value;
    if (state->decompressor != NULL) {
        tjDestroy(state->decompressor);
    }
    if (state->compressor != NULL) {
        tjDestroy(state->compressor);
    }
    tjFree(state->encoded);
    free(state->scratch);
    free(state);
}

static void wi_tj_make_key(void) {
    pthread_key_create(&wi_tj_key, wi_tj_thread_free);
}

static wi_tj_thread *wi_tj_state(void) {
    pthread_once(&wi_tj_key_once, wi_tj_make_key);
    wi_tj_thread *state = pthread_getspecific(wi_tj_key);
    if (state == NULL) {
        state = calloc(1, sizeof(wi_tj_thread));
        if (state == NULL || pthread_setspecific(wi_tj_key, state) != 0) {
            free(state);
            return NULL;
        }
    }
    return state;
}

static tjhandle wi_tj_decompressor(wi_tj_thread *state) {
    if (state != NULL && state->decompressor == NULL) {
        state->decompressor = tjInitDecompress();
    }
    return state == NULL ? NULL : state->decompressor;
}

// Keeps TurboJPEG's message (or `fallback`) for wi_tj_error and drops `handle`, so that the
// next call gets a fresh one: TurboJPEG 2.1 leaves a decompressor that failed on a header
// (a 12-bit file) unable to read any other ("two SOI markers"). Returns -1.
static int wi_tj_fail(wi_tj_thread *state, tjhandle handle, const char *fallback) {
    if (state == NULL) {
        return -1;
    }
    const char *message = handle != NULL ? tjGetErrorStr2(handle) : NULL;
    snprintf(state->error, sizeof(state->error), "%s", message != NULL && message[0] != 0 ? message : fallback);
    if (handle != NULL) {
        tjDestroy(handle);
        if (handle == state->decompressor) {
            state->decompressor = NULL;
        }
        if (handle == state->compressor) {
            state->compressor = NULL;
        }
    }
    return -1;
}

const char *wi_tj_error(void) {
    wi_tj_thread *state = wi_tj_state();
    return state == NULL ? "out of memory" : state->error;
}

int wi_tj_header(const void *jpeg, size_t length, int *width, int *height, int *is_cmyk) {
    wi_tj_thread *state = wi_tj_state();
    tjhandle handle = wi_tj_decompressor(state);
    int subsampling = 0;
    int colorspace = 0;
    if (handle == NULL ||
        tjDecompressHeader3(handle, jpeg, (unsigned long)length, width, height, &subsampling, &colorspace) != 0) {
        return wi_tj_fail(state, handle, "not a JPEG TurboJPEG reads");
    }
    *is_cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
    return 0;
}

// Decodes into `pixels` as RGBA. Any libjpeg warning counts as a failure: TurboJPEG cannot tell a
// harmless one from a broken stream.
static int wi_tj_decode_into(wi_tj_thread *state, const void *jpeg, size_t length, int width, int height, uint8_t *pixels) {
    tjhandle handle = wi_tj_decompressor(state);
    if (handle == NULL) {
        return wi_tj_fail(state, NULL, "cannot start a decoder");
    }
    if (tjDecompress2(handle, jpeg, (unsigned long)length, pixels, width, 0, height, TJPF_RGBA, 0) != 0) {
        return wi_tj_fail(state, handle, "decode failed");
    }
    return 0;
}

int wi_tj_decode_rgba8(const void *jpeg, size_t length, int width, int height, uint8_t *pixels) {
    return wi_tj_decode_into(wi_tj_state(), jpeg, length, width, height, pixels);
}

int wi_tj_thumbnail_rgba8(const void *jpeg, size_t length, int scaled_width, int scaled_height, int used_width,
                          int used_height, uint8_t *pixels, int width, int height, int orientation) {
    wi_tj_thread *state = wi_tj_state();
    if (state == NULL) {
        return -1;
    }
    size_t size = (size_t)scaled_width * (size_t)scaled_height * 4;
    if (state->scratch_size < size) {
        free(state->scratch);
        state->scratch = malloc(size);
        state->scratch_size = state->scratch == NULL ? 0 : size;
        if (state->scratch == NULL) {
            return wi_tj_fail(state, NULL, "out of memory");
        }
    }
    if (wi_tj_decode_into(state, jpeg, length, scaled_width, scaled_height, state->scratch) != 0) {
        return -1;
    }
    int failed = used_width > scaled_width || used_height > scaled_height ||
                 wi_resample_rgba8(state->scratch, used_width, used_height, (size_t)scaled_width * 4, pixels, width,
                                   height, orientation) != 0;
    if (state->scratch_size > WI_TJ_KEEP_BYTES) {
        free(state->scratch);
        state->scratch = NULL;
        state->scratch_size = 0;
    }
    return failed ? wi_tj_fail(state, NULL, "cannot resize") : 0;
}

int wi_tj_encode(const uint8_t *pixels, int width, int height, int bands, int quality, const uint8_t **jpeg,
                 size_t *length) {
    wi_tj_thread *state = wi_tj_state();
    if (state == NULL) {
        return -1;
    }
    if (state->compressor == NULL) {
        state->compressor = tjInitCompress();
        if (state->compressor == NULL) {
            return wi_tj_fail(state, NULL, "cannot start an encoder");
        }
    }
    int subsampling = quality >= 90 ? TJSAMP_444 : TJSAMP_420;
    unsigned long bound = tjBufSize(width, height, subsampling);
    if (bound == (unsigned long)-1) {
        return wi_tj_fail(state, state->compressor, "image too large");
    }
    if (state->encoded_size < bound) {
        tjFree(state->encoded);
        state->encoded = tjAlloc((int)bound);
        state->encoded_size = state->encoded == NULL ? 0 : bound;
        if (state->encoded == NULL) {
            return wi_tj_fail(state, NULL, "out of memory");
        }
    }
    unsigned long size = state->encoded_size;
    unsigned char *out = state->encoded;
    int format = bands == 4 ? TJPF_RGBA : TJPF_RGB;
    if (tjCompress2(state->compressor, pixels, width, 0, height, format, &out, &size, subsampling, quality,
                    TJFLAG_NOREALLOC) != 0) {
        return wi_tj_fail(state, state->compressor, "encode failed");
    }
    *jpeg = out;
    *length = size;
    return 0;
}

void wi_tj_encode_done(void) {
    wi_tj_thread *state = wi_tj_state();
    if (state != NULL && state->encoded_size > WI_TJ_KEEP_BYTES) {
        tjFree(state->encoded);
        state->encoded = NULL;
        state->encoded_size = 0;
    }
}
