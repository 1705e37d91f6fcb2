// Progressive JPEGs through libjpeg's own API, where a decode can be stopped midway.
//
// libjpeg reads a file of several scans (progressive) whole into its coefficient buffer before
// the first row comes out, a pass over every block of a component per scan: a refinement scan of
// a 100 MP image walks 1.5 million blocks on about a hundred bytes of data, and the scan limit
// (decodeMaxScanCount) allows a hundred of them, seconds in one call. TurboJPEG's API, and
// libvips' jpegload, leave nothing to stop that call with; libjpeg calls a progress monitor at
// every row of blocks of every scan, and at every row read. Ours asks `stop` there (the time
// budget's poll) and, once it says to, leaves through error_exit, libjpeg's way out of any call.
// Everything else is libjpeg's default, as TurboJPEG and libvips set it: the same samples.

#include "CJPEGCodec.h"
#include "jpeg_api.h"

#include <stdlib.h>
#include <string.h>

static void wi_jpeg_leave(j_common_ptr info) {
    longjmp(((wi_jpeg_handlers *)(void *)info->err)->jump, 1);
}

static void wi_jpeg_error_exit(j_common_ptr info) {
    wi_jpeg_handlers *handlers = (wi_jpeg_handlers *)(void *)info->err;
    info->err->format_message(info, handlers->message);
    wi_jpeg_leave(info);
}

static void wi_jpeg_emit_message(j_common_ptr info, int level) {
    wi_jpeg_handlers *handlers = (wi_jpeg_handlers *)(void *)info->err;
    if (level >= 0) {
        return;  // trace messages
    }
    // libjpeg's memory source warns at the end of a truncated file and makes up an end marker.
    int truncated = info->err->msg_code == JWRN_JPEG_EOF;
    if (handlers->strict || (truncated && handlers->fail_on_truncation) || ++handlers->warnings >= 100) {
        wi_jpeg_error_exit(info);
    }
}

static void wi_jpeg_monitor(j_common_ptr info) {
    wi_jpeg_handlers *handlers = (wi_jpeg_handlers *)(void *)info->err;
    if (handlers->stop != NULL && handlers->stop()) {
        handlers->stopped = 1;
        snprintf(handlers->message, sizeof handlers->message, "%s", "stopped midway");
        wi_jpeg_leave(info);
    }
}

struct jpeg_error_mgr *wi_jpeg_handlers_errors(wi_jpeg_handlers *handlers, int strict, int fail_on_truncation) {
    struct jpeg_error_mgr *errors = jpeg_std_error(&handlers->errors);
    errors->error_exit = wi_jpeg_error_exit;
    errors->emit_message = wi_jpeg_emit_message;
    handlers->strict = strict;
    handlers->fail_on_truncation = fail_on_truncation;
    handlers->warnings = 0;
    handlers->stop = NULL;
    handlers->stopped = 0;
    handlers->message[0] = '\0';
    return errors;
}

void wi_jpeg_handlers_watch(wi_jpeg_handlers *handlers, j_decompress_ptr info, int (*stop)(void)) {
    handlers->stop = stop;
    memset(&handlers->progress, 0, sizeof handlers->progress);
    handlers->progress.progress_monitor = wi_jpeg_monitor;
    info->progress = &handlers->progress;
}

// MARK: A whole file into RGBA

