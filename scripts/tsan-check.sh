#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer (build in .build-tsan) and fails on any report,
# the children the tests start (the `webimage` command, cache-stress-writer) included. The build
# defines WEBIMAGE_TSAN, which makes our lock (`Locked`, Sources/WebImageSupport/Locked.swift) a pthread
# mutex that TSan sees. First it shows that TSan then sees the lock and still reports a real race
# beside it, under the suppressions (scripts/tsan-suppressions.txt), which skip only what they
# are for: scripts/tsan-race-proof, built with that file alone.
# Arguments go to the test binary (e.g. --filter MemoryCacheTests).
# The run passes only when every test ran and passed (the runner's closing line, against the
# binary's list) and no sanitizer log holds an error, a fatal error or a failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-run.sh
bash scripts/setup.sh
mkdir -p .build-tsan
proof=.build-tsan/tsan-race-proof
swiftc -swift-version 6 -sanitize=thread -Onone -DWEBIMAGE_TSAN -module-name RaceProof Sources/WebImageSupport/Locked.swift scripts/tsan-race-proof/main.swift -o "$proof"
swiftc -swift-version 6 -sanitize=thread -Onone -module-name RaceProof Sources/WebImageSupport/Locked.swift scripts/tsan-race-proof/main.swift -o "$proof-plain"
suppressions=$PWD/scripts/tsan-suppressions.txt
reports_of() { TSAN_OPTIONS="exitcode=0 $options" "$@" 2>&1 | grep -c "WARNING: ThreadSanitizer" || true; }
options=
locked=$(reports_of "$proof" locked)
mutex=$(reports_of "$proof" mutex)
plain=$(reports_of "$proof-plain" locked)
continuation=$(reports_of "$proof" continuation)
refcount=$(reports_of "$proof" refcount)
options="suppressions=$suppressions"
racy=$(reports_of "$proof" racy)
continuation_suppressed=$(reports_of "$proof" continuation)
echo "race proof: under Locked $locked reports (want 0); a deliberate race $racy under the suppressions (want > 0);" \
    "under Synchronization.Mutex $mutex, under Locked built without WEBIMAGE_TSAN $plain (TSan does not see the futex);" \
    "a continuation resumed before its await $continuation, under the suppressions $continuation_suppressed (want 0);" \
    "an object written once its reference count says it is unshared $refcount (TSan does not see the count)"
if [ "$locked" -ne 0 ] || [ "$racy" -eq 0 ] || [ "$continuation_suppressed" -ne 0 ]; then
    echo "ThreadSanitizer does not see Locked, misses a real race, or the suppressions miss what they are for" >&2
    exit 1
fi
if [ "$continuation" -eq 0 ]; then
    echo "note: this Swift orders a continuation resumed before its await where TSan sees it: its suppression can go" >&2
fi
if [ "$refcount" -eq 0 ]; then
    echo "note: TSan sees the reference count's order here: SwiftNIO's pooled buffers' suppression can go" >&2
fi

# SWIFT_WEBIMAGE_TSAN_BUILD: without swift-otel, which does not compile under -sanitize=thread
# (Package.swift); the trace export tests are left out of this build.
SWIFT_WEBIMAGE_TSAN_BUILD=1 swift build --build-tests --sanitize=thread --scratch-path .build-tsan -Xswiftc -DWEBIMAGE_TSAN
logs=$(mktemp -d)
status=0
# G_SLICE=always-malloc: GLib 2.74's slice allocator (libvips' objects, images included) hands a
# freed block to another thread through its own futex locks, which TSan does not see; a header
# one test's image read and another test's new image writes at the same address then reads as a
# race. With malloc, which TSan intercepts, the free is ordered before the reuse.
# allocator_may_return_null=1: an allocation too large for memory returns NULL, as glibc's does
# (RenderTests checks that such a render is an error); without it TSan's allocator ends the
# process ("allocation-size-too-big"), which exitcode=0 would hide.
# suppressions: reports that are not our code's, each with why and the program that shows it
# (scripts/tsan-suppressions.txt, scripts/tsan-race-proof).
# WEBIMAGE_TEST_TIME_SCALE, WEBIMAGE_TEST_MEMORY_SCALE: the tests' time and memory bounds,
# stretched for the sanitizer's slowdown and shadow memory (Tests/WebImageTestServer/TestAllowance.swift):
# 6x time, as the parallel step measured 5.6x slower here (287.6 s against 51.5 s, 2026-12-02; at
# 4x a lossy WebP's budget stop, 0.234 s of CPU, passed its stretched 0.22 s).
# run_watched (test-run.sh): a run silent for 10 minutes is stuck; its stacks are kept and it fails.
binary=.build-tsan/debug/swift-webimagePackageTests.xctest
expected=$(expected_tests "$binary" "$@")
# run_suite (test-run.sh): without arguments, the two steps of scripts/test.sh.
export G_SLICE=always-malloc TSAN_OPTIONS="exitcode=0 allocator_may_return_null=1 log_path=$logs/tsan suppressions=$suppressions" \
    WEBIMAGE_TEST_TIME_SCALE=${WEBIMAGE_TEST_TIME_SCALE:-6} WEBIMAGE_TEST_MEMORY_SCALE=${WEBIMAGE_TEST_MEMORY_SCALE:-2}
run_suite "$logs/run.log" "$binary" "$@" || status=$?
reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer" || true)
errors=$(sanitizer_errors "$logs"/tsan.*)
echo "ThreadSanitizer: $reports reports, $(grep -c . <<<"$errors" || true) errors (logs in $logs), tests status $status"
if [ -n "$errors" ]; then
    echo "$errors" | head -20 >&2
    status=1
fi
if [ "$reports" -ne 0 ]; then
    grep -h -A12 "WARNING: ThreadSanitizer" "$logs"/tsan.* | head -80 >&2
    exit 1
fi
[ "$status" -eq 0 ] && echo "tsan-check: all $expected tests ran and passed, no report, no sanitizer error"
exit "$status"
