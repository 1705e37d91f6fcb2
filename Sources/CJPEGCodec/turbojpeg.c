// TurboJPEG calls with one decompressor, one compressor and their buffers kept per thread
// (thread_state.h): on a 640x427 photo, making a handle per call and letting TurboJPEG size a
// fresh output buffer each time cost as much as the page faults they caused.

#include "CJPEGCodec.h"
#include "CBitmapKernels.h"
#include "jpeg_api.h"
#include "jpeg_dc.h"
#include "thread_state.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

static tjhandle wi_tj_decompressor(wi_thread_state *state) {
    if (state != NULL && state->decompressor == NULL) {
        state->decompressor = tjInitDecompress();
    }
    return state == NULL ? NULL : state->decompressor;
}

// Keeps TurboJPEG's message (or `fallback`) for wi_tj_error and drops `handle`, so that the
// next call gets a fresh one: TurboJPEG 2.1 leaves a decompressor that failed on a header
// (a 12-bit file) unable to read any other ("two SOI markers"). Returns -1.
static int wi_tj_fail(wi_thread_state *state, tjhandle handle, const char *fallback) {
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
    wi_thread_state *state = wi_thread_state_get();
    return state == NULL ? "out of memory" : state->error;
}

int wi_tj_header(const void *jpeg, size_t length, int *width, int *height, int *is_cmyk, int *is_gray) {
    wi_thread_state *state = wi_thread_state_get();
    tjhandle handle = wi_tj_decompressor(state);
    int subsampling = 0;
    int colorspace = 0;
    if (handle == NULL ||
        tjDecompressHeader3(handle, jpeg, (unsigned long)length, width, height, &subsampling, &colorspace) != 0) {
        return wi_tj_fail(state, handle, "not a JPEG TurboJPEG reads");
    }
    *is_cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
    *is_gray = colorspace == TJCS_GRAY;
    return 0;
}

enum { WI_TJ_WHOLE_MAX_PIXELS = 4000000 };

// Decodes into `pixels` as RGBA at DCT scale 1/`shrink` (`width` x `height`). Any libjpeg
// warning counts as a failure: TurboJPEG cannot tell a harmless one from a broken stream. A
// progressive file, or a decode of more than WI_TJ_WHOLE_MAX_PIXELS, goes through libjpeg's
// API with the same settings (jpeg_reader.c), where `stop` can end it between rows (a
// sequential 18 MP photo takes TurboJPEG's one call a few hundred ms); a small sequential one
// costs a pass over its data.
static int wi_tj_decode_into(wi_thread_state *state, const void *jpeg, size_t length, int shrink, int width, int height,
                             uint8_t *pixels, int (*stop)(void)) {
    if (state == NULL) {
        return -1;
    }
    if ((size_t)width * (size_t)height > WI_TJ_WHOLE_MAX_PIXELS || wi_jpeg_progressive_scans(jpeg, length, 1) > 0) {
        int status = wi_jpeg_decode_rgba8(jpeg, length, shrink, 1, width, height, pixels, stop, state->error,
                                          sizeof(state->error));
        return status;
    }
    tjhandle handle = wi_tj_decompressor(state);
    if (handle == NULL) {
        return wi_tj_fail(state, NULL, "cannot start a decoder");
    }
    if (tjDecompress2(handle, jpeg, (unsigned long)length, pixels, width, 0, height, TJPF_RGBA, 0) != 0) {
        return wi_tj_fail(state, handle, "decode failed");
    }
    return 0;
}

int wi_tj_decode_rgba8(const void *jpeg, size_t length, int shrink, int width, int height, uint8_t *pixels,
                       int (*stop)(void)) {
    return wi_tj_decode_into(wi_thread_state_get(), jpeg, length, shrink, width, height, pixels, stop);
}

// MARK: Progressive files at 1/8

// The last zigzag index a 1/8 decode reads from a component subsampled by k: only the DC for
// a full-resolution one (1x1 IDCT); everything for a subsampled one, which libjpeg-turbo
// decodes with a k x k IDCT instead of upsampling it, and whose reduced IDCTs read
// coefficients across the whole block (rows and columns 1, 3, 5, 7 for 2x2).
static int wi_jpeg_last_needed_coefficient(int k) {
    return k <= 1 ? 0 : 63;
}

