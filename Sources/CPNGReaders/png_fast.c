// Our reader for the common whole PNG: 8-bit samples (grey, grey + alpha, RGB, RGBA, palette),
// not interlaced. libdeflate inflates the image data in one call (two to three times zlib's
// speed) and the rows are unfiltered with SSE2, a pixel at a time, two Paeth rows side by side
// (SSE4.1); libpng, as Debian builds it, unfilters a byte at a time (its Paeth filter alone was
// 15% of the CPU of a batch of thumbnails). It gives the samples libpng gives
// (wi_png_libpng_decode_rgba8). Anything else, or anything unusual (a checksum that does not match, a chunk out of order or unknown and
// critical, an odd tRNS, a palette index past the palette, image data that does not inflate to
// exactly the rows), is left to libpng, which gives the file's answer.

#include "CPNGReaders.h"
#include "CBitmapKernels.h"
#include "wi_scratch_buffer.h"

#include <glib.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

enum { WI_NOT_TAKEN = 1 };

static uint32_t wi_be32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

static int wi_is_chunk(const uint8_t *type, const char *name) {
    return memcmp(type, name, 4) == 0;
}

// What the chunks before the image data say, and where the image data is.
typedef struct {
    uint32_t width, height;
    int colour_type;
    int channels;
    // RGBA for each palette index; indices from `palette_count` on are past the palette.
    uint8_t palette[256 * 4];
    int palette_count;
    int has_transparency;
    // tRNS of grey (red only) and RGB images: the colour that is transparent.
    uint8_t key[3];
    size_t first_data;
    size_t data_chunks;
    size_t data_length;
} wi_png_layout;

// Walks every chunk to IEND, checking each checksum; 0, or WI_NOT_TAKEN for a file to leave
// to libpng.
static int wi_png_walk(const uint8_t *data, size_t length, wi_png_layout *layout) {
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (length < 8 || memcmp(data, signature, 8) != 0) {
        return WI_NOT_TAKEN;
    }
    // 0: no image data yet, 1: in the image data chunks, 2: after them.
    int data_state = 0;
    size_t at = 8;
    for (size_t index = 0;; index++) {
        if (length - at < 12) {
            return WI_NOT_TAKEN;
        }
        uint32_t size = wi_be32(data + at);
        if (size > 0x7FFFFFFF || size > length - at - 12) {
            return WI_NOT_TAKEN;
        }
        const uint8_t *type = data + at + 4;
        const uint8_t *body = type + 4;
        for (int letter = 0; letter < 4; letter++) {
            uint8_t upper = type[letter] & 0xDF;
            if (upper < 'A' || upper > 'Z') {
                return WI_NOT_TAKEN;
            }
        }
        if (libdeflate_crc32(0, type, (size_t)size + 4) != wi_be32(body + size)) {
            return WI_NOT_TAKEN;
        }
        int is_data = wi_is_chunk(type, "IDAT");
        if ((index == 0) != wi_is_chunk(type, "IHDR")) {
            return WI_NOT_TAKEN;
        }
        if (index == 0) {
            if (size != 13) {
                return WI_NOT_TAKEN;
            }
            layout->width = wi_be32(body);
            layout->height = wi_be32(body + 4);
            layout->colour_type = body[9];
            static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
            // 8-bit samples, a known colour type, deflate, adaptive filtering, not interlaced;
            // sides within libpng's default limit (PNG_USER_WIDTH_MAX, PNG_USER_HEIGHT_MAX).
            if (layout->width == 0 || layout->width > 1000000 || layout->height == 0 || layout->height > 1000000 ||
                body[8] != 8 || layout->colour_type > 6 || channels[layout->colour_type] == 0 || body[10] != 0 ||
                body[11] != 0 || body[12] != 0) {
                return WI_NOT_TAKEN;
            }
            layout->channels = channels[layout->colour_type];
        } else if (wi_is_chunk(type, "PLTE")) {
            if (layout->colour_type != 3 || layout->palette_count > 0 || data_state != 0 || size == 0 || size % 3 != 0 ||
                size / 3 > 256) {
                return WI_NOT_TAKEN;
            }
            layout->palette_count = (int)(size / 3);
            for (int entry = 0; entry < layout->palette_count; entry++) {
                memcpy(layout->palette + entry * 4, body + entry * 3, 3);
                layout->palette[entry * 4 + 3] = 0xFF;
            }
        } else if (wi_is_chunk(type, "tRNS")) {
            if (layout->has_transparency || data_state != 0) {
                return WI_NOT_TAKEN;
            }
            layout->has_transparency = 1;
            if (layout->colour_type == 3 && layout->palette_count > 0 && size > 0 && size <= (uint32_t)layout->palette_count) {
                for (uint32_t entry = 0; entry < size; entry++) {
                    layout->palette[entry * 4 + 3] = body[entry];
                }
            } else if ((layout->colour_type == 0 && size == 2) || (layout->colour_type == 2 && size == 6)) {
                // A 16-bit sample each: past 255, libpng's reading is its own (it masks).
                for (uint32_t sample = 0; sample < size / 2; sample++) {
                    if (body[sample * 2] != 0) {
                        return WI_NOT_TAKEN;
                    }
                    layout->key[sample] = body[sample * 2 + 1];
                }
            } else {
                return WI_NOT_TAKEN;
            }
        } else if (is_data) {
            if (data_state == 2 || (layout->colour_type == 3 && layout->palette_count == 0)) {
                return WI_NOT_TAKEN;
            }
            if (data_state == 0) {
                layout->first_data = at;
            }
            data_state = 1;
            layout->data_chunks++;
            layout->data_length += size;
        } else if (wi_is_chunk(type, "IEND")) {
            return size == 0 && data_state != 0 ? 0 : WI_NOT_TAKEN;
        } else if (wi_is_chunk(type, "acTL") || wi_is_chunk(type, "fcTL") || wi_is_chunk(type, "fdAT") ||
                   (type[0] & 0x20) == 0) {
            // An animation, or a critical chunk libpng would refuse.
            return WI_NOT_TAKEN;
        }
        if (!is_data && data_state == 1) {
            data_state = 2;
        }
        at += (size_t)size + 12;
    }
}

