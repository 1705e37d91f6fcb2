// The samples libjpeg-turbo computes at DCT scale 1/8 from DC coefficients (jpeg_dc.c reads
// them): its 1x1 IDCT, its range limit and its YCbCr -> RGB tables.
#include "jpeg_dc.h"

// libjpeg-turbo's post-IDCT range limit table (jdmaster.c), indexed by a 1x1 IDCT's value
// masked to 10 bits: values far out of range wrap, as in libjpeg.
static void wi_dc_range_limit(uint8_t limit[1024]) {
    for (int index = 0; index < 1024; index++) {
        limit[index] = (uint8_t)(index < 128 ? index + 128 : index < 512 ? 255 : index < 896 ? 0 : index - 896);
    }
}

// libjpeg-turbo's sample from a DC coefficient: its 1x1 IDCT (jidctred.c), range limited.
static inline uint8_t wi_dc_sample(const uint8_t limit[1024], int16_t coefficient, int16_t quant) {
    return limit[(((int)coefficient * (int)quant + 4) >> 3) & 1023];
}

static inline uint8_t wi_dc_clamp(int value) {
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

// libjpeg's YCbCr -> RGB tables (jdcolor.c: 16-bit fixed point, rounded as it rounds).
typedef struct {
    int red_cr[256];
    int blue_cb[256];
    int32_t green_cr[256];
    int32_t green_cb[256];
} wi_dc_ycc;

static void wi_dc_ycc_tables(wi_dc_ycc *tables) {
    const int32_t half = (int32_t)1 << 15;
    for (int i = 0; i < 256; i++) {
        int32_t x = i - 128;
        tables->red_cr[i] = (int)((91881 * x + half) >> 16);    // FIX(1.40200)
        tables->blue_cb[i] = (int)((116130 * x + half) >> 16);  // FIX(1.77200)
        tables->green_cr[i] = -46802 * x;                       // FIX(0.71414)
        tables->green_cb[i] = -22554 * x + half;                // FIX(0.34414)
    }
}

void wi_dc_samples(int width, int height, const int16_t *const dc[], const int16_t quant[], size_t stride,
                   wi_dc_colours colours, uint8_t *pixels) {
    uint8_t limit[1024];
    wi_dc_range_limit(limit);
    wi_dc_ycc ycc;
    wi_dc_ycc_tables(&ycc);
    for (int y = 0; y < height; y++) {
        uint8_t *out = pixels + (size_t)y * (size_t)width * 4;
        size_t row = (size_t)y * stride;
        if (colours == WI_DC_GREY) {
            for (int x = 0; x < width; x++, out += 4) {
                out[0] = out[1] = out[2] = wi_dc_sample(limit, dc[0][row + (size_t)x], quant[0]);
                out[3] = 255;
            }
        } else if (colours == WI_DC_RGB) {
            for (int x = 0; x < width; x++, out += 4) {
                out[0] = wi_dc_sample(limit, dc[0][row + (size_t)x], quant[0]);
                out[1] = wi_dc_sample(limit, dc[1][row + (size_t)x], quant[1]);
                out[2] = wi_dc_sample(limit, dc[2][row + (size_t)x], quant[2]);
                out[3] = 255;
            }
        } else {
            for (int x = 0; x < width; x++, out += 4) {
                int luma = wi_dc_sample(limit, dc[0][row + (size_t)x], quant[0]);
                uint8_t cb = wi_dc_sample(limit, dc[1][row + (size_t)x], quant[1]);
                uint8_t cr = wi_dc_sample(limit, dc[2][row + (size_t)x], quant[2]);
                out[0] = wi_dc_clamp(luma + ycc.red_cr[cr]);
                out[1] = wi_dc_clamp(luma + (int)((ycc.green_cb[cb] + ycc.green_cr[cr]) >> 16));
                out[2] = wi_dc_clamp(luma + ycc.blue_cb[cb]);
                out[3] = 255;
            }
        }
    }
}
