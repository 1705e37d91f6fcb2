// Non-variadic entry points into libvips (and libpng's progressive reader) for Swift,
// which cannot call C variadic functions. Every function returning an object returns it
// with a +1 reference (release with g_object_unref / vips_area_unref) or NULL after
// pushing a message to libvips' error buffer (read it with wi_error_copy).
#ifndef CVIPS_SHIM_H
#define CVIPS_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <vips/vips.h>

/// Starts libvips once per process: operation cache off, `concurrency` worker threads per
/// pipeline (0 keeps libvips' default). Returns 0 on success.
int wi_init(const char *argv0, int concurrency);

/// The text of libvips' error buffer, cleared, then the warnings libvips logged on this thread
/// since the failing call began (libpng's reasons arrive as warnings); free with g_free.
char *wi_error_copy(void);
/// Forgets the warnings libvips logged on this thread, so that the next failure's message
/// carries only its own (every function here that can fail calls it first).
void wi_warnings_clear(void);

/// Runs the loader `operation` (e.g. "jpegload_buffer") on a private copy of the bytes.
/// `options` is libvips' argument syntax ("shrink=2,access=sequential"), may be NULL.
/// `option_string`, when not NULL, sets the operation's "option_string" argument (the options
/// thumbnail_buffer hands to the loader it runs), which cannot be written inside `options`.
VipsImage *wi_load_buffer(const char *operation, const void *data, size_t length, const char *options,
                          const char *option_string);

/// Runs `operation` on one input image (argument "in") and returns its "out" image.
VipsImage *wi_call(const char *operation, VipsImage *in, const char *options);

/// Like `wi_call`, for operations whose input argument has another name (extract_area's "input").
VipsImage *wi_call_named(const char *operation, const char *input_name, VipsImage *in, const char *options);

/// 1 when `operation` names a libvips operation that maps one image ("in") to another ("out")
/// and is not a loader or saver (which read and write files), else 0. Sets no error.
int wi_is_image_filter(const char *operation);

/// Runs `operation` on two input images, set as the arguments `first_name` and `second_name`
/// (e.g. composite2's "base" and "overlay"), and returns its "out" image.
VipsImage *wi_call2(const char *operation, const char *first_name, VipsImage *first, const char *second_name,
                    VipsImage *second, const char *options);

/// Runs a saver (e.g. "jpegsave_buffer") and returns its encoded bytes.
VipsBlob *wi_save_buffer(const char *operation, VipsImage *in, const char *options);

/// Blends alpha away onto an RGB background.
VipsImage *wi_flatten(VipsImage *in, double red, double green, double blue);

/// Appends a constant band (an opaque alpha channel).
VipsImage *wi_add_constant_band(VipsImage *in, double value);

/// Stacks equally sized images top to bottom, libvips' layout for animation.
VipsImage *wi_join_vertically(VipsImage **images, int count);

/// A copy of `in` carrying animation metadata (page-height, delay in ms, loop).
VipsImage *wi_with_animation(VipsImage *in, int page_height, const int *delays, int count, int loop);

/// Wraps RGBA/RGB/grey 8-bit pixels without copying. `release(owner)` runs when the image
/// (and so every image computed from it) is gone: the owner keeps the pixels alive till then.
VipsImage *wi_image_from_memory(const void *pixels, size_t length, int width, int height, int bands,
                                void *owner, void (*release)(void *));

/// A black 8-bit image of that size that is never computed: operations run on it to learn the
/// size they would give (their headers), without pixels.
VipsImage *wi_placeholder(int width, int height, int bands);

/// Computes the whole image in the calling thread (one region, no worker threads) into a new
/// g_malloc'd buffer of `*length` bytes. Every operation in the pipeline then holds its whole
/// output at once: for small pipelines only, where it saves libvips' per-evaluation thread
/// start-up, which costs more than the work itself.
void *wi_render_inline(VipsImage *image, size_t *length);

/// Integer metadata, or `fallback` when absent.
int wi_get_int(VipsImage *image, const char *name, int fallback);

/// Integer array metadata (e.g. "delay"): number of items copied into `out`, at most `capacity`.
int wi_get_int_array(VipsImage *image, const char *name, int *out, int capacity);

/// True when the image carries an ICC profile.
int wi_has_icc(VipsImage *image);

/// Converts 8-bit RGB (bands 3) or RGBA (bands 4, alpha kept) pixels in place from the colour
/// space `profile` describes to sRGB, relative colorimetric like libvips' icc_transform. The
/// conversion is built once per distinct profile and kept (libvips builds one per call, about
/// 10 ms for an Adobe RGB photo). Returns 0, or -1 when the profile is not a usable RGB
/// profile (pixels untouched).
int wi_icc_rgb8_to_srgb(const void *profile, size_t profile_length, uint8_t *pixels, size_t pixel_count, int bands);

/// 1 when `wi_icc_rgb8_to_srgb` can convert from `profile` (an RGB profile lcms accepts), else 0.
/// Ask before reading pixels that can be read only once.
int wi_icc_rgb8_supported(const void *profile, size_t profile_length, int bands);