static inline uint8_t wi_paeth(int left, int above, int upper_left) {
    int distance_left = abs(above - upper_left);
    int distance_above = abs(left - upper_left);
    int distance_upper_left = abs(left + above - 2 * upper_left);
    if (distance_left <= distance_above && distance_left <= distance_upper_left) {
        return (uint8_t)left;
    }
    return (uint8_t)(distance_above <= distance_upper_left ? above : upper_left);
}

#if defined(__SSE2__)
// A pixel of 3 or 4 bytes as 16-bit lanes, and back.
static inline __m128i wi_load_pixel(const uint8_t *bytes, int size) {
    uint32_t value = 0;
    memcpy(&value, bytes, (size_t)size);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)value), _mm_setzero_si128());
}

static inline void wi_store_pixel(uint8_t *bytes, __m128i lanes, int size) {
    lanes = _mm_and_si128(lanes, _mm_set1_epi16(0xFF));
    uint32_t value = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(lanes, lanes));
    memcpy(bytes, &value, (size_t)size);
}

static inline __m128i wi_abs16(__m128i value) {
    return _mm_max_epi16(value, _mm_sub_epi16(_mm_setzero_si128(), value));
}

static inline __m128i wi_select(__m128i mask, __m128i when, __m128i otherwise) {
    return _mm_or_si128(_mm_and_si128(mask, when), _mm_andnot_si128(mask, otherwise));
}

