#!/usr/bin/env bash
# `webimage serve` against thumbor 7.8 and nginx, all on loopback, in one run: requests/s,
# p50/p99 latency and peak resident memory under wrk, and the ratios issue 21 sets as targets
# (docs/server-performance.md has the method, docs/measurements/server-benchmark.md the runs and
# their tables).
#
# Usage: scripts/server-benchmark.sh [--duration SECONDS] [--output FILE] [--profile]
#            [--modes MODE,MODE...] [--images FILE,FILE...] [--rounds N] [--baseline BINARY]
#   (defaults: 10 s a cell; the tables go to stdout, and also to FILE when given). --profile adds
#   where webimage's CPU goes: `perf record -g` of the server during four more cells at
#   concurrency 4 (uncached on each image, cached on rocket.jpg), read by scripts/server-profile.py.
#   --modes measures only the modes named (below), --images only the images named (rocket.jpg,
#   astronaut.png, TestImageLarge.jpg), --rounds N measures each concurrency's modes N
#   times, every other round in the reverse order, and reports the median of each figure.
#   --baseline BINARY runs a second `webimage serve` (another build, e.g. an earlier commit's),
#   measured in the modes "baseline uncached", "baseline src-cached" and "baseline cached" (as
#   their webimage twins; "baseline cached" is added when no baseline mode is named); the report
#   then has, for each pair measured, the per-round ratio of the two builds a CPU-second. An A/B
#   of the cached hit at two commits, each server's hits measured after its uncached requests:
#     scripts/server-benchmark.sh --modes "webimage uncached,baseline uncached,webimage cached,baseline cached,bare route" \
#         --rounds 3 --duration 5 --baseline /path/to/other/.build/release/webimage
#
# Work: a 300x200 fill thumbnail of photos/rocket.jpg, photos/astronaut.png and
# sdwebimage/TestImageLarge.jpg (Tests/Images), in the source's format at quality 80, no Accept
# header; concurrency 1, 4 and 16 (wrk, keep-alive, 1 thread at concurrency 1, else 2). One nginx
# (2 workers) is the origin both servers fetch from and serves the static baseline.
#   webimage uncached   each request a new result (cb:) of a new source URL (?r=): fetch, decode,
#                       resize, encode, store the source and the result
#   webimage src-cached each request a new result (cb:) of the same source: the source comes from
#                       the server's source cache
#   webimage cached     the same URL every time: a result from the memory cache
#   thumbor uncached    thumbor 7.8, 2 processes, Pillow engine, no storage, no result storage,
#                       each request a new source URL (?r=), so its per-source lock shares nothing
#   nginx static        the webimage result's bytes as a static file
#   baseline ...        as webimage ..., on the --baseline server
#   bare route          the same bytes from memory on a bare Hummingbird route (webimage-benchmark
#                       serve-bytes, Hummingbird's defaults): the HTTP stack's own limit, which
#                       a cached hit is judged against
# Each cell also reads the server's CPU time (/proc/PID/stat, all its processes): "server CPU
# cores" is CPU seconds over wall seconds, "requests/CPU-second" the requests over CPU seconds,
# a figure that other work on a shared machine disturbs less than requests/s. Peak resident
# memory: each process's VmHWM reset before a cell (/proc/PID/clear_refs) and read after it,
# summed over the server's processes (thumbor: the parent and its 2 workers; nginx: master and
# workers). The library's own rate, measured before each image's cells: `webimage-benchmark
# repeat IMAGE COUNT 2 source` (its thumbnail job, bytes in and q80 bytes out in the source's
# format, as the server writes these requests: decode shrunk to fit 300x200, encode; no HTTP,
# fetch or cache) on 2 threads while the servers are idle, with the CPU it got. thumbor takes
# seconds a request on TestImageLarge.jpg: those cells run 3x as long. Each cell starts once the
# servers are idle (settle), so that no cell pays for work an earlier one left.
#
# Installs wrk and nginx (scripts/setup.sh) and thumbor 7.8 in /opt/thumbor-venv
# ($THUMBOR_VENV) when they are missing; builds webimage and webimage-benchmark in release (or runs
# the builds $WEBIMAGE and $BENCHMARK_BINARY name).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/loopback.sh
repository=$PWD

