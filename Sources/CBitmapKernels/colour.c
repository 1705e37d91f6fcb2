// Colour conversion to sRGB of small bitmaps, cached per ICC profile: tables for matrix-shaper
// profiles, an lcms2 transform otherwise (wi_icc_rgb8_supported, wi_icc_rgb8_to_srgb).
#include "CBitmapKernels.h"
#include "colour_math.h"

#include <glib.h>
#include <lcms2.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

// A profile's conversion to sRGB, kept for the life of the process. Photos in the wild carry
// a handful of profiles (Adobe RGB, Display P3, camera profiles): a small fixed table serves
// them, unusable profiles included (so they are not parsed again); a profile met when the
// table is full gets a conversion for that call only.
//
// Matrix-shaper profiles without lookup tables (most RGB ones) convert through tables: input
// curve per channel, a 3x3 matrix into sRGB's linear primaries, sRGB's inverse curve, a few ns
// a pixel. That is what lcms computes for them too, but its 8-bit path here costs 17-27 ns a
// pixel, more than the JPEG decode. Other RGB profiles go through an lcms transform.
enum { WI_ENCODE_STEPS = 16384 };

// Matrix entries smaller than this are the colorant tags' rounding (s15.16: 1.5e-5 a step), not
// colour: Adobe RGB (1998) shares sRGB's red and blue primaries, and its matrix into sRGB has
// four such entries (1e-5 and less) where the exact one has zeros. Taken as zeros, each output
// channel of such a profile depends on its own input and at most the green one, and is read
// from one table.
#define WI_MATRIX_NOISE (1.0 / 32768)

typedef struct {
    // term[in][v][out]: input channel `in` at 8-bit value v, through its curve, times the
    // matrix entry for output channel `out`, in 1/(WI_ENCODE_STEPS * 256) steps of linear
    // light (the fourth 0). An output channel is the sum of three terms: table reads and
    // integer adds, the three outputs of a pixel in one vector add.
    int32_t term[3][256][4];
    uint8_t encode[WI_ENCODE_STEPS + 1]; // linear 0...1 in 1/WI_ENCODE_STEPS steps -> sRGB 8-bit
    // When the matrix's only nonzero entries off its diagonal are in one column, `primary` (the
    // one primary the profile does not share with sRGB; -1: none, only the curves differ): each
    // output channel is a function of its own input and the primary's, read from a table. Two
    // channels next to each other, one of them the primary, come from one 16-bit read of their
    // samples into `pair` (their two outputs, as they lie in memory); the third from `single`
    // indexed by its sample and the primary's, the lower channel's sample in the index's low
    // byte (wi_pair_first, wi_lone_channel). For -1, direct[c][v[c]]. A pixel is then two
    // table reads, two reads of its samples and two writes (opaque RGBA: one write for two
    // pixels): the instructions a cycle retires are what bounds such a loop. NULL otherwise.
    uint16_t *pair;
    uint8_t *single;
    uint8_t *direct[3];
    int primary;
} wi_matrix_shaper;

static void wi_free_matrix_shaper(wi_matrix_shaper *shaper) {
    if (shaper != NULL) {
        g_free(shaper->pair);
        g_free(shaper->single);
        g_free(shaper->direct[0]);
    }
    g_free(shaper);
}

typedef struct {
    uint64_t hash;
    size_t length;
    uint8_t *bytes;
    int bands;
    cmsHTRANSFORM transform;   // at most one of transform and shaper is set;
    wi_matrix_shaper *shaper;  // neither: the profile cannot be converted
} wi_icc_entry;

enum { WI_ICC_CACHE_SIZE = 16 };
static wi_icc_entry wi_icc_cache[WI_ICC_CACHE_SIZE];
static int wi_icc_cache_count = 0;
// pthread's lock and once here, not GLib's: ThreadSanitizer sees them (GLib's are futex calls).
static pthread_mutex_t wi_icc_lock = PTHREAD_MUTEX_INITIALIZER;

