// Resampling and orientation of small bitmaps held whole in memory.
//
// libvips 8.14 pays a fixed cost per pipeline and resizes horizontally with scalar code (about
// 30 ns an input pixel here): a 640x427 photo takes 3-5 ms to resize, more than it takes to
// decode. These functions do the same work on images up to a few megapixels in well under a
// millisecond, for the TurboJPEG and libpng engines. Larger images stay with libvips, which
// streams them.

#include "CBitmapKernels.h"
#include "resample_scratch.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// MARK: - Stops

static _Atomic(int (*)(void)) wi_kernels_stop;

void wi_kernels_set_stop(int (*stop)(void)) {
    atomic_store(&wi_kernels_stop, stop);
}

// Every this many rows of work, the kernels ask whether to stop: a row of a 10,000-pixel-wide
// bitmap takes tens of microseconds, a poll well under one.
enum { WI_ROWS_BETWEEN_POLLS = 8 };

// Nonzero when the work must stop.
static int wi_kernels_poll(void) {
    int (*stop)(void) = atomic_load(&wi_kernels_stop);
    return stop != NULL && stop();
}

// wi_kernels_poll every WI_ROWS_BETWEEN_POLLS rows (`row` counts them).
static int wi_kernels_should_stop(int row) {
    return row % WI_ROWS_BETWEEN_POLLS == WI_ROWS_BETWEEN_POLLS - 1 && wi_kernels_poll();
}

// MARK: - Lanczos-3 resampling

enum {
    WI_WEIGHT_BITS = 14,       // fixed-point weights: sum 1 << 14, 8-bit samples, int32 sums
    WI_KERNEL_STEPS = 1024,    // kernel table resolution per unit
    // The vertical pass' rows are int16 with this many fractional bits, unclipped: Lanczos
    // overshoot (and its rounding) clipped between the passes shifted results by up to 11
    // levels from a resize in floating point (libvips' on a lazy image).
    WI_ROW_FRACTION_BITS = 4,
    WI_ROW_SLACK = 32,         // readable bytes after the vertical pass' rows (SSE reads past)
};

// lanczos3(x) for x in [0, 3] at 1/WI_KERNEL_STEPS steps: built once, read by every thread.
static float wi_lanczos3_table[3 * WI_KERNEL_STEPS + 2];

static void wi_fill_lanczos3_table(void) {
    for (int i = 0; i <= 3 * WI_KERNEL_STEPS + 1; i++) {
        double x = (double)i / WI_KERNEL_STEPS;
        double px = M_PI * x;
        wi_lanczos3_table[i] = i == 0 ? 1.0f : x >= 3 ? 0.0f : (float)(3 * sin(px) * sin(px / 3) / (px * px));
    }
}

static double wi_lanczos3(double x) {
    x = fabs(x) * WI_KERNEL_STEPS;
    if (x >= 3 * WI_KERNEL_STEPS) {
        return 0;
    }
    int index = (int)x;
    double fraction = x - index;
    return wi_lanczos3_table[index] + (wi_lanczos3_table[index + 1] - wi_lanczos3_table[index]) * fraction;
}

// The taps of every output sample along one axis: output i reads `count[i]` inputs from
// `first[i]` with `weights[i * stride ...]`, which sum to 1 << WI_WEIGHT_BITS. The stride is a
// multiple of 4 above every count, and the weights past a count are 0: SIMD passes read taps
// in groups.
typedef struct {
    int *first;
    int *count;
    int16_t *weights;
    int stride;
} wi_axis;

static void wi_axis_free(wi_axis *axis) {
    free(axis->first);
    free(axis->count);
    free(axis->weights);
}

