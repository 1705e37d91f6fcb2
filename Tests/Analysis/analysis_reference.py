"""The reference implementations the image analysis tests compare against
(Tests/WebImageTests/Analysis): BlurHash's `blurhash`, ThumbHash's `thumbhash-python`,
`imagehash`'s pHash, Pillow's median cut and its decodes, from PyPI, in the virtual environment
scripts/analysis-venv.sh makes.

Reads a JSON list of tasks on standard input and prints a JSON list of their answers, one per
task, in order. Each task is an object with "kind":

Images are read as the library hands them out: upright, converted to sRGB from their colour
profile.

- "blurhash" (path, x, y, ours): the reference's own hash of the image (Pillow's thumbnail in
  100x100, as ours is made), and both hashes decoded by the reference decoder at
  32x32: {"reference", "referenceDecoded", "oursDecoded"} (RGB bytes, rows first).
- "thumbhash" (path, ours: base 64): the reference's hash of the image (its own thumbnail) and both hashes decoded by
  the reference decoder: {"reference", "referenceDecoded", "oursDecoded"}, each decoded one
  {"width", "height", "rgba"}.
- "mean" (path): the mean colour of the whole image at full size, upright, each pixel's colour
  weighted by its alpha: {"red", "green", "blue"} (floats), null when no pixel is visible.
- "palette" (rgba: a file of raw RGBA8 pixels, width, height, count): Pillow's median cut of
  those pixels' colours to `count`: {"colors": [[r, g, b], ...]}, the colours it uses.
- "phash" (path): imagehash's phash of the upright image: {"hash"} (16 hexadecimal digits).
"""

import base64
import io
import json
import sys

import blurhash
import imagehash
import numpy
import thumbhash
from PIL import Image, ImageCms, ImageOps
from thumbhash.decode import thumbhash_to_rgba


def upright(path):
    """The image as the library hands out its pixels: upright, and in sRGB when the file has a
    colour profile (rocket.jpg is Adobe RGB), RGB or RGBA."""
    with Image.open(path) as image:
        profile = image.info.get("icc_profile")
        image = ImageOps.exif_transpose(image)
        mode = "RGBA" if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info else "RGB"
        image = image.convert(mode)
        if profile:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            image = ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"), outputMode=mode)
        return image


def blurhash_task(task):
    image = upright(task["path"]).convert("RGB")
    image.thumbnail((100, 100))
    reference = blurhash.encode(numpy.array(image), task["x"], task["y"])

    def decoded(hash_string):
        pixels = blurhash.decode(hash_string, 32, 32)
        return [value for row in pixels for pixel in row for value in pixel]

    return {"reference": reference, "referenceDecoded": decoded(reference), "oursDecoded": decoded(task["ours"])}


def thumbhash_task(task):
    reference = thumbhash.image_to_thumbhash(upright(task["path"]))

    def decoded(base64_string):
        width, height, rgba = thumbhash_to_rgba(base64.b64decode(base64_string))
        return {"width": width, "height": height, "rgba": rgba}

    return {"reference": reference, "referenceDecoded": decoded(reference), "oursDecoded": decoded(task["ours"])}


def mean_task(task):
    pixels = numpy.asarray(upright(task["path"]).convert("RGBA"), dtype=numpy.float64)
    alpha = pixels[..., 3]
    total = alpha.sum()
    if total == 0:
        return None
    return {name: float((pixels[..., channel] * alpha).sum() / total) for channel, name in enumerate(["red", "green", "blue"])}


def palette_task(task):
    with open(task["rgba"], "rb") as file:
        image = Image.frombytes("RGBA", (task["width"], task["height"]), file.read()).convert("RGB")
    quantised = image.quantize(colors=task["count"], method=Image.Quantize.MEDIANCUT)
    palette = quantised.getpalette()
    used = sorted(index for _, index in quantised.getcolors(256))
    return {"colors": [palette[index * 3:index * 3 + 3] for index in used]}


def phash_task(task):
    return {"hash": str(imagehash.phash(upright(task["path"])))}


KINDS = {"blurhash": blurhash_task, "thumbhash": thumbhash_task, "mean": mean_task, "palette": palette_task, "phash": phash_task}

if __name__ == "__main__":
    tasks = json.load(sys.stdin)
    json.dump([KINDS[task["kind"]](task) for task in tasks], sys.stdout)
