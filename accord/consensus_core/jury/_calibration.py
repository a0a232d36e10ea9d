"""Confidence that is a probability: the few-label jury's score recalibrated on its own labels.

The few-label jury's posterior is sure where the label-free model is sure, and the model is sure
wherever members agree, right or wrong. Its labels say how often that is so. Each labelled row
gets an out-of-fold score (the jury refitted without that fold's labels, so the row's own label
never scores it), and a logistic map on the score's log-odds (Platt scaling) is fitted to those
rows' outcomes. The map is shrunk toward the identity (a Gaussian prior of scale ``PRIOR_SD`` on
slope - 1 and intercept), so a few labels move the score a little and many labels move it as far
as they say. ``calibration_error`` is the expected calibration error (equal-width bins) used to
report how well it worked on rows whose reference was not read.

Labels chosen actively are rows where members disagree; the map learned there says little about
rows at an agreement level (the largest share of members giving one answer) that no label
reached, unanimous rows above all. Per level the map is blended with the score by the labels
seen at that level, w = k / (k + ``LEVEL_PSEUDO``): a level with no label keeps the score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, logit

from accord.consensus_core.jury._difficulty import fit_difficulty
from accord.consensus_core.jury._labels import fit_few_labels, pattern_groups
from accord.consensus_core.jury._vote import MISSING

FOLDS = 5
PRIOR_SD = 1.0
EPS = 1e-4
LEVEL_PSEUDO = 5.0


@dataclass(frozen=True)
class Calibration:
    slope: float
    intercept: float
    rows: int  # labelled rows the map was fitted on
    cross_fitted_error: float  # ECE of the out-of-fold scores before the map (on those rows)
    level_rows: tuple = ()  # (agreement level, labelled rows at it)

    def __call__(self, score, levels=None) -> np.ndarray:
        """The calibrated probability; with ``levels`` (each row's agreement level) blended with
        the score by the labels seen at the row's level."""
        s = np.clip(np.asarray(score, dtype=float), EPS, 1 - EPS)
        mapped = expit(self.slope * logit(s) + self.intercept)
        if levels is None:
            return mapped
        seen = dict(self.level_rows)
        k = np.array([seen.get(round(float(v), 3), 0) for v in np.asarray(levels, dtype=float)])
        w = k / (k + LEVEL_PSEUDO)
        return w * mapped + (1 - w) * np.asarray(score, dtype=float)

    def as_dict(self) -> dict:
        return {
            "method": "Platt scaling of out-of-fold scores, shrunk toward the identity",
            "rows": self.rows,
            "slope": self.slope,
            "intercept": self.intercept,
            "folds": FOLDS,
            "error_before_on_labels": self.cross_fitted_error,
            "labels_by_agreement_level": {f"{lv:g}": k for lv, k in self.level_rows},
            "level_pseudo_count": LEVEL_PSEUDO,
        }


def agreement_levels(codes) -> np.ndarray:
    """Per row the largest share of the answering members that gave one answer (0 when none answered)."""
    c = np.asarray(codes)
    present = c != MISSING
    top = np.zeros(c.shape[0])
    for j in range(c.shape[1]):
        same = ((c == c[:, [j]]) & present & present[:, [j]]).sum(axis=1)
        top = np.maximum(top, same)
    return np.round(np.where(present.any(axis=1), top / np.maximum(present.sum(axis=1), 1), 0.0), 3)


def platt(score, correct, prior_sd: float = PRIOR_SD) -> tuple[float, float]:
    """MAP slope and intercept of P(correct) = expit(slope * logit(score) + intercept)."""
    x = logit(np.clip(np.asarray(score, dtype=float), EPS, 1 - EPS))
    y = np.asarray(correct, dtype=float)

    def loss(w):
        z = w[0] * x + w[1]
        nll = np.sum(np.logaddexp(0, z) - y * z)
        return nll + ((w[0] - 1) ** 2 + w[1] ** 2) / (2 * prior_sd**2)

    res = minimize(loss, np.array([1.0, 0.0]), method="L-BFGS-B")
    return float(res.x[0]), float(res.x[1])


def out_of_fold_scores(codes, truth, labeled, seed: int = 0, label_free=None, folds: int = FOLDS):
    """(rows, score, correct): every labelled row scored by the jury fitted without its fold."""
    lab_rows = np.nonzero(labeled)[0]
    rng = np.random.default_rng(seed + 17)
    order = lab_rows[rng.permutation(lab_rows.size)]
    groups = pattern_groups(codes)
    score = np.zeros(lab_rows.size)
    correct = np.zeros(lab_rows.size, dtype=bool)
    pos = {r: k for k, r in enumerate(lab_rows)}
    for part in np.array_split(order, min(folds, max(lab_rows.size, 1))):
        if not part.size:
            continue
        train = labeled.copy()
        train[part] = False
        jury = fit_few_labels(codes, truth, train, seed, label_free=label_free, groups=groups)
        for r in part:
            score[pos[r]] = jury.confidence[r]
            correct[pos[r]] = jury.chosen[r] == truth[r] and jury.chosen[r] >= 0
    return lab_rows, score, correct


def calibrate(codes, truth, labeled, seed: int = 0, label_free=None) -> Calibration | None:
    """The map from the few-label jury's score to a probability of being right (None: too few labels)."""
    if int(np.sum(labeled)) < 2 * FOLDS:
        return None
    if label_free is None:  # one label-free fit starts every refit
        label_free = fit_difficulty(codes, seed=seed)
    _, score, correct = out_of_fold_scores(codes, truth, labeled, seed, label_free)
    slope, intercept = platt(score, correct)
    lv, counts = np.unique(agreement_levels(codes)[np.asarray(labeled, dtype=bool)], return_counts=True)
    levels = tuple((float(a), int(k)) for a, k in zip(lv, counts))
    return Calibration(slope, intercept, int(score.size), calibration_error(score, correct), levels)


def calibration_error(prob, correct, bins: int = 10) -> float:
    """Expected calibration error: sum over equal-width bins of |mean prob - share correct| x share of rows."""
    p = np.asarray(prob, dtype=float)
    y = np.asarray(correct, dtype=float)
    if p.size == 0:
        return float("nan")
    idx = np.minimum((p * bins).astype(int), bins - 1)
    err = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            err += m.mean() * abs(p[m].mean() - y[m].mean())
    return float(err)
