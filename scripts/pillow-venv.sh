#!/usr/bin/env bash
# Installs Pillow, the coder benchmark's Python reference (scripts/pillow-benchmark.py, which
# `webimage-benchmark coders` and `job` run), in a Python virtual environment when it is not
# there yet: /opt/pillow-venv, or $WEBIMAGE_PILLOW_VENV. Pinned at the version the published
# figures were measured with (docs/performance.md). Idempotent; run it before the benchmark
# (the benchmark itself installs nothing: without it, Pillow's columns are left out).
set -euo pipefail
venv=${WEBIMAGE_PILLOW_VENV:-/opt/pillow-venv}
bash "$(dirname "$0")/pip-venv.sh" "$venv" pillow 13.0.0
