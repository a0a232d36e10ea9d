"""Which rows a person should label: the few-label jury's active choice, made before any answer.

:func:`accord.consensus_core.jury._labels.choose_labels` reads each label as soon as it picks a
row, so a simulation can refit as it goes. A person labels a batch, so here the same value is
used without reading labels: a problem of the pattern whose decision a label is most likely to
change, E[max_b theta_b - theta_chosen] under the pattern's posterior, times its unlabelled
problems, divided by the labels it already has (given ones and those picked for this batch) + 1.
Picking a row of a pattern lowers that pattern's value, so a batch spreads over the patterns in
proportion to what their labels are worth. Rows that already have a reference count as labelled.
"""

from __future__ import annotations

import numpy as np

from accord.consensus_core.jury._difficulty import DifficultyFit, fit_difficulty, truth_slots
from accord.consensus_core.jury._labels import _table, expected_regret, kappa_weights, pattern_groups, posterior_mean
from accord.consensus_core.jury._weighted import check_codes


def rows_to_label(
    codes, count: int, truth=None, labeled=None, seed: int = 0, model: DifficultyFit | None = None
) -> np.ndarray:
    """Indices of the ``count`` rows whose labels are worth most, most valuable first."""
    c = check_codes(codes)
    n, M = c.shape
    lab = np.zeros(n, dtype=bool) if labeled is None else np.asarray(labeled, dtype=bool).copy()
    t = np.full(n, -2, dtype=np.int64) if truth is None else np.asarray(truth)
    count = int(min(max(count, 0), int((~lab).sum())))
    if model is None:
        model = fit_difficulty(c, seed=seed, truth=t, labeled=lab) if lab.any() else fit_difficulty(c, seed=seed)
    table = _table(pattern_groups(c), truth_slots(c, t, lab), lab, model, M)
    weights = kappa_weights(table)
    regret_rng = np.random.default_rng(0)
    rng = np.random.default_rng(seed)
    value, pool, given = [], [], []
    for g, prior, counts in table:
        open_rows = g.rows[~lab[g.rows]]
        worth = 0.0
        if len(open_rows) and len(g.blocks) >= 2:
            decision = int(np.argmax(posterior_mean(prior, counts, weights)[:-1]))
            worth = expected_regret(prior, counts, weights, decision, regret_rng)
        value.append(worth)
        pool.append(list(rng.permutation(open_rows)))
        given.append(float(counts.sum()))
    picked: list[int] = []
    while len(picked) < count:
        scores = [value[k] * len(pool[k]) / (given[k] + 1.0) if pool[k] else -1.0 for k in range(len(pool))]
        k = int(np.argmax(scores))
        if scores[k] <= 0:  # only unanimous or unanswered patterns left: any row will do
            rest = np.setdiff1d(np.nonzero(~lab)[0], picked)
            picked += list(rng.permutation(rest)[: count - len(picked)])
            break
        picked.append(int(pool[k].pop()))
        given[k] += 1.0
    return np.array(picked, dtype=np.int64)
