#!/usr/bin/env bash
# `/info` against thumbor 7.8's `/meta` and against the server's own 300x300 thumbnail of the
# same file (issue 42), all on loopback, in one run: requests a CPU-second of each server
# (user + system of its processes, /proc/PID/stat), the figure other work on a shared machine
# disturbs least, with requests/s and the load beside it.
#
# Usage: scripts/info-benchmark.sh [--duration SECONDS] (default 10 s a cell)
#
# Cells, on photos/rocket.jpg, photos/astronaut.png and sdwebimage/TestImageLarge.jpg (Tests/Images),
# each request a new source URL (?r=) and a new cache buster (cb:), so that no cache answers it
# and the source is fetched every time (thumbor has no cache here), at concurrency 2 (wrk):
#   info defaults        /info with no options: size, format, orientation, colour facts (header only)
#   info placeholders    /info/bh:4:3/th:1/dc:1: BlurHash, ThumbHash and dominant colours too
#   thumbnail 300x300    rs:fit:300:300, in the source's format at quality 80: the baseline
#   thumbor meta         thumbor 7.8 /unsafe/meta/URL (Pillow engine, no storage, 2 processes)
# One nginx is the origin both servers fetch from.
#
# Installs wrk and nginx (scripts/setup.sh) and thumbor 7.8 in /opt/thumbor-venv ($THUMBOR_VENV)
# when they are missing; builds webimage in release ($WEBIMAGE names another build).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/loopback.sh
repository=$PWD

duration=10
while [ $# -gt 0 ]; do
    case $1 in
        --duration) duration=$2; shift 2 ;;
        *) echo "usage: $0 [--duration SECONDS]" >&2; exit 2 ;;
    esac
done

bash scripts/setup.sh wrk nginx python3-venv >&2
thumbor_venv=${THUMBOR_VENV:-/opt/thumbor-venv}
if ! "$thumbor_venv/bin/thumbor" --version 2>/dev/null | grep -q '^7\.8'; then
    python3 -m venv "$thumbor_venv"
    "$thumbor_venv/bin/pip" install -q 'thumbor==7.8.*' >&2
fi
# $WEBIMAGE: another build of the server (a debug one to try the script; figures are release's).
webimage=${WEBIMAGE:-$repository/.build/release/webimage}
if [ -z "${WEBIMAGE:-}" ] && { [ ! -x "$webimage" ] || [ -n "$(find Sources Package.swift -newer "$webimage" -print -quit)" ]; }; then
    swift build -c release --product webimage >&2
fi

images=(photos/rocket.jpg photos/astronaut.png sdwebimage/TestImageLarge.jpg)
modes=("info defaults" "info placeholders" "thumbnail 300x300" "thumbor meta")

work_folder info-benchmark
chmod 755 "$work"    # nginx's workers run as nobody
mkdir -p "$work/origin" "$work/logs" "$work/cache"
for image in "${images[@]}"; do cp "Tests/Images/$image" "$work/origin/"; done


origin_port=$(free_port); webimage_port=$(free_port); thumbor_port=$(free_port)
nginx_head "$work" 1 1024 >"$work/nginx.conf"
cat >>"$work/nginx.conf" <<EOF
http {
    types { image/jpeg jpg; image/png png; }
    access_log off;
$(nginx_temp_paths "$work/logs")
    server { listen 127.0.0.1:$origin_port; root $work/origin; }
}
EOF
nginx -c "$work/nginx.conf" -p "$work" >"$work/logs/nginx.out" 2>&1 &
started_pids+=($!)

WEBIMAGE_BIND=127.0.0.1:$webimage_port WEBIMAGE_CACHE_DIR=$work/cache WEBIMAGE_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true \
    WEBIMAGE_LOG_LEVEL=warning "$webimage" serve >"$work/logs/webimage.log" 2>&1 &
started_pids+=($!); webimage_pid=$!

cat >"$work/thumbor.conf" <<EOF
ENGINE = 'thumbor.engines.pil'
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = 80
EOF
"$thumbor_venv/bin/thumbor" -i 127.0.0.1 -p "$thumbor_port" -c "$work/thumbor.conf" --processes 2 -l warning \
    >"$work/logs/thumbor.log" 2>&1 &
