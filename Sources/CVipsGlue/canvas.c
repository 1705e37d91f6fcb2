// Drawing an image on an RGBA8 canvas in place, tile by tile, without holding the image's
// pixels whole: an animation frame as large as its canvas costs the canvas and one tile.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"
#include "tiles.h"

#include <string.h>

typedef struct {
    uint8_t *origin;  // the canvas pixel under the image's top-left one
    size_t row;
    int blend;
} wi_canvas_target;

static void wi_canvas_row(const VipsPel *pixels, int left, int width, int y, void *user) {
    wi_canvas_target *target = user;
    uint8_t *out = target->origin + (size_t)y * target->row + (size_t)left * 4;
    if (target->blend) {
        wi_blend_over_rgba8(pixels, (size_t)width, out);
    } else {
        memcpy(out, pixels, (size_t)width * 4);
    }
}

int wi_canvas_draw(VipsImage *image, uint8_t *canvas, int canvas_width, int canvas_height, int x, int y, int blend) {
    wi_warnings_clear();
    if (image->BandFmt != VIPS_FORMAT_UCHAR || image->Bands != 4) {
        vips_error("wi_canvas_draw", "%s", "8-bit RGBA expected");
        return -1;
    }
    if (x < 0 || y < 0 || image->Xsize > canvas_width - x || image->Ysize > canvas_height - y) {
        vips_error("wi_canvas_draw", "%s", "the image does not fit on the canvas there");
        return -1;
    }
    wi_canvas_target target = {canvas + (size_t)y * (size_t)canvas_width * 4 + (size_t)x * 4, (size_t)canvas_width * 4, blend};
    return wi_each_tile_row(image, wi_canvas_row, &target);
}
