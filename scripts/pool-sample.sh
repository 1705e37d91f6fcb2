#!/usr/bin/env bash
# Runs the test binary (arguments go to it: e.g. --skip '\.Heavy/', or --filter ServingTests) and
# takes every thread's stack with gdb every WEBIMAGE_TEST_SAMPLE_SECONDS (default 5) while it runs;
# then scripts/pool-sample.py tells what the Swift cooperative pool's threads were doing in those
# samples: blocked in the kernel (file I/O, a pipe, a lock held across I/O, a child process) or
# computing, and in which function of ours. On Linux the pool is as wide as the machine has
# cores: a pool thread that blocks, or computes for seconds, holds back every task of the
# process. docs/development.md, "Finding blocking work on the cooperative pool".
# Needs a debug build (`swift build --build-tests`) and gdb.
set -euo pipefail
cd "$(dirname "$0")/.."
every=${WEBIMAGE_TEST_SAMPLE_SECONDS:-5}
out=$(mktemp -d)
binary=.build/debug/swift-webimagePackageTests.xctest
"$binary" --testing-library swift-testing "$@" >"$out/run.log" 2>&1 &
pid=$!
n=0
while kill -0 "$pid" 2>/dev/null; do
    sleep "$every"
    n=$((n + 1))
    gdb -p "$pid" -batch -ex "thread apply all bt 60" >"$out/sample-$n.txt" 2>/dev/null || true
done
status=0
wait "$pid" || status=$?
grep -a -E "Test run with" "$out/run.log" | tail -1 || true
python3 scripts/pool-sample.py "$out"/sample-*.txt
echo "samples and the run's log: $out (the tests' exit status: $status)"
