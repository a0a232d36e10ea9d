"""Recorded run folders for the evaluation tests, written by a small step loop over score tables.

Not a test module. Each task has a hidden solution; the candidates for a context and the three
judges' raw scores are drawn from a generator seeded by (seed, context_id), exactly as the engine
seeds them, so chains that reach the same context share candidates and scores. Every decision is
taken by the consensus core's real policies and written with the run-folder trace schema. A good
candidate keeps the chain correct; one bad step makes the final answer wrong.

Run ``python tests/tracegen.py OUT_DIR`` to write a run folder.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from accord.consensus_core import ConsensusSpec, get_policy
from accord.verify.loop import context_id

JUDGES = ("grounding", "logic", "relevance")
LAMBDAS = (1.5, 1.0, 0.8)
CHAINS = {
    "verdict": {"name": "verdict", "tau": 0.6, "eps": 0.1},
    "mean": {"name": "mean"},
    "variance": {"name": "variance", "max_var": 0.01},
    "raw_average": {"name": "raw_average", "tau": 0.6, "eps": 0.1},
}


def _rng(seed: int, ctx: str) -> np.random.Generator:
    return np.random.default_rng(int(hashlib.sha1(f"{seed}:{ctx}".encode()).hexdigest()[:15], 16))


def _table(seed: int, task: int, ctx: str, depth: int, n: int, fail_p: float):
    """Candidates (text, good) and the n x 3 raw score table for one context."""
    rng = _rng(seed, ctx)
    p_good = 0.35 + 0.5 * ((task * 7919) % 10) / 10
    cands, good, raw = [], [], []
    length = 2 + task % 3
    for i in range(n):
        g = bool(rng.random() < p_good)
        final = depth + 1 >= length or (depth >= 1 and rng.random() < 0.2)
        tag = f"step {depth + 1}: {'sound' if g else 'flawed'} move #{int(rng.integers(1000))}"
        cands.append(tag + (" => final answer" if final else ""))
        good.append(g)
        a, b = (6.0, 2.0) if g else (2.5, 3.0)
        row = rng.beta(a, b, size=3)
        row[0] = rng.beta(a + 1, b) if g else rng.beta(b, a)  # the stubborn judge is the sharpest
        raw.append([None if rng.random() < fail_p else round(float(v), 4) for v in row])
    return cands, good, raw


def simulate_run(
    out_dir: str | Path,
    n_tasks: int = 12,
    seed: int = 0,
    n: int = 3,
    chains: dict | None = None,
    step_budget: int = 6,
    fail_p: float = 0.03,
) -> Path:
    """Write ``trace.jsonl``, ``summary.json`` and the verdict chain's true step labels; return the folder."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chains = dict(CHAINS if chains is None else chains)
    lines: list[str] = []
    truth: list[str] = []
    accuracy: dict[str, list[float]] = {}
    for t in range(n_tasks):
        task_id = f"task-{t:03d}"
        for label, pol in [*chains.items(), ("base", {"name": "base"})]:
            steps: list[str] = []
            sound: list[str] = []
            ok = True
            stopped = "step_budget"
            for depth in range(step_budget):
                ctx = context_id(task_id, steps)
                cands, good, raw = _table(seed, t, ctx, depth, n, fail_p)
                r = np.array([[np.nan if v is None else v for v in row] for row in raw])
                if pol["name"] == "base":
                    chosen, accepted, fallback = 0, [False] * n, False
                    cons = mean = disp = None
                else:
                    params = {k: v for k, v in pol.items() if k not in ("name", "lambdas")}
                    d = get_policy(pol["name"], **params).decide(r, ConsensusSpec(LAMBDAS))
                    chosen, accepted, fallback = int(d.chosen), [bool(a) for a in d.accepted], bool(d.fallback)
                    cons = [[None if np.isnan(v) else float(v) for v in row] for row in d.stats.consensus]
                    mean = [None if np.isnan(v) else float(v) for v in d.stats.mean]
                    disp = [None if np.isnan(v) else float(v) for v in d.stats.dispersion]
                step = cands[chosen]
                final = step.endswith("final answer")
                lines.append(
                    json.dumps(
                        {
                            "type": "step",
                            "task_id": task_id,
                            "chain": label,
                            "step": depth,
                            "context_id": ctx,
                            "candidates": cands,
                            "judges": list(JUDGES),
                            "lambdas": list(LAMBDAS),
                            "raw": raw,
                            "failures": [[("timeout" if v is None else None) for v in row] for row in raw],
                            "policy": {**pol, "lambdas": list(LAMBDAS)} if pol["name"] != "base" else pol,
                            "consensus": cons,
                            "mean": mean,
                            "dispersion": disp,
                            "accepted": accepted,
                            "chosen": chosen,
                            "fallback": fallback,
                            "final": final,
                            "timings": {
                                "generate_s": 0.01 * n,
                                "judge_s": {j: 0.002 for j in JUDGES},
                                "decide_s": 1e-4,
                            },
                            "tokens": {"generated": 12 * n, "judge_prompt": 40 * n},
                        }
                    )
                )
                steps.append(step)
                sound.append("correct" if good[chosen] else "incorrect")
                ok = ok and good[chosen]
                if final:
                    stopped = "final"
                    break
            correct = 1.0 if ok and stopped == "final" else 0.0
            lines.append(
                json.dumps(
                    {
                        "type": "task_end",
                        "task_id": task_id,
                        "chain": label,
                        "steps": steps,
                        "answer": str(40 + t) if correct else str(41 + t),
                        "reference": str(40 + t),
                        "correct": correct,
                        "stopped": stopped,
                    }
                )
            )
            accuracy.setdefault(label, []).append(correct)
            if label == "verdict":  # the hidden truth of each chosen step, as MMReason step labels
                truth.append(json.dumps({"id": task_id, "question": "", "steps": steps, "labels": sound}))
    (out / "trace.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if truth:
        (out / "labels_truth.jsonl").write_text("\n".join(truth) + "\n", encoding="utf-8")
    summary = {"accuracy": {k: float(np.mean(v)) for k, v in accuracy.items()}, "n_problems": n_tasks}
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return out


if __name__ == "__main__":
    simulate_run(sys.argv[1], n_tasks=int(sys.argv[2]) if len(sys.argv) > 2 else 12)