static void wi_lcms_silent(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context;
    (void)code;
    (void)text;
}

// lcms' own context, so its messages about bad profiles stay out of libvips' error buffer
// (shared by the process: they would prefix unrelated failures); a bad profile is reported
// by the return value instead.
static cmsContext wi_lcms_shared_context = NULL;

static void wi_lcms_make_context(void) {
    wi_lcms_shared_context = cmsCreateContext(NULL, NULL);
    if (wi_lcms_shared_context != NULL) {
        cmsSetLogErrorHandlerTHR(wi_lcms_shared_context, wi_lcms_silent);
    }
}

static cmsContext wi_lcms_context(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, wi_lcms_make_context);
    return wi_lcms_shared_context;
}

static uint64_t wi_fnv1a(const uint8_t *bytes, size_t length) {
    uint64_t hash = 14695981039346656037ULL;
    for (size_t i = 0; i < length; i++) {
        hash = (hash ^ bytes[i]) * 1099511628211ULL;
    }
    return hash;
}

// Columns of a matrix-shaper profile's RGB -> PCS XYZ (D50) matrix.
static int wi_colorants(cmsHPROFILE profile, double m[9]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[c]);
        if (xyz == NULL) {
            return -1;
        }
        m[0 * 3 + c] = xyz->X;
        m[1 * 3 + c] = xyz->Y;
        m[2 * 3 + c] = xyz->Z;
    }
    return 0;
}

