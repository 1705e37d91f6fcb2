#!/usr/bin/env bash
# Installs the reference implementations the image analysis tests compare against (BlurHash's
# `blurhash`, ThumbHash's `thumbhash-python`, `imagehash` for the perceptual hash, Pillow for its
# median cut palette and decodes, numpy) in a Python virtual environment, when they are not there
# yet: /opt/analysis-venv, or $WEBIMAGE_TEST_ANALYSIS_VENV. The analysis tests
# (Tests/WebImageTests/Analysis) run Tests/Analysis/analysis_reference.py in it. Pinned at the
# versions pip resolved for these five on Python 3.11 (thumbhash-python wants Pillow < 11);
# numpy and Pillow first, so that the later installs keep them. Idempotent; scripts/setup.sh runs it.
set -euo pipefail
venv=${WEBIMAGE_TEST_ANALYSIS_VENV:-/opt/analysis-venv}
here=$(dirname "$0")
bash "$here/pip-venv.sh" "$venv" numpy 2.4.6
bash "$here/pip-venv.sh" "$venv" pillow 10.4.0
bash "$here/pip-venv.sh" "$venv" blurhash 1.1.5
bash "$here/pip-venv.sh" "$venv" thumbhash-python 1.0.1
bash "$here/pip-venv.sh" "$venv" ImageHash 4.3.2
