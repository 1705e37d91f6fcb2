#!/usr/bin/env bash
# Installs pyimgproxy (PyPI; BSD-3-Clause, by the Developer Society), a third-party imgproxy URL
# builder that signs with imgproxy's key and salt, in a Python virtual environment for the
# migration test (ImgproxyMigrationTests builds its signed URLs with it, not with our signer),
# when it is not there yet: /opt/pyimgproxy-venv, or $WEBIMAGE_TEST_PYIMGPROXY_VENV. Idempotent;
# scripts/setup.sh runs it.
set -euo pipefail
exec bash "$(dirname "$0")/pip-venv.sh" "${WEBIMAGE_TEST_PYIMGPROXY_VENV:-/opt/pyimgproxy-venv}" pyimgproxy 0.4
