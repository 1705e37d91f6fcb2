// Computing a libvips image in the calling thread, tile by tile in the shapes libvips' own
// workers would use (render.c, canvas.c).
#ifndef WI_TILES_H
#define WI_TILES_H

#include <vips/vips.h>

/// Prepares each tile of `image` in turn and hands `row` every row of it (its pixels, the
/// tile's left edge and width, the row's y), then lets the image's caches drop their tiles, as
/// libvips ends its own renders. Returns 0, or -1 with libvips' error.
int wi_each_tile_row(VipsImage *image, void (*row)(const VipsPel *pixels, int left, int width, int y, void *user), void *user);

#endif
