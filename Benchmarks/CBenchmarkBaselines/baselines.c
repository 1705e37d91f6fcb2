#include "CBenchmarkBaselines.h"

#include "CBitmapKernels.h"

#include <lcms2.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>
#include <vips/vips.h>

void bb_get_vips_settings(bb_vips_settings *out) {
    out->major = vips_version(0);
    out->minor = vips_version(1);
    out->micro = vips_version(2);
    out->cache_max = vips_cache_get_max();
    out->concurrency = vips_concurrency_get();
}

char *bb_vips_error(void) {
    return vips_error_buffer_copy();
}

void bb_free(void *pointer) {
    g_free(pointer);
}

// The size that fits `source_width` x `source_height` inside `width` x `height`, never upscaling.
static void bb_fit(int source_width, int source_height, int width, int height, int *out_width, int *out_height) {
    double scale = fmin((double)width / source_width, (double)height / source_height);
    if (scale > 1) {
        scale = 1;
    }
    *out_width = (int)fmax(1, rint(source_width * scale));
    *out_height = (int)fmax(1, rint(source_height * scale));
}

// Writes `image` (consumed) to memory as RGBA8 and frees the pixels: the size, or -1.
static long bb_write_rgba(VipsImage *image) {
    if (image->Bands == 3) {
        VipsImage *with_alpha = NULL;
        int failed = vips_bandjoin_const1(image, &with_alpha, 255, NULL);
        g_object_unref(image);
        if (failed) {
            return -1;
        }
        image = with_alpha;
    }
    size_t size = 0;
    void *pixels = vips_image_write_to_memory(image, &size);
    g_object_unref(image);
    if (pixels == NULL) {
        return -1;
    }
    g_free(pixels);
    return (long)size;
}

// Saves `image` (consumed) as JPEG Q=quality, stripped, and frees the bytes: the size, or -1.
static long bb_save_jpeg(VipsImage *image, int quality) {
    void *buffer = NULL;
    size_t size = 0;
    int failed = vips_jpegsave_buffer(image, &buffer, &size, "Q", quality, "strip", TRUE, NULL);
    g_object_unref(image);
    if (failed) {
        return -1;
    }
    g_free(buffer);
    return (long)size;
}

// MARK: libvips

