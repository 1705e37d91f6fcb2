// HDR and wide-gamut sources to 8-bit sRGB, per pixel, from tables built once per encoding.
//
// 1. Each sample (16-bit code) to linear light through the source's transfer: PQ (SMPTE ST 2084)
//    to absolute cd/m²; HLG (ITU-R BT.2100) to scene light, 0...1; SDR curves to display light,
//    0...1 of SDR white.
// 2. The luminance of that light (the source primaries' Y row) picks a gain: for PQ, BT.2390's
//    EETF (section 5.4.1, on luminance in PQ space) from the source's peak to the reference
//    white of BT.2408, 203 cd/m², which becomes SDR white; for HLG, first BT.2100's OOTF for a
//    1,000 cd/m² display (system gamma 1.2: a 75% signal is 203 cd/m²), then the same EETF.
//    One gain for the three channels keeps each colour's chromaticity.
// 3. The source primaries to BT.709's (a 3x3 matrix in linear light, both white points D65
//    except DCI-P3's, which is adapted by Bradford); a colour still outside sRGB's gamut is
//    desaturated toward the grey of its own luminance until it fits, which keeps its dominant
//    wavelength (hue) and luminance, where clipping each channel would shift both.
// 4. sRGB's transfer curve, through a table of 65,536 steps of linear light.

#include "CBitmapKernels.h"
#include "colour_math.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { WI_GAIN_STEPS = 8192, WI_OETF_STEPS = 65536, WI_TONE_MAP_CACHE_SIZE = 32 };

struct wi_tone_map {
    int transfer, primaries;
    int signal_max;
    int peak;
    float linear[65536];               // code -> linear light (cd/m² for PQ, scene light for HLG, relative for SDR)
    float gain[WI_GAIN_STEPS + 1];     // over sqrt(luminance / gain_domain): multiplier to relative sRGB light
    float gain_domain;
    int has_gain;
    float matrix[9];                   // source primaries -> BT.709, linear light
    float luma[3];                     // the source primaries' luminance row
    uint8_t oetf[WI_OETF_STEPS];       // relative linear 0...1 -> sRGB 8-bit
};

// SMPTE ST 2084.
static const double wi_pq_m1 = 2610.0 / 16384.0, wi_pq_m2 = 2523.0 / 4096.0 * 128.0;
static const double wi_pq_c1 = 3424.0 / 4096.0, wi_pq_c2 = 2413.0 / 4096.0 * 32.0, wi_pq_c3 = 2392.0 / 4096.0 * 32.0;

double wi_pq_to_nits(double signal) {
    if (signal <= 0) {
        return 0;
    }
    double p = pow(signal, 1.0 / wi_pq_m2);
    double numerator = p - wi_pq_c1;
    if (numerator <= 0) {
        return 0;
    }
    return 10000.0 * pow(numerator / (wi_pq_c2 - wi_pq_c3 * p), 1.0 / wi_pq_m1);
}

double wi_nits_to_pq(double nits) {
    double y = pow(fmax(nits, 0) / 10000.0, wi_pq_m1);
    return pow((wi_pq_c1 + wi_pq_c2 * y) / (1.0 + wi_pq_c3 * y), wi_pq_m2);
}

// ITU-R BT.2100 HLG inverse OETF: signal to scene light 0...1.
static double wi_hlg_to_scene(double signal) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    if (signal <= 0.5) {
        return signal * signal / 3.0;
    }
    return (exp((signal - c) / a) + b) / 12.0;
}

double wi_bt2390_eetf(double nits, double source_peak, double target_peak) {
    double source_black = wi_nits_to_pq(0);
    double source_white = wi_nits_to_pq(source_peak);
    double range = source_white - source_black;
    double max_lum = (wi_nits_to_pq(target_peak) - source_black) / range;
    if (max_lum >= 1) {
        return fmin(nits, source_peak);
    }
    double e = (wi_nits_to_pq(nits) - source_black) / range;
    e = fmin(fmax(e, 0), 1);
    double knee = 1.5 * max_lum - 0.5;
    if (e > knee) {
        double t = (e - knee) / (1 - knee), t2 = t * t, t3 = t2 * t;
        e = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * max_lum;
    }
    return wi_pq_to_nits(e * range + source_black);
}

