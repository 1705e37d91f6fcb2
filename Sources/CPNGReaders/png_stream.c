// A progressive PNG decoder on libpng's push API (wi_png_stream_*).

#include "CPNGReaders.h"
#include "png_reader.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct wi_png_stream {
    png_structp png;
    png_infop info;
    uint64_t max_pixels;
    uint32_t width;
    uint32_t height;
    uint8_t *pixels;
    int has_rows;
    int complete;
    int broken;
};

static void wi_png_info(png_structp png, png_infop info) {
    wi_png_stream *stream = (wi_png_stream *)png_get_progressive_ptr(png);
    uint32_t width = png_get_image_width(png, info);
    uint32_t height = png_get_image_height(png, info);
    if ((uint64_t)width * height > stream->max_pixels) {
        png_error(png, "image exceeds the pixel limit");
    }
    // Normalise every colour type and depth to 8-bit RGBA.
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    stream->pixels = calloc((size_t)width * height, 4);
    if (stream->pixels == NULL) {
        png_error(png, "out of memory");
    }
    stream->width = width;
    stream->height = height;
}

static void wi_png_row(png_structp png, png_bytep row, png_uint_32 row_index, int pass) {
    (void)pass;
    wi_png_stream *stream = (wi_png_stream *)png_get_progressive_ptr(png);
    if (row == NULL || row_index >= stream->height) {
        return;
    }
    png_progressive_combine_row(png, stream->pixels + (size_t)row_index * stream->width * 4, row);
    stream->has_rows = 1;
}

static void wi_png_end(png_structp png, png_infop info) {
    (void)info;
    wi_png_stream *stream = (wi_png_stream *)png_get_progressive_ptr(png);
    stream->complete = 1;
}

wi_png_stream *wi_png_stream_new(uint64_t max_pixels) {
    wi_png_stream *stream = calloc(1, sizeof(wi_png_stream));
    if (stream == NULL) {
        return NULL;
    }
    stream->max_pixels = max_pixels;
    stream->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, wi_png_error, wi_png_warning);
    if (stream->png == NULL) {
        free(stream);
        return NULL;
    }
    stream->info = png_create_info_struct(stream->png);
    if (stream->info == NULL) {
        png_destroy_read_struct(&stream->png, NULL, NULL);
        free(stream);
        return NULL;
    }
    png_set_progressive_read_fn(stream->png, stream, wi_png_info, wi_png_row, wi_png_end);
    wi_png_skip_metadata(stream->png);
    return stream;
}

int wi_png_stream_feed(wi_png_stream *stream, const void *data, size_t length) {
    if (stream->broken) {
        return -1;
    }
    if (setjmp(png_jmpbuf(stream->png))) {
        stream->broken = 1;
        return -1;
    }
    png_process_data(stream->png, stream->info, (png_bytep)data, length);
    return 0;
}

uint32_t wi_png_stream_width(const wi_png_stream *stream) { return stream->pixels ? stream->width : 0; }
uint32_t wi_png_stream_height(const wi_png_stream *stream) { return stream->pixels ? stream->height : 0; }
int wi_png_stream_has_rows(const wi_png_stream *stream) { return stream->has_rows; }
int wi_png_stream_is_complete(const wi_png_stream *stream) { return stream->complete; }
const uint8_t *wi_png_stream_pixels(const wi_png_stream *stream) { return stream->pixels; }

void wi_png_stream_free(wi_png_stream *stream) {
    if (stream == NULL) {
        return;
    }
    png_destroy_read_struct(&stream->png, &stream->info, NULL);
    free(stream->pixels);
    free(stream);
}
