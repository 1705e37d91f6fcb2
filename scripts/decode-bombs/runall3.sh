#!/bin/bash
# The third round's figures (docs/measurements/decode-limits.md): each file of gen3.py (and
# gen.py's apng100mp) through two builds of webimage, one after the other. BINARIES="before after".
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p ${BOMBS:=/tmp/bombs} && cd "$BOMBS"
export TIMEOUT=300
pair() { label=$1; shift; for b in ${BINARIES:-before after}; do ( ulimit -t ${CPU:-60}; "$REPO/scripts/decode-bombs/measure.sh" $b/webimage "$b $label" "$@" ); done; }
pair "pdfforms convert png" convert pdfforms.pdf o.png
pair "pdfforms convert png thumb200" convert pdfforms.pdf o.png --thumbnail 200x200
pair "svgrects convert png" convert svgrects.svg o.png
pair "svgrects convert png thumb256" convert svgrects.svg o.png --thumbnail 256x256
pair "svgrects10k convert png thumb256" convert svgrects10k.svg o.png --thumbnail 256x256
pair "svgrects10k convert png" convert svgrects10k.svg o.png
pair "heicgrid info" info heicgrid.heic
pair "heicgrid convert jpg" convert heicgrid.heic o.jpg
pair "heicgrid convert jpg thumb256" convert heicgrid.heic o.jpg --thumbnail 256x256
pair "avifgrid convert jpg" convert avifgrid.avif o.jpg
pair "heicrefs convert jpg" convert heicrefs.heic o.jpg
pair "heicbigtiles convert jpg" convert heicbigtiles.heic o.jpg
pair "gif249x4mp convert webp" convert gif249x4mp.gif o.webp
pair "gif249x4mp convert gif" convert gif249x4mp.gif o.gif
pair "gif249x4mp convert png" convert gif249x4mp.gif o.png
pair "apng100mp convert png" convert apng100mp.png o.png
pair "apng100mp convert png thumb200" convert apng100mp.png o.png --thumbnail 200x200
pair "apng100mp convert webp" convert apng100mp.png o.webp
