"""Which rows a person should label: the few-label jury's active choice, made before any answer.

:func:`accord.consensus_core.jury._labels.choose_labels` reads each label as soon as it picks a
row, so a simulation can refit as it goes. A person labels a batch, so here the same value is
used without reading labels: a problem of the pattern whose decision a label is most likely to
change, E[max_b theta_b - theta_chosen] under the pattern's posterior, times its unlabelled
problems, divided by the labels it already has (given ones and those picked for this batch) + 1.
Picking a row of a pattern lowers that pattern's value, so a batch spreads over the patterns in
proportion to what their labels are worth. Rows that already have a reference count as labelled.

``choice`` as in :func:`accord.consensus_core.jury._labels.choose_labels`: ``mixed`` (the default)
draws ``RANDOM_SHARE`` of the rows asked at random first and counts them as labelled for the
active part; ``random`` draws them all at random.
"""

from __future__ import annotations

import numpy as np

from accord.consensus_core.jury._difficulty import DifficultyFit, fit_difficulty, truth_slots
from accord.consensus_core.jury._labels import (
    LABEL_CHOICES,
    _table,
    expected_regret,
    kappa_weights,
    pattern_groups,
    posterior_mean,
    random_part,
)
from accord.consensus_core.jury._weighted import check_codes


def rows_to_label(
    codes,
    count: int,
    truth=None,
    labeled=None,
    seed: int = 0,
    model: DifficultyFit | None = None,
    choice: str = "active",
) -> np.ndarray:
    """Indices of the ``count`` rows to label (never one that has a label): the random part first,
    then the active part, most valuable first."""
    if choice not in LABEL_CHOICES:
        raise ValueError(f"label choice must be one of {', '.join(LABEL_CHOICES)}, got {choice!r}")
    c = check_codes(codes)
    n, M = c.shape
    lab = np.zeros(n, dtype=bool) if labeled is None else np.asarray(labeled, dtype=bool).copy()
    t = np.full(n, -2, dtype=np.int64) if truth is None else np.asarray(truth)
    count = int(min(max(count, 0), int((~lab).sum())))
    drawn = count if choice == "random" else random_part(count) if choice == "mixed" else 0
    first = np.random.default_rng(seed + 1).permutation(np.nonzero(~lab)[0])[:drawn]
    if drawn == count:
        return first.astype(np.int64)
    asked = np.zeros(n, dtype=bool)
    asked[first] = True  # counted as labelled for the active part (their answers are not known yet)
    rest = _active_rows(c, count - drawn, t, lab, asked, seed, model)
    return np.concatenate([first, rest]).astype(np.int64)


def _active_rows(c, count: int, t, lab, asked, seed: int, model) -> np.ndarray:
    """The active part: rows of the patterns whose decisions labels would most likely change."""
    n, M = c.shape
    if model is None:
        model = fit_difficulty(c, seed=seed, truth=t, labeled=lab) if lab.any() else fit_difficulty(c, seed=seed)
    table = _table(pattern_groups(c), truth_slots(c, t, lab), lab, model, M)
    weights = kappa_weights(table)
    regret_rng = np.random.default_rng(0)
    rng = np.random.default_rng(seed)
    value, pool, given = [], [], []
    for g, prior, counts in table:
        open_rows = g.rows[~lab[g.rows] & ~asked[g.rows]]
        worth = 0.0
        if len(open_rows) and len(g.blocks) >= 2:
            decision = int(np.argmax(posterior_mean(prior, counts, weights)[:-1]))
            worth = expected_regret(prior, counts, weights, decision, regret_rng)
        value.append(worth)
        pool.append(list(rng.permutation(open_rows)))
        given.append(float(counts.sum() + asked[g.rows].sum()))
    picked: list[int] = []
    while len(picked) < count:
        scores = [value[k] * len(pool[k]) / (given[k] + 1.0) if pool[k] else -1.0 for k in range(len(pool))]
        k = int(np.argmax(scores))
        if scores[k] <= 0:  # only unanimous or unanswered patterns left: any row will do
            rest = np.setdiff1d(np.nonzero(~lab & ~asked)[0], picked)
            picked += list(rng.permutation(rest)[: count - len(picked)])
            break
        picked.append(int(pool[k].pop()))
        given[k] += 1.0
    return np.array(picked, dtype=np.int64)
