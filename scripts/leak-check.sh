#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer + LeakSanitizer (a separate build folder,
# .build-asan). Every process of the run (the test binary and the `webimage` children the tests
# start) writes its sanitizer reports to .build-asan/reports/report.PID, not to stderr, where the
# tests read the children's output. The run fails when a test fails, on any memory error, and on
# any leak but three kinds that LeakSanitizer misreads in Swift, checked with small programs:
# - a weak reference's side table reported as a *direct* leak. Swift keeps its address encoded
#   in the object's header, where LeakSanitizer cannot see it, so every live object that once had a
#   weak reference shows one. (Not suppressed: a suppressed side table hides everything reachable
#   from it, which is its object and whatever leaked cycle holds the object; checked.) A side table
#   of a leaked object is reported as an *indirect* leak, with its object: that fails.
# - the storage and bytes of a `Data`, however made (`Data(contentsOf:)`, `Data(bytes:count:)`,
#   from a sequence, `reserveCapacity`): `Data` keeps its storage in an enum whose case bits sit
#   in the pointer, so a live global `Data` shows as leaked (a global made each of those ways, in a
#   five-line program built with -sanitize=address, is reported with these frames). Bytes
#   hold no pointers, so allowing them hides nothing else; whatever leaked holding them is
#   reported itself.
# - a swift-nio `SocketAddress`'s box reported as a *direct* leak: an IPv6 (or Unix) address is
#   an enum case whose bits sit in its box's pointer, so a live AsyncHTTPClient connection target
#   holding one shows it as leaked (NIO's shapes in a small program built with -sanitize=address:
#   a global holding a `.v6` target is reported, a `.v4` one or the bare struct is not). A box
#   of a leaked object is reported as *indirect*, with it: that fails.
# Objects that live as long as the process are listed in scripts/lsan-suppressions.txt.
# Memory errors in others' code our tests reach (Foundation's Process.run) are in
# scripts/asan-suppressions.txt, each with its cause.
# The run passes only when every test ran and passed (the runner's closing line, against the
# binary's list) and no report holds an error, a fatal error or a failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-run.sh
bash scripts/setup.sh
swift build --build-tests --sanitize=address --scratch-path .build-asan
reports=.build-asan/reports
rm -rf "$reports" && mkdir -p "$reports"
status=0
# exitcode=0: a leak report does not change a process's status (a child's would fail its test
# for the wrong reason); the reports are judged below. Memory errors are found there too.
# allocator_may_return_null=1: an allocation too large for memory returns NULL, as glibc's does,
# so that the tests of that case (RenderTests) see what users get rather than ASan's abort.
# WEBIMAGE_TEST_TIME_SCALE, WEBIMAGE_TEST_MEMORY_SCALE: the tests' time and memory bounds,
# stretched for the sanitizer's slowdown and shadow memory (Tests/WebImageTestServer/TestAllowance.swift).
# run_watched (test-run.sh): a run silent for 10 minutes is stuck; its stacks are kept and it fails.
binary=.build-asan/debug/swift-webimagePackageTests.xctest
expected=$(expected_tests "$binary" "$@")
# run_suite (test-run.sh): without arguments, the two steps of scripts/test.sh.
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:log_path=$PWD/$reports/report:suppressions=$PWD/scripts/asan-suppressions.txt" \
    LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0:exitcode=0" \
    WEBIMAGE_TEST_TIME_SCALE=${WEBIMAGE_TEST_TIME_SCALE:-3} WEBIMAGE_TEST_MEMORY_SCALE=${WEBIMAGE_TEST_MEMORY_SCALE:-3}
run_suite "$reports/run.log" "$binary" "$@" || status=$?
[ $status -eq 0 ] || echo "leak-check: the test run failed (status $status)" >&2
errors=$(sanitizer_errors "$reports"/report.*)
if [ -n "$errors" ]; then
    echo "leak-check: sanitizer errors:" >&2
    echo "$errors" | head -20 >&2
    grep -l -E "(ERROR|FATAL): |CHECK failed" "$reports"/report.* >&2 || true
    status=1
fi
for report in "$reports"/report.*; do
    [ -e "$report" ] || continue
    # Each leak, by the first frame that is not an allocator.
    awk '
        function judge() {
            if (kind == "") return
            if (!((kind == "Direct" && frame ~ /formWeakReference/) || frame ~ /FoundationEssentials(16readDataFromFile|17readBytesFromFile|4DataV|13__DataStorageC)/ ||
                  (kind == "Direct" && frame ~ /NIOCore3BoxC/ && caller ~ /NIOCore13SocketAddressO/))) {
                print FILENAME ": " header; print "    " frame; unexpected++
            }
            kind = ""
        }
        /^(Direct|Indirect) leak of/ { judge(); kind = $1; header = $0; frame = ""; caller = ""; next }
        kind != "" && caller == "" && /^ +#[0-9]+ / {
            if (frame == "" && $0 ~ / in (malloc|calloc|realloc|posix_memalign|swift_slowAlloc|swift_allocObject|operator new)/) next
            if (frame == "") frame = $0; else caller = $0
        }
        /^SUMMARY/ { judge() }
        END { judge(); exit unexpected > 0 }
    ' "$report" >&2 || status=1
done
if [ $status -eq 0 ]; then
    echo "leak-check: all $expected tests ran and passed; no memory error, no leak ($(ls "$reports"/report.* 2>/dev/null | wc -l) processes reported only the misread kinds)"
else
    echo "leak-check: FAILED; reports in $reports" >&2
fi
exit $status
