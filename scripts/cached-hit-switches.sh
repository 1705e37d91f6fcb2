#!/usr/bin/env bash
# A cached hit of `webimage serve` against the bare route, each process alone: CPU and context
# switches a request (all the process's threads, from /proc) under wrk at concurrency 1, 4 and 16,
# 2 s of warm-up then 5 s a cell. The hit is photos/rocket.jpg's 300x200 fill from the local
# source; the bare route (`webimage-benchmark serve-bytes`) answers the same bytes. With
# `--warm SECONDS`, the server first makes that long of uncached results (`cb:` each, 16
# connections), then rests 5 s, as the benchmark's cached cells follow its uncached ones; with
# `--remote` too, each of those is of a new source URL (`?r=`) fetched from a local HTTP origin
# (Python's http.server), as the benchmark's uncached cells are.
# Release binaries as scripts/server-benchmark.sh builds them (docs/measurements/server-benchmark.md, run 12).
#
# Usage: scripts/cached-hit-switches.sh [--warm SECONDS [--remote]]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/loopback.sh
warm=0
remote=""
while [ $# -gt 0 ]; do
    case $1 in
        --warm) warm=$2; shift 2 ;;
        --remote) remote=yes; shift ;;
        *) echo "usage: $0 [--warm SECONDS [--remote]]" >&2; exit 2 ;;
    esac
done
webimage=.build/release/webimage
benchmark=.build/release/webimage-benchmark
[ -x "$webimage" ] && [ -x "$benchmark" ] || { echo "build them first: swift build -c release --product webimage (and webimage-benchmark)" >&2; exit 1; }
work=$(mktemp -d /tmp/webimage-cached-hit.XXXXXX)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
server_port=$(free_port); bare_port=$(free_port); origin_port=$(free_port)
source_path=local:///photos/rocket.jpg
if [ -n "$remote" ]; then
    mkdir -p "$work/origin" && cp Tests/Images/photos/rocket.jpg "$work/origin/"
    python3 -m http.server "$origin_port" --bind 127.0.0.1 --directory "$work/origin" >"$work/origin.log" 2>&1 &
    pids+=($!)
    wait_for "http://127.0.0.1:$origin_port/rocket.jpg" "$work"
    source_path="http%3A%2F%2F127.0.0.1%3A$origin_port%2Frocket.jpg%3Fr%3D"
fi
WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true WEBIMAGE_BIND=127.0.0.1:$server_port WEBIMAGE_LOCAL_FILESYSTEM_ROOT=$PWD/Tests/Images WEBIMAGE_CACHE_DIR=$work/cache \
    "$webimage" serve >"$work/serve.log" 2>&1 &
pids+=($!); server_pid=$!
wait_for "http://127.0.0.1:$server_port/health" "$work"
url=http://127.0.0.1:$server_port/insecure/rs:fill:300:200/plain/local:///photos/rocket.jpg
curl -sf -o "$work/result.jpg" "$url"
"$benchmark" serve-bytes "$work/result.jpg" "$bare_port" >"$work/bare.log" 2>&1 &
pids+=($!); bare_pid=$!
wait_for "http://127.0.0.1:$bare_port/ready" "$work"
if [ "$warm" -gt 0 ]; then
    # A remote source's URL ends in `?r=`: each request's unique value follows.
    suffix=""; [ -n "$remote" ] && suffix=' .. n .. "-" .. math.random(1e9)'
    cat >"$work/uncached.lua" <<LUA
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, "/insecure/rs:fill:300:200/cb:" .. n .. "-" .. math.random(1e9) .. "/plain/$source_path"$suffix)
end
LUA
    wrk -t2 -c16 -d"${warm}s" -s "$work/uncached.lua" "http://127.0.0.1:$server_port" |
        awk '/requests in/ { n = $1 } /Non-2xx/ { bad = $NF } END { print "warm-up: " n " uncached requests, " (bad ? bad : 0) " not 2xx" }'
    sleep 5
fi
sum_status() { cat /proc/"$1"/task/*/status | awk -v key="$2" '$1 == key ":" { s += $2 } END { print s }'; }
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$1"/stat; }
ticks=$(getconf CLK_TCK)
for concurrency in 1 4 16; do
    threads=2; [ "$concurrency" -gt 1 ] || threads=1
    for who in webimage bare; do
        if [ $who = webimage ]; then pid=$server_pid; target=$url; else pid=$bare_pid; target=http://127.0.0.1:$bare_port/result.jpg; fi
        wrk -t$threads -c$concurrency -d2s "$target" >/dev/null
        v0=$(sum_status $pid voluntary_ctxt_switches); n0=$(sum_status $pid nonvoluntary_ctxt_switches); c0=$(cpu_ticks $pid)
        requests=$(wrk -t$threads -c$concurrency -d5s "$target" | awk '/requests in/ { print $1 }')
        v1=$(sum_status $pid voluntary_ctxt_switches); n1=$(sum_status $pid nonvoluntary_ctxt_switches); c1=$(cpu_ticks $pid)
        awk -v who=$who -v c=$concurrency -v r="$requests" -v v=$((v1 - v0)) -v n=$((n1 - n0)) -v cpu=$((c1 - c0)) -v t="$ticks" 'BEGIN {
            printf "%-8s c%-3d %7d requests  %.2f voluntary + %.2f involuntary switches a request  %.1f us CPU a request\n", who, c, r, v / r, n / r, cpu / t / r * 1e6 }'
    done
done