/// A progressive PNG decoder on libpng's push API: feed bytes as they arrive and read the
/// rows (and interlace passes) decoded so far as 8-bit RGBA.
typedef struct wi_png_stream wi_png_stream;
wi_png_stream *wi_png_stream_new(uint64_t max_pixels);
/// Feeds the next bytes. Returns 0, or -1 once the stream is broken (corrupt data).
int wi_png_stream_feed(wi_png_stream *stream, const void *data, size_t length);
/// Width and height once the header has arrived, else 0.
uint32_t wi_png_stream_width(const wi_png_stream *stream);
uint32_t wi_png_stream_height(const wi_png_stream *stream);
/// True when some pixel rows have been decoded.
int wi_png_stream_has_rows(const wi_png_stream *stream);
/// True after the last row of the last pass.
int wi_png_stream_is_complete(const wi_png_stream *stream);
/// The RGBA8 canvas (width * height * 4 bytes, rows not yet decoded are transparent).
const uint8_t *wi_png_stream_pixels(const wi_png_stream *stream);
void wi_png_stream_free(wi_png_stream *stream);

/// Resizes an 8-bit RGBA bitmap (`src_stride` bytes a row) down to `width` x `height` (each at
/// most the source's) into `dst` (`width * height * 4` bytes): a box shrink for reductions past
/// 4x, then Lanczos-3 with libvips' sample centres and edge copying. With `premultiply`, the
/// colours are weighted by alpha meanwhile (8-bit premultiplied, as Pillow resizes RGBA), so
/// that transparent pixels do not bleed into their neighbours; without it, every band is
/// filtered alike (for opaque bitmaps). Returns 0, or -1 on bad sizes or no memory. `dst`
/// receives the result turned upright from EXIF `orientation` (1-8; 5-8 swap the sides).
int wi_resample_rgba8(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst, int width,
                      int height, int orientation, int premultiply);

/// The first three bands of `pixels` RGBA8 pixels into `dst` (3 bytes a pixel).
void wi_rgba8_to_rgb8(const uint8_t *src, size_t pixels, uint8_t *dst);
/// Computes an 8-bit RGB or RGBA image with libvips' workers into a new RGBA8 bitmap (g_free
/// it), an opaque alpha added to RGB in one pass after; NULL with libvips' error on failure.
void *wi_render_rgba8(VipsImage *image, size_t *length);

/// wi_resample_rgba8 in parts, for a libvips image computing its output area by area: the
/// plan for a `src_width` x `src_height` source and a `width` x `height` result (NULL on bad
/// sizes), the `source` area an output `area` reads, and that output area computed from it
/// (`src`: its top-left pixel) into `dst` (the area's top-left pixel, rows `dst_stride` bytes
/// apart; upright). The plan is read-only: threads may share it.
typedef struct {
    int left;
    int top;
    int width;
    int height;
} wi_rect;
typedef struct wi_resample_plan wi_resample_plan;
wi_resample_plan *wi_resample_plan_new(int src_width, int src_height, int width, int height, int premultiply);
void wi_resample_plan_free(wi_resample_plan *plan);
void wi_resample_plan_source(const wi_resample_plan *plan, wi_rect area, wi_rect *source);
int wi_resample_plan_run(const wi_resample_plan *plan, const uint8_t *src, size_t src_stride, wi_rect area, uint8_t *dst,
                         size_t dst_stride);

/// A lazy libvips image of 8-bit RGBA `in` resized by wi_resample_rgba8 to `width` x `height`
/// (each at most `in`'s), computed strip by strip when read; NULL with libvips' error.
VipsImage *wi_resample_lazy(VipsImage *in, int width, int height, int premultiply);

/// Turns a `width` x `height` RGBA8 bitmap upright from EXIF `orientation` (1-8) into `dst`
/// (the same byte count; 5-8 swap width and height).
void wi_orient_rgba8(const uint8_t *src, int width, int height, int orientation, uint8_t *dst);

/// Fills `out` (`width * height * 4` bytes) with `colour` whose alpha is scaled by the coverage
/// of a rectangle the size of the image with the `corners` (bit 0 top-left, 1 top-right, 2
/// bottom-left, 3 bottom-right) rounded by `radius` (at most half the shorter side), edges
/// antialiased; with `inset` > 0, by the coverage of the ring between that shape and the same
/// shape `inset` pixels inside it (radius less `inset`): a border.
void wi_rounded_rect_rgba8(int width, int height, double radius, unsigned corners, double inset, const uint8_t colour[4],
                           uint8_t *out);
/// `src`, an RGBA8 bitmap, into `dst` with its alpha scaled by the coverage of the rounded
/// rectangle wi_rounded_rect_rgba8 draws (no ring): only the pixels along the edges are computed.
void wi_round_corners_rgba8(const uint8_t *src, int width, int height, double radius, unsigned corners, uint8_t *dst);
/// The same for `count` RGBA8 pixels of row `y` of a `width` x `height` image, from column
/// `left`, in place.
void wi_round_corners_row(uint8_t *pixels, int y, int left, int count, int width, int height, double radius,
                          unsigned corners);
