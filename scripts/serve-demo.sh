#!/usr/bin/env bash
# The image server in one go (the README's Quick start): starts `webimage serve` on the bundled
# images (Tests/Images as the local root, a fresh cache folder), fetches a 300x200 thumbnail of
# photos/rocket.jpg with curl, shows what came back, and stops the server.
# Usage: bash scripts/serve-demo.sh [PORT] (default 8080); builds webimage (debug) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-8080}"
webimage=.build/debug/webimage
[ -x "$webimage" ] || swift build --product webimage
cache="$(mktemp -d /tmp/webimage-serve-demo.XXXXXX)"
"$webimage" serve --bind "127.0.0.1:$port" --local-filesystem-root Tests/Images --cache-dir "$cache" 2> "$cache/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$cache"' EXIT
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null && break
    kill -0 "$server" 2>/dev/null || { cat "$cache/server.log"; exit 1; }
    sleep 0.1
done
url="http://127.0.0.1:$port/unsafe/rs:fill:300:200/g:sm/plain/local:///photos/rocket.jpg@webp"
echo "\$ curl -o /tmp/rocket-thumbnail.webp $url"
curl -sf -D "$cache/headers" -o /tmp/rocket-thumbnail.webp "$url"
grep -i -E "^(content-type|content-length|etag|cache-control|x-cache):" "$cache/headers"
"$webimage" info /tmp/rocket-thumbnail.webp
echo "The playground would be at http://127.0.0.1:$port/ while the server runs:"
echo "  $webimage serve --local-filesystem-root Tests/Images"