started_pids+=($!); thumbor_pid=$!

wait_for "http://127.0.0.1:$origin_port/rocket.jpg" "$work/logs"
wait_for "http://127.0.0.1:$webimage_port/health" "$work/logs"
wait_for "http://127.0.0.1:$thumbor_port/healthcheck" "$work/logs"

# CPU seconds of a server's processes (the one started and its children), user + system.
cpu_seconds() {
    local pid=$1 ticks
    ticks=$(getconf CLK_TCK)
    for p in $pid $(pgrep -P "$pid" || true); do awk '{ print $14 + $15 }' "/proc/$p/stat"; done |
        awk -v t="$ticks" '{ s += $1 } END { printf "%.2f", s / t }'
}

# The request path of MODE for FILE; wrk makes each {n} unique to the request.
path_of() {
    local escaped="http%3A%2F%2F127.0.0.1%3A$origin_port%2F$2%3Fr%3D{n}"
    case $1 in
        "info defaults") echo "/info/unsafe/cb:{n}/plain/$escaped" ;;
        "info placeholders") echo "/info/unsafe/bh:4:3/th:1/dc:1/cb:{n}/plain/$escaped" ;;
        "thumbnail 300x300") echo "/unsafe/rs:fit:300:300/q:80/cb:{n}/plain/$escaped" ;;
        "thumbor meta") echo "/unsafe/meta/$escaped" ;;
    esac
}

# Answers of each mode checked once: JSON with the size (and the hashes), an image of 300 px.
for image in "${images[@]}"; do
    file=${image##*/}
    for mode in "${modes[@]}"; do
        port=$([ "$mode" = "thumbor meta" ] && echo "$thumbor_port" || echo "$webimage_port")
        curl -sf -o "$work/check" "http://127.0.0.1:$port$(path_of "$mode" "$file" | sed 's/{n}/check/g')" ||
            { echo "$mode on $file: no answer" >&2; exit 1; }
        case $mode in
            "info defaults") grep -q '"width"' "$work/check" ;;
            "info placeholders") grep -q '"blurhash"' "$work/check" && grep -q '"thumb_hash"' "$work/check" ;;
            "thumbnail 300x300") [ "$(python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(len(d) > 100)' "$work/check")" = True ] ;;
            "thumbor meta") grep -q '"source"' "$work/check" ;;
        esac || { echo "$mode on $file: unexpected answer: $(head -c 300 "$work/check")" >&2; exit 1; }
    done
done

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); webimage $(git rev-parse --short HEAD) ($webimage);" \
    "thumbor $("$thumbor_venv/bin/thumbor" --version | head -1 | cut -d' ' -f2); cells of ${duration} s at concurrency 2"
printf '%-22s %-18s %10s %12s %14s %s\n' image mode "requests/s" "CPU cores" "req/CPU-s" "load"
for image in "${images[@]}"; do
    file=${image##*/}
    for mode in "${modes[@]}"; do
        if [ "$mode" = "thumbor meta" ]; then port=$thumbor_port pid=$thumbor_pid; else port=$webimage_port pid=$webimage_pid; fi
        before=$(cpu_seconds "$pid")
        out=$(wrk -t2 -c2 -d"${duration}s" --timeout 120s -s scripts/server-benchmark.lua "http://127.0.0.1:$port" -- "$(path_of "$mode" "$file")" "$RANDOM")
        after=$(cpu_seconds "$pid")
        result=$(grep '^RESULT' <<<"$out") || { echo "wrk gave no result for $mode on $file: $out" >&2; exit 1; }
        awk -v image="$file" -v mode="$mode" -v cpu="$(awk -v a="$before" -v b="$after" 'BEGIN { print b - a }')" \
            -v load="$(cut -d' ' -f1 /proc/loadavg)" '
            { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
            END {
                if (v["errors"] > 0) { printf("%s %s: %d errors\n", image, mode, v["errors"]) > "/dev/stderr"; exit 1 }
                n = v["requests"]; s = v["seconds"]
                printf "%-22s %-18s %10.1f %12.2f %14.1f %s\n", image, mode, n / s, cpu / s, (cpu > 0 ? n / cpu : 0), load
            }' <<<"$result"
    done
done
