#!/usr/bin/env python3
"""Helpers of scripts/hdr/make-ultrahdr.sh (run once; the tests read the committed results).

    ultrahdr-reference.py pack INTENT.raw WIDTH HEIGHT OUT.rgba1010102
        16-bit RGB samples (libvips' rawsave of heif-convert's PNG of TestHDR.heic: its 10-bit codes
        shifted up by 6 bits) packed as libultrahdr's RGBA1010102 (R in the low bits).

    ultrahdr-reference.py sdr BASE.ppm OUT.rgba8888
        An 8-bit RGB PPM (djpeg of an Ultra HDR file's base image) as RGBA8888, opaque.

    ultrahdr-reference.py reference RENDITION.rgbaf16 WIDTH HEIGHT OUT.png
        libultrahdr's decode (ultrahdr_app -m 1 -o 0 -O 4: linear half floats, 1.0 SDR white, in
        the map image's ICC primaries, else the base's) put at 203 cd/m2 for 1.0 and written as
        SMPTE ST 2084 codes with colour-science: the mean of each 8x8 block, 16-bit RGB PNG, full
        signal 65535 (as scripts/hdr/gainmap.py writes its reference).
"""
import re
import sys

import colour
import numpy as np

from gainmap import BLOCK, REFERENCE_WHITE, write_png16

def pack(source, width, height, target):
    samples = np.fromfile(source, dtype=np.uint16).reshape(height, width, 3).astype(np.uint32)
    assert (samples % 64 == 0).all(), "10-bit codes shifted up by 6 bits expected"
    codes = samples >> 6
    packed = codes[..., 0] | codes[..., 1] << 10 | codes[..., 2] << 20 | np.uint32(3) << 30
    packed.astype("<u4").tofile(target)


def sdr(source, target):
    data = open(source, "rb").read()
    header = re.match(rb"P6\s+(\d+)\s+(\d+)\s+255\s", data)
    width, height = int(header.group(1)), int(header.group(2))
    rgb = np.frombuffer(data[header.end():], dtype=np.uint8).reshape(height, width, 3)
    np.concatenate([rgb, np.full((height, width, 1), 255, np.uint8)], axis=2).tofile(target)


def reference(source, width, height, target):
    linear = np.fromfile(source, dtype="<f2").reshape(height, width, 4)[..., :3].astype(float)
    codes = colour.models.eotf_inverse_ST2084(np.maximum(linear, 0) * REFERENCE_WHITE)
    rows, columns = (height // BLOCK) * BLOCK, (width // BLOCK) * BLOCK
    blocks = codes[:rows, :columns].reshape(rows // BLOCK, BLOCK, columns // BLOCK, BLOCK, 3).mean(axis=(1, 3))
    write_png16(target, np.round(blocks * 65535).clip(0, 65535).astype(np.uint16))


if __name__ == "__main__":
    if sys.argv[1] == "pack":
        pack(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "sdr":
        sdr(sys.argv[2], sys.argv[3])
    else:
        reference(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
