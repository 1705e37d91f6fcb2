// Progressive JPEGs at 1/8 from their DC coefficients alone (jpeg_dc.c).

#ifndef WI_JPEG_DC_H
#define WI_JPEG_DC_H

#include "thread_state.h"

#include <stddef.h>
#include <stdint.h>

// How the decoded components become RGB: as libjpeg's jpeg_color_space says.
typedef enum {
    WI_DC_GREY,   // one component
    WI_DC_YCBCR,  // three, converted with libjpeg's tables
    WI_DC_RGB,    // three, as they are
} wi_dc_colours;

// The results of wi_jpeg_dc_rgba8 (CJPEGCodec.h).
enum {
    WI_DC_DONE = 0,
    WI_DC_FAILED = -1,     // corrupt or unusual data: libjpeg decides
    WI_DC_NOT_TAKEN = 1,   // not a file this decoder reads (baseline, subsampled, 12-bit...)
    WI_DC_STOPPED = -2,    // its `stop` said to stop: nothing else is to read the file
};

// RGBA samples (alpha 255), `width` x `height`, from the DC coefficients `dc` of each component
// (`stride` blocks a row) with their DC quantisers, as libjpeg-turbo computes them at 1/8
// (jpeg_dc_samples.c).
void wi_dc_samples(int width, int height, const int16_t *const dc[], const int16_t quant[], size_t stride,
                   wi_dc_colours colours, uint8_t *pixels);

// Where the entropy-coded data starting at `from` ends: at the next marker that is not a
// restart (0xFF followed by neither a stuffed 0 nor RST0-7); 0 when no such marker follows.
size_t wi_jpeg_scan_end(const uint8_t *jpeg, size_t length, size_t from);

// Decodes the progressive JPEG `jpeg` at DCT scale 1/8 into `pixels` (RGBA, alpha 255,
// `width` x `height`, which must be the image's size over 8, rounded up): the samples
// libjpeg-turbo gives with block smoothing off. `coefficients` holds the DC coefficients
// meanwhile. `stop` (NULL: none) is asked at every row of MCUs of every scan: nonzero ends the
// decode with WI_DC_STOPPED.
int wi_jpeg_dc_decode(const uint8_t *jpeg, size_t length, wi_dc_colours colours, int width, int height,
                      uint8_t *pixels, wi_buffer *coefficients, int (*stop)(void));

#endif