// Lanczos-3 taps to `out` samples from `in` at `scale` input samples per output sample,
// centres at (i + 0.5) * scale - 0.5 as in libvips' reduce, the kernel widened by the scale
// when it is above 1; taps past an edge count as the edge sample (libvips extends edges by
// copying).
static int wi_axis_make(wi_axis *axis, int in, int out, double scale) {
    // pthread's once, not GLib's: ThreadSanitizer sees it (GLib's locks are futex calls it does not).
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, wi_fill_lanczos3_table);
    double widen = scale > 1 ? scale : 1;
    double support = 3 * widen;
    int taps = (int)ceil(support) * 2 + 1;
    int stride = (taps + 4) & ~3;
    axis->stride = stride;
    axis->first = malloc(sizeof(int) * (size_t)out);
    axis->count = malloc(sizeof(int) * (size_t)out);
    axis->weights = calloc((size_t)out * (size_t)stride, sizeof(int16_t));
    double *weights = malloc(sizeof(double) * (size_t)stride);
    if (axis->first == NULL || axis->count == NULL || axis->weights == NULL || weights == NULL) {
        free(weights);
        wi_axis_free(axis);
        return -1;
    }
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale - 0.5;
        int low = (int)floor(centre - support) + 1;
        int high = (int)ceil(centre + support) - 1;
        if (high - low + 1 > taps) {
            high = low + taps - 1;
        }
        int first = low < 0 ? 0 : low;
        int last = high > in - 1 ? in - 1 : high;
        int count = last - first + 1;
        memset(weights, 0, sizeof(double) * (size_t)stride);
        double sum = 0;
        for (int i = low; i <= high; i++) {
            double weight = wi_lanczos3((i - centre) / widen);
            int at = i < first ? first : i > last ? last : i;
            weights[at - first] += weight;
            sum += weight;
        }
        // Rounded to fixed point, the largest tap absorbing the rounding so the sum is exact:
        // flat areas stay flat.
        int16_t *fixed = axis->weights + (size_t)o * (size_t)stride;
        int total = 0;
        int largest = 0;
        for (int k = 0; k < count; k++) {
            fixed[k] = (int16_t)lrint(weights[k] / sum * (1 << WI_WEIGHT_BITS));
            total += fixed[k];
            if (fixed[k] > fixed[largest]) {
                largest = k;
            }
        }
        fixed[largest] = (int16_t)(fixed[largest] + (1 << WI_WEIGHT_BITS) - total);
        axis->first[o] = first;
        axis->count[o] = count;
    }
    free(weights);
    return 0;
}

// A vertical-pass sum as a row sample: WI_ROW_FRACTION_BITS fractional bits, rounded.
static inline int16_t wi_fixed_to_row(int32_t sum) {
    sum = (sum + (1 << (WI_WEIGHT_BITS - WI_ROW_FRACTION_BITS - 1))) >> (WI_WEIGHT_BITS - WI_ROW_FRACTION_BITS);
    return (int16_t)(sum < INT16_MIN ? INT16_MIN : sum > INT16_MAX ? INT16_MAX : sum);
}

enum { WI_SUM_BITS = WI_WEIGHT_BITS + WI_ROW_FRACTION_BITS };  // fractional bits of a horizontal-pass sum

