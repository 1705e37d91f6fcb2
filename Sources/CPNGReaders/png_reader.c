// What the libpng readers share: failures jump back to the reader's setjmp, warnings are dropped
// (the reader decides from the result), and metadata chunks go unread.

#include "png_reader.h"

void wi_png_error(png_structp png, png_const_charp message) {
    (void)message;
    png_longjmp(png, 1);
}

void wi_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

void wi_png_skip_metadata(png_structp png) {
    static const png_byte chunks[] = "iCCP\0zTXt\0iTXt\0tEXt";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, chunks, 4);
}
