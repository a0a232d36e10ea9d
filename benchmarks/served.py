"""Judging through a served endpoint, on SmolLM2-135M on this CPU; figures measured in one run.

On the same steps (contexts and candidates, fixed here) and the same model (the packaged
SmolLM2-135M-Instruct: float32 weights dequantised from its GGUF in-process, the GGUF itself under
llama.cpp's OpenAI-compatible server on a loopback port), three roles per candidate:

(a) judging throughput, served against in-process (accord's one-pass next-token scoring), in
    (role, candidate) scores per second, with the same number of CPU threads on both sides;
(b) served throughput with at most 1 and at most 4 requests in flight: whether the server
    serialises requests (llama-cpp-python's server runs one request at a time on one model);
(c) the same judging again, answered entirely from the call cache: requests made and time.

Run: python benchmarks/served.py [--steps 8] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the llama.cpp server launcher the tests use

ROLES = ("grounding", "logic", "relevance")


def steps(k: int):
    """k judging steps of 3 candidates each: a right step, an arithmetic slip, an off-topic line."""
    from accord.protocols import StepContext

    out = []
    for i in range(k):
        a, b = 12 + 7 * i, 5 + 3 * i
        ctx = StepContext(f"What is {a} + {b} - {i + 2}?", (f"{a} + {b} = {a + b}",) if i % 2 else ())
        cands = [f"{a + b} - {i + 2} = {a + b - i - 2}", f"{a + b} - {i + 2} = {a + b - i + 5}", "I enjoy long walks by the sea."]
        out.append((ctx, cands))
    return out


def judge_all(judges, work) -> tuple[float, list[list[float | None]]]:
    t0 = time.perf_counter()
    scores = [[s.value for col in judges.score_many(ctx, cands) for s in col] for ctx, cands in work]
    return time.perf_counter() - t0, scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2, help="CPU threads for torch and for the server")
    args = ap.parse_args()

    import numpy as np
    import torch

    from accord.adapters.llm import LLMJudges
    from accord.adapters.models import load_causal_lm
    from accord.adapters.served import Endpoint, Recorder, ServedJudges
    from llama_server import LlamaServer

    torch.set_num_threads(args.threads)
    work = steps(args.steps)
    n_scores = sum(len(c) for _, c in work) * len(ROLES)
    lm, tok = load_causal_lm("smollm2")
    local = LLMJudges(ROLES, lm=lm, tokenizer=tok)
    judge_all(local, work[:1])  # warm-up (first-call checks of the fast path)
    t_local, s_local = judge_all(LLMJudges(ROLES, lm=lm, tokenizer=tok), work)

    server = LlamaServer(extra=["--n_threads", str(args.threads), "--n_threads_batch", str(args.threads)]).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            url = server.base_url
            ServedJudges(Endpoint(url, "smollm2", cache=False), ROLES).score_many(*work[0])  # warm-up
            timings = {}
            for bound in (1, 4):
                timings[bound], s_served = judge_all(ServedJudges(Endpoint(url, "smollm2", max_concurrency=bound, cache=False), ROLES), work)
            cache = str(Path(tmp) / "calls.sqlite")
            t_fill, s_fill = judge_all(ServedJudges(Endpoint(url, "smollm2", max_concurrency=4, cache=cache), ROLES), work)
            with Recorder() as rec:
                t_cached, s_cached = judge_all(ServedJudges(Endpoint(url, "smollm2", max_concurrency=4, cache=cache), ROLES), work)
    finally:
        server.stop()

    a, b = np.array(s_local, dtype=float), np.array(s_served, dtype=float)
    agree = np.mean([np.argmax(x.reshape(len(ROLES), -1).mean(0)) == np.argmax(y.reshape(len(ROLES), -1).mean(0)) for x, y in zip(a, b)])
    print(f"{args.steps} steps x 3 candidates x {len(ROLES)} roles = {n_scores} scores; {args.threads} CPU threads each side")
    print(f"(a) in-process: {t_local:.2f} s = {n_scores / t_local:.1f} scores/s")
    print(f"    served (<= 4 in flight): {timings[4]:.2f} s = {n_scores / timings[4]:.1f} scores/s"
          f"  -> in-process / served throughput: {timings[4] / t_local:.2f}x")
    print(f"    same preferred candidate (mean over roles): {agree:.0%} of steps;"
          f" mean |served - local| score: {np.nanmean(np.abs(a - b)):.3f}")
    print(f"(b) served, <= 1 in flight: {timings[1]:.2f} s; <= 4 in flight: {timings[4]:.2f} s"
          f" -> speed-up {timings[1] / timings[4]:.2f}x ({'the server serialises requests' if timings[1] / timings[4] < 1.3 else 'requests overlap'})")
    same = s_cached == s_fill
    print(f"(c) re-run from the cache: {rec.tally.requests} requests made, {rec.tally.cached} answered from the cache,"
          f" {t_cached:.3f} s (filling it took {t_fill:.2f} s: {t_fill / max(t_cached, 1e-9):.0f}x); same scores: {same}")


if __name__ == "__main__":
    main()