// One output pixel from its four horizontal-pass sums: rounded and limited; with
// `premultiplied`, the colours divided by the alpha before either is limited (Lanczos
// overshoots the alpha at hard edges too: limiting it first brightened those pixels).
static inline void wi_store_pixel(const int32_t sums[4], int premultiplied, uint8_t *out) {
    for (int band = 0; band < 4; band++) {
        int32_t value = (sums[band] + (1 << (WI_SUM_BITS - 1))) >> WI_SUM_BITS;
        out[band] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
    if (premultiplied) {
        float scale = sums[3] > 0 ? 255.0f / (float)sums[3] : 0.0f;
        for (int band = 0; band < 3; band++) {
            float value = (float)sums[band] * scale + 0.5f;
            out[band] = (uint8_t)(value < 0.0f ? 0.0f : value > 255.0f ? 255.0f : value);
        }
    }
}

// Where output pixel (x, y) of a `width` x `height` bitmap goes when turned upright from EXIF
// `orientation`: at origin + x * step_x + y * step_y pixels into the upright bitmap.
typedef struct {
    ptrdiff_t origin;
    ptrdiff_t step_x;
    ptrdiff_t step_y;
} wi_placement;

static wi_placement wi_placement_for(int orientation, int width, int height) {
    ptrdiff_t w = width;
    ptrdiff_t h = height;
    switch (orientation) {
    case 2: return (wi_placement){w - 1, -1, w};
    case 3: return (wi_placement){(h - 1) * w + w - 1, -1, -w};
    case 4: return (wi_placement){(h - 1) * w, 1, -w};
    case 5: return (wi_placement){0, h, 1};
    case 6: return (wi_placement){h - 1, h, -1};
    case 7: return (wi_placement){(w - 1) * h + h - 1, -h, -1};
    case 8: return (wi_placement){(w - 1) * h, -h, 1};
    default: return (wi_placement){0, 1, w};
    }
}

// Each output row: a weighted sum of whole input rows (a loop compilers vectorise).
// Output rows `top` to `bottom` (exclusive) into `dst` from `src`, whose first row is input row
// `first_row`.
static void wi_resample_rows(const uint8_t *src, int first_row, size_t src_stride, size_t row_samples, const wi_axis *axis,
                             int top, int bottom, int32_t *restrict sums, int16_t *restrict dst) {
    for (int y = top; y < bottom; y++) {
        const int16_t *weights = axis->weights + (size_t)y * (size_t)axis->stride;
        const uint8_t *line = src + (size_t)(axis->first[y] - first_row) * src_stride;
        int32_t weight = weights[0];
        for (size_t j = 0; j < row_samples; j++) {
            sums[j] = weight * line[j];
        }
        for (int k = 1; k < axis->count[y]; k++) {
            line += src_stride;
            weight = weights[k];
            for (size_t j = 0; j < row_samples; j++) {
                sums[j] += weight * line[j];
            }
        }
        int16_t *out = dst + (size_t)(y - top) * row_samples;
        for (size_t j = 0; j < row_samples; j++) {
            out[j] = wi_fixed_to_row(sums[j]);
        }
    }
}

// Each output pixel of each row: a weighted sum of neighbouring 4-sample pixels, stored where
// `place` puts it.
static void wi_resample_columns(const int16_t *src, int rows, int row_pixels, int first_column, const wi_axis *axis,
                                int left, int right, wi_placement place, int premultiplied, uint8_t *restrict dst) {
    for (int y = 0; y < rows; y++) {
        const int16_t *line = src + (size_t)y * (size_t)row_pixels * 4;
        for (int x = left; x < right; x++) {
            const int16_t *weights = axis->weights + (size_t)x * (size_t)axis->stride;
            const int16_t *pixel = line + (size_t)(axis->first[x] - first_column) * 4;
            int32_t sums[4] = {0, 0, 0, 0};
            for (int k = 0; k < axis->count[x]; k++) {
                for (int band = 0; band < 4; band++) {
                    sums[band] += weights[k] * pixel[4 * k + band];
                }
            }
            wi_store_pixel(sums, premultiplied, dst + (place.origin + (x - left) * place.step_x + y * place.step_y) * 4);
        }
    }
}

#if defined(__x86_64__)
// Two weights side by side in each 32-bit lane: the second operand of pmaddwd.
__attribute__((target("sse4.1")))
static inline __m128i wi_weight_pair(int16_t first, int16_t second) {
    return _mm_set1_epi32((int)((uint16_t)first | ((uint32_t)(uint16_t)second << 16)));
}
#endif

#if defined(__x86_64__)
// wi_resample_rows two taps per multiply-add: the samples of two input rows are interleaved
// (a0 b0 a1 b1 ...) and multiplied by the weight pair with pmaddwd. 16 samples at a time go
// through every tap with their sums held in registers.
__attribute__((target("sse4.1")))
// Samples from `from` (a multiple of 16) to the end of each row.
static void wi_resample_rows_sse41(const uint8_t *src, int first_row, size_t src_stride, size_t row_samples,
                                   const wi_axis *axis, int top, int bottom, size_t from, __m128i *restrict pairs,
                                   int16_t *restrict dst) {
    const int shift = WI_WEIGHT_BITS - WI_ROW_FRACTION_BITS;
    const __m128i half = _mm_set1_epi32(1 << (shift - 1));
    size_t vector_samples = row_samples & ~(size_t)15;
    for (int y = top; y < bottom; y++) {
        const int16_t *weights = axis->weights + (size_t)y * (size_t)axis->stride;
        const uint8_t *first = src + (size_t)(axis->first[y] - first_row) * src_stride;
        int count = axis->count[y];
        // An odd last tap pairs with a zero weight (the padding after the row's taps) and reads
        // its own row again.
        int pair_count = (count + 1) / 2;
        for (int p = 0; p < pair_count; p++) {
            pairs[p] = wi_weight_pair(weights[2 * p], weights[2 * p + 1]);
        }
        size_t last_offset = (size_t)(count - 1) * src_stride;
        for (size_t j = from; j < vector_samples; j += 16) {
            __m128i s0 = half, s1 = half, s2 = half, s3 = half;
            for (int p = 0; p < pair_count; p++) {
                size_t offset = (size_t)(2 * p) * src_stride;
                const uint8_t *a = first + offset + j;
                const uint8_t *b = first + (offset + src_stride <= last_offset ? offset + src_stride : offset) + j;
                __m128i va = _mm_loadu_si128((const __m128i *)a);
                __m128i vb = _mm_loadu_si128((const __m128i *)b);
                __m128i low = _mm_unpacklo_epi8(va, vb);
                __m128i high = _mm_unpackhi_epi8(va, vb);
                s0 = _mm_add_epi32(s0, _mm_madd_epi16(_mm_cvtepu8_epi16(low), pairs[p]));
                s1 = _mm_add_epi32(s1, _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(low, 8)), pairs[p]));
                s2 = _mm_add_epi32(s2, _mm_madd_epi16(_mm_cvtepu8_epi16(high), pairs[p]));
                s3 = _mm_add_epi32(s3, _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(high, 8)), pairs[p]));
            }
            int16_t *out = dst + (size_t)(y - top) * row_samples + j;
            _mm_storeu_si128((__m128i *)out, _mm_packs_epi32(_mm_srai_epi32(s0, shift), _mm_srai_epi32(s1, shift)));
            _mm_storeu_si128((__m128i *)(out + 8), _mm_packs_epi32(_mm_srai_epi32(s2, shift), _mm_srai_epi32(s3, shift)));
        }
        // The rest of the row (under 16 samples), one sample at a time.
        int16_t *out = dst + (size_t)(y - top) * row_samples;
        for (size_t j = vector_samples; j < row_samples; j++) {
            int32_t sum = 0;
            for (int k = 0; k < count; k++) {
                sum += weights[k] * first[(size_t)k * src_stride + j];
            }
            out[j] = wi_fixed_to_row(sum);
        }
    }
}
#endif

