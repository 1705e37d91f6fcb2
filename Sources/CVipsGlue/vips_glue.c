#include "CVipsGlue.h"
#include "CBitmapKernels.h"

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
    // Long work inside one call asks the decode's time budget as it goes.
    wi_webp_budget_install();
    wi_kernels_set_stop(wi_budget_poll);
    return 0;
}

void wi_warnings_clear(void) {
    wi_thread_warnings[0] = '\0';
}

void wi_error_push(const char *domain, const char *message) {
    vips_error(domain, "%s", message);
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

int wi_find_trim(VipsImage *in, double threshold, const double *background, int count, int *left, int *top,
                 int *width, int *height) {
    wi_warnings_clear();
    VipsArrayDouble *colour = vips_array_double_new(background, count);
    int result = vips_find_trim(in, left, top, width, height, "threshold", threshold, "background", colour, NULL);
    vips_area_unref(VIPS_AREA(colour));
    return result;
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

VipsImage *wi_text(const char *text, const char *font) {
    wi_warnings_clear();
    VipsImage *out = NULL;
    if (vips_text(&out, text, "font", font, "dpi", 72, NULL) != 0) {
        return NULL;
    }
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
