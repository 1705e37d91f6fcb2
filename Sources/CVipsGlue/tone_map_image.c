// A step of a lazy libvips pipeline that turns an HDR or wide-gamut image (16-bit or 8-bit
// samples in the colour encoding its file declares) into 8-bit sRGB, region by region, with
// CBitmapKernels' tone mapper (tone_map.c). It must run before anything casts the samples to
// 8 bits: libvips' own conversions read PQ and HLG samples as if they were sRGB.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"
#include "lazy_image.h"
#include "tsan_handoff.h"

static int wi_tone_map_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)stop;
    VipsRegion *in = sequence;
    (void)a;
    const wi_tone_map *map = b;
    WI_TAKEN_BY_WORKER(out->im);
    VipsRect *area = &out->valid;
    if (vips_region_prepare(in, area) != 0) {
        return -1;
    }
    int bands = in->im->Bands;
    for (int y = area->top; y < VIPS_RECT_BOTTOM(area); y++) {
        VipsPel *src = VIPS_REGION_ADDR(in, area->left, y);
        VipsPel *dst = VIPS_REGION_ADDR(out, area->left, y);
        if (in->im->BandFmt == VIPS_FORMAT_USHORT) {
            wi_tone_map_row16(map, (const uint16_t *)src, bands, (size_t)area->width, dst);
        } else {
            wi_tone_map_row8(map, src, bands, (size_t)area->width, dst);
        }
    }
    return 0;
}

static void wi_tone_map_image_free(VipsImage *image, void *map) {
    (void)image;
    wi_tone_map_free(map);
}

VipsImage *wi_tone_map_lazy(VipsImage *in, int transfer, int primaries, int signal_max, double peak_luminance) {
    if ((in->BandFmt != VIPS_FORMAT_USHORT && in->BandFmt != VIPS_FORMAT_UCHAR) || in->Bands < 1 || in->Bands > 4 ||
        in->Coding != VIPS_CODING_NONE) {
        vips_error("wi_tone_map", "8- or 16-bit image of 1 to 4 bands expected");
        return NULL;
    }
    if (in->BandFmt == VIPS_FORMAT_UCHAR) {
        signal_max = 65535;
    }
    const wi_tone_map *map = wi_tone_map_shared(transfer, primaries, signal_max, peak_luminance);
    wi_tone_map *own = NULL;
    if (map == NULL) {
        // Past the encodings the process keeps: tables of this image's own, freed with it.
        own = wi_tone_map_new(transfer, primaries, signal_max, peak_luminance);
        map = own;
    }
    if (map == NULL) {
        vips_error("wi_tone_map", "no tone mapping tables for this colour encoding");
        return NULL;
    }
    VipsImage *out = wi_lazy_image_over(in);
    if (out == NULL) {
        wi_tone_map_free(own);
        return NULL;
    }
    if (own != NULL) {
        g_signal_connect(out, "close", G_CALLBACK(wi_tone_map_image_free), own);
    }
    out->Bands = in->Bands == 2 || in->Bands == 4 ? 4 : 3;
    out->BandFmt = VIPS_FORMAT_UCHAR;
    out->Type = VIPS_INTERPRETATION_sRGB;
    // The pixels are sRGB now: the source's profile (libjxl's description of PQ or HLG) no
    // longer describes them.
    vips_image_remove(out, VIPS_META_ICC_NAME);
    // The tables live for the process (wi_tone_map_shared) or as long as the image (its own);
    // the workers only read them.
    if (vips_image_generate(out, vips_start_one, wi_tone_map_generate, vips_stop_one, in, (void *)map) != 0) {
        g_object_unref(out);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(out);
    return out;
}
