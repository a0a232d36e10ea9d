#!/usr/bin/env bash
# What the tests need beyond scripts/setup.sh: llama.cpp's OpenAI-compatible server (the served-model
# tests start it on a loopback port with the packaged SmolLM2 GGUF). Building it compiles llama.cpp
# (about 5 minutes on 2 cores), so it is installed here and not by the main setup. Without it the
# served-model tests fail (they are not skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! .venv/bin/python -c "import llama_cpp.server" >/dev/null 2>&1; then
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" .venv/bin/python -m pip install -q -e ".[server-tests]"
fi
