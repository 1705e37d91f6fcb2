#!/usr/bin/env python3
"""The decode bombs of docs/reliability.md ("The bombs"), written into a folder.

    python3 scripts/decode-bombs/bombs.py OUT [NAME|CLASS ...]   # every bomb (but SLOW ones), or those named
    python3 scripts/decode-bombs/bombs.py --list                 # the cases, as the doc's table

Writes each bomb's file and OUT/cases.tsv, one line a case (a bomb and what is asked of it):
name, class, file, the `webimage` arguments ({in} and {out} stand for the files), the imgproxy
processing options and output extension, how it must end (refused: a limit or a check before
any pixel; budget: decodeTimeBudget; encode-limit: encodeMaxTotalPixelCount; decodes: it
converts), the bound of wall time in seconds (past the budget, for budget:B and within:B), the
peak memory bound in MB, and over HTTP the statuses it may end with and its peak bound in MB.
run.py reads it, and so does Tests/WebImageServerTests/DecodeBombServingTests.swift.

Python's standard library, the repository's test images, and Debian's `vips` (libvips-tools)
for the classes only libvips writes (16-bit PNG, float TIFF, CMYK JPEG, WebP, HEIC, AVIF tiles).
"""
import os
import shutil
import struct
import subprocess
import sys
import zlib

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
IMAGES = os.path.join(REPO, 'Tests', 'Images')


def image(path):
    with open(os.path.join(IMAGES, path), 'rb') as file:
        return file.read()


def vips(*arguments):
    if shutil.which('vips') is None:
        sys.exit('this bomb needs Debian\'s vips: apt-get install libvips-tools')
    subprocess.run(['vips', *map(str, arguments)], check=True, stdout=subprocess.DEVNULL)


# MARK: GIF

def lzw_codes(codes, min_code=8):
    """A GIF image data block (minimum code size, sub-blocks) of `codes`, a list of (code, bits)."""
    out = bytearray()
    bits = 0
    count = 0
    for code, size in codes:
        bits |= code << count
        count += size
        while count >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            count -= 8
    if count:
        out.append(bits & 0xFF)
    blocks = bytearray([min_code])
    for start in range(0, len(out), 255):
        chunk = out[start:start + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b'\0')


def lzw(indices, min_code=8):
    """LZW of `indices` (bytes of palette indices), as a GIF encoder writes it."""
    clear = 1 << min_code
    table = {bytes([i]): i for i in range(clear)}
    next_code, size = clear + 2, min_code + 1
    codes = [(clear, size)]
    word = b''
    for index in indices:
        extended = word + bytes([index])
        if extended in table:
            word = extended
            continue
        codes.append((table[word], size))
        if next_code < 4096:
            table[extended] = next_code
            next_code += 1
            if next_code > (1 << size) and size < 12:
                size += 1
        else:
            codes.append((clear, size))
            table = {bytes([i]): i for i in range(clear)}
            next_code, size = clear + 2, min_code + 1
        word = bytes([index])
    if word:
        codes.append((table[word], size))
    codes.append((clear + 1, size))
    return lzw_codes(codes, min_code)


def lzw_run(index, count, min_code=8):
    """LZW of `count` pixels of one index: each code one longer run than the last, a code a run
    (a pure Python LZW of 4 MP would take minutes)."""
    clear = 1 << min_code
    next_code, size = clear + 2, min_code + 1
    codes = [(clear, size)]
    run_code, run_length, left = index, 1, count
    while left > 0:
        if run_length > left:
            # The tail: single pixels (the table has the index itself).
            codes.append((index, size))
            left -= 1
            continue
        codes.append((run_code, size))
        left -= run_length
        if next_code < 4096:
            run_code, run_length = next_code, run_length + 1
            next_code += 1
            if next_code > (1 << size) and size < 12:
                size += 1
        else:
            codes.append((clear, size))
            next_code, size = clear + 2, min_code + 1
            run_code, run_length = index, 1
    codes.append((clear + 1, size))
    return lzw_codes(codes, min_code)


