#!/usr/bin/env python3
"""Writes the HDR test charts and their reference SDR values (run once by make-charts.sh; the
tests read the committed results and need none of these tools).

Each chart is a row of grey patches (a ramp, with a 1,000 and a 4,000 cd/m2 highlight for PQ)
above a row of saturated BT.2020 colours, as 10-bit PQ or HLG codes. The reference is computed
here, independently of the library's C, from colour-science's implementations of SMPTE ST 2084,
ITU-R BT.2100 HLG (its OOTF on a 1,000 cd/m2 display), the BT.2020 -> sRGB conversion and the
sRGB curve, with ITU-R BT.2390's EETF written from the Recommendation's text (5.4.1): luminance
tone mapped in PQ space from the source's peak to 203 cd/m2 (BT.2408's reference white, SDR
white), each colour scaled by its luminance's gain, then desaturated toward the grey of its own
luminance until it fits sRGB's gamut (hue and luminance kept).

    python3 scripts/hdr/charts.py OUT_DIR   # writes OUT_DIR/chart-{pq,hlg}.raw16, chart.json
    python3 scripts/hdr/charts.py --cicp IN.png OUT.png PRIMARIES TRANSFER  # adds a cICP chunk
    python3 scripts/hdr/charts.py --tonemap IN.raw16 WIDTH HEIGHT pq|hlg PEAK OUT.raw8
        # a whole picture (16-bit BT.2020 RGB, as the reference decoders wrote it) to 8-bit sRGB
"""
import json
import struct
import sys
import zlib

import colour
import numpy as np

PATCH = 24
REFERENCE_WHITE = 203.0
BT2020 = colour.RGB_COLOURSPACES["ITU-R BT.2020"]
SRGB = colour.RGB_COLOURSPACES["sRGB"]
BT2020_LUMA = np.array([0.2627, 0.6780, 0.0593])


def pq_code(nits):
    return colour.models.eotf_inverse_ST2084(np.asarray(nits, dtype=float))


def hlg_code(scene):
    return colour.models.oetf_BT2100_HLG(np.asarray(scene, dtype=float))


def bt2390_eetf(nits, source_peak, target_peak):
    """ITU-R BT.2390-10, 5.4.1, with black levels 0: luminance in cd/m2."""
    source_black = colour.models.eotf_inverse_ST2084(0.0)
    source_white = colour.models.eotf_inverse_ST2084(source_peak)
    span = source_white - source_black
    max_lum = (colour.models.eotf_inverse_ST2084(target_peak) - source_black) / span
    e1 = (colour.models.eotf_inverse_ST2084(nits) - source_black) / span
    e1 = np.clip(e1, 0, 1)
    ks = 1.5 * max_lum - 0.5
    t = (e1 - ks) / (1 - ks)
    hermite = (2 * t**3 - 3 * t**2 + 1) * ks + (t**3 - 2 * t**2 + t) * (1 - ks) + (-2 * t**3 + 3 * t**2) * max_lum
    e2 = np.where(e1 < ks, e1, hermite)
    return colour.models.eotf_ST2084(e2 * span + source_black)


def reference_srgb(codes, transfer, source_peak=1000.0, full_code=1023.0):
    """BT.2020 PQ/HLG codes (full signal at `full_code`) -> sRGB 0...1 by the method above."""
    signal = np.clip(np.asarray(codes, dtype=float) / full_code, 0, 1)
    if transfer == "pq":
        display = colour.models.eotf_ST2084(signal)
        peak = source_peak
    else:
        display = colour.models.eotf_BT2100_HLG(signal, L_B=0, L_W=1000, gamma=1.2)
        peak = 1000.0
    luminance = display @ BT2020_LUMA
    mapped = bt2390_eetf(luminance, peak, REFERENCE_WHITE)
    gain = np.where(luminance > 0, mapped / np.maximum(luminance, 1e-12), 0)
    relative = display * gain[..., None] / REFERENCE_WHITE
    linear = colour.RGB_to_RGB(relative, BT2020, SRGB, chromatic_adaptation_transform=None)
    grey = np.clip(mapped / REFERENCE_WHITE, 0, 1)[..., None]
    away = linear - grey
    with np.errstate(divide="ignore", invalid="ignore"):
        over = np.where(linear > 1, (1 - grey) / away, np.inf)
        under = np.where(linear < 0, grey / -away, np.inf)
    keep = np.clip(np.minimum(over, under).min(axis=-1, keepdims=True), 0, 1)
    fitted = np.clip(grey + away * keep, 0, 1)
    return colour.cctf_encoding(fitted, function="sRGB")


