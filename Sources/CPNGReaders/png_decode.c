#include "CPNGReaders.h"
#include "png_reader.h"

#include <glib.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

// libpng's pull reader for a file held whole: about twice as fast as libvips' loader (libspng)
// on opaque files here. Our reader (png_fast.c) takes the common files first.

typedef struct {
    const uint8_t *bytes;
    size_t length;
    size_t offset;
} wi_png_source;

static void wi_png_read_memory(png_structp png, png_bytep out, size_t count) {
    wi_png_source *source = png_get_io_ptr(png);
    if (count > source->length - source->offset) {
        png_error(png, "truncated");
    }
    memcpy(out, source->bytes + source->offset, count);
    source->offset += count;
}

int wi_png_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                        uint32_t *width, uint32_t *height) {
    int status = wi_png_fast_decode_rgba8(data, length, max_pixels, allow_alpha, pixels, width, height);
    return status != 1 ? status : wi_png_libpng_decode_rgba8(data, length, max_pixels, allow_alpha, pixels, width, height);
}

int wi_png_libpng_decode_rgba8(const void *data, size_t length, uint64_t max_pixels, int allow_alpha, uint8_t **pixels,
                               uint32_t *width, uint32_t *height) {
    *pixels = NULL;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, wi_png_error, wi_png_warning);
    png_infop info = png == NULL ? NULL : png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        return -1;
    }
    wi_png_source source = {data, length, 0};
    // volatile: read after a longjmp back here.
    uint8_t *volatile out = NULL;
    png_bytep *volatile rows = NULL;
    volatile int status = -1;
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_set_read_fn(png, &source, wi_png_read_memory);
        // No chunk can be longer than the file: libpng, as Debian builds it, sets no limit of its
        // own and allocates a metadata chunk's declared length (1.77 GB for a 101-byte file, found
        // by the `png` fuzz target) before finding the bytes missing. Over the limit, libpng only
        // warns: wi_png_warning makes that an error.
        png_set_chunk_malloc_max(png, length > 0 ? length : 1);
        wi_png_skip_metadata(png);
#ifdef PNG_MAXIMUM_INFLATE_WINDOW
        // A zlib header may declare a smaller window than its stream uses: zlib reads with the
        // largest, as libvips' loader and our reader (libdeflate) do.
        png_set_option(png, PNG_MAXIMUM_INFLATE_WINDOW, PNG_OPTION_ON);
#endif
#ifdef PNG_IGNORE_ADLER32
        // Every chunk's CRC is still checked (a broken one fails the file); zlib's second
        // checksum over the same bytes costs 4% of the decode.
        png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
        png_read_info(png, info);
        uint32_t w = png_get_image_width(png, info);
        uint32_t h = png_get_image_height(png, info);
        int type = png_get_color_type(png, info);
        if ((!allow_alpha && ((type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS))) ||
            png_get_bit_depth(png, info) > 8) {
            status = -2;
        } else if (w == 0 || h == 0 || (uint64_t)w * h > max_pixels) {
            status = -3;
        } else {
            // 8-bit RGBA, as libvips' loader reads such files: transparency (tRNS) expanded to
            // alpha, an opaque alpha added to files without.
            png_set_expand(png);
            png_set_gray_to_rgb(png);
            png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
            png_set_interlace_handling(png);
            png_read_update_info(png, info);
            out = g_try_malloc((size_t)w * h * 4);
            rows = g_try_malloc(sizeof(png_bytep) * h);
            if (out != NULL && rows != NULL) {
                for (uint32_t y = 0; y < h; y++) {
                    rows[y] = out + (size_t)y * w * 4;
                }
                png_read_image(png, rows);
                png_read_end(png, NULL);
                *width = w;
                *height = h;
                status = 0;
            }
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    g_free(rows);
    if (status == 0) {
        *pixels = out;
    } else {
        g_free(out);
    }
    return status;
}