int wi_jpeg_decode_rgba8(const uint8_t *jpeg, size_t length, int shrink, int smoothing, int width, int height,
                         uint8_t *pixels, int (*stop)(void), char *message, size_t capacity) {
    struct jpeg_decompress_struct info;
    wi_jpeg_handlers handlers;
    info.err = wi_jpeg_handlers_errors(&handlers, 1, 1);
    if (setjmp(handlers.jump)) {
        jpeg_destroy_decompress(&info);
        snprintf(message, capacity, "%s", handlers.message);
        return handlers.stopped ? WI_JPEG_STOPPED : -1;
    }
    jpeg_create_decompress(&info);
    wi_jpeg_handlers_watch(&handlers, &info, stop);
    jpeg_mem_src(&info, jpeg, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    info.scale_num = 1;
    info.scale_denom = (unsigned int)shrink;
    info.do_block_smoothing = smoothing ? TRUE : FALSE;
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    if ((int)info.output_width != width || (int)info.output_height != height || info.output_components != 4) {
        jpeg_destroy_decompress(&info);
        snprintf(message, capacity, "%s", "decoded to another size");
        return -1;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + (size_t)info.output_scanline * (size_t)width * 4;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return 0;
}

// MARK: Rows, as libvips' jpegload gives them

struct wi_jpeg_reader {
    struct jpeg_decompress_struct info;
    wi_jpeg_handlers handlers;
    uint8_t *data;
    int shrink;
    int opened;
    int started;
    int failed;
    int next_row;
    // libvips' jpegload inverts CMYK samples (libjpeg gives them as Adobe writes them).
    int invert;
};

wi_jpeg_reader *wi_jpeg_reader_new(const uint8_t *jpeg, size_t length, int shrink, int fail_on_truncation,
                                   int (*stop)(void)) {
    wi_jpeg_reader *reader = calloc(1, sizeof(wi_jpeg_reader));
    uint8_t *data = length > 0 ? malloc(length) : NULL;
    if (reader == NULL || data == NULL) {
        free(reader);
        free(data);
        return NULL;
    }
    memcpy(data, jpeg, length);
    reader->data = data;
    reader->shrink = shrink;
    reader->info.err = wi_jpeg_handlers_errors(&reader->handlers, 0, fail_on_truncation);
    if (setjmp(reader->handlers.jump)) {
        // jpeg_create_decompress failed (a version check): nothing to destroy.
        free(data);
        free(reader);
        return NULL;
    }
    jpeg_create_decompress(&reader->info);
    wi_jpeg_handlers_watch(&reader->handlers, &reader->info, stop);
    jpeg_mem_src(&reader->info, reader->data, (unsigned long)length);
    return reader;
}

int wi_jpeg_reader_open(wi_jpeg_reader *reader, int *width, int *height, int *bands) {
    if (reader->failed || reader->opened) {
        return reader->failed ? -1 : 0;
    }
    if (setjmp(reader->handlers.jump)) {
        reader->failed = 1;
        return reader->handlers.stopped ? WI_JPEG_STOPPED : -1;
    }
    jpeg_read_header(&reader->info, TRUE);
    // libjpeg's own choice of output colour space, as jpegload leaves it: grey, RGB or CMYK.
    reader->info.scale_num = 1;
    reader->info.scale_denom = (unsigned int)reader->shrink;
    jpeg_calc_output_dimensions(&reader->info);
    reader->invert = reader->info.out_color_space == JCS_CMYK;
    reader->opened = 1;
    *width = (int)reader->info.output_width;
    *height = (int)reader->info.output_height;
    *bands = reader->info.output_components;
    return 0;
}

int wi_jpeg_reader_rows(void *context, int top, int count, uint8_t *rows, size_t stride) {
    wi_jpeg_reader *reader = context;
    if (reader->failed || !reader->opened) {
        return -1;
    }
    if (top != reader->next_row) {
        snprintf(reader->handlers.message, sizeof reader->handlers.message, "out of order read at line %d", reader->next_row);
        reader->failed = 1;
        return -1;
    }
    if (setjmp(reader->handlers.jump)) {
        reader->failed = 1;
        return reader->handlers.stopped ? WI_JPEG_STOPPED : -1;
    }
    if (!reader->started) {
        // A progressive file's every scan is read here, row of blocks by row of blocks.
        jpeg_start_decompress(&reader->info);
        reader->started = 1;
    }
    size_t samples = (size_t)reader->info.output_width * (size_t)reader->info.output_components;
    for (int y = 0; y < count; y++) {
        JSAMPROW row = rows + (size_t)y * stride;
        jpeg_read_scanlines(&reader->info, &row, 1);
        if (reader->invert) {
            for (size_t x = 0; x < samples; x++) {
                row[x] = (uint8_t)(255 - row[x]);
            }
        }
    }
    reader->next_row += count;
    return 0;
}

const char *wi_jpeg_reader_message(void *context) {
    wi_jpeg_reader *reader = context;
    return reader->handlers.message;
}

void wi_jpeg_reader_free(void *context) {
    wi_jpeg_reader *reader = context;
    if (reader != NULL) {
        jpeg_destroy_decompress(&reader->info);
        free(reader->data);
        free(reader);
    }
}
