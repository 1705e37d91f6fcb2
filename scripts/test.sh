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
# Arguments go to both steps' `swift test` (e.g. `--sanitize=thread`); each step's closing line
# gives its count and time.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests "$@"
status=0
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${WEBIMAGE_TEST_WIDTH:-8} \
    swift test --skip-build "$@" --skip '\.Heavy/' || status=$?
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=1 swift test --skip-build "$@" --filter '\.Heavy/' || status=$?
exit "$status"