duration=10
output=""
profile=""
rounds=1
baseline=""
only_images=()
modes=("webimage uncached" "webimage src-cached" "thumbor uncached" "webimage cached" "bare route" "nginx static")
while [ $# -gt 0 ]; do
    case $1 in
        --duration) duration=$2; shift 2 ;;
        --output) output=$2; shift 2 ;;
        --profile) profile=linux-perf; shift ;;
        --modes) IFS=, read -r -a modes <<<"$2"; shift 2 ;;
        --images) IFS=, read -r -a only_images <<<"$2"; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --baseline) baseline=$(realpath "$2"); shift 2 ;;
        *) echo "usage: $0 [--duration SECONDS] [--output FILE] [--profile] [--modes MODE,...] [--images FILE,...] [--rounds N] [--baseline BINARY]" >&2; exit 2 ;;
    esac
done
for mode in "${modes[@]}"; do
    case $mode in
        "webimage uncached" | "webimage src-cached" | "thumbor uncached" | "webimage cached" | "bare route" | "nginx static") ;;
        "baseline uncached" | "baseline src-cached" | "baseline cached")
            [ -n "$baseline" ] || { echo "the mode \"$mode\" needs --baseline BINARY" >&2; exit 2; } ;;
        *) echo "unknown mode: $mode" >&2; exit 2 ;;
    esac
done
if [ -n "$baseline" ]; then
    [ -x "$baseline" ] || { echo "no executable at $baseline" >&2; exit 2; }
    [[ " ${modes[*]} " == *" baseline "* ]] || modes+=("baseline cached")
fi

# --- What it needs ---------------------------------------------------------------------------
bash scripts/setup.sh wrk nginx libvips-tools python3-venv $profile >&2
thumbor_venv=${THUMBOR_VENV:-/opt/thumbor-venv}
if ! "$thumbor_venv/bin/thumbor" --version 2>/dev/null | grep -q '^7\.8'; then
    python3 -m venv "$thumbor_venv"
    "$thumbor_venv/bin/pip" install -q 'thumbor==7.8.*' >&2
fi
# Builds a release product when its binary is missing or older than a source (building one product
# rebuilds some modules the other built with other settings: skip what is up to date).
build() {
    local binary=$repository/.build/release/$1
    if [ ! -x "$binary" ] || [ -n "$(find Sources Package.swift -newer "$binary" -print -quit)" ]; then
        swift build -c release --product "$1" >&2
    fi
}
# $WEBIMAGE and $BENCHMARK_BINARY name builds made elsewhere (not WEBIMAGE_*: the server refuses a variable of its prefix that is no setting) (then nothing is built).
[ -n "${WEBIMAGE:-}" ] || build webimage
[ -n "${BENCHMARK_BINARY:-}" ] || build webimage-benchmark
webimage=${WEBIMAGE:-$repository/.build/release/webimage}
benchmark=${BENCHMARK_BINARY:-$repository/.build/release/webimage-benchmark}

