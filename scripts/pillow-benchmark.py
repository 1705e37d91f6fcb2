#!/usr/bin/env python3
"""Pillow's side of swift-webimage's coder benchmark.

Usage: pillow-benchmark.py [--iterations N] [--large-iterations N] [--width W] [--height H]
                           [--quality Q] IMAGE...
       pillow-benchmark.py --serve [--width W] [--height H] [--quality Q]

For each image, times (median of N runs after 2 untimed ones, one thread):
  full_decode      open + im.load() (Pillow's native mode, RGB for these photos)
  thumbnail_decode open + im.draft('RGB', box) + im.thumbnail(box)
  encode           save an already loaded image as JPEG quality Q (RGB)
  thumbnail_job    bytes in -> draft + thumbnail + save JPEG quality Q -> bytes out
and prints one JSON object: {"pillow": version, "images": {path: {job: seconds}}}.
Images over 10 megapixels use --large-iterations. Pillow comes from scripts/pillow-venv.sh (the
benchmark runs this script with that environment's Python); it is not installed here.

With --serve, it prints the Pillow version, then reads lines "PATH COUNT" on stdin and answers
each with "WALL CPU": the seconds one thumbnail job took on PATH, wall and process CPU time,
averaged over COUNT jobs; so that webimage-benchmark can time Pillow's job and its own in
alternating rounds (`webimage-benchmark job`).
"""

import argparse
import io
import json
import statistics
import sys
import time


def import_pillow():
    try:
        import PIL
        from PIL import Image
    except ImportError:
        sys.exit("pillow-benchmark.py: Pillow is not installed for %s: run scripts/pillow-venv.sh" % sys.executable)
    return PIL.__version__, Image


def median_time(body, iterations, warmup=2):
    for _ in range(warmup):
        body()
    samples = []
    for _ in range(iterations):
        start = time.perf_counter()
        body()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def thumbnail_job(Image, data, box, quality):
    """bytes in -> draft + thumbnail + save JPEG quality Q -> bytes out"""
    with Image.open(io.BytesIO(data)) as im:
        im.draft("RGB", box)
        im.thumbnail(box)
        if im.mode != "RGB":
            im = im.convert("RGB")
        out = io.BytesIO()
        im.save(out, format="JPEG", quality=quality)
        return out.getvalue()


def serve(args, version, Image):
    box = (args.width, args.height)
    files = {}
    print(version, flush=True)
    for line in sys.stdin:
        path, count = line.rsplit(None, 1)
        if path not in files:
            with open(path, "rb") as handle:
                files[path] = handle.read()
        data = files[path]
        count = max(1, int(count))
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(count):
            thumbnail_job(Image, data, box, args.quality)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{wall / count} {cpu / count}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--large-iterations", type=int, default=5)
    parser.add_argument("--width", type=int, default=300)
    parser.add_argument("--height", type=int, default=200)
    parser.add_argument("--quality", type=int, default=80)
    parser.add_argument("--serve", action="store_true")
    parser.add_argument("images", nargs="*")
    args = parser.parse_args()
    version, Image = import_pillow()
    if args.serve:
        serve(args, version, Image)
        return
    box = (args.width, args.height)
    results = {}
    for path in args.images:
        with open(path, "rb") as handle:
            data = handle.read()
        with Image.open(io.BytesIO(data)) as probe:
            large = probe.size[0] * probe.size[1] > 10_000_000
        iterations = args.large_iterations if large else args.iterations

        def full_decode():
            with Image.open(io.BytesIO(data)) as im:
                im.load()

        def thumbnail_decode():
            with Image.open(io.BytesIO(data)) as im:
                im.draft("RGB", box)
                im.thumbnail(box)

        with Image.open(io.BytesIO(data)) as opened:
            decoded = opened.convert("RGB")

        def encode():
            out = io.BytesIO()
            decoded.save(out, format="JPEG", quality=args.quality)
            return out.getvalue()

        results[path] = {
            "full_decode": median_time(full_decode, iterations),
            "thumbnail_decode": median_time(thumbnail_decode, iterations),
            "encode": median_time(encode, iterations),
            "thumbnail_job": median_time(lambda: thumbnail_job(Image, data, box, args.quality), iterations),
        }
    json.dump({"pillow": version, "images": results}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
