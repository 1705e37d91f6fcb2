"""The reference the face detection tests compare against (Tests/WebImageTests/Faces): OpenCV's
own CascadeClassifier from PyPI (`opencv-python-headless` < 5), in the virtual environment
scripts/faces-venv.sh makes, with the same cascade files and parameters as the library.

Reads a JSON list of tasks on standard input and prints a JSON list of answers, one per task, in
order. A task: {"path", "maxSide", "frontal", "profile" (cascade files; "" for none), "scaleFactor",
"minNeighbours", "minSize"}. The image is made as the library hands it out (upright, in sRGB
when the file has a colour profile), fitted in maxSide pixels a side with Pillow's Lanczos
(never enlarged), turned grey by OpenCV's cvtColor and equalized; the frontal cascade runs on
it, the profile cascade (when there is one) on it and on its mirror image. The answer: {"width", "height" (the
upright image's), "frontal", "profile"}, each a list of [x, y, width, height, neighbours] in
the upright image's pixels at full size (the copy's boxes multiplied out, rounded outwards).
"""

import io
import json
import math
import sys

import cv2
import numpy
from PIL import Image, ImageCms, ImageOps


def upright(path):
    with Image.open(path) as image:
        profile = image.info.get("icc_profile")
        image = ImageOps.exif_transpose(image)
        mode = "RGBA" if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info else "RGB"
        image = image.convert(mode)
        if profile:
            source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
            image = ImageCms.profileToProfile(image, source, ImageCms.createProfile("sRGB"), outputMode=mode)
        return image


def detections(classifier, grey, task, mirrored):
    image = cv2.flip(grey, 1) if mirrored else grey
    size = task["minSize"]
    boxes, neighbours = classifier.detectMultiScale2(
        image, scaleFactor=task["scaleFactor"], minNeighbors=task["minNeighbours"], flags=0, minSize=(size, size)
    )
    found = []
    for (x, y, width, height), count in zip(boxes, neighbours):
        x = grey.shape[1] - x - width if mirrored else x
        found.append([int(x), int(y), int(width), int(height), int(count)])
    return found


def scaled(box, scale_x, scale_y, width, height):
    x, y, w, h, count = box
    if scale_x == 1 and scale_y == 1:
        return box
    left = max(0, math.floor(x * scale_x))
    top = max(0, math.floor(y * scale_y))
    right = min(width, math.ceil((x + w) * scale_x))
    bottom = min(height, math.ceil((y + h) * scale_y))
    return [left, top, right - left, bottom - top, count]


def face_task(task):
    image = upright(task["path"])
    width, height = image.size
    side = task["maxSide"]
    factor = min(1.0, side / width, side / height)
    copy = image
    if factor < 1:
        # Halves rounded away from zero, as Swift's rounded() (Python's round() goes to even).
        size = (max(1, min(side, math.floor(width * factor + 0.5))), max(1, min(side, math.floor(height * factor + 0.5))))
        copy = image.resize(size, Image.Resampling.LANCZOS)
    pixels = numpy.asarray(copy)
    code = cv2.COLOR_RGBA2GRAY if copy.mode == "RGBA" else cv2.COLOR_RGB2GRAY
    grey = cv2.equalizeHist(cv2.cvtColor(pixels, code))
    scale_x, scale_y = width / copy.size[0], height / copy.size[1]
    answer = {"width": width, "height": height}
    frontal = cv2.CascadeClassifier(task["frontal"])
    # No profile cascade (""): frontal faces only, as the library's default detector.
    profile = cv2.CascadeClassifier(task["profile"]) if task["profile"] else None
    if frontal.empty() or (profile is not None and profile.empty()):
        raise SystemExit("cannot load the cascades")
    answer["frontal"] = [scaled(b, scale_x, scale_y, width, height) for b in detections(frontal, grey, task, False)]
    answer["profile"] = [
        scaled(b, scale_x, scale_y, width, height)
        for mirrored in (False, True)
        for b in (detections(profile, grey, task, mirrored) if profile is not None else [])
    ]
    return answer


def main():
    tasks = json.load(sys.stdin)
    json.dump([face_task(task) for task in tasks], sys.stdout)


if __name__ == "__main__":
    main()
