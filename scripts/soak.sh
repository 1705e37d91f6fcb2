#!/usr/bin/env bash
# A soak of `webimage serve` (release build): wrk at saturation for 10 minutes with a mix of
# sizes, sources, cache hits and misses and errors, while a sampler reads, every second, the
# server's resident memory (VmRSS), its open file descriptors (/proc/PID/fd) and a /health probe
# (status, latency). At the end it prints whether RSS after the first minute stays within 10%,
# the fd counts, whether /health answered throughout, and every status the mix did not ask for;
# it writes the curve as CSV and a PNG plot (docs/server-performance.md has the method,
# docs/measurements/soak.md the runs and their figures).
#
# Usage: scripts/soak.sh [--duration SECONDS] [--connections N] [--output-dir DIR] [--skip KINDS]
#   (defaults: 600 s, 8 connections, DIR docs/measurements: DIR/soak.csv and DIR/soak-rss.png;
#   --skip leaves the named kinds of request out of the mix, comma-separated, e.g. large-full-size)
#
# The mix (scripts/soak.lua, weights out of 84): memory-cache hits (30), new results of cached
# sources (20), new source URLs fetched from the origin (10), full-size re-encodes (5),
# TestImageLarge.jpg thumbnails (2.5) and full size (0.5: each holds about 100 MB while it runs),
# and errors: missing sources over http: and local: (404), a corrupt
# source over both (422), a link-local address the source guard refuses and a host not in
# ALLOWED_SOURCES (404), a bad option (400). Sources: rocket.jpg, astronaut.png, TestImage.gif and
# TestImageLarge.jpg, from a loopback nginx origin (http:) and the same folder (local:); sizes
# from 48 pixels wide to full size. The caches are smaller than the defaults (memory 32 MiB,
# results and sources 64 MiB on disk) so that they fill within the first minute and trimming
# runs throughout: with the defaults, RSS climbs until the 256 MiB memory cache is full.
#
# Installs wrk, nginx and gnuplot (scripts/setup.sh) when they are missing; builds webimage in
# release when a source is newer than the binary.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/loopback.sh
repository=$PWD

duration=600
connections=8
output_dir=docs/measurements
skip=""
while [ $# -gt 0 ]; do
    case $1 in
        --duration) duration=$2; shift 2 ;;
        --connections) connections=$2; shift 2 ;;
        --output-dir) output_dir=$2; shift 2 ;;
        --skip) skip=$2; shift 2 ;;
        *) echo "usage: $0 [--duration SECONDS] [--connections N] [--output-dir DIR] [--skip KINDS]" >&2; exit 2 ;;
    esac
done

# --- What it needs ---------------------------------------------------------------------------
bash scripts/setup.sh wrk nginx gnuplot-nox >&2
binary=$repository/.build/release/webimage
if [ ! -x "$binary" ] || [ -n "$(find Sources Package.swift -newer "$binary" -print -quit)" ]; then
    swift build -c release --product webimage >&2
fi

work=$(mktemp -d /tmp/webimage-soak.XXXXXX)
chmod 755 "$work"    # nginx's workers run as nobody
mkdir -p "$work/origin" "$work/logs" "$work/cache"
for image in photos/rocket.jpg photos/astronaut.png sdwebimage/TestImage.gif sdwebimage/TestImageLarge.jpg; do
    cp "Tests/Images/$image" "$work/origin/"
done
# Corrupt sources: a JPEG cut after its first 2 KB with the rest zeroed, a PNG whose image data
# is noise (both start as images do; the decoder fails inside them).
{ head -c 2048 Tests/Images/photos/rocket.jpg; head -c 30000 /dev/zero; } >"$work/origin/corrupt.jpg"
{ head -c 33 Tests/Images/photos/astronaut.png; printf '\0\0\x40\0IDAT'; head -c 16388 /dev/urandom; } >"$work/origin/corrupt.png"

