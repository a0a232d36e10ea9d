"""Judges on one scale: each judge's raw scores mapped to a common scale before the consensus.

A panel mixes judges that speak differently: an exact check says 0 or 1, a small LLM's P(yes)
lives in 0.2-0.5, a cosine similarity in 0.3-0.9. Fed raw into the consensus, their scales rather
than their opinions decide s̄* and Δ*, and VERDICT's τ and ε mean nothing. A :class:`JudgeScale`
maps every judge column through its own monotone map (the reward models' calibrations,
:class:`accord.adapters.Calibrator`), fitted on scored candidates:

- ``quantile`` (label-free, the default): a score becomes its percentile among the judge's own
  scores (ties at their mid-rank), so every judge is uniform on [0, 1]; s̄* = 0.7 means the
  candidate sits on average at the judges' 70th percentile.
- ``agreement`` (label-free): a score becomes the probability that the rest of the panel approves
  (their mean percentile above 0.5), a Platt fit on those pseudo-labels: a judge that agrees with
  nobody is squashed towards a constant, one that agrees is spread out.
- ``standardize`` (label-free): the logistic of the judge's z-score.
- ``platt`` (labelled steps): the probability that the step is right given this judge's score.

An abstaining or failed judge (NaN) stays NaN: it leaves the panel for that candidate. The fitted
maps are saved with the run (a ``calibration`` record in the trace and ``calibration.json``) and
reapplied as they are on replay; with ``off`` nothing is mapped and decisions are the raw ones.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accord.adapters import Calibrator
from accord.consensus_core import ConsensusSpec, accept_and_rank, calibrate_thresholds

SCALE_METHODS = ("off", "quantile", "agreement", "standardize", "platt")
LABEL_FREE = ("quantile", "agreement", "standardize")
MIN_SCORES = 5  # finite scores a judge needs before its map is fitted
CALIBRATION_FILE = "calibration.json"


def _fit_column(method: str, x: np.ndarray, labels: np.ndarray | None, others: np.ndarray | None) -> Calibrator | None:
    """One judge's map, or None (identity) when its scores cannot support one (too few, constant)."""
    keep = np.isfinite(x)
    if keep.sum() < MIN_SCORES or np.ptp(x[keep]) == 0:
        return None
    if method in ("quantile", "standardize"):
        return Calibrator(method).fit(x[keep])
    y = labels if method == "platt" else others
    ok = keep & np.isfinite(y)
    if ok.sum() < MIN_SCORES or len(set(y[ok].tolist())) < 2:
        return Calibrator("quantile").fit(x[keep])  # one class only: the percentile is all one can say
    return Calibrator("platt").fit(x[ok], y[ok])


def _panel_approval(rows: np.ndarray) -> np.ndarray:
    """Per row and judge: 1 if the other judges' mean percentile is above 0.5 (NaN if none scored)."""
    pct = np.column_stack(
        [
            Calibrator("quantile").fit(c[np.isfinite(c)]).apply(c)
            if np.isfinite(c).sum() >= 2
            else np.full(len(c), np.nan)
            for c in rows.T
        ]
    )
    out = np.full(rows.shape, np.nan)
    for j in range(rows.shape[1]):
        rest = np.delete(pct, j, axis=1)
        k = np.isfinite(rest).sum(axis=1)
        with np.errstate(invalid="ignore"):
            mean = np.nansum(rest, axis=1) / np.maximum(k, 1)
        out[:, j] = np.where(k > 0, (mean > 0.5).astype(float), np.nan)
    return out


