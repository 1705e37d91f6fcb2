// Counting a progressive JPEG's scans from its markers, so that a file of thousands of scans
// (libjpeg-turbo 2.1 sets no limit, and makes a pass over the image for each) is refused first.
#include "CJPEGCodec.h"
#include "jpeg_dc.h"

size_t wi_jpeg_progressive_scans(const uint8_t *jpeg, size_t length, size_t limit) {
    if (!jpeg || length < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) return 0;
    int progressive = 0;
    size_t scans = 0, at = 2;
    while (at + 4 <= length && jpeg[at] == 0xFF && scans <= limit) {
        uint8_t marker = jpeg[at + 1];
        if (marker == 0xFF) {  // fill byte
            at++;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // no length
            at += 2;
            continue;
        }
        if (marker == 0xD9) break;
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
            if (!progressive) return 0;
        }
        size_t segment = 2 + ((size_t)jpeg[at + 2] << 8 | jpeg[at + 3]);
        if (segment < 4 || at + segment > length) break;
        at += segment;
        if (marker == 0xDA) {
            scans++;
            at = wi_jpeg_scan_end(jpeg, length, at);
            if (at == 0) break;
        }
    }
    return progressive ? scans : 0;
}