images=(photos/rocket.jpg photos/astronaut.png sdwebimage/TestImageLarge.jpg)
if [ ${#only_images[@]} -gt 0 ]; then
    chosen=()
    for image in "${images[@]}"; do [[ " ${only_images[*]} " == *" ${image##*/} "* ]] && chosen+=("$image"); done
    [ ${#chosen[@]} -eq ${#only_images[@]} ] || { echo "--images: one of ${only_images[*]} is not rocket.jpg, astronaut.png or TestImageLarge.jpg" >&2; exit 2; }
    images=("${chosen[@]}")
fi
concurrencies=(1 4 16)

work_folder server-benchmark
chmod 755 "$work"    # nginx's workers run as nobody
mkdir -p "$work/origin" "$work/static" "$work/logs" "$work/cache" "$work/baseline-cache"
touch "$work/library.tsv"
for image in "${images[@]}"; do cp "Tests/Images/$image" "$work/origin/"; done


origin_port=$(free_port); static_port=$(free_port); webimage_port=$(free_port); thumbor_port=$(free_port); bare_port=$(free_port)
baseline_port=$(free_port)

# --- The servers -----------------------------------------------------------------------------
nginx_head "$work" 2 4096 >"$work/nginx.conf"
cat >>"$work/nginx.conf" <<EOF
http {
    types { image/jpeg jpg; image/png png; }
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
$(nginx_temp_paths "$work/logs")
    # The origin logs each request, so that the script can check who fetched what.
    server { listen 127.0.0.1:$origin_port; root $work/origin; access_log $work/logs/origin.log; }
    server { listen 127.0.0.1:$static_port; root $work/static; access_log off; }
}
EOF
nginx -c "$work/nginx.conf" -p "$work" >"$work/logs/nginx.out" 2>&1 &
started_pids+=($!); nginx_pid=$!

WEBIMAGE_BIND=127.0.0.1:$webimage_port WEBIMAGE_CACHE_DIR=$work/cache WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true \
    "$webimage" serve >"$work/logs/webimage.log" 2>&1 &
started_pids+=($!); webimage_pid=$!
baseline_pid=""
if [ -n "$baseline" ]; then
    WEBIMAGE_BIND=127.0.0.1:$baseline_port WEBIMAGE_CACHE_DIR=$work/baseline-cache WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true \
        "$baseline" serve >"$work/logs/baseline.log" 2>&1 &
    started_pids+=($!); baseline_pid=$!
fi

cat >"$work/thumbor.conf" <<EOF
ENGINE = 'thumbor.engines.pil'
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = 80
EOF
"$thumbor_venv/bin/thumbor" -i 127.0.0.1 -p "$thumbor_port" -c "$work/thumbor.conf" --processes 2 \
    >"$work/logs/thumbor.log" 2>&1 &
started_pids+=($!); thumbor_pid=$!

wait_for "http://127.0.0.1:$origin_port/${images[0]##*/}" "$work/logs"
wait_for "http://127.0.0.1:$webimage_port/health" "$work/logs"
wait_for "http://127.0.0.1:$thumbor_port/healthcheck" "$work/logs"
[ -z "$baseline" ] || wait_for "http://127.0.0.1:$baseline_port/health" "$work/logs"

# The PIDs of a server's processes: the one started and its children.
server_pids() {
    local pid
    case $1 in
        webimage) pid=$webimage_pid ;;
        thumbor) pid=$thumbor_pid ;;
        nginx) pid=$nginx_pid ;;
        bare) pid=$bare_pid ;;
        baseline) pid=$baseline_pid ;;
    esac
    [ -n "$pid" ] || return 0
    echo "$pid" $(pgrep -P "$pid" || true)
}
reset_peak() { local pid; for pid in $(server_pids "$1"); do echo 5 >"/proc/$pid/clear_refs"; done; }
peak_mb() {
    local pid
    for pid in $(server_pids "$1"); do awk '/^VmHWM/ { print $2 }' "/proc/$pid/status"; done |
        awk '{ kb += $1 } END { printf "%.0f", kb / 1024 }'
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
origin_requests() { wc -l <"$work/logs/origin.log"; }

# The request path (wrk's {n}: unique per request) of MODE for IMAGE (a file name).
path_of() {
    local mode=$1 file=$2
    local escaped="http%3A%2F%2F127.0.0.1%3A$origin_port%2F$file"
    case $mode in
        "webimage uncached") echo "/insecure/rs:fill:300:200/cb:{n}/plain/$escaped%3Fr%3D{n}" ;;
        "webimage src-cached") echo "/insecure/rs:fill:300:200/cb:{n}/plain/$escaped" ;;
        "webimage cached") echo "/insecure/rs:fill:300:200/plain/$escaped" ;;
        "baseline "*) path_of "webimage ${mode#baseline }" "$file" ;;
        "thumbor uncached") echo "/unsafe/300x200/$escaped%3Fr%3D{n}" ;;
        "nginx static") echo "/${file%.*}-300x200.${file##*.}" ;;
        "bare route") echo "/${file%.*}-300x200.${file##*.}" ;;
    esac
}
port_of() {
    case $1 in
        webimage*) echo "$webimage_port" ;;
        thumbor*) echo "$thumbor_port" ;;
        nginx*) echo "$static_port" ;;
        bare*) echo "$bare_port" ;;
        baseline*) echo "$baseline_port" ;;
    esac
}

