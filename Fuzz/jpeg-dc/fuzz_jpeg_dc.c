// Differential target for our DC decoder (jpeg_dc.c) and the scan selection for 1/8 decodes
// (wi_jpeg_dc_scans), against libjpeg-turbo's own 1/8 decode with block smoothing off:
// 1. wherever libjpeg reads the input without a warning and the DC decoder takes the file,
//    the two give the same samples;
// 2. wherever libjpeg reads both the input and its cut to the scans a 1/8 decode reads
//    without a warning, the two decode to the same samples.
// Any difference aborts, with the first differing sample.
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

#include "CJPEGCodec.h"

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int warnings;
} reference_error;

static void reference_fail(j_common_ptr info) {
    longjmp(((reference_error *)(void *)info->err)->jump, 1);
}

static void reference_message(j_common_ptr info, int level) {
    if (level < 0) ((reference_error *)(void *)info->err)->warnings++;
}

// Up to 4 megapixels at 1/8 (a 16,000 x 16,000 file): larger ones cost the fuzzer its speed.
enum { MAX_EIGHTH_PIXELS = 250000 };

// libjpeg's 1/8 decode (RGBA, no block smoothing) into a new buffer: its size in *width x
// *height, NULL after an error or any warning. `header_only` stops after the header.
static uint8_t *reference_eighth(const uint8_t *jpeg, size_t length, int *width, int *height, int *progressive) {
    struct jpeg_decompress_struct info;
    reference_error error;
    uint8_t *volatile pixels = NULL;
    info.err = jpeg_std_error(&error.manager);
    error.manager.error_exit = reference_fail;
    error.manager.emit_message = reference_message;
    error.warnings = 0;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        return NULL;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, jpeg, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    *progressive = info.progressive_mode;
    info.scale_num = 1;
    info.scale_denom = 8;
    info.do_block_smoothing = FALSE;
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_calc_output_dimensions(&info);
    if ((size_t)info.output_width * info.output_height > MAX_EIGHTH_PIXELS) {
        jpeg_destroy_decompress(&info);
        return NULL;
    }
    jpeg_start_decompress(&info);
    *width = (int)info.output_width;
    *height = (int)info.output_height;
    pixels = malloc((size_t)*width * (size_t)*height * 4 + 1);
    if (!pixels) {
        jpeg_destroy_decompress(&info);
        return NULL;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + (size_t)info.output_scanline * (size_t)*width * 4;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    if (error.warnings) {
        free(pixels);
        return NULL;
    }
    return pixels;
}

static void expect_same(const char *what, const uint8_t *ours, const uint8_t *reference, int width, int height) {
    size_t count = (size_t)width * (size_t)height * 4;
    for (size_t i = 0; i < count; i++) {
        if (ours[i] != reference[i]) {
            fprintf(stderr, "%s: %dx%d, sample %zu (x %zu, y %zu, band %zu) is %d, libjpeg gives %d\n", what, width,
                    height, i, i / 4 % (size_t)width, i / 4 / (size_t)width, i % 4, ours[i], reference[i]);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int width = 0, height = 0, progressive = 0;
    uint8_t *reference = reference_eighth(data, size, &width, &height, &progressive);
    if (!reference) return 0;
    if (progressive) {
        uint8_t *ours = malloc((size_t)width * (size_t)height * 4 + 1);
        if (ours && wi_jpeg_dc_rgba8(data, size, width, height, ours) == 0) {
            expect_same("DC decoder", ours, reference, width, height);
        }
        free(ours);
        uint8_t *cut = malloc(size + 2);
        size_t cut_length = cut ? wi_jpeg_dc_scans(data, size, cut) : 0;
        if (cut_length > 0) {
            int cut_width = 0, cut_height = 0, cut_progressive = 0;
            uint8_t *from_cut = reference_eighth(cut, cut_length, &cut_width, &cut_height, &cut_progressive);
            if (from_cut) {
                if (cut_width != width || cut_height != height) {
                    fprintf(stderr, "scan selection: %dx%d, the whole file %dx%d\n", cut_width, cut_height, width, height);
                    abort();
                }
                expect_same("scan selection", from_cut, reference, width, height);
            }
            free(from_cut);
        }
        free(cut);
    }
    free(reference);
    return 0;
}
