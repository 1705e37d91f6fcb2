// Baselines for the transformer benchmark: the libvips operations swift-webimage's
// transformers run, called directly from C on pixels in memory, the result written to memory.
#include "CBenchmarkBaselines.h"

#include <CBitmapKernels.h>
#include <stdio.h>
#include <vips/vips.h>

// 8-bit sRGB pixels in memory, not copied.
static VipsImage *bb_wrap(const void *pixels, int width, int height, int bands) {
    VipsImage *image =
        vips_image_new_from_memory(pixels, (size_t)width * height * bands, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image != NULL) {
        image->Type = VIPS_INTERPRETATION_sRGB;
    }
    return image;
}

// Writes `image` (consumed) to memory and frees it: the size, or -1.
static long bb_render(VipsImage *image) {
    if (image == NULL) {
        return -1;
    }
    size_t size = 0;
    void *pixels = vips_image_write_to_memory(image, &size);
    g_object_unref(image);
    if (pixels == NULL) {
        return -1;
    }
    g_free(pixels);
    return (long)size;
}

// Runs `out = step(in)`, consuming `in`; NULL on failure.
#define BB_STEP(in, call)                                                                                              \
    do {                                                                                                               \
        VipsImage *bb_out = NULL;                                                                                      \
        VipsImage *bb_in = (in);                                                                                       \
        int bb_failed = (call);                                                                                        \
        g_object_unref(bb_in);                                                                                         \
        (in) = bb_failed ? NULL : bb_out;                                                                              \
        if ((in) == NULL) {                                                                                            \
            return NULL;                                                                                               \
        }                                                                                                              \
    } while (0)

// Premultiplied around the work when there is alpha, back to 8-bit after (as the transformers do).
static VipsImage *bb_unpremultiplied(VipsImage *image) {
    BB_STEP(image, vips_unpremultiply(bb_in, &bb_out, NULL));
    BB_STEP(image, vips_cast_uchar(bb_in, &bb_out, NULL));
    return image;
}

static VipsImage *bb_resize(VipsImage *image, int width, int height) {
    int alpha = image->Bands == 4;
    double horizontal = (double)width / image->Xsize;
    double vertical = (double)height / image->Ysize;
    if (alpha) {
        BB_STEP(image, vips_premultiply(bb_in, &bb_out, NULL));
    }
    BB_STEP(image, vips_resize(bb_in, &bb_out, horizontal, "vscale", vertical, NULL));
    return alpha ? bb_unpremultiplied(image) : image;
}

long bb_transform_resize(const void *pixels, int width, int height, int bands, int out_width, int out_height) {
    return bb_render(bb_resize(bb_wrap(pixels, width, height, bands), out_width, out_height));
}

static VipsImage *bb_crop(VipsImage *image, int left, int top, int width, int height) {
    BB_STEP(image, vips_extract_area(bb_in, &bb_out, left, top, width, height, NULL));
    return image;
}

long bb_transform_crop(const void *pixels, int width, int height, int bands, int left, int top, int crop_width,
                       int crop_height) {
    return bb_render(bb_crop(bb_wrap(pixels, width, height, bands), left, top, crop_width, crop_height));
}

static VipsImage *bb_flip(VipsImage *image) {
    BB_STEP(image, vips_flip(bb_in, &bb_out, VIPS_DIRECTION_HORIZONTAL, NULL));
    return image;
}

long bb_transform_flip(const void *pixels, int width, int height, int bands) {
    return bb_render(bb_flip(bb_wrap(pixels, width, height, bands)));
}