// Sub (1), average (3) and Paeth (4) for pixels of 3 or 4 bytes: each pixel depends on the one
// to its left, so the lanes are a pixel's samples. Inlined into wi_unfilter_sse2 for each filter
// and size, so that a pixel's load and store are single moves, not calls to memcpy.
static inline __attribute__((always_inline)) void wi_unfilter_pixels(int filter, uint8_t *row, const uint8_t *prior,
                                                                    size_t length, int size) {
    __m128i left = _mm_setzero_si128();
    __m128i upper_left = _mm_setzero_si128();
    for (size_t at = 0; at < length; at += (size_t)size) {
        __m128i raw = wi_load_pixel(row + at, size);
        __m128i predicted;
        if (filter == 1) {
            predicted = left;
        } else {
            __m128i above = wi_load_pixel(prior + at, size);
            if (filter == 3) {
                predicted = _mm_srli_epi16(_mm_add_epi16(left, above), 1);
            } else {
                __m128i distance_left = wi_abs16(_mm_sub_epi16(above, upper_left));
                __m128i distance_above = wi_abs16(_mm_sub_epi16(left, upper_left));
                __m128i distance_upper_left =
                    wi_abs16(_mm_add_epi16(_mm_sub_epi16(above, upper_left), _mm_sub_epi16(left, upper_left)));
                __m128i smallest = _mm_min_epi16(distance_upper_left, _mm_min_epi16(distance_left, distance_above));
                predicted = wi_select(_mm_cmpeq_epi16(smallest, distance_left), left,
                                      wi_select(_mm_cmpeq_epi16(smallest, distance_above), above, upper_left));
            }
            upper_left = above;
        }
        left = _mm_and_si128(_mm_add_epi16(raw, predicted), _mm_set1_epi16(0xFF));
        wi_store_pixel(row + at, left, size);
    }
}

// The Paeth predictor on 16-bit lanes with the chain from `left` kept short (pabsw, pblendvb):
// `left` when pa <= pb and pa <= pc, else `above` when pb <= pc, else `upper_left` (as
// wi_paeth). pa and above - upper_left do not depend on `left`.
__attribute__((target("sse4.1"))) static inline __m128i wi_paeth_sse41(__m128i left, __m128i above, __m128i upper_left,
                                                                     __m128i pa, __m128i above_step) {
    __m128i left_step = _mm_sub_epi16(left, upper_left);
    __m128i pb = _mm_abs_epi16(left_step);
    __m128i pc = _mm_abs_epi16(_mm_add_epi16(left_step, above_step));
    __m128i not_left = _mm_cmpgt_epi16(pa, _mm_min_epi16(pb, pc));
    __m128i other = _mm_blendv_epi8(above, upper_left, _mm_cmpgt_epi16(pb, pc));
    return _mm_blendv_epi8(left, other, not_left);
}

// Two Paeth rows at once, `second` the row below `first`, `prior` the row above `first`. Each
// pixel depends on the one to its left, a chain of about ten operations a pixel: `second` runs
// one pixel behind `first`, whose pixels it reads as they are made, so that the two chains
// overlap. Same samples as wi_unfilter_pixels on each row in turn.
__attribute__((target("sse4.1"))) static inline __attribute__((always_inline)) void
wi_unpaeth_rows_sse41(uint8_t *first, uint8_t *second, const uint8_t *prior, size_t length, int size) {
    const __m128i mask = _mm_set1_epi16(0xFF);
    __m128i left_a = _mm_setzero_si128(), upper_left_a = _mm_setzero_si128();
    __m128i left_b = _mm_setzero_si128(), upper_left_b = _mm_setzero_si128();
    for (size_t at = 0; at < length; at += (size_t)size) {
        __m128i above_a = wi_load_pixel(prior + at, size);
        __m128i step_a = _mm_sub_epi16(above_a, upper_left_a);
        __m128i predicted_a = wi_paeth_sse41(left_a, above_a, upper_left_a, _mm_abs_epi16(step_a), step_a);
        __m128i made_a = _mm_and_si128(_mm_add_epi16(wi_load_pixel(first + at, size), predicted_a), mask);
        wi_store_pixel(first + at, made_a, size);
        upper_left_a = above_a;
        if (at > 0) {
            // `second`'s pixel to the left of this one: above it is `first`'s previous pixel.
            __m128i step_b = _mm_sub_epi16(left_a, upper_left_b);
            __m128i predicted_b = wi_paeth_sse41(left_b, left_a, upper_left_b, _mm_abs_epi16(step_b), step_b);
            uint8_t *pixel = second + at - (size_t)size;
            left_b = _mm_and_si128(_mm_add_epi16(wi_load_pixel(pixel, size), predicted_b), mask);
            wi_store_pixel(pixel, left_b, size);
            upper_left_b = left_a;
        }
        left_a = made_a;
    }
    __m128i step_b = _mm_sub_epi16(left_a, upper_left_b);
    __m128i predicted_b = wi_paeth_sse41(left_b, left_a, upper_left_b, _mm_abs_epi16(step_b), step_b);
    uint8_t *pixel = second + length - (size_t)size;
    wi_store_pixel(pixel, _mm_and_si128(_mm_add_epi16(wi_load_pixel(pixel, size), predicted_b), mask), size);
}

