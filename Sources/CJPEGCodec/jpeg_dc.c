// Progressive JPEGs at 1/8 from their DC scans, without libjpeg's coefficient buffer.
//
// At DCT scale 1/8 each 8x8 block becomes one sample, computed from its DC coefficient alone.
// libjpeg still reads a progressive file into a coefficient buffer for the whole image first:
// for a 5250x3450 photo at 4:4:4, 109 MB allocated and zeroed on every decode, whose page
// faults two threads take in turn (one memory map per process). This decoder keeps the DC
// coefficients alone (2 bytes a block) and computes the samples libjpeg-turbo does: its 1x1
// IDCT, its range limiting and its YCbCr tables.
//
// It reads files whose components all have the same sampling (a subsampled component needs
// its AC coefficients at 1/8), and reports anything in the markers and DC scans that libjpeg
// would refuse or warn about as a failure, so that libjpeg decides what such a file gives. AC
// scans are passed over unread. Reviewed against libjpeg-turbo 2.1.5, and fuzzed under ASan
// and UBSan against libjpeg (67,000 mutated files, whole and cut to their DC scans): no memory
// error, and every cut file it read, libjpeg read without a warning to the same samples.

#include "jpeg_dc.h"

#include <stdint.h>
#include <string.h>

enum {
    WI_DC_LOOKUP_BITS = 9,
    WI_DC_MAX_COMPONENTS = 4,
    WI_DC_MAX_BLOCKS_IN_MCU = 10,  // libjpeg's D_MAX_BLOCKS_IN_MCU
};

// A Huffman table for DC differences, as libjpeg derives it (jdhuff.c).
typedef struct {
    int32_t maxcode[17];    // the largest code of each length, -1 when there is none
    int32_t valoffset[17];  // values[valoffset[l] + code] for a code of length l
    uint8_t values[256];
    uint16_t lookup[1 << WI_DC_LOOKUP_BITS];  // length << 8 | value for codes up to 9 bits; 0: longer
    int defined;
} wi_dc_table;

// Builds a table from a DHT segment's 16 code counts and its values; -1 for a table libjpeg
// refuses (codes that do not fit their length, a DC difference category over 15), checked
// before any code is written to the lookup.
static int wi_dc_table_build(wi_dc_table *table, const uint8_t *counts, const uint8_t *values, int total) {
    memset(table->lookup, 0, sizeof(table->lookup));
    memcpy(table->values, values, (size_t)total);
    int32_t code = 0;
    int index = 0;
    for (int length = 1; length <= 16; length++) {
        int count = counts[length - 1];
        if (code + count >= (int32_t)1 << length && count > 0) {
            return -1;  // more codes than the length holds (libjpeg's JERR_BAD_HUFF_TABLE)
        }
        table->valoffset[length] = index - code;
        table->maxcode[length] = count > 0 ? code + count - 1 : -1;
        for (int i = 0; i < count; i++, index++, code++) {
            if (values[index] > 15) {
                return -1;
            }
            if (length <= WI_DC_LOOKUP_BITS) {
                int shift = WI_DC_LOOKUP_BITS - length;
                for (int32_t fill = code << shift; fill < (code + 1) << shift; fill++) {
                    table->lookup[fill] = (uint16_t)(length << 8 | values[index]);
                }
            }
        }
        code <<= 1;
    }
    table->defined = 1;
    return 0;
}

// The entropy-coded bits of one scan, read past stuffed bytes (its functions are inlined so that
// the reader lives in registers). At a marker (a restart, or the
// scan's end) the data stops: what follows reads as zero bits, which libjpeg would warn about.
typedef struct {
    const uint8_t *data;
    size_t at;      // the next byte to take
    size_t end;     // the scan's end
    uint64_t bits;  // the next `count` bits in the low bits, the first one highest
    int count;
    int zeros;      // how many of those bits are padding past the data
    int stopped;    // the data stopped: at a marker at `at`, or at the scan's end
} wi_dc_bits;

