// A loader of our own as a lazy libvips image: rows computed in order by a callback, as
// libvips' jpegload computes its own (a sequential line cache of 8-row strips, then cropped),
// with the fields and metadata of an image libvips' loader made from the same file's header.
// For files whose reading must be stoppable midway (CJPEGCodec's progressive JPEG reader).

#include "CVipsGlue.h"
#include "tsan_handoff.h"

#include <pthread.h>

typedef struct {
    void *context;
    wi_rows_fill fill;
    wi_rows_message message;
    void (*release)(void *);
    // libvips may ask for strips from more than one worker, one after the other.
    pthread_mutex_t lock;
} wi_rows_state;

static void wi_rows_free(void *data) {
    wi_rows_state *state = data;
    state->release(state->context);
    pthread_mutex_destroy(&state->lock);
    g_free(state);
}

static int wi_rows_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence;
    (void)b;
    (void)stop;
    wi_rows_state *state = a;
    WI_TAKEN_BY_WORKER(out->im);
    VipsRect *area = &out->valid;
    pthread_mutex_lock(&state->lock);
    // The line cache asks for whole rows, top to bottom.
    int failed = area->left != 0 || area->width != out->im->Xsize ||
                 state->fill(state->context, area->top, area->height, VIPS_REGION_ADDR(out, 0, area->top),
                             (size_t)VIPS_REGION_LSKIP(out)) != 0;
    if (failed) {
        vips_error("wi_rows", "rows %d to %d: %s", area->top, VIPS_RECT_BOTTOM(area) - 1, state->message(state->context));
    }
    pthread_mutex_unlock(&state->lock);
    return failed ? -1 : 0;
}

VipsImage *wi_rows_lazy(VipsImage *like, int width, int height, void *context, wi_rows_fill fill,
                        wi_rows_message message, void (*release)(void *)) {
    wi_warnings_clear();
    if (width < like->Xsize || height < like->Ysize) {
        release(context);
        vips_error("wi_rows", "%s", "rows smaller than the image");
        return NULL;
    }
    wi_rows_state *state = g_new0(wi_rows_state, 1);
    *state = (wi_rows_state){context, fill, message, release, PTHREAD_MUTEX_INITIALIZER};
    VipsImage *rows = vips_image_new();
    g_object_set_data_full(G_OBJECT(rows), "wi-rows", state, wi_rows_free);
    // The fields and metadata of `like` (bands, interpretation, resolution, EXIF, profile...).
    if (vips_image_pipelinev(rows, VIPS_DEMAND_STYLE_FATSTRIP, like, NULL) != 0) {
        g_object_unref(rows);
        return NULL;
    }
    rows->Xsize = width;
    rows->Ysize = height;
    VipsImage *sequential = NULL;
    VipsImage *out = NULL;
    int failed = vips_image_generate(rows, NULL, wi_rows_generate, NULL, state, NULL) != 0 ||
                 vips_sequential(rows, &sequential, "tile_height", 8, NULL) != 0 ||
                 vips_extract_area(sequential, &out, 0, 0, like->Xsize, like->Ysize, NULL) != 0;
    WI_HANDED_TO_WORKERS(rows);
    g_object_unref(rows);
    if (sequential != NULL) {
        g_object_unref(sequential);
    }
    if (failed) {
        return NULL;
    }
    return out;
}
