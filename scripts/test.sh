#!/usr/bin/env bash
# The whole test suite, in two steps (the README's test command; CI runs it):
#  1. every suite but the heavy ones, in parallel, at most WEBIMAGE_TEST_WIDTH test cases at a
#     time (default 8): with all 800 started at once, as Swift Testing does by default, each
#     test's every await waits behind the runnable work of all the others, and a refused
#     connection took two minutes (docs/development.md, "How the suite runs");
#  2. the suites that load the machine on purpose (`Heavy`, Tests/*/Support/Heavy.swift: thousands
#     of connections, decode bombs, processes that take every core), one test at a time (width
#     1: each test target has its `Heavy`, and two of them side by side once crashed in
#     Foundation's Process.run, a child spawned while 5,000 connections were open).
# Each step is watched (run_watched, scripts/test-run.sh): one that prints nothing for 10 minutes
# is stuck, and is ended after every thread's stack and the tests that did not end are shown, so
# that a hang fails within minutes with its evidence. Arguments go to both steps' `swift test`
# (e.g. `--sanitize=thread`); each step's closing line gives its count and time; the steps' logs
# and event streams are kept in WEBIMAGE_TEST_LOGS (default: a new temporary folder).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/test-run.sh
swift build --build-tests "$@"
logs=${WEBIMAGE_TEST_LOGS:-$(mktemp -d -t webimage-test.XXXXXX)}
mkdir -p "$logs"
status=0
run_watched "$logs/parallel.log" env SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${WEBIMAGE_TEST_WIDTH:-8}" \
    swift test --skip-build "$@" --skip '\.Heavy/' \
    --event-stream-output-path "$logs/parallel.log.events" --event-stream-version 0 || status=$?
run_watched "$logs/heavy.log" env SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=1 \
    swift test --skip-build "$@" --filter '\.Heavy/' \
    --event-stream-output-path "$logs/heavy.log.events" --event-stream-version 0 || status=$?
echo "test.sh: the steps' logs are in $logs"
exit "$status"
