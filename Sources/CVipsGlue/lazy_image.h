// The start of a lazy libvips image computed from one input, thin strip by thin strip, that the
// per-row kernels share (row_kernel_image.c, tone_map_image.c).
#ifndef WI_LAZY_IMAGE_H
#define WI_LAZY_IMAGE_H

#include <vips/vips.h>

/// A new image with `in`'s header, holding `in` until it closes, ready for the caller to set
/// its bands and format and call vips_image_generate; NULL with libvips' error.
VipsImage *wi_lazy_image_over(VipsImage *in);

#endif
