// Private to CPNGReaders: what its libpng readers share (png_reader.c).
#ifndef WI_PNG_READER_H
#define WI_PNG_READER_H

#include <png.h>

/// libpng's error handler: jumps back to the reader's setjmp.
void wi_png_error(png_structp png, png_const_charp message);
/// libpng's warning handler: drops the warning.
void wi_png_warning(png_structp png, png_const_charp message);

/// Has libpng discard the iCCP, zTXt, iTXt and tEXt chunks unread: our readers use neither
/// profile nor text (the profile comes from libvips' header read), and each compressed one
/// would be inflated up to 8 MB.
void wi_png_skip_metadata(png_structp png);

#endif