# --- Measuring -------------------------------------------------------------------------------
# CPU seconds the server's processes have used (user + system).
cpu_seconds() {
    local pid ticks
    ticks=$(getconf CLK_TCK)
    for pid in $(server_pids "$1"); do awk '{ print $14 + $15 }' "/proc/$pid/stat"; done |
        awk -v t="$ticks" '{ s += $1 } END { printf "%.2f", s / t }'
}

# Waits (up to 30 s) until the servers are idle, printing the seconds waited: a cell's CPU is
# then its own requests', not the work an earlier cell left (thumbor's queued requests after
# wrk stopped, webimage's results still being written behind their responses).
settle() {
    local waited=0 quiet=0 before after
    while [ "$waited" -lt 120 ] && [ "$quiet" -lt 2 ]; do
        before=$(cpu_seconds webimage; cpu_seconds thumbor; cpu_seconds baseline)
        sleep 0.5
        after=$(cpu_seconds webimage; cpu_seconds thumbor; cpu_seconds baseline)
        # At most one clock tick (0.01 s) in the half second, twice in a row: idle. (Under 0.04
        # s once let the tail of a busy cell's disk writes, 15 – 45 ms a half second for about
        # 10 s after 16 connections of uncached requests, into the next cell: run 12.)
        if paste <(echo "$before") <(echo "$after") | awk '{ d += $2 - $1 } END { exit !(d < 0.015) }'; then
            quiet=$((quiet + 1))
        else
            quiet=0
        fi
        waited=$((waited + 1))
    done
    echo $((waited / 2))
}

# thumbor's cells on TestImageLarge.jpg run 3 times as long, to finish a few dozen requests.
cell_duration() {
    if [ "$1" = "thumbor uncached" ] && [ "$2" = TestImageLarge.jpg ]; then echo $((duration * 3)); else echo "$duration"; fi
}

