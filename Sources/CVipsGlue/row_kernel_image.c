// Per-pixel conversions of 8-bit images as steps of a lazy libvips pipeline, region by region
// with the row kernels of CBitmapKernels:
// - an opaque image's alpha band dropped or added: a decoded bitmap is RGBA even when opaque,
//   and a libvips operation on it must not see that band. Done over the whole bitmap before
//   and after the operation, each was a pass and a new buffer of its own (a filter such as
//   invert took 1.16 - 1.29x libvips' time on the same RGB pixels); here each region is
//   converted while the operation reads or writes it.
// - colours premultiplied by alpha and back, in 8 bits: libvips' own premultiply and
//   unpremultiply go through a floating-point image each, which cost a small image's blur
//   more than the blur.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"
#include "lazy_image.h"
#include "tsan_handoff.h"

typedef struct {
    const char *name;
    int in_bands;
    int out_bands;
    void (*kernel)(const uint8_t *src, size_t pixels, uint8_t *dst);
} wi_row_kernel;

static const wi_row_kernel wi_drop_alpha = {"wi_alpha_band", 4, 3, wi_rgba8_to_rgb8};
static const wi_row_kernel wi_add_alpha = {"wi_alpha_band", 3, 4, wi_rgb8_to_rgba8};
static const wi_row_kernel wi_premultiply_kernel = {"wi_premultiply", 4, 4, wi_premultiply_rgba8};
static const wi_row_kernel wi_unpremultiply_kernel = {"wi_unpremultiply", 4, 4, wi_unpremultiply_rgba8};

static int wi_row_kernel_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    VipsRegion *in = sequence;
    const wi_row_kernel *kernel = b;
    WI_TAKEN_BY_WORKER(out->im);
    VipsRect *area = &out->valid;
    if (vips_region_prepare(in, area) != 0) {
        return -1;
    }
    for (int y = area->top; y < VIPS_RECT_BOTTOM(area); y++) {
        kernel->kernel(VIPS_REGION_ADDR(in, area->left, y), (size_t)area->width, VIPS_REGION_ADDR(out, area->left, y));
    }
    return 0;
}

VipsImage *wi_lazy_image_over(VipsImage *in) {
    VipsImage *out = vips_image_new();
    // The output holds the input until it closes.
    g_object_ref(in);
    vips_object_local(out, in);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL) != 0) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

static VipsImage *wi_row_kernel_lazy(VipsImage *in, const wi_row_kernel *kernel) {
    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Bands != kernel->in_bands || in->Coding != VIPS_CODING_NONE) {
        vips_error(kernel->name, "8-bit image of %d bands expected", kernel->in_bands);
        return NULL;
    }
    VipsImage *out = wi_lazy_image_over(in);
    if (out == NULL) {
        return NULL;
    }
    out->Bands = kernel->out_bands;
    out->Type = VIPS_INTERPRETATION_sRGB;
    // The kernel is a static constant; the workers read only the image's header.
    if (vips_image_generate(out, vips_start_one, wi_row_kernel_generate, vips_stop_one, in, (void *)kernel) != 0) {
        g_object_unref(out);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(out);
    return out;
}

VipsImage *wi_alpha_band_lazy(VipsImage *in, int add) {
    return wi_row_kernel_lazy(in, add ? &wi_add_alpha : &wi_drop_alpha);
}

VipsImage *wi_alpha_weight_lazy(VipsImage *in, int premultiply) {
    return wi_row_kernel_lazy(in, premultiply ? &wi_premultiply_kernel : &wi_unpremultiply_kernel);
}