def charts():
    pq_grey = [0, 0.5, 2, 5, 10, 20, 40, 80, 120, 160, 203, 300, 500, 1000, 4000]
    hlg_grey = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.9, 1.0]
    # Linear BT.2020 colours, relative to 203 cd/m2 (PQ) or to scene white (HLG): the BT.2020
    # primaries and secondaries (outside sRGB's gamut), sRGB's own primaries (inside it) and
    # softer colours (skin, sky, foliage).
    srgb_to_2020 = lambda rgb: colour.RGB_to_RGB(np.asarray(rgb, float), SRGB, BT2020, chromatic_adaptation_transform=None)
    colours = [
        [0.9, 0, 0], [0, 0.5, 0], [0, 0, 2.5], [0, 0.45, 0.45], [0.6, 0, 0.6], [0.5, 0.5, 0],
        list(srgb_to_2020([0.6, 0, 0])), list(srgb_to_2020([0, 0.5, 0])), list(srgb_to_2020([0, 0, 0.8])),
        list(srgb_to_2020([0.55, 0.35, 0.25])), list(srgb_to_2020([0.25, 0.4, 0.7])), list(srgb_to_2020([0.2, 0.35, 0.1])),
    ]
    out = {}
    for transfer in ("pq", "hlg"):
        if transfer == "pq":
            grey = [pq_code([n, n, n]) for n in pq_grey]
            sat = [pq_code(np.asarray(c) * REFERENCE_WHITE * 0.5) for c in colours]
        else:
            grey = [np.array([s, s, s]) for s in hlg_grey]
            # Scene light: 0.265 is the scene level a 75% signal (reference white) stands for.
            sat = [hlg_code(np.clip(np.asarray(c) * 0.265 * 0.5, 0, 1)) for c in colours]
            grey = [hlg_code(colour.models.oetf_inverse_BT2100_HLG(g)) for g in grey]
        rows = [grey, sat]
        patches = []
        for row, values in enumerate(rows):
            for column, signal in enumerate(values):
                code = np.round(np.clip(signal, 0, 1) * 1023).astype(int)
                expected = reference_srgb(code, transfer) * 255
                patches.append({
                    "kind": "grey" if row == 0 else "saturated",
                    "x": column * PATCH + PATCH // 2, "y": row * PATCH + PATCH // 2,
                    "code10": [int(v) for v in code],
                    "srgb": [round(float(v), 3) for v in expected],
                })
        width = max(len(r) for r in rows) * PATCH
        height = len(rows) * PATCH
        pixels = np.zeros((height, width, 3), dtype=np.uint16)
        for p in patches:
            x0, y0 = p["x"] - PATCH // 2, p["y"] - PATCH // 2
            # 10-bit codes widened to 16 bits as v * 65535 / 1023 (what a 16-bit PNG holds).
            pixels[y0:y0 + PATCH, x0:x0 + PATCH] = np.round(np.array(p["code10"]) * 65535 / 1023)
        out[transfer] = {"width": width, "height": height, "patches": patches}
        pixels.astype("<u2").tofile(f"{sys.argv[1]}/chart-{transfer}.raw16")
    # CIEDE2000 of a few Lab pairs (Sharma, Wu and Dalal's test data), by colour-science: the
    # tests check their own CIEDE2000 against these.
    pairs = [
        ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485]),
        ([50.0, -1.3802, -84.2814], [50.0, 0.0, -82.7485]),
        ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0]),
        ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387]),
        ([22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619]),
        ([90.9257, -0.5406, -0.9208], [88.6381, -0.8985, -0.7239]),
    ]
    out["ciede2000"] = [
        {"lab1": a, "lab2": b, "deltaE": round(float(colour.delta_E(np.array(a), np.array(b), method="CIE 2000")), 4)}
        for a, b in pairs
    ]
    with open(f"{sys.argv[1]}/chart.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


def add_cicp(source, target, primaries, transfer):
    """Copies a PNG with a cICP chunk (PNG third edition: primaries, transfer, matrix 0 for
    RGB, full range) right after IHDR."""
    data = open(source, "rb").read()
    end_of_header = 8 + 8 + 13 + 4
    body = b"cICP" + bytes([primaries, transfer, 0, 1])
    chunk = struct.pack(">I", 4) + body + struct.pack(">I", zlib.crc32(body))
    open(target, "wb").write(data[:end_of_header] + chunk + data[end_of_header:])


def tonemap_file(source, width, height, transfer, peak, target):
    """16-bit samples, full signal at 65535, or at 1023 << 6 when a decoder widened 10-bit
    samples by a shift (every sample a multiple of 64)."""
    samples = np.fromfile(source, dtype="<u2").reshape(height, width, 3)
    full = 65472.0 if not np.any(samples % 64) else 65535.0
    srgb = reference_srgb(samples, transfer, source_peak=peak, full_code=full)
    np.round(srgb * 255).astype(np.uint8).tofile(target)


if __name__ == "__main__":
    if sys.argv[1] == "--tonemap":
        tonemap_file(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6]), sys.argv[7])
    elif sys.argv[1] == "--cicp":
        add_cicp(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        charts()
