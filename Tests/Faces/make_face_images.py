"""Makes Tests/Images/faces/ from Tests/Images/photos/astronaut.png (scikit-image's, public
domain): its top 512x384 stored under each EXIF orientation 1...8 (astronaut-N.jpg: the pixels
stored so that, turned as orientation N says, they show the same upright picture), and a copy
three times as large stored under orientation 6 (astronaut-large-6.jpg: 1536x1152 upright,
detected on a 640x480 copy). Run once in scripts/faces-venv.sh's environment:
/opt/faces-venv/bin/python Tests/Faces/make_face_images.py
"""

import pathlib

from PIL import Image

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Images"
# What to do to the upright picture to store it under each orientation: the inverse of the turn
# the orientation asks for (Pillow's ImageOps.exif_transpose applies the turn).
STORED = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def save(upright, orientation, name):
    turn = STORED[orientation]
    stored = upright.transpose(turn) if turn is not None else upright
    exif = Image.Exif()
    exif[0x0112] = orientation
    stored.save(ROOT / "faces" / name, quality=90, exif=exif.tobytes())


def main():
    (ROOT / "faces").mkdir(exist_ok=True)
    with Image.open(ROOT / "photos" / "astronaut.png") as source:
        upright = source.convert("RGB").crop((0, 0, 512, 384))
    for orientation in STORED:
        save(upright, orientation, f"astronaut-{orientation}.jpg")
    save(upright.resize((1536, 1152), Image.Resampling.LANCZOS), 6, "astronaut-large-6.jpg")


if __name__ == "__main__":
    main()
