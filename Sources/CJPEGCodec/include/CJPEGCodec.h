// JPEG decoding and encoding beside libvips: TurboJPEG with per-thread handles and buffers, and
// our decoder of progressive JPEGs at 1/8 from their DC scans (jpeg_dc.c).
#ifndef CJPEGCODEC_H
#define CJPEGCODEC_H

#include <stddef.h>
#include <stdint.h>

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

/// The scans (SOS markers) of a progressive JPEG, counted up to `limit + 1`; 0 for a
/// sequential JPEG (at most one scan per component) or data that is not a JPEG.
size_t wi_jpeg_progressive_scans(const uint8_t *jpeg, size_t length, size_t limit);

#endif