static double wi_sdr_to_linear(int transfer, double v) {
    switch (transfer) {
    case 8: return v;                                         // linear
    case 4: return pow(v, 2.2);                               // gamma 2.2
    case 5: return pow(v, 2.8);                               // gamma 2.8
    case 1: case 6: case 14: case 15: return pow(v, 2.4);    // BT.709 on a BT.1886 display
    default:                                                  // sRGB, and unspecified
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
}

// Chromaticities (x, y of red, green, blue, white) of CICP's colour primaries (ITU-T H.273).
static int wi_primaries_xy(int primaries, double xy[8]) {
    static const double bt709[8] = {0.640, 0.330, 0.300, 0.600, 0.150, 0.060, 0.3127, 0.3290};
    static const double bt2020[8] = {0.708, 0.292, 0.170, 0.797, 0.131, 0.046, 0.3127, 0.3290};
    static const double p3_d65[8] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.3127, 0.3290};
    static const double p3_dci[8] = {0.680, 0.320, 0.265, 0.690, 0.150, 0.060, 0.314, 0.351};
    static const double bt601_625[8] = {0.640, 0.330, 0.290, 0.600, 0.150, 0.060, 0.3127, 0.3290};
    static const double bt601_525[8] = {0.630, 0.340, 0.310, 0.595, 0.155, 0.070, 0.3127, 0.3290};
    const double *table;
    switch (primaries) {
    case 9: table = bt2020; break;
    case 11: table = p3_dci; break;
    case 12: table = p3_d65; break;
    case 5: table = bt601_625; break;
    case 6: case 7: table = bt601_525; break;
    default: table = bt709; break;
    }
    memcpy(xy, table, sizeof(double) * 8);
    return 0;
}

// RGB -> XYZ for chromaticities `xy` (white normalised to Y = 1).
static int wi_rgb_to_xyz(const double xy[8], double out[9]) {
    double m[9];
    for (int c = 0; c < 3; c++) {
        double x = xy[2 * c], y = xy[2 * c + 1];
        m[0 * 3 + c] = x / y;
        m[1 * 3 + c] = 1;
        m[2 * 3 + c] = (1 - x - y) / y;
    }
    double inverse[9];
    if (wi_invert3(m, inverse) != 0) {
        return -1;
    }
    double wx = xy[6], wy = xy[7];
    double white[3] = {wx / wy, 1, (1 - wx - wy) / wy};
    for (int c = 0; c < 3; c++) {
        double s = inverse[c * 3] * white[0] + inverse[c * 3 + 1] * white[1] + inverse[c * 3 + 2] * white[2];
        for (int r = 0; r < 3; r++) {
            out[r * 3 + c] = m[r * 3 + c] * s;
        }
    }
    return 0;
}

static void wi_multiply3(const double a[9], const double b[9], double out[9]) {
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            out[r * 3 + c] = a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
        }
    }
}

// Bradford adaptation from white `from` to white `to` (xy).
static void wi_bradford(const double from[2], const double to[2], double out[9]) {
    static const double bradford[9] = {0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296};
    double inverse[9];
    wi_invert3(bradford, inverse);
    double source[3] = {from[0] / from[1], 1, (1 - from[0] - from[1]) / from[1]};
    double target[3] = {to[0] / to[1], 1, (1 - to[0] - to[1]) / to[1]};
    double s[3], t[3];
    for (int r = 0; r < 3; r++) {
        s[r] = bradford[r * 3] * source[0] + bradford[r * 3 + 1] * source[1] + bradford[r * 3 + 2] * source[2];
        t[r] = bradford[r * 3] * target[0] + bradford[r * 3 + 1] * target[1] + bradford[r * 3 + 2] * target[2];
    }
    double scale[9] = {t[0] / s[0], 0, 0, 0, t[1] / s[1], 0, 0, 0, t[2] / s[2]};
    double step[9];
    wi_multiply3(scale, bradford, step);
    wi_multiply3(inverse, step, out);
}

