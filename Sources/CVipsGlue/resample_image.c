// Our resampler (CBitmapKernels/resample.c) as a step of a lazy libvips pipeline: the output is computed strip
// by strip by libvips' workers, each strip (any area) from the source area it reads. libvips
// 8.14's resize of the same image costs 5-30x more (scalar horizontal passes, in floating
// point to be exact), and differs from ours by up to 11 levels in 8 bits.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"
#include "tsan_handoff.h"

typedef struct {
    VipsImage *in;
    wi_resample_plan *plan;
} wi_resample_image;

static void wi_resample_image_free(VipsImage *image, wi_resample_image *state) {
    (void)image;
    wi_resample_plan_free(state->plan);
    g_free(state);
}

static int wi_resample_image_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    VipsRegion *in = sequence;
    wi_resample_image *state = b;
    WI_TAKEN_BY_WORKER(state);
    wi_rect area = {out->valid.left, out->valid.top, out->valid.width, out->valid.height};
    wi_rect source;
    wi_resample_plan_source(state->plan, area, &source);
    VipsRect needed = {source.left, source.top, source.width, source.height};
    if (vips_region_prepare(in, &needed) != 0) {
        return -1;
    }
    if (wi_resample_plan_run(state->plan, VIPS_REGION_ADDR(in, source.left, source.top), (size_t)VIPS_REGION_LSKIP(in),
                             in->im->Bands, area, VIPS_REGION_ADDR(out, area.left, area.top),
                             (size_t)VIPS_REGION_LSKIP(out)) != 0) {
        vips_error("wi_resample", "%s", "cannot resample");
        return -1;
    }
    return 0;
}

VipsImage *wi_resample_lazy(VipsImage *in, int width, int height, int premultiply) {
    if (in->BandFmt != VIPS_FORMAT_UCHAR || (in->Bands != 3 && in->Bands != 4) || in->Coding != VIPS_CODING_NONE) {
        vips_error("wi_resample", "%s", "8-bit RGB or RGBA expected");
        return NULL;
    }
    wi_resample_plan *plan = wi_resample_plan_new(in->Xsize, in->Ysize, width, height, premultiply);
    if (plan == NULL) {
        vips_error("wi_resample", "cannot resize %dx%d to %dx%d", in->Xsize, in->Ysize, width, height);
        return NULL;
    }
    // The output goes in whole-width strips, whose neighbours read overlapping source rows: a
    // cache of whole source lines makes each once (as libvips' resize caches its shrink),
    // enough for every worker's strip, in tiles 32 rows tall (an operation above with a
    // margin, a blur, recomputes it per tile; taller tiles leave a worker waiting for another).
    // Tiles of the output instead (a source area per tile) measured slower still. A source
    // in memory (a decoded bitmap) is read where it lies: a cache would only copy it.
    VipsImage *source = NULL;
    if (in->dtype == VIPS_IMAGE_SETBUF || in->dtype == VIPS_IMAGE_SETBUF_FOREIGN) {
        source = in;
        g_object_ref(source);
    } else {
        enum { source_tile_height = 32 };
        wi_rect strip = {0, 0, width, height < 16 ? height : 16};
        wi_rect rows;
        wi_resample_plan_source(plan, strip, &rows);
        int lines = 2 * (rows.height + source_tile_height) * (vips_concurrency_get() + 1);
        if (vips_tilecache(in, &source, "tile_width", in->Xsize, "tile_height", source_tile_height, "max_tiles",
                           lines / source_tile_height + 1, "access", VIPS_ACCESS_SEQUENTIAL, "threaded", TRUE, NULL) != 0) {
            wi_resample_plan_free(plan);
            return NULL;
        }
    }
    wi_resample_image *state = g_new(wi_resample_image, 1);
    state->in = source;
    state->plan = plan;
    VipsImage *out = vips_image_new();
    // The output holds the (cached) input and the plan until it closes.
    vips_object_local(out, source);
    in = source;
    g_signal_connect(out, "close", G_CALLBACK(wi_resample_image_free), state);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_FATSTRIP, in, NULL) != 0) {
        g_object_unref(out);
        return NULL;
    }
    out->Xsize = width;
    out->Ysize = height;
    out->Bands = 4;
    out->Type = VIPS_INTERPRETATION_sRGB;
    if (vips_image_generate(out, vips_start_one, wi_resample_image_generate, vips_stop_one, in, state) != 0) {
        g_object_unref(out);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(state);
    // Over a sequential loader, workers computing strips out of order would read behind its
    // cache: a sequential cache of our output keeps the reads in order (as libvips' reducev).
    if (vips_image_is_sequential(out)) {
        VipsImage *ordered = NULL;
        int failed = vips_sequential(out, &ordered, "tile_height", 16, NULL);
        g_object_unref(out);
        if (failed) {
            return NULL;
        }
        out = ordered;
    }
    // Every area computed once, whatever asks for it: tiles (a blur), parts (an insert).
    VipsImage *kept = NULL;
    int failed = vips_tilecache(out, &kept, "tile_width", width, "tile_height", 16, "max_tiles", -1, "threaded", TRUE, NULL);
    g_object_unref(out);
    return failed ? NULL : kept;
}
