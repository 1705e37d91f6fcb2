// Baselines for the coder benchmark: the same jobs as swift-webimage's decode, thumbnail and
// encode, done by direct C calls into libvips and TurboJPEG in the same process.
//
// libvips must already be started (by WebImage: operation cache off, one worker thread per
// pipeline); these functions never call vips_init nor change libvips' settings, so both sides
// run under the same configuration. Every function does the whole job, frees what it made, and
// returns the size in bytes of what it produced (pixels or encoded data), or -1 on failure.
#ifndef CBENCHMARK_BASELINES_H
#define CBENCHMARK_BASELINES_H

#include <stddef.h>

/// libvips' version and the process-wide settings in force.
typedef struct {
    int major;
    int minor;
    int micro;
    int cache_max;
    int concurrency;
} bb_vips_settings;

void bb_get_vips_settings(bb_vips_settings *out);

/// The libvips error buffer, cleared (for messages after a failure). Free with bb_free.
char *bb_vips_error(void);
void bb_free(void *pointer);

// MARK: libvips

/// Full decode (jpegload/pngload_buffer, sequential) to RGBA8 in memory.
long bb_vips_decode_rgba(const void *data, size_t length, int is_png);

/// vips_thumbnail_buffer to fit `width` x `height` (never upscaling), to RGBA8 in memory.
long bb_vips_thumbnail_rgba(const void *data, size_t length, int width, int height);

/// JPEG (vips_jpegsave_buffer, Q=quality, strip) of RGBA8 pixels: alpha flattened onto white
/// when `has_alpha`, else the alpha band is dropped.
long bb_vips_encode_jpeg(const void *rgba, int width, int height, int has_alpha, int quality);

/// Whole thumbnail job: vips_thumbnail_buffer + vips_jpegsave_buffer.
long bb_vips_thumbnail_job(const void *data, size_t length, int width, int height, int quality);

/// The same job converting to sRGB (export_profile=srgb: an ICC transform from the embedded
/// profile), as swift-webimage does for images with a profile other than sRGB.
long bb_vips_thumbnail_job_srgb(const void *data, size_t length, int width, int height, int quality);

/// Header only: jpegload/pngload_buffer without reading pixels. Returns the width.
long bb_vips_header(const void *data, size_t length, int is_png);

/// Whole thumbnail job for JPEG: vips_jpegload_buffer(shrink=N, sequential) + vips_resize +
/// vips_jpegsave_buffer.
long bb_vips_jpeg_shrink_job(const void *data, size_t length, int width, int height, int quality);

/// vips_resize of RGBA8 pixels to fit `width` x `height`, written to memory.
long bb_vips_resize_rgba(const void *rgba, int source_width, int source_height, int width, int height);

// MARK: TurboJPEG (+ libvips' resize between decode and encode)

/// Full decode (tjDecompress2) to RGBA8.
long bb_tj_decode_rgba(const void *jpeg, size_t length);

/// The same full decode followed by the conversion our decoder makes from an embedded
/// `profile` to sRGB, called directly on the decoded pixels (CBitmapKernels'
/// wi_icc_rgb8_to_srgb, cached per profile): the same work as our full decode of a JPEG with a
/// profile, in C.
long bb_tj_decode_rgba_to_srgb(const void *jpeg, size_t length, const void *profile, size_t profile_length);

/// The same full decode followed by an lcms2 transform from `profile` to sRGB (RGBA8 in place,
/// relative colorimetric, alpha copied, cmsFLAGS_HIGHRESPRECALC: lcms' fastest 8-bit path here),
/// the transform made once and kept: the conversion done by lcms2 directly, for reference.
long bb_tj_decode_rgba_lcms2(const void *jpeg, size_t length, const void *profile, size_t profile_length);

/// DCT-scaled decode (the smallest scaling factor still >= the target), vips_resize to fit
/// `width` x `height`, RGBA8 in memory.
long bb_tj_thumbnail_rgba(const void *jpeg, size_t length, int width, int height);

