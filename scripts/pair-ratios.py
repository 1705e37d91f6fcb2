#!/usr/bin/env python3
"""The summary of interleaved pairs of two builds' runs (scripts/hit-pairs.sh, job-pairs.sh).

Usage: scripts/pair-ratios.py RESULTS UNIT
  RESULTS: lines "A value" and "B value", one a run, A and B alternating by pair; UNIT names the
  value ("µs of CPU a hit"). Prints each build's median and the pairs' ratios (A over B).
"""
import statistics, sys

runs = [line.split() for line in open(sys.argv[1])]
unit = sys.argv[2]
a = [float(r[1]) for r in runs if r[0] == "A"]
b = [float(r[1]) for r in runs if r[0] == "B"]
ratios = sorted(x / y for x, y in zip(a, b))
print(f"A: median {statistics.median(a):.1f} {unit}; B: {statistics.median(b):.1f}")
print(f"A / B by pair: lowest {ratios[0]:.3f}, median {statistics.median(ratios):.3f}, highest {ratios[-1]:.3f}")
