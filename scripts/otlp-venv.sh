#!/usr/bin/env bash
# Installs OpenTelemetry's protocol definitions (opentelemetry-proto from PyPI, with protobuf) in a
# Python virtual environment for the trace export test (ServeTracingTests runs
# Tests/OTLP/otlp_receiver.py, an OTLP/HTTP receiver on loopback that decodes what `webimage
# serve` exports), when it is not there yet: /opt/otlp-venv, or $WEBIMAGE_TEST_OTLP_VENV.
# Idempotent; scripts/setup.sh runs it.
set -euo pipefail
exec bash "$(dirname "$0")/pip-venv.sh" "${WEBIMAGE_TEST_OTLP_VENV:-/opt/otlp-venv}" opentelemetry-proto 1.39.1
