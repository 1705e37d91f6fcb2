// The floor of the thumbnail job: the same work as ours done by direct C calls, in steps that
// can be timed one by one: TurboJPEG's DCT-scaled decode (or libpng's), the Lanczos-3 of
// CBitmapKernels called directly (the fastest resampler at hand; a plain scalar Lanczos-3 is
// here too, for reference), tjCompress2. No colour management: what ours spends converting
// from a profile shows as a gap against this floor.

#include "CBenchmarkBaselines.h"
#include "CBitmapKernels.h"

#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

// One handle of each per thread, made once, as baselines.c's.
static _Thread_local tjhandle bb_floor_decompressor = NULL;
static _Thread_local tjhandle bb_floor_compressor = NULL;

void bb_floor_bitmap_free(bb_floor_bitmap *bitmap) {
    free(bitmap->pixels);
    bitmap->pixels = NULL;
}

// JPEG: the smallest DCT scale (1/8, 1/4, 1/2, 1) whose rounded-down size still covers the
// output, as ours picks it; the scaled image (rounded up) decoded to RGBA8 (or RGB: `bands`),
// then used cropped to the size rounded down, as ours (and libvips' shrunk load) does.
static int bb_floor_decode_jpeg(const void *data, size_t length, int width, int height, int bands, bb_floor_bitmap *out) {
    if (bb_floor_decompressor == NULL) {
        bb_floor_decompressor = tjInitDecompress();
    }
    int source_width = 0, source_height = 0, subsampling = 0, colorspace = 0;
    if (bb_floor_decompressor == NULL ||
        tjDecompressHeader3(bb_floor_decompressor, data, (unsigned long)length, &source_width, &source_height,
                            &subsampling, &colorspace) != 0) {
        return -1;
    }
    int shrink = 8;
    while (shrink > 1 && (source_width / shrink < width || source_height / shrink < height)) {
        shrink /= 2;
    }
    int scaled_width = (source_width + shrink - 1) / shrink;
    int scaled_height = (source_height + shrink - 1) / shrink;
    out->width = source_width / shrink;
    out->height = source_height / shrink;
    out->stride = (size_t)scaled_width * (bands == 3 ? 3 : 4);
    out->pixels = malloc(out->stride * scaled_height);
    if (out->pixels == NULL) {
        return -1;
    }
    if (tjDecompress2(bb_floor_decompressor, data, (unsigned long)length, out->pixels, scaled_width, 0, scaled_height,
                      bands == 3 ? TJPF_RGB : TJPF_RGBA, 0) != 0) {
        bb_floor_bitmap_free(out);
        return -1;
    }
    return 0;
}

// PNG: libpng's simplified API, to RGBA8 (an opaque file gets alpha 255), whole.
static int bb_floor_decode_png(const void *data, size_t length, bb_floor_bitmap *out) {
    png_image image;
    memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) {
        return -1;
    }
    image.format = PNG_FORMAT_RGBA;
    out->width = (int)image.width;
    out->height = (int)image.height;
    out->stride = (size_t)out->width * 4;
    out->pixels = malloc(PNG_IMAGE_SIZE(image));
    if (out->pixels == NULL) {
        png_image_free(&image);
        return -1;
    }
    if (!png_image_finish_read(&image, NULL, out->pixels, (png_int_32)out->stride, NULL)) {
        bb_floor_bitmap_free(out);
        return -1;
    }
    return 0;
}

int bb_floor_decode(const void *data, size_t length, int is_png, int width, int height, int bands, bb_floor_bitmap *out) {
    return is_png ? bb_floor_decode_png(data, length, out) : bb_floor_decode_jpeg(data, length, width, height, bands, out);
}

int bb_floor_resample(const bb_floor_bitmap *in, int width, int height, bb_floor_bitmap *out) {
    out->width = width;
    out->height = height;
    out->stride = (size_t)width * 4;
    out->pixels = malloc(out->stride * height);
    if (out->pixels == NULL ||
        wi_resample_rgba8(in->pixels, in->width, in->height, in->stride, out->pixels, width, height, 1, 0) != 0) {
        bb_floor_bitmap_free(out);
        return -1;
    }
    return 0;
}

// MARK: A plain Lanczos-3 (Pillow's scheme: fixed-point taps per output sample, the horizontal
// pass into an 8-bit bitmap, then the vertical one), scalar C

enum { BB_WEIGHT_BITS = 14 };

typedef struct {
    int *first;
    int *count;
    int32_t *weights; // `taps` per output sample
    int taps;
} bb_axis;

static double bb_lanczos3(double x) {
    x = fabs(x);
    if (x < 1e-9) {
        return 1;
    }
    if (x >= 3) {
        return 0;
    }
    double px = M_PI * x;
    return 3 * sin(px) * sin(px / 3) / (px * px);
}