static inline __attribute__((always_inline)) void wi_dc_fill(wi_dc_bits *reader) {
    while (reader->count <= 56) {
        uint8_t byte = 0;
        if (!reader->stopped && reader->at < reader->end) {
            byte = reader->data[reader->at];
            if (byte != 0xFF) {
                reader->at++;
            } else {
                // 0xFF, any fill bytes, then 0: a stuffed 0xFF. Anything else: a marker.
                size_t next = reader->at + 1;
                while (next < reader->end && reader->data[next] == 0xFF) {
                    next++;
                }
                if (next < reader->end && reader->data[next] == 0) {
                    reader->at = next + 1;
                } else {
                    reader->stopped = 1;
                    byte = 0;
                }
            }
        } else {
            reader->stopped = 1;
        }
        if (reader->stopped) {
            reader->zeros += 8;
        }
        reader->bits = reader->bits << 8 | byte;
        reader->count += 8;
    }
}

static inline __attribute__((always_inline)) uint32_t wi_dc_take(wi_dc_bits *reader, int count) {
    reader->count -= count;
    return (uint32_t)(reader->bits >> reader->count) & (((uint32_t)1 << count) - 1);
}

// The next Huffman-coded value, or -1 for a code the table does not have.
static inline __attribute__((always_inline)) int wi_dc_decode(wi_dc_bits *reader, const wi_dc_table *table) {
    uint32_t look = (uint32_t)(reader->bits >> (reader->count - WI_DC_LOOKUP_BITS)) & ((1 << WI_DC_LOOKUP_BITS) - 1);
    uint16_t entry = table->lookup[look];
    if (entry != 0) {
        reader->count -= entry >> 8;
        return entry & 0xFF;
    }
    for (int length = WI_DC_LOOKUP_BITS + 1; length <= 16; length++) {
        int32_t code = (int32_t)(reader->bits >> (reader->count - length)) & ((1 << length) - 1);
        if (code <= table->maxcode[length]) {
            reader->count -= length;
            return table->values[table->valoffset[length] + code];
        }
    }
    return -1;
}

// A restart marker, RSTn with n = `expected`, right after the interval's data: the bits start
// afresh after it. A whole byte left unread before it, or another marker, is corrupt data
// (libjpeg warns of extraneous bytes).
static inline __attribute__((always_inline)) int wi_dc_restart(wi_dc_bits *reader, int expected) {
    size_t at = reader->at;
    if (reader->count - reader->zeros >= 8 || at >= reader->end || reader->data[at] != 0xFF) {
        return -1;
    }
    while (at < reader->end && reader->data[at] == 0xFF) {
        at++;
    }
    if (at >= reader->end || reader->data[at] != 0xD0 + expected) {
        return -1;
    }
    reader->at = at + 1;
    reader->bits = 0;
    reader->count = 0;
    reader->zeros = 0;
    reader->stopped = 0;
    return 0;
}

typedef struct {
    int id;
    int h, v;
    int quant_table;
    int quant;          // the DC quantiser, taken at the component's first scan as libjpeg does
    int have_quant;
    int dc_bits;        // the successive-approximation bit the DC is known to; -1 before any scan
    int16_t *dc;        // per block, `stride` blocks a row
} wi_dc_component;

typedef struct {
    int width, height;  // the image's, in pixels
    int components;
    int max_h, max_v;
    int mcus_across, mcus_down;
    size_t stride;      // blocks per row in each component's array
    wi_dc_component component[WI_DC_MAX_COMPONENTS];
    wi_dc_table tables[4];
    int quant[4];
    int have_quant[4];
    int restart_interval;
    int (*stop)(void);  // asked at every row of MCUs (NULL: nothing stops the decode)
} wi_dc_frame;

// One block of an MCU: where it sits from the MCU's origin, and how it is coded.
typedef struct {
    int16_t *dc;
    const wi_dc_table *table;
    int component;  // index into the scan's predictions
} wi_dc_slot;

// A scan's MCUs: each `h` x `v` blocks of every member, `across` x `down` of them.
typedef struct {
    const wi_dc_slot *slots;
    int slot_count;
    int h, v, across, down;
} wi_dc_layout;