#if defined(__x86_64__)
// wi_resample_rows_sse41 on 32 samples at a time (vpmaddwd on 16 pairs), the rest of each row
// (under 32 samples) left to it: the same sums.
__attribute__((target("avx2")))
static void wi_resample_rows_avx2(const uint8_t *src, int first_row, size_t src_stride, size_t row_samples,
                                  const wi_axis *axis, int top, int bottom, __m128i *restrict pairs,
                                  int16_t *restrict dst) {
    const int shift = WI_WEIGHT_BITS - WI_ROW_FRACTION_BITS;
    const __m256i half = _mm256_set1_epi32(1 << (shift - 1));
    const __m256i zero = _mm256_setzero_si256();
    size_t vector_samples = row_samples & ~(size_t)31;
    for (int y = top; y < bottom; y++) {
        const int16_t *weights = axis->weights + (size_t)y * (size_t)axis->stride;
        const uint8_t *first = src + (size_t)(axis->first[y] - first_row) * src_stride;
        int count = axis->count[y];
        int pair_count = (count + 1) / 2;
        for (int p = 0; p < pair_count; p++) {
            pairs[p] = wi_weight_pair(weights[2 * p], weights[2 * p + 1]);
        }
        size_t last_offset = (size_t)(count - 1) * src_stride;
        for (size_t j = 0; j < vector_samples; j += 32) {
            __m256i s0 = half, s1 = half, s2 = half, s3 = half;
            for (int p = 0; p < pair_count; p++) {
                size_t offset = (size_t)(2 * p) * src_stride;
                const uint8_t *a = first + offset + j;
                const uint8_t *b = first + (offset + src_stride <= last_offset ? offset + src_stride : offset) + j;
                __m256i weight = _mm256_broadcastd_epi32(pairs[p]);
                __m256i va = _mm256_loadu_si256((const __m256i *)a);
                __m256i vb = _mm256_loadu_si256((const __m256i *)b);
                // Per 128-bit lane: samples 0-7 of the lane's 16 interleaved, then 8-15.
                __m256i low = _mm256_unpacklo_epi8(va, vb);
                __m256i high = _mm256_unpackhi_epi8(va, vb);
                s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi8(low, zero), weight));
                s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi8(low, zero), weight));
                s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_unpacklo_epi8(high, zero), weight));
                s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_unpackhi_epi8(high, zero), weight));
            }
            // s0: samples 0-3 | 16-19, s1: 4-7 | 20-23, s2: 8-11 | 24-27, s3: 12-15 | 28-31.
            __m256i low_half = _mm256_packs_epi32(_mm256_srai_epi32(s0, shift), _mm256_srai_epi32(s1, shift));
            __m256i high_half = _mm256_packs_epi32(_mm256_srai_epi32(s2, shift), _mm256_srai_epi32(s3, shift));
            int16_t *out = dst + (size_t)(y - top) * row_samples + j;
            _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(low_half, high_half, 0x20));
            _mm256_storeu_si256((__m256i *)(out + 16), _mm256_permute2x128_si256(low_half, high_half, 0x31));
        }
    }
    wi_resample_rows_sse41(src, first_row, src_stride, row_samples, axis, top, bottom, vector_samples, pairs, dst);
}
#endif

#if defined(__x86_64__)
// wi_resample_columns two taps per multiply-add: the samples of a pixel pair are interleaved
// (r0 r1 g0 g1 ...) and multiplied by the weight pair with pmaddwd, four taps a step, on two
// rows at once (which share the weights). The taps run to a multiple of four (the axis'
// padding weights are 0, and the rows end in WI_ROW_SLACK readable bytes).
__attribute__((target("sse4.1")))
static inline __m128i wi_two_taps(const int16_t *pixels, __m128i weights) {
    const __m128i pairs = _mm_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    return _mm_madd_epi16(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)pixels), pairs), weights);
}

