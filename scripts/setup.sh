#!/usr/bin/env bash
# Installs what swift-webimage needs on Debian 12 (Swift itself must already be there):
# libvips (the image engine), libheif and libjxl (the colour encoding HEIF, AVIF and JPEG XL files
# declare, which libvips 8.14 drops), libjpeg-turbo (TurboJPEG and libjpeg, the engine for small and
# progressive JPEGs), libpng, libdeflate and lcms2 (small PNGs, colour profiles), zlib (the PNG
# metadata limit), libexif (EXIF tag names and titles for ImageInfo), OpenCV's object detection
# and its Haar cascades (libopencv-objdetect-dev, -imgproc-dev, -core-dev, opencv-data: face
# detection), chromium (the image
# server's playground is tested in it, headless), nginx (the scale-out test runs two servers
# behind it), python3 and libvips-tools (the decode bombs' generator,
# scripts/decode-bombs, which the server's bomb test runs), python3-venv and moto's S3-compatible
# server in a virtual environment (scripts/moto-venv.sh: the S3 source tests), pyimgproxy, a
# third-party imgproxy URL builder, in another (scripts/pyimgproxy-venv.sh: the migration test),
# the BlurHash, ThumbHash, imagehash and Pillow references in one more (scripts/analysis-venv.sh:
# the image analysis tests), OpenCV's Python build in another (scripts/faces-venv.sh: the face
# detection tests' reference), exiftool (the image info tests' reference: Debian's
# libimage-exiftool-perl), gdb and procps (a test run that stops printing has every thread's
# stack shown before it is ended: scripts/test-run.sh), and the Debian packages named as
# arguments (the benchmarks' tools).
# Idempotent.
set -euo pipefail
packages=(libvips-dev libvips-tools python3 python3-venv libheif-dev libjxl-dev libturbojpeg0-dev libjpeg62-turbo-dev liblcms2-dev libpng-dev libdeflate-dev zlib1g-dev libexif-dev libopencv-objdetect-dev libopencv-imgproc-dev libopencv-core-dev opencv-data pkg-config chromium nginx libimage-exiftool-perl gdb procps "$@")
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
command -v swift >/dev/null || { echo "swift is not on PATH: install Swift 6.1 or newer first" >&2; exit 1; }
bash "$(dirname "$0")/moto-venv.sh"
bash "$(dirname "$0")/pyimgproxy-venv.sh"
bash "$(dirname "$0")/otlp-venv.sh"
bash "$(dirname "$0")/analysis-venv.sh"
bash "$(dirname "$0")/faces-venv.sh"
