# Sourced by the sanitizer scripts: how to tell that a run of the test binary ran every test it
# was asked to and that each passed, whatever the sanitizer did to the process's exit status.

# expected_tests BINARY [ARGS...]: how many tests the binary runs with these arguments (its
# list, narrowed by each --filter and --skip as Swift Testing narrows it: a regex on the ID).
expected_tests() {
    local binary=$1
    shift
    local list
    list=$("$binary" --testing-library swift-testing --list-tests 2>/dev/null)
    while [ $# -gt 0 ]; do
        case $1 in
            --filter) list=$(grep -E -- "$2" <<<"$list" || true); shift 2 ;;
            --skip) list=$(grep -vE -- "$2" <<<"$list" || true); shift 2 ;;
            *) shift ;;
        esac
    done
    grep -c . <<<"$list" || true
}

# judge_test_run LOG EXPECTED: succeeds when the runner's closing line in LOG says EXPECTED tests
# ran and passed; otherwise says what it found and fails. A process stopped by a sanitizer's
# fatal error writes no closing line.
judge_test_run() {
    local log=$1 expected=$2 closing
    closing=$(grep -a -E "Test run with [0-9]+ tests? " "$log" | tail -1)
    if [ -z "$closing" ]; then
        echo "the test run ended without its closing line: it stopped early (see $log)" >&2
        return 1
    fi
    if ! grep -q -E "Test run with $expected tests? .* passed after" <<<"$closing"; then
        echo "the test run did not run and pass all $expected tests: $closing" >&2
        return 1
    fi
}

# sanitizer_errors FILE...: the lines of sanitizer logs that report an error, a fatal error or a
# failed internal check (leak summaries, which the leak check judges itself, left out).
sanitizer_errors() {
    grep -a -h -E "(ERROR|FATAL): |CHECK failed" "$@" 2>/dev/null | grep -v "ERROR: LeakSanitizer: detected memory leaks" || true
}

# unfinished_tests EVENTS: the tests and test cases that an event stream (Swift Testing's
# `--event-stream-output-path`, version 0) shows started and not ended, one ID a line.
unfinished_tests() {
    python3 - "$1" <<'PY'
import json, sys
open_ids = {}
for line in open(sys.argv[1], errors="replace"):
    try:
        record = json.loads(line)
    except ValueError:
        continue
    payload = record.get("payload", {})
    kind, test = payload.get("kind"), payload.get("testID")
    if test is None:
        continue
    case = json.dumps(payload.get("testCase", {}).get("arguments", ""), sort_keys=True) if "Case" in kind else ""
    key = (test, case)
    if kind in ("testStarted", "testCaseStarted"):
        open_ids[key] = open_ids.get(key, 0) + 1
    elif kind in ("testEnded", "testCaseEnded", "testSkipped"):
        open_ids[key] = open_ids.get(key, 0) - 1
for (test, case), count in sorted(open_ids.items()):
    if count > 0:
        print(test + ("" if case in ("", '""') else " " + case))
PY
}

# run_watched LOG COMMAND...: runs COMMAND with its output shown and written to LOG, and returns
# its status. A run whose output stops growing for WEBIMAGE_TEST_STALL_SECONDS (default 600: no test
# is that quiet, even under a sanitizer) is stuck: every thread's stack of COMMAND and of its
# child processes (`swift test` runs the test binary as one) is written to LOG.stall (gdb) and
# shown, then the tests LOG.events (an event stream, when the command writes one) shows
# unfinished, and the run is ended: a hang fails with the evidence instead of never ending.
run_watched() {
    local log=$1
    shift
    local limit=${WEBIMAGE_TEST_STALL_SECONDS:-600} pid status=0 size quiet=0 last=-1 stuck
    "$@" > >(tee "$log") 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 10
        size=$(stat -c %s "$log" 2>/dev/null || echo 0)
        if [ "$size" -eq "$last" ]; then quiet=$((quiet + 10)); else quiet=0; last=$size; fi
        if [ "$quiet" -ge "$limit" ]; then
            echo "run_watched: no output for ${limit}s: stacks in $log.stall, ending PID $pid and its children" >&2
            stuck="$pid $(descendants "$pid")"
            for process in $stuck; do
                echo "== PID $process: $(tr '\0' ' ' <"/proc/$process/cmdline" 2>/dev/null)"
                gdb -p "$process" -batch -ex "thread apply all bt" 2>&1 || true
            done >"$log.stall"
            cat "$log.stall" >&2
            if [ -s "$log.events" ]; then
                echo "run_watched: the tests that started and did not end:" >&2
                unfinished_tests "$log.events" >&2
            fi
            # shellcheck disable=SC2086 # one PID a word
            kill -9 $stuck 2>/dev/null || true
            break
        fi
    done
    wait "$pid" || status=$?
    return "$status"
}

# descendants PID: the PIDs of PID's children, their children and so on.
descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        echo "$child"
        descendants "$child"
    done
}

# run_suite LOG BINARY [ARGS...]: the test binary's run, watched (run_watched) and judged
# (judge_test_run). With ARGS, one run with them (LOG). Without, the whole suite as
# scripts/test.sh runs it: every suite but the heavy ones, at most WEBIMAGE_TEST_WIDTH (8) test
# cases at a time (LOG.parallel), then the `Heavy` suites one test at a time (LOG.heavy).
# Fails when a step fails; the environment goes to both steps.
run_suite() {
    local log=$1 binary=$2 status=0
    shift 2
    if [ $# -gt 0 ]; then
        run_watched "$log" "$binary" --testing-library swift-testing "$@" || status=$?
        judge_test_run "$log" "$(expected_tests "$binary" "$@")" || status=1
        return "$status"
    fi
    run_watched "$log.parallel" env SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${WEBIMAGE_TEST_WIDTH:-8}" \
        "$binary" --testing-library swift-testing --skip '\.Heavy/' || status=$?
    judge_test_run "$log.parallel" "$(expected_tests "$binary" --skip '\.Heavy/')" || status=1
    run_watched "$log.heavy" env SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=1 \
        "$binary" --testing-library swift-testing --filter '\.Heavy/' || status=$?
    judge_test_run "$log.heavy" "$(expected_tests "$binary" --filter '\.Heavy/')" || status=1
    return "$status"
}
