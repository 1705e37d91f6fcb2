#!/usr/bin/env bash
# Replicas sharing results through S3 (docs/server-shared-cache.md), on loopback: moto's S3 server
# (scripts/moto-venv.sh's venv; auth off), three `webimage serve` processes with CACHE_USE=s3 on
# one bucket, each with a cache folder of its own, behind nginx (scripts/scale-out.nginx.conf,
# round robin, its own cache off so that every repeat reaches a replica). It shows, with curl:
#   1. 300 requests for 30 distinct results through nginx, 6 at a time: the processings counted
#      by the replicas' metrics (30, plus the first requests for one result that reached two
#      replicas at once), and where the answers came from (X-Cache);
#   2. a fourth replica started after the run answers the 30 from the bucket, processing none.
# Tests/WebImageServerTests/ScaleOutS3Tests.swift checks the same in the suite.
# Usage: bash scripts/scale-out-s3.sh; builds webimage (debug) when missing, installs nginx
# (scripts/setup.sh) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
webimage=.build/debug/webimage
[ -x "$webimage" ] || swift build --product webimage
command -v nginx > /dev/null || [ -x /usr/sbin/nginx ] || bash scripts/setup.sh
nginx=$(command -v nginx || echo /usr/sbin/nginx)
source scripts/moto-bucket.sh scale-out-s3

# A replica on an ephemeral port, its metrics on another (both read from its log and arguments).
declare -A ports metrics_ports
serve() {
    metrics_ports[$1]=$(free_port)
    IMGPROXY_CACHE_USE=s3 IMGPROXY_CACHE_BUCKET=results IMGPROXY_CACHE_PATH_PREFIX=results \
    IMGPROXY_CACHE_S3_ENDPOINT="http://127.0.0.1:$moto_port" \
    "$webimage" serve --bind 127.0.0.1:0 --prometheus-bind "127.0.0.1:${metrics_ports[$1]}" --cache-dir "$work/cache-$1" \
        --local-filesystem-root Tests/Images --workers 4 > "$work/$1.log" 2>&1 &
    started_pids+=($!)
    for _ in $(seq 1 300); do
        if grep -q "listening on http://127.0.0.1:" "$work/$1.log"; then
            ports[$1]=$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\).*#\1#p' "$work/$1.log" | head -1)
            return
        fi
        sleep 0.1
    done
    cat "$work/$1.log" >&2
    exit 1
}
processed() { curl -s "http://127.0.0.1:${metrics_ports[$1]}/metrics" | awk '/^webimage_server_processed_total/ { s += $2 } END { print s + 0 }'; }
url() { echo "/unsafe/rs:fit:$((100 + $1)):$((100 + $1))/plain/local:///photos/rocket.jpg@jpg"; }

for replica in 0 1 2; do serve "$replica"; done
nginx_port=$(free_port)
mkdir -p "$work/nginx"
sed -e "s#@PREFIX@#$work/nginx#g" -e "s#@PORT@#$nginx_port#" -e "s#@PROXY_CACHE@#off#" \
    -e "s#@UPSTREAMS@#server 127.0.0.1:${ports[0]}; server 127.0.0.1:${ports[1]}; server 127.0.0.1:${ports[2]};#" \
    scripts/scale-out.nginx.conf > "$work/nginx/nginx.conf"
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" -g 'daemon off; master_process off;' &
started_pids+=($!)
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$nginx_port/health" > /dev/null && break
    sleep 0.1
done
echo "moto on 127.0.0.1:$moto_port; replicas on ${ports[0]}, ${ports[1]}, ${ports[2]}; nginx on $nginx_port"

echo "1. 300 requests, 30 results, through nginx (round robin over 3 replicas), 6 at a time:"
for n in $(seq 0 299); do
    echo "http://127.0.0.1:$nginx_port$(url $(((n + n / 30) % 30)))"
done | xargs -P 6 -n 1 curl -s -o /dev/null -D - | tr -d '\r' | grep -i '^x-cache:' | sort | uniq -c | sed 's/^/   /'
total=0
for replica in 0 1 2; do
    count=$(processed "$replica")
    echo "   replica $replica processed $count"
    total=$((total + count))
done
echo "   processed in all: $total (30 results)"

echo "2. a fourth replica, started after the run, asked for the 30:"
serve 3
for i in $(seq 0 29); do curl -s -o /dev/null -D - "http://127.0.0.1:${ports[3]}$(url "$i")"; done | tr -d '\r' | grep -i '^x-cache:' | sort | uniq -c | sed 's/^/   /'
echo "   replica 3 processed $(processed 3)"