__attribute__((target("sse4.1"))) static void wi_unpaeth_rows(uint8_t *first, uint8_t *second, const uint8_t *prior,
                                                             size_t length, int size) {
    if (size == 3) {
        wi_unpaeth_rows_sse41(first, second, prior, length, 3);
    } else {
        wi_unpaeth_rows_sse41(first, second, prior, length, 4);
    }
}

static void wi_unfilter_sse2(int filter, uint8_t *row, const uint8_t *prior, size_t length, int size) {
#define WI_UNFILTER(filter_value, size_value)                                                                       \
    if (filter == filter_value && size == size_value) {                                                            \
        wi_unfilter_pixels(filter_value, row, prior, length, size_value);                                          \
        return;                                                                                                    \
    }
    WI_UNFILTER(1, 3)
    WI_UNFILTER(3, 3)
    WI_UNFILTER(4, 3)
    WI_UNFILTER(1, 4)
    WI_UNFILTER(3, 4)
    WI_UNFILTER(4, 4)
#undef WI_UNFILTER
}
#endif

// Undoes row filter `filter` in place; `prior` is the row above, unfiltered (zeros for the
// first). 0, or WI_NOT_TAKEN for an unknown filter.
static int wi_unfilter(int filter, uint8_t *row, const uint8_t *prior, size_t length, int size) {
    switch (filter) {
    case 0:
        return 0;
    case 2:
        for (size_t at = 0; at < length; at++) {
            row[at] = (uint8_t)(row[at] + prior[at]);
        }
        return 0;
    case 1:
    case 3:
    case 4:
        break;
    default:
        return WI_NOT_TAKEN;
    }
#if defined(__SSE2__)
    if (size >= 3) {
        wi_unfilter_sse2(filter, row, prior, length, size);
        return 0;
    }
#endif
    // The first pixel has nothing to its left: Paeth then predicts from above, as does average
    // (halved), and sub adds nothing.
    size_t first = (size_t)size < length ? (size_t)size : length;
    for (size_t at = 0; at < first; at++) {
        row[at] = (uint8_t)(row[at] + (filter == 1 ? 0 : filter == 3 ? prior[at] >> 1 : prior[at]));
    }
    if (filter == 1) {
        for (size_t at = first; at < length; at++) {
            row[at] = (uint8_t)(row[at] + row[at - (size_t)size]);
        }
    } else if (filter == 3) {
        for (size_t at = first; at < length; at++) {
            row[at] = (uint8_t)(row[at] + ((row[at - (size_t)size] + prior[at]) >> 1));
        }
    } else {
        for (size_t at = first; at < length; at++) {
            row[at] = (uint8_t)(row[at] + wi_paeth(row[at - (size_t)size], prior[at], prior[at - (size_t)size]));
        }
    }
    return 0;
}

// One unfiltered row as RGBA, as libpng expands it (palette and grey expanded, tRNS made
// alpha, alpha 255 otherwise); WI_NOT_TAKEN for a palette index past the palette.
static int wi_expand_row(const wi_png_layout *layout, const uint8_t *row, uint8_t *out) {
    uint32_t width = layout->width;
    const uint8_t *key = layout->key;
    int keyed = layout->has_transparency;
    switch (layout->colour_type) {
    case 0:
        for (uint32_t x = 0; x < width; x++, out += 4) {
            out[0] = out[1] = out[2] = row[x];
            out[3] = keyed && row[x] == key[0] ? 0 : 0xFF;
        }
        return 0;
    case 2:
        for (uint32_t x = 0; x < width; x++, row += 3, out += 4) {
            memcpy(out, row, 3);
            out[3] = keyed && row[0] == key[0] && row[1] == key[1] && row[2] == key[2] ? 0 : 0xFF;
        }
        return 0;
    case 3:
        for (uint32_t x = 0; x < width; x++, out += 4) {
            if (row[x] >= layout->palette_count) {
                return WI_NOT_TAKEN;
            }
            memcpy(out, layout->palette + row[x] * 4, 4);
        }
        return 0;
    case 4:
        for (uint32_t x = 0; x < width; x++, row += 2, out += 4) {
            out[0] = out[1] = out[2] = row[0];
            out[3] = row[1];
        }
        return 0;
    default:
        memcpy(out, row, (size_t)width * 4);
        return 0;
    }
}

