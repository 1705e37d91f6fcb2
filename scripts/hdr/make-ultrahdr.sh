#!/usr/bin/env bash
# Writes the ISO 21496-1 gain-map JPEGs in Tests/Images/hdr and their reference renditions, once:
# the tests read the committed files and need none of the tools used here.
#
#   apt-get install cmake libjpeg62-turbo-dev libheif-examples libjpeg-turbo-progs libvips-tools
#   pip install colour-science==0.4.7
#   LIBULTRAHDR_SOURCE=/path/to/libultrahdr bash scripts/hdr/make-ultrahdr.sh
#
# libultrahdr (Android's Ultra HDR library, 2.0.2; its source, not a Debian package) is built
# twice: as configured by default (ISO 21496-1 metadata only, UHDR_WRITE_XMP off) and with the
# hdrgm: XMP written too. Its ultrahdr_app encodes SDWebImage's TestHDR.heic (600x400 BT.2100
# PQ, decoded by libheif's heif-convert) as the HDR intent:
#   TestHDR-ultrahdr-iso-xmp.jpg  ISO and XMP, from the HDR intent alone (the SDR base made by
#                                 libultrahdr's tone mapper): a one-channel map at half size,
#                                 applied in the base's colour space
#   TestHDR-ultrahdr-iso.jpg      ISO only, from the HDR intent and that base as the SDR intent
#                                 (libultrahdr then fits each channel): a three-channel map
#                                 applied in BT.2100 (the alternate's: use_base_colour_space 0)
# and decodes each (ultrahdr_app -m 1, linear light at full weight) into the reference the tests
# compare with: the 8x8 block means of its PQ codes in the primaries our decoder writes
# (scripts/hdr/ultrahdr-reference.py). ultrahdr_app -m 1 -P prints each file's metadata.
set -euo pipefail
cd "$(dirname "$0")/../.."
: "${LIBULTRAHDR_SOURCE:?set LIBULTRAHDR_SOURCE to a libultrahdr source tree}"
out=Tests/Images/hdr
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for variant in iso iso-xmp; do
    xmp=$([ "$variant" = iso-xmp ] && echo ON || echo OFF)
    cmake -S "$LIBULTRAHDR_SOURCE" -B "$work/build-$variant" -DCMAKE_BUILD_TYPE=Release -DUHDR_ENABLE_HEIF=OFF \
        -DUHDR_WRITE_XMP="$xmp" -DUHDR_WRITE_ISO=ON >/dev/null
    cmake --build "$work/build-$variant" --target ultrahdr_app -j 2 >/dev/null
done

# The HDR intent: TestHDR.heic's 10-bit PQ RGB, packed as RGBA1010102.
heif-convert Tests/Images/sdwebimage/TestHDR.heic "$work/intent.png" >/dev/null
vips rawsave "$work/intent.png" "$work/intent.raw"
python3 scripts/hdr/ultrahdr-reference.py pack "$work/intent.raw" 600 400 "$work/intent.rgba1010102"

"$work/build-iso-xmp/ultrahdr_app" -m 0 -p "$work/intent.rgba1010102" -a 5 -w 600 -h 400 -C 2 -t 2 -R 1 -q 85 -Q 85 \
    -M 0 -s 2 -z "$out/TestHDR-ultrahdr-iso-xmp.jpg" >/dev/null
djpeg -pnm "$out/TestHDR-ultrahdr-iso-xmp.jpg" >"$work/base.ppm"
python3 scripts/hdr/ultrahdr-reference.py sdr "$work/base.ppm" "$work/base.rgba8888"
"$work/build-iso/ultrahdr_app" -m 0 -p "$work/intent.rgba1010102" -a 5 -y "$work/base.rgba8888" -b 3 -w 600 -h 400 \
    -C 2 -c 0 -t 2 -R 1 -q 85 -Q 85 -M 1 -s 1 -z "$out/TestHDR-ultrahdr-iso.jpg" >/dev/null

for variant in iso iso-xmp; do
    app="$work/build-$variant/ultrahdr_app"
    "$app" -m 1 -j "$out/TestHDR-ultrahdr-$variant.jpg" -o 0 -O 4 -z "$work/rendition.rgbaf16" >/dev/null
    # libultrahdr writes the rendition in the map image's ICC primaries, else the base's: BT.2100
    # for the ISO-only file, BT.709 for the other (its map has no ICC profile), as ours.
    python3 scripts/hdr/ultrahdr-reference.py reference "$work/rendition.rgbaf16" 600 400 \
        "$out/TestHDR-ultrahdr-$variant-reference.png"
    "$app" -m 1 -P -j "$out/TestHDR-ultrahdr-$variant.jpg"
done
ls -l "$out"/TestHDR-ultrahdr-*
