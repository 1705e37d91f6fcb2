#!/usr/bin/env bash
# What a hit costs the server, by tier: 200 distinct results (rocket.jpg fitted to 100..299 px,
# JPEG) made by one replica into a moto bucket (scripts/moto-venv.sh's venv, auth off), then asked
# of a second replica three times: from the bucket (X-Cache: storage), from its disk after a
# restart on the same CACHE_DIR (disk), and from its memory (memory). For each: the hits a
# CPU-second of the second replica's process (user + system, /proc/PID/stat; moto's and curl's
# CPU not counted), and that replica's peak RSS (VmHWM) at the end.
# Usage: bash scripts/shared-cache-cpu.sh; builds webimage (debug) when missing: use a release
# build (swift build -c release --product webimage; WEBIMAGE=.build/release/webimage) for figures.
set -euo pipefail
cd "$(dirname "$0")/.."
webimage="${WEBIMAGE:-.build/debug/webimage}"
[ -x "$webimage" ] || swift build --product webimage
source scripts/moto-bucket.sh shared-cache-cpu

pid=0
port=0
serve() {
    IMGPROXY_CACHE_USE=s3 IMGPROXY_CACHE_BUCKET=results IMGPROXY_CACHE_S3_ENDPOINT="http://127.0.0.1:$moto_port" \
    "$webimage" serve --bind 127.0.0.1:0 --cache-dir "$work/cache-$1" --local-filesystem-root Tests/Images > "$work/$1-$2.log" 2>&1 &
    pid=$!
    started_pids+=($pid)
    for _ in $(seq 1 300); do
        if grep -q "listening on http://127.0.0.1:" "$work/$1-$2.log"; then
            port=$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\).*#\1#p' "$work/$1-$2.log" | head -1)
            return
        fi
        sleep 0.1
    done
    cat "$work/$1-$2.log" >&2
    exit 1
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
ask_all() {
    for width in $(seq 100 299); do echo "http://127.0.0.1:$port/unsafe/rs:fit:$width:$width/plain/local:///photos/rocket.jpg@jpg"; done \
        | xargs -P 4 -n 1 curl -s -o /dev/null -D - | tr -d '\r' | grep -i '^x-cache:' | sort | uniq -c | tr -s ' ' | tr '\n' ' '
}
measure() {
    local before after answers
    before=$(cpu_ticks "$pid")
    answers=$(ask_all)
    after=$(cpu_ticks "$pid")
    echo "   $1: $answers; $(awk -v t="$((after - before))" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f hits a CPU-second (%.2f s for 200)", (t > 0 ? 200 * hz / t : 0), t / hz }')"
}

serve maker 0
echo "made by the first replica: $(ask_all)"
kill "$pid"; wait "$pid" 2> /dev/null || true
serve reader 0
measure "from the bucket"
echo "   peak RSS of the reading replica after the bucket's hits: $(awk '/VmHWM/ { print $2, $3 }' "/proc/$pid/status")"
kill "$pid"; wait "$pid" 2> /dev/null || true
serve reader 1
measure "from disk"
measure "from memory"
echo "   peak RSS of the restarted replica after its disk and memory hits: $(awk '/VmHWM/ { print $2, $3 }' "/proc/$pid/status")"
