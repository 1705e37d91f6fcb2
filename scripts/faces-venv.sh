#!/usr/bin/env bash
# Installs the reference the face detection tests compare against (OpenCV's own Python build,
# `opencv-python-headless` < 5: 5.0 dropped `CascadeClassifier`; Pillow for the decodes, numpy) in
# a Python virtual environment, when they are not there yet: /opt/faces-venv, or
# $WEBIMAGE_TEST_FACES_VENV. The face tests (Tests/WebImageTests/Faces) run
# Tests/Faces/face_reference.py in it, on the cascade files of Debian's opencv-data. Pinned at
# the versions pip resolved on Python 3.11; numpy and Pillow first, so that the later install
# keeps them. Idempotent; scripts/setup.sh runs it.
set -euo pipefail
venv=${WEBIMAGE_TEST_FACES_VENV:-/opt/faces-venv}
here=$(dirname "$0")
bash "$here/pip-venv.sh" "$venv" numpy 2.4.6
bash "$here/pip-venv.sh" "$venv" pillow 10.4.0
bash "$here/pip-venv.sh" "$venv" opencv-python-headless 4.14.0.94