__attribute__((target("sse4.1")))
static inline __m128i wi_four_taps(const int16_t *pixels, __m128i w01, __m128i w23) {
    return _mm_add_epi32(wi_two_taps(pixels, w01), wi_two_taps(pixels + 8, w23));
}

__attribute__((target("sse4.1")))
static inline void wi_store_sums(__m128i sums, int premultiplied, uint8_t *out) {
    if (premultiplied) {
        int32_t values[4];
        _mm_storeu_si128((__m128i *)values, sums);
        wi_store_pixel(values, 1, out);
        return;
    }
    sums = _mm_srai_epi32(_mm_add_epi32(sums, _mm_set1_epi32(1 << (WI_SUM_BITS - 1))), WI_SUM_BITS);
    int32_t value = _mm_cvtsi128_si32(_mm_packus_epi16(_mm_packs_epi32(sums, sums), sums));
    memcpy(out, &value, 4);
}

__attribute__((target("sse4.1")))
static void wi_resample_columns_sse41(const int16_t *src, int rows, int row_pixels, int first_column,
                                      const wi_axis *axis, int left, int right, wi_placement place, int premultiplied,
                                      uint8_t *restrict dst) {
    size_t line_samples = (size_t)row_pixels * 4;
    for (int y = 0; y < rows; y += 2) {
        // An odd last row is computed twice and stored once.
        int pair = y + 1 < rows;
        const int16_t *line0 = src + (size_t)y * line_samples;
        const int16_t *line1 = pair ? line0 + line_samples : line0;
        for (int x = left; x < right; x++) {
            const int16_t *w = axis->weights + (size_t)x * (size_t)axis->stride;
            size_t first = (size_t)(axis->first[x] - first_column) * 4;
            int count = axis->count[x];
            __m128i sums0 = _mm_setzero_si128();
            __m128i sums1 = _mm_setzero_si128();
            for (int k = 0; k < count; k += 4) {
                __m128i weights = _mm_loadl_epi64((const __m128i *)(w + k));
                __m128i w01 = _mm_shuffle_epi32(weights, 0x00);
                __m128i w23 = _mm_shuffle_epi32(weights, 0x55);
                sums0 = _mm_add_epi32(sums0, wi_four_taps(line0 + first + 4 * (size_t)k, w01, w23));
                sums1 = _mm_add_epi32(sums1, wi_four_taps(line1 + first + 4 * (size_t)k, w01, w23));
            }
            ptrdiff_t at = place.origin + (x - left) * place.step_x;
            wi_store_sums(sums0, premultiplied, dst + (at + y * place.step_y) * 4);
            if (pair) {
                wi_store_sums(sums1, premultiplied, dst + (at + (y + 1) * place.step_y) * 4);
            }
        }
    }
}
#endif

#if defined(__x86_64__)
// wi_resample_columns_sse41 with four taps a multiply-add: four pixels loaded at once, the
// first two taps in the low 128-bit lane and the next two in the high one, the lanes added at
// the end. The same sums.
__attribute__((target("avx2")))
static void wi_resample_columns_avx2(const int16_t *src, int rows, int row_pixels, int first_column,
                                     const wi_axis *axis, int left, int right, wi_placement place, int premultiplied,
                                     uint8_t *restrict dst) {
    const __m256i pairs = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                           0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m256i spread = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    size_t line_samples = (size_t)row_pixels * 4;
    for (int y = 0; y < rows; y += 2) {
        // An odd last row is computed twice and stored once.
        int pair = y + 1 < rows;
        const int16_t *line0 = src + (size_t)y * line_samples;
        const int16_t *line1 = pair ? line0 + line_samples : line0;
        for (int x = left; x < right; x++) {
            const int16_t *w = axis->weights + (size_t)x * (size_t)axis->stride;
            size_t first = (size_t)(axis->first[x] - first_column) * 4;
            int count = axis->count[x];
            __m256i sums0 = _mm256_setzero_si256();
            __m256i sums1 = _mm256_setzero_si256();
            for (int k = 0; k < count; k += 4) {
                __m256i weights = _mm256_permutevar8x32_epi32(_mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)(w + k))), spread);
                __m256i pixels0 = _mm256_loadu_si256((const __m256i *)(line0 + first + 4 * (size_t)k));
                __m256i pixels1 = _mm256_loadu_si256((const __m256i *)(line1 + first + 4 * (size_t)k));
                sums0 = _mm256_add_epi32(sums0, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels0, pairs), weights));
                sums1 = _mm256_add_epi32(sums1, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels1, pairs), weights));
            }
            ptrdiff_t at = place.origin + (x - left) * place.step_x;
            __m128i total0 = _mm_add_epi32(_mm256_castsi256_si128(sums0), _mm256_extracti128_si256(sums0, 1));
            wi_store_sums(total0, premultiplied, dst + (at + y * place.step_y) * 4);
            if (pair) {
                __m128i total1 = _mm_add_epi32(_mm256_castsi256_si128(sums1), _mm256_extracti128_si256(sums1, 1));
                wi_store_sums(total1, premultiplied, dst + (at + (y + 1) * place.step_y) * 4);
            }
        }
    }
}
#endif

