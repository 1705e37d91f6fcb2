// Rendering a libvips pipeline into memory, in the calling thread, tile by tile in the shapes
// libvips' own workers would use. libvips runs one worker per pipeline here (callers run many
// pipelines at once: Vips.start), so its render (vips_image_write_to_memory) hands each tile
// to that worker and waits for it; doing the same work in this thread saves the hand-offs and
// wake-ups, which cost more than cheap operations on small images (invert on a 640x427 photo:
// 0.7-0.8x the time, `webimage-benchmark transformers`). An opaque image's alpha, when asked
// for, is added region by region as the last step (wi_alpha_band_lazy) rather than by a
// bandjoin of libvips or a pass over a rendered RGB copy.

#include "CVipsGlue.h"
#include "tiles.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int wi_each_tile_row(VipsImage *image, void (*row)(const VipsPel *pixels, int left, int width, int y, void *user), void *user) {
    VipsRegion *region = vips_region_new(image);
    if (region == NULL) {
        return -1;
    }
    // libvips' own geometry: whole-width strips for most operations (16 rows; 1 for images
    // over 10,000 pixels wide), 128x128 tiles for those reading around each pixel (affine,
    // convolution), whose strips would read far more than they make.
    int tile_width = 0, tile_height = 0, lines = 0;
    vips_get_tile_size(image, &tile_width, &tile_height, &lines);
    int failed = 0;
    for (int top = 0; !failed && top < image->Ysize; top += tile_height) {
        for (int left = 0; !failed && left < image->Xsize; left += tile_width) {
            VipsRect tile = {left, top, VIPS_MIN(tile_width, image->Xsize - left), VIPS_MIN(tile_height, image->Ysize - top)};
            failed = vips_region_prepare(region, &tile) != 0;
            for (int y = top; !failed && y < VIPS_RECT_BOTTOM(&tile); y++) {
                row(VIPS_REGION_ADDR(region, left, y), left, tile.width, y, user);
            }
        }
    }
    g_object_unref(region);
    // As libvips ends its own renders: caches drop their tiles, loaders their resources.
    vips_image_minimise_all(image);
    return failed ? -1 : 0;
}

typedef struct {
    uint8_t *out;
    size_t row;
    size_t pixel;
} wi_render_target;

static void wi_copy_row(const VipsPel *pixels, int left, int width, int y, void *user) {
    wi_render_target *target = user;
    memcpy(target->out + (size_t)y * target->row + (size_t)left * target->pixel, pixels, (size_t)width * target->pixel);
}

// `image`'s pixels into a new g_malloc'd buffer, rows packed; NULL with libvips' error.
static void *wi_render_tiles(VipsImage *image, size_t *length) {
    size_t pixel = (size_t)VIPS_IMAGE_SIZEOF_PEL(image);
    size_t row = pixel * (size_t)image->Xsize;
    size_t size = row * (size_t)image->Ysize;
    uint8_t *out = g_try_malloc(size > 0 ? size : 1);
    if (out == NULL) {
        vips_error("wi_render", "cannot allocate %zu bytes for the pixels", size);
        return NULL;
    }
    wi_render_target target = {out, row, pixel};
    if (wi_each_tile_row(image, wi_copy_row, &target) != 0) {
        g_free(out);
        return NULL;
    }
    *length = size;
    return out;
}

void *wi_render(VipsImage *image, size_t *length) {
    wi_warnings_clear();
    return wi_render_tiles(image, length);
}

void *wi_render_rgba8(VipsImage *image, size_t *length) {
    if (image->BandFmt != VIPS_FORMAT_UCHAR || (image->Bands != 3 && image->Bands != 4)) {
        vips_error("wi_render_rgba8", "%s", "8-bit RGB or RGBA expected");
        return NULL;
    }
    wi_warnings_clear();
    if (image->Bands == 4) {
        return wi_render_tiles(image, length);
    }
    VipsImage *rgba = wi_alpha_band_lazy(image, 1);
    if (rgba == NULL) {
        return NULL;
    }
    void *pixels = wi_render_tiles(rgba, length);
    g_object_unref(rgba);
    return pixels;
}

typedef struct {
    int fd;
    off_t offset;
    size_t row;
    int failed;
} wi_file_target;

static void wi_write_row(const VipsPel *pixels, int left, int width, int y, void *user) {
    wi_file_target *target = user;
    size_t length = (size_t)width * 4;
    off_t at = target->offset + (off_t)((size_t)y * target->row + (size_t)left * 4);
    for (size_t done = 0; !target->failed && done < length;) {
        ssize_t written = pwrite(target->fd, pixels + done, length - done, at + (off_t)done);
        if (written < 0 && errno == EINTR) {
            continue;
        }
        target->failed = written <= 0;
        done += written > 0 ? (size_t)written : 0;
    }
}

int wi_render_rgba8_to_file(VipsImage *image, int fd, off_t offset) {
    if (image->BandFmt != VIPS_FORMAT_UCHAR || (image->Bands != 3 && image->Bands != 4)) {
        vips_error("wi_render_rgba8_to_file", "%s", "8-bit RGB or RGBA expected");
        return -1;
    }
    wi_warnings_clear();
    VipsImage *rgba = image->Bands == 4 ? image : wi_alpha_band_lazy(image, 1);
    if (rgba == NULL) {
        return -1;
    }
    if (rgba == image) {
        g_object_ref(rgba);
    }
    wi_file_target target = {fd, offset, (size_t)image->Xsize * 4, 0};
    int failed = wi_each_tile_row(rgba, wi_write_row, &target) != 0;
    g_object_unref(rgba);
    if (!failed && target.failed) {
        vips_error("wi_render_rgba8_to_file", "cannot write the pixels: %s", strerror(errno));
        failed = 1;
    }
    return failed ? -1 : 0;
}
