// Round corners as a step of a lazy libvips pipeline: each region is the input's, its alpha
// scaled in the corners (wi_round_corners_row). libvips' own way (a mask the size of the
// image multiplied in, or masked strips inserted back) costs 5-10x more.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"
#include "tsan_handoff.h"

#include <string.h>

typedef struct {
    double radius;
    unsigned corners;
    int premultiplied;
} wi_round_corners;

static int wi_round_corners_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    VipsRegion *in = sequence;
    const wi_round_corners *shape = b;
    WI_TAKEN_BY_WORKER(shape);
    VipsRect *area = &out->valid;
    if (vips_region_prepare(in, area) != 0) {
        return -1;
    }
    // Only the corners change, and they lie in the first and last `depth` rows: a region
    // between them is the input's pixels, shown without a copy (as libvips' own extract does).
    int depth = wi_round_corners_depth(out->im->Xsize, out->im->Ysize, shape->radius);
    if (area->top >= depth && VIPS_RECT_BOTTOM(area) <= out->im->Ysize - depth) {
        return vips_region_region(out, in, area, area->left, area->top);
    }
    for (int y = area->top; y < VIPS_RECT_BOTTOM(area); y++) {
        uint8_t *row = VIPS_REGION_ADDR(out, area->left, y);
        memcpy(row, VIPS_REGION_ADDR(in, area->left, y), (size_t)area->width * 4);
        wi_round_corners_row(row, y, area->left, area->width, out->im->Xsize, out->im->Ysize, shape->radius, shape->corners,
                             shape->premultiplied);
    }
    return 0;
}

VipsImage *wi_round_corners_lazy(VipsImage *in, double radius, unsigned corners, int premultiplied) {
    if (in->BandFmt != VIPS_FORMAT_UCHAR || in->Bands != 4 || in->Coding != VIPS_CODING_NONE) {
        vips_error("wi_round_corners", "%s", "8-bit RGBA expected");
        return NULL;
    }
    VipsImage *out = vips_image_new();
    wi_round_corners *shape = vips_malloc(VIPS_OBJECT(out), sizeof(wi_round_corners));
    shape->radius = radius;
    shape->corners = corners;
    shape->premultiplied = premultiplied;
    // The output holds the input until it closes.
    g_object_ref(in);
    vips_object_local(out, in);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL) != 0 ||
        vips_image_generate(out, vips_start_one, wi_round_corners_generate, vips_stop_one, in, shape) != 0) {
        g_object_unref(out);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(shape);
    return out;
}
