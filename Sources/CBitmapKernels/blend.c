// Straight-alpha "source over destination", for compositing animation frames (APNG's blend
// operation) on a canvas in place.

#include "CBitmapKernels.h"

#include <math.h>

static uint8_t wi_clamp_round(double value) {
    value = round(value);
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

void wi_blend_over_rgba8(const uint8_t *src, size_t pixels, uint8_t *dst) {
    for (size_t index = 0; index < pixels; index++, src += 4, dst += 4) {
        if (src[3] == 255) {
            dst[0] = src[0];
            dst[1] = src[1];
            dst[2] = src[2];
            dst[3] = 255;
            continue;
        }
        if (src[3] == 0) {
            continue;
        }
        double source_alpha = src[3] / 255.0;
        double target_alpha = dst[3] / 255.0;
        double alpha = source_alpha + target_alpha * (1 - source_alpha);
        for (int band = 0; band < 3; band++) {
            dst[band] = wi_clamp_round((src[band] * source_alpha + dst[band] * target_alpha * (1 - source_alpha)) / alpha);
        }
        dst[3] = wi_clamp_round(alpha * 255);
    }
}
