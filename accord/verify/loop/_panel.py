"""A panel: judges with one stubbornness λ each (and optionally an influence matrix W).

The panel owns the consensus: its :class:`~accord.consensus_core.ConsensusSpec` (λ, W, checked once
when the panel is built) computes the statistics every policy decides on
(``policy.decide(raw, panel.consensus)``). Panels are built from judge specs through the judge
registry (:mod:`accord.adapters._registry`).

Judges run concurrently, one thread per judge (or per judge group: several panel columns scored
by one call, e.g. all roles of one LLM), and each call has a time limit. A judge that raises, times
out, or returns something malformed becomes a recorded ``None`` with the reason for every
candidate it did not score: the step goes on with the others, never a crashed run.

A *judge group* is any object with ``names`` (list of column names) and
``score_many(ctx, candidates) -> list[list[JudgeScore]]`` (per name, per candidate); a plain
:class:`~accord.protocols.Judge` is a group of one.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from accord.adapters import JudgeSpec, build_judges
from accord.consensus_core import (
    LAMBDA_RULE,
    ConsensusSpec,
    ConsensusStats,
    calibrate_thresholds,
    estimate_stubbornness,
)
from accord.protocols import Judge, JudgeScore, StepContext


class _Single:
    """A plain judge seen as a group of one column."""

    def __init__(self, judge: Judge):
        self.judge = judge
        self.names = [judge.name]

    def score_many(self, ctx, candidates):
        return [self.judge.score(ctx, candidates)]

    def describe(self) -> dict:
        d = getattr(self.judge, "describe", None)
        return d() if callable(d) else {"type": type(self.judge).__name__}

    @property
    def last_tokens(self) -> int:
        return int(getattr(self.judge, "last_tokens", 0) or 0)


def as_group(judge) -> Any:
    """A judge group for a judge or group (anything else is a TypeError naming it)."""
    if hasattr(judge, "score_many") and hasattr(judge, "names"):
        return judge
    if hasattr(judge, "score") and isinstance(getattr(judge, "name", None), str):
        return _Single(judge)
    raise TypeError(f"{judge!r} is not a judge: it needs a 'name' and score(ctx, candidates)")


def _coerce(value: Any) -> JudgeScore:
    """One judge output as a JudgeScore; malformed output becomes a failure naming it."""
    if isinstance(value, JudgeScore):
        return value
    if value is None:
        return JudgeScore.failed("judge returned None without a reason")
    try:
        v = float(value)
    except (TypeError, ValueError):
        return JudgeScore.failed(f"judge returned {type(value).__name__}, not a score")
    if math.isnan(v) or not 0.0 <= v <= 1.0:
        return JudgeScore.failed(f"judge returned {v!r}, outside [0, 1]")
    return JudgeScore(v)


@dataclass
class PanelScores:
    """One scoring of n candidates by the m panel columns."""

    raw: np.ndarray  # (n, m), NaN where a judge gave no score
    failures: list[list[str | None]]  # (n, m): why a score is missing
    judge_s: dict[str, float]  # wall time per column (a group's time split evenly over its columns)
    wall_s: float  # the whole panel (judges run concurrently)
    tokens: int  # judge prompt tokens computed
    reasons: list[list[str | None]] | None = None  # (n, m): every judge's reason, scored or not
    abstentions: list[list[str | None]] | None = None  # (n, m): why a judge abstained (not in failures)


class Panel:
    """Judges (or judge groups), one λ_i > 0 per column, optional influence W (m x m).

    ``lambdas``: one value per column, or ``"estimated"`` (λ = 1 each until the warm-up is scored).
    λ and W are checked here, once, by :class:`ConsensusSpec`; ``panel.consensus`` is what policies
    decide with, ``panel.stats(raw)`` the statistics they see.
    """

    def __init__(
        self,
        judges: Sequence[Any],
        lambdas: Sequence[float] | str,
        influence=None,
        timeout_s: float = 120.0,
        warmup: int = 30,
        calibrate_thresholds: float | None = None,
    ):
        self.groups = [as_group(j) for j in judges]
        self.names: list[str] = [n for g in self.groups for n in g.names]
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"judge names must be unique, got {self.names}")
        if len(self.names) < 2:
            raise ValueError(f"a panel needs at least two judges, got {self.names}")
        self.stubbornness_estimate: dict | None = None
        self._warmup: list[np.ndarray] | None = None  # scored rows kept until λ is estimated
        self.warmup = int(warmup)
        self._estimated = isinstance(lambdas, str)
        self.thresholds: dict | None = None  # τ, ε calibrated after the warm-up, when asked for
        self._target_rate = None if calibrate_thresholds is None else float(calibrate_thresholds)
        if self._target_rate is not None:
            if not 0 < self._target_rate <= 1:
                raise ValueError(
                    f"threshold calibration needs a target acceptance rate in (0, 1], got {self._target_rate}"
                )
            self._warmup = []
        if isinstance(lambdas, str):
            self._warmup = []
            if lambdas != "estimated":
                raise ValueError(f'stubbornness must be one λ per judge or "estimated", got {lambdas!r}')
            lambdas = [1.0] * len(self.names)  # equal until estimate_stubbornness() has seen scored steps
        # λ and W are checked once, here, by the panel's ConsensusSpec (the one λ rule)
        lambdas = tuple(lambdas)
        if len(lambdas) != len(self.names):
            raise ValueError(f"{LAMBDA_RULE}; got {list(lambdas)!r} for {len(self.names)} judges")
        self.consensus = ConsensusSpec(lambdas, None if influence is None else np.asarray(influence, dtype=float))
        if not timeout_s > 0:
            raise ValueError(f"judge timeout must be > 0 seconds, got {timeout_s}")
        self.timeout_s = float(timeout_s)

    @property
    def m(self) -> int:
        return len(self.names)

    @property
    def lambdas(self) -> tuple[float, ...]:
        return self.consensus.lambdas

    @property
    def influence(self) -> np.ndarray | None:
        return self.consensus.influence

    def stats(self, raw) -> ConsensusStats:
        """FJ consensus and statistics of raw scores (..., m) with this panel's λ and W."""
        return self.consensus.stats(raw)

    def estimate_stubbornness(self, raw, **kwargs):
        """Set λ from a batch of scored steps (raw scores (..., m), no labels); the estimate and its
        intervals are kept for the run's record (see accord.consensus_core._reliability)."""

        kwargs.setdefault(
            "groups", [k for k, g in enumerate(self.groups) for _ in g.names]
        )  # one model's roles agree among themselves
        est = estimate_stubbornness(raw, **kwargs)
        self.consensus = ConsensusSpec(tuple(float(x) for x in est.lambdas), self.influence)
        self.stubbornness_estimate = est.as_dict(self.names)
        return est

    def calibrate_thresholds(self, raw) -> dict:
        """Set VERDICT's τ and ε from a batch of scored steps (no labels) so that the target share
        of candidates is accepted (see accord.consensus_core._reliability.calibrate_thresholds)."""

        th = calibrate_thresholds(raw, self.lambdas, target_rate=self._target_rate or 0.5, influence=self.influence)
        self.thresholds = th.as_dict()
        return self.thresholds

    def describe(self) -> dict[str, Any]:
        out = {}
        for g in self.groups:
            d = getattr(g, "describe", None)
            info = d() if callable(d) else {"type": type(g).__name__}
            for n in g.names:
                out[n] = info
        if self.stubbornness_estimate is not None:
            out = {n: {**info, "lambda_estimate": self.stubbornness_estimate["judges"][n]} for n, info in out.items()}
        return out

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> PanelScores:
        """Every column's score for every candidate; judges run concurrently with a time limit."""
        n = len(candidates)
        results: list[Any] = [None] * len(self.groups)
        spent: list[float] = [0.0] * len(self.groups)

        def work(k: int, group) -> None:
            t0 = time.perf_counter()
            try:
                results[k] = ("ok", group.score_many(ctx, list(candidates)))
            except Exception as exc:  # a judge failure is recorded, never fatal
                results[k] = ("error", f"{type(exc).__name__}: {exc}")
            spent[k] = time.perf_counter() - t0

        t0 = time.perf_counter()
        threads = [threading.Thread(target=work, args=(k, g), daemon=True) for k, g in enumerate(self.groups)]
        for t in threads:
            t.start()
        deadline = t0 + self.timeout_s
        for t in threads:
            t.join(max(0.0, deadline - time.perf_counter()))
        wall = time.perf_counter() - t0

        raw = np.full((n, self.m), np.nan)
        failures: list[list[str | None]] = [[None] * self.m for _ in range(n)]
        reasons: list[list[str | None]] = [[None] * self.m for _ in range(n)]
        abstentions: list[list[str | None]] = [[None] * self.m for _ in range(n)]
        judge_s: dict[str, float] = {}
        tokens = 0
        col = 0
        for k, g in enumerate(self.groups):
            width = len(g.names)
            res = results[k]
            took = spent[k] if res is not None else wall
            for name in g.names:
                judge_s[name] = took / width
            if res is None:
                cols = [[JudgeScore.failed(f"timed out after {self.timeout_s:g} s")] * n] * width
            elif res[0] == "error":
                cols = [[JudgeScore.failed(f"judge raised {res[1]}")] * n] * width
            else:
                cols = self._check_shape(g, res[1], n)
                tokens += int(getattr(g, "last_tokens", 0) or 0)
            for j in range(width):
                for i in range(n):
                    s = _coerce(cols[j][i])
                    raw[i, col + j] = np.nan if s.value is None else s.value
                    missing = None if s.value is not None else (s.reason or "no score")
                    failures[i][col + j] = None if s.abstained else missing
                    abstentions[i][col + j] = missing if s.abstained else None
                    reasons[i][col + j] = s.reason if s.value is not None else missing
            col += width
        self.observe(raw)
        return PanelScores(raw, failures, judge_s, wall, tokens, reasons, abstentions)

    @property
    def estimating(self) -> bool:
        """Whether λ comes from the panel's agreement (``lambdas="estimated"``)."""
        return self._estimated

    def observe(self, raw: np.ndarray) -> None:
        """Feed scored candidates (k, m) to a panel still collecting its warm-up.

        Until ``warmup`` candidates are seen, λ = 1 each (when estimated) and the policies keep
        their own τ, ε (when calibrated); then λ is estimated and τ, ε calibrated (with that λ),
        fixed for the rest of the run; every step records what it used. A resumed run re-feeds its
        recorded scores in trace order, so it reaches the same values.
        """
        if self._warmup is None:
            return
        self._warmup.append(np.asarray(raw, dtype=float))
        rows = np.concatenate(self._warmup)
        if len(rows) < self.warmup:
            return
        try:
            if self._estimated and self.stubbornness_estimate is None:
                self.estimate_stubbornness(rows)
            if self._target_rate is not None and self.thresholds is None:
                self.calibrate_thresholds(rows)
            self._warmup = None
        except ValueError:
            pass  # too few rows scored by two judges yet: keep collecting

    @staticmethod
    def _check_shape(group, out, n: int) -> list[list[Any]]:
        width = len(group.names)
        if not isinstance(out, (list, tuple)) or len(out) != width:
            return [[JudgeScore.failed(f"judge group returned {type(out).__name__} of wrong shape")] * n] * width
        cols = []
        for name, col in zip(group.names, out):
            if not isinstance(col, (list, tuple)) or len(col) != n:
                k = len(col) if isinstance(col, (list, tuple)) else type(col).__name__
                cols.append([JudgeScore.failed(f"judge {name} returned {k} scores for {n} candidates")] * n)
            else:
                cols.append(list(col))
        return cols


