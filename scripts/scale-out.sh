#!/usr/bin/env bash
# The production shape on loopback: two `webimage serve` processes sharing one cache folder
# behind nginx (scripts/scale-out.nginx.conf: round robin, proxy_cache, a request retried on the
# other server when one fails before answering). It shows, with curl:
#   1. a result made by one server read by the other from the shared folder (X-Cache: disk);
#   2. nginx answering a repeat itself (X-Cache-Status: HIT, no X-Upstream);
#   3. both servers writing 60 results: the shared results folder against its limit;
#   4. one server killed (SIGKILL) while 20 requests wait on the servers: every one answered.
# Tests/WebImageServerTests/ScaleOutTests.swift checks the same in the suite.
# Usage: bash scripts/scale-out.sh [PORT] (nginx's, default 8090); installs nginx when missing
# (scripts/setup.sh), builds webimage (debug) when missing. Sources are local files
# (Tests/Images), so step 4 asks for a large image to keep requests in flight.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-8090}"
limit=$((300 * 1024))
command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] || bash scripts/setup.sh
nginx=$(command -v nginx || echo /usr/sbin/nginx)
webimage=.build/debug/webimage
[ -x "$webimage" ] || swift build --product webimage
source scripts/loopback.sh
work_folder scale-out

# A server on an ephemeral port (its port is read from its log by port_of).
serve() {
    "$webimage" serve --bind 127.0.0.1:0 --cache-dir "$work/cache" --result-cache-size "$limit" \
        --local-filesystem-root Tests/Images --workers 16 > "$work/$1.log" 2>&1 &
    started_pids+=($!)
}
port_of() {
    for _ in $(seq 1 300); do
        if grep -q "listening on http://127.0.0.1:" "$work/$1.log"; then
            sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\).*#\1#p' "$work/$1.log" | head -1
            return
        fi
        sleep 0.1
    done
    cat "$work/$1.log" >&2
    exit 1
}
serve first
first_pid=$!
serve second
first_port=$(port_of first)
second_port=$(port_of second)

mkdir -p "$work/nginx"
sed -e "s#@PREFIX@#$work/nginx#g" -e "s#@PORT@#$port#" -e "s#@PROXY_CACHE@#images#" \
    -e "s#@UPSTREAMS@#server 127.0.0.1:$first_port; server 127.0.0.1:$second_port;#" \
    scripts/scale-out.nginx.conf > "$work/nginx/nginx.conf"
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -g 'daemon off; master_process off;' &
started_pids+=($!)
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
    sleep 0.1
done
echo "servers on 127.0.0.1:$first_port and 127.0.0.1:$second_port, nginx on 127.0.0.1:$port, shared folder $work/cache"

headers() { curl -s -o /dev/null -D - "$1" | tr -d '\r' | grep -i -E "^($2):" | tr '\n' ' '; echo; }
path=/unsafe/rs:fill:300:200/plain/local:///photos/rocket.jpg@jpg

echo "1. made by one server, read by the other from the shared folder:"
echo "   first:  $(headers "http://127.0.0.1:$first_port$path" x-cache)"
echo "   second: $(headers "http://127.0.0.1:$second_port$path" x-cache)"

echo "2. through nginx, twice:"
path=/unsafe/rs:fit:200:200/plain/local:///photos/astronaut.png@jpg
echo "   $(headers "http://127.0.0.1:$port$path" "x-cache-status|x-upstream|x-cache")"
echo "   $(headers "http://127.0.0.1:$port$path" "x-cache-status|x-upstream|x-cache")"

echo "3. 60 results written by both servers in turn (limit $limit bytes):"
largest=0
for width in $(seq 100 159); do
    curl -sf -o /dev/null "http://127.0.0.1:$port/unsafe/rs:fit:$((width * 3)):$((width * 2))/plain/local:///photos/rocket.jpg@jpg"
    # An entry the other server's trim removes while find walks the folder is not counted.
    size=$({ find "$work/cache/results" -maxdepth 1 -type f ! -name '.*' -printf '%s\n' 2>/dev/null || true; } | awk '{ s += $1 } END { print s + 0 }')
    [ "$size" -gt "$largest" ] && largest=$size
done
echo "   largest seen $largest bytes, now $size bytes"

echo "4. 20 requests in flight, the first server killed:"
statuses="$work/statuses"
for n in $(seq 1 20); do
    curl -s -o /dev/null -w '%{http_code}\n' \
        "http://127.0.0.1:$port/unsafe/rs:fit:$((400 + n)):300/plain/local:///sdwebimage/TestImageLarge.jpg@webp" >> "$statuses" &
done
sleep 0.3
{ kill -9 "$first_pid"; wait "$first_pid"; } 2> /dev/null || true
wait_curls() { while [ "$(wc -l < "$statuses")" -lt 20 ]; do sleep 0.1; done; }
wait_curls
echo "   statuses: $(sort "$statuses" | uniq -c | tr -s ' ' | tr '\n' ' ')"
echo "   tried on the killed server first, then on the other (nginx's error log): $(grep -c "\[error\].*upstream" "$work/nginx/error.log" || true)"
