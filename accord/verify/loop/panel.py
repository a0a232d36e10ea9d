"""A panel: judges with one stubbornness λ each (and optionally an influence matrix W).

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
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from accord.adapters import llm, vlm
from accord.adapters import math as mj
from accord.adapters.code import panel_entry
from accord.adapters.embedding import EmbeddingRelevanceJudge
from accord.adapters.llm import LLMJudges
from accord.adapters.served import build_judges, is_served, judge_group_key
from accord.adapters.served.checkers import KINDS as CHECKER_KINDS
from accord.adapters.served.checkers import build_checker
from accord.adapters.vlm import VLMJudges, shared_vlm
from accord.consensus_core import consensus
from accord.consensus_core.reliability import calibrate_thresholds, estimate_stubbornness
from accord.consensus_core.validation import as_lambdas
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


class Panel:
    """Judges (or judge groups), one λ_i > 0 per column, optional influence W (m x m)."""

    def __init__(self, judges: Sequence[Any], lambdas: Sequence[float] | str, influence=None, timeout_s: float = 120.0,
                 warmup: int = 30, calibrate_thresholds: float | None = None):
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
                raise ValueError(f"threshold calibration needs a target acceptance rate in (0, 1], got {self._target_rate}")
            self._warmup = []
        if isinstance(lambdas, str):
            self._warmup = []
            if lambdas != "estimated":
                raise ValueError(f"stubbornness must be one λ per judge or \"estimated\", got {lambdas!r}")
            lambdas = [1.0] * len(self.names)  # equal until estimate_stubbornness() has seen scored steps
        lam = [float(x) for x in as_lambdas([float(x) for x in lambdas], len(self.names))]  # the core's one λ check
        self.lambdas = tuple(lam)
        self.influence = None if influence is None else np.asarray(influence, dtype=float)
        if self.influence is not None:
            consensus(np.full((1, len(lam)), 0.5), self.lambdas, self.influence)  # validates W
        if not timeout_s > 0:
            raise ValueError(f"judge timeout must be > 0 seconds, got {timeout_s}")
        self.timeout_s = float(timeout_s)

    @property
    def m(self) -> int:
        return len(self.names)

    def estimate_stubbornness(self, raw, **kwargs):
        """Set λ from a batch of scored steps (raw scores (..., m), no labels); the estimate and its
        intervals are kept for the run's record (see accord.consensus_core.reliability)."""

        kwargs.setdefault("groups", [k for k, g in enumerate(self.groups) for _ in g.names])  # one model's roles agree among themselves
        est = estimate_stubbornness(raw, **kwargs)
        self.lambdas = tuple(float(x) for x in est.lambdas)
        self.stubbornness_estimate = est.as_dict(self.names)
        return est

    def calibrate_thresholds(self, raw) -> dict:
        """Set VERDICT's τ and ε from a batch of scored steps (no labels) so that the target share
        of candidates is accepted (see accord.consensus_core.reliability.calibrate_thresholds)."""

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
                    failures[i][col + j] = None if s.value is not None else (s.reason or "no score")
                    reasons[i][col + j] = s.reason if s.value is not None else failures[i][col + j]
            col += width
        self.observe(raw)
        return PanelScores(raw, failures, judge_s, wall, tokens, reasons)

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


# ------------------------------------------------------------------ building from a config
JUDGE_TYPES = ("llm", "vlm", "embedding", "arithmetic", "symbolic", "numeric", "final_answer",
               "code_static", "code_execution", "code_consistency", "code_llm", "code_check", "critic")