/// tjCompress2 of RGBA8 pixels (4:2:0, quality).
long bb_tj_encode_jpeg(const void *rgba, int width, int height, int quality);

/// Whole thumbnail job: DCT-scaled tjDecompress2 + vips_resize + tjCompress2.
long bb_tj_thumbnail_job(const void *jpeg, size_t length, int width, int height, int quality);

/// A compute loop touching no memory (xorshift with a branch on each value), `iterations`
/// steps: the ceiling of this machine's 2-thread scaling, for reference. Returns a value >= 0.
long bb_compute_loop(long iterations);

// MARK: Transformers (transforms.c): 8-bit sRGB pixels in memory (3 or 4 bands), the result
// written to memory; alpha premultiplied around resampling, as the transformers do.

/// vips_resize to exactly `out_width` x `out_height`.
long bb_transform_resize(const void *pixels, int width, int height, int bands, int out_width, int out_height);
/// vips_extract_area.
long bb_transform_crop(const void *pixels, int width, int height, int bands, int left, int top, int crop_width,
                       int crop_height);
/// vips_flip, horizontal.
long bb_transform_flip(const void *pixels, int width, int height, int bands);
/// vips_rotate by `degrees` clockwise onto transparent (an alpha band added when missing).
long bb_transform_rotate(const void *pixels, int width, int height, int bands, double degrees);
/// vips_gaussblur.
long bb_transform_blur(const void *pixels, int width, int height, int bands, double sigma);
/// vips_composite2 (mode in) of a constant colour made by vips_linear.
long bb_transform_tint(const void *pixels, int width, int height, int bands, const double rgba[4]);
/// The round-corner transformer's steps: its coverage mask (CBitmapKernels) multiplied into the pixels.
long bb_transform_round(const void *pixels, int width, int height, int bands, double radius);
/// The usual libvips way: vips_composite2 (mode dest-in) of a rounded rectangle drawn by librsvg.
long bb_transform_round_svg(const void *pixels, int width, int height, int bands, double radius);
/// vips_invert.
long bb_transform_invert(const void *pixels, int width, int height, int bands);

// MARK: The floor (floor.c): the thumbnail job by the plainest direct C calls, step by step

/// An RGBA8 bitmap from malloc, rows `stride` bytes apart.
typedef struct {
    unsigned char *pixels;
    int width;
    int height;
    size_t stride;
} bb_floor_bitmap;

void bb_floor_bitmap_free(bb_floor_bitmap *bitmap);

/// Decodes to RGBA8 into `out`: a JPEG by tjDecompress2 at the smallest DCT scale whose size
/// (rounded down) still covers `width` x `height`, `out` cropped to that size as ours crops it,
/// to RGB8 instead when `bands` is 3 (for comparison: the other steps take RGBA8); a PNG whole
/// by libpng's simplified API (zlib's inflate), always RGBA8. 0, or -1.
int bb_floor_decode(const void *data, size_t length, int is_png, int width, int height, int bands, bb_floor_bitmap *out);

/// Lanczos-3 of opaque `in` to `width` x `height` into `out` by CBitmapKernels'
/// wi_resample_rgba8 (SIMD), called directly. 0, or -1.
int bb_floor_resample(const bb_floor_bitmap *in, int width, int height, bb_floor_bitmap *out);

/// The same by a plain scalar fixed-point Lanczos-3 (Pillow's scheme), for reference. 0, or -1.
int bb_plain_lanczos3(const bb_floor_bitmap *in, int width, int height, bb_floor_bitmap *out);

/// tjCompress2 of `in` (4:2:0, quality): the JPEG's size, or -1.
long bb_floor_encode(const bb_floor_bitmap *in, int quality);

/// The three steps, bytes in, `width` x `height` JPEG bytes out: its size, or -1.
long bb_floor_thumbnail_job(const void *data, size_t length, int is_png, int width, int height, int quality);

#endif
