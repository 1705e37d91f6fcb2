// A still WebP decoded in the thread that asks for its first rows, for a budget to see.
//
// libvips 8.14's webpload flags itself neither partial nor sequential, so libvips decodes the
// whole image into a temporary image first (in memory, or a file on disk past 100 MB), in its
// worker threads, before the first region: a time budget, counting the CPU time of the threads
// that compute its regions, saw none of it (a 100 MP WebP: seconds of decode, and a 400 MB
// temporary file). This reader runs libwebp's decode (WebPDecode, the call libvips makes, with
// the same settings) within the first rows asked for, in the asking thread, where the budget
// counts it and libwebp's row jobs poll it (webp_budget.c); the decoded RGBA is then handed out
// row by row.

#include "CVipsGlue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <webp/decode.h>

struct wi_webp_reader {
    uint8_t *data;
    size_t length;
    int width;
    int height;
    int bands;
    uint8_t *pixels;  // width x height RGBA, once decoded
    int failed;
    char message[160];
};

wi_webp_reader *wi_webp_reader_new(const uint8_t *webp, size_t length, int width, int height, int bands) {
    if (width <= 0 || height <= 0 || (bands != 3 && bands != 4)) {
        return NULL;
    }
    wi_webp_reader *reader = calloc(1, sizeof(wi_webp_reader));
    uint8_t *data = length > 0 ? malloc(length) : NULL;
    if (reader == NULL || data == NULL) {
        free(reader);
        free(data);
        return NULL;
    }
    memcpy(data, webp, length);
    *reader = (wi_webp_reader){.data = data, .length = length, .width = width, .height = height, .bands = bands};
    return reader;
}

// Decodes `webp` whole into `pixels` (RGBA, `width` x `height`, rows packed), as webp2vips.c's
// read_frame does: threads asked for (the row jobs, which run in the calling thread under a
// budget), libwebp's scaling to the size given. 0, or -1 with the reason in `message`.
static int wi_webp_decode_rgba(const uint8_t *webp, size_t length, int width, int height, uint8_t *pixels,
                               char *message, size_t capacity) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config) || WebPGetFeatures(webp, length, &config.input) != VP8_STATUS_OK) {
        snprintf(message, capacity, "%s", "unable to parse image");
        return -1;
    }
    config.options.use_threads = 1;
    if (config.input.width != width || config.input.height != height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = width * 4;
    config.output.u.RGBA.size = (size_t)width * (size_t)height * 4;
    VP8StatusCode status = WebPDecode(webp, length, &config);
    if (status != VP8_STATUS_OK) {
        // A spent budget fails a row job, which libwebp reports as an aborted output.
        snprintf(message, capacity, "%s", status == VP8_STATUS_USER_ABORT ? "stopped midway" : "unable to read pixels");
        return -1;
    }
    return 0;
}

static int wi_webp_reader_decode(wi_webp_reader *reader) {
    size_t size = (size_t)reader->width * (size_t)reader->height * 4;
    reader->pixels = malloc(size);
    if (reader->pixels == NULL) {
        snprintf(reader->message, sizeof reader->message, "cannot allocate %zu bytes for the pixels", size);
        return -1;
    }
    if (wi_webp_decode_rgba(reader->data, reader->length, reader->width, reader->height, reader->pixels, reader->message,
                            sizeof reader->message) != 0) {
        return -1;
    }
    // The compressed bytes are not needed any more.
    free(reader->data);
    reader->data = NULL;
    return 0;
}

int wi_webp_decode_to_file(const uint8_t *webp, size_t length, int fd, off_t offset, int *width, int *height) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(webp, length, &features) != VP8_STATUS_OK) {
        vips_error("wi_webp", "%s", "unable to parse image");
        return -1;
    }
    int features_width = features.width;
    int features_height = features.height;
    size_t size = (size_t)features_width * (size_t)features_height * 4;
    if (ftruncate(fd, offset + (off_t)size) != 0) {
        vips_error("wi_webp", "cannot size the output: %s", strerror(errno));
        return -1;
    }
    uint8_t *mapped = mmap(NULL, (size_t)offset + size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED) {
        vips_error("wi_webp", "cannot map the output: %s", strerror(errno));
        return -1;
    }
    char message[160];
    int status = wi_webp_decode_rgba(webp, length, features_width, features_height, mapped + offset, message, sizeof message);
    if (status == 0 && !features.has_alpha) {
        // As libvips reads it: opaque, whatever alpha samples the decode made.
        for (size_t at = 3; at < size; at += 4) {
            mapped[offset + (off_t)at] = 255;
        }
    }
    munmap(mapped, (size_t)offset + size);
    if (status != 0) {
        vips_error("wi_webp", "%s", message);
        return -1;
    }
    *width = features_width;
    *height = features_height;
    return 0;
}

int wi_webp_reader_rows(void *context, int top, int count, uint8_t *rows, size_t stride) {
    wi_webp_reader *reader = context;
    if (reader->failed || top < 0 || count < 0 || top + count > reader->height) {
        return -1;
    }
    if (reader->pixels == NULL && wi_webp_reader_decode(reader) != 0) {
        reader->failed = 1;
        return -1;
    }
    for (int y = 0; y < count; y++) {
        const uint8_t *from = reader->pixels + (size_t)(top + y) * (size_t)reader->width * 4;
        uint8_t *to = rows + (size_t)y * stride;
        if (reader->bands == 4) {
            memcpy(to, from, (size_t)reader->width * 4);
        } else {
            // Opaque: libvips drops the alpha its decode made.
            for (int x = 0; x < reader->width; x++) {
                memcpy(to + (size_t)x * 3, from + (size_t)x * 4, 3);
            }
        }
    }
    return 0;
}

const char *wi_webp_reader_message(void *context) {
    wi_webp_reader *reader = context;
    return reader->message;
}

void wi_webp_reader_free(void *context) {
    wi_webp_reader *reader = context;
    if (reader != NULL) {
        free(reader->data);
        free(reader->pixels);
        free(reader);
    }
}