@dataclass
class JudgeScale:
    """Per-judge maps to one scale (see the module doc); unfitted, :meth:`apply` is the identity."""

    method: str = "quantile"
    judges: tuple[str, ...] = ()
    calibrators: dict[str, Calibrator | None] | None = None
    fitted_on: int = 0  # candidates the maps were fitted on
    source: str = ""  # "label-free warm-up", "labelled steps", a file name
    thresholds: dict[str, Any] | None = None  # VERDICT's τ, ε on this scale, when set from a target
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        if self.method not in SCALE_METHODS or self.method == "off":
            raise ValueError(f"judge scale must be one of {', '.join(SCALE_METHODS[1:])}, got {self.method!r}")

    @property
    def fitted(self) -> bool:
        return self.calibrators is not None

    def fit(self, raw, labels=None) -> JudgeScale:
        """Fit every judge's map on scored candidates ``raw`` (k, m); ``labels`` (k,) 1 = right step
        (needed by ``platt``, NaN where unknown)."""
        rows = np.asarray(raw, dtype=float)
        if rows.ndim != 2 or rows.shape[1] != len(self.judges):
            raise ValueError(f"scores must have shape (k, {len(self.judges)}), got {rows.shape}")
        y = None if labels is None else np.asarray(labels, dtype=float).ravel()
        if self.method == "platt" and (y is None or y.shape != (len(rows),)):
            raise ValueError("the platt scale needs one label (1 right / 0 wrong) per scored candidate")
        others = _panel_approval(rows) if self.method == "agreement" else None
        cal = {}
        for j, name in enumerate(self.judges):
            cal[name] = _fit_column(self.method, rows[:, j], y, None if others is None else others[:, j])
            if cal[name] is None:
                self.notes.append(f"{name}: fewer than {MIN_SCORES} distinct scores to fit on; left as is")
        self.calibrators, self.fitted_on = cal, int(len(rows))
        return self

    def apply(self, raw) -> np.ndarray:
        """Scores (..., m) on the common scale; NaN (abstained or failed) stays NaN."""
        r = np.asarray(raw, dtype=float)
        if self.calibrators is None:
            return r
        cols = [
            r[..., j] if c is None else c.apply(r[..., j])
            for j, c in ((j, self.calibrators.get(n)) for j, n in enumerate(self.judges))
        ]
        return np.stack(cols, axis=-1)

    def set_thresholds(
        self,
        raw,
        spec: ConsensusSpec,
        target_rate: float | None = None,
        target_error: float | None = None,
        labels=None,
        delta: float = 0.1,
    ) -> dict[str, Any]:
        """VERDICT's τ, ε on this scale from a target: the share of candidates accepted (label-free,
        :func:`accord.consensus_core.calibrate_thresholds`), or the error among accepted
        candidates on labelled ones (the jury's Learn-then-Test risk control with the binomial tail:
        with probability 1 - δ the error among candidates accepted later is at most ``target_error``)."""
        scaled = self.apply(raw)
        if target_error is None:
            th = calibrate_thresholds(scaled, spec.lambdas, target_rate=target_rate or 0.5, influence=spec.influence)
            self.thresholds = {**th.as_dict(), "target": {"accept_rate": target_rate or 0.5}}
            return self.thresholds
        if labels is None:
            raise ValueError("thresholds from a target error need labelled steps")
        st = spec.stats(scaled)
        y = np.asarray(labels, dtype=float).ravel()
        ok = st.valid & np.isfinite(y)
        eps = float(np.quantile(st.dispersion[ok], 0.75)) + 1e-9
        conf = np.where(st.dispersion < eps, st.mean, -np.inf)[ok]
        from accord.consensus_core.jury import certify_threshold  # scipy.stats: not when building the CLI

        # binomial, not the file's hypergeometric tail: the thresholds are used on candidates not seen yet
        risk = certify_threshold(
            conf, y[ok] < 0.5, np.ones(int(ok.sum()), dtype=bool), alpha=target_error, delta=delta, bound="binomial"
        )
        tau = float(risk.threshold) - 1e-9 if risk.certified else float("inf")
        self.thresholds = {
            "tau": tau,
            "eps": eps,
            "method": "target_error",
            "risk": risk.as_dict(),
            "acceptance_rate": float(np.mean(accept_and_rank(st.mean[ok], st.dispersion[ok], tau, eps, False)[0])),
            "target": {"error": target_error},
        }
        return self.thresholds

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "judges": list(self.judges),
            "fitted_on": self.fitted_on,
            "source": self.source,
            "maps": None
            if self.calibrators is None
            else {n: (None if c is None else c.as_dict()) for n, c in self.calibrators.items()},
            "thresholds": self.thresholds,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> JudgeScale:
        if not isinstance(d, dict) or d.get("method") not in SCALE_METHODS[1:] or not isinstance(d.get("judges"), list):
            raise ValueError(f"a saved judge scale needs 'method' (one of {', '.join(SCALE_METHODS[1:])}) and 'judges'")
        maps = d.get("maps")
        cal = None if maps is None else {n: (None if c is None else Calibrator.from_dict(c)) for n, c in maps.items()}
        return cls(
            d["method"],
            tuple(d["judges"]),
            cal,
            int(d.get("fitted_on", 0)),
            str(d.get("source", "")),
            d.get("thresholds"),
            list(d.get("notes", [])),
        )

    def for_judges(self, names: Sequence[str]) -> JudgeScale:
        """This scale for a panel with these columns (a saved scale must name every one of them)."""
        if self.calibrators is not None:
            missing = [n for n in names if n not in self.calibrators]
            if missing:
                raise ValueError(f"the judge scale has no map for judge(s) {missing} (it has {list(self.calibrators)})")
        return JudgeScale(
            self.method, tuple(names), self.calibrators, self.fitted_on, self.source, self.thresholds, list(self.notes)
        )


