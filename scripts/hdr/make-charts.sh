#!/usr/bin/env bash
# Writes the HDR test charts in Tests/Images/hdr and their reference values (chart.json), once:
# the tests read the committed files and need none of the tools used here.
#
#   pip install colour-science==0.4.7      # the reference (scripts/hdr/charts.py)
#   apt-get install libavif-bin libheif-examples libjxl-tools libvips-tools
#   bash scripts/hdr/make-charts.sh
#
# Every chart is lossless, so each patch holds exactly the 10-bit code the reference was
# computed from: AVIF (avifenc, RGB samples, CICP 9/16/0 and 9/18/0), JPEG XL (cjxl -d 0, BT.2100
# PQ, 1,000 cd/m² intensity target) and 16-bit PNG with a cICP chunk. No HEIC chart: Debian's
# heif-enc 1.15 writes no nclx box whatever its --colour_primaries and --transfer_characteristic
# say (heif-info: "color profile: no"); TestHDR.heic (HEVC, nclx 9/16/9) stands for HEIC.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/hdr/reference-tonemap.sh
out=Tests/Images/hdr
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
python3 scripts/hdr/charts.py "$work"
cp "$work/chart.json" "$out/chart.json"
for transfer in pq hlg; do
    code=$([ "$transfer" = pq ] && echo 16 || echo 18)
    width=$(python3 -c "import json,sys; print(json.load(open('$out/chart.json'))['$transfer']['width'])")
    height=$(python3 -c "import json,sys; print(json.load(open('$out/chart.json'))['$transfer']['height'])")
    vips rawload "$work/chart-$transfer.raw16" "$work/chart-$transfer.v" "$width" "$height" 3 --format ushort --interpretation rgb16
    vips copy "$work/chart-$transfer.v" "$work/plain-$transfer.png[bitdepth=16]"
    python3 scripts/hdr/charts.py --cicp "$work/plain-$transfer.png" "$out/chart-$transfer.png" 9 "$code"
    avifenc --lossless --depth 10 --cicp "9/$code/0" --ignore-icc "$work/plain-$transfer.png" "$out/chart-$transfer.avif" >/dev/null
done
cjxl "$work/plain-pq.png" "$out/chart-pq.jxl" -d 0 --intensity_target=1000 -x color_space=RGB_D65_202_Rel_PeQ >/dev/null 2>&1
ls -l "$out"

# SDWebImage's TestHDR files as the reference renders them (reference-tonemap.sh), shrunk by
# libvips' thumbnail to 256 pixels wide: what the tests compare the library's 256-pixel thumbnails with.
for format in avif heic jxl; do
    reference_tonemap "$format" "$work"
    vips thumbnail "$work/mapped.v" "$out/TestHDR-$format-reference.png" 256
done
ls -l "$out"
