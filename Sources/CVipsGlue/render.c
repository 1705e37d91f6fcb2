// libvips' render of an opaque or RGBA image into an RGBA8 bitmap, an opaque image's alpha
// added region by region as its last step (wi_alpha_band_lazy) rather than by a bandjoin of
// libvips or a pass over a rendered RGB copy.

#include "CVipsGlue.h"

void *wi_render_rgba8(VipsImage *image, size_t *length) {
    if (image->BandFmt != VIPS_FORMAT_UCHAR || (image->Bands != 3 && image->Bands != 4)) {
        vips_error("wi_render_rgba8", "%s", "8-bit RGB or RGBA expected");
        return NULL;
    }
    // libvips' own render to memory: its workers write straight into the buffer (its sink for
    // callbacks, double-buffered, costs ~0.1 ms more).
    wi_warnings_clear();
    VipsImage *rgba = image;
    if (image->Bands == 3) {
        rgba = wi_alpha_band_lazy(image, 1);
        if (rgba == NULL) {
            return NULL;
        }
    }
    size_t size = 0;
    uint8_t *pixels = vips_image_write_to_memory(rgba, &size);
    if (rgba != image) {
        g_object_unref(rgba);
    }
    if (pixels == NULL) {
        return NULL;
    }
    *length = size;
    return pixels;
}
