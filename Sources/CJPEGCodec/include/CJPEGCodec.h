// JPEG decoding and encoding beside libvips: TurboJPEG with per-thread handles and buffers, and
// our decoder of progressive JPEGs at 1/8 from their DC scans (jpeg_dc.c).
#ifndef CJPEGCODEC_H
#define CJPEGCODEC_H

#include <stddef.h>
#include <stdint.h>

/// What a decode returns when its `stop` said to stop midway (a spent time budget).
#define WI_JPEG_STOPPED (-2)

/// TurboJPEG with per-thread handles and buffers. Each returns 0, or -1 with a message for
/// `wi_tj_error` (this thread's last failure); the decodes return WI_JPEG_STOPPED when `stop`
/// (NULL: none), asked as a progressive or large file is read, said to stop.
const char *wi_tj_error(void);
/// Stored size, whether the file is CMYK or YCCK, and whether it is grey (one component).
int wi_tj_header(const void *jpeg, size_t length, int *width, int *height, int *is_cmyk, int *is_gray);
/// Decodes at DCT scale 1/`shrink`, giving `width` x `height`, into `pixels` (RGBA8, alpha
/// 255). Any libjpeg warning is a failure. A progressive file, or a decode of more than 4 MP,
/// is read by libjpeg's own API (wi_jpeg_decode_rgba8), which `stop` can end between rows (of
/// blocks).
int wi_tj_decode_rgba8(const void *jpeg, size_t length, int shrink, int width, int height, uint8_t *pixels,
                       int (*stop)(void));
/// Decodes at DCT scale 1/`shrink`, giving `scaled_width` x `scaled_height`, then resizes its
/// top-left `used_width` x `used_height` to `width` x `height` (stored orientation) into
/// `pixels`, upright from `orientation` (wi_resample_rgba8). At 1/8 a progressive file is read
/// from the scans such a decode uses only (wi_jpeg_dc_scans): the same pixels.
int wi_tj_thumbnail_rgba8(const void *jpeg, size_t length, int shrink, int scaled_width, int scaled_height,
                          int used_width, int used_height, uint8_t *pixels, int width, int height, int orientation,
                          int (*stop)(void));

/// Decodes `jpeg` whole with libjpeg's API at DCT scale 1/`shrink` into `pixels` (RGBA8, alpha
/// 255, `width` x `height`: the scaled size, rounded up), with libjpeg's defaults as TurboJPEG
/// sets them, block smoothing on or off (`smoothing`). Any warning is a failure. `stop` (NULL:
/// none) is asked at every row of blocks of every scan and every row read. Returns 0, -1 with
/// the reason in `message` (`capacity` bytes), or WI_JPEG_STOPPED.
int wi_jpeg_decode_rgba8(const uint8_t *jpeg, size_t length, int shrink, int smoothing, int width, int height,
                         uint8_t *pixels, int (*stop)(void), char *message, size_t capacity);

/// A JPEG's rows read as libvips' jpegload reads them (libjpeg's output colour space, CMYK
/// inverted, DCT scale 1/`shrink`, 100 warnings a failure, and a truncated file too when
/// `fail_on_truncation`: fail_on=truncated, else fail_on=none), by libjpeg's API with `stop`
/// (NULL: none) asked at every row of blocks of every scan and every row read: for progressive
/// files, which libjpeg reads whole before their first row. The reader keeps a copy of the
/// bytes; NULL when out of memory.
typedef struct wi_jpeg_reader wi_jpeg_reader;
wi_jpeg_reader *wi_jpeg_reader_new(const uint8_t *jpeg, size_t length, int shrink, int fail_on_truncation,
                                   int (*stop)(void));
/// Reads the header: the size rows come out at (the scaled size, rounded up: wider and taller
/// than jpegload's, which crops) and their samples a pixel. 0, or -1 (wi_jpeg_reader_message).
int wi_jpeg_reader_open(wi_jpeg_reader *reader, int *width, int *height, int *bands);
/// The next `count` rows from row `top` (rows come in order, each read once) into `rows`,
/// `stride` bytes apart: 0, -1 (wi_jpeg_reader_message) or WI_JPEG_STOPPED. `reader` is a
/// wi_jpeg_reader, untyped to serve as a wi_rows_fill (CVipsGlue).
int wi_jpeg_reader_rows(void *reader, int top, int count, uint8_t *rows, size_t stride);
/// Why the reader last failed (a wi_jpeg_reader, untyped to serve as a wi_rows_message).
const char *wi_jpeg_reader_message(void *reader);
/// Frees a wi_jpeg_reader (untyped to serve as a release callback).
void wi_jpeg_reader_free(void *reader);
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
