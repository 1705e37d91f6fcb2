#!/usr/bin/env bash
# The cached hit's CPU a request on two builds, in interleaved pairs: each pair starts both
# servers fresh, one after the other (every other pair in the reverse order), fills each with 120
# uncached results of the image, then measures the same hit URL under wrk for SECONDS and reads
# the server's CPU time from /proc/PID/stat. Prints each run and, at the end, each build's
# median µs of CPU a request and the median of the pairs' ratios (A over B). Finer than
# server-benchmark.sh's rounds for one cell: a pair is two servers measured back to back,
# nothing else in between.
#
#   scripts/hit-pairs.sh BINARY_A BINARY_B [--pairs N] [--connections C] [--seconds S] [--image FILE]
#   (defaults: 6 pairs, 1 connection, 6 s, rocket.jpg; FILE: rocket.jpg, astronaut.png or
#   TestImageLarge.jpg)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/loopback.sh
[ $# -ge 2 ] || { sed -n 2,13p "$0" >&2; exit 2; }
binary_a=$1 binary_b=$2
shift 2
pairs=6 connections=1 seconds=6 image=rocket.jpg
while [ $# -gt 0 ]; do
    case "$1" in
        --pairs) pairs=$2 ;;
        --connections) connections=$2 ;;
        --seconds) seconds=$2 ;;
        --image) image=$2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
work_folder hit-pairs
mkdir -p "$work/origin"
cp Tests/Images/photos/rocket.jpg Tests/Images/photos/astronaut.png Tests/Images/sdwebimage/TestImageLarge.jpg "$work/origin/"
origin_port=$(free_port)
python3 -m http.server "$origin_port" --bind 127.0.0.1 --directory "$work/origin" >"$work/origin.log" 2>&1 &
started_pids+=($!)
wait_for "http://127.0.0.1:$origin_port/$image" "$work"
threads=$((connections > 1 ? 2 : 1))

# measure NAME BINARY: one server, filled, then its hits; appends "NAME µs requests" to results.
measure() {
    local name=$1 binary=$2 port pid before after requests
    port=$(free_port)
    rm -rf "$work/cache"
    WEBIMAGE_BIND=127.0.0.1:$port WEBIMAGE_CACHE_DIR=$work/cache WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true \
        "$binary" serve >"$work/$name.log" 2>&1 &
    pid=$!
    wait_for "http://127.0.0.1:$port/health" "$work"
    local base="http://127.0.0.1:$port/insecure/rs:fill:300:200"
    seq 120 | xargs -P4 -I{} curl -s -o /dev/null "$base/cb:{}/plain/http%3A%2F%2F127.0.0.1%3A$origin_port%2F$image%3Fr%3D{}"
    local url="$base/plain/http%3A%2F%2F127.0.0.1%3A$origin_port%2F$image"
    curl -sf -o /dev/null "$url"
    wrk -t$threads -c"$connections" -d2s "$url" >/dev/null
    before=$(awk '{print $14 + $15}' /proc/$pid/stat)
    requests=$(wrk -t$threads -c"$connections" -d"${seconds}s" "$url" | awk '/requests in/ {print $1}')
    after=$(awk '{print $14 + $15}' /proc/$pid/stat)
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    local ticks_per_second
    ticks_per_second=$(getconf CLK_TCK)
    local micros
    micros=$(python3 -c "print(round(($after - $before) * 1e6 / $ticks_per_second / $requests, 1))")
    echo "$name $micros $requests" | tee -a "$work/results"
}

for pair in $(seq "$pairs"); do
    echo "[$(date +%T)] pair $pair (load $(cut -d' ' -f1-3 /proc/loadavg))"
    if [ $((pair % 2)) -eq 1 ]; then measure A "$binary_a"; measure B "$binary_b"; else measure B "$binary_b"; measure A "$binary_a"; fi
done
python3 scripts/pair-ratios.py "$work/results" "µs of CPU a hit"