// Averages `factor_x` x `factor_y` blocks, as libvips' shrink does before its Lanczos step for
// large reductions: blocks at the right and bottom edges that stick out of the image count
// the edge pixels again for the missing ones (libvips rounds the size up and copies edges).
// Returns 0, or -1 when asked to stop (wi_kernels_set_stop).
static int wi_box_shrink(const uint8_t *src, int width, int height, size_t src_stride, int factor_x, int factor_y,
                         uint64_t *restrict sums, uint8_t *restrict dst) {
    int out_width = (width + factor_x - 1) / factor_x;
    int out_height = (height + factor_y - 1) / factor_y;
    uint64_t area = (uint64_t)factor_x * (uint64_t)factor_y;
    for (int y = 0; y < out_height; y++) {
        if (wi_kernels_should_stop(y)) {
            return -1;
        }
        memset(sums, 0, sizeof(uint64_t) * (size_t)out_width * 4);
        for (int dy = 0; dy < factor_y; dy++) {
            int row = y * factor_y + dy < height ? y * factor_y + dy : height - 1;
            const uint8_t *line = src + (size_t)row * src_stride;
            for (int x = 0; x < out_width * factor_x; x++) {
                uint64_t *sum = sums + (size_t)(x / factor_x) * 4;
                int cx = x < width ? x : width - 1;
                for (int band = 0; band < 4; band++) {
                    sum[band] += line[(size_t)cx * 4 + (size_t)band];
                }
            }
        }
        uint8_t *out = dst + (size_t)y * (size_t)out_width * 4;
        for (size_t j = 0; j < (size_t)out_width * 4; j++) {
            out[j] = (uint8_t)((sums[j] + area / 2) / area);
        }
    }
    return 0;
}

// Colours times alpha, rounded (8-bit premultiplied, as Pillow's RGBa): `width` x `height`
// pixels from `src` (`src_stride` bytes a row) into `dst`, packed.
static void wi_premultiply(const uint8_t *src, int width, int height, size_t src_stride, uint8_t *restrict dst) {
    for (int y = 0; y < height; y++) {
        wi_premultiply_rgba8(src + (size_t)y * src_stride, (size_t)width, dst + (size_t)y * (size_t)width * 4);
    }
}

struct wi_resample_plan {
    int src_width;
    int src_height;
    int width;
    int height;
    // Large reductions: a box shrink first, leaving a factor of 2 to 4 for Lanczos (libvips'
    // and Pillow's reducing gap of 2), which keeps the kernel short.
    int factor_x;
    int factor_y;
    int shrunk_width;
    int shrunk_height;
    int premultiply;
    wi_axis vertical;   // over the shrunk rows
    wi_axis horizontal; // over the shrunk columns
};

wi_resample_plan *wi_resample_plan_new(int src_width, int src_height, int width, int height, int premultiply) {
    if (src_width < 1 || src_height < 1 || width < 1 || height < 1 || width > src_width || height > src_height) {
        return NULL;
    }
    wi_resample_plan *plan = calloc(1, sizeof(wi_resample_plan));
    if (plan == NULL) {
        return NULL;
    }
    *plan = (wi_resample_plan){.src_width = src_width, .src_height = src_height, .width = width, .height = height,
                               .premultiply = premultiply};
    plan->factor_x = src_width / width / 2 < 1 ? 1 : src_width / width / 2;
    plan->factor_y = src_height / height / 2 < 1 ? 1 : src_height / height / 2;
    plan->shrunk_width = (src_width + plan->factor_x - 1) / plan->factor_x;
    plan->shrunk_height = (src_height + plan->factor_y - 1) / plan->factor_y;
    // The Lanczos scale left after the box: libvips' resize keeps the whole factor divided by
    // the box size, not the shrunk size over the output's, which differ by the rounding.
    double scale_x = (double)src_width / plan->factor_x / width;
    double scale_y = (double)src_height / plan->factor_y / height;
    if (wi_axis_make(&plan->vertical, plan->shrunk_height, height, scale_y) != 0) {
        free(plan);
        return NULL;
    }
    if (wi_axis_make(&plan->horizontal, plan->shrunk_width, width, scale_x) != 0) {
        wi_axis_free(&plan->vertical);
        free(plan);
        return NULL;
    }
    return plan;
}