# One wrk cell; appends to rounds.tsv: image, mode, concurrency, requests/s, p50 ms, p99 ms,
# peak RSS MB, errors, origin fetches a request, server CPU cores used, requests a CPU second,
# round. results.tsv, which the tables read, has the median of each figure over the rounds.
results=$work/results.tsv
cell=0
measure() {
    local file=$1 mode=$2 concurrency=$3 server=${2%% *}
    local threads=$((concurrency < 2 ? 1 : 2)) path out result fetched cpu_before cpu_after origin_before
    path=$(path_of "$mode" "$file")
    cell=$((cell + 1))
    reset_peak "$server"
    origin_before=$(origin_requests)
    cpu_before=$(cpu_seconds "$server")
    out=$(wrk -t"$threads" -c"$concurrency" -d"$(cell_duration "$mode" "$file")s" --timeout 120s \
        -s scripts/server-benchmark.lua "http://127.0.0.1:$(port_of "$mode")" -- "$path" "c$cell")
    cpu_after=$(cpu_seconds "$server")
    result=$(grep '^RESULT' <<<"$out") || { echo "wrk gave no result for $mode $file: $out" >&2; exit 1; }
    fetched=$(($(origin_requests) - origin_before))
    awk -v image="$file" -v mode="$mode" -v c="$concurrency" -v round="$round" -v peak="$(peak_mb "$server")" -v fetched="$fetched" \
        -v cpu="$(awk -v a="$cpu_before" -v b="$cpu_after" 'BEGIN { print b - a }')" '
        # Three significant digits, whole numbers from 100 on.
        function figure(x) { return sprintf(x >= 100 ? "%.0f" : x >= 10 ? "%.1f" : "%.2f", x) }
        { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END {
            n = v["requests"]; s = v["seconds"]
            printf "%s\t%s\t%d\t%s\t%.1f\t%.1f\t%s\t%d\t%.2f\t%.2f\t%s\t%d\n", image, mode, c, figure(n / s), v["p50_ms"], v["p99_ms"],
                peak, v["errors"], n ? fetched / n : 0, cpu / s, figure(cpu > 0 ? n / cpu : 0), round
        }' <<<"$result" >>"$work/rounds.tsv"
}

# The library's thumbnail job on IMAGE, 2 threads, for about half a cell: appends to library.tsv
# the image, jobs/s, the CPU cores it got, and jobs a CPU second.
library_rate() {
    local image=$1 rate count line
    rate=$("$benchmark" repeat "$image" 5 2 source | sed -n 's/.*threads: \([0-9.]*\) jobs\/s.*/\1/p')
    count=$(awk -v r="$rate" -v d="$duration" 'BEGIN { c = int(r * d / 4); print (c < 5 ? 5 : c) }')
    line=$("$benchmark" repeat "$image" "$count" 2 source)
    echo "  $line" >&2
    sed -n 's/.*threads: \([0-9.]*\) jobs\/s (CPU busy \([0-9.]*\) cores.*/\1 \2/p' <<<"$line" |
        awk -v f="${image##*/}" '{ printf "%s\t%.1f\t%.2f\t%.1f\n", f, $1, $2, ($2 > 0 ? $1 / $2 : 0) }' >>"$work/library.tsv"
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
        "$(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)), $(uname -sr)"
    echo "versions: webimage ${WEBIMAGE:-$(git rev-parse --short HEAD)}, libvips $(vips --version | head -1 | cut -d- -f2)," \
        "thumbor $("$thumbor_venv/bin/thumbor" --version | head -1 | cut -d' ' -f2), Pillow $("$thumbor_venv/bin/python" -c 'import PIL; print(PIL.__version__)')," \
        "$(nginx -v 2>&1 | cut -d' ' -f3), wrk $(wrk -v 2>&1 | head -1 | cut -d' ' -f2)"
    echo "cells: ${duration} s each (thumbor on TestImageLarge.jpg: $((duration * 3)) s); load average at the start: $(loadavg)"
} >"$work/header.txt"

declare -A load_during
for image in "${images[@]}"; do
    file=${image##*/}
    load_during[$file]="$(loadavg)"
    if [[ " ${modes[*]} " == *" webimage uncached "* ]]; then
        echo "[$(date +%T)] $file: the library's thumbnail job (load ${load_during[$file]})" >&2
        library_rate "$image"
    fi
    # Warm: the cached result, and its bytes as nginx's static file; both servers make 300x200.
    static=$work/static/${file%.*}-300x200.${file##*.}
    curl -sf -o "$static" "http://127.0.0.1:$webimage_port$(path_of "webimage cached" "$file")"
    curl -sf -o "$work/thumbor-$file" "http://127.0.0.1:$thumbor_port$(path_of "thumbor uncached" "$file" | sed 's/{n}/warm/')"
    made_files=("$static" "$work/thumbor-$file")
    if [ -n "$baseline" ]; then
        curl -sf -o "$work/baseline-$file" "http://127.0.0.1:$baseline_port$(path_of "webimage cached" "$file")"
        made_files+=("$work/baseline-$file")
    fi
    for made in "${made_files[@]}"; do
        size=$(vipsheader -f width "$made")x$(vipsheader -f height "$made")
        [ "$size" = 300x200 ] || { echo "$made is $size, not 300x200" >&2; exit 1; }
    done
    # The bare route answers this image's result bytes.
    "$benchmark" serve-bytes "$static" "$bare_port" >"$work/logs/bare-$file.log" 2>&1 &
    started_pids+=($!); bare_pid=$!
    wait_for "http://127.0.0.1:$bare_port/ready" "$work/logs"
    for concurrency in "${concurrencies[@]}"; do
        for ((round = 1; round <= rounds; round++)); do
            # Every other round in the reverse order, so that a drift of the machine's load over a
            # round weighs on each mode alike.
            order=("${modes[@]}")
            if ((round % 2 == 0)); then
                order=(); for ((m = ${#modes[@]} - 1; m >= 0; m--)); do order+=("${modes[m]}"); done
            fi
            for mode in "${order[@]}"; do
                waited=$(settle)
                echo "[$(date +%T)] $file, $mode, concurrency $concurrency, round $round (load $(loadavg); settled in $waited s)" >&2
                measure "$file" "$mode" "$concurrency"
            done
        done
    done
    kill "$bare_pid"; wait "$bare_pid" 2>/dev/null || true
done
load_end=$(loadavg)
# The median of each figure over the rounds (errors: the sum), in the order first measured.
python3 - "$work/rounds.tsv" >"$results" <<'EOF2'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    rows.setdefault(tuple(f[:3]), []).append(f[3:11])
for key, cells in rows.items():
    figures = [statistics.median(float(c[i]) for c in cells) for i in range(8)]
    figures[4] = sum(int(c[4]) for c in cells)
    text = lambda x: f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"
    print("\t".join(list(key) + [text(figures[0]), f"{figures[1]:.1f}", f"{figures[2]:.1f}", f"{figures[3]:.0f}",
                                 str(figures[4]), f"{figures[5]:.2f}", f"{figures[6]:.2f}", text(figures[7])]))
EOF2

# webimage under perf for one cell (MODE on FILE at concurrency 4): the parts of a request.
profile_cell() {
    local mode=$1 file=$2 out requests
    perf record -F 999 -g -p "$webimage_pid" -o "$work/perf.data" -- sleep "$duration" 2>/dev/null &
    local perf_pid=$!
    out=$(wrk -t2 -c4 -d"${duration}s" --timeout 120s -s scripts/server-benchmark.lua \
        "http://127.0.0.1:$webimage_port" -- "$(path_of "$mode" "$file")" "profile")
    wait "$perf_pid"
    requests=$(sed -n 's/^RESULT requests=\([0-9]*\).*/\1/p' <<<"$out")
    echo "$mode, $file, concurrency 4 (load $(loadavg)):"
    perf script -i "$work/perf.data" 2>/dev/null | python3 scripts/server-profile.py "$requests" 999
}
if [ -n "$profile" ]; then
    for cell in "webimage uncached:rocket.jpg" "webimage uncached:astronaut.png" \
        "webimage uncached:TestImageLarge.jpg" "webimage cached:rocket.jpg"; do
        echo "[$(date +%T)] profile: ${cell/:/ on } (settled in $(settle) s)" >&2
        profile_cell "${cell%%:*}" "${cell#*:}" >>"$work/profile.txt"
    done
fi

# --- Tables ----------------------------------------------------------------------------------
report() {
    cat "$work/header.txt"
    echo "load average at the end: $load_end"
    for image in "${images[@]}"; do
        file=${image##*/}
        echo
        echo "### $file ($(vipsheader -f width "Tests/Images/$image")x$(vipsheader -f height "Tests/Images/$image")," \
            "$(($(stat -c %s "Tests/Images/$image") / 1024)) KB; load average before: ${load_during[$file]})"
        echo
        echo "| server | concurrency | requests/s | p50 ms | p99 ms | peak RSS MB | errors | origin fetches/request | server CPU cores | requests/CPU-second |"
        echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        awk -F'\t' -v f="$file" '$1 == f { printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$results"
        awk -F'\t' -v f="$file" '$1 == f { printf "| library thumbnail job | 2 threads | %s | | | | | | %s | %s |\n", $2, $3, $4 }' "$work/library.tsv"
    done
    echo
    echo "### Targets (ratios in this run)"
    echo
    echo "Uncached is \"webimage uncached\" (fetch included); the library figure is its thumbnail job on 2 threads."
    echo "Per CPU-second ratios divide each side's requests by the CPU its processes used."
    echo
    echo "| image | concurrency | uncached / thumbor (target) | per CPU-second | cached / nginx static | cached / bare route per CPU-second (target 0.7x) | p99 / thumbor's (target at most 1x) | uncached / library (target 0.75x) | per CPU-second |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    awk -F'\t' '
        FILENAME ~ /library/ { lib[$1] = $2; libcpu[$1] = $4; next }
        { rps[$1, $2, $3] = $4; p99[$1, $2, $3] = $6; eff[$1, $2, $3] = $11; if (!(($1, $3) in seen)) { seen[$1, $3] = 1; order[++rows] = $1 SUBSEP $3 } }
        function ratio(a, b) { return b > 0 ? sprintf("%.2fx", a / b) : "n/a" }
        END {
            for (r = 1; r <= rows; r++) {
                split(order[r], key, SUBSEP); f = key[1]; c = key[2]
                target = (f ~ /TestImageLarge/) ? "20x" : "3x"
                p = (c == 16) ? ratio(p99[f, "webimage uncached", c], p99[f, "thumbor uncached", c]) : ""
                printf "| %s | %d | %s (%s) | %s | %s | %s | %s | %s | %s |\n", f, c,
                    ratio(rps[f, "webimage uncached", c], rps[f, "thumbor uncached", c]), target,
                    ratio(eff[f, "webimage uncached", c], eff[f, "thumbor uncached", c]),
                    ratio(rps[f, "webimage cached", c], rps[f, "nginx static", c]),
                    ratio(eff[f, "webimage cached", c], eff[f, "bare route", c]), p,
                    ratio(rps[f, "webimage uncached", c], lib[f]), ratio(eff[f, "webimage uncached", c], libcpu[f])
            }
        }' "$work/library.tsv" "$results"
    if [ -n "$baseline" ]; then
        echo
        echo "### This build against the baseline ($baseline)"
        echo
        echo "Requests a CPU-second of each server in each mode measured on both (medians over $rounds rounds), and"
        echo "this build's over the baseline's in each round (lowest, median, highest); for the cached hit, each against"
        echo "the bare route."
        echo
        echo "| image | mode | concurrency | webimage | baseline | webimage / baseline: lowest | median | highest | webimage / bare route | baseline / bare route |"
        echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        python3 - "$work/rounds.tsv" <<'EOF2'
import statistics, sys
eff, order = {}, []
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    eff.setdefault((f[0], f[2]), {}).setdefault(f[1], {})[f[11]] = float(f[10])
    if (f[0], f[2]) not in order:
        order.append((f[0], f[2]))
median = lambda d: statistics.median(d.values()) if d else 0
over = lambda a, b: f"{a / b:.2f}x" if b else "n/a"
for mode in ("uncached", "src-cached", "cached"):
    for image, c in order:
        cell = eff[image, c]
        ours, theirs = cell.get("webimage " + mode, {}), cell.get("baseline " + mode, {})
        ratios = sorted(ours[r] / theirs[r] for r in ours if theirs.get(r))
        if not ratios:
            continue
        bare = median(cell.get("bare route", {})) if mode == "cached" else 0
        spread = [f"{x:.2f}x" for x in (ratios[0], statistics.median(ratios), ratios[-1])]
        print(f"| {image} | {mode} | {c} | {median(ours):.0f} | {median(theirs):.0f} | " + " | ".join(spread) +
              f" | {over(median(ours), bare) if bare else ''} | {over(median(theirs), bare) if bare else ''} |")
EOF2
    fi
    if [ -n "$profile" ]; then
        echo
        echo "### Where webimage's CPU goes (perf record -g, 999 Hz)"
        echo
        echo '```'
        cat "$work/profile.txt"
        echo '```'
    fi
}
if [ -n "$output" ]; then report | tee "$output"; else report; fi