def build_panel(specs: Sequence[dict], influence=None, timeout_s: float = 120.0, models: dict | None = None,
                stubbornness: str = "hand-set", warmup: int = 30, calibrate_thresholds: float | None = None) -> Panel:
    """A panel from judge specs (``{"type": ..., "lambda": ..., ...}``, see docs/step-loop.md).

    ``stubbornness="estimated"`` ignores the specs' λ and estimates λ from the first ``warmup``
    scored candidates; ``calibrate_thresholds`` (a target acceptance rate) sets VERDICT's τ and ε
    from them (see :meth:`Panel.observe`).

    LLM judges sharing (model, mode) are merged into one group so that all their roles are scored
    in one call. ``models`` maps a model name to an already loaded (model, tokenizer) pair.
    """
    models = models or {}
    groups: list[Any] = []
    names: list[str] = []
    lambdas: list[float] = []
    llm_groups: dict[tuple, dict] = {}
    for k, spec in enumerate(specs):
        spec = dict(spec)
        kind = spec.pop("type", None)
        if kind not in JUDGE_TYPES:
            raise ValueError(f"judges[{k}]: unknown type {kind!r}; choose one of {', '.join(JUDGE_TYPES)}")
        lam = spec.pop("lambda", None)
        if kind in ("llm", "vlm"):  # prompted models: roles of one (model, mode, ...) share one group
            role = spec.pop("role", None)
            roles, default_lambda = (llm.ROLES, llm.DEFAULT_LAMBDA) if kind == "llm" else (vlm.ROLES, vlm.DEFAULT_LAMBDA)
            if is_served(spec):  # one served group per (kind, endpoint, options)
                key = ("served", kind, judge_group_key(spec, f"judges[{k}]"))
            elif kind == "llm":
                key = (kind, spec.pop("model", "smollm2"), spec.pop("mode", "yes_no"))
            else:
                key = (kind, spec.pop("model", None), spec.pop("mode", "yes_no"), spec.pop("device", "cpu"), spec.pop("dtype", "float32"))
                if not isinstance(key[1], str) or not key[1]:
                    raise ValueError(f"judges[{k}]: vlm judge needs a 'model' (a local folder or a cached name)")
            if role not in roles:
                raise ValueError(f"judges[{k}]: {kind} judge needs a 'role' in {sorted(roles)}, got {role!r}")
            name = spec.pop("name", f"{kind}_{role}")
            _no_extra(k, kind, spec)
            entry = llm_groups.get(key)
            if entry is None:
                entry = llm_groups[key] = {"roles": [], "names": [], "slot": len(groups)}
                groups.append(None)  # filled below, keeps the spec order of groups
            entry["roles"].append(role)
            entry["names"].append(name)
            names.append(name)
            lambdas.append(float(lam if lam is not None else default_lambda[role]))
            continue
        if kind in CHECKER_KINDS:  # served: the model writes a check, or names the earliest wrong step
            try:
                groups.append(build_checker(kind, spec))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"judges[{k}]: {exc}") from None
            names.append(groups[-1].name)
            lambdas.append(float(lam if lam is not None else 1.0))
            continue
        if kind.startswith("code_"):  # code judges (accord.adapters.code), possibly several columns

            try:
                judge, lams = panel_entry(kind, spec, lam, models)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"judges[{k}]: {exc}") from None
            groups.append(judge)
            names.extend(as_group(judge).names)
            lambdas.extend(lams)
            continue
        groups.append(_build_simple(k, kind, spec))
        names.extend(as_group(groups[-1]).names)
        lambdas.append(float(lam if lam is not None else 1.0))
    for key, entry in llm_groups.items():
        if key[0] == "served":
            groups[entry["slot"]] = build_judges(key[1], key[2], entry["roles"], entry["names"])
            continue
        if key[0] == "vlm":
            _, model, mode, device, dtype = key
            groups[entry["slot"]] = VLMJudges(entry["roles"], mode=mode, names=entry["names"], vlm=shared_vlm(model, device, dtype))
            continue

        _, model, mode = key
        lm, tok = models.get(model, (None, None))
        groups[entry["slot"]] = LLMJudges(entry["roles"], model=model, mode=mode, names=entry["names"], lm=lm, tokenizer=tok)
    # lambdas follow the spec order; columns follow group order: reorder lambdas to the columns
    by_name = dict(zip(names, lambdas))
    columns = [n for g in groups for n in as_group(g).names]
    if stubbornness not in ("hand-set", "estimated"):
        raise ValueError(f"stubbornness must be 'hand-set' or 'estimated', got {stubbornness!r}")
    lams = "estimated" if stubbornness == "estimated" else [by_name[n] for n in columns]
    return Panel(groups, lams, influence=influence, timeout_s=timeout_s, warmup=warmup, calibrate_thresholds=calibrate_thresholds)


def _no_extra(k: int, kind: str, spec: dict) -> None:
    if spec:
        raise ValueError(f"judges[{k}]: {kind} judge takes no option(s) {sorted(spec)}")


def _build_simple(k: int, kind: str, spec: dict):
    if kind == "embedding":
        name = spec.pop("name", "minilm_relevance")
        _no_extra(k, kind, spec)
        return EmbeddingRelevanceJudge(name)

    cls = {
        "arithmetic": mj.ArithmeticJudge,
        "symbolic": mj.SymbolicEquivalenceJudge,
        "numeric": mj.NumericSamplingJudge,
        "final_answer": mj.FinalAnswerJudge,
    }[kind]
    try:
        return cls(**spec)
    except TypeError as exc:
        raise ValueError(f"judges[{k}]: {kind} judge: {exc}") from None