void wi_resample_plan_free(wi_resample_plan *plan) {
    if (plan != NULL) {
        wi_axis_free(&plan->vertical);
        wi_axis_free(&plan->horizontal);
        free(plan);
    }
}

// The source samples [*first, *end) along one axis that outputs [from, to) read, box factor
// `factor`, source length `length`.
static void wi_source_span(const wi_axis *axis, int factor, int length, int from, int to, int *first, int *end) {
    *first = axis->first[from] * factor;
    int shrunk_end = axis->first[to - 1] + axis->count[to - 1];
    *end = shrunk_end * factor < length ? shrunk_end * factor : length;
}

void wi_resample_plan_source(const wi_resample_plan *plan, wi_rect area, wi_rect *source) {
    int x_end = 0;
    int y_end = 0;
    wi_source_span(&plan->horizontal, plan->factor_x, plan->src_width, area.left, area.left + area.width, &source->left, &x_end);
    wi_source_span(&plan->vertical, plan->factor_y, plan->src_height, area.top, area.top + area.height, &source->top, &y_end);
    source->width = x_end - source->left;
    source->height = y_end - source->top;
}

// The output `area`, placed by `place` relative to its top-left pixel, from the source area
// wi_resample_plan_source gives, whose top-left pixel is at `src`.
static int wi_resample_run(const wi_resample_plan *plan, const uint8_t *src, size_t src_stride, int src_bands,
                           wi_rect area, wi_placement place, uint8_t *dst) {
    wi_rect source;
    wi_resample_plan_source(plan, area, &source);
    int top = area.top;
    int bottom = area.top + area.height;
    int first_row = source.top;
    int src_width = source.width;
    int block_height = source.height;
    // Intermediate bitmaps in this thread's buffers (resample_scratch.h).
    wi_resample_scratch *scratch = wi_resample_scratch_get();
    if (scratch == NULL) {
        return -1;
    }
    int failed = 0;
    if (src_bands == 3) {
        // An opaque RGB source, widened to RGBA as it is read (alpha 255: nothing to weight).
        uint8_t *widened = wi_buffer_reserve(&scratch->weighted, (size_t)src_width * (size_t)block_height * 4);
        if (widened == NULL) {
            return -1;
        }
        for (int y = 0; y < block_height; y++) {
            wi_rgb8_to_rgba8(src + (size_t)y * src_stride, (size_t)src_width, widened + (size_t)y * (size_t)src_width * 4);
        }
        src = widened;
        src_stride = (size_t)src_width * 4;
    } else if (plan->premultiply) {
        uint8_t *weighted = wi_buffer_reserve(&scratch->weighted, (size_t)src_width * (size_t)block_height * 4);
        if (weighted == NULL) {
            return -1;
        }
        wi_premultiply(src, src_width, block_height, src_stride, weighted);
        src = weighted;
        src_stride = (size_t)src_width * 4;
    }
    int shrunk_width = (src_width + plan->factor_x - 1) / plan->factor_x;
    if (plan->factor_x > 1 || plan->factor_y > 1) {
        int shrunk_height = (block_height + plan->factor_y - 1) / plan->factor_y;
        uint8_t *shrunk = wi_buffer_reserve(&scratch->shrunk, (size_t)shrunk_width * (size_t)shrunk_height * 4);
        uint64_t *sums = malloc(sizeof(uint64_t) * (size_t)shrunk_width * 4);
        if (shrunk == NULL || sums == NULL) {
            free(sums);
            wi_buffer_trim(&scratch->weighted);
            return -1;
        }
        int stopped = wi_box_shrink(src, src_width, block_height, src_stride, plan->factor_x, plan->factor_y, sums, shrunk);
        free(sums);
        if (stopped) {
            wi_buffer_trim(&scratch->shrunk);
            wi_buffer_trim(&scratch->weighted);
            return -1;
        }
        src = shrunk;
        src_stride = (size_t)shrunk_width * 4;
    }
    first_row /= plan->factor_y;
    int first_column = source.left / plan->factor_x;
    // Rows first: the column pass, the costlier one per sample, then runs on fewer rows.
    int rows_count = bottom - top;
    size_t row_samples = (size_t)shrunk_width * 4;
    size_t rows_size = row_samples * (size_t)rows_count * sizeof(int16_t);
    uint8_t *rows_memory = wi_buffer_reserve(&scratch->rows, rows_size + WI_ROW_SLACK);
    int16_t *rows = (int16_t *)rows_memory;
    failed = rows == NULL;
    if (!failed) {
        // Read (at weight 0) by the SIMD column pass: defined, for memory checkers' sake.
        memset(rows_memory + rows_size, 0, WI_ROW_SLACK);
        const wi_axis *vertical = &plan->vertical;
        const wi_axis *horizontal = &plan->horizontal;
#if defined(__x86_64__)
        int simd = __builtin_cpu_supports("avx2") ? 2 : __builtin_cpu_supports("sse4.1") ? 1 : 0;
#else
        int simd = 0;
#endif
        void *scratch_row = NULL;
#if defined(__x86_64__)
        if (simd > 0) {
            scratch_row = aligned_alloc(16, sizeof(__m128i) * (size_t)vertical->stride / 2);
        } else
#endif
        {
            scratch_row = malloc(sizeof(int32_t) * row_samples);
        }
        failed = scratch_row == NULL;
        // Both passes a chunk of output rows at a time (each row is computed alone: the same
        // result), asking between chunks whether to stop. The chunks are even, as the SIMD
        // column pass takes rows in pairs.
        for (int from = top; !failed && from < bottom; from += 2 * WI_ROWS_BETWEEN_POLLS) {
            int to = from + 2 * WI_ROWS_BETWEEN_POLLS < bottom ? from + 2 * WI_ROWS_BETWEEN_POLLS : bottom;
            if (from > top && wi_kernels_poll()) {
                failed = 1;
                break;
            }
            int16_t *chunk = rows + (size_t)(from - top) * row_samples;
            wi_placement at = {place.origin + (ptrdiff_t)(from - top) * place.step_y, place.step_x, place.step_y};
#if defined(__x86_64__)
            if (simd == 2) {
                wi_resample_rows_avx2(src, first_row, src_stride, row_samples, vertical, from, to, scratch_row, chunk);
                wi_resample_columns_avx2(chunk, to - from, shrunk_width, first_column, horizontal, area.left,
                                         area.left + area.width, at, plan->premultiply, dst);
                continue;
            }
            if (simd == 1) {
                wi_resample_rows_sse41(src, first_row, src_stride, row_samples, vertical, from, to, 0, scratch_row, chunk);
                wi_resample_columns_sse41(chunk, to - from, shrunk_width, first_column, horizontal, area.left,
                                          area.left + area.width, at, plan->premultiply, dst);
                continue;
            }
#endif
            wi_resample_rows(src, first_row, src_stride, row_samples, vertical, from, to, scratch_row, chunk);
            wi_resample_columns(chunk, to - from, shrunk_width, first_column, horizontal, area.left,
                                area.left + area.width, at, plan->premultiply, dst);
        }
        free(scratch_row);
    }
    wi_buffer_trim(&scratch->rows);
    wi_buffer_trim(&scratch->shrunk);
    wi_buffer_trim(&scratch->weighted);
    return failed ? -1 : 0;
}

