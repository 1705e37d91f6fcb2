#!/usr/bin/env bash
# docs/hdr-side-by-side.png, for a person to look at: each of SDWebImage's TestHDR files (BT.2020
# PQ AVIF, HEIC, JPEG XL) as `webimage convert` makes it now (tone mapped), as the reference
# makes it (scripts/hdr/charts.py on the format's own decoder's 16-bit output), and as libvips
# alone made it before (the PQ samples read as sRGB: crushed or grey). Needs what
# make-charts.sh needs, and a built `webimage` (swift build --product webimage).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/hdr/reference-tonemap.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
width=360
rows=()
for format in avif heic jxl; do
    source=Tests/Images/sdwebimage/TestHDR.$format
    .build/debug/webimage convert "$source" "$work/ours.png" --thumbnail "${width}x10000" >/dev/null
    reference_tonemap "$format" "$work" 2>/dev/null
    vips thumbnail "$work/mapped.v" "$work/reference.png" "$width"
    vips colourspace "$source" "$work/plain.v" srgb 2>/dev/null
    vips cast "$work/plain.v" "$work/plain8.v" uchar
    vips thumbnail "$work/plain8.v" "$work/before.png" "$width"
    vips arrayjoin "$work/ours.png $work/reference.png $work/before.png" "$work/row-$format.png" --across 3 --shim 6 --background 255
    rows+=("$work/row-$format.png")
done
labels=()
for label in "swift-webimage now" "reference (colour-science)" "before: libvips alone"; do
    vips text "$work/label-${#labels[@]}.v" "$label" --width "$width" --dpi 110
    vips embed "$work/label-${#labels[@]}.v" "$work/label-${#labels[@]}.png" 4 4 "$width" 30
    labels+=("$work/label-${#labels[@]}.png")
done
vips arrayjoin "${labels[*]}" "$work/labels.v" --across 3 --shim 6
vips invert "$work/labels.v" "$work/labels.png"
# Stacked one by one: arrayjoin would give every row the tallest one's height.
cp "$work/labels.png" "$work/all.png"
for row in "${rows[@]}"; do
    vips join "$work/all.png" "$row" "$work/next.png" vertical --shim 6 --background 255 --expand
    mv "$work/next.png" "$work/all.png"
done
cp "$work/all.png" docs/hdr-side-by-side.png
vipsheader docs/hdr-side-by-side.png
