#!/usr/bin/env bash
# The library's thumbnail job on two builds, in interleaved pairs: each pair runs
# `webimage-benchmark repeat IMAGE COUNT 1 source` (the job the image server runs for a request
# that names no format) with one build's benchmark, then the other's (every other pair in the
# reverse order), and reads each run's jobs a CPU-second. Prints each run, then the median of the
# pairs' ratios (A over B): whether the job moved between two commits, beside the server
# benchmark's uncached cells of the same commits.
#
#   scripts/job-pairs.sh BENCHMARK_A BENCHMARK_B [--pairs N] [--count COUNT] [--image PATH]
#   (defaults: 4 pairs, 1000 jobs, photos/rocket.jpg; PATH under the benchmark's test images)
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,10p "$0" >&2; exit 2; }
binary_a=$1 binary_b=$2
shift 2
pairs=4 count=1000 image=photos/rocket.jpg
while [ $# -gt 0 ]; do
    case "$1" in
        --pairs) pairs=$2 ;;
        --count) count=$2 ;;
        --image) image=$2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# One run: NAME BINARY; appends "NAME jobs-a-CPU-second" to the results.
measure() {
    local out
    out=$("$2" repeat "$image" "$count" 1 source)
    # "...: 715.0 jobs/s (CPU busy 1.00 cores, ...)": jobs a CPU-second is the rate over the cores.
    python3 - "$1" "$out" <<'PY' | tee -a "$results"
import re, sys
match = re.search(r"([0-9.]+) jobs/s \(CPU busy ([0-9.]+) cores", sys.argv[2])
if not match: sys.exit(f"no rate in: {sys.argv[2]}")
print(f"{sys.argv[1]} {float(match[1]) / float(match[2]):.1f}")
PY
}

for pair in $(seq "$pairs"); do
    echo "[$(date +%T)] pair $pair (load $(cut -d' ' -f1-3 /proc/loadavg))"
    if [ $((pair % 2)) -eq 1 ]; then measure A "$binary_a"; measure B "$binary_b"; else measure B "$binary_b"; measure A "$binary_a"; fi
done
python3 "$(dirname "$0")/pair-ratios.py" "$results" "jobs a CPU-second"
