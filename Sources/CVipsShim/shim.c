#include "CVipsShim.h"

#include <png.h>
#include "png_metadata.h"
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

// libvips' warnings (mostly about damaged input) would go to stderr. Kept instead, per thread,
// since the operation this thread began last: a loader's failure often says only "pngload_buffer
// failed" in the error buffer, while the reason ("Invalid color type in IHDR") was a warning.
// Work libvips hands to its own worker threads warns there, out of reach: best effort.
static _Thread_local char wi_thread_warnings[256];

static void wi_keep_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain;
    (void)data;
    if ((level & G_LOG_LEVEL_WARNING) == 0 || message == NULL || strstr(wi_thread_warnings, message) != NULL) {
        return;
    }
    size_t used = strlen(wi_thread_warnings);
    if (used + strlen(message) + 2 < sizeof(wi_thread_warnings)) {
        if (used > 0) {
            wi_thread_warnings[used++] = '\n';
        }
        memcpy(wi_thread_warnings + used, message, strlen(message) + 1);
    }
}

int wi_init(const char *argv0, int concurrency) {
    if (vips_init(argv0) != 0) {
        return -1;
    }
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, wi_keep_warning, NULL);
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

void wi_warnings_clear(void) {
    wi_thread_warnings[0] = '\0';
}

char *wi_error_copy(void) {
    char *errors = vips_error_buffer_copy();
    if (wi_thread_warnings[0] == '\0') {
        return errors;
    }
    char *joined = g_strdup_printf("%s\n%s", errors != NULL ? errors : "", wi_thread_warnings);
    g_free(errors);
    wi_thread_warnings[0] = '\0';
    return joined;
}

// Builds `op`, reads its output named `output` into `result`, releases the operation.
static int wi_build(VipsOperation *op, const char *options, const char *output, GType type, void *result) {
    wi_warnings_clear();
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
    return wi_call_named(operation, "in", in, options);
}

VipsImage *wi_call_named(const char *operation, const char *input_name, VipsImage *in, const char *options) {
    VipsOperation *op = vips_operation_new(operation);
    if (op == NULL) {
        return NULL;
    }
    wi_set_image(op, input_name, in);
    VipsImage *out = NULL;
    if (wi_build(op, options, "out", VIPS_TYPE_IMAGE, &out) != 0) {
        return NULL;
    }
    return out;
}

int wi_is_image_filter(const char *operation) {
    GType type = vips_type_find("VipsOperation", operation);
    if (type == 0 || g_type_is_a(type, vips_foreign_get_type()) || G_TYPE_IS_ABSTRACT(type)) {
        return 0;
    }
    GObjectClass *class = g_type_class_ref(type);
    GParamSpec *in = g_object_class_find_property(class, "in");
    GParamSpec *out = g_object_class_find_property(class, "out");
    int is_filter = in != NULL && out != NULL && G_PARAM_SPEC_VALUE_TYPE(in) == VIPS_TYPE_IMAGE &&
                    G_PARAM_SPEC_VALUE_TYPE(out) == VIPS_TYPE_IMAGE;
    g_type_class_unref(class);
    return is_filter;
}

VipsImage *wi_call2(const char *operation, const char *first_name, VipsImage *first, const char *second_name,
                    VipsImage *second, const char *options) {
    VipsOperation *op = vips_operation_new(operation);
    if (op == NULL) {
        return NULL;
    }
    wi_set_image(op, first_name, first);
    wi_set_image(op, second_name, second);
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
    wi_warnings_clear();
    double background[3] = { red, green, blue };
    VipsArrayDouble *array = vips_array_double_new(background, 3);
    VipsImage *out = NULL;
    int failed = vips_flatten(in, &out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return failed ? NULL : out;
}

VipsImage *wi_add_constant_band(VipsImage *in, double value) {
    wi_warnings_clear();
    VipsImage *out = NULL;
    return vips_bandjoin_const1(in, &out, value, NULL) ? NULL : out;
}

VipsImage *wi_join_vertically(VipsImage **images, int count) {
    wi_warnings_clear();
    VipsImage *out = NULL;
    return vips_arrayjoin(images, &out, count, "across", 1, NULL) ? NULL : out;
}

VipsImage *wi_with_animation(VipsImage *in, int page_height, const int *delays, int count, int loop) {
    wi_warnings_clear();
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
    wi_warnings_clear();
    VipsImage *out = vips_image_new_from_memory(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    if (out == NULL) {
        release(owner);
        return NULL;
    }
    out->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    g_object_set_data_full(G_OBJECT(out), "wi-pixel-owner", owner, release);
    return out;
}

VipsImage *wi_placeholder(int width, int height, int bands) {
    wi_warnings_clear();
    VipsImage *out = NULL;
    if (vips_black(&out, width, height, "bands", bands, NULL) != 0) {
        return NULL;
    }
    return out;
}

void *wi_render_inline(VipsImage *image, size_t *length) {
    wi_warnings_clear();
    VipsRegion *region = vips_region_new(image);
    if (region == NULL) {
        return NULL;
    }
    VipsRect whole = {0, 0, image->Xsize, image->Ysize};
    if (vips_region_prepare(region, &whole) != 0) {
        g_object_unref(region);
        return NULL;
    }
    size_t row = (size_t)VIPS_IMAGE_SIZEOF_LINE(image);
    size_t size = row * (size_t)image->Ysize;
    uint8_t *out = g_malloc(size > 0 ? size : 1);
    for (int y = 0; y < image->Ysize; y++) {
        memcpy(out + (size_t)y * row, VIPS_REGION_ADDR(region, 0, y), row);
    }
    g_object_unref(region);
    *length = size;
    return out;
}

// The getters below check the field's type first, so that a missing or other-typed field never
// reaches libvips' error buffer: that buffer is shared by all threads, and clearing it here
// would wipe another thread's message before its caller read it.
int wi_get_int(VipsImage *image, const char *name, int fallback) {
    int value = 0;
    if (vips_image_get_typeof(image, name) != G_TYPE_INT || vips_image_get_int(image, name, &value) != 0) {
        return fallback;
    }
    return value;
}

int wi_get_int_array(VipsImage *image, const char *name, int *out, int capacity) {
    int *values = NULL;
    int count = 0;
    if (vips_image_get_typeof(image, name) != VIPS_TYPE_ARRAY_INT ||
        vips_image_get_array_int(image, name, &values, &count) != 0) {
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

// MARK: - Whole PNG files

// libpng's pull reader for a file held whole: about twice as fast as libvips' loader (libspng)
// on opaque files here.

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
        wi_png_skip_metadata(png);
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
