"""Answers with a guaranteed error rate: a confidence threshold certified on labelled rows.

The jury answers a row when its confidence is at least a threshold and abstains otherwise. The
threshold is chosen by Learn-then-Test (Angelopoulos et al., 2021) with fixed-sequence testing:
the candidate thresholds, from the highest confidence down, are tested one after another; the
null hypothesis at threshold t is "the error among rows with confidence >= t exceeds alpha",
tested on the e_t errors among the n_t calibration rows at or above t with a p-value from
:mod:`accord.consensus_core.jury._risk_bounds` (the exact hypergeometric tail over the file's
rows, the binomial tail, or Hoeffding–Bentkus).
Testing stops at the first threshold that is not rejected; the lowest rejected one is used. A
fixed sequence needs no multiplicity correction, so with probability at least 1 - delta over the
calibration rows the error rate among the answered rows of the population is at most alpha.

Where the sequence starts decides its power. Started at the fewest rows that could certify at
all (``clopper-pearson``, the first rule: n_t rows with no error allowed), one wrong answer among
the dozen most confident labelled rows stops it before it reaches a useful coverage. The other
rules start deeper: at the most rows, within the most confident ``START_SHARE`` of the labelled
rows, whose test still tolerates the most errors. That start depends on the number of labelled
rows and their confidences only, never on their labels.

Where the labels fall decides the rest. Drawn from every row, about as many land among rows the
rule will never answer as among the confident ones it tests. ``candidates`` (a mask fixed before
any label is read, from the confidences alone) says which rows the rule may answer: the labels
are drawn among them and only thresholds that keep within them are tested, so every label counts
where the answer is decided. With the ``hypergeometric`` test (the default) the null at t is
"more than alpha of the file's candidate rows at or above t are answered wrongly", exact for a
finite file whose rows were labelled without replacement; the statement certified is about those
rows, labelled ones included (their answers scored as the rule gave them).

What this needs, and why it holds:

- the calibration rows are a random sample of the rows (drawn at random, not chosen actively
  and not the easy ones): given n_t, their errors are then Binomial(n_t, error rate above t);
- the confidence does not depend on their labels (a label-free rule's posterior, say), so
  calibration and unlabelled rows are exchangeable;
- the candidate thresholds and the start come from the confidences alone (never the labels).

The guarantee is on the error rate (the expectation); the realised error on a finite set of
answered rows scatters around it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta as beta_dist
from scipy.stats import binom

from accord.consensus_core.jury._risk_bounds import PVALUES, hypergeometric_pvalue, hypergeometric_upper, upper_bound
from accord.consensus_core.jury._risk_names import CANDIDATE_SHARE, RISK_BOUNDS, TESTS

MAX_GRID = 200
START_SHARE = 0.2  # the sequence starts within the most confident fifth of the labelled rows


@dataclass(frozen=True)
class RiskThreshold:
    """The certified threshold (``inf`` when none could be certified: the jury answers nothing)."""

    alpha: float
    delta: float
    threshold: float
    calibration_rows: int  # labelled rows the threshold was tested on
    calibration_answered: int  # of those, at or above the threshold
    calibration_errors: int
    bound: float | None  # (1 - delta) upper bound on the error above the threshold (None: none certified)
    tested: int  # thresholds tested before the sequence stopped
    reason: str  # why nothing could be certified ("" when a threshold was)
    method: str = "hypergeometric"  # which of RISK_BOUNDS
    start_rows: int = 0  # labelled rows above the first threshold the sequence may test
    candidates: int = 0  # rows the rule may answer (the labels were drawn among them)
    rows_above: int = 0  # candidate rows at or above the threshold, labelled ones included

    @property
    def certified(self) -> bool:
        return math.isfinite(self.threshold)

    def as_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "delta": self.delta,
            "threshold": self.threshold if self.certified else None,
            "calibration_rows": self.calibration_rows,
            "calibration_answered": self.calibration_answered,
            "calibration_errors": self.calibration_errors,
            "bound": self.bound,
            "tested": self.tested,
            "reason": self.reason,
            "method": self.method,
            "start_rows": self.start_rows,
            "candidate_rows": self.candidates,
            "rows_at_or_above": self.rows_above,
            "test": TESTS[self.method],
        }


def clopper_pearson_upper(errors: int, n: int, delta: float) -> float:
    """One-sided (1 - delta) upper confidence bound of a binomial proportion."""
    if n <= 0:
        return 1.0
    return 1.0 if errors >= n else float(beta_dist.ppf(1 - delta, errors + 1, n - errors))


def min_rows(alpha: float, delta: float) -> int:
    """Calibration rows needed to certify error <= alpha with no error seen: (1 - alpha)^n <= delta."""
    return int(math.ceil(math.log(delta) / math.log1p(-alpha)))


def threshold_grid(confidence: np.ndarray, max_points: int = MAX_GRID) -> np.ndarray:
    """Candidate thresholds, highest first: the distinct confidences (at most ``max_points``, by quantile)."""
    values = np.unique(np.asarray(confidence, dtype=float)[np.isfinite(confidence)])[::-1]
    if values.size > max_points:
        values = np.unique(np.quantile(values, np.linspace(0, 1, max_points)))[::-1]
    return values


def candidate_rows(confidence, share: float = CANDIDATE_SHARE) -> np.ndarray:
    """The rows a risk-controlled rule may answer: the ``share`` of the rows with the highest
    confidence (every row tied with the last one included). Fixed from the confidences alone,
    before any label is drawn."""
    conf = np.asarray(confidence, dtype=float)
    if conf.size == 0 or share >= 1:
        return np.ones(conf.size, dtype=bool)
    k = max(1, int(math.ceil(share * conf.size)))
    cut = np.sort(conf)[::-1][k - 1]
    return conf >= cut


def start_rows(alpha: float, delta: float, n_cal: int, bound: str = "binomial") -> int:
    """Labelled rows above the first threshold tested: the most rows, within ``START_SHARE`` of
    ``n_cal``, at which the test still certifies with the most errors tolerated (``min_rows`` for
    ``clopper-pearson``, or when even no error needs more rows than that share)."""
    first = min_rows(alpha, delta)
    if bound == "clopper-pearson":
        return first
    pvalue, limit = PVALUES["binomial" if bound == "hypergeometric" else bound], START_SHARE * n_cal
    start, n, k = first, first, 0
    while True:
        while pvalue(k, n, alpha) > delta:  # the fewest rows that certify with k errors
            n += 1
        if n > limit:
            return start
        start, k = n, k + 1


def certify_threshold(
    confidence,
    wrong,
    calibration,
    alpha: float = 0.1,
    delta: float = 0.1,
    bound: str = "hypergeometric",
    candidates=None,
) -> RiskThreshold:
    """The lowest threshold whose error rate is certified <= ``alpha`` at level ``delta``.

    ``confidence``: (n,) the jury's confidence per row (from a rule that did not read the labels);
    ``wrong``: (n,) bool, the jury's answer is wrong (read on calibration rows only; a row the jury
    could not answer counts as wrong); ``calibration``: (n,) bool, the labelled rows, drawn at
    random among the ``candidates`` (default: every row); ``bound``: one of ``RISK_BOUNDS``.
    """
    conf = np.asarray(confidence, dtype=float)
    cal = np.asarray(calibration, dtype=bool)
    err = np.asarray(wrong, dtype=bool)
    cand = np.ones(conf.shape, dtype=bool) if candidates is None else np.asarray(candidates, dtype=bool)
    if conf.ndim != 1 or cal.shape != conf.shape or err.shape != conf.shape or cand.shape != conf.shape:
        raise ValueError(
            f"confidence, wrong and calibration must have the same shape (n,), got {conf.shape}, {err.shape}, "
            f"{cal.shape}"
        )
    if not (0 < alpha < 1) or not (0 < delta < 1):
        raise ValueError(f"alpha and delta must lie in (0, 1), got {alpha} and {delta}")
    if bound not in RISK_BOUNDS:
        raise ValueError(f"bound must be one of {', '.join(RISK_BOUNDS)}, got {bound!r}")
    if (cal & ~cand).any():
        raise ValueError("every labelled row must be one of the candidates (the labels are drawn among them)")
    c_conf, c_err = conf[cal], err[cal]
    n_cal = int(cal.sum())
    need = min_rows(alpha, delta)
    first = start_rows(alpha, delta, n_cal, bound)
    best = None
    tested = 0
    for t in threshold_grid(np.where(cand, conf, np.nan)):
        above = c_conf >= t
        n_t = int(above.sum())
        if n_t < first:  # before the start (depends on the confidences and the row count only)
            continue
        e_t = int(c_err[above].sum())
        N_t = int((cand & (conf >= t)).sum())
        tested += 1
        if _pvalue(bound, e_t, n_t, alpha, N_t) > delta:
            break
        best = (float(t), n_t, e_t, N_t)
    if best is None:
        if n_cal < need:
            why = (
                f"{n_cal} labelled rows cannot certify an error rate of {alpha:g} at delta {delta:g}: at least {need} "
                "are needed"
            )
        else:
            why = (
                f"no confidence threshold has an error rate certifiably <= {alpha:g} on the {n_cal} labelled rows "
                f"(delta {delta:g})"
            )
            more = labels_needed(c_conf, c_err, conf, alpha, delta)
            if more is not None:
                why += f"; at the error rate seen among the most confident rows, about {more} random labels would"
        return RiskThreshold(alpha, delta, math.inf, n_cal, 0, 0, None, tested, why, bound, first, int(cand.sum()))
    t, n_t, e_t, N_t = best
    if bound == "hypergeometric":
        ub = hypergeometric_upper(e_t, n_t, delta, N_t)
    elif bound == "hb":
        ub = upper_bound(e_t, n_t, delta, "hb")
    else:
        ub = clopper_pearson_upper(e_t, n_t, delta)
    return RiskThreshold(alpha, delta, t, n_cal, n_t, e_t, ub, tested, "", bound, first, int(cand.sum()), N_t)


def _pvalue(bound: str, errors: int, n: int, alpha: float, population: int) -> float:
    if bound == "hypergeometric":
        return hypergeometric_pvalue(errors, n, alpha, population)
    return PVALUES["binomial" if bound == "clopper-pearson" else bound](errors, n, alpha)


def labels_needed(
    c_conf: np.ndarray, c_err: np.ndarray, conf: np.ndarray, alpha: float, delta: float, cap: int = 100_000
) -> int | None:
    """A rough planning figure, not a guarantee: random labels that would certify the first
    threshold tested, if its share of rows and its error rate on the labels stayed as seen."""
    need = min_rows(alpha, delta)
    for t in threshold_grid(conf):
        above = c_conf >= t
        if above.sum() >= need:
            share, rate = above.mean(), c_err[above].mean()
            break
    else:
        return None
    if rate >= alpha:
        return None
    n_cal = max(len(c_conf), 1)
    while n_cal <= cap:
        n_t = int(share * n_cal)
        if n_t >= need and binom.cdf(int(math.ceil(rate * n_t - 1e-9)), n_t, alpha) <= delta:
            return n_cal
        n_cal = int(n_cal * 1.1) + 1
    return None