static VipsImage *bb_rotate(VipsImage *image, double degrees) {
    if (image->Bands == 3) {
        BB_STEP(image, vips_bandjoin_const1(bb_in, &bb_out, 255, NULL));
    }
    BB_STEP(image, vips_premultiply(bb_in, &bb_out, NULL));
    double clear[4] = { 0, 0, 0, 0 };
    VipsArrayDouble *background = vips_array_double_new(clear, 4);
    VipsImage *rotated = NULL;
    int failed = vips_rotate(image, &rotated, degrees, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    g_object_unref(image);
    return failed ? NULL : bb_unpremultiplied(rotated);
}

long bb_transform_rotate(const void *pixels, int width, int height, int bands, double degrees) {
    return bb_render(bb_rotate(bb_wrap(pixels, width, height, bands), degrees));
}

static VipsImage *bb_blur(VipsImage *image, double sigma) {
    int alpha = image->Bands == 4;
    if (alpha) {
        BB_STEP(image, vips_premultiply(bb_in, &bb_out, NULL));
    }
    BB_STEP(image, vips_gaussblur(bb_in, &bb_out, sigma, NULL));
    return alpha ? bb_unpremultiplied(image) : image;
}

long bb_transform_blur(const void *pixels, int width, int height, int bands, double sigma) {
    return bb_render(bb_blur(bb_wrap(pixels, width, height, bands), sigma));
}

long bb_transform_tint(const void *pixels, int width, int height, int bands, const double rgba[4]) {
    VipsImage *image = bb_wrap(pixels, width, height, bands);
    if (image == NULL) {
        return -1;
    }
    if (image->Bands == 3) {
        VipsImage *with_alpha = NULL;
        int failed = vips_bandjoin_const1(image, &with_alpha, 255, NULL);
        g_object_unref(image);
        if (failed) {
            return -1;
        }
        image = with_alpha;
    }
    double zero[4] = { 0, 0, 0, 0 };
    VipsImage *colour = NULL;
    VipsImage *colour8 = NULL;
    VipsImage *out = NULL;
    int failed = vips_linear(image, &colour, zero, (double *)rgba, 4, NULL) ||
                 vips_cast_uchar(colour, &colour8, NULL) ||
                 vips_composite2(image, colour8, &out, VIPS_BLEND_MODE_IN, NULL);
    g_object_unref(image);
    if (colour != NULL) {
        g_object_unref(colour);
    }
    if (colour8 != NULL) {
        g_object_unref(colour8);
    }
    return failed ? -1 : bb_render(out);
}

long bb_transform_round(const void *pixels, int width, int height, int bands, double radius) {
    // The transformer's own steps: its coverage mask (white, the shape as alpha), multiplied in.
    const uint8_t white[4] = { 255, 255, 255, 255 };
    uint8_t *shape = g_malloc((size_t)width * height * 4);
    wi_rounded_rect_rgba8(width, height, radius, ~0u, 0, white, shape);
    VipsImage *image = bb_wrap(pixels, width, height, bands);
    VipsImage *mask = bb_wrap(shape, width, height, 4);
    VipsImage *product = NULL;
    VipsImage *scaled = NULL;
    VipsImage *out = NULL;
    if (image != NULL && image->Bands == 3) {
        VipsImage *with_alpha = NULL;
        int failed = vips_bandjoin_const1(image, &with_alpha, 255, NULL);
        g_object_unref(image);
        image = failed ? NULL : with_alpha;
    }
    int failed = image == NULL || mask == NULL || vips_multiply(image, mask, &product, NULL) ||
                 vips_linear1(product, &scaled, 1.0 / 255, 0.5, NULL) || vips_cast_uchar(scaled, &out, NULL);
    VipsImage *made[] = { image, mask, product, scaled };
    for (int index = 0; index < 4; index++) {
        if (made[index] != NULL) {
            g_object_unref(made[index]);
        }
    }
    long size = failed ? -1 : bb_render(out);
    g_free(shape);
    return size;
}

long bb_transform_round_svg(const void *pixels, int width, int height, int bands, double radius) {
    char svg[512];
    int length = snprintf(svg, sizeof svg,
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\"><rect width=\"%d\" "
                          "height=\"%d\" rx=\"%g\" ry=\"%g\"/></svg>",
                          width, height, width, height, radius, radius);
    VipsImage *image = bb_wrap(pixels, width, height, bands);
    VipsImage *mask = NULL;
    VipsImage *out = NULL;
    if (image == NULL || vips_svgload_buffer(svg, (size_t)length, &mask, NULL)) {
        if (image != NULL) {
            g_object_unref(image);
        }
        return -1;
    }
    int failed = vips_composite2(image, mask, &out, VIPS_BLEND_MODE_DEST_IN, NULL);
    g_object_unref(image);
    g_object_unref(mask);
    return failed ? -1 : bb_render(out);
}

long bb_transform_invert(const void *pixels, int width, int height, int bands) {
    VipsImage *image = bb_wrap(pixels, width, height, bands);
    if (image == NULL) {
        return -1;
    }
    VipsImage *out = NULL;
    int failed = vips_invert(image, &out, NULL);
    g_object_unref(image);
    return failed ? -1 : bb_render(out);
}