# ------------------------------------------------------------------ building from specs
def build_panel(
    specs: Sequence[JudgeSpec | dict],
    influence=None,
    timeout_s: float = 120.0,
    models: dict | None = None,
    stubbornness: str = "hand-set",
    warmup: int = 30,
    calibrate_thresholds: float | None = None,
) -> Panel:
    """A panel from judge specs (typed, or entries ``{"type": ..., "lambda": ..., ...}``, see
    docs/step-loop.md), each judge built by its registered factory with its λ per column (the
    entry's ``lambda``, else the type's default).

    ``stubbornness="estimated"`` ignores the specs' λ and estimates λ from the first ``warmup``
    scored candidates; ``calibrate_thresholds`` (a target acceptance rate) sets VERDICT's τ and ε
    from them (see :meth:`Panel.observe`). ``models`` maps a model name to an already loaded
    (model, tokenizer) pair.
    """
    if stubbornness not in ("hand-set", "estimated"):
        raise ValueError(f"stubbornness must be 'hand-set' or 'estimated', got {stubbornness!r}")
    built = build_judges(specs, models)
    lams = "estimated" if stubbornness == "estimated" else [x for b in built for x in b.lambdas]
    return Panel(
        [b.judge for b in built],
        lams,
        influence=influence,
        timeout_s=timeout_s,
        warmup=warmup,
        calibrate_thresholds=calibrate_thresholds,
    )
