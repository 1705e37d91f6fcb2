// Kernels over 8-bit bitmaps, for the TurboJPEG and libpng engines and the transformers:
// Lanczos-3 resampling and round corners (over a bitmap held whole, or area by area for the
// lazy libvips images of CVipsGlue), EXIF orientation, RGB <-> RGBA, and colour conversion to
// sRGB by ICC profile.
#ifndef CBITMAPKERNELS_H
#define CBITMAPKERNELS_H

#include <stddef.h>
#include <stdint.h>

// Per-thread scratch buffers, which the JPEG codec (CJPEGCodec) keeps too.
#include "wi_scratch_buffer.h"

/// What the kernels ask as they go, every few rows of a large bitmap: nonzero stops the work,
/// which then fails (the decode's time budget, wi_budget_poll, set once by CVipsGlue's
/// wi_init). NULL (the default): nothing stops them.
void wi_kernels_set_stop(int (*stop)(void));

/// Resizes an 8-bit RGBA bitmap (`src_stride` bytes a row) down to `width` x `height` (each at
/// most the source's) into `dst` (`width * height * 4` bytes): a box shrink for reductions past
/// 4x, then Lanczos-3 with libvips' sample centres and edge copying. With `premultiply`, the
/// colours are weighted by alpha meanwhile (8-bit premultiplied, as Pillow resizes RGBA), so
/// that transparent pixels do not bleed into their neighbours; without it, every band is
/// filtered alike (for opaque bitmaps). Returns 0, or -1 on bad sizes, no memory or a stop
/// (wi_kernels_set_stop). `dst` receives the result turned upright from EXIF `orientation`
/// (1-8; 5-8 swap the sides).
int wi_resample_rgba8(const uint8_t *src, int src_width, int src_height, size_t src_stride, uint8_t *dst, int width,
                      int height, int orientation, int premultiply);

/// The first three bands of `pixels` RGBA8 pixels into `dst` (3 bytes a pixel), and back with
/// an opaque alpha: one pass each where libvips' extract_band and bandjoin take a pipeline pass.
void wi_rgba8_to_rgb8(const uint8_t *src, size_t pixels, uint8_t *dst);
void wi_rgb8_to_rgba8(const uint8_t *src, size_t pixels, uint8_t *dst);

/// `pixels` RGBA8 pixels into `dst` with their colours multiplied by alpha, rounded (8-bit
/// premultiplied), and back (a colour over alpha, limited to 255; 0 where alpha is 0).
/// `dst` may be `src`.
void wi_premultiply_rgba8(const uint8_t *src, size_t pixels, uint8_t *dst);
void wi_unpremultiply_rgba8(const uint8_t *src, size_t pixels, uint8_t *dst);

/// `pixels` straight-alpha RGBA8 pixels of `src` blended over those of `dst`, in place ("source
/// over destination", each result rounded).
void wi_blend_over_rgba8(const uint8_t *src, size_t pixels, uint8_t *dst);

/// wi_resample_rgba8 in parts, for a libvips image computing its output area by area: the
/// plan for a `src_width` x `src_height` source and a `width` x `height` result (NULL on bad
/// sizes), the `source` area an output `area` reads, and that output area computed from it
/// (`src`: its top-left pixel, `src_bands` 4 for RGBA or 3 for opaque RGB, widened as read)
/// into `dst` (the area's top-left pixel, RGBA rows `dst_stride` bytes apart; upright). The
/// plan is read-only: threads may share it.
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
int wi_resample_plan_run(const wi_resample_plan *plan, const uint8_t *src, size_t src_stride, int src_bands, wi_rect area,
                         uint8_t *dst, size_t dst_stride);

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
/// rectangle wi_rounded_rect_rgba8 draws (no ring): only the corner pixels are computed.
void wi_round_corners_rgba8(const uint8_t *src, int width, int height, double radius, unsigned corners, uint8_t *dst);
/// How many rows at the top and at the bottom round corners of `radius` reach into (the rows
/// between keep every pixel).
int wi_round_corners_depth(int width, int height, double radius);
/// The same for `count` RGBA8 pixels of row `y` of a `width` x `height` image, from column
/// `left`, in place; with `premultiplied`, pixels 8-bit premultiplied, every band scaled.
void wi_round_corners_row(uint8_t *pixels, int y, int left, int count, int width, int height, double radius,
                          unsigned corners, int premultiplied);
