set -e
export REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p ${BOMBS:=/tmp/bombs} && cd "$BOMBS"
# 16-bit RGBA interlaced PNG, 100 MP
vips black b4.v 10000 10000 --bands 4 && vips cast b4.v b16.v ushort && vips copy b16.v "png16.png[interlace,compression=1]" --interpretation rgb16
# float RGB TIFF, one strip (deflate)
vips black b3.v 9000 9000 --bands 3 && vips cast b3.v f3.v float && vips tiffsave f3.v float1strip.tif --compression deflate --tile=false
# progressive CMYK JPEG 8000x8000
vips black c.v 8000 8000 --bands 4 && vips copy c.v c2.v --interpretation cmyk && vips jpegsave c2.v cmyk-prog.jpg --interlace --Q 50
rm -f b4.v b16.v b3.v f3.v c.v c2.v
python3 - <<'PY'
import struct
# TIFF: 30 directories of 4,000 unknown tags on a 1x1 grey image
def tiff(dirs, tail):
    b = bytearray(b'II*\x00' + struct.pack('<I', 8))
    for i, entries in enumerate(dirs):
        b += struct.pack('<H', len(entries))
        for t in entries: b += struct.pack('<HHII', *t)
        b += struct.pack('<I', len(b) + 4 if i + 1 < len(dirs) else 0)
    return bytes(b + tail)
size = 2 + 4011 * 12 + 4
off = 8 + 30 * size
base = [(256,4,1,1),(257,4,1,1),(258,3,1,8),(259,3,1,1),(262,3,1,1),(273,4,1,off),(277,3,1,1),(278,4,1,1),(279,4,1,1),(284,3,1,1),(339,3,1,1)]
d = sorted(base + [(40000 + i, 3, 1, 0) for i in range(4000)])
open('tags.tif','wb').write(tiff([d]*30, b'\x80'))
# JPEG decoded twice: the fixture with its smallest scan repeated to 60 scans, stray bytes before EOI
d = bytearray(open(__import__('os').environ['REPO'] + '/Tests/WebImageTests/Fixtures/rocket-progressive-split-chroma.jpg','rb').read())
starts = [i for i in range(len(d)-1) if d[i]==0xFF and d[i+1]==0xDA]
ends = starts[1:] + [len(d)-2]
scans = [(s,e) for s,e in zip(starts,ends)]
s,e = min(scans, key=lambda r: r[1]-r[0])
d[len(d)-2:len(d)-2] = bytes(d[s:e]) * (60 - len(scans)) + b'\x55' * 64
open('twice60.jpg','wb').write(d)
def svg(levels, fan, w=1000, h=1000):
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{w}" height="{h}"><defs>']
    parts.append('<rect id="l0" x="0" y="0" width="%d" height="%d" fill="#123456" fill-opacity="0.01"/>' % (w, h))
    for l in range(1, levels + 1):
        parts.append(f'<g id="l{l}">' + ''.join(f'<use xlink:href="#l{l-1}"/>' for _ in range(fan)) + '</g>')
    parts.append(f'</defs><use xlink:href="#l{levels}"/></svg>')
    return ''.join(parts)
open('use5.svg','w').write(svg(5, 10)); open('use9.svg','w').write(svg(9, 10))
open('blur100mp.svg','w').write('<svg xmlns="http://www.w3.org/2000/svg" width="10000" height="10000"><filter id="b"><feGaussianBlur stdDeviation="50"/></filter><rect width="10000" height="10000" fill="red" filter="url(#b)"/></svg>')
PY
ls -la png16.png float1strip.tif cmyk-prog.jpg tags.tif twice60.jpg use5.svg
