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
MIN_LABELS = 2 * FOLDS  # fewer labels than this are too few to calibrate on
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


@dataclass(frozen=True)
class CrossFit:
    """Every labelled row as the jury saw it without its own label: the jury refitted without the
    row's fold chose ``chosen`` with score ``score`` (``correct``: it was right), and
    ``probability`` is that score mapped by the calibration fitted on the other folds."""

    rows: np.ndarray  # indices of the labelled rows
    fold: np.ndarray  # (rows,) the fold of each
    chosen: np.ndarray
    score: np.ndarray
    correct: np.ndarray
    probability: np.ndarray


def out_of_fold(codes, truth, labeled, seed: int = 0, label_free=None, folds: int = FOLDS) -> CrossFit:
    """Every labelled row scored by the jury fitted without its fold (the probability is filled in by
    :func:`calibrate`; here it is the score)."""
    lab = np.asarray(labeled, dtype=bool)
    lab_rows = np.nonzero(lab)[0]
    rng = np.random.default_rng(seed + 17)
    order = lab_rows[rng.permutation(lab_rows.size)]
    groups = pattern_groups(codes)
    pos = {r: k for k, r in enumerate(lab_rows)}
    fold = np.zeros(lab_rows.size, dtype=np.int64)
    chosen = np.full(lab_rows.size, MISSING, dtype=np.int64)
    score = np.zeros(lab_rows.size)
    correct = np.zeros(lab_rows.size, dtype=bool)
    for f, part in enumerate(np.array_split(order, min(folds, max(lab_rows.size, 1)))):
        if not part.size:
            continue
        train = lab.copy()
        train[part] = False
        jury = fit_few_labels(codes, truth, train, seed, label_free=label_free, groups=groups)
        for r in part:
            k = pos[r]
            fold[k], chosen[k] = f, jury.chosen[r]
            score[k] = jury.confidence[r] if jury.chosen[r] != MISSING else 0.0
            correct[k] = jury.chosen[r] == truth[r] and jury.chosen[r] >= 0
    return CrossFit(lab_rows, fold, chosen, score, correct, score.copy())


def out_of_fold_scores(codes, truth, labeled, seed: int = 0, label_free=None, folds: int = FOLDS):
    """(rows, score, correct): every labelled row scored by the jury fitted without its fold."""
    fit = out_of_fold(codes, truth, labeled, seed, label_free, folds)
    return fit.rows, fit.score, fit.correct


def _levels(codes, labeled) -> tuple:
    lv, counts = np.unique(agreement_levels(codes)[np.asarray(labeled, dtype=bool)], return_counts=True)
    return tuple((float(a), int(k)) for a, k in zip(lv, counts))


def calibrate(codes, truth, labeled, seed: int = 0, label_free=None) -> Calibration | None:
    """The map from the few-label jury's score to a probability of being right (None: too few labels)."""
    return calibrate_cross_fitted(codes, truth, labeled, seed, label_free)[0]


def calibrate_cross_fitted(
    codes, truth, labeled, seed: int = 0, label_free=None
) -> tuple[Calibration | None, CrossFit | None]:
    """The calibration map, fitted on every labelled row's out-of-fold score (None: fewer than
    ``MIN_LABELS`` labels), and the labelled rows as the jury saw them without their labels (None:
    fewer than two), each probability from a map fitted on the other folds' rows (the score itself
    when there are too few labels to calibrate)."""
    lab = np.asarray(labeled, dtype=bool)
    if int(lab.sum()) < 2:
        return None, None
    if label_free is None:  # one label-free fit starts every refit
        label_free = fit_difficulty(codes, seed=seed)
    fit = out_of_fold(codes, truth, lab, seed, label_free)
    if int(lab.sum()) < MIN_LABELS:
        return None, fit
    slope, intercept = platt(fit.score, fit.correct)
    before = calibration_error(fit.score, fit.correct)
    cal = Calibration(slope, intercept, int(fit.score.size), before, _levels(codes, lab))
    levels = agreement_levels(codes)[fit.rows]
    probability = np.zeros(fit.rows.size)
    for f in np.unique(fit.fold):
        mine = fit.fold == f
        other = ~mine
        s, b = platt(fit.score[other], fit.correct[other])
        train = np.zeros(lab.size, dtype=bool)
        train[fit.rows[other]] = True
        fold_map = Calibration(s, b, int(other.sum()), 0.0, _levels(codes, train))
        probability[mine] = fold_map(fit.score[mine], levels[mine])
    probability = np.where(fit.chosen == MISSING, 0.0, probability)
    return cal, CrossFit(fit.rows, fit.fold, fit.chosen, fit.score, fit.correct, probability)


def equal_width_bins(prob, bins: int = 10) -> np.ndarray:
    """Each probability's bin among ``bins`` equal-width bins of [0, 1]."""
    p = np.asarray(prob, dtype=float)
    return np.minimum((p * bins).astype(int), bins - 1)


def equal_count_bins(prob, bins: int = 10) -> np.ndarray:
    """Each probability's bin among ``bins`` bins of about equal row counts, cut at the quantiles of
    the probabilities; rows of one probability always share a bin (so a value that covers a third
    of the rows is one bin, not three bins cut by row order), and a bin left empty is dropped."""
    p = np.asarray(prob, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=np.int64)
    edges = np.quantile(p, np.linspace(0, 1, bins + 1)[1:-1])
    return np.searchsorted(edges, p, side="right")


def _ece(p: np.ndarray, y: np.ndarray, idx: np.ndarray) -> float:
    if p.size == 0:
        return float("nan")
    return float(sum((idx == b).mean() * abs(p[idx == b].mean() - y[idx == b].mean()) for b in np.unique(idx)))


def calibration_error(prob, correct, bins: int = 10) -> float:
    """Expected calibration error: sum over equal-width bins of |mean prob - share correct| x share of rows."""
    p = np.asarray(prob, dtype=float)
    return _ece(p, np.asarray(correct, dtype=float), equal_width_bins(p, bins))


def calibration_error_count(prob, correct, bins: int = 10) -> float:
    """The same over bins of about equal row counts (:func:`equal_count_bins`): it weighs every part
    of the range by its rows, so a band of rows whose confidence says little shows even where the
    equal-width bins average it away."""
    p = np.asarray(prob, dtype=float)
    return _ece(p, np.asarray(correct, dtype=float), equal_count_bins(p, bins))


def reliability_table(prob, correct, bins: int = 10) -> dict:
    """The reliability table of probabilities against outcomes: for equal-width and equal-count
    bins, each bin's range, rows, mean probability and share right, and the expected calibration
    error over them."""
    p = np.asarray(prob, dtype=float)
    y = np.asarray(correct, dtype=float)
    out: dict = {"rows": int(p.size), "bins": bins}
    for name, idx in (("equal_width", equal_width_bins(p, bins)), ("equal_count", equal_count_bins(p, bins))):
        table = []
        for b in np.unique(idx):
            m = idx == b
            lo, hi = (b / bins, (b + 1) / bins) if name == "equal_width" else (float(p[m].min()), float(p[m].max()))
            table.append(
                {
                    "low": float(lo),
                    "high": float(hi),
                    "rows": int(m.sum()),
                    "confidence": float(p[m].mean()),
                    "accuracy": float(y[m].mean()),
                }
            )
        out[name] = {"ece": _ece(p, y, idx), "table": table}
    return out