def save_scale(path: str | Path, scale: JudgeScale) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(scale.as_dict(), indent=1) + "\n", encoding="utf-8")
    return p


def load_scale(path: str | Path) -> JudgeScale:
    """A saved scale (``calibration.json``, or a run folder holding one); a bad file is a ValueError."""
    p = Path(path)
    if p.is_dir():
        p = p / CALIBRATION_FILE
    try:
        return JudgeScale.from_dict(json.loads(p.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ValueError(f"{p}: no such judge scale file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{p}: not a judge scale file (not UTF-8 text)") from None
    except OSError as exc:
        raise ValueError(f"{p}: cannot read it ({exc.strerror or exc})") from None


class ScaleWarmup:
    """A judge scale learned during the run: the first ``warmup`` scored candidates are decided on raw
    scores, then the maps (and, with a target, τ and ε) are fitted on them and fixed for the rest
    of the run. A resumed run re-feeds its recorded scores in trace order and fits at the same point.
    A scale already fitted (from a file) is used from the first step."""

    def __init__(self, scale: JudgeScale, warmup: int = 30, target_rate: float | None = None):
        if warmup < MIN_SCORES:
            raise ValueError(f"the judge scale's warm-up needs at least {MIN_SCORES} candidates, got {warmup}")
        if target_rate is not None and not 0 < target_rate <= 1:
            raise ValueError(f"the judge scale's target acceptance rate must be in (0, 1], got {target_rate}")
        self.scale = scale
        self.warmup = int(warmup)
        self.target_rate = target_rate
        self._rows: list[np.ndarray] = []

    @property
    def fitted(self) -> bool:
        return self.scale.fitted

    def observe(self, raw: np.ndarray, spec: ConsensusSpec) -> bool:
        """Feed scored candidates (k, m); True when this call fitted the scale."""
        if self.scale.fitted:
            return False
        self._rows.append(np.asarray(raw, dtype=float))
        rows = np.concatenate(self._rows)
        if len(rows) < self.warmup:
            return False
        self.scale.fit(rows)
        self.scale.source = f"label-free warm-up: the first {len(rows)} scored candidates"
        if self.target_rate is not None:
            try:
                self.scale.set_thresholds(rows, spec, target_rate=self.target_rate)
            except ValueError as exc:
                self.scale.notes.append(f"thresholds kept: {exc}")
        self._rows = []
        return True