int wi_resample_plan_run(const wi_resample_plan *plan, const uint8_t *src, size_t src_stride, int src_bands, wi_rect area,
                         uint8_t *dst, size_t dst_stride) {
    if (area.left < 0 || area.top < 0 || area.width < 1 || area.height < 1 || area.left + area.width > plan->width ||
        area.top + area.height > plan->height || dst_stride % 4 != 0 || (src_bands != 3 && src_bands != 4)) {
        return -1;
    }
    wi_placement place = {0, 1, (ptrdiff_t)(dst_stride / 4)};
    return wi_resample_run(plan, src, src_stride, src_bands, area, place, dst);
}

int wi_resample_rgba8(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst, int width,
                      int height, int orientation, int premultiply) {
    wi_resample_scratch *scratch = wi_resample_scratch_get();
    if (scratch == NULL) {
        return -1;
    }
    wi_resample_plan *plan = scratch->last_plan;
    if (plan == NULL || plan->src_width != src_width || plan->src_height != src_height || plan->width != width ||
        plan->height != height || plan->premultiply != premultiply) {
        plan = wi_resample_plan_new(src_width, src_height, width, height, premultiply);
        if (plan == NULL) {
            return -1;
        }
        wi_resample_plan_free(scratch->last_plan);
        scratch->last_plan = plan;
    }
    wi_rect whole = {0, 0, width, height};
    return wi_resample_run(plan, src, src_stride, 4, whole, wi_placement_for(orientation, width, height), dst);
}

// MARK: - Orientation

void wi_orient_rgba8(const uint8_t *src, int width, int height, int orientation, uint8_t *dst) {
    wi_placement place = wi_placement_for(orientation, width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            memcpy(dst + (place.origin + x * place.step_x + y * place.step_y) * 4, src + ((size_t)y * (size_t)width + (size_t)x) * 4, 4);
        }
    }
}
