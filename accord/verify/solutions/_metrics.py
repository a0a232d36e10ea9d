"""How well step labels find the annotated first wrong step, per judge and per rule.

For each rule (each single judge, mean, verdict, mean_preserving, and the run's own policy):

- ProcessBench's metrics: accuracy of the prediction (first invalid step, -1 if none) on solutions
  with an annotated error and on correct ones, and their harmonic mean F1;
- step AUC: how well 1 − s ranks the annotated first wrong steps above the steps before them (and
  every step of a correct solution); a step no judge scored counts as s = 0.5; steps after the
  first wrong one are not labelled and not counted;
- precision of the invalid labels: the share at or after the annotated first error, and the share
  of correct solutions with any invalid step.

Each figure has a percentile bootstrap interval over solutions (resampled whole; computed for all
resamples at once as weighted counts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from accord.verify.solutions._labelling import INVALID, prediction, rule_stats, three_way

FIGURES = ("error_accuracy", "correct_accuracy", "f1", "step_auc", "invalid_at_or_after", "correct_with_invalid")


@dataclass(frozen=True)
class Annotated:
    """One solution's raw scores (steps, judges) and its annotated first wrong step (-1: none)."""

    raw: np.ndarray
    first_wrong: int


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _figures(w: np.ndarray, sol: dict, steps: dict) -> dict[str, np.ndarray]:
    """Every figure for solution weights ``w`` of shape (B, n): one value per row."""
    err, hit, n_inv, n_late = sol["erroneous"], sol["correct"], sol["n_invalid"], sol["n_late"]
    acc_e = _ratio(w @ (hit & err), w @ err)
    acc_c = _ratio(w @ (hit & ~err), w @ ~err)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(acc_e + acc_c > 0, 2 * acc_e * acc_c / (acc_e + acc_c), 0.0)
    f1 = np.where(np.isnan(acc_e) | np.isnan(acc_c), np.nan, f1)
    sw = w[:, steps["solution"]]  # (B, steps): each step weighs as its solution
    pos = sw @ steps["pos_onehot"]  # (B, K) weighted count of positive steps per score value
    neg = sw @ steps["neg_onehot"]
    below = np.cumsum(neg, axis=1) - neg
    auc = _ratio((pos * (below + 0.5 * neg)).sum(axis=1), pos.sum(axis=1) * neg.sum(axis=1))
    return {
        "error_accuracy": acc_e,
        "correct_accuracy": acc_c,
        "f1": f1,
        "step_auc": auc,
        "invalid_at_or_after": _ratio(w @ n_late, w @ n_inv),
        "correct_with_invalid": _ratio(w @ ((n_inv > 0) & ~err), w @ ~err),
    }


def _tables(solutions: Sequence[Annotated], rule: str, judges, lambdas, tau, eps, influence) -> tuple[dict, dict, int]:
    correct, erroneous, n_invalid, n_late = [], [], [], []
    step_err, step_pos, step_sol = [], [], []
    for i, s in enumerate(solutions):
        st = rule_stats(s.raw, rule, judges, lambdas, influence)
        labels = three_way(st, tau, eps)
        first = s.first_wrong
        correct.append(prediction(labels) == first)
        erroneous.append(first >= 0)
        invalid = [k for k, x in enumerate(labels) if x == INVALID]
        n_invalid.append(len(invalid))
        n_late.append(sum(k >= first for k in invalid) if first >= 0 else 0)
        upto = len(labels) if first < 0 else first + 1
        step_err.extend(1.0 - np.where(np.isnan(st.score[:upto]), 0.5, st.score[:upto]))
        step_pos.extend(k == first for k in range(upto))
        step_sol.extend([i] * upto)
    values, index = np.unique(np.round(np.asarray(step_err, dtype=float), 12), return_inverse=True)
    onehot = np.zeros((len(step_err), len(values)))
    onehot[np.arange(len(step_err)), index] = 1.0
    pos = np.asarray(step_pos, dtype=bool)
    sol = {
        "correct": np.array(correct, dtype=bool),
        "erroneous": np.array(erroneous, dtype=bool),
        "n_invalid": np.array(n_invalid, dtype=float),
        "n_late": np.array(n_late, dtype=float),
    }
    steps = {
        "solution": np.asarray(step_sol, dtype=int),
        "pos_onehot": onehot * pos[:, None],
        "neg_onehot": onehot * ~pos[:, None],
    }
    return sol, steps, int(sum(n_invalid))


def evaluate_rules(
    solutions: Sequence[Annotated],
    judges: Sequence[str],
    lambdas: Sequence[float],
    rules: Sequence[str],
    tau: float,
    eps: float,
    influence=None,
    n_boot: int = 1000,
    seed: int = 0,
) -> dict:
    """Every figure for every rule, with ``[low, high]`` 95% bootstrap intervals and the counts."""
    n = len(solutions)
    out = {
        "n_solutions": n,
        "n_erroneous": sum(s.first_wrong >= 0 for s in solutions),
        "n_steps_labelled": int(sum(len(s.raw) if s.first_wrong < 0 else s.first_wrong + 1 for s in solutions)),
        "rules": {},
    }
    rng = np.random.default_rng(seed)
    boot = (
        np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(n_boot)]).astype(float)
        if n and n_boot
        else np.zeros((0, n))
    )
    for rule in rules:
        sol, steps, n_invalid = _tables(solutions, rule, judges, lambdas, tau, eps, influence)
        point = {k: (None if np.isnan(v[0]) else float(v[0])) for k, v in _figures(np.ones((1, n)), sol, steps).items()}
        boots = _figures(boot, sol, steps) if len(boot) else {k: np.zeros(0) for k in FIGURES}
        intervals = {}
        for k in FIGURES:
            vals = boots[k][~np.isnan(boots[k])]
            intervals[k] = (
                [float(np.quantile(vals, 0.025)), float(np.quantile(vals, 0.975))]
                if len(vals) and point[k] is not None
                else None
            )
        out["rules"][rule] = {**point, "intervals": intervals, "n_invalid": n_invalid}
    return out
