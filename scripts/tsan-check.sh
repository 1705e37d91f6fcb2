#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer (build in .build-tsan) and fails on any report,
# the children the tests start (the `webimage` command, cache-stress-writer) included. The build
# defines WEBIMAGE_TSAN, which makes our lock (`Locked`, Sources/LibVips/Locked.swift) a pthread
# mutex that TSan sees. First it shows that TSan then sees the lock and still reports a real race
# beside it: scripts/tsan-race-proof, built with that file alone.
# Arguments go to the test binary (e.g. --filter MemoryCacheTests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
mkdir -p .build-tsan
proof=.build-tsan/tsan-race-proof
swiftc -swift-version 6 -sanitize=thread -Onone -DWEBIMAGE_TSAN -module-name RaceProof Sources/LibVips/Locked.swift scripts/tsan-race-proof/main.swift -o "$proof"
swiftc -swift-version 6 -sanitize=thread -Onone -module-name RaceProof Sources/LibVips/Locked.swift scripts/tsan-race-proof/main.swift -o "$proof-plain"
reports_of() { TSAN_OPTIONS=exitcode=0 "$@" 2>&1 | grep -c "WARNING: ThreadSanitizer" || true; }
locked=$(reports_of "$proof" locked)
racy=$(reports_of "$proof" racy)
mutex=$(reports_of "$proof" mutex)
plain=$(reports_of "$proof-plain" locked)
echo "race proof: under Locked $locked reports (want 0); a deliberate race $racy (want > 0);" \
    "under Synchronization.Mutex $mutex, under Locked built without WEBIMAGE_TSAN $plain (TSan does not see the futex)"
if [ "$locked" -ne 0 ] || [ "$racy" -eq 0 ]; then
    echo "ThreadSanitizer does not see Locked, or misses a real race" >&2
    exit 1
fi

swift build --build-tests --sanitize=thread --scratch-path .build-tsan -Xswiftc -DWEBIMAGE_TSAN
logs=$(mktemp -d)
status=0
# G_SLICE=always-malloc: GLib 2.74's slice allocator (libvips' objects, images included) hands a
# freed block to another thread through its own futex locks, which TSan does not see; a header
# one test's image read and another test's new image writes at the same address then reads as a
# race. With malloc, which TSan intercepts, the free is ordered before the reuse.
G_SLICE=always-malloc TSAN_OPTIONS="exitcode=0 log_path=$logs/tsan" \
    .build-tsan/debug/swift-webimagePackageTests.xctest --testing-library swift-testing "$@" || status=$?
reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer" || true)
echo "ThreadSanitizer: $reports reports (in $logs), tests exit status $status"
if [ "$reports" -ne 0 ]; then
    grep -h -A12 "WARNING: ThreadSanitizer" "$logs"/tsan.* | head -80 >&2
    exit 1
fi
exit "$status"
