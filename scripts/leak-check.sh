#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer + LeakSanitizer (a separate build folder,
# .build-asan). Memory errors fail the run at once; a leak fails it at exit. Objects that live
# as long as the process are listed in scripts/lsan-suppressions.txt (child processes the
# tests start, such as the `webimage` command, inherit the same settings).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests --sanitize=address --scratch-path .build-asan
ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0" \
    .build-asan/debug/swift-webimagePackageTests.xctest --testing-library swift-testing "$@"