// Reads a scan's blocks: first DC scans (`refine` 0) decode each block's difference; DC
// refinements (`refine` 1) add one bit, `low`, to each. Inlined twice, once for each.
static inline __attribute__((always_inline)) int wi_dc_blocks(wi_dc_bits *reader_in, const wi_dc_frame *frame,
                                                               const wi_dc_layout *layout, int low, int refine) {
    wi_dc_bits reader = *reader_in;
    int32_t predictions[WI_DC_MAX_COMPONENTS] = {0};
    int left = frame->restart_interval;
    int next_restart = 0;
    const wi_dc_slot *slots = layout->slots;
    int slot_count = layout->slot_count;
    for (int my = 0; my < layout->down; my++) {
        if (frame->stop != NULL && frame->stop()) {
            return WI_DC_STOPPED;
        }
        size_t row = (size_t)my * (size_t)layout->v * frame->stride;
        for (int mx = 0; mx < layout->across; mx++) {
            if (frame->restart_interval > 0) {
                if (left == 0) {
                    if (wi_dc_restart(&reader, next_restart) != 0) {
                        return -1;
                    }
                    next_restart = (next_restart + 1) & 7;
                    memset(predictions, 0, sizeof(predictions));
                    left = frame->restart_interval;
                }
                left--;
            }
            size_t origin = row + (size_t)mx * (size_t)layout->h;
            for (int s = 0; s < slot_count; s++) {
                // Room for one code (16 bits) and its extra bits (15) at most.
                if (reader.count < 32) {
                    wi_dc_fill(&reader);
                }
                int16_t *coefficient = slots[s].dc + origin;
                if (!refine) {
                    int category = wi_dc_decode(&reader, slots[s].table);
                    if (category < 0) {
                        return -1;
                    }
                    int32_t difference = 0;
                    if (category > 0) {
                        uint32_t extra = wi_dc_take(&reader, category);
                        // HUFF_EXTEND: the lower half of the range is negative.
                        difference = extra < (1u << (category - 1)) ? (int32_t)extra - (int32_t)((1u << category) - 1)
                                                                    : (int32_t)extra;
                    }
                    int32_t prediction = predictions[slots[s].component];
                    if (difference > 0 ? prediction > INT32_MAX - difference : prediction < INT32_MIN - difference) {
                        return -1;  // libjpeg's JERR_BAD_DCT_COEF
                    }
                    prediction += difference;
                    predictions[slots[s].component] = prediction;
                    *coefficient = (int16_t)(uint16_t)((uint32_t)prediction << low);
                } else {
                    *coefficient = (int16_t)(uint16_t)((uint32_t)(uint16_t)*coefficient | wi_dc_take(&reader, 1) << low);
                }
                if (reader.count < reader.zeros) {
                    return -1;  // the data ran out before the blocks did
                }
            }
        }
    }
    *reader_in = reader;
    return 0;
}

