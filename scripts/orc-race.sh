#!/usr/bin/env bash
# The liborc race, shown and fixed: builds the reproducer (Tests/OrcRaceProbe) twice, without
# and with Sources/CVipsGlue/orc_lock.c, runs the unlocked one RUNS times per mode until it
# fails (each run capped at CAP seconds) and the locked one for 10x the longest time to failure
# (at least MIN seconds), and prints the figures.
#   scripts/orc-race.sh [THREADS [RUNS [CAP [MIN]]]]    defaults: 2 5 300 60
# Modes: orc (compile, run, free programs straight against liborc) and vips (libvips pipelines
# that compile liborc programs: resize and Gaussian blur, built and torn down).
set -uo pipefail
cd "$(dirname "$0")/.."
threads=${1:-2}
runs=${2:-5}
cap=${3:-300}
minimum=${4:-60}
out=.build-orc
mkdir -p "$out"
# shellcheck disable=SC2046
flags=(-O1 -g Tests/OrcRaceProbe/orc_race_probe.c $(pkg-config --cflags --libs vips orc-0.4) -lpthread -ldl)
gcc "${flags[@]}" -DWI_WITHOUT_ORC_LOCK -o "$out/unlocked" || exit 1
gcc "${flags[@]}" -ISources/CVipsGlue/include Sources/CVipsGlue/orc_lock.c -o "$out/locked" || exit 1

now() { date +%s.%N; }
status=0
for mode in orc vips; do
    longest=0
    failures=0
    times=()
    for ((run = 1; run <= runs; run++)); do
        start=$(now)
        "$out/unlocked" "$mode" "$threads" "$cap" >"$out/unlocked-$mode.log" 2>&1
        code=$?
        elapsed=$(echo "$(now) - $start" | bc)
        if [ "$code" -ne 0 ]; then
            failures=$((failures + 1))
            times+=("$(printf '%.3f' "$elapsed") s (exit $code)")
            longest=$(echo "if ($elapsed > $longest) $elapsed else $longest" | bc)
        else
            times+=("no failure in ${cap} s")
            longest=$cap
        fi
    done
    echo "$mode, without the lock: $failures of $runs runs failed: ${times[*]}"
    [ "$failures" -eq "$runs" ] || { echo "$mode: the reproducer did not fail every run"; status=1; }
    duration=$(echo "x = $longest * 10; if (x < $minimum) $minimum else x" | bc)
    "$out/locked" "$mode" "$threads" "$duration"
    code=$?
    [ "$code" -eq 0 ] || { echo "$mode, with the lock: failed (exit $code)"; status=1; }
done
exit $status
