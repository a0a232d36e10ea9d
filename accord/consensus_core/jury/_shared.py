"""Panels whose weak members share wrong answers: the case agreement cannot see through.

A bloc of weak members copies one leader answer per problem (right with the bloc's accuracy,
otherwise a wrong answer the bloc shares); strong members answer on their own and their wrong
answers are their own. The bloc agrees with itself far more than its accuracy explains, so any
estimator that reads accuracy from agreement ranks the bloc above the strong members. These
panels test that the jury makes no label-free claim such a panel would make wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SharedErrorPanel:
    codes: np.ndarray  # (n, M) class codes; class 0 is the right answer on every row
    accuracy: np.ndarray  # (M,) the members' realised accuracies
    best: int  # the member with the highest realised accuracy


def shared_error_panel(strong, weak: float, bloc: int, copy: float, n: int, seed: int = 0) -> SharedErrorPanel:
    """``strong``: accuracies of the independent members; ``bloc`` weak members of accuracy
    ``weak`` copy the bloc leader's answer with probability ``copy`` (else answer on their own)."""
    rng = np.random.default_rng(seed)
    strong = np.atleast_1d(np.asarray(strong, dtype=float))
    cols = []
    fresh = iter(range(2, 10**9))  # wrong answers nobody shares; 1 is the bloc's shared wrong answer
    for a in strong:
        right = rng.random(n) < a
        cols.append(np.array([0 if r else next(fresh) for r in right]))
    leader = np.where(rng.random(n) < weak, 0, 1)
    for _ in range(bloc):
        own = np.array([0 if r else next(fresh) for r in rng.random(n) < weak])
        cols.append(np.where(rng.random(n) < copy, leader, own))
    codes = np.stack(cols, axis=1).astype(np.int64)
    acc = (codes == 0).mean(axis=0)
    return SharedErrorPanel(codes, acc, int(np.argmax(acc)))
