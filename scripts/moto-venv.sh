#!/usr/bin/env bash
# Installs moto's S3-compatible server (moto[server] from PyPI, with boto3 and botocore) in a
# Python virtual environment for the S3 source tests (S3SourceTests start it on loopback), when
# it is not there yet: /opt/moto-venv, or $WEBIMAGE_TEST_MOTO_VENV. Idempotent; scripts/setup.sh
# runs it (python3-venv comes from Debian).
set -euo pipefail
venv=${WEBIMAGE_TEST_MOTO_VENV:-/opt/moto-venv}
version=5.2.5
if "$venv/bin/python" -c "import moto, sys; sys.exit(moto.__version__ != '$version')" 2>/dev/null \
    && [ -x "$venv/bin/moto_server" ]; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "moto[server]==$version"