// One scan's blocks (its header at `header`, `header_length` bytes, its data to `end`).
static int wi_dc_scan(wi_dc_frame *frame, const uint8_t *data, size_t header, size_t header_length, size_t end) {
    int count = data[header];
    if (count < 1 || count > frame->components || header_length != 4 + 2 * (size_t)count) {
        return -1;
    }
    wi_dc_component *members[WI_DC_MAX_COMPONENTS];
    const wi_dc_table *tables[WI_DC_MAX_COMPONENTS];
    int start = data[header + 1 + 2 * count];
    int stop = data[header + 2 + 2 * count];
    int high = data[header + 3 + 2 * count] >> 4;
    int low = data[header + 3 + 2 * count] & 15;
    // Scan entry i is the first frame component from the i-th on with its id, as libjpeg maps
    // them (jdmarker.c): no such component, or one named twice, is an error.
    for (int i = 0; i < count; i++) {
        int id = data[header + 1 + 2 * i];
        members[i] = NULL;
        for (int c = i; c < frame->components && members[i] == NULL; c++) {
            if (frame->component[c].id == id) {
                members[i] = &frame->component[c];
            }
        }
        if (members[i] == NULL) {
            return -1;
        }
        for (int j = 0; j < i; j++) {
            if (members[j] == members[i]) {
                return -1;
            }
        }
    }
    // libjpeg's checks of progressive parameters (jdphuff.c): errors, or warnings of a bogus
    // progression, both failures here.
    if (low > 13 || (high != 0 && low != high - 1)) {
        return -1;
    }
    if (start != 0) {
        // An AC scan: nothing a 1/8 decode of these components reads, its data passed over
        // unread. Its header is checked; AC before the component's DC is a bogus progression.
        return stop < start || stop > 63 || count != 1 || members[0]->dc_bits < 0 ? -1 : 0;
    }
    if (stop != 0) {
        return -1;
    }
    int blocks_in_mcu = 0;
    for (int i = 0; i < count; i++) {
        wi_dc_component *component = members[i];
        if (high == 0 ? component->dc_bits >= 0 : component->dc_bits != high) {
            return -1;
        }
        component->dc_bits = low;
        if (!component->have_quant) {
            if (!frame->have_quant[component->quant_table]) {
                return -1;
            }
            component->quant = frame->quant[component->quant_table];
            component->have_quant = 1;
        }
        tables[i] = &frame->tables[data[header + 2 + 2 * i] >> 4 & 3];
        if (high == 0 && ((data[header + 2 + 2 * i] >> 4) > 3 || !tables[i]->defined)) {
            return -1;
        }
        blocks_in_mcu += count == 1 ? 1 : component->h * component->v;
    }
    if (blocks_in_mcu > WI_DC_MAX_BLOCKS_IN_MCU) {
        return -1;
    }
    // A single component goes block by block over its own size; several go MCU by MCU, each
    // MCU holding h x v blocks of each (blocks past the image's edge included). All components
    // are sampled alike, so an MCU starts at the same place in each one's array: each block of
    // the MCU is a slot, at a fixed offset from there.
    int h = count == 1 ? 1 : frame->max_h;
    int v = count == 1 ? 1 : frame->max_v;
    int across = count == 1 ? (frame->width + 7) / 8 : frame->mcus_across;
    int down = count == 1 ? (frame->height + 7) / 8 : frame->mcus_down;
    wi_dc_slot slots[WI_DC_MAX_BLOCKS_IN_MCU];
    int slot_count = 0;
    for (int i = 0; i < count; i++) {
        for (int by = 0; by < v; by++) {
            for (int bx = 0; bx < h; bx++) {
                slots[slot_count].dc = members[i]->dc + (size_t)by * frame->stride + (size_t)bx;
                slots[slot_count].table = tables[i];
                slots[slot_count].component = i;
                slot_count++;
            }
        }
    }
    wi_dc_bits reader = {.data = data, .at = header + header_length, .end = end};
    wi_dc_layout layout = {.slots = slots, .slot_count = slot_count, .h = h, .v = v, .across = across, .down = down};
    // Two copies of the block loop, one per kind of scan, each with its own registers.
    int status = high == 0 ? wi_dc_blocks(&reader, frame, &layout, low, 0) : wi_dc_blocks(&reader, frame, &layout, low, 1);
    if (status != 0) {
        return status == WI_DC_STOPPED ? WI_DC_STOPPED : -1;
    }
    // After the last block, only fill bytes and restart markers may come before the next
    // marker: libjpeg warns of anything else as extraneous bytes.
    if (reader.count - reader.zeros >= 8) {
        return -1;
    }
    for (size_t at = reader.at; at < end; at++) {
        if (data[at] != 0xFF && !(data[at] >= 0xD0 && data[at] <= 0xD7 && data[at - 1] == 0xFF)) {
            return -1;
        }
    }
    return 0;
}

static void wi_dc_pixels(const wi_dc_frame *frame, wi_dc_colours colours, uint8_t *pixels) {
    int16_t quant[WI_DC_MAX_COMPONENTS];
    const int16_t *dc[WI_DC_MAX_COMPONENTS];
    for (int c = 0; c < frame->components; c++) {
        // libjpeg-turbo's multiplier tables hold 16-bit values (ISLOW_MULT_TYPE is short).
        quant[c] = (int16_t)(uint16_t)frame->component[c].quant;
        dc[c] = frame->component[c].dc;
    }
    wi_dc_samples((frame->width + 7) / 8, (frame->height + 7) / 8, dc, quant, frame->stride, colours, pixels);
}