static int bb_axis_make(bb_axis *axis, int in, int out) {
    double scale = (double)in / out;
    double widen = scale > 1 ? scale : 1;
    double support = 3 * widen;
    axis->taps = (int)ceil(support) * 2 + 1;
    axis->first = malloc(sizeof(int) * (size_t)out);
    axis->count = malloc(sizeof(int) * (size_t)out);
    axis->weights = calloc((size_t)out * (size_t)axis->taps, sizeof(int32_t));
    if (axis->first == NULL || axis->count == NULL || axis->weights == NULL) {
        return -1;
    }
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale;
        int first = (int)floor(centre - support);
        int last = (int)ceil(centre + support);
        first = first < 0 ? 0 : first;
        last = last > in ? in : last;
        if (last - first > axis->taps) {
            last = first + axis->taps;
        }
        double sum = 0;
        double weights[64];
        int count = last - first < 64 ? last - first : 64;
        for (int k = 0; k < count; k++) {
            weights[k] = bb_lanczos3((first + k + 0.5 - centre) / widen);
            sum += weights[k];
        }
        for (int k = 0; k < count; k++) {
            axis->weights[(size_t)o * axis->taps + k] = (int32_t)lrint(weights[k] / sum * (1 << BB_WEIGHT_BITS));
        }
        axis->first[o] = first;
        axis->count[o] = count;
    }
    return 0;
}

static void bb_axis_free(bb_axis *axis) {
    free(axis->first);
    free(axis->count);
    free(axis->weights);
}

static inline uint8_t bb_clip(int32_t sum) {
    sum = (sum + (1 << (BB_WEIGHT_BITS - 1))) >> BB_WEIGHT_BITS;
    return (uint8_t)(sum < 0 ? 0 : sum > 255 ? 255 : sum);
}

int bb_plain_lanczos3(const bb_floor_bitmap *in, int width, int height, bb_floor_bitmap *out) {
    bb_axis horizontal = {0}, vertical = {0};
    uint8_t *middle = malloc((size_t)width * in->height * 4);
    int32_t *sums = malloc(sizeof(int32_t) * (size_t)width * 4);
    out->width = width;
    out->height = height;
    out->stride = (size_t)width * 4;
    out->pixels = malloc(out->stride * height);
    int failed = middle == NULL || sums == NULL || out->pixels == NULL || bb_axis_make(&horizontal, in->width, width) != 0 ||
                 bb_axis_make(&vertical, in->height, height) != 0;
    if (!failed) {
        for (int y = 0; y < in->height; y++) {
            const uint8_t *line = in->pixels + (size_t)y * in->stride;
            uint8_t *into = middle + (size_t)y * width * 4;
            for (int x = 0; x < width; x++) {
                const int32_t *weights = horizontal.weights + (size_t)x * horizontal.taps;
                const uint8_t *pixel = line + (size_t)horizontal.first[x] * 4;
                int32_t r = 0, g = 0, b = 0, a = 0;
                for (int k = 0; k < horizontal.count[x]; k++) {
                    r += weights[k] * pixel[4 * k];
                    g += weights[k] * pixel[4 * k + 1];
                    b += weights[k] * pixel[4 * k + 2];
                    a += weights[k] * pixel[4 * k + 3];
                }
                into[4 * x] = bb_clip(r);
                into[4 * x + 1] = bb_clip(g);
                into[4 * x + 2] = bb_clip(b);
                into[4 * x + 3] = bb_clip(a);
            }
        }
        // Each output row: whole input rows weighted and summed (a loop compilers vectorise).
        size_t row = (size_t)width * 4;
        for (int y = 0; y < height; y++) {
            const int32_t *weights = vertical.weights + (size_t)y * vertical.taps;
            const uint8_t *line = middle + (size_t)vertical.first[y] * row;
            for (size_t j = 0; j < row; j++) {
                sums[j] = weights[0] * line[j];
            }
            for (int k = 1; k < vertical.count[y]; k++) {
                line += row;
                for (size_t j = 0; j < row; j++) {
                    sums[j] += weights[k] * line[j];
                }
            }
            uint8_t *into = out->pixels + (size_t)y * row;
            for (size_t j = 0; j < row; j++) {
                into[j] = bb_clip(sums[j]);
            }
        }
    }
    bb_axis_free(&horizontal);
    bb_axis_free(&vertical);
    free(middle);
    free(sums);
    if (failed) {
        bb_floor_bitmap_free(out);
        return -1;
    }
    return 0;
}

long bb_floor_encode(const bb_floor_bitmap *in, int quality) {
    if (bb_floor_compressor == NULL) {
        bb_floor_compressor = tjInitCompress();
    }
    unsigned char *jpeg = NULL;
    unsigned long size = 0;
    if (bb_floor_compressor == NULL ||
        tjCompress2(bb_floor_compressor, in->pixels, in->width, (int)in->stride, in->height, TJPF_RGBA, &jpeg, &size, TJSAMP_420,
                    quality, 0) != 0) {
        tjFree(jpeg);
        return -1;
    }
    tjFree(jpeg);
    return (long)size;
}

long bb_floor_thumbnail_job(const void *data, size_t length, int is_png, int width, int height, int quality) {
    bb_floor_bitmap decoded = {0}, resized = {0};
    if (bb_floor_decode(data, length, is_png, width, height, 4, &decoded) != 0) {
        return -1;
    }
    int failed = bb_floor_resample(&decoded, width, height, &resized);
    bb_floor_bitmap_free(&decoded);
    if (failed) {
        return -1;
    }
    long size = bb_floor_encode(&resized, quality);
    bb_floor_bitmap_free(&resized);
    return size;
}
