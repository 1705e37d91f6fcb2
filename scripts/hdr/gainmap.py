#!/usr/bin/env python3
"""Writes the reference HDR rendition of a gain-map JPEG (run once; the tests read the
committed result and need none of these tools).

Independent of the library: the gain map is found by the primary image's XMP container
directory (`Item:Length` of the `GainMap` item: the file's last bytes), both images are decoded
by libjpeg-turbo's djpeg, and the rendition is computed with numpy and colour-science from
Adobe's gain map specification 1.0 (the Ultra HDR math), at full weight:

    HDR = (SDR + offset_sdr) * 2^(min * (1 - g) + max * g) - offset_hdr,  g = map^(1 / gamma)

SDR the base in linear light (sRGB's curve), min and max the log2 gains of the map's `hdrgm:`
XMP, 1.0 = SDR white = 203 cd/m2, written as SMPTE ST 2084 (PQ) codes. The output is the mean
of each 8x8 block (the picture's last partial blocks dropped), 16-bit RGB PNG, full signal 65535.

    python3 scripts/hdr/gainmap.py Tests/Images/sdwebimage/TestHDR.jpeg Tests/Images/hdr/TestHDR-jpeg-gainmap-reference.png
"""
import re
import struct
import subprocess
import sys
import zlib

import colour
import numpy as np

BLOCK = 8
REFERENCE_WHITE = 203.0


def decoded(jpeg):
    ppm = subprocess.run(["djpeg", "-pnm"], input=jpeg, capture_output=True, check=True).stdout
    magic, width, height, maximum, pixels = re.match(rb"(P[56])\s+(\d+)\s+(\d+)\s+(\d+)\s(.*)", ppm, re.S).groups()
    channels = 3 if magic == b"P6" else 1
    return np.frombuffer(pixels, dtype=np.uint8).reshape(int(height), int(width), channels).astype(float) / 255


def values(xmp, name):
    attribute = re.search(rf'hdrgm:{name}="([^"]*)"', xmp)
    if attribute:
        items = [attribute.group(1)]
    else:
        element = re.search(rf"<hdrgm:{name}>(.*?)</hdrgm:{name}>", xmp, re.S).group(1)
        items = re.findall(r"<rdf:li>([^<]*)</rdf:li>", element) or [element]
    numbers = np.array([float(item) for item in items])
    return np.resize(numbers, 3)


def write_png16(path, rgb):
    height, width, _ = rgb.shape
    rows = b"".join(b"\x00" + row.astype(">u2").tobytes() for row in rgb)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def main(source, target):
    data = open(source, "rb").read()
    directory = data[: data.index(b"</x:xmpmeta>")].decode("latin-1")
    length = int(re.search(r'Item:Semantic="GainMap"[^>]*?Item:Length="(\d+)"', directory, re.S).group(1))
    base, gain_map = data[:-length], data[-length:]
    xmp = gain_map[gain_map.index(b"<x:xmpmeta") : gain_map.index(b"</x:xmpmeta>")].decode("utf-8")

    sdr = colour.models.eotf_sRGB(decoded(base))
    recovery = np.broadcast_to(decoded(gain_map), sdr.shape) ** (1 / values(xmp, "Gamma"))
    low, high = values(xmp, "GainMapMin"), values(xmp, "GainMapMax")
    hdr = (sdr + values(xmp, "OffsetSDR")) * np.exp2(low * (1 - recovery) + high * recovery) - values(xmp, "OffsetHDR")
    codes = colour.models.eotf_inverse_ST2084(np.maximum(hdr, 0) * REFERENCE_WHITE)

    height, width = (codes.shape[0] // BLOCK) * BLOCK, (codes.shape[1] // BLOCK) * BLOCK
    blocks = codes[:height, :width].reshape(height // BLOCK, BLOCK, width // BLOCK, BLOCK, 3).mean(axis=(1, 3))
    write_png16(target, np.round(blocks * 65535).clip(0, 65535).astype(np.uint16))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