static void wi_tone_map_fill(wi_tone_map *map) {
    const int transfer = map->transfer;
    const double reference_white = 203.0;
    for (int code = 0; code < 65536; code++) {
        double signal = fmin((double)code / map->signal_max, 1.0);
        double value;
        if (transfer == 16) {
            value = wi_pq_to_nits(signal);
        } else if (transfer == 18) {
            value = wi_hlg_to_scene(signal);
        } else {
            value = wi_sdr_to_linear(transfer, signal);
        }
        map->linear[code] = (float)value;
    }
    map->has_gain = transfer == 16 || transfer == 18;
    if (map->has_gain) {
        // PQ: luminance in cd/m², up to 10,000; HLG: scene luminance 0...1.
        map->gain_domain = transfer == 16 ? 10000.0f : 1.0f;
        for (int step = 0; step <= WI_GAIN_STEPS; step++) {
            double root = (double)step / WI_GAIN_STEPS;
            double luminance = root * root * map->gain_domain;
            double gain;
            if (transfer == 16) {
                gain = luminance > 0 ? wi_bt2390_eetf(luminance, map->peak, reference_white) / luminance
                                     : 1.0;
            } else {
                // BT.2100's OOTF on a 1,000 cd/m² display: Fd = 1000 * Ys^(1.2 - 1) * E.
                double display = 1000.0 * pow(luminance, 1.2);
                double ootf = 1000.0 * pow(luminance, 0.2);
                gain = display > 0 ? ootf * wi_bt2390_eetf(display, 1000.0, reference_white) / display : 0;
            }
            map->gain[step] = (float)(gain / reference_white);
        }
    }
    double source[8], target[8];
    wi_primaries_xy(map->primaries, source);
    wi_primaries_xy(1, target);
    double to_xyz[9], from_xyz[9], target_to_xyz[9], matrix[9];
    wi_rgb_to_xyz(source, to_xyz);
    wi_rgb_to_xyz(target, target_to_xyz);
    wi_invert3(target_to_xyz, from_xyz);
    if (source[6] != target[6] || source[7] != target[7]) {
        double adapt[9], adapted[9];
        wi_bradford(&source[6], &target[6], adapt);
        wi_multiply3(adapt, to_xyz, adapted);
        memcpy(to_xyz, adapted, sizeof adapted);
    }
    wi_multiply3(from_xyz, to_xyz, matrix);
    for (int i = 0; i < 9; i++) {
        map->matrix[i] = (float)matrix[i];
    }
    for (int c = 0; c < 3; c++) {
        map->luma[c] = (float)to_xyz[3 + c];
    }
    for (int step = 0; step < WI_OETF_STEPS; step++) {
        double v = (double)step / (WI_OETF_STEPS - 1);
        double encoded = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
        map->oetf[step] = (uint8_t)lrint(fmin(fmax(encoded, 0), 1) * 255.0);
    }
}

static wi_tone_map *wi_tone_map_cache[WI_TONE_MAP_CACHE_SIZE];
static int wi_tone_map_cache_count = 0;
// pthread's lock, not GLib's: ThreadSanitizer sees it.
static pthread_mutex_t wi_tone_map_lock = PTHREAD_MUTEX_INITIALIZER;

const wi_tone_map *wi_tone_map_shared(int transfer, int primaries, int signal_max, double peak_luminance) {
    if (signal_max < 255 || signal_max > 65535) {
        return NULL;
    }
    // Peaks are kept to whole cd/m², from SDR white to PQ's ceiling; 1,000 when unknown.
    int peak = peak_luminance >= 1 ? (int)lrint(fmin(peak_luminance, 10000)) : 1000;
    if (transfer != 16) {
        peak = 1000;
    }
    pthread_mutex_lock(&wi_tone_map_lock);
    for (int i = 0; i < wi_tone_map_cache_count; i++) {
        wi_tone_map *entry = wi_tone_map_cache[i];
        if (entry->transfer == transfer && entry->primaries == primaries && entry->signal_max == signal_max &&
            entry->peak == peak) {
            pthread_mutex_unlock(&wi_tone_map_lock);
            return entry;
        }
    }
    wi_tone_map *map = NULL;
    // A full cache (32 encodings seen) evicts nothing, since images still read the tables they
    // hold: wi_tone_map_new makes tables of their own for the encodings past it.
    if (wi_tone_map_cache_count < WI_TONE_MAP_CACHE_SIZE && (map = calloc(1, sizeof *map)) != NULL) {
        map->transfer = transfer;
        map->primaries = primaries;
        map->signal_max = signal_max;
        map->peak = peak;
        wi_tone_map_fill(map);
        wi_tone_map_cache[wi_tone_map_cache_count++] = map;
    }
    pthread_mutex_unlock(&wi_tone_map_lock);
    return map;
}

