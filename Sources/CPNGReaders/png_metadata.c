// How many bytes a PNG's compressed metadata (iCCP, zTXt, compressed iTXt) inflates to,
// counted by inflating into a scratch buffer, without libpng: a few kilobytes of zeros inflate
// to megabytes, and libpng inflates each such chunk up to its 8 MB limit while reading the header.
#include <string.h>
#include <zlib.h>
#include "CPNGReaders.h"

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

// Bytes a zlib stream inflates to, counting no further than `budget + 1` (a broken stream
// counts up to where it breaks).
static size_t inflated_size(const uint8_t *in, size_t length, size_t budget) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return 0;
    uint8_t out[16384];
    size_t total = 0;
    z.next_in = (Bytef *)in;
    z.avail_in = length > UINT32_MAX ? UINT32_MAX : (uInt)length;
    for (;;) {
        z.next_out = out;
        z.avail_out = sizeof out;
        int status = inflate(&z, Z_NO_FLUSH);
        total += sizeof out - z.avail_out;
        if (status != Z_OK || total > budget) break;
    }
    inflateEnd(&z);
    return total;
}

// The end of a NUL-terminated keyword (1 to 79 bytes) within `body`, or 0 when there is none.
static size_t after_keyword(const uint8_t *body, size_t size) {
    const uint8_t *nul = memchr(body, 0, size < 80 ? size : 80);
    return nul ? (size_t)(nul - body) + 1 : 0;
}

size_t wi_png_inflated_metadata(const uint8_t *data, size_t length, size_t limit) {
    if (!data || length < 8 || memcmp(data, "\x89PNG\r\n\x1a\n", 8) != 0) return 0;
    size_t offset = 8, total = 0;
    while (length - offset >= 12) {
        size_t size = be32(data + offset);
        const uint8_t *type = data + offset + 4, *body = data + offset + 8;
        if (size > length - offset - 12) break;
        size_t start = 0;
        if (memcmp(type, "iCCP", 4) == 0 || memcmp(type, "zTXt", 4) == 0) {
            // keyword, NUL, compression method, compressed data
            start = after_keyword(body, size);
            if (start) start += 1;
        } else if (memcmp(type, "iTXt", 4) == 0) {
            // keyword, NUL, compression flag, method, language tag, NUL, translated keyword, NUL, text
            size_t at = after_keyword(body, size);
            if (at && at + 2 <= size && body[at] == 1) {
                const uint8_t *language = memchr(body + at + 2, 0, size - at - 2);
                const uint8_t *translated = language ? memchr(language + 1, 0, (size_t)(body + size - language - 1)) : NULL;
                if (translated) start = (size_t)(translated + 1 - body);
            }
        } else if (memcmp(type, "IEND", 4) == 0) {
            break;
        }
        if (start && start <= size) total += inflated_size(body + start, size - start, limit - total);
        if (total > limit) break;
        offset += 12 + size;
    }
    return total;
}

int wi_png_overlong_chunk(const uint8_t *data, size_t length) {
    if (!data || length < 8 || memcmp(data, "\x89PNG\r\n\x1a\n", 8) != 0) return 0;
    size_t offset = 8;
    while (length - offset >= 8) {
        size_t size = be32(data + offset);
        const uint8_t *type = data + offset + 4;
        if (memcmp(type, "IEND", 4) == 0) return 0;
        if (size > length - offset - 8) {
            // Image data cut short is a truncated file (and a partial download): libpng reads it
            // as a stream. Any other chunk libpng allocates whole, at its declared length.
            return memcmp(type, "IDAT", 4) != 0 && memcmp(type, "fdAT", 4) != 0;
        }
        if (length - offset - 8 - size < 4) return 0;   // the CRC cut off: truncated, not overlong
        offset += 12 + size;
    }
    return 0;
}
