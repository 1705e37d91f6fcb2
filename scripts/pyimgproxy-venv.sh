#!/usr/bin/env bash
# Installs pyimgproxy (PyPI; BSD-3-Clause, by the Developer Society), a third-party imgproxy URL
# builder that signs with imgproxy's key and salt, in a Python virtual environment for the
# migration test (ImgproxyMigrationTests builds its signed URLs with it, not with our signer),
# when it is not there yet: /opt/pyimgproxy-venv, or $WEBIMAGE_TEST_PYIMGPROXY_VENV. Idempotent;
# scripts/setup.sh runs it (python3-venv comes from Debian).
set -euo pipefail
venv=${WEBIMAGE_TEST_PYIMGPROXY_VENV:-/opt/pyimgproxy-venv}
version=0.4
if "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('pyimgproxy') != '$version')" 2>/dev/null; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "pyimgproxy==$version"