// The image data joined from its chunks and the inflated rows, kept by each thread between
// files (wi_scratch_buffer.h): allocated afresh, the two cost a megapixel RGB file a quarter of
// its decode in page faults. Freed when the thread ends.
typedef struct {
    wi_buffer joined;
    wi_buffer rows;
    wi_buffer decoded;  // a thumbnail's whole bitmap, on its way to the resampler
} wi_png_scratch;

static pthread_key_t wi_png_scratch_key;
static pthread_once_t wi_png_scratch_once = PTHREAD_ONCE_INIT;

static void wi_png_scratch_free(void *value) {
    wi_png_scratch *scratch = value;
    free(scratch->joined.bytes);
    free(scratch->rows.bytes);
    free(scratch->decoded.bytes);
    free(scratch);
}

static void wi_png_scratch_make_key(void) {
    pthread_key_create(&wi_png_scratch_key, wi_png_scratch_free);
}

static wi_png_scratch *wi_png_scratch_get(void) {
    return wi_thread_value(&wi_png_scratch_key, &wi_png_scratch_once, wi_png_scratch_make_key, sizeof(wi_png_scratch));
}

// Inflates and unfilters the image data, then expands it into `out` (width * height * 4).
static int wi_png_pixels(const uint8_t *data, const wi_png_layout *layout, uint8_t *out) {
    size_t stride = (size_t)layout->width * (size_t)layout->channels;
    size_t rows_length = (stride + 1) * layout->height;
    wi_png_scratch *scratch = wi_png_scratch_get();
    if (scratch == NULL) {
        return WI_NOT_TAKEN;
    }
    // One chunk of image data is read where it is; several are joined first.
    const uint8_t *compressed = data + layout->first_data + 8;
    if (layout->data_chunks > 1) {
        uint8_t *joined = wi_buffer_reserve(&scratch->joined, layout->data_length > 0 ? layout->data_length : 1);
        if (joined == NULL) {
            return WI_NOT_TAKEN;
        }
        size_t at = layout->first_data;
        for (size_t chunk = 0, filled = 0; chunk < layout->data_chunks; chunk++) {
            uint32_t size = wi_be32(data + at);
            memcpy(joined + filled, data + at + 8, size);
            filled += size;
            at += (size_t)size + 12;
        }
        compressed = joined;
    }
    uint8_t *rows = wi_buffer_reserve(&scratch->rows, rows_length);
    uint8_t *zeros = g_try_malloc0(stride);
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    int status = WI_NOT_TAKEN;
    // Exactly the rows: a stream that inflates to more or less is libpng's to judge.
    if (rows != NULL && zeros != NULL && decompressor != NULL &&
        libdeflate_zlib_decompress(decompressor, compressed, layout->data_length, rows, rows_length, NULL) ==
            LIBDEFLATE_SUCCESS) {
        status = 0;
        const uint8_t *prior = zeros;
#if defined(__SSE2__)
        int paeth_pairs = layout->channels >= 3 && stride >= (size_t)layout->channels && __builtin_cpu_supports("sse4.1");
#endif
        for (uint32_t y = 0; y < layout->height && status == 0; y++) {
            uint8_t *row = rows + (stride + 1) * y;
#if defined(__SSE2__)
            // Two Paeth rows in a row (most of a photo's): unfiltered together, then expanded.
            uint8_t *next = row + stride + 1;
            if (paeth_pairs && y + 1 < layout->height && row[0] == 4 && next[0] == 4) {
                wi_unpaeth_rows(row + 1, next + 1, prior, stride, layout->channels);
                status = wi_expand_row(layout, row + 1, out + (size_t)layout->width * 4 * y);
                if (status == 0) {
                    status = wi_expand_row(layout, next + 1, out + (size_t)layout->width * 4 * (y + 1));
                }
                prior = next + 1;
                y++;
                continue;
            }
#endif
            status = wi_unfilter(row[0], row + 1, prior, stride, layout->channels);
            if (status == 0) {
                status = wi_expand_row(layout, row + 1, out + (size_t)layout->width * 4 * y);
            }
            prior = row + 1;
        }
    }
    libdeflate_free_decompressor(decompressor);
    g_free(zeros);
    wi_buffer_trim(&scratch->rows);
    wi_buffer_trim(&scratch->joined);
    return status;
}