int wi_invert3(const double m[9], double out[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (det > -1e-12 && det < 1e-12) {
        return -1;
    }
    out[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    out[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    out[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    out[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    out[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    out[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    out[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    out[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    out[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 0;
}

static inline uint8_t wi_encode_linear(const wi_matrix_shaper *shaper, int32_t linear) {
    int32_t index = (linear + 128) >> 8;
    index = index < 0 ? 0 : index > WI_ENCODE_STEPS ? WI_ENCODE_STEPS : index;
    return shaper->encode[index];
}

// The sample the terms give for output channel `out` of a pixel whose channel `in` is `value`
// and whose primary (or, for -1, every channel) is `primary_value`.
static uint8_t wi_direct_sample(const wi_matrix_shaper *shaper, int out, int primary, uint8_t value, uint8_t primary_value) {
    int32_t sum = shaper->term[out][out == primary || primary == -1 ? primary_value : value][out];
    if (primary != -1 && out != primary) {
        sum += shaper->term[primary][primary_value][out];
    }
    return wi_encode_linear(shaper, sum);
}

// The first channel of the pair a primary's direct tables read together: the primary and a
// neighbour (green's: red).
static inline int wi_pair_first(int primary) { return primary == 2 ? 1 : 0; }

// The channel outside that pair.
static inline int wi_lone_channel(int primary) { return primary == 2 ? 0 : 2; }

// Fills the direct tables when the matrix's nonzero entries off its diagonal are all in one column.
static void wi_make_direct_tables(wi_matrix_shaper *shaper, const double matrix[9]) {
    int primary = -1;
    for (int out = 0; out < 3; out++) {
        for (int in = 0; in < 3; in++) {
            if (in != out && matrix[out * 3 + in] != 0) {
                if (primary != -1 && primary != in) {
                    return;
                }
                primary = in;
            }
        }
    }
    shaper->primary = primary;
    if (primary == -1) {
        uint8_t *block = g_malloc(3 * 256);
        for (int out = 0; out < 3; out++) {
            shaper->direct[out] = block + out * 256;
            for (int v = 0; v < 256; v++) {
                shaper->direct[out][v] = wi_direct_sample(shaper, out, -1, (uint8_t)v, (uint8_t)v);
            }
        }
        return;
    }
    const int first = wi_pair_first(primary), second = first + 1, lone = wi_lone_channel(primary);
    shaper->pair = g_malloc(65536 * sizeof(uint16_t));
    shaper->single = g_malloc(65536);
    for (int high = 0; high < 256; high++) {
        for (int low = 0; low < 256; low++) {
            const int index = high << 8 | low;
            // The pair's samples as they lie: channel `first` in the low byte.
            const uint8_t primary_value = (uint8_t)(primary == first ? low : high);
            const uint8_t out_first = wi_direct_sample(shaper, first, primary, (uint8_t)low, primary_value);
            const uint8_t out_second = wi_direct_sample(shaper, second, primary, (uint8_t)high, primary_value);
            shaper->pair[index] = (uint16_t)(out_first | out_second << 8);
            // The single's index: the lower channel's sample (of it and the primary) low.
            const uint8_t lone_value = (uint8_t)(lone < primary ? low : high);
            const uint8_t lone_primary = (uint8_t)(lone < primary ? high : low);
            shaper->single[index] = wi_direct_sample(shaper, lone, primary, lone_value, lone_primary);
        }
    }
}

static wi_matrix_shaper *wi_make_matrix_shaper(cmsHPROFILE in, cmsHPROFILE srgb) {
    // lcms (and so libvips) prefers a profile's lookup tables when it has them.
    if (!cmsIsMatrixShaper(in) || cmsIsCLUT(in, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT) ||
        !cmsIsMatrixShaper(srgb)) {
        return NULL;
    }
    double source[9], target[9], inverse[9];
    if (wi_colorants(in, source) != 0 || wi_colorants(srgb, target) != 0 || wi_invert3(target, inverse) != 0) {
        return NULL;
    }
    const cmsToneCurve *curves[3] = {
        cmsReadTag(in, cmsSigRedTRCTag), cmsReadTag(in, cmsSigGreenTRCTag), cmsReadTag(in, cmsSigBlueTRCTag)};
    const cmsToneCurve *srgb_curve = cmsReadTag(srgb, cmsSigRedTRCTag);
    if (curves[0] == NULL || curves[1] == NULL || curves[2] == NULL || srgb_curve == NULL) {
        return NULL;
    }
    cmsToneCurve *reverse = cmsReverseToneCurve(srgb_curve);
    if (reverse == NULL) {
        return NULL;
    }
    wi_matrix_shaper *shaper = g_new0(wi_matrix_shaper, 1);
    float curve[3][256];
    for (int c = 0; c < 3; c++) {
        for (int v = 0; v < 256; v++) {
            curve[c][v] = cmsEvalToneCurveFloat(curves[c], (cmsFloat32Number)v / 255.0f);
        }
    }
    double matrix[9];
    for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++) {
            double entry = 0;
            for (int k = 0; k < 3; k++) {
                entry += inverse[row * 3 + k] * source[k * 3 + col];
            }
            matrix[row * 3 + col] = fabs(entry) < WI_MATRIX_NOISE ? 0 : entry;
            for (int v = 0; v < 256; v++) {
                shaper->term[col][v][row] = (int32_t)lrint(matrix[row * 3 + col] * curve[col][v] * WI_ENCODE_STEPS * 256);
            }
        }
    }
    for (int i = 0; i <= WI_ENCODE_STEPS; i++) {
        float encoded = cmsEvalToneCurveFloat(reverse, (cmsFloat32Number)i / (float)WI_ENCODE_STEPS);
        int value = (int)(encoded * 255.0f + 0.5f);
        shaper->encode[i] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
    cmsFreeToneCurve(reverse);
    wi_make_direct_tables(shaper, matrix);
    return shaper;
}

// Two samples as they lie in memory, the first in the low byte: one 16-bit read on a
// little-endian machine (the compiler does not merge the two byte reads once it has folded the
// index into the table's address arithmetic).
static inline unsigned wi_read_pair(const uint8_t *samples) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint16_t pair;
    memcpy(&pair, samples, sizeof pair);
    return pair;
#else
    return (unsigned)(samples[0] | samples[1] << 8);
#endif
}

static inline void wi_write_pair(uint8_t *samples, uint16_t pair) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(samples, &pair, sizeof pair);
#else
    samples[0] = (uint8_t)pair;
    samples[1] = (uint8_t)(pair >> 8);
#endif
}

// Two RGBA pixels, as they lie in memory, in one write.
static inline void wi_write_pixels(uint8_t *samples, uint64_t two) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(samples, &two, sizeof two);
#else
    for (int k = 0; k < 8; k++) {
        samples[k] = (uint8_t)(two >> (8 * k));
    }
#endif
}

// The index into `single` of the pixel at `pixel`: its samples of channels `low` and `high` (the
// lone channel and the primary, in memory order), one 16-bit read when they are neighbours.
static inline __attribute__((always_inline)) unsigned wi_single_index(const uint8_t *pixel, const int low, const int high) {
    return high == low + 1 ? wi_read_pair(pixel + low) : (unsigned)(pixel[low] | pixel[high] << 8);
}

// The converted RGBA pixel at `pixel` with alpha 255, as a little-endian 32-bit value: the pair's
// two outputs and the lone channel's (wi_pair_first, wi_lone_channel).
static inline __attribute__((always_inline)) uint32_t wi_opaque_pixel(
    const uint16_t *restrict pair, const uint8_t *restrict single, const uint8_t *pixel, const int first, const int low, const int high) {
    const uint32_t outputs = pair[wi_read_pair(pixel + first)];
    const uint32_t output = single[wi_single_index(pixel, low, high)];
    return 0xFF000000u | (first == 0 ? outputs | output << 16 : output | outputs << 8);
}

// A pixel through the direct tables, `primary` a constant in each of the callers below, so that
// each gets its own loop. `opaque`: four bands whose alpha is 255 everywhere.
static inline __attribute__((always_inline)) void wi_apply_direct_tables_for(
    const wi_matrix_shaper *restrict shaper, uint8_t *restrict pixels, size_t count, int bands, int opaque, const int primary) {
    if (primary == -1) {
        const uint8_t *restrict red = shaper->direct[0], *restrict green = shaper->direct[1], *restrict blue = shaper->direct[2];
        for (size_t i = 0; i < count; i++, pixels += bands) {
            const uint8_t r = red[pixels[0]], g = green[pixels[1]], b = blue[pixels[2]];
            pixels[0] = r;
            pixels[1] = g;
            pixels[2] = b;
        }
        return;
    }
    const uint16_t *restrict pair = shaper->pair;
    const uint8_t *restrict single = shaper->single;
    const int first = wi_pair_first(primary), lone = wi_lone_channel(primary);
    const int low = lone < primary ? lone : primary, high = lone < primary ? primary : lone;
    if (opaque) {
        // Two pixels a 64-bit write, their alpha 255 rather than read: fewer instructions a
        // pixel, which is what bounds this loop (rocket.jpg: 0.104 against 0.118 ms warm).
        size_t i = 0;
        for (; i + 4 <= count; i += 4, pixels += 16) {
            const uint64_t quad[2] = {
                wi_opaque_pixel(pair, single, pixels, first, low, high) |
                    (uint64_t)wi_opaque_pixel(pair, single, pixels + 4, first, low, high) << 32,
                wi_opaque_pixel(pair, single, pixels + 8, first, low, high) |
                    (uint64_t)wi_opaque_pixel(pair, single, pixels + 12, first, low, high) << 32,
            };
            wi_write_pixels(pixels, quad[0]);
            wi_write_pixels(pixels + 8, quad[1]);
        }
        count -= i;
    }
    for (size_t i = 0; i < count; i++, pixels += bands) {
        const uint16_t outputs = pair[wi_read_pair(pixels + first)];
        const uint8_t output = single[wi_single_index(pixels, low, high)];
        wi_write_pair(pixels + first, outputs);
        pixels[lone] = output;
    }
}

static void wi_apply_direct_tables(const wi_matrix_shaper *shaper, uint8_t *pixels, size_t count, int bands, int opaque) {
    switch (shaper->primary) {
    case 0: wi_apply_direct_tables_for(shaper, pixels, count, bands, opaque, 0); break;
    case 1: wi_apply_direct_tables_for(shaper, pixels, count, bands, opaque, 1); break;
    case 2: wi_apply_direct_tables_for(shaper, pixels, count, bands, opaque, 2); break;
    default: wi_apply_direct_tables_for(shaper, pixels, count, bands, 0, -1); break;
    }
}

#if defined(__x86_64__)
// The three outputs' sums of a pixel in one vector: three 16-byte reads and two adds where the
// scalar loop makes nine reads and six adds. The same samples.
__attribute__((target("sse4.1")))
static void wi_apply_matrix_shaper_sse41(const wi_matrix_shaper *restrict shaper, uint8_t *restrict pixels, size_t count,
                                         int bands) {
    const __m128i half = _mm_set1_epi32(128);
    const __m128i last = _mm_set1_epi32(WI_ENCODE_STEPS);
    for (size_t i = 0; i < count; i++, pixels += bands) {
        __m128i sum = _mm_add_epi32(_mm_add_epi32(_mm_loadu_si128((const __m128i *)shaper->term[0][pixels[0]]),
                                                  _mm_loadu_si128((const __m128i *)shaper->term[1][pixels[1]])),
                                    _mm_loadu_si128((const __m128i *)shaper->term[2][pixels[2]]));
        __m128i index = _mm_srai_epi32(_mm_add_epi32(sum, half), 8);
        index = _mm_min_epi32(_mm_max_epi32(index, _mm_setzero_si128()), last);
        uint8_t red = shaper->encode[_mm_cvtsi128_si32(index)];
        uint8_t green = shaper->encode[_mm_extract_epi32(index, 1)];
        uint8_t blue = shaper->encode[_mm_extract_epi32(index, 2)];
        pixels[0] = red;
        pixels[1] = green;
        pixels[2] = blue;
    }
}
#endif

static void wi_apply_matrix_shaper(const wi_matrix_shaper *shaper, uint8_t *pixels, size_t count, int bands, int opaque) {
    if (shaper->direct[0] != NULL || shaper->pair != NULL) {
        wi_apply_direct_tables(shaper, pixels, count, bands, opaque);
        return;
    }
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.1")) {
        wi_apply_matrix_shaper_sse41(shaper, pixels, count, bands);
        return;
    }
#endif
    for (size_t i = 0; i < count; i++, pixels += bands) {
        const int32_t *r = shaper->term[0][pixels[0]];
        const int32_t *g = shaper->term[1][pixels[1]];
        const int32_t *b = shaper->term[2][pixels[2]];
        for (int out = 0; out < 3; out++) {
            pixels[out] = wi_encode_linear(shaper, r[out] + g[out] + b[out]);
        }
    }
}

// The conversion for `profile`: a shaper, an lcms transform, or neither (not a usable RGB profile).
static void wi_icc_make_entry(const void *profile, size_t length, int bands, wi_icc_entry *entry) {
    entry->transform = NULL;
    entry->shaper = NULL;
    cmsContext context = wi_lcms_context();
    if (context == NULL) {
        return;
    }
    cmsHPROFILE in = cmsOpenProfileFromMemTHR(context, profile, (cmsUInt32Number)length);
    if (in == NULL) {
        return;
    }
    if (cmsGetColorSpace(in) == cmsSigRgbData) {
        cmsHPROFILE out = cmsCreate_sRGBProfileTHR(context);
        if (out != NULL) {
            entry->shaper = wi_make_matrix_shaper(in, out);
            if (entry->shaper == NULL) {
                cmsUInt32Number type = bands == 4 ? TYPE_RGBA_8 : TYPE_RGB_8;
                // NOCACHE: one transform is used by several threads at once, which lcms
                // allows only without its one-pixel cache.
                cmsUInt32Number flags = cmsFLAGS_NOCACHE | (bands == 4 ? cmsFLAGS_COPY_ALPHA : 0);
                entry->transform = cmsCreateTransformTHR(context, in, type, out, type, INTENT_RELATIVE_COLORIMETRIC, flags);
            }
            cmsCloseProfile(out);
        }
    }
    cmsCloseProfile(in);
}

// Looks `profile` up in the table (under the lock); 1 and the entry when found.
static int wi_icc_lookup(uint64_t hash, const void *profile, size_t length, int bands, wi_icc_entry *found) {
    for (int i = 0; i < wi_icc_cache_count; i++) {
        wi_icc_entry *entry = &wi_icc_cache[i];
        if (entry->hash == hash && entry->length == length && entry->bands == bands &&
            memcmp(entry->bytes, profile, length) == 0) {
            *found = *entry;
            return 1;
        }
    }
    return 0;
}

// The conversion for `profile`, from the table or made now (and kept when there is room).
// `*owned` is set when the caller must free it after use.
static void wi_icc_entry_for(const void *profile, size_t length, int bands, wi_icc_entry *result, int *owned) {
    uint64_t hash = wi_fnv1a(profile, length);
    *owned = 0;
    pthread_mutex_lock(&wi_icc_lock);
    int cached = wi_icc_lookup(hash, profile, length, bands, result);
    pthread_mutex_unlock(&wi_icc_lock);
    if (cached) {
        return;
    }
    // Built outside the lock (lcms takes milliseconds); whoever stores first wins.
    wi_icc_entry made = {.hash = hash, .length = length, .bands = bands};
    wi_icc_make_entry(profile, length, bands, &made);
    pthread_mutex_lock(&wi_icc_lock);
    if (wi_icc_lookup(hash, profile, length, bands, result)) {
        pthread_mutex_unlock(&wi_icc_lock);
        if (made.transform != NULL) {
            cmsDeleteTransform(made.transform);
        }
        wi_free_matrix_shaper(made.shaper);
        return;
    }
    if (wi_icc_cache_count < WI_ICC_CACHE_SIZE) {
        made.bytes = g_memdup2(profile, length);
        wi_icc_cache[wi_icc_cache_count++] = made;
    } else {
        *owned = 1;
    }
    pthread_mutex_unlock(&wi_icc_lock);
    *result = made;
}

static void wi_icc_release(wi_icc_entry *entry, int owned) {
    if (!owned) {
        return;
    }
    if (entry->transform != NULL) {
        cmsDeleteTransform(entry->transform);
    }
    wi_free_matrix_shaper(entry->shaper);
}

int wi_icc_rgb8_supported(const void *profile, size_t profile_length, int bands) {
    if (profile == NULL || profile_length == 0 || (bands != 3 && bands != 4)) {
        return 0;
    }
    wi_icc_entry entry;
    int owned;
    wi_icc_entry_for(profile, profile_length, bands, &entry, &owned);
    int usable = entry.shaper != NULL || entry.transform != NULL;
    wi_icc_release(&entry, owned);
    return usable;
}

int wi_icc_rgb8_to_srgb(const void *profile, size_t profile_length, uint8_t *pixels, size_t pixel_count, int bands, int opaque) {
    if (profile == NULL || profile_length == 0 || (bands != 3 && bands != 4)) {
        return -1;
    }
    opaque = opaque && bands == 4;
    wi_icc_entry entry;
    int owned;
    wi_icc_entry_for(profile, profile_length, bands, &entry, &owned);
    if (entry.shaper != NULL) {
        wi_apply_matrix_shaper(entry.shaper, pixels, pixel_count, bands, opaque);
    } else if (entry.transform != NULL) {
        // Sliced so that the pixel count never overflows lcms' 32-bit size.
        size_t done = 0;
        while (done < pixel_count) {
            size_t slice = pixel_count - done < (1u << 30) ? pixel_count - done : (1u << 30);
            uint8_t *start = pixels + done * (size_t)bands;
            cmsDoTransform(entry.transform, start, start, (cmsUInt32Number)slice);
            done += slice;
        }
    } else {
        return -1;
    }
    wi_icc_release(&entry, owned);
    return 0;
}