wi_tone_map *wi_tone_map_new(int transfer, int primaries, int signal_max, double peak_luminance) {
    if (signal_max < 255 || signal_max > 65535) {
        return NULL;
    }
    wi_tone_map *map = calloc(1, sizeof *map);
    if (map == NULL) {
        return NULL;
    }
    map->transfer = transfer;
    map->primaries = primaries;
    map->signal_max = signal_max;
    map->peak = transfer == 16 && peak_luminance >= 1 ? (int)lrint(fmin(peak_luminance, 10000)) : 1000;
    wi_tone_map_fill(map);
    return map;
}

void wi_tone_map_free(wi_tone_map *map) {
    free(map);
}

static inline float wi_gain_at(const wi_tone_map *map, float luminance) {
    float position = sqrtf(fmaxf(luminance, 0) / map->gain_domain) * WI_GAIN_STEPS;
    if (position >= WI_GAIN_STEPS) {
        return map->gain[WI_GAIN_STEPS];
    }
    int step = (int)position;
    float fraction = position - (float)step;
    return map->gain[step] + (map->gain[step + 1] - map->gain[step]) * fraction;
}

static inline uint8_t wi_encode(const wi_tone_map *map, float v) {
    v = fminf(fmaxf(v, 0), 1);
    return map->oetf[(int)(v * (WI_OETF_STEPS - 1) + 0.5f)];
}

void wi_tone_map_pixel(const wi_tone_map *map, uint16_t r, uint16_t g, uint16_t b, uint8_t out[3]) {
    float lr = map->linear[r], lg = map->linear[g], lb = map->linear[b];
    float gain = 1;
    if (map->has_gain) {
        gain = wi_gain_at(map, map->luma[0] * lr + map->luma[1] * lg + map->luma[2] * lb);
    }
    lr *= gain;
    lg *= gain;
    lb *= gain;
    const float *m = map->matrix;
    float rgb[3] = {
        m[0] * lr + m[1] * lg + m[2] * lb,
        m[3] * lr + m[4] * lg + m[5] * lb,
        m[6] * lr + m[7] * lg + m[8] * lb,
    };
    // BT.709's luminance of the colour (the same light as the source's: the matrix keeps Y).
    float luminance = 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2];
    if (luminance >= 1) {
        out[0] = out[1] = out[2] = 255;
        return;
    }
    luminance = fmaxf(luminance, 0);
    float keep = 1;
    for (int c = 0; c < 3; c++) {
        float away = rgb[c] - luminance;
        if (rgb[c] > 1) {
            keep = fminf(keep, (1 - luminance) / away);
        } else if (rgb[c] < 0) {
            keep = fminf(keep, luminance / -away);
        }
    }
    for (int c = 0; c < 3; c++) {
        out[c] = wi_encode(map, luminance + (rgb[c] - luminance) * keep);
    }
}

void wi_tone_map_row16(const wi_tone_map *map, const uint16_t *src, int bands, size_t pixels, uint8_t *dst) {
    const unsigned alpha_max = (unsigned)map->signal_max;
    int out_bands = bands == 2 || bands == 4 ? 4 : 3;
    for (size_t i = 0; i < pixels; i++) {
        const uint16_t *p = src + i * (size_t)bands;
        uint8_t *q = dst + i * (size_t)out_bands;
        if (bands >= 3) {
            wi_tone_map_pixel(map, p[0], p[1], p[2], q);
        } else {
            wi_tone_map_pixel(map, p[0], p[0], p[0], q);
        }
        if (out_bands == 4) {
            unsigned alpha = p[bands - 1];
            q[3] = (uint8_t)(alpha >= alpha_max ? 255 : (alpha * 255u + alpha_max / 2) / alpha_max);
        }
    }
}

void wi_tone_map_row8(const wi_tone_map *map, const uint8_t *src, int bands, size_t pixels, uint8_t *dst) {
    int out_bands = bands == 2 || bands == 4 ? 4 : 3;
    for (size_t i = 0; i < pixels; i++) {
        const uint8_t *p = src + i * (size_t)bands;
        uint8_t *q = dst + i * (size_t)out_bands;
        // 8-bit codes widen to 16 bits (v * 257), the tables' input.
        if (bands >= 3) {
            wi_tone_map_pixel(map, (uint16_t)(p[0] * 257), (uint16_t)(p[1] * 257), (uint16_t)(p[2] * 257), q);
        } else {
            wi_tone_map_pixel(map, (uint16_t)(p[0] * 257), (uint16_t)(p[0] * 257), (uint16_t)(p[0] * 257), q);
        }
        if (out_bands == 4) {
            q[3] = p[bands - 1];
        }
    }
}
