// Decoded images are RGBA8 even when opaque, libvips pipelines on opaque images RGB: the two
// conversions between them, done here in one pass each (libvips' extract_band and bandjoin
// each cost a pipeline pass of their own, as much as a cheap operation itself).

#include "CBitmapKernels.h"

#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__x86_64__)
// Sixteen pixels a step: four loads of four pixels, their colours packed by a byte shuffle
// and joined into three whole stores; the rest one at a time.
__attribute__((target("ssse3")))
static size_t wi_rgba_to_rgb_ssse3(const uint8_t *src, size_t pixels, uint8_t *dst) {
    const __m128i drop = _mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    size_t index = 0;
    for (; index + 16 <= pixels; index += 16) {
        const __m128i *in = (const __m128i *)(src + index * 4);
        __m128i a = _mm_shuffle_epi8(_mm_loadu_si128(in), drop);
        __m128i b = _mm_shuffle_epi8(_mm_loadu_si128(in + 1), drop);
        __m128i c = _mm_shuffle_epi8(_mm_loadu_si128(in + 2), drop);
        __m128i d = _mm_shuffle_epi8(_mm_loadu_si128(in + 3), drop);
        __m128i *out = (__m128i *)(dst + index * 3);
        _mm_storeu_si128(out, _mm_or_si128(a, _mm_slli_si128(b, 12)));
        _mm_storeu_si128(out + 1, _mm_or_si128(_mm_srli_si128(b, 4), _mm_slli_si128(c, 8)));
        _mm_storeu_si128(out + 2, _mm_or_si128(_mm_srli_si128(c, 8), _mm_slli_si128(d, 4)));
    }
    return index;
}

// Sixteen pixels a step: three loads of their colours, cut into four groups of four pixels
// spread to RGBA by a byte shuffle; the rest one at a time.
__attribute__((target("ssse3")))
static size_t wi_rgb_to_rgba_ssse3(const uint8_t *src, size_t pixels, uint8_t *dst) {
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i opaque = _mm_set1_epi32((int)0xFF000000u);
    size_t index = 0;
    for (; index + 16 <= pixels; index += 16) {
        const __m128i *in = (const __m128i *)(src + index * 3);
        __m128i x = _mm_loadu_si128(in);
        __m128i y = _mm_loadu_si128(in + 1);
        __m128i z = _mm_loadu_si128(in + 2);
        __m128i *out = (__m128i *)(dst + index * 4);
        _mm_storeu_si128(out, _mm_or_si128(_mm_shuffle_epi8(x, spread), opaque));
        _mm_storeu_si128(out + 1, _mm_or_si128(_mm_shuffle_epi8(_mm_alignr_epi8(y, x, 12), spread), opaque));
        _mm_storeu_si128(out + 2, _mm_or_si128(_mm_shuffle_epi8(_mm_alignr_epi8(z, y, 8), spread), opaque));
        _mm_storeu_si128(out + 3, _mm_or_si128(_mm_shuffle_epi8(_mm_srli_si128(z, 4), spread), opaque));
    }
    return index;
}
#endif

void wi_rgba8_to_rgb8(const uint8_t *src, size_t pixels, uint8_t *dst) {
    size_t index = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("ssse3")) {
        index = wi_rgba_to_rgb_ssse3(src, pixels, dst);
    }
#endif
    for (; index < pixels; index++) {
        memcpy(dst + index * 3, src + index * 4, 3);
    }
}

// `pixels` RGB8 pixels to RGBA8 with an opaque alpha.
void wi_rgb8_to_rgba8(const uint8_t *src, size_t pixels, uint8_t *dst) {
    size_t index = 0;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("ssse3")) {
        index = wi_rgb_to_rgba_ssse3(src, pixels, dst);
    }
#endif
    for (; index < pixels; index++) {
        memcpy(dst + index * 4, src + index * 3, 3);
        dst[index * 4 + 3] = 255;
    }
}