def gif(width, height, frames, dispose=1, frame_width=None, frame_height=None, data=None):
    """A GIF of `frames` frames of one image block (`data`, else a pattern of 50-pixel squares),
    each at a new place, with the global palette, 40 ms each, looping."""
    frame_width, frame_height = frame_width or width, frame_height or height
    palette = bytes(sum(([i, 255 - i, (i * 7) & 255] for i in range(256)), []))
    out = bytearray(b'GIF89a' + struct.pack('<HHBBB', width, height, 0xF7, 0, 0) + palette)
    out += b'\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00'
    if data is None:
        data = lzw(bytes((x // 50 + y // 50) & 255 for y in range(frame_height) for x in range(frame_width)))
    for k in range(frames):
        out += b'\x21\xF9\x04' + bytes([dispose << 2, 4, 0, 0]) + b'\0'
        x, y = (k * 7) % max(1, width - frame_width + 1), (k * 13) % max(1, height - frame_height + 1)
        out += b'\x2C' + struct.pack('<HHHHB', x, y, frame_width, frame_height, 0) + data
    return bytes(out + b'\x3B')


def gif_parts(data):
    """A GIF cut into its header (with the global colour table) and its blocks."""
    offset = 13 + (0 if data[10] & 0x80 == 0 else 3 << ((data[10] & 7) + 1))
    header, blocks = data[:offset], []
    while data[offset] != 0x3B:
        start = offset
        if data[offset] == 0x21:
            offset += 2
        else:
            flags = data[offset + 9]
            offset += 10 + (0 if flags & 0x80 == 0 else 3 << ((flags & 7) + 1)) + 1
        while data[offset] != 0:
            offset += 1 + data[offset]
        offset += 1
        blocks.append(data[start:offset])
    return header, blocks


def first_gif_frame(blocks):
    image_at = next(i for i, block in enumerate(blocks) if block[0] == 0x2C)
    return blocks[image_at - 1] + blocks[image_at]


# MARK: PNG

def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_inserting(path, chunks):
    data = image(path)
    after_header = 8 + 12 + 13
    return data[:after_header] + b''.join(chunk(kind, body) for kind, body in chunks) + data[after_header:]


def repeated_zlib(block, count, tail=b''):
    """The zlib stream of `block` repeated `count` times then `tail`, made by compressing the
    block twice: after a full flush the compressor forgets what came before, so each further
    copy's output is the second's (a gigabyte of rows in well under a second)."""
    compressor = zlib.compressobj(9)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert first[2:] == again, 'the copies compress alike'
    checksum = 1
    for _ in range(count):
        checksum = zlib.adler32(block, checksum)
    last = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = first + again * (count - 1) if count else first[:2]  # [:2]: the zlib header alone
    return body + last.compress(tail) + last.flush() + struct.pack('>I', zlib.adler32(tail, checksum))


def zeros_zlib(size):
    """The zlib stream of `size` zero bytes."""
    whole, rest = divmod(size, 1 << 20)
    return repeated_zlib(bytes(1 << 20), whole, bytes(rest))


def rows_zlib(row, rows):
    """The zlib stream of `rows` copies of `row` (a row with its filter byte)."""
    per_block = max(1, (1 << 20) // len(row))
    whole, rest = divmod(rows, per_block)
    return repeated_zlib(row * per_block, whole, row * rest)


def apng(width, height, frames, frame_width, frame_height):
    """An APNG: a first frame covering the canvas, then frames at new places (dispose none,
    blend over), RGBA, of rows of one value."""
    parts = [b'\x89PNG\r\n\x1a\n', chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 6, 0, 0, 0)),
             chunk(b'acTL', struct.pack('>II', frames, 0)),
             chunk(b'fcTL', struct.pack('>IIIIIHHBB', 0, width, height, 0, 0, 1, 100, 0, 0)),
             chunk(b'IDAT', rows_zlib(b'\0' + b'\x80' * (width * 4), height))]
    small = rows_zlib(b'\0' + b'\x03' * (frame_width * 4), frame_height)
    sequence = 1
    for k in range(1, frames):
        x, y = (k * 7) % (width - frame_width + 1), (k * 13) % (height - frame_height + 1)
        parts.append(chunk(b'fcTL', struct.pack('>IIIIIHHBB', sequence, frame_width, frame_height, x, y, 1, 100, 0, 1)))
        parts.append(chunk(b'fdAT', struct.pack('>I', sequence + 1) + small))
        sequence += 2
    parts.append(chunk(b'IEND', b''))
    return b''.join(parts)


def png_of_zeros(width, height, bytes_per_pixel, depth, colour, interlaced):
    """A black PNG (every byte zero), Adam7-interlaced or not."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)] if interlaced else [(0, 0, 1, 1)]
    size = 0
    for x0, y0, dx, dy in passes:
        columns, rows = -(-(width - x0) // dx), -(-(height - y0) // dy)
        if columns > 0 and rows > 0:
            size += rows * (1 + columns * bytes_per_pixel)
    stream = zeros_zlib(size)
    header = struct.pack('>IIBBBBB', width, height, depth, colour, 0, 0, 1 if interlaced else 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', stream) + chunk(b'IEND', b'')


def tiff_of_zeros(width, height, samples, bits, sample_format):
    """A black TIFF in one strip, deflated (every byte zero), `samples` of `bits` a pixel (4: CMYK)."""
    size = width * height * samples * bits // 8
    strip = zeros_zlib(size)
    entries = 11
    extra_at = 8 + 2 + entries * 12 + 4
    strip_at = extra_at + 2 * samples * 2
    tags = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, samples, extra_at), (259, 3, 1, 8), (262, 3, 1, 5 if samples == 4 else 2),
            (273, 4, 1, strip_at), (277, 3, 1, samples), (278, 4, 1, height), (279, 4, 1, len(strip)), (284, 3, 1, 1),
            (339, 3, samples, extra_at + 2 * samples)]
    directory = struct.pack('<H', entries) + b''.join(struct.pack('<HHII', *tag) for tag in tags) + struct.pack('<I', 0)
    extra = struct.pack('<%dH' % samples, *[bits] * samples) + struct.pack('<%dH' % samples, *[sample_format] * samples)
    return b'II*\x00' + struct.pack('<I', 8) + directory + extra + strip


# MARK: WebP

def riff(kind, body):
    return kind + struct.pack('<I', len(body)) + body + (b'\0' if len(body) & 1 else b'')


def webp_animation(still, width, height, frames):
    """An animated WebP of `frames` frames, each the image chunk of the still WebP `still`."""
    offset, bitstream = 12, None
    while offset < len(still):
        kind, size = still[offset:offset + 4], struct.unpack('<I', still[offset + 4:offset + 8])[0]
        if kind in (b'VP8 ', b'VP8L'):
            bitstream = still[offset:offset + 8 + size + (size & 1)]
        offset += 8 + size + (size & 1)
    def u24(value):
        return struct.pack('<I', value)[:3]
    body = riff(b'VP8X', bytes([0x12, 0, 0, 0]) + u24(width - 1) + u24(height - 1)) + riff(b'ANIM', struct.pack('<IH', 0, 0))
    frame = riff(b'ANMF', u24(0) + u24(0) + u24(width - 1) + u24(height - 1) + u24(100) + b'\0' + bitstream)
    payload = b'WEBP' + body + frame * frames
    return b'RIFF' + struct.pack('<I', len(payload)) + payload


# MARK: JPEG

class BitWriter:
    """Bits, most significant first, into entropy-coded JPEG bytes (0xFF stuffed with 0x00)."""

    def __init__(self):
        self.out = bytearray()
        self.bits = 0
        self.count = 0

    def write(self, value, size):
        self.bits = (self.bits << size) | (value & ((1 << size) - 1))
        self.count += size
        while self.count >= 8:
            self.count -= 8
            byte = (self.bits >> self.count) & 0xFF
            self.out.append(byte)
            if byte == 0xFF:
                self.out.append(0)
        self.bits &= (1 << self.count) - 1

    def bytes(self):
        if self.count:
            self.write((1 << (8 - self.count)) - 1, 8 - self.count)  # padded with ones
        return bytes(self.out)


def jpeg_segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack('>H', len(body) + 2) + body


def eob_runs(blocks, codes):
    """A progressive AC scan of `blocks` blocks whose coefficients are all zero: end-of-band
    runs of up to 32,767 blocks (EOB14), each symbol r << 4 coded by `codes` with r extra bits."""
    writer = BitWriter()
    while blocks > 0:
        run = min(blocks, 32767)
        r = run.bit_length() - 1
        code, size = codes[r << 4]
        writer.write(code, size)
        writer.write(run - (1 << r), r)
        blocks -= run
    return writer.bytes()


def jpeg_refinement_scans(width, height, luma_bands=4, chroma_bands=1):
    """A progressive 4:2:0 JPEG of mid-grey whose scans are mostly AC refinements: each band of
    each component first sent at Al 13, then refined 13 times down to Al 0, every coefficient
    zero. A refinement scan walks every block of its component and every coefficient of its
    band for those to refine, and its data is a few end-of-band runs (a 100 MP image: about
    100 bytes a scan); the scans stay under the scan limit (14 a band, and the DC scan)."""
    components = [(1, 2, 2), (2, 1, 1), (3, 1, 1)]
    out = bytearray(b'\xFF\xD8')
    out += jpeg_segment(0xDB, b'\x00' + b'\x01' * 64)
    out += jpeg_segment(0xC2, struct.pack('>BHHB', 8, height, width, 3) + b''.join(bytes([c, h << 4 | v, 0]) for c, h, v in components))
    # DC: category 0 (a difference of 0) in one bit. AC: the end-of-band runs EOB0 to EOB14 in 4 bits.
    out += jpeg_segment(0xC4, b'\x00' + bytes([1] + [0] * 15) + b'\x00')
    symbols = [r << 4 for r in range(15)]
    out += jpeg_segment(0xC4, b'\x10' + bytes([0, 0, 0, 15] + [0] * 12) + bytes(symbols))
    codes = {symbol: (index, 4) for index, symbol in enumerate(symbols)}
    # The DC scan, interleaved: six blocks a 16x16 MCU, one zero bit each.
    mcus = -(-width // 16) * -(-height // 16)
    bits = mcus * 6
    dc = bytes(bits // 8) + (bytes([(1 << (8 - bits % 8)) - 1]) if bits % 8 else b'')
    out += jpeg_segment(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0x00])) + dc
    for component, h, _ in components:
        columns = -(-(-(-width * h // 2)) // 8)
        rows = -(-(-(-height * h // 2)) // 8)
        step = -(-63 // (luma_bands if component == 1 else chroma_bands))
        bands = [(start, min(63, start + step - 1)) for start in range(1, 64, step)]
        data = eob_runs(columns * rows, codes)
        for start, end in bands:
            for high, low in [(0, 13)] + [(al + 1, al) for al in range(12, -1, -1)]:
                out += jpeg_segment(0xDA, bytes([1, component, 0x00, start, end, high << 4 | low])) + data
    return bytes(out + b'\xFF\xD9')


def webp_lossless_constant(width, height):
    """A lossless WebP (VP8L) whose every prefix code has one symbol, so that its pixels take no
    bits at all, through a predictor (clamped gradient), a cross-colour and a subtract-green
    transform: decoding it costs per pixel what nothing in the file shows (100 MP in 60 bytes)."""
    bits, count = 0, 0

    def put(value, size):
        nonlocal bits, count
        bits |= value << count
        count += size

    def one_symbol_codes(green, red, blue, alpha):
        # Five simple prefix codes of one 8-bit symbol (the distance code's is 1 bit).
        for symbol in (green, red, blue, alpha):
            put(1, 1), put(0, 1), put(1, 1), put(symbol, 8)
        put(1, 1), put(0, 1), put(0, 1), put(0, 1)

    put(0x2F, 8)
    put(width - 1, 14), put(height - 1, 14), put(0, 1), put(0, 3)
    # Predictor transform: 4x4 blocks (size bits 2), each mode 13; no colour cache in sub-images.
    put(1, 1), put(0, 2), put(0, 3), put(0, 1)
    one_symbol_codes(13, 0, 0, 255)
    # Cross-colour transform, its multipliers nonzero.
    put(1, 1), put(1, 2), put(0, 3), put(0, 1)
    one_symbol_codes(0x25, 0x13, 0x31, 255)
    # Subtract green; then no more transforms, no colour cache, one group of codes.
    put(1, 1), put(2, 2), put(0, 1), put(0, 1), put(0, 1)
    one_symbol_codes(0x40, 0x20, 0x10, 255)
    body = bits.to_bytes((count + 7) // 8, 'little')
    payload = b'WEBP' + riff(b'VP8L', body)
    return b'RIFF' + struct.pack('<I', len(payload)) + payload


# MARK: TIFF, SVG, PDF

def tiff_of_tags(directories=30, tags=4000):
    """`directories` directories of `tags` unknown tags on a 1x1 grey image."""
    size = 2 + (tags + 11) * 12 + 4
    pixel_at = 8 + directories * size
    base = [(256, 4, 1, 1), (257, 4, 1, 1), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1), (273, 4, 1, pixel_at),
            (277, 3, 1, 1), (278, 4, 1, 1), (279, 4, 1, 1), (284, 3, 1, 1), (339, 3, 1, 1)]
    entries = sorted(base + [(40000 + i, 3, 1, 0) for i in range(tags)])
    out = bytearray(b'II*\x00' + struct.pack('<I', 8))
    for number in range(directories):
        out += struct.pack('<H', len(entries)) + b''.join(struct.pack('<HHII', *entry) for entry in entries)
        out += struct.pack('<I', len(out) + 4 if number + 1 < directories else 0)
    return bytes(out + b'\x80')


def svg_of_uses(levels, fan, side=1000):
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{side}" height="{side}"><defs>',
             f'<rect id="l0" x="0" y="0" width="{side}" height="{side}" fill="#123456" fill-opacity="0.01"/>']
    for level in range(1, levels + 1):
        parts.append(f'<g id="l{level}">' + f'<use xlink:href="#l{level - 1}"/>' * fan + '</g>')
    parts.append(f'</defs><use xlink:href="#l{levels}"/></svg>')
    return ''.join(parts).encode()


def svg_of_rects(side, count):
    rect = f'<rect width="{side}" height="{side}" fill="#123456" fill-opacity=".01"/>'
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}" height="{side}">' + rect * count + '</svg>').encode()


def pdf_of_forms(levels=4, fan=100):
    """A 200x200 page drawing a form XObject fan^levels times."""
    def stream(dictionary, body):
        return dictionary[:-2] + b' /Length %d >>\nstream\n' % len(body) + body + b'\nendstream'
    objects = [b'<< /Type /Catalog /Pages 2 0 R >>', b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
               b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /F%d %d 0 R >> >> /Contents 4 0 R >>'
               % (levels, 5 + levels),
               stream(b'<< >>', b'/F%d Do' % levels),
               stream(b'<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] >>', b'0 0 200 200 re f')]
    for level in range(1, levels + 1):
        objects.append(stream(b'<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources << /XObject << /F%d %d 0 R >> >> >>'
                              % (level - 1, 4 + level), b' '.join([b'/F%d Do' % (level - 1)] * fan)))
    out, offsets = bytearray(b'%PDF-1.4\n'), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b'%d 0 obj\n' % number + body + b'\nendobj\n'
    xref = len(out)
    out += b'xref\n0 %d\n0000000000 65535 f \n' % (len(objects) + 1) + b''.join(b'%010d 00000 n \n' % o for o in offsets)
    out += b'trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n' % (len(objects) + 1, xref)
    return bytes(out)


# MARK: HEIF

def boxes(data, start=0, end=None):
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack('>I4s', data[start:start + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack('>Q', data[start + 8:start + 16])[0], 16
        if size == 0:
            size = end - start
        yield kind, start + header, start + size
        start += size


def box(kind, body):
    return struct.pack('>I4s', 8 + len(body), kind) + body


def full_box(kind, version, flags, body):
    return box(kind, struct.pack('>I', version << 24 | flags) + body)


def heif_tile(out, compression, side):
    """The coded tile (its codec's configuration box and data) of a side x side image saved by libvips."""
    vips('black', f'{out}/tile.v', side, side, '--bands', 3)
    vips('heifsave', f'{out}/tile.v', f'{out}/tile.heif', '--compression', compression, '--Q', 30)
    with open(f'{out}/tile.heif', 'rb') as file:
        data = file.read()
    os.remove(f'{out}/tile.v')
    os.remove(f'{out}/tile.heif')
    config, extents = None, []
    for kind, start, end in boxes(data):
        if kind != b'meta':
            continue
        for kind2, start2, end2 in boxes(data, start + 4, end):
            if kind2 == b'iprp':
                for kind3, start3, end3 in boxes(data, start2, end2):
                    if kind3 == b'ipco':
                        for kind4, start4, end4 in boxes(data, start3, end3):
                            if kind4 in (b'hvcC', b'av1C') and config is None:
                                config = data[start4 - 8:end4]
            if kind2 == b'iloc':  # libvips writes version 0, 4-byte offsets and lengths, one extent an item
                count = struct.unpack('>H', data[start2 + 6:start2 + 8])[0]
                for n in range(count):
                    at = start2 + 8 + n * 18
                    item, base, offset, length = struct.unpack('>H2xI2xII', data[at:at + 18])
                    extents.append((item, base + offset, length))
    _, offset, length = min(extents)  # item 1, the coded image
    return config, data[offset:offset + length]


def heif_grid(out, compression, rows, columns, side, one_item=False, coded_side=None):
    """A HEIF whose primary item is a grid of rows x columns tiles all reading the same bytes:
    each tile an item of its own, or (one_item) every reference to one item; the tile coded at
    coded_side while its ispe says side."""
    config, coded = heif_tile(out, compression, coded_side or side)
    kind = b'hvc1' if compression == 'hevc' else b'av01'
    brand = b'heic' if compression == 'hevc' else b'avif'
    tiles = rows * columns
    ids = [2] if one_item else list(range(2, 2 + tiles))
    references = [2] * tiles if one_item else ids
    infe = [full_box(b'infe', 2, 0, struct.pack('>HH4s', 1, 0, b'grid') + b'\0')]
    infe += [full_box(b'infe', 2, 1, struct.pack('>HH4s', i, 0, kind) + b'\0') for i in ids]
    iinf = full_box(b'iinf', 0, 0, struct.pack('>H', 1 + len(ids)) + b''.join(infe))
    iref = full_box(b'iref', 0, 0, box(b'dimg', struct.pack('>HH', 1, tiles) + b''.join(struct.pack('>H', i) for i in references)))
    ipco = box(b'ipco', config + full_box(b'ispe', 0, 0, struct.pack('>II', side, side))
               + full_box(b'ispe', 0, 0, struct.pack('>II', columns * side, rows * side)))
    entries = struct.pack('>HB', 1, 1) + bytes([3]) + b''.join(struct.pack('>HB', i, 2) + bytes([0x81, 2]) for i in ids)
    ipma = full_box(b'ipma', 0, 0, struct.pack('>I', 1 + len(ids)) + entries)
    grid_data = struct.pack('>BBBBHH', 0, 0, rows - 1, columns - 1, columns * side, rows * side)

    def iloc(mdat_at):
        items = struct.pack('>HHHH', 1, 1, 0, 1) + struct.pack('>II', 0, len(grid_data))
        items += b''.join(struct.pack('>HHHH', i, 0, 0, 1) + struct.pack('>II', mdat_at, len(coded)) for i in ids)
        return full_box(b'iloc', 1, 0, bytes([0x44, 0x00]) + struct.pack('>H', 1 + len(ids)) + items)
    hdlr = full_box(b'hdlr', 0, 0, b'\0' * 4 + b'pict' + b'\0' * 13)
    pitm = full_box(b'pitm', 0, 0, struct.pack('>H', 1))
    ftyp = box(b'ftyp', brand + b'\0\0\0\0' + b'mif1' + brand + b'miaf')

    def meta(mdat_at):
        return full_box(b'meta', 0, 0, hdlr + pitm + iloc(mdat_at) + iinf + iref + box(b'iprp', ipco + ipma) + box(b'idat', grid_data))
    head = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(head) + box(b'mdat', coded)


# MARK: The bombs

def jpeg_scans(extra):
    """The progressive fixture with its smallest scan repeated `extra` more times before EOI."""
    data = bytearray(open(os.path.join(REPO, 'Tests/WebImageTests/Fixtures/rocket-progressive-split-chroma.jpg'), 'rb').read())
    starts = [i for i in range(len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xDA]
    start, end = min(zip(starts, starts[1:] + [len(data) - 2]), key=lambda scan: scan[1] - scan[0])
    return data, bytes(data[start:end]), len(starts)


def make_jpegscans(out):
    data, scan, _ = jpeg_scans(5000)
    data[len(data) - 2:len(data) - 2] = scan * 5000
    return bytes(data)


def make_jpegtwice(out):
    # 60 scans (over half the limit of 100) and stray bytes before EOI: TurboJPEG warns and
    # gives up, and libvips would decode it again.
    data, scan, count = jpeg_scans(0)
    data[len(data) - 2:len(data) - 2] = scan * (60 - count) + b'\x55' * 64
    return bytes(data)


def make_gifframes(out):
    header, blocks = gif_parts(image('photos/no_time_for_that_tiny.gif'))
    return header + first_gif_frame(blocks) * 20000 + b'\x3B'


def make_giftotal(out):
    header, blocks = gif_parts(image('photos/no_time_for_that_tiny.gif'))
    return header[:6] + struct.pack('<HH', 10000, 10000) + header[10:] + b''.join(blocks) + b'\x3B'


def make_giflzw(out):
    header, blocks = gif_parts(image('photos/no_time_for_that_tiny.gif'))
    frame = first_gif_frame(blocks)
    return header + frame[:-1] + (b'\xFF' + b'\x10' * 255) * 8000 + frame[-1:] + b'\x3B'


def make_pngiccp(out):
    return png_inserting('pngsuite/basn2c08.png', [(b'iCCP', b'bomb\0\0' + zeros_zlib(32 << 20))])


def make_pngtext(out):
    zeros = zeros_zlib(32 << 20)
    return png_inserting('pngsuite/basn2c08.png', [(b'zTXt', b'Comment\0\0' + zeros)] * 10 + [(b'iTXt', b'Comment\0\1\0\0\0' + zeros)] * 10)


def make_pnglongchunk(out):
    # A text chunk declaring 2 GB - 1 where the file ends (the fuzz regression's shape).
    return image('pngsuite/basn2c08.png')[:8 + 12 + 13] + b'\x7F\xFF\xFF\xFFiTXtXML:com.adobe.xmp' + bytes(5)


def make_svgcanvas(out):
    return image('sdwebimage/TestImage.svg').replace(b'<svg ', b'<svg width="200000" height="200000" ', 1)


def make_pdfcanvas(out):
    return image('sdwebimage/TestImage.pdf').replace(b'[ 0 0 36 36 ]', b'[0 0 14400 14400]', 1)


def make_png16(out):
    # 100 MP of 16-bit RGBA, interlaced: 800 MB as the loader makes it.
    return png_of_zeros(10000, 10000, 8, 16, 6, interlaced=True)


def make_tifffloat(out):
    # 9000x9000 float RGB in one strip: 972 MB as the loader makes it.
    return tiff_of_zeros(9000, 9000, 3, 32, 3)


def make_jpegcmyk(out):
    # 8000x8000 progressive CMYK: 512 MB of coefficients (2 bytes a sample, 4 samples).
    with open(f'{out}/cmyk.tif', 'wb') as file:
        file.write(tiff_of_zeros(8000, 8000, 4, 8, 1))
    vips('copy', f'{out}/cmyk.tif', f'{out}/jpegcmyk.jpg[interlace,Q=50]', '--interpretation', 'cmyk')
    os.remove(f'{out}/cmyk.tif')


def make_webp100mp(out):
    # 100 MP of sine waves, lossy: about a second of libwebp's decode in one call here.
    vips('sines', f'{out}/s.v', 10000, 10000, '--hfreq', 37, '--vfreq', 23)
    vips('linear', f'{out}/s.v', f'{out}/s2.v', 120, 128, '--uchar')
    vips('bandjoin', f'{out}/s2.v {out}/s2.v {out}/s2.v', f'{out}/s3.v')
    vips('webpsave', f'{out}/s3.v', f'{out}/webp100mp.webp', '--Q', 75)
    for name in ('s.v', 's2.v', 's3.v'):
        os.remove(f'{out}/{name}')


def make_webp249(out):
    vips('black', f'{out}/f.v', 2000, 2000, '--bands', 3)
    vips('linear', f'{out}/f.v', f'{out}/f2.v', 1, 60, '--uchar')
    vips('webpsave', f'{out}/f2.v', f'{out}/frame.webp', '--Q', 50)
    with open(f'{out}/frame.webp', 'rb') as file:
        still = file.read()
    for name in ('f.v', 'f2.v', 'frame.webp'):
        os.remove(f'{out}/{name}')
    return webp_animation(still, 2000, 2000, 249)


# name: (class, extension, maker, cases). A case: (suffix, webimage arguments, imgproxy options
# and output extension, end, wall bound past that end in seconds, peak bound in MB).
# Ends: refused (a limit or check, before any pixel), budget:B (stopped by decodeTimeBudget's
# B: 2 s thumbnail, 3 s full size, 5 s animation), within:B (decodes, or is stopped by B: work
# near its budget), encode-limit, decodes. The wall bound: the seconds given, or for budget:B
# and within:B, B plus the seconds given (the margin).
REFUSED_WALL = 1.0
MARGIN = 0.3
# An animation written frame by frame as the budget lets the frames through: past the margin,
# the encoder's work on each (libvips' GIF saver quantises every frame in threads of its own,
# outside the decode budget: 0.13 s of gifrestore-thumb's 5 s budget here, the same share on a
# slower machine, as both scale with the frames the budget lets through).
ENCODED_FRAMES_MARGIN = MARGIN + 0.25
# Over HTTP (`webimage serve`, its defaults), a case ends with 422 (or 503, the request's
# TIMEOUT), else as these say: (statuses, peak bound in MB over the resident memory before the
# request). The server's own limits refuse most before the decoder sees them (50 MP, frames);
# it draws a vector of any declared size within its resolution limit, as imgproxy does (50 MP
# of RGBA); it writes PNG as a still image, the first frame alone.
VECTOR = ('200', 300)
STILL = ('200', 100)
BOMBS = {
    # The first round (reliability I): limits read from the file's structure.
    'jpegscans': ('scans', 'jpg', make_jpegscans, [('', 'convert {in} {out}.jpg', 'rs:fit:300:300/plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'gifframes': ('frames', 'gif', make_gifframes, [('', 'convert {in} {out}.gif', 'rs:fit:100:100/plain/{url}@gif', 'refused', REFUSED_WALL, 100)]),
    'giftotal': ('total-pixels', 'gif', make_giftotal, [('', 'convert {in} {out}.gif', 'rs:fit:100:100/plain/{url}@gif', 'refused', REFUSED_WALL, 100)]),
    'giflzw': ('gif-lzw', 'gif', make_giflzw, [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100)]),
    'pngiccp': ('metadata', 'png', make_pngiccp, [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100)]),
    'pngtext': ('metadata', 'png', make_pngtext, [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', 2.0, 100)]),
    'pnglongchunk': ('png-chunks', 'png', make_pnglongchunk, [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100)]),
    'svgcanvas': ('pixels', 'svg', make_svgcanvas, [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100, VECTOR)]),
    'pdfcanvas': ('pixels', 'pdf', make_pdfcanvas, [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100, VECTOR)]),
    # The second round (reliability II): work no limit counted.
    'gif250': ('animation-pass', 'gif', lambda out: gif(1000, 1000, 250), [
        ('', 'convert {in} {out}.webp --thumbnail 100x100', 'rs:fit:100:100/plain/{url}@webp', 'within:animation', MARGIN, 250)]),
    'gifrestore': ('animation-pass', 'gif', lambda out: gif(2000, 2000, 249, dispose=3, frame_width=1, frame_height=1, data=lzw(b'\x05')), [
        ('', 'convert {in} {out}.webp', 'plain/{url}@webp', 'encode-limit', REFUSED_WALL, 100),
        ('-thumb', 'convert {in} {out}.gif --thumbnail 100x100', 'rs:fit:100:100/plain/{url}@gif', 'budget:animation', ENCODED_FRAMES_MARGIN, 150),
        ('-still', 'convert {in} {out}.jpg --thumbnail 100x100', 'rs:fit:100:100/plain/{url}@jpg', 'decodes', 1.0, 100)]),
    'webp249': ('total-pixels', 'webp', make_webp249, [('', 'convert {in} {out}.webp --thumbnail 100x100', 'rs:fit:100:100/plain/{url}@webp', 'refused', REFUSED_WALL, 100)]),
    'apng9999': ('apng-canvas', 'png', lambda out: apng(316, 316, 9999, 1, 1), [
        ('', 'convert {in} {out}.webp', 'plain/{url}@webp', 'encode-limit', REFUSED_WALL, 100),
        ('-thumb', 'convert {in} {out}.png --thumbnail 100x100', 'rs:fit:100:100/plain/{url}@png', 'encode-limit', REFUSED_WALL, 100, STILL)]),
    'apng100mp': ('apng-canvas', 'png', lambda out: apng(10000, 10000, 2, 10000, 10000), [
        ('', 'convert {in} {out}.png', 'plain/{url}@png', 'encode-limit', 3.0, 900),
        ('-thumb', 'convert {in} {out}.png --thumbnail 200x200', 'rs:fit:200:200/plain/{url}@png', 'budget:animation', MARGIN, 600)]),
    'png16': ('pixels', 'png', make_png16, [('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'tifffloat': ('pixels', 'tif', make_tifffloat, [('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'jpegcmyk': ('pixels', 'jpg', make_jpegcmyk, [('', 'convert {in} {out}.jpg --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'jpegtwice': ('scans', 'jpg', make_jpegtwice, [('', 'convert {in} {out}.jpg --thumbnail 64x64', 'rs:fit:64:64/plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'tifftags': ('tiff-tags', 'tif', lambda out: tiff_of_tags(), [('', 'convert {in} {out}.jpg --thumbnail 64x64', 'rs:fit:64:64/plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'svguse': ('svg-work', 'svg', lambda out: svg_of_uses(5, 10), [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100)]),
    'svgblur': ('svg-work', 'svg', lambda out: (b'<svg xmlns="http://www.w3.org/2000/svg" width="10000" height="10000"><filter id="b">'
                                                b'<feGaussianBlur stdDeviation="50"/></filter><rect width="10000" height="10000" fill="red" filter="url(#b)"/></svg>'),
                [('', 'convert {in} {out}.png', 'plain/{url}@png', 'refused', REFUSED_WALL, 100)]),
    # The third round: the time budget, the child process, HEIF work, the encode limit.
    'pdfforms': ('time-budget', 'pdf', lambda out: pdf_of_forms(), [
        ('', 'convert {in} {out}.png', 'plain/{url}@png', 'budget:full', MARGIN, 100),
        ('-thumb', 'convert {in} {out}.png --thumbnail 100x100', 'rs:fit:100:100/plain/{url}@png', 'budget:thumbnail', MARGIN, 100)]),
    'svgrects': ('time-budget', 'svg', lambda out: svg_of_rects(2000, 40000), [
        ('', 'convert {in} {out}.png', 'plain/{url}@png', 'budget:full', MARGIN, 200),
        ('-thumb', 'convert {in} {out}.png --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@png', 'within:thumbnail', MARGIN, 200)]),
    'svgrects10k': ('time-budget', 'svg', lambda out: svg_of_rects(10000, 40000), [
        ('', 'convert {in} {out}.png', 'plain/{url}@png', 'budget:full', MARGIN, 200),
        ('-thumb', 'convert {in} {out}.png --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@png', 'within:thumbnail', MARGIN, 200)]),
    'heicgrid': ('heif-work', 'heic', lambda out: heif_grid(out, 'hevc', 100, 100, 64), [
        ('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'refused', REFUSED_WALL, 100),
        ('-thumb', 'convert {in} {out}.jpg --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'avifgrid': ('heif-work', 'avif', lambda out: heif_grid(out, 'av1', 100, 100, 64), [('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'heicrefs': ('heif-work', 'heic', lambda out: heif_grid(out, 'hevc', 150, 150, 64, one_item=True), [('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    'heicbigtiles': ('heif-work', 'heic', lambda out: heif_grid(out, 'hevc', 10, 10, 64, coded_side=2048), [('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'refused', REFUSED_WALL, 100)]),
    # The fourth round (reliability IV): work between two checks of the budget.
    'jpegrefine': ('time-budget', 'jpg', lambda out: jpeg_refinement_scans(10000, 10000), [
        ('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'budget:full', MARGIN, 400),
        ('-thumb', 'convert {in} {out}.jpg --thumbnail 2000x2000', 'rs:fit:2000:2000/plain/{url}@jpg', 'budget:thumbnail', MARGIN, 400)]),
    # Chroma-heavy: what a 1/8 thumbnail of a 4:2:0 file reads (its chroma scans, whole).
    'jpegrefinechroma': ('time-budget', 'jpg', lambda out: jpeg_refinement_scans(10000, 10000, 1, 3), [
        ('-thumb', 'convert {in} {out}.jpg --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@jpg', 'within:thumbnail', MARGIN, 400)]),
    'webp100mp': ('time-budget', 'webp', make_webp100mp, [
        ('', 'convert {in} {out}.jpg', 'plain/{url}@jpg', 'within:full', MARGIN, 600),
        ('-thumb', 'convert {in} {out}.jpg --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@jpg', 'within:thumbnail', MARGIN, 100)]),
    # (At full size its decode fits the budget, and the 100 MP JPEG to write then does not:
    # decode-probe's tests cover that decode.)
    'webp100mpll': ('time-budget', 'webp', lambda out: webp_lossless_constant(10000, 10000), [
        ('-thumb', 'convert {in} {out}.jpg --thumbnail 256x256', 'rs:fit:256:256/plain/{url}@jpg', 'within:thumbnail', MARGIN, 500)]),
    'gif249x4mp': ('encode-limit', 'gif', lambda out: gif(2000, 2000, 249, data=lzw_run(5, 2000 * 2000)), [
        ('', 'convert {in} {out}.webp', 'plain/{url}@webp', 'encode-limit', REFUSED_WALL, 200),
        ('-gif', 'convert {in} {out}.gif', 'plain/{url}@gif', 'encode-limit', REFUSED_WALL, 200),
        ('-png', 'convert {in} {out}.png', 'plain/{url}@png', 'encode-limit', REFUSED_WALL, 200, STILL)]),
}
CLASSES = sorted({spec[0] for spec in BOMBS.values()})
# Bombs made only when named or their class is (libvips' WebP encoder takes about 40 s of CPU
# for webp100mp): every bomb otherwise.
SLOW = {'webp100mp'}


def served(end, peak):
    """The statuses and peak bound of a case over HTTP, by how it ends in the CLI."""
    if end == 'decodes':
        return '200', peak
    return ('200/422/503' if end.startswith('within:') else '422/503'), peak


def cases():
    for name, (kind, extension, _, runs) in BOMBS.items():
        for suffix, arguments, imgproxy, end, wall, peak, *server in runs:
            statuses, server_peak = server[0] if server else served(end, peak)
            yield name + suffix, kind, f'{name}.{extension}', arguments, imgproxy, end, wall, peak, statuses, server_peak


def main(arguments):
    if arguments[:1] == ['--list']:
        print('| case | class | `webimage` | ends | wall | peak | over HTTP | peak over HTTP |\n| --- | --- | --- | --- | --- | --- | --- | --- |')
        for case, kind, file, command, imgproxy, end, wall, peak, statuses, server_peak in cases():
            command = command.replace('{in}', file).replace('{out}', 'out')
            bound = f'{end.split(":")[1]} + {wall} s' if ':' in end else f'{wall} s'
            print(f'| {case} | {kind} | `{command}` | {end} | {bound} | {peak} MB | {statuses} | {server_peak} MB |')
        return 0
    if not arguments or arguments[0].startswith('-'):
        print(__doc__.strip(), file=sys.stderr)
        return 64
    out, wanted = arguments[0], set(arguments[1:])
    unknown = wanted - set(BOMBS) - set(CLASSES)
    if unknown:
        print(f'unknown bombs or classes: {" ".join(sorted(unknown))} (classes: {" ".join(CLASSES)})', file=sys.stderr)
        return 64
    os.makedirs(out, exist_ok=True)
    written = set()
    for name, (kind, extension, make, _) in BOMBS.items():
        # The bombs asked for; with none asked for, every bomb but the slow ones.
        named = name in wanted or kind in wanted
        if not named and (wanted or name in SLOW):
            continue
        path = f'{out}/{name}.{extension}'
        data = make(out)
        if data is not None:
            with open(path, 'wb') as file:
                file.write(data)
        written.add(name)
    with open(f'{out}/cases.tsv', 'w') as file:
        for case in cases():
            if case[2].rsplit('.', 1)[0] in written:
                file.write('\t'.join(map(str, case)) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