started_pids=()
cleanup() {
    local pid
    for pid in "${started_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

origin_port=$(free_port); server_port=$(free_port)

nginx_head "$work" 1 1024 >"$work/nginx.conf"
cat >>"$work/nginx.conf" <<EOF
http {
    types { image/jpeg jpg; image/png png; image/gif gif; }
    sendfile on;
    keepalive_requests 1000000;
    access_log off;
$(nginx_temp_paths "$work/logs")
    server { listen 127.0.0.1:$origin_port; root $work/origin; }
}
EOF
nginx -c "$work/nginx.conf" -p "$work" >"$work/logs/nginx.out" 2>&1 &
started_pids+=($!)

WEBIMAGE_BIND=127.0.0.1:$server_port \
    WEBIMAGE_CACHE_DIR=$work/cache \
    WEBIMAGE_MEMORY_CACHE_SIZE=$((32 << 20)) \
    WEBIMAGE_RESULT_CACHE_SIZE=$((64 << 20)) \
    WEBIMAGE_SOURCE_CACHE_SIZE=$((64 << 20)) \
    WEBIMAGE_LOCAL_FILESYSTEM_ROOT=$work/origin \
    WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true \
    WEBIMAGE_ALLOWED_SOURCES="http://127.0.0.1:$origin_port/,http://169.254.169.254/" \
    "$binary" serve >"$work/logs/webimage.log" 2>&1 &
started_pids+=($!); server_pid=$!

wait_for "http://127.0.0.1:$origin_port/rocket.jpg" "$work/logs"
wait_for "http://127.0.0.1:$server_port/health" "$work/logs"

# --- The sampler -----------------------------------------------------------------------------
# One line a second: seconds since the load started, VmRSS (KB), open fds, threads, the /health
# status (000: no answer within 5 s) and its latency (ms).
csv=$work/soak.csv
echo "seconds,rss_kb,fds,threads,health_status,health_ms" >"$csv"
sample() {
    local elapsed=$1 rss fds threads health
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$server_pid/status")
    threads=$(awk '/^Threads/ { print $2 }' "/proc/$server_pid/status")
    fds=$(find "/proc/$server_pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    health=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}' "http://127.0.0.1:$server_port/health" || true)
    awk -v t="$elapsed" -v rss="$rss" -v fds="$fds" -v th="$threads" -v h="${health:-000 5}" \
        'BEGIN { split(h, p, " "); printf "%d,%d,%d,%d,%s,%.1f\n", t, rss, fds, th, p[1], p[2] * 1000 }'
}
sampler() {
    local start now second=0
    start=$(date +%s.%N)
    while [ "$second" -le "$duration" ]; do
        sample "$second" >>"$csv"
        second=$((second + 1))
        now=$(date +%s.%N)
        sleep "$(awk -v s="$start" -v n="$now" -v k="$second" 'BEGIN { d = s + k - n; print (d > 0 ? d : 0) }')"
    done
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "[$(date +%T)] soak: ${duration} s, $connections connections${skip:+, without $skip}, load average $load_start" >&2
sampler &
sampler_pid=$!
started_pids+=($sampler_pid)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$server_pid/stat"; }
cpu_before=$(cpu_ticks)
wrk -t"$connections" -c"$connections" -d"${duration}s" --timeout 30s -s scripts/soak.lua \
    "http://127.0.0.1:$server_port" -- "http%3A%2F%2F127.0.0.1%3A$origin_port" "$skip" >"$work/wrk.out"
cpu_after=$(cpu_ticks)
wait "$sampler_pid" || true
sleep 2
idle=$(sample "$((duration + 2))")
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
kill -0 "$server_pid" 2>/dev/null || { echo "the server exited during the soak" >&2; tail -n 20 "$work/logs/webimage.log" >&2; exit 1; }

# --- Report ----------------------------------------------------------------------------------
mkdir -p "$output_dir"
cp "$csv" "$output_dir/soak.csv"
gnuplot <<EOF
set terminal pngcairo size 960,480 font "sans,10"
set output "$output_dir/soak-rss.png"
set datafile separator ","
set title "webimage serve under the soak mix: resident memory and open file descriptors"
set xlabel "seconds"
set ylabel "VmRSS (MB)"
set y2label "open file descriptors"
set yrange [0:*]
set y2range [0:*]
set ytics nomirror
set y2tics
set key bottom right
set grid
plot "$csv" using 1:(\$2 / 1024) skip 1 with lines lw 2 title "VmRSS (MB)", \
     "$csv" using 1:3 skip 1 axes x1y2 with lines lw 1 title "open fds"
EOF

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(uname -sr)"
    echo "webimage $(git rev-parse --short HEAD), release; ${duration} s, wrk $connections connections${skip:+, mix without $skip}; load average at the start $load_start, at the end $load_end"
    awk -v ticks="$(getconf CLK_TCK)" -v a="$cpu_before" -v b="$cpu_after" '/^ERRORS/ {
            for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            cpu = (b - a) / ticks
            printf "requests: %d in %.0f s, %.1f/s; server CPU %.0f s (%.2f cores), %.1f requests/CPU-second\n",
                v["requests"], v["seconds"], v["requests"] / v["seconds"], cpu, cpu / v["seconds"], v["requests"] / cpu
            printf "socket errors: connect %d, read %d, write %d, timeout %d\n", v["connect"], v["read"], v["write"], v["timeout"]
        }
        /^LATENCY/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); l[kv[1]] = kv[2] } }
        END { printf "latency of all requests: p50 %s ms, p99 %s ms, max %s ms\n", l["p50_ms"], l["p99_ms"], l["max_ms"] }' "$work/wrk.out"
    awk -F, 'NR > 1 && $1 >= 60 { n++; if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2; first = first == "" ? $2 : first; last = $2 }
        END {
            if (!n) { print "RSS after the first minute: no samples (the soak is shorter than a minute)"; exit }
            printf "RSS after the first minute: min %.1f MB, max %.1f MB, at 60 s %.1f MB, at the end %.1f MB; max/min %.3f: %s\n",
                min / 1024, max / 1024, first / 1024, last / 1024, max / min, (max <= 1.1 * min ? "within 10%" : "NOT within 10%")
        }' "$csv"
    # A minute's lowest, median and highest RSS: growth shows as a rising floor or peak.
    echo "RSS by minute (MB, min / median / max):"
    tail -n +2 "$csv" | awk -F, '$1 > 0 { print int(($1 - 1) / 60) + 1, $2 }' | sort -k1,1n -k2,2n |
        awk '{ v[$1, ++n[$1]] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++m] = $1 } }
            END { for (i = 1; i <= m; i++) { k = order[i]; c = n[k]
                printf "  minute %d: %.0f / %.0f / %.0f\n", k, v[k, 1] / 1024, v[k, int((c + 1) / 2)] / 1024, v[k, c] / 1024 } }'
    awk -F, -v idle="$idle" 'NR > 1 { n++; if (n == 1) first = $3; last = $3; if ($3 > max) max = $3 }
        END {
            split(idle, p, ",")
            printf "open fds: first %d, last %d, max %d; 2 s after the load %d\n", first, last, max, p[3]
        }' "$csv"
    awk -F, 'NR > 1 { n++; if ($5 != 200) bad++ }
        END { printf "/health: %d probes, %d not 200 within 5 s (%s); ", n, bad, (bad ? "FAILED" : "answered throughout") }' "$csv"
    tail -n +2 "$csv" | cut -d, -f6 | sort -n | awk '{ ms[NR] = $1 }
        END { p99 = int(NR * 0.99) + 1; if (p99 > NR) p99 = NR; printf "latency p50 %.0f ms, p99 %.0f ms, max %.0f ms\n", ms[int(NR / 2) + 1], ms[p99], ms[NR] }'
    echo
    echo "| kind | expected | status | responses |"
    echo "| --- | ---: | ---: | ---: |"
    awk '/^STATUS/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            printf "| %s | %s | %s%s | %d |\n", v["kind"], v["expected"], v["status"], (v["status"] == v["expected"] ? "" : " (unexpected)"), v["count"] }' "$work/wrk.out"
    echo
    awk '/^STATUS/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            if (v["status"] != v["expected"]) { bad += v["count"]; list = list sprintf(" %s %s x%d;", v["kind"], v["status"], v["count"]) } }
        END { print bad ? "unexpected statuses: " bad ":" list : "unexpected statuses: none" }' "$work/wrk.out"
    echo "disk cache after the soak: $(du -sm "$work/cache/results" | cut -f1) MB of results (limit 64), $(du -sm "$work/cache/sources" | cut -f1) MB of sources (limit 64)"
    echo "curve: $output_dir/soak.csv, plot: $output_dir/soak-rss.png"
} | tee "$work/summary.txt"
