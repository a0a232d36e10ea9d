#!/usr/bin/env bash
# What the tests need beyond scripts/setup.sh: llama.cpp's OpenAI-compatible server (the served-model
# tests start it on a loopback port with the packaged SmolLM2 GGUF). Building it compiles llama.cpp
# (about 5 minutes on 2 cores), so it is installed here and not by the main setup. Without it the
# served-model tests fail (they are not skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
# `accord view` is tested in a real headless browser: Debian's chromium, driven by chromedriver
# through selenium (the dev extra). Installed when running as root with apt; without them the
# browser tests of tests/test_view.py fail (they are not skipped).
if ! { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } \
    && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium chromium-driver >/dev/null 2>&1; } \
    || echo "setup_test: chromium could not be installed; the browser tests of accord view will fail" >&2
fi
if ! .venv/bin/python -c "import llama_cpp.server" >/dev/null 2>&1; then
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" .venv/bin/python -m pip install -q -e ".[server-tests]"
fi
