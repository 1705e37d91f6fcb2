#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer + LeakSanitizer (a separate build folder,
# .build-asan). Memory errors fail the run at once; leaks are printed at exit.
# Expect only process-lifetime singletons in the leak report (see README, Guarantees).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests --sanitize=address --scratch-path .build-asan
ASAN_OPTIONS=detect_leaks=1 .build-asan/debug/swift-webimagePackageTests.xctest --testing-library swift-testing "$@"