// The frame header (SOF2): 8-bit samples, a size, components all sampled alike.
static int wi_dc_frame_header(wi_dc_frame *frame, const uint8_t *segment, size_t length, wi_dc_colours colours) {
    if (length < 6) {
        return WI_DC_FAILED;
    }
    int components = segment[5];
    if (segment[0] != 8 || length != 6 + 3 * (size_t)components) {
        return WI_DC_NOT_TAKEN;
    }
    frame->height = segment[1] << 8 | segment[2];
    frame->width = segment[3] << 8 | segment[4];
    frame->components = components;
    if (frame->width == 0 || frame->height == 0 || components != (colours == WI_DC_GREY ? 1 : 3)) {
        return WI_DC_NOT_TAKEN;
    }
    if (frame->width > 65500 || frame->height > 65500) {
        return WI_DC_FAILED;  // libjpeg's JPEG_MAX_DIMENSION
    }
    frame->max_h = 1;
    frame->max_v = 1;
    for (int c = 0; c < components; c++) {
        wi_dc_component *component = &frame->component[c];
        component->id = segment[6 + 3 * c];
        component->h = segment[7 + 3 * c] >> 4;
        component->v = segment[7 + 3 * c] & 15;
        component->quant_table = segment[8 + 3 * c];
        component->dc_bits = -1;
        if (component->h < 1 || component->h > 4 || component->v < 1 || component->v > 4 || component->quant_table > 3) {
            return WI_DC_FAILED;
        }
        frame->max_h = component->h > frame->max_h ? component->h : frame->max_h;
        frame->max_v = component->v > frame->max_v ? component->v : frame->max_v;
    }
    for (int c = 0; c < components; c++) {
        if (components > 1 && (frame->component[c].h != frame->max_h || frame->component[c].v != frame->max_v)) {
            return WI_DC_NOT_TAKEN;
        }
    }
    frame->mcus_across = (frame->width + 8 * frame->max_h - 1) / (8 * frame->max_h);
    frame->mcus_down = (frame->height + 8 * frame->max_v - 1) / (8 * frame->max_v);
    return WI_DC_DONE;
}

// Huffman tables (DHT): DC ones kept, AC ones passed over.
static int wi_dc_huffman_tables(wi_dc_frame *frame, const uint8_t *segment, size_t length) {
    size_t at = 0;
    while (at < length) {
        if (at + 17 > length) {
            return -1;
        }
        int class = segment[at] >> 4;
        int slot = segment[at] & 15;
        int total = 0;
        for (int i = 0; i < 16; i++) {
            total += segment[at + 1 + i];
        }
        if (class > 1 || slot > 3 || total > 256 || at + 17 + (size_t)total > length) {
            return -1;
        }
        if (class == 0 && wi_dc_table_build(&frame->tables[slot], segment + at + 1, segment + at + 17, total) != 0) {
            return -1;
        }
        at += 17 + (size_t)total;
    }
    return 0;
}

// Quantisation tables (DQT): the DC quantiser of each, the first value (8 or 16 bits).
static int wi_dc_quant_tables(wi_dc_frame *frame, const uint8_t *segment, size_t length) {
    size_t at = 0;
    while (at < length) {
        int precision = segment[at] >> 4;
        int slot = segment[at] & 15;
        size_t size = 1 + 64 * (precision ? 2 : 1);
        if (precision > 1 || slot > 3 || at + size > length) {
            return -1;
        }
        frame->quant[slot] = precision ? segment[at + 1] << 8 | segment[at + 2] : segment[at + 1];
        frame->have_quant[slot] = 1;
        at += size;
    }
    return 0;
}

size_t wi_jpeg_scan_end(const uint8_t *jpeg, size_t length, size_t from) {
    size_t end = from;
    while (end + 1 < length && !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && (jpeg[end + 1] < 0xD0 || jpeg[end + 1] > 0xD7))) {
        end++;
    }
    return end + 1 < length ? end : 0;
}

