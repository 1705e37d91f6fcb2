#!/usr/bin/env bash
# Installs PACKAGE==VERSION from PyPI in the Python virtual environment VENV, unless it holds that
# version already (python3-venv comes from Debian). Usage: pip-venv.sh VENV PACKAGE VERSION.
# The test tools' scripts (pyimgproxy-venv.sh, otlp-venv.sh) name their package through it.
set -euo pipefail
venv=$1
package=$2
version=$3
if "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$package') != '$version')" 2>/dev/null; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$package==$version"
