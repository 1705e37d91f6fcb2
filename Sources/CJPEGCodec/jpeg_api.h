// libjpeg's own API with our error and progress managers (jpeg_reader.c), for the decodes
// TurboJPEG's API could not stop.

#ifndef WI_JPEG_API_H
#define WI_JPEG_API_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

// What a decode with libjpeg's API needs beside its decompress struct: where a failure jumps
// to, which warnings fail it, and what stops it.
typedef struct {
    struct jpeg_error_mgr errors;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    // 1: every warning is a failure (TurboJPEG's rule: it cannot tell a harmless one from a
    // broken stream). 0: only the 100th warning is, and a truncated file when
    // `fail_on_truncation` (libvips' jpegload with fail_on=truncated; without, fail_on=none).
    int strict;
    int fail_on_truncation;
    int warnings;
    // Asked at every row of blocks of every scan and at every row read (NULL: nothing stops
    // the decode); `stopped` once it said to stop.
    int (*stop)(void);
    int stopped;
    char message[JMSG_LENGTH_MAX];
} wi_jpeg_handlers;

// The error manager to set as `info->err` before jpeg_create_decompress: a failure, a failing
// warning or a stop writes `message` and longjmps to `jump`. A truncated file fails when
// `strict` or `fail_on_truncation`.
struct jpeg_error_mgr *wi_jpeg_handlers_errors(wi_jpeg_handlers *handlers, int strict, int fail_on_truncation);

// Sets the progress monitor, after jpeg_create_decompress (which clears the struct).
void wi_jpeg_handlers_watch(wi_jpeg_handlers *handlers, j_decompress_ptr info, int (*stop)(void));

#endif
