"""Estimated stubbornness vs the paper's hand-set λ: simulated judges and replay of recorded runs.

python benchmarks/reliability.py
"""

from __future__ import annotations

from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.consensus_core import ConsensusSpec, calibrate_thresholds, estimate_stubbornness, get_policy

PAPER = (1.5, 1.0, 0.8)
RUNS = Path(__file__).resolve().parents[1] / "examples" / "runs"


def simulated(noise, steps=3000, n=3, seed=0):
    rng = np.random.default_rng(seed)
    good = (rng.random((steps, n)) < 0.4).astype(float)
    latent = 0.45 + 0.3 * (good - 0.5) + rng.normal(0, 0.08, (steps, n))
    raw = np.clip(latent[..., None] + rng.normal(0, 1, (steps, n, len(noise))) * np.asarray(noise), 0, 1)
    return good, raw


def accuracy(raw, good, lam, **kw) -> float:
    d = get_policy("verdict", **kw).decide(raw, ConsensusSpec(tuple(lam)))
    return float(np.mean(good[np.arange(len(good)), d.chosen]))


def main() -> None:
    print("simulated judges (noise s.d. per judge) -> verdict selection accuracy")
    for noise in ((0.05, 0.15, 0.3), (0.3, 0.15, 0.05), (0.25, 0.05, 0.15), (0.1, 0.1, 0.1)):
        good, raw = simulated(noise)
        est = estimate_stubbornness(raw, n_boot=100)
        th = calibrate_thresholds(raw, est.lambdas, target_rate=0.3)
        print(
            f"  noise {noise}: reliability {np.round(est.reliability, 3)}, λ {np.round(est.lambdas, 2)} "
            f"(CI low {np.round(est.lambdas_ci[:, 0], 2)}, high {np.round(est.lambdas_ci[:, 1], 2)}); "
            f"hand-set {accuracy(raw, good, PAPER):.4f}, equal {accuracy(raw, good, (1, 1, 1)):.4f}, "
            f"estimated {accuracy(raw, good, tuple(est.lambdas)):.4f}, "
            f"estimated + label-free τ={th.tau:.3f}, ε={th.eps:.3f}: "
            f"{accuracy(raw, good, tuple(est.lambdas), tau=th.tau, eps=th.eps):.4f}"
        )
    from accord.verify.analysis import ContextTree, make_spec, read_trace, replay

    print("replay of recorded runs (accuracy among exactly replayed tasks; bounds over diverged ones)")
    for run in sorted(p.parent for p in RUNS.glob("*/trace.jsonl")):
        trace = read_trace(run / "trace.jsonl")
        raw = np.concatenate([s.raw for s in trace.steps])
        est = estimate_stubbornness(raw, n_boot=100)
        tree = ContextTree.from_trace(trace)
        hand = tuple(trace.steps[0].lambdas)
        print(
            f"  {run.name}: judges {list(trace.steps[0].judges)}, hand-set λ {hand}, estimated λ "
            f"{np.round(est.lambdas, 2).tolist()}"
        )
        for label, lam in (("hand-set", hand), ("estimated", tuple(float(x) for x in est.lambdas))):
            s = replay(trace, make_spec("verdict", lambdas=lam), tree).summary()
            print(
                f"    {label:9s}: tasks {s['n_tasks']}, exact {s['exact']}, diverged {s['diverged']}, "
                f"accuracy exact {s['accuracy_exact']}, bounds [{s['accuracy_low']:.3f}, {s['accuracy_high']:.3f}]"
            )


if __name__ == "__main__":
    with _machine.Run():
        main()
