// Private to CVipsShim: what its libpng readers share about metadata chunks.
#ifndef WI_PNG_METADATA_H
#define WI_PNG_METADATA_H

#include <png.h>

/// Has libpng discard the iCCP, zTXt, iTXt and tEXt chunks unread: our readers use neither
/// profile nor text (the profile comes from libvips' header read), and each compressed one
/// would be inflated up to 8 MB.
void wi_png_skip_metadata(png_structp png);

#endif
