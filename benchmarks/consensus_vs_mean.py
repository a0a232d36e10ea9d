"""When does the consensus beat Mean? Simulated panels whose design is written down (docs/consensus.md).

Each simulated step has n = 5 candidates, each right with probability 0.4, independently. The
panel (m = 4 columns, as in the built-in run: an exact check, two weak LLM-like judges, one more):

- ``check``: 1 for a right candidate and 0 for a wrong one with probability 0.9 (else flipped);
  abstains (no score) on 30% of candidates;
- ``weak_a``, ``weak_b``: 0.35 + 0.08 * right + N(0, 0.08), clipped to [0, 1] (P(yes) of a small LM);
- ``confident``: like ``check`` but on a share q of the steps confidently wrong: it gives 1.0 to
  every wrong candidate and 0.0 to every right one.

Each rule picks one candidate per step; a step counts as right when the pick is right. Rules: Mean
(raw mean of the judges that scored), VERDICT on raw scores (τ 0.6, ε 0.1; λ 1.5, 1, 0.8, 1.5),
VERDICT with the judges on the quantile scale (fitted label-free on the simulated scores, τ, ε set
for a target acceptance of 0.3), Mean on that scale (the scale alone, without the consensus), and
the best single judge. Differences are paired over steps
(bootstrap interval over steps, exact McNemar). q = 0 is the panel of equal-enough judges; q > 0 is
one judge confidently wrong on a share of steps.

Run: python benchmarks/consensus_vs_mean.py [--steps 4000] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accord.consensus_core import ConsensusSpec, get_policy
from accord.verify.analysis import bootstrap_ci, mcnemar
from accord.verify.loop import JudgeScale

N, P_RIGHT, LAMBDAS = 5, 0.4, (1.5, 1.0, 0.8, 1.5)
NAMES = ("check", "weak_a", "weak_b", "confident")


def simulate(steps: int, q: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Scores (steps, n, 4) with NaN for abstentions, and which candidates are right (steps, n)."""
    right = rng.random((steps, N)) < P_RIGHT
    flip = rng.random((steps, N)) < 0.1
    check = np.where(right ^ flip, 1.0, 0.0)
    check[rng.random((steps, N)) < 0.3] = np.nan
    weak = [np.clip(0.35 + 0.08 * right + rng.normal(0, 0.08, (steps, N)), 0, 1) for _ in range(2)]
    flip2 = rng.random((steps, N)) < 0.1
    conf = np.where(right ^ flip2, 1.0, 0.0)
    wrong_steps = rng.random(steps) < q
    conf[wrong_steps] = np.where(right[wrong_steps], 0.0, 1.0)
    return np.stack([check, *weak, conf], axis=-1), right


def picks(raw: np.ndarray, right: np.ndarray, spec: ConsensusSpec) -> dict[str, np.ndarray]:
    out = {}
    d = get_policy("mean").decide(raw, spec)
    out["mean"] = d.chosen
    out["verdict_raw"] = get_policy("verdict", tau=0.6, eps=0.1).decide(raw, spec).chosen
    flat = raw.reshape(-1, raw.shape[-1])
    scale = JudgeScale("quantile", NAMES).fit(flat)
    th = scale.set_thresholds(flat, spec, target_rate=0.3)
    scaled = scale.apply(raw)
    dv = get_policy("verdict", tau=th["tau"], eps=th["eps"]).decide(scaled, spec)
    out["verdict_scaled"] = dv.chosen
    out["mean_scaled"] = get_policy("mean").decide(scaled, spec).chosen  # the scale alone, no consensus
    out["_fired"] = ~dv.fallback
    for j, name in enumerate(NAMES):
        out[f"single:{name}"] = get_policy("single_judge", judge=j).decide(raw, spec).chosen
    return {k: (right[np.arange(len(right)), np.maximum(v, 0)] if not k.startswith("_") else v) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    spec = ConsensusSpec(LAMBDAS)
    print(
        "| q (share of steps the confident judge is wrong) | Mean | VERDICT raw | VERDICT on scale (fired) | "
        "Mean on scale | best single judge | VERDICT on scale − Mean [95% CI], McNemar p | "
        "VERDICT on scale − Mean on scale | VERDICT raw − Mean |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for q in (0.0, 0.1, 0.2, 0.3):
        raw, right = simulate(args.steps, q, np.random.default_rng(args.seed))
        ok = picks(raw, right, spec)
        singles = {k: v.mean() for k, v in ok.items() if k.startswith("single:")}
        best = max(singles, key=singles.get)

        def diff(a, b):
            x = ok[a].astype(float) - ok[b].astype(float)
            lo, hi = bootstrap_ci(x, 2000, seed=0)
            p = mcnemar(ok[a].astype(float), ok[b].astype(float))["p_value"]
            return f"{x.mean():+.3f} [{lo:+.3f}, {hi:+.3f}], p = {p:.2g}"

        print(
            f"| {q:.1f} | {ok['mean'].mean():.3f} | {ok['verdict_raw'].mean():.3f} | "
            f"{ok['verdict_scaled'].mean():.3f} ({ok['_fired'].mean():.2f}) | {ok['mean_scaled'].mean():.3f} | "
            f"{singles[best]:.3f} ({best[7:]}) | {diff('verdict_scaled', 'mean')} | "
            f"{diff('verdict_scaled', 'mean_scaled')} | {diff('verdict_raw', 'mean')} |"
        )


if __name__ == "__main__":
    main()