/// The `area_width` x `area_height` area at (`left`, `top`) of wi_rounded_rect_rgba8's bitmap
/// into `out` (`area_width * area_height * 4` bytes).
void wi_rounded_rect_area_rgba8(int width, int height, double radius, unsigned corners, double inset,
                                const uint8_t colour[4], int left, int top, int area_width, int area_height,
                                uint8_t *out);

/// Converts 8-bit RGB (bands 3) or RGBA (bands 4, alpha kept) pixels in place from the colour
/// space `profile` describes to sRGB, relative colorimetric like libvips' icc_transform. The
/// conversion is built once per distinct profile and kept (libvips builds one per call, about
/// 10 ms for an Adobe RGB photo). `opaque`: RGBA whose alpha is 255 everywhere (a JPEG's),
/// which lets the conversion write whole pixels. Returns 0, or -1 when the profile is not a
/// usable RGB profile (pixels untouched).
int wi_icc_rgb8_to_srgb(const void *profile, size_t profile_length, uint8_t *pixels, size_t pixel_count, int bands,
                        int opaque);

/// 1 when `wi_icc_rgb8_to_srgb` can convert from `profile` (an RGB profile lcms accepts), else 0.
/// Ask before reading pixels that can be read only once.
int wi_icc_rgb8_supported(const void *profile, size_t profile_length, int bands);

/// Tables that turn one colour encoding's samples (16-bit codes) into 8-bit sRGB: transfer
/// (CICP: 16 PQ, 18 HLG, SDR curves), primaries (CICP), the code of full signal
/// (`signal_max`: 65535, or 1023 << 6 for 10-bit samples libvips widened by a shift) and, for
/// PQ, the source's peak in cd/m² (0: 1,000). PQ and HLG are tone mapped (BT.2390's EETF on
/// luminance, 203 cd/m² to SDR white), other primaries mapped into sRGB's gamut keeping hue
/// (tone_map.c). Built once per encoding and kept for the process (up to 32 encodings; NULL
/// past them or for a `signal_max` out of 255...65535). Immutable: any thread may read it.
typedef struct wi_tone_map wi_tone_map;
const wi_tone_map *wi_tone_map_shared(int transfer, int primaries, int signal_max, double peak_luminance);
/// The same tables, the caller's own (free with wi_tone_map_free): for encodings past the 32
/// that wi_tone_map_shared keeps.
wi_tone_map *wi_tone_map_new(int transfer, int primaries, int signal_max, double peak_luminance);
void wi_tone_map_free(wi_tone_map *map);
/// One pixel's codes to 8-bit sRGB (`out[0...2]`).
void wi_tone_map_pixel(const wi_tone_map *map, uint16_t r, uint16_t g, uint16_t b, uint8_t out[3]);
/// `pixels` pixels of `bands` (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA) 16-bit samples into
/// 8-bit RGB, or RGBA when `bands` has alpha (alpha scaled as the signal, full at `signal_max`).
void wi_tone_map_row16(const wi_tone_map *map, const uint16_t *src, int bands, size_t pixels, uint8_t *dst);
/// The same from 8-bit samples (codes widened by 257), alpha kept.
void wi_tone_map_row8(const wi_tone_map *map, const uint8_t *src, int bands, size_t pixels, uint8_t *dst);
/// SMPTE ST 2084: a PQ signal (0...1) to cd/m², and back.
double wi_pq_to_nits(double signal);
double wi_nits_to_pq(double nits);
/// ITU-R BT.2390's EETF (5.4.1) on luminance: `nits` of a source mastered to `source_peak`
/// onto a display of `target_peak` (black 0), in cd/m².
double wi_bt2390_eetf(double nits, double source_peak, double target_peak);

#endif
