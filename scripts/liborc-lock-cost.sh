#!/usr/bin/env bash
# What the liborc lock (Sources/CVipsGlue/orc_lock.c) costs: the thumbnail job on 2 threads and
# the fused transformer chain, each run with the lock and with WEBIMAGE_LIBORC_LOCK=off
# (unlocked: the race is back, so a run may crash), alternated ROUNDS times in separate
# processes of the same release build; prints the median wall time of each and their ratio.
# Usage: bash scripts/liborc-lock-cost.sh [ROUNDS] (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
swift build -c release --product webimage-benchmark > /dev/null
benchmark=.build/release/webimage-benchmark
wall() { # seconds of wall time of the command
    local start end
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
measure() { # name, then the benchmark's arguments
    local name=$1 locked="" unlocked=""
    shift
    for _ in $(seq 1 "$rounds"); do
        locked+="$(wall "$benchmark" "$@")"$'\n'
        unlocked+="$(wall env WEBIMAGE_LIBORC_LOCK=off "$benchmark" "$@" || echo crashed)"$'\n'
    done
    local a b
    a=$(printf '%s' "$locked" | grep -v crashed | median)
    b=$(printf '%s' "$unlocked" | grep -v crashed | median)
    printf '%-44s locked %6.2f s, unlocked %6.2f s: locked/unlocked %.3f (unlocked runs crashed: %d of %d)\n' \
        "$name" "$a" "$b" "$(echo "$a / $b" | bc -l)" "$(printf '%s' "$unlocked" | grep -c crashed || true)" "$rounds"
}
echo "liborc lock cost, $(date -u +%F), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds alternated"
measure "thumbnail job, rocket.jpg, 2 threads x 600" repeat photos/rocket.jpg 600 2
measure "thumbnail job, TestImageLarge.jpg, 2 threads x 60" repeat sdwebimage/TestImageLarge.jpg 60 2
measure "transformer chain (fused), rocket.jpg x 300" repeat-chain fused photos/rocket.jpg 300