long bb_vips_decode_rgba(const void *data, size_t length, int is_png) {
    VipsImage *image = NULL;
    int failed = is_png
        ? vips_pngload_buffer((void *)data, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, NULL)
        : vips_jpegload_buffer((void *)data, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    return failed ? -1 : bb_write_rgba(image);
}

long bb_vips_thumbnail_rgba(const void *data, size_t length, int width, int height) {
    VipsImage *image = NULL;
    if (vips_thumbnail_buffer((void *)data, length, &image, width, "height", height, "size", VIPS_SIZE_DOWN, NULL)) {
        return -1;
    }
    return bb_write_rgba(image);
}

long bb_vips_encode_jpeg(const void *rgba, int width, int height, int has_alpha, int quality) {
    VipsImage *image = vips_image_new_from_memory(rgba, (size_t)width * height * 4, width, height, 4, VIPS_FORMAT_UCHAR);
    if (image == NULL) {
        return -1;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    VipsImage *opaque = NULL;
    int failed;
    if (has_alpha) {
        double white[3] = { 255, 255, 255 };
        VipsArrayDouble *background = vips_array_double_new(white, 3);
        failed = vips_flatten(image, &opaque, "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
    } else {
        failed = vips_extract_band(image, &opaque, 0, "n", 3, NULL);
    }
    g_object_unref(image);
    return failed ? -1 : bb_save_jpeg(opaque, quality);
}

long bb_vips_thumbnail_job(const void *data, size_t length, int width, int height, int quality) {
    VipsImage *image = NULL;
    if (vips_thumbnail_buffer((void *)data, length, &image, width, "height", height, "size", VIPS_SIZE_DOWN, NULL)) {
        return -1;
    }
    return bb_save_jpeg(image, quality);
}

long bb_vips_thumbnail_job_srgb(const void *data, size_t length, int width, int height, int quality) {
    VipsImage *image = NULL;
    if (vips_thumbnail_buffer((void *)data, length, &image, width, "height", height, "size", VIPS_SIZE_DOWN,
                              "export_profile", "srgb", NULL)) {
        return -1;
    }
    return bb_save_jpeg(image, quality);
}

long bb_vips_header(const void *data, size_t length, int is_png) {
    VipsImage *image = NULL;
    int failed = is_png
        ? vips_pngload_buffer((void *)data, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, NULL)
        : vips_jpegload_buffer((void *)data, length, &image, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (failed) {
        return -1;
    }
    long width = image->Xsize;
    g_object_unref(image);
    return width;
}

// vips_resize of `image` (consumed) to exactly `width` x `height`.
static VipsImage *bb_resize_to(VipsImage *image, int width, int height) {
    VipsImage *out = NULL;
    int failed = vips_resize(image, &out, (double)width / image->Xsize, "vscale", (double)height / image->Ysize, NULL);
    g_object_unref(image);
    return failed ? NULL : out;
}

long bb_vips_jpeg_shrink_job(const void *data, size_t length, int width, int height, int quality) {
    VipsImage *header = NULL;
    if (vips_jpegload_buffer((void *)data, length, &header, "access", VIPS_ACCESS_SEQUENTIAL, NULL)) {
        return -1;
    }
    int source_width = header->Xsize;
    int source_height = header->Ysize;
    g_object_unref(header);
    int out_width = 0;
    int out_height = 0;
    bb_fit(source_width, source_height, width, height, &out_width, &out_height);
    int shrink = 8;
    while (shrink > 1 && (source_width / shrink < out_width || source_height / shrink < out_height)) {
        shrink /= 2;
    }
    VipsImage *image = NULL;
    if (vips_jpegload_buffer((void *)data, length, &image, "shrink", shrink, "access", VIPS_ACCESS_SEQUENTIAL, NULL)) {
        return -1;
    }
    image = bb_resize_to(image, out_width, out_height);
    return image == NULL ? -1 : bb_save_jpeg(image, quality);
}

long bb_vips_resize_rgba(const void *rgba, int source_width, int source_height, int width, int height) {
    VipsImage *image = vips_image_new_from_memory(
        rgba, (size_t)source_width * source_height * 4, source_width, source_height, 4, VIPS_FORMAT_UCHAR);
    if (image == NULL) {
        return -1;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    int out_width = 0;
    int out_height = 0;
    bb_fit(source_width, source_height, width, height, &out_width, &out_height);
    image = bb_resize_to(image, out_width, out_height);
    return image == NULL ? -1 : bb_write_rgba(image);
}

// MARK: TurboJPEG

// One decompressor and one compressor per thread, made once: the fastest way to call TurboJPEG.
static _Thread_local tjhandle bb_decompressor = NULL;
static _Thread_local tjhandle bb_compressor = NULL;

static tjhandle bb_tj_decompressor(void) {
    if (bb_decompressor == NULL) {
        bb_decompressor = tjInitDecompress();
    }
    return bb_decompressor;
}

static tjhandle bb_tj_compressor(void) {
    if (bb_compressor == NULL) {
        bb_compressor = tjInitCompress();
    }
    return bb_compressor;
}

// tjDecompress2 of the whole file to RGBA8 in a fresh buffer: the pixels and their count, or NULL.
static unsigned char *bb_tj_decoded_rgba(const void *jpeg, size_t length, size_t *pixel_count) {
    tjhandle handle = bb_tj_decompressor();
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    if (handle == NULL ||
        tjDecompressHeader3(handle, jpeg, (unsigned long)length, &width, &height, &subsampling, &colorspace) != 0) {
        return NULL;
    }
    unsigned char *pixels = malloc((size_t)width * height * 4);
    if (pixels == NULL) {
        return NULL;
    }
    if (tjDecompress2(handle, jpeg, (unsigned long)length, pixels, width, 0, height, TJPF_RGBA, 0) != 0) {
        free(pixels);
        return NULL;
    }
    *pixel_count = (size_t)width * height;
    return pixels;
}

long bb_tj_decode_rgba(const void *jpeg, size_t length) {
    size_t count = 0;
    unsigned char *pixels = bb_tj_decoded_rgba(jpeg, length, &count);
    if (pixels == NULL) {
        return -1;
    }
    free(pixels);
    return (long)(count * 4);
}

long bb_tj_decode_rgba_to_srgb(const void *jpeg, size_t length, const void *profile, size_t profile_length) {
    size_t count = 0;
    unsigned char *pixels = bb_tj_decoded_rgba(jpeg, length, &count);
    if (pixels == NULL) {
        return -1;
    }
    int failed = wi_icc_rgb8_to_srgb(profile, profile_length, pixels, count, 4, 1);
    free(pixels);
    return failed ? -1 : (long)(count * 4);
}

// The lcms2 transform of the last profile asked for (the benchmark uses one at a time, from
// one thread), and a copy of that profile to recognise it.
static cmsHTRANSFORM bb_lcms2_transform = NULL;
static void *bb_lcms2_profile = NULL;
static size_t bb_lcms2_profile_length = 0;

static cmsHTRANSFORM bb_lcms2_transform_for(const void *profile, size_t length) {
    if (bb_lcms2_transform != NULL && length == bb_lcms2_profile_length && memcmp(profile, bb_lcms2_profile, length) == 0) {
        return bb_lcms2_transform;
    }
    if (bb_lcms2_transform != NULL) {
        cmsDeleteTransform(bb_lcms2_transform);
        bb_lcms2_transform = NULL;
    }
    g_free(bb_lcms2_profile);
    bb_lcms2_profile = g_memdup2(profile, length);
    bb_lcms2_profile_length = length;
    cmsHPROFILE in = cmsOpenProfileFromMem(profile, (cmsUInt32Number)length);
    cmsHPROFILE out = cmsCreate_sRGBProfile();
    if (in != NULL && out != NULL) {
        bb_lcms2_transform = cmsCreateTransform(in, TYPE_RGBA_8, out, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC,
                                                cmsFLAGS_COPY_ALPHA | cmsFLAGS_HIGHRESPRECALC);
    }
    if (in != NULL) {
        cmsCloseProfile(in);
    }
    if (out != NULL) {
        cmsCloseProfile(out);
    }
    return bb_lcms2_transform;
}

long bb_tj_decode_rgba_lcms2(const void *jpeg, size_t length, const void *profile, size_t profile_length) {
    cmsHTRANSFORM transform = bb_lcms2_transform_for(profile, profile_length);
    size_t count = 0;
    unsigned char *pixels = transform == NULL ? NULL : bb_tj_decoded_rgba(jpeg, length, &count);
    if (pixels == NULL) {
        return -1;
    }
    cmsDoTransform(transform, pixels, pixels, (cmsUInt32Number)count);
    free(pixels);
    return (long)(count * 4);
}

// DCT-scaled decode to RGB, then vips_resize to fit: the resized image (pixels not yet computed;
// `*pixels` must stay alive until it is written, then be freed), or NULL.
static VipsImage *bb_tj_scaled(const void *jpeg, size_t length, int width, int height, unsigned char **pixels) {
    tjhandle handle = bb_tj_decompressor();
    int source_width = 0, source_height = 0, subsampling = 0, colorspace = 0;
    if (handle == NULL ||
        tjDecompressHeader3(handle, jpeg, (unsigned long)length, &source_width, &source_height, &subsampling,
                            &colorspace) != 0) {
        return NULL;
    }
    int out_width = 0;
    int out_height = 0;
    bb_fit(source_width, source_height, width, height, &out_width, &out_height);
    int count = 0;
    tjscalingfactor *factors = tjGetScalingFactors(&count);
    int scaled_width = source_width;
    int scaled_height = source_height;
    for (int index = 0; factors != NULL && index < count; index++) {
        if (factors[index].num > factors[index].denom) {
            continue;
        }
        int candidate_width = TJSCALED(source_width, factors[index]);
        int candidate_height = TJSCALED(source_height, factors[index]);
        if (candidate_width >= out_width && candidate_height >= out_height &&
            candidate_width * candidate_height < scaled_width * scaled_height) {
            scaled_width = candidate_width;
            scaled_height = candidate_height;
        }
    }
    size_t size = (size_t)scaled_width * scaled_height * 3;
    *pixels = malloc(size);
    if (*pixels == NULL) {
        return NULL;
    }
    if (tjDecompress2(handle, jpeg, (unsigned long)length, *pixels, scaled_width, 0, scaled_height, TJPF_RGB, 0) != 0) {
        free(*pixels);
        *pixels = NULL;
        return NULL;
    }
    VipsImage *image = vips_image_new_from_memory(*pixels, size, scaled_width, scaled_height, 3, VIPS_FORMAT_UCHAR);
    if (image == NULL) {
        free(*pixels);
        *pixels = NULL;
        return NULL;
    }
    image->Type = VIPS_INTERPRETATION_sRGB;
    image = bb_resize_to(image, out_width, out_height);
    if (image == NULL) {
        free(*pixels);
        *pixels = NULL;
    }
    return image;
}

long bb_tj_thumbnail_rgba(const void *jpeg, size_t length, int width, int height) {
    unsigned char *pixels = NULL;
    VipsImage *image = bb_tj_scaled(jpeg, length, width, height, &pixels);
    if (image == NULL) {
        return -1;
    }
    long size = bb_write_rgba(image);
    free(pixels);
    return size;
}

long bb_tj_encode_jpeg(const void *rgba, int width, int height, int quality) {
    tjhandle handle = bb_tj_compressor();
    if (handle == NULL) {
        return -1;
    }
    unsigned char *jpeg = NULL;
    unsigned long size = 0;
    int failed = tjCompress2(handle, rgba, width, 0, height, TJPF_RGBA, &jpeg, &size, TJSAMP_420, quality, 0);
    tjFree(jpeg);
    return failed ? -1 : (long)size;
}

long bb_tj_thumbnail_job(const void *jpeg, size_t length, int width, int height, int quality) {
    tjhandle handle = bb_tj_compressor();
    unsigned char *pixels = NULL;
    VipsImage *image = handle == NULL ? NULL : bb_tj_scaled(jpeg, length, width, height, &pixels);
    if (image == NULL) {
        return -1;
    }
    int out_width = image->Xsize;
    int out_height = image->Ysize;
    size_t rgb_size = 0;
    void *rgb = vips_image_write_to_memory(image, &rgb_size);
    g_object_unref(image);
    free(pixels);
    if (rgb == NULL) {
        return -1;
    }
    unsigned char *out = NULL;
    unsigned long size = 0;
    int failed = tjCompress2(handle, rgb, out_width, 0, out_height, TJPF_RGB, &out, &size, TJSAMP_420, quality, 0);
    g_free(rgb);
    tjFree(out);
    return failed ? -1 : (long)size;
}

long bb_compute_loop(long iterations) {
    uint64_t x = 88172645463325252ULL;
    uint64_t sum = 0;
    for (long i = 0; i < iterations; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if (x & 1) {
            sum += x;
        } else {
            sum ^= x >> 3;
        }
    }
    return (long)(sum >> 2);
}
