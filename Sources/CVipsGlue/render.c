// libvips' render of an opaque or RGBA image into an RGBA8 bitmap, the alpha added by
// wi_rgb8_to_rgba8 (CBitmapKernels) in one pass rather than by a bandjoin pass of libvips.

#include "CVipsGlue.h"
#include "CBitmapKernels.h"

#include <string.h>

void *wi_render_rgba8(VipsImage *image, size_t *length) {
    if (image->BandFmt != VIPS_FORMAT_UCHAR || (image->Bands != 3 && image->Bands != 4)) {
        vips_error("wi_render_rgba8", "%s", "8-bit RGB or RGBA expected");
        return NULL;
    }
    // libvips' own render to memory (its workers write straight into the buffer: its sink for
    // callbacks, double-buffered, costs ~0.1 ms more), then the alpha in one pass over it.
    wi_warnings_clear();
    size_t size = 0;
    uint8_t *pixels = vips_image_write_to_memory(image, &size);
    if (pixels == NULL) {
        return NULL;
    }
    size_t count = (size_t)image->Xsize * (size_t)image->Ysize;
    if (image->Bands == 3) {
        // Into a new buffer: growing this one moves it (a copy) as often as not.
        uint8_t *rgba = g_try_malloc(count * 4 > 0 ? count * 4 : 1);
        if (rgba == NULL) {
            g_free(pixels);
            vips_error("wi_render_rgba8", "%s", "out of memory");
            return NULL;
        }
        wi_rgb8_to_rgba8(pixels, count, rgba);
        g_free(pixels);
        pixels = rgba;
    }
    *length = count * 4;
    return pixels;
}
