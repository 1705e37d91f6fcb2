// PNG readers for untrusted bytes: a progressive (push) decoder on libpng, a whole-file decoder
// faster than libvips' loader (ours on libdeflate for the common files, libpng's for the rest),
// and a count of what a PNG's compressed metadata inflates to (a decode-time bomb check).
#ifndef CPNGREADERS_H
#define CPNGREADERS_H

#include <stddef.h>
#include <stdint.h>

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

/// Decodes a whole PNG of at most 8 bits a sample into RGBA8 (`*pixels` from g_malloc, for
/// the caller to free), read as libvips reads it: palette and grey expanded, transparency
/// (tRNS) made alpha, alpha 255 when the file has none, gamma left alone. Returns 0; -2 for
/// 16-bit samples, or alpha or transparency unless `allow_alpha`; -3 over `max_pixels`; -1 on
/// corrupt or truncated data.
/// Our reader takes non-interlaced files of 8-bit samples (png_fast.c), libpng the rest.
int wi_png_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                        uint32_t *width, uint32_t *height);
/// wi_png_decode_rgba8 by libpng alone.
int wi_png_libpng_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                               uint32_t *width, uint32_t *height);
/// wi_png_decode_rgba8 by our reader alone, with libdeflate's inflate and SSE2 unfiltering:
/// the same samples as libpng's, or 1 for a file it leaves to libpng (interlaced, 16-bit or
/// 1 to 4-bit samples, an animation, a checksum that does not match, chunks out of order...).
int wi_png_fast_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                             uint32_t *width, uint32_t *height);
/// wi_png_decode_rgba8 resized (Lanczos-3, wi_resample_rgba8) into `out`, `width` x `height`
/// after EXIF `orientation` (1...8) turns it upright, colours weighted by alpha with
/// `premultiply`: our reader decodes into this thread's scratch buffer, so that the bitmap the
/// resize reads is not allocated (and page-faulted) per file. The same returns, and -4 when
/// the size cannot be resized to (larger than the image).
int wi_png_thumbnail_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t *out,
                           int width, int height, int orientation, int premultiply);

/// The bytes a PNG's compressed metadata (iCCP, zTXt, compressed iTXt chunks) inflates to, in
/// all, counted up to `limit + 1`; 0 for data that is not a PNG. Nothing is kept.
size_t wi_png_inflated_metadata(const uint8_t *data, size_t length, size_t limit);
/// 1 when a chunk other than image data (IDAT, fdAT) declares more bytes than `data` holds
/// after it: libpng allocates such a chunk at its declared length (up to 2 GB) before reading it.
int wi_png_overlong_chunk(const uint8_t *data, size_t length);

#endif
