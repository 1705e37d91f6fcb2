#include "CVipsShim.h"

#include <lcms2.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

int wi_init(const char *argv0, int concurrency) {
    if (vips_init(argv0) != 0) {
        return -1;
    }
    // The operation cache keys results by input pointers and keeps inputs alive: useless
    // for a loader that sees each buffer once, and a memory leak in a long-running server.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    if (concurrency > 0) {
        vips_concurrency_set(concurrency);
    }
    return 0;
}

char *wi_error_copy(void) {
    return vips_error_buffer_copy();
}

// Builds `op`, reads its output named `output` into `result`, releases the operation.
static int wi_build(VipsOperation *op, const char *options, const char *output, GType type, void *result) {
    if (options != NULL && options[0] != '\0' && vips_object_set_from_string(VIPS_OBJECT(op), options) != 0) {
        g_object_unref(op);
        return -1;
    }
    if (vips_cache_operation_buildp(&op) != 0) {
        vips_object_unref_outputs(VIPS_OBJECT(op));
        g_object_unref(op);
        return -1;
    }
    GValue value = G_VALUE_INIT;
    g_value_init(&value, type);
    g_object_get_property(G_OBJECT(op), output, &value);
    if (type == VIPS_TYPE_IMAGE) {
        *(VipsImage **)result = VIPS_IMAGE(g_value_dup_object(&value));
    } else {
        VipsBlob *blob = (VipsBlob *)g_value_get_boxed(&value);
        if (blob != NULL) {
            vips_area_copy(VIPS_AREA(blob));
        }
        *(VipsBlob **)result = blob;
    }
    g_value_unset(&value);
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
    return 0;
}

static void wi_set_image(VipsOperation *op, const char *name, VipsImage *image) {
    GValue value = G_VALUE_INIT;
    g_value_init(&value, VIPS_TYPE_IMAGE);
    g_value_set_object(&value, image);
    g_object_set_property(G_OBJECT(op), name, &value);
    g_value_unset(&value);
}

VipsImage *wi_load_buffer(const char *operation, const void *data, size_t length, const char *options,
                          const char *option_string) {
    VipsOperation *op = vips_operation_new(operation);
    if (op == NULL) {
        return NULL;
    }
    if (option_string != NULL) {
        g_object_set(op, "option_string", option_string, NULL);
    }
    // A private copy: the decoded pipeline may outlive the caller's bytes.
    VipsBlob *blob = vips_blob_copy(data, length);
    GValue value = G_VALUE_INIT;
    g_value_init(&value, VIPS_TYPE_BLOB);
    g_value_set_boxed(&value, blob);
    g_object_set_property(G_OBJECT(op), "buffer", &value);
    g_value_unset(&value);
    vips_area_unref(VIPS_AREA(blob));
    VipsImage *out = NULL;
    if (wi_build(op, options, "out", VIPS_TYPE_IMAGE, &out) != 0) {
        return NULL;
    }
    return out;
}

VipsImage *wi_call(const char *operation, VipsImage *in, const char *options) {
    VipsOperation *op = vips_operation_new(operation);
    if (op == NULL) {
        return NULL;
    }
    wi_set_image(op, "in", in);
    VipsImage *out = NULL;
    if (wi_build(op, options, "out", VIPS_TYPE_IMAGE, &out) != 0) {
        return NULL;
    }
    return out;
}

VipsBlob *wi_save_buffer(const char *operation, VipsImage *in, const char *options) {
    VipsOperation *op = vips_operation_new(operation);
    if (op == NULL) {
        return NULL;
    }
    wi_set_image(op, "in", in);
    VipsBlob *out = NULL;
    if (wi_build(op, options, "buffer", VIPS_TYPE_BLOB, &out) != 0) {
        return NULL;
    }
    return out;
}

VipsImage *wi_flatten(VipsImage *in, double red, double green, double blue) {
    double background[3] = { red, green, blue };
    VipsArrayDouble *array = vips_array_double_new(background, 3);
    VipsImage *out = NULL;
    int failed = vips_flatten(in, &out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return failed ? NULL : out;
}

VipsImage *wi_add_constant_band(VipsImage *in, double value) {
    VipsImage *out = NULL;
    return vips_bandjoin_const1(in, &out, value, NULL) ? NULL : out;
}

VipsImage *wi_join_vertically(VipsImage **images, int count) {
    VipsImage *out = NULL;
    return vips_arrayjoin(images, &out, count, "across", 1, NULL) ? NULL : out;
}

VipsImage *wi_with_animation(VipsImage *in, int page_height, const int *delays, int count, int loop) {
    VipsImage *out = NULL;
    if (vips_copy(in, &out, NULL) != 0) {
        return NULL;
    }
    vips_image_set_int(out, "page-height", page_height);
    vips_image_set_int(out, "n-pages", count);
    vips_image_set_int(out, "loop", loop);
    if (count > 0) {
        vips_image_set_array_int(out, "delay", delays, count);
        // libvips' GIF saver before 8.15 also reads the single "gif-delay" (centiseconds).
        vips_image_set_int(out, "gif-delay", (delays[0] + 5) / 10);
    }
    return out;
}

VipsImage *wi_image_from_memory(const void *pixels, size_t length, int width, int height, int bands,
                                void *owner, void (*release)(void *)) {
    VipsImage *out = vips_image_new_from_memory(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (out == NULL) {
        release(owner);
        return NULL;
    }
    out->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    g_object_set_data_full(G_OBJECT(out), "wi-pixel-owner", owner, release);
    return out;
}

int wi_get_int(VipsImage *image, const char *name, int fallback) {
    int value = 0;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_int(image, name, &value) != 0) {
        vips_error_clear();
        return fallback;
    }
    return value;
}

int wi_get_int_array(VipsImage *image, const char *name, int *out, int capacity) {
    int *values = NULL;
    int count = 0;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_array_int(image, name, &values, &count) != 0) {
        vips_error_clear();
        return 0;
    }
    int copied = count < capacity ? count : capacity;
    memcpy(out, values, sizeof(int) * (size_t)copied);
    return copied;
}

