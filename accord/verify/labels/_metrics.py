"""Metrics on step labels: MMReason's step score and ProcessBench's first-wrong-step F1.

MMReason's step score averages the step values per solution, then over solutions. ProcessBench's
F1 is the harmonic mean of the first-wrong-step accuracy on solutions with an error and on
solutions without one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from accord.verify.labels._formats import CORRECT, INCORRECT, UNVERIFIABLE, LabeledSolution


def mmreason_step_score(solutions: Sequence[LabeledSolution]) -> float | None:
    """MMReason's step score: each solution's mean step value, averaged over solutions."""
    scores = [s.step_score() for s in solutions]
    scores = [x for x in scores if x is not None]
    return float(np.mean(scores)) if scores else None


def match(pred: Sequence[LabeledSolution], ref: Sequence[LabeledSolution]) -> tuple[list[tuple], dict[str, int]]:
    """Pairs (pred, ref) with the same id and the same number of steps, and counts of what was skipped."""
    by_id = {s.id: s for s in ref}
    pairs, missing, mismatch = [], 0, 0
    for p in pred:
        r = by_id.get(p.id)
        if r is None:
            missing += 1
        elif len(r.steps) != len(p.steps):
            mismatch += 1
        else:
            pairs.append((p, r))
    return pairs, {
        "matched": len(pairs),
        "not_in_reference": missing,
        "step_count_mismatch": mismatch,
        "reference_unmatched": len(ref) - len(pairs),
    }


def first_wrong_f1(pairs: Sequence[tuple[LabeledSolution, LabeledSolution]]) -> dict[str, Any]:
    """ProcessBench's metric: accuracy of the first-wrong index on erroneous and on correct solutions, F1."""
    err = [(p.first_wrong(), r.first_wrong()) for p, r in pairs if r.first_wrong() >= 0]
    ok = [(p.first_wrong(), r.first_wrong()) for p, r in pairs if r.first_wrong() < 0]
    acc_err = float(np.mean([a == b for a, b in err])) if err else None
    acc_ok = float(np.mean([a == b for a, b in ok])) if ok else None
    if acc_err is None or acc_ok is None:
        f1 = None  # undefined without both kinds of solution
    else:
        f1 = 2 * acc_err * acc_ok / (acc_err + acc_ok) if acc_err + acc_ok > 0 else 0.0
    return {"error_accuracy": acc_err, "correct_accuracy": acc_ok, "f1": f1, "n_error": len(err), "n_correct": len(ok)}


def step_agreement(pairs: Sequence[tuple[LabeledSolution, LabeledSolution]]) -> dict[str, Any]:
    """Share of steps labelled in both where the labels agree, and the 3 × 3 confusion counts."""
    keys = (CORRECT, UNVERIFIABLE, INCORRECT)
    conf = np.zeros((3, 3), dtype=int)
    for p, r in pairs:
        for a, b in zip(p.labels, r.labels):
            if a is not None and b is not None:
                conf[keys.index(b), keys.index(a)] += 1
    n = int(conf.sum())
    return {
        "steps": n,
        "agreement": float(np.trace(conf) / n) if n else None,
        "confusion": {
            "rows_reference": ["correct", "unverifiable", "incorrect"],
            "columns_predicted": ["correct", "unverifiable", "incorrect"],
            "counts": conf.tolist(),
        },
    }


def score_labels(pred: Sequence[LabeledSolution], ref: Sequence[LabeledSolution]) -> dict[str, Any]:
    """Everything the step-label metrics say about predicted labels against reference labels."""
    pairs, counts = match(pred, ref)
    return {
        **counts,
        "first_wrong": first_wrong_f1(pairs),
        "steps": step_agreement(pairs),
        "mmreason_step_score": {
            "predicted": mmreason_step_score([p for p, _ in pairs]),
            "reference": mmreason_step_score([r for _, r in pairs]),
        },
    }
