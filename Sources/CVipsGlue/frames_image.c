// An animation as a lazy libvips image, frames top to bottom, each computed by a callback when
// its rows are first read and dropped when the next frame's are: a saver (GIF, WebP) reads the
// strip top to bottom, so encoding an animation holds one frame's pixels, not every frame's.

#include "CVipsGlue.h"
#include "tsan_handoff.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>

typedef struct {
    int width;
    int frame_height;
    void *context;
    wi_frame_fill fill;
    void (*release)(void *);
    // Guards the frame below: libvips may ask for rows from more than one worker.
    pthread_mutex_t lock;
    int current;
    uint8_t *frame;
} wi_frames_state;

static void wi_frames_free(void *data) {
    wi_frames_state *state = data;
    state->release(state->context);
    pthread_mutex_destroy(&state->lock);
    g_free(state->frame);
    g_free(state);
}

static int wi_frames_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence;
    (void)b;
    (void)stop;
    wi_frames_state *state = a;
    WI_TAKEN_BY_WORKER(out->im);
    VipsRect *area = &out->valid;
    size_t row = (size_t)state->width * 4;
    int failed = 0;
    pthread_mutex_lock(&state->lock);
    for (int y = area->top; !failed && y < VIPS_RECT_BOTTOM(area); y++) {
        int index = y / state->frame_height;
        if (index != state->current) {
            state->current = -1;
            if (state->frame == NULL) {
                state->frame = g_try_malloc(row * (size_t)state->frame_height);
            }
            if (state->frame == NULL) {
                vips_error("wi_frames", "cannot allocate a frame of %dx%d pixels", state->width, state->frame_height);
                failed = 1;
            } else if (state->fill(state->context, index, state->frame) != 0) {
                vips_error("wi_frames", "frame %d cannot be decoded", index);
                failed = 1;
            } else {
                state->current = index;
            }
        }
        if (!failed) {
            memcpy(VIPS_REGION_ADDR(out, area->left, y),
                   state->frame + (size_t)(y % state->frame_height) * row + (size_t)area->left * 4, (size_t)area->width * 4);
        }
    }
    pthread_mutex_unlock(&state->lock);
    return failed ? -1 : 0;
}

VipsImage *wi_frames_lazy(int width, int frame_height, int count, void *context, wi_frame_fill fill, void (*release)(void *)) {
    wi_warnings_clear();
    if (width <= 0 || frame_height <= 0 || count <= 0 || frame_height > INT_MAX / count) {
        release(context);
        vips_error("wi_frames", "%s", "bad animation size");
        return NULL;
    }
    wi_frames_state *state = g_new0(wi_frames_state, 1);
    *state = (wi_frames_state){width, frame_height, context, fill, release, PTHREAD_MUTEX_INITIALIZER, -1, NULL};
    VipsImage *out = vips_image_new();
    g_object_set_data_full(G_OBJECT(out), "wi-frames", state, wi_frames_free);
    vips_image_init_fields(out, width, frame_height * count, 4, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           VIPS_INTERPRETATION_sRGB, 1.0, 1.0);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, NULL) != 0 ||
        vips_image_generate(out, NULL, wi_frames_generate, NULL, state, NULL) != 0) {
        g_object_unref(out);
        return NULL;
    }
    WI_HANDED_TO_WORKERS(out);
    return out;
}