int wi_has_icc(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

// MARK: - Progressive PNG

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

static void wi_png_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

static void wi_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

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

// MARK: Cached ICC transforms

// A profile's transform to sRGB, kept for the life of the process. Photos in the wild carry a
// handful of profiles (Adobe RGB, Display P3, camera profiles): a small fixed table serves
// them; a profile met when the table is full gets a transform for that call only.
typedef struct {
    uint64_t hash;
    size_t length;
    uint8_t *bytes;
    int bands;
    cmsHTRANSFORM transform;
} wi_icc_entry;

enum { WI_ICC_CACHE_SIZE = 16 };
static wi_icc_entry wi_icc_cache[WI_ICC_CACHE_SIZE];
static int wi_icc_cache_count = 0;
static GMutex wi_icc_lock;

static uint64_t wi_fnv1a(const uint8_t *bytes, size_t length) {
    uint64_t hash = 14695981039346656037ULL;
    for (size_t i = 0; i < length; i++) {
        hash = (hash ^ bytes[i]) * 1099511628211ULL;
    }
    return hash;
}

static cmsHTRANSFORM wi_icc_make_transform(const void *profile, size_t length, int bands) {
    cmsHPROFILE in = cmsOpenProfileFromMem(profile, (cmsUInt32Number)length);
    if (in == NULL) {
        return NULL;
    }
    cmsHTRANSFORM transform = NULL;
    if (cmsGetColorSpace(in) == cmsSigRgbData) {
        cmsHPROFILE out = cmsCreate_sRGBProfile();
        if (out != NULL) {
            cmsUInt32Number type = bands == 4 ? TYPE_RGBA_8 : TYPE_RGB_8;
            // NOCACHE: one transform is used by several threads at once, which lcms allows
            // only without its one-pixel cache.
            cmsUInt32Number flags = cmsFLAGS_NOCACHE | (bands == 4 ? cmsFLAGS_COPY_ALPHA : 0);
            transform = cmsCreateTransform(in, type, out, type, INTENT_RELATIVE_COLORIMETRIC, flags);
            cmsCloseProfile(out);
        }
    }
    cmsCloseProfile(in);
    return transform;
}

int wi_icc_rgb8_to_srgb(const void *profile, size_t profile_length, uint8_t *pixels, size_t pixel_count, int bands) {
    if (profile == NULL || profile_length == 0 || (bands != 3 && bands != 4)) {
        return -1;
    }
    uint64_t hash = wi_fnv1a(profile, profile_length);
    cmsHTRANSFORM transform = NULL;
    int cached = 0;
    g_mutex_lock(&wi_icc_lock);
    for (int i = 0; i < wi_icc_cache_count; i++) {
        wi_icc_entry *entry = &wi_icc_cache[i];
        if (entry->hash == hash && entry->length == profile_length && entry->bands == bands &&
            memcmp(entry->bytes, profile, profile_length) == 0) {
            transform = entry->transform;
            cached = 1;
            break;
        }
    }
    g_mutex_unlock(&wi_icc_lock);
    if (transform == NULL) {
        transform = wi_icc_make_transform(profile, profile_length, bands);
        if (transform == NULL) {
            return -1;
        }
        g_mutex_lock(&wi_icc_lock);
        if (wi_icc_cache_count < WI_ICC_CACHE_SIZE) {
            // Another thread may have added the same profile meanwhile: a duplicate entry is
            // harmless (the first one found wins) and keeps the lock out of lcms' slow build.
            wi_icc_entry *entry = &wi_icc_cache[wi_icc_cache_count++];
            entry->hash = hash;
            entry->length = profile_length;
            entry->bytes = g_memdup2(profile, profile_length);
            entry->bands = bands;
            entry->transform = transform;
            cached = 1;
        }
        g_mutex_unlock(&wi_icc_lock);
    }
    // Rows are processed in slices so that the pixel count never overflows lcms' 32-bit size.
    size_t done = 0;
    while (done < pixel_count) {
        size_t slice = pixel_count - done < (1u << 30) ? pixel_count - done : (1u << 30);
        uint8_t *start = pixels + done * (size_t)bands;
        cmsDoTransform(transform, start, start, (cmsUInt32Number)slice);
        done += slice;
    }
    if (!cached) {
        cmsDeleteTransform(transform);
    }
    return 0;
}
