// An opaque image's alpha band dropped or added as a step of a lazy libvips pipeline, region by
// region with the kernels of CBitmapKernels/rgba_bands.c: a decoded bitmap is RGBA even when
// opaque, and a libvips operation on it must not see that band. Done over the whole bitmap
// before and after the operation, each was a pass and a new buffer of its own (a filter such as
// invert took 1.16 - 1.29x libvips' time on the same RGB pixels); here each region is converted
// while the operation reads or writes it.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"

static int wi_alpha_band_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)b;
    (void)stop;
    VipsRegion *in = sequence;
    VipsRect *area = &out->valid;
    if (vips_region_prepare(in, area) != 0) {
        return -1;
    }
    int adding = out->im->Bands == 4;
    for (int y = area->top; y < VIPS_RECT_BOTTOM(area); y++) {
        const uint8_t *source = VIPS_REGION_ADDR(in, area->left, y);
        uint8_t *row = VIPS_REGION_ADDR(out, area->left, y);
        if (adding) {
            wi_rgb8_to_rgba8(source, (size_t)area->width, row);
        } else {
            wi_rgba8_to_rgb8(source, (size_t)area->width, row);
        }
    }
    return 0;
}

VipsImage *wi_alpha_band_lazy(VipsImage *in, int add) {
    int bands = add ? 3 : 4;
    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Bands != bands || in->Coding != VIPS_CODING_NONE) {
        vips_error("wi_alpha_band", "8-bit %s expected", add ? "RGB" : "RGBA");
        return NULL;
    }
    VipsImage *out = vips_image_new();
    // The output holds the input until it closes.
    g_object_ref(in);
    vips_object_local(out, in);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL) != 0) {
        g_object_unref(out);
        return NULL;
    }
    out->Bands = add ? 4 : 3;
    out->Type = VIPS_INTERPRETATION_sRGB;
    if (vips_image_generate(out, vips_start_one, wi_alpha_band_generate, vips_stop_one, in, NULL) != 0) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}