size_t wi_jpeg_dc_scans(const uint8_t *jpeg, size_t length, uint8_t *out) {
    if (length < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) {
        return 0;
    }
    memcpy(out, jpeg, 2);
    size_t written = 2;
    size_t at = 2;
    int progressive = 0;
    int dropped = 0;
    // Per frame component: its id and the last coefficient a 1/8 decode reads from it.
    int component_ids[4];
    int last_needed[4];
    int component_count = 0;
    while (at + 1 < length) {
        if (jpeg[at] != 0xFF) {
            return 0;
        }
        uint8_t marker = jpeg[at + 1];
        if (marker == 0xFF) {  // fill byte
            at++;
            continue;
        }
        if (marker == 0xD9) {  // EOI: done
            out[written++] = 0xFF;
            out[written++] = 0xD9;
            return progressive && dropped ? written : 0;
        }
        if (at + 4 > length) {
            return 0;
        }
        size_t segment = 2 + ((size_t)jpeg[at + 2] << 8 | jpeg[at + 3]);
        if (segment < 4 || at + segment > length) {
            return 0;
        }
        if ((marker >= 0xC0 && marker <= 0xCF) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            // A frame header: progressive (Huffman or arithmetic), or nothing to gain. Then
            // P, Y, X, Nf and per component: id, sampling factors (H << 4 | V), table.
            progressive = marker == 0xC2 || marker == 0xCA;
            component_count = segment >= 10 ? jpeg[at + 9] : 0;
            if (!progressive || component_count < 1 || component_count > 4 || segment != 10 + 3 * (size_t)component_count) {
                return 0;
            }
            int max_h = 1;
            int max_v = 1;
            for (int c = 0; c < component_count; c++) {
                uint8_t factors = jpeg[at + 11 + 3 * c];
                max_h = (factors >> 4) > max_h ? (factors >> 4) : max_h;
                max_v = (factors & 15) > max_v ? (factors & 15) : max_v;
            }
            for (int c = 0; c < component_count; c++) {
                uint8_t factors = jpeg[at + 11 + 3 * c];
                int h = factors >> 4;
                int v = factors & 15;
                if (h == 0 || v == 0) {
                    return 0;
                }
                int k = max_h / h > max_v / v ? max_h / h : max_v / v;
                component_ids[c] = jpeg[at + 10 + 3 * c];
                last_needed[c] = wi_jpeg_last_needed_coefficient(k);
            }
        }
        if (marker != 0xDA) {
            memcpy(out + written, jpeg + at, segment);
            written += segment;
            at += segment;
            continue;
        }
        // A scan: its header (marker, length, Ns, Ns component selectors, Ss, Se, Ah/Al) says
        // which coefficients of which components it carries.
        size_t components = segment > 4 ? jpeg[at + 4] : 0;
        if (components == 0 || segment != 8 + 2 * components || component_count == 0) {
            return 0;
        }
        int spectral_start = jpeg[at + 5 + 2 * components];
        int needed = spectral_start == 0;
        for (size_t c = 0; c < components && !needed; c++) {
            for (int f = 0; f < component_count; f++) {
                if (component_ids[f] == jpeg[at + 5 + 2 * c] && spectral_start <= last_needed[f]) {
                    needed = 1;
                }
            }
        }
        size_t end = wi_jpeg_scan_end(jpeg, length, at + segment);
        if (end == 0) {
            return 0;
        }
        if (needed) {
            memcpy(out + written, jpeg + at, end - at);
            written += end - at;
        } else {
            dropped = 1;
        }
        at = end;
    }
    return 0;
}

