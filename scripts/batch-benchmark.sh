#!/usr/bin/env bash
# `webimage convert` on a batch against vipsthumbnail and ImageMagick, all whole processes, in
# one run: wall time and peak memory, and webimage's ratio to each (docs/cli.md has the method,
# docs/measurements/batch-convert.md the runs).
#
# Usage: scripts/batch-benchmark.sh [ROUNDS] (default 3)
#
# Sets: "small", 200 copies of the bundled photos (Tests/Images/photos, JPEG and PNG, 512x512 to
# 1411x1411) under other names; "large", 20 photos of 5250x3450: 10 copies of
# sdwebimage/TestImageLarge.jpg (a progressive JPEG) and 10 of it re-encoded as a baseline JPEG
# (q90). Every command makes 300x200 JPEG thumbnails at quality 80, metadata stripped, into an
# empty folder:
#   webimage        webimage convert FILES -o OUT --thumbnail 300x200 --quality 80 --format jpeg
#                   (release build; --jobs defaults to the core count)
#   vipsthumbnail   vipsthumbnail FILES -s 300x200 -o OUT/%s.jpg[Q=80,strip], one process
#   xargs -P 2      one vipsthumbnail process per file, two at a time
#   parallel -X     GNU parallel, the files split between two vipsthumbnail processes
#   mogrify         mogrify -path OUT -format jpg -thumbnail 300x200 -quality 80 -strip FILES
# Each round runs every command once, in an order that rotates; a figure is the median over the
# rounds (wall time) or the largest (peak memory: GNU time's maximum resident set, which for
# xargs and parallel is the largest single process, not their sum). Last, webimage once on 2,000
# small images (the 200 ten times over): its peak memory should be the 200's. Installs libvips-tools,
# imagemagick, parallel and time with apt-get when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}

bash scripts/setup.sh libvips-tools imagemagick parallel time
swift build -c release --product webimage >&2
webimage=$PWD/.build/release/webimage

work=${BATCH_BENCHMARK_DIR:-/tmp/webimage-batch-benchmark}
rm -rf "$work"
mkdir -p "$work/small" "$work/large"
photos=(Tests/Images/photos/*.jpg Tests/Images/photos/*.png)
for index in $(seq 0 199); do
    source=${photos[$((index % ${#photos[@]}))]}
    cp "$source" "$work/small/photo-$(printf %03d "$index").${source##*.}"
done
vips copy Tests/Images/sdwebimage/TestImageLarge.jpg "$work/baseline.jpg[Q=90,interlace=false]"
for index in $(seq 0 9); do
    cp Tests/Images/sdwebimage/TestImageLarge.jpg "$work/large/progressive-$index.jpg"
    cp "$work/baseline.jpg" "$work/large/baseline-$index.jpg"
done

names=(webimage vipsthumbnail "xargs -P 2" "parallel -X" mogrify)

# run SET NAME: runs one command on SET into a fresh folder; prints "seconds kilobytes".
run() {
    local set=$1 name=$2 out="$work/out"
    rm -rf "$out" && mkdir -p "$out"
    local files=("$work/$set"/*)
    local timing="$work/time.txt"
    case $name in
        webimage) /usr/bin/time -f "%e %M" -o "$timing" "$webimage" convert "${files[@]}" -o "$out" \
            --thumbnail 300x200 --quality 80 --format jpeg >/dev/null ;;
        vipsthumbnail) /usr/bin/time -f "%e %M" -o "$timing" vipsthumbnail "${files[@]}" -s 300x200 \
            -o "$out/%s.jpg[Q=80,strip]" ;;
        "xargs -P 2") printf '%s\n' "${files[@]}" | /usr/bin/time -f "%e %M" -o "$timing" xargs -P 2 -n 1 \
            vipsthumbnail -s 300x200 -o "$out/%s.jpg[Q=80,strip]" ;;
        "parallel -X") /usr/bin/time -f "%e %M" -o "$timing" parallel --will-cite -j 2 -X vipsthumbnail \
            -s 300x200 -o "$out/%s.jpg[Q=80,strip]" ::: "${files[@]}" ;;
        mogrify) /usr/bin/time -f "%e %M" -o "$timing" mogrify -path "$out" -format jpg -thumbnail 300x200 \
            -quality 80 -strip "${files[@]}" ;;
    esac
    local written
    written=$(find "$out" -name '*.jpg' | wc -l)
    if [ "$written" -ne "${#files[@]}" ]; then
        echo "$name on $set wrote $written of ${#files[@]} files" >&2
        exit 1
    fi
    tail -n 1 "$timing"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start, $rounds rounds"
echo "libvips $(vips --version | head -1), $(convert -version | head -1 | cut -d' ' -f2-3), GNU parallel $(parallel --version | head -1 | awk '{print $3}')"
for set in small large; do
    declare -A walls=() peaks=()
    for round in $(seq 1 "$rounds"); do
        for offset in $(seq 0 $((${#names[@]} - 1))); do
            name=${names[$(((round + offset) % ${#names[@]}))]}
            result=$(run "$set" "$name")
            read -r seconds kilobytes <<< "$result"
            walls[$name]+="$seconds "
            peaks[$name]+="$kilobytes "
        done
    done
    count=$(find "$work/$set" -type f | wc -l)
    echo
    echo "$set: $count images"
    echo
    echo "| command | wall time (s) | peak memory (MB) | webimage's wall time ratio | webimage's peak memory minus this (MB) |"
    echo "| --- | --- | --- | --- | --- |"
    ours=$(echo "${walls[webimage]}" | tr ' ' '\n' | grep . | median)
    our_peak=$(echo "${peaks[webimage]}" | tr ' ' '\n' | grep . | sort -g | tail -n 1)
    for name in "${names[@]}"; do
        wall=$(echo "${walls[$name]}" | tr ' ' '\n' | grep . | median)
        peak=$(echo "${peaks[$name]}" | tr ' ' '\n' | grep . | sort -g | tail -n 1)
        awk -v name="$name" -v wall="$wall" -v peak="$peak" -v ours="$ours" -v our_peak="$our_peak" 'BEGIN {
            printf "| %s | %.2f | %.0f | %s | %s |\n", name, wall, peak / 1024,
                (name == "webimage" ? "1" : sprintf("%.2fx", ours / wall)),
                (name == "webimage" ? "0" : sprintf("%+.0f", (our_peak - peak) / 1024)) }'
    done
    unset walls peaks
done

# Flat memory: the same small photos ten times over (2,000 images), once.
mkdir -p "$work/many"
for copy in $(seq 0 9); do
    for file in "$work/small"/*; do cp "$file" "$work/many/$copy-$(basename "$file")"; done
done
read -r wall_many peak_many <<< "$(run many webimage)"
echo
echo "webimage on 2,000 small images (the 200 ten times): $wall_many s, peak memory $(awk -v kb="$peak_many" 'BEGIN { printf "%.0f", kb / 1024 }') MB"
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