int wi_jpeg_dc_decode(const uint8_t *jpeg, size_t length, wi_dc_colours colours, int width, int height,
                      uint8_t *pixels, wi_buffer *coefficients, int (*stop)(void)) {
    if (length < 4 || jpeg[0] != 0xFF || jpeg[1] != 0xD8) {
        return WI_DC_FAILED;
    }
    wi_dc_frame frame;
    memset(&frame, 0, sizeof(frame));
    frame.stop = stop;
    int have_frame = 0;
    int have_scan = 0;
    size_t at = 2;
    while (at + 1 < length) {
        if (jpeg[at] != 0xFF) {
            return WI_DC_FAILED;
        }
        uint8_t marker = jpeg[at + 1];
        if (marker == 0xFF) {  // a fill byte
            at++;
            continue;
        }
        if (marker == 0xD9) {  // EOI
            if (!have_scan) {
                return WI_DC_FAILED;
            }
            wi_dc_pixels(&frame, colours, pixels);
            return WI_DC_DONE;
        }
        // Only the segments such a file has: anything else (another frame type, arithmetic
        // conditioning, DNL, a restart or reserved marker out of place) libjpeg refuses or
        // warns about, or this decoder does not read.
        int known = marker == 0xC2 || marker == 0xC4 || marker == 0xDA || marker == 0xDB || marker == 0xDD ||
                    marker == 0xFE || (marker >= 0xE0 && marker <= 0xEF);
        if (!have_frame && marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC &&
            marker != 0xC2) {
            return WI_DC_NOT_TAKEN;  // baseline, lossless, arithmetic-coded...
        }
        if (!known || at + 4 > length) {
            return WI_DC_FAILED;
        }
        size_t segment_length = (size_t)jpeg[at + 2] << 8 | jpeg[at + 3];
        if (segment_length < 2 || at + 2 + segment_length > length) {
            return WI_DC_FAILED;
        }
        const uint8_t *segment = jpeg + at + 4;
        size_t body = segment_length - 2;
        size_t next = at + 2 + segment_length;
        int status = 0;
        if (marker == 0xC2) {
            if (have_frame) {
                return WI_DC_FAILED;
            }
            status = wi_dc_frame_header(&frame, segment, body, colours);
            if (status != WI_DC_DONE) {
                return status;
            }
            if ((frame.width + 7) / 8 != width || (frame.height + 7) / 8 != height) {
                return WI_DC_NOT_TAKEN;
            }
            frame.stride = (size_t)frame.mcus_across * (size_t)frame.max_h;
            size_t rows = (size_t)frame.mcus_down * (size_t)frame.max_v;
            size_t blocks = frame.stride * rows;
            int16_t *dc = (int16_t *)(void *)wi_buffer_reserve(coefficients, blocks * sizeof(int16_t) * (size_t)frame.components);
            if (dc == NULL) {
                return WI_DC_FAILED;
            }
            memset(dc, 0, blocks * sizeof(int16_t) * (size_t)frame.components);
            for (int c = 0; c < frame.components; c++) {
                frame.component[c].dc = dc + blocks * (size_t)c;
            }
            have_frame = 1;
        } else if (marker == 0xC4) {
            status = wi_dc_huffman_tables(&frame, segment, body);
        } else if (marker == 0xDB) {
            status = wi_dc_quant_tables(&frame, segment, body);
        } else if (marker == 0xDD) {
            status = body == 2 ? 0 : -1;
            frame.restart_interval = body == 2 ? segment[0] << 8 | segment[1] : 0;
        } else if (marker == 0xE0 && body >= 14 && memcmp(segment, "JFIF", 5) == 0 && segment[5] != 1) {
            return WI_DC_FAILED;  // libjpeg warns of a JFIF major version other than 1
        } else if (marker == 0xDA) {
            if (!have_frame || body < 1) {
                return WI_DC_FAILED;
            }
            size_t end = wi_jpeg_scan_end(jpeg, length, next);
            if (end == 0) {
                return WI_DC_FAILED;
            }
            status = wi_dc_scan(&frame, jpeg, at + 4, body, end);
            if (status == WI_DC_STOPPED) {
                return WI_DC_STOPPED;
            }
            have_scan = 1;
            next = end;
        }
        if (status != 0) {
            return WI_DC_FAILED;
        }
        at = next;
    }
    return WI_DC_FAILED;  // no EOI
}