/// A lazy libvips image of 8-bit RGBA `in` rounded as wi_round_corners_rgba8 rounds a bitmap,
/// computed region by region when read; NULL with libvips' error.
VipsImage *wi_round_corners_lazy(VipsImage *in, double radius, unsigned corners);
/// The `area_width` x `area_height` area at (`left`, `top`) of wi_rounded_rect_rgba8's bitmap
/// into `out` (`area_width * area_height * 4` bytes).
void wi_rounded_rect_area_rgba8(int width, int height, double radius, unsigned corners, double inset,
                                const uint8_t colour[4], int left, int top, int area_width, int area_height,
                                uint8_t *out);

/// TurboJPEG with per-thread handles and buffers. Each returns 0, or -1 with a message for
/// `wi_tj_error` (this thread's last failure).
const char *wi_tj_error(void);
/// Stored size, and whether the file is CMYK or YCCK.
int wi_tj_header(const void *jpeg, size_t length, int *width, int *height, int *is_cmyk);
/// Decodes at the DCT scale giving `width` x `height` into `pixels` (RGBA8, alpha 255). Any
/// libjpeg warning is a failure.
int wi_tj_decode_rgba8(const void *jpeg, size_t length, int width, int height, uint8_t *pixels);
/// Decodes at DCT scale 1/`shrink`, giving `scaled_width` x `scaled_height`, then resizes its
/// top-left `used_width` x `used_height` to `width` x `height` (stored orientation) into
/// `pixels`, upright from `orientation` (wi_resample_rgba8). At 1/8 a progressive file is read
/// from the scans such a decode uses only (wi_jpeg_dc_scans): the same pixels.
int wi_tj_thumbnail_rgba8(const void *jpeg, size_t length, int shrink, int scaled_width, int scaled_height,
                          int used_width, int used_height, uint8_t *pixels, int width, int height, int orientation);
/// A progressive JPEG without the scans a 1/8 decode does not read, written to `out` (at least
/// `length` + 2 bytes): every segment but the AC scans of full-resolution components (a 1/8
/// decode reads only their DC; subsampled chroma goes through a small IDCT that reads all its
/// coefficients), then EOI. Returns its length, or 0 when the file is not progressive, has no
/// such scan, or cannot be walked to EOI.
size_t wi_jpeg_dc_scans(const uint8_t *jpeg, size_t length, uint8_t *out);
/// Decodes a progressive JPEG at DCT scale 1/8 from its DC coefficients alone, without
/// libjpeg's coefficient buffer for the whole image, into `pixels` (RGBA8, alpha 255, `width` x
/// `height`: the stored size over 8, rounded up): the samples libjpeg-turbo gives with block
/// smoothing off. Returns 0; 1 when the file is not one it reads (baseline, arithmetic-coded,
/// chroma subsampled, not 8-bit grey, YCbCr or RGB); -1 when its markers or DC scans hold
/// anything libjpeg would call corrupt, even in a warning. AC scans are passed over unread (a
/// 1/8 decode does not need them): damage there goes unnoticed, as when a thumbnail reads the
/// file cut to its DC scans (wi_jpeg_dc_scans).
int wi_jpeg_dc_rgba8(const uint8_t *jpeg, size_t length, int width, int height, uint8_t *pixels);
/// Encodes 3- or 4-band (alpha ignored) pixels at `quality` 1-100, 4:2:0 below 90 and 4:4:4
/// from 90 (as libvips' jpegsave). `*jpeg` stays valid until this thread's next encode.
int wi_tj_encode(const uint8_t *pixels, int width, int height, int bands, int quality, const uint8_t **jpeg,
                 size_t *length);
/// Call once `wi_tj_encode`'s output is copied: releases a large output buffer.
void wi_tj_encode_done(void);

/// Decodes a whole PNG of at most 8 bits a sample into RGBA8 (`*pixels` from g_malloc, for
/// the caller to free), read as libvips reads it: palette and grey expanded, transparency
/// (tRNS) made alpha, alpha 255 when the file has none, gamma left alone. Returns 0; -2 for
/// 16-bit samples, or alpha or transparency unless `allow_alpha`; -3 over `max_pixels`; -1 on
/// corrupt or truncated data.
int wi_png_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                        uint32_t *width, uint32_t *height);

/// The scans (SOS markers) of a progressive JPEG, counted up to `limit + 1`; 0 for a
/// sequential JPEG (at most one scan per component) or data that is not a JPEG.
size_t wi_jpeg_progressive_scans(const uint8_t *jpeg, size_t length, size_t limit);

/// The bytes a PNG's compressed metadata (iCCP, zTXt, compressed iTXt chunks) inflates to, in
/// all, counted up to `limit + 1`; 0 for data that is not a PNG. Nothing is kept.
size_t wi_png_inflated_metadata(const uint8_t *data, size_t length, size_t limit);

#endif
