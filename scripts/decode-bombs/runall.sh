#!/bin/bash
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p ${BOMBS:=/tmp/bombs} && cd "$BOMBS"
export TIMEOUT=300
pair() { label=$1; shift; for b in ${BINARIES:-before after}; do ( ulimit -t ${CPU:-60}; "$REPO/scripts/decode-bombs/measure.sh" $b/webimage "$b $label" "$@" ); done; }
mkdir -p fr
pair "real300 frames jpeg" frames real300.gif -o fr --format jpeg
pair "real300 convert webp thumb100" convert real300.gif o.webp --thumbnail 100x100
pair "gif250 convert webp thumb100" convert gif250.gif o.webp --thumbnail 100x100
pair "gifrestore convert webp" convert gifrestore.gif o.webp
pair "webp249 convert webp thumb100" convert webp249.webp o.webp --thumbnail 100x100
pair "webp249 info" info webp249.webp
pair "apng9999 convert png thumb100" convert apng9999.png o.png --thumbnail 100x100
pair "apng9999 convert webp" convert apng9999.png o.webp
pair "apng100mp convert png" convert apng100mp.png o.png
pair "apng100mp convert png thumb200" convert apng100mp.png o.png --thumbnail 200x200
pair "png16 100MP interlaced convert jpg" convert png16.png o.jpg
pair "float1strip convert jpg" convert float1strip.tif o.jpg
pair "cmyk-prog convert jpg thumb256" convert cmyk-prog.jpg o.jpg --thumbnail 256x256
pair "twice60 convert jpg thumb64" convert twice60.jpg o.jpg --thumbnail 64x64
pair "tags.tif info" info tags.tif
pair "tags.tif convert jpg thumb64" convert tags.tif o.jpg --thumbnail 64x64
pair "use5.svg convert png" convert use5.svg o.png
pair "use9.svg convert png" convert use9.svg o.png
pair "blur100mp.svg convert png" convert blur100mp.svg o.png
pair "blur100mp.svg convert png thumb256" convert blur100mp.svg o.png --thumbnail 256x256