// Decodes `jpeg` at 1/8 into `pixels` (RGBA, `width` x `height`): from the DC coefficients
// alone when no component is subsampled (jpeg_dc.c); else, unless `dc_only`, with libjpeg's
// own API, for the one setting TurboJPEG does not offer: no interblock smoothing, which would
// invent AC coefficients for a file without its AC scans. Like TurboJPEG, a warning (corrupt
// data) counts as a failure. `stop` is asked as the scans are read. A WI_DC_* result.
static int wi_jpeg_decode_eighth(const uint8_t *jpeg, size_t length, int width, int height, uint8_t *pixels,
                                 int dc_only, int (*stop)(void)) {
    wi_thread_state *state = wi_thread_state_get();
    if (state == NULL) {
        return WI_DC_FAILED;
    }
    struct jpeg_decompress_struct info;
    wi_jpeg_handlers handlers;
    info.err = wi_jpeg_handlers_errors(&handlers, 1, 1);
    if (setjmp(handlers.jump)) {
        jpeg_destroy_decompress(&info);
        return WI_DC_FAILED;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, jpeg, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    // The colour space the components are in, as libjpeg guesses it.
    int colours = -1;
    if (info.progressive_mode && !info.arith_code && info.data_precision == 8) {
        colours = info.jpeg_color_space == JCS_GRAYSCALE && info.num_components == 1 ? WI_DC_GREY
                  : info.jpeg_color_space == JCS_YCbCr && info.num_components == 3 ? WI_DC_YCBCR
                  : info.jpeg_color_space == JCS_RGB && info.num_components == 3   ? WI_DC_RGB
                                                                                     : -1;
    }
    jpeg_destroy_decompress(&info);
    if (colours >= 0) {
        int status = wi_jpeg_dc_decode(jpeg, length, (wi_dc_colours)colours, width, height, pixels, &state->dc_coefficients, stop);
        wi_buffer_trim(&state->dc_coefficients);
        if (status != WI_DC_NOT_TAKEN) {
            return status;
        }
    }
    if (dc_only) {
        return WI_DC_NOT_TAKEN;
    }
    switch (wi_jpeg_decode_rgba8(jpeg, length, 8, 0, width, height, pixels, stop, state->error, sizeof(state->error))) {
    case 0: return WI_DC_DONE;
    case WI_JPEG_STOPPED: return WI_DC_STOPPED;
    default: return WI_DC_FAILED;
    }
}

int wi_jpeg_dc_rgba8(const uint8_t *jpeg, size_t length, int width, int height, uint8_t *pixels) {
    return wi_jpeg_decode_eighth(jpeg, length, width, height, pixels, 1, NULL);
}

int wi_tj_thumbnail_rgba8(const void *jpeg, size_t length, int shrink, int scaled_width, int scaled_height,
                          int used_width, int used_height, uint8_t *pixels, int width, int height, int orientation,
                          int (*stop)(void)) {
    wi_thread_state *state = wi_thread_state_get();
    if (state == NULL) {
        return -1;
    }
    size_t size = (size_t)scaled_width * (size_t)scaled_height * 4;
    uint8_t *decoded = wi_buffer_reserve(&state->decoded, size);
    if (decoded == NULL) {
        return wi_tj_fail(state, NULL, "out of memory");
    }
    // At 1/8 libjpeg-turbo reads only each block's DC coefficient: a progressive file decodes
    // to the same pixels from its DC scans alone, which skips most of the entropy decoding.
    size_t dc_length = 0;
    uint8_t *dc_only = shrink == 8 ? wi_buffer_reserve(&state->dc_only, length + 2) : NULL;
    if (dc_only != NULL) {
        dc_length = wi_jpeg_dc_scans(jpeg, length, dc_only);
    }
    int eighth = dc_length > 0 ? wi_jpeg_decode_eighth(dc_only, dc_length, scaled_width, scaled_height, decoded, 0, stop) : WI_DC_NOT_TAKEN;
    wi_buffer_trim(&state->dc_only);
    // Anything the shortened file does not decode cleanly, the whole file decides; a stop ends it.
    int status = eighth == WI_DC_STOPPED ? WI_JPEG_STOPPED : 0;
    if (status == 0 && eighth != WI_DC_DONE) {
        status = wi_tj_decode_into(state, jpeg, length, shrink, scaled_width, scaled_height, decoded, stop);
    }
    if (status == 0 && (used_width > scaled_width || used_height > scaled_height ||
                        wi_resample_rgba8(decoded, used_width, used_height, (size_t)scaled_width * 4, pixels, width,
                                          height, orientation, 0) != 0)) {
        status = wi_tj_fail(state, NULL, "cannot resize");
    }
    if (status == WI_JPEG_STOPPED) {
        snprintf(state->error, sizeof(state->error), "%s", "stopped midway");
    }
    wi_buffer_trim(&state->decoded);
    return status;
}

int wi_tj_encode(const uint8_t *pixels, int width, int height, int bands, int quality, const uint8_t **jpeg,
                 size_t *length) {
    wi_thread_state *state = wi_thread_state_get();
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
    // tjAlloc takes an int: larger outputs (over a gigapixel) are refused, not truncated.
    if (bound == (unsigned long)-1 || bound > INT_MAX) {
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
    wi_thread_state *state = wi_thread_state_get();
    if (state != NULL && state->encoded_size > WI_KEEP_BYTES) {
        tjFree(state->encoded);
        state->encoded = NULL;
        state->encoded_size = 0;
    }
}
