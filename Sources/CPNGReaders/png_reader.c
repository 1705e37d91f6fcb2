// What the libpng readers share: failures jump back to the reader's setjmp, warnings are dropped
// (the reader decides from the result) but for an over-long chunk, and metadata chunks go unread.

#include "png_reader.h"

#include <string.h>

void wi_png_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

void wi_png_warning(png_structp png, png_const_charp message) {
    // A chunk over the length limit (wi_png_decode_rgba8 sets the file's length) is only a
    // benign error to libpng, which then allocates the declared length all the same.
    if (message != NULL && strstr(message, "chunk data is too large") != NULL) {
        png_longjmp(png, 1);
    }
}

void wi_png_skip_metadata(png_structp png) {
    static const png_byte chunks[] = "iCCP\0zTXt\0iTXt\0tEXt";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, chunks, 4);
}
