# The third round's files (docs/measurements/decode-limits.md): python3 gen3.py OUT [names...]
#   pdfforms   a page drawing a form XObject 10^8 times (4 levels of 100 `Do`), 2 KB
#   svgrects   40,000 full-canvas rectangles on 2000x2000, no <use> and no filter, 1.7 MB
#   svgrects10k  the same on 10000x10000 (25 of libvips' 2000x2000 SVG tiles)
#   gif249x4mp 249 frames of 2000x2000, 23 MB of GIF (the encode bound)
#   heicgrid   a HEIC grid of 100x100 tiles of 64x64, every tile the same 64x64 HEVC image
#   avifgrid   the same in AVIF
#   heicrefs   a HEIC grid of 150x150 tiles of 64x64, every reference to one tile item (22,500 decodes, 45 KB)
#   heicbigtiles a HEIC grid of 10x10 tiles declared 64x64 (ispe) but coded at 2048x2048
import os, struct, sys, subprocess, zlib
out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/bombs2'
what = sys.argv[2:]

def pdf(path, levels=4, fan=100):
    objects = [b'<< /Type /Catalog /Pages 2 0 R >>', b'<< /Type /Pages /Kids [3 0 R] /Count 1 >>']
    top = 5 + levels
    objects.append(b'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /F%d %d 0 R >> >> /Contents 4 0 R >>' % (levels, top))
    def stream(dictionary, body):
        return dictionary[:-2] + b' /Length %d >>\nstream\n' % len(body) + body + b'\nendstream'
    objects.append(stream(b'<< >>', b'/F%d Do' % levels))
    objects.append(stream(b'<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] >>', b'0 0 200 200 re f'))
    for level in range(1, levels + 1):
        body = b' '.join([b'/F%d Do' % (level - 1)] * fan)
        objects.append(stream(b'<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Resources << /XObject << /F%d %d 0 R >> >> >>' % (level - 1, 4 + level), body))
    data = bytearray(b'%PDF-1.4\n')
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(data))
        data += b'%d 0 obj\n' % number + body + b'\nendobj\n'
    xref = len(data)
    data += b'xref\n0 %d\n0000000000 65535 f \n' % (len(objects) + 1)
    for offset in offsets: data += b'%010d 00000 n \n' % offset
    data += b'trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n' % (len(objects) + 1, xref)
    open(path, 'wb').write(data)

def svg_rects(path, side, count):
    rect = '<rect width="%d" height="%d" fill="#123456" fill-opacity=".01"/>' % (side, side)
    open(path, 'w').write('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">' % (side, side) + rect * count + '</svg>')

def boxes(data, start=0, end=None):
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack('>I4s', data[start:start + 8])
        header = 8
        if size == 1: size = struct.unpack('>Q', data[start + 8:start + 16])[0]; header = 16
        if size == 0: size = end - start
        yield kind, start + header, start + size
        start += size

def box(kind, body): return struct.pack('>I4s', 8 + len(body), kind) + body
def full(kind, version, flags, body): return box(kind, struct.pack('>I', version << 24 | flags) + body)

def tile(compression, side):
    """The coded tile (its codec's configuration box and data) of a side x side image saved by libvips."""
    subprocess.run(['vips', 'black', f'{out}/tile.v', str(side), str(side), '--bands', '3'], check=True)
    subprocess.run(['vips', 'heifsave', f'{out}/tile.v', f'{out}/tile.heif', '--compression', compression, '--Q', '30'], check=True)
    data = open(f'{out}/tile.heif', 'rb').read()
    config = None; extents = []
    for kind, start, end in boxes(data):
        if kind == b'meta':
            for k2, s2, e2 in boxes(data, start + 4, end):
                if k2 == b'iprp':
                    for k3, s3, e3 in boxes(data, s2, e2):
                        if k3 == b'ipco':
                            for k4, s4, e4 in boxes(data, s3, e3):
                                if k4 in (b'hvcC', b'av1C') and config is None: config = data[s4 - 8:e4]
                if k2 == b'iloc':  # libvips writes version 0, 4-byte base offsets, offsets and lengths, one extent an item
                    count = struct.unpack('>H', data[s2 + 6:s2 + 8])[0]
                    for n in range(count):
                        at = s2 + 8 + n * 18
                        item, base, offset, length = struct.unpack('>H2xI2xII', data[at:at + 18])
                        extents.append((item, base + offset, length))
    os.remove(f'{out}/tile.v'); os.remove(f'{out}/tile.heif')
    _, offset, length = min(extents)  # item 1, the coded image (item 2 is its Exif)
    return config, data[offset:offset + length]