// The file's layout and the bytes of its RGBA bitmap; the refusals of wi_png_fast_decode_rgba8.
static int wi_png_fast_layout(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, wi_png_layout *layout,
                              size_t *out_length) {
    memset(layout, 0, sizeof(*layout));
    if (data == NULL || wi_png_walk(data, length, layout) != 0) {
        return WI_NOT_TAKEN;
    }
    // libpng's reader refuses the same files, for the same reasons (CPNGReaders.h).
    if (!allow_alpha && ((layout->colour_type & 4) != 0 || layout->has_transparency)) {
        return -2;
    }
    if ((uint64_t)layout->width * layout->height > max_pixels) {
        return -3;
    }
    size_t rows_length = 0;
    // The sizes must fit (a caller's limit may be past what memory can address).
    if (__builtin_mul_overflow((size_t)layout->width * layout->height, (size_t)4, out_length) ||
        __builtin_mul_overflow((size_t)layout->width * (size_t)layout->channels + 1, (size_t)layout->height, &rows_length)) {
        return WI_NOT_TAKEN;
    }
    return 0;
}

int wi_png_thumbnail_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t *out,
                           int width, int height, int orientation, int premultiply) {
    wi_png_layout layout;
    size_t out_length = 0;
    int status = wi_png_fast_layout(data, length, max_pixels, allow_alpha, &layout, &out_length);
    wi_png_scratch *scratch = status == 0 ? wi_png_scratch_get() : NULL;
    uint8_t *decoded = scratch != NULL ? wi_buffer_reserve(&scratch->decoded, out_length) : NULL;
    if (decoded != NULL && wi_png_pixels(data, &layout, decoded) == 0) {
        status = wi_resample_rgba8(decoded, (int)layout.width, (int)layout.height, (size_t)layout.width * 4, out, width,
                                   height, orientation, premultiply) != 0 ? -4 : 0;
        wi_buffer_trim(&scratch->decoded);
        return status;
    }
    if (scratch != NULL) {
        wi_buffer_trim(&scratch->decoded);
    }
    if (status == -2 || status == -3) {
        return status;
    }
    // Left to libpng's reader, whose bitmap is its own.
    uint8_t *pixels = NULL;
    uint32_t decoded_width = 0;
    uint32_t decoded_height = 0;
    status = wi_png_libpng_decode_rgba8(data, length, max_pixels, allow_alpha, &pixels, &decoded_width, &decoded_height);
    if (status == 0) {
        status = wi_resample_rgba8(pixels, (int)decoded_width, (int)decoded_height, (size_t)decoded_width * 4, out, width,
                                   height, orientation, premultiply) != 0 ? -4 : 0;
    }
    g_free(pixels);
    return status;
}

int wi_png_fast_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                             uint32_t *width, uint32_t *height) {
    *pixels = NULL;
    wi_png_layout layout;
    size_t out_length = 0;
    int status = wi_png_fast_layout(data, length, max_pixels, allow_alpha, &layout, &out_length);
    if (status != 0) {
        return status;
    }
    uint8_t *out = g_try_malloc(out_length);
    if (out == NULL) {
        return WI_NOT_TAKEN;
    }
    if (wi_png_pixels(data, &layout, out) != 0) {
        g_free(out);
        return WI_NOT_TAKEN;
    }
    *pixels = out;
    *width = layout.width;
    *height = layout.height;
    return 0;
}