def grid(path, compression, rows, columns, side, one_item=False, coded_side=None):
    """A HEIF whose primary item is a grid of rows x columns tiles, all reading the same bytes:
    each tile an item of its own, or (one_item) every reference to one item; the tile coded at
    coded_side while its ispe says side."""
    config, coded = tile(compression, coded_side or side)
    kind = b'hvc1' if compression == 'hevc' else b'av01'
    brand = b'heic' if compression == 'hevc' else b'avif'
    tiles = rows * columns
    ids = [2] if one_item else list(range(2, 2 + tiles))
    references = [2] * tiles if one_item else ids
    infe = [full(b'infe', 2, 0, struct.pack('>HH4s', 1, 0, b'grid') + b'\0')]
    infe += [full(b'infe', 2, 1, struct.pack('>HH4s', i, 0, kind) + b'\0') for i in ids]  # hidden tiles
    iinf = full(b'iinf', 0, 0, struct.pack('>H', 1 + len(ids)) + b''.join(infe))
    iref = full(b'iref', 0, 0, box(b'dimg', struct.pack('>HH', 1, tiles) + b''.join(struct.pack('>H', i) for i in references)))
    ispe_grid = full(b'ispe', 0, 0, struct.pack('>II', columns * side, rows * side))
    ispe_tile = full(b'ispe', 0, 0, struct.pack('>II', side, side))
    ipco = box(b'ipco', config + ispe_tile + ispe_grid)
    entries = struct.pack('>HB', 1, 1) + bytes([3])  # grid: ispe (3)
    entries += b''.join(struct.pack('>HB', i, 2) + bytes([0x81, 2]) for i in ids)  # tiles: config (essential), ispe
    ipma = full(b'ipma', 0, 0, struct.pack('>I', 1 + len(ids)) + entries)
    grid_data = struct.pack('>BBBBHH', 0, 0, rows - 1, columns - 1, columns * side, rows * side)
    # iloc version 1, offsets and lengths 4 bytes, construction method 1 (idat) for the grid.
    def iloc(offset_of_mdat):
        items = struct.pack('>HHHH', 1, 1, 0, 1) + struct.pack('>II', 0, len(grid_data))
        items += b''.join(struct.pack('>HHHH', i, 0, 0, 1) + struct.pack('>II', offset_of_mdat, len(coded)) for i in ids)
        return full(b'iloc', 1, 0, bytes([0x44, 0x00]) + struct.pack('>H', 1 + len(ids)) + items)
    hdlr = full(b'hdlr', 0, 0, b'\0' * 4 + b'pict' + b'\0' * 12 + b'\0')
    pitm = full(b'pitm', 0, 0, struct.pack('>H', 1))
    ftyp = box(b'ftyp', brand + b'\0\0\0\0' + b'mif1' + brand + b'miaf')
    def meta(offset): return full(b'meta', 0, 0, hdlr + pitm + iloc(offset) + iinf + iref + box(b'iprp', ipco + ipma) + box(b'idat', grid_data))
    head = len(ftyp) + len(meta(0)) + 8
    open(path, 'wb').write(ftyp + meta(head) + box(b'mdat', coded))

if 'pdfforms' in what: pdf(f'{out}/pdfforms.pdf')
if 'svgrects' in what: svg_rects(f'{out}/svgrects.svg', 2000, 40000)
if 'svgrects10k' in what: svg_rects(f'{out}/svgrects10k.svg', 10000, 40000)
if 'heicgrid' in what: grid(f'{out}/heicgrid.heic', 'hevc', 100, 100, 64)
if 'avifgrid' in what: grid(f'{out}/avifgrid.avif', 'av1', 100, 100, 64)
if 'heicrefs' in what: grid(f'{out}/heicrefs.heic', 'hevc', 150, 150, 64, one_item=True)
if 'heicbigtiles' in what: grid(f'{out}/heicbigtiles.heic', 'hevc', 10, 10, 64, coded_side=2048)
if 'gif249x4mp' in what:
    sys.argv = ['gen.py', out]
    exec(open(os.path.join(os.path.dirname(__file__), 'gen.py')).read().split("what = sys.argv")[0])
    gif(f'{out}/gif249x4mp.gif', 2000, 2000, 249)
