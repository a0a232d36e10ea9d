"""Decision rules: which candidate step to accept, vectorised over any batch of steps.

A policy maps raw scores of shape (..., n, m) (n candidates, m judges; NaN = failed judge) and the
panel's :class:`~accord.consensus_core._spec.ConsensusSpec` (λ and W) to a :class:`Decision`:
``get_policy("verdict", tau=0.6, eps=0.1).decide(raw, ConsensusSpec((1.5, 1.0, 0.8)))``; without a
spec, λ = 1 for every judge. A policy holds only its own parameters, never λ or W. Every rule ranks candidates by a
key; rules with an acceptance test choose the
best accepted candidate and otherwise fall back to a second key. Ties go to the lowest candidate
index. A candidate scored by fewer than two judges is never accepted and ranks below every valid
one; a candidate nobody scored is never chosen (``chosen = -1`` when no candidate has a score).

Registered rules (``get_policy(name, **params)``):

==================  ===========================================================================
verdict             accept s̄* > tau and Δ* < eps; choose max s̄* among accepted, else max s̄* - Δ*
mean_preserving     VERDICT with s* shifted so its mean equals the raw mean (Δ* unchanged)
no_rejection        rank every candidate by s̄* - Δ* (ablation: no filter)
no_selection        VERDICT's filter, seeded random choice among accepted (ablation: no ranking)
raw_average         the dual rule on the raw mean and raw mean absolute deviation
mean / max / min    rank by the raw mean / maximum / minimum score
majority            accept if a strict majority of judges score > 0.5; rank by raw mean
variance            accept if raw (population) variance <= max_var (default 0.01, i.e. a raw
                    standard deviation of at most 0.1 = eps); rank by raw mean
random              seeded random choice among candidates with a score
single_judge        one judge alone: rank by column ``judge``'s raw score (a candidate it did not
                    score ranks last); the baseline a panel has to beat
==================  ===========================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from accord.consensus_core import _fused as fused
from accord.consensus_core._fused import KernelRule
from accord.consensus_core._rule import accept_and_rank
from accord.consensus_core._spec import ConsensusSpec
from accord.consensus_core._statistics import ConsensusStats, summarize
from accord.consensus_core._validation import as_scores
from accord.registry import Registry, dataclass_options, first_paragraph

DEFAULT_TAU = 0.6
DEFAULT_EPS = 0.1
DEFAULT_MAX_VAR = 0.01
_LAST = -1e6  # rank offset that puts single-score candidates below every valid one


PATHS = ("auto", "fused", "reference")


class Decision:
    """The outcome for a batch of steps; arrays have the batch shape (...) or (..., n).

    ``chosen``, ``accepted`` and ``fallback`` are always computed. ``stats`` (per candidate,
    shapes (..., n) and (..., n, m)) and ``rank_key`` (the value the choice maximised) may be
    given as functions, run on first access: a large batch decided by the compiled kernels then
    pays for the per-candidate statistics only when they are read. They are computed from the
    scores passed to ``decide``, so do not modify that array before reading them. ``path`` says
    who decided: "fused" (compiled kernels; steps near a threshold, tied or with a failed judge
    are redone by the reference) or "reference" (numpy).
    """

    def __init__(
        self,
        policy: str,
        chosen: np.ndarray,
        accepted: np.ndarray,
        fallback: np.ndarray,
        rank_key: np.ndarray | Callable[[], np.ndarray],
        stats: ConsensusStats | Callable[[], ConsensusStats],
        path: str = "reference",
    ):
        self.policy = policy
        self.chosen = chosen  # (...) int; -1 when no candidate has any score
        self.accepted = accepted  # (..., n) bool
        self.fallback = fallback  # (...) bool: nothing accepted, chosen by the fallback ranking
        self.path = path
        self._rank_key = rank_key
        self._stats = stats

    def __repr__(self) -> str:
        return f"Decision(policy={self.policy!r}, path={self.path!r}, chosen={self.chosen!r})"

    @property
    def stats(self) -> ConsensusStats:
        if callable(self._stats):
            self._stats = self._stats()
        return self._stats

    @property
    def rank_key(self) -> np.ndarray:
        if callable(self._rank_key):
            self._rank_key = self._rank_key()
        return self._rank_key

    @property
    def mean(self) -> np.ndarray:
        return self.stats.mean

    @property
    def dispersion(self) -> np.ndarray:
        return self.stats.dispersion


def choose(accepted: np.ndarray, key: np.ndarray, fallback_key: np.ndarray, stats: ConsensusStats):
    """Index of the best accepted candidate by ``key``, else the best by ``fallback_key``."""
    accepted = accepted & stats.valid
    any_acc = accepted.any(axis=-1)
    one_score = (stats.n_scored == 1) & ~stats.valid
    ranked_fb = np.where(stats.valid, fallback_key, np.where(one_score, _LAST + np.nan_to_num(stats.raw_mean), -np.inf))
    final = np.where(any_acc[..., None], np.where(accepted, key, -np.inf), ranked_fb)
    final = np.where(np.isnan(final), -np.inf, final)
    chosen = np.argmax(final, axis=-1)
    none = np.all(np.isneginf(final), axis=-1)
    chosen = np.where(none, -1, chosen)
    return chosen, accepted, ~any_acc, final


def _describe(cls: type[Policy]) -> tuple[str, dict]:
    return first_paragraph(cls), dataclass_options(cls)


POLICIES: Registry[type[Policy]] = Registry("policy", "accord.policies", describe=_describe)


def register_policy(name: str) -> Callable[[type[Policy]], type[Policy]]:
    """Registers a :class:`Policy` subclass (a frozen dataclass of its own parameters) as ``name``."""

    def named(cls: type[Policy]) -> type[Policy]:
        if not (isinstance(cls, type) and issubclass(cls, Policy) and dataclasses.is_dataclass(cls)):
            raise TypeError(f"policy {name!r}: register a frozen dataclass subclassing Policy")
        cls.name = name
        return cls

    return POLICIES.register(name, named)


@dataclass(frozen=True)
class Policy:
    """Base class: a rule's own parameters (thresholds, seeds); subclasses implement ``_decide``.

    λ and W are the panel's: :meth:`decide` takes them as a :class:`ConsensusSpec` with the raw
    scores. Statistics always include the consensus (so a raw-score rule's decision can be shown
    next to s̄* and Δ*); raw-score rules only look at the raw fields. A rule that accepts by a mean
    and a spread also states itself as a ``kernel`` (with its thresholds in ``kernel_thresholds``)
    and is then decided by the compiled kernels whenever they can take the input.
    """

    name: ClassVar[str] = "base"
    kernel: ClassVar[KernelRule | None] = None

    def stats(self, raw, spec: ConsensusSpec | None = None) -> ConsensusStats:
        """The statistics this rule decides on: the panel's (``spec.stats``), seen by the rule."""
        r = as_scores(raw)
        spec = panel_spec(spec, r)
        return self.view(spec.stats(r), spec)

    def view(self, st: ConsensusStats, spec: ConsensusSpec) -> ConsensusStats:
        """The rule's view of the panel's statistics (most rules: unchanged)."""
        return st

    def decide(self, raw, spec: ConsensusSpec | None = None, path: str = "auto") -> Decision:
        """Decide for raw scores of shape (..., n, m) with the panel's λ and W (``spec``; None: λ = 1 each).

        ``path="auto"`` takes the compiled kernels when the policy has one, numba is installed,
        the scores are floating-point and the batch holds at least ``fused.MIN_CANDIDATES``
        candidates (below that the reference is faster than loading the kernels), else the numpy
        reference; ``"fused"`` insists on the kernels (a ValueError says why they cannot be
        used); ``"reference"`` is the numpy path. The decisions are the same on every path.
        """
        if path not in PATHS:
            raise ValueError(f"path must be one of {', '.join(PATHS)}, got {path!r}")
        r = np.asarray(raw)
        if path == "reference":
            return self.decide_reference(r, spec)
        why_not = self.why_not_fused(r, spec)
        if path == "auto" and (why_not or r.size < fused.MIN_CANDIDATES * r.shape[-1]):
            return self.decide_reference(r, spec)
        if why_not:
            raise ValueError(f"policy {self.name!r} cannot take the fused path: {why_not}")
        return self._decide_fused(r, panel_spec(spec, r))

    def why_not_fused(self, r: np.ndarray, spec: ConsensusSpec | None = None) -> str | None:
        """Why the compiled kernels cannot decide scores ``r``, or None when they can."""
        if self.kernel is None:
            return "the policy has no compiled kernel"
        if not fused.available():
            return "numba is not installed (pip install 'accord[fast]')"
        if r.dtype.kind != "f":
            return f"scores are not floating-point (dtype {r.dtype})"
        if r.ndim < 2 or r.shape[-1] < 2 or r.size == 0:
            return f"scores of shape {r.shape} are not a non-empty (..., n, m) batch with m >= 2"
        return fused.unsupported(r.shape[-2], r.shape[-1], spec is not None and spec.influence is not None)

    def decide_reference(self, raw, spec: ConsensusSpec | None = None) -> Decision:
        """The numpy reference path of :meth:`decide`."""
        r = as_scores(raw)
        if r.ndim < 2:
            raise ValueError(f"decide() needs scores of shape (..., n, m); got shape {r.shape}")
        st = self.stats(r, spec)
        accepted, key, fb_key = self._decide(st)
        chosen, acc, fallback, final = choose(accepted, key, fb_key, st)
        return Decision(self.name, chosen, acc, fallback, final, st)

    def _decide_fused(self, raw: np.ndarray, spec: ConsensusSpec) -> Decision:
        r = np.ascontiguousarray(raw, dtype=np.float64)
        n, m = r.shape[-2:]
        kernel = fused.StepKernel(self.kernel, spec.lam, spec.influence, *self.kernel_thresholds())
        steps = r.reshape(-1, n, m)
        out = kernel.decide(steps)
        redo = np.flatnonzero(out.redo)
        ref = (
            self.decide_reference(steps[redo], spec) if redo.size else None
        )  # near a threshold, tied or a failed judge
        if ref is not None:
            out.chosen[redo], out.accepted[redo], out.fallback[redo] = ref.chosen, ref.accepted, ref.fallback
        batch = r.shape[:-2]

        def rank_key() -> np.ndarray:
            key = kernel.rank_keys(steps)
            if ref is not None:
                key[redo] = ref.rank_key
            return key.reshape(batch + (n,))

        return Decision(
            self.name,
            out.chosen.reshape(batch),
            out.accepted.reshape(batch + (n,)),
            out.fallback.reshape(batch),
            rank_key,
            lambda: self.stats(r, spec),
            path="fused",
        )

    def kernel_thresholds(self) -> tuple[float, float]:
        """(tau, eps) for the kernel: a candidate is accepted iff mean > tau and spread < eps."""
        return -np.inf, np.inf

    def _decide(self, st: ConsensusStats):  # pragma: no cover - abstract
        raise NotImplementedError

    def params(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def panel_spec(spec: ConsensusSpec | None, r: np.ndarray) -> ConsensusSpec:
    """The panel's spec, or λ = 1 for each judge of a bare score matrix."""
    if spec is None:
        return ConsensusSpec.equal(r.shape[-1])
    if not isinstance(spec, ConsensusSpec):
        raise TypeError(f"decide() takes the panel's ConsensusSpec, got {type(spec).__name__}")
    return spec


def _all(st: ConsensusStats) -> np.ndarray:
    return np.ones(st.mean.shape, dtype=bool)


def _check_thresholds(tau: float, eps: float) -> None:
    if not np.isfinite(tau) or not np.isfinite(eps):
        raise ValueError(f"thresholds must be finite, got tau={tau}, eps={eps}")
    if eps <= 0:
        raise ValueError(f"eps must be > 0, got {eps}")


@dataclass(frozen=True)
class _Thresholded(Policy):
    """A rule accepting a candidate whose mean clears ``tau`` while its spread stays under ``eps``."""

    tau: float = DEFAULT_TAU
    eps: float = DEFAULT_EPS

    def __post_init__(self):
        _check_thresholds(self.tau, self.eps)

    def kernel_thresholds(self):
        return self.tau, self.eps


@register_policy("verdict")
@dataclass(frozen=True)
class Verdict(_Thresholded):
    """VERDICT: accept s̄* > tau and Δ* < eps; choose the highest s̄* among the accepted, else the highest s̄* - Δ*."""

    kernel: ClassVar[KernelRule | None] = KernelRule("consensus", "consensus")

    def _decide(self, st):
        return accept_and_rank(st.mean, st.dispersion, self.tau, self.eps, False)


@register_policy("mean_preserving")
@dataclass(frozen=True)
class MeanPreservingVerdict(Verdict):
    """VERDICT with s* shifted by (r̄ - s̄*): the consensus mean equals the raw mean; Δ* is shift-invariant."""

    kernel: ClassVar[KernelRule | None] = KernelRule("raw", "consensus")

    def view(self, st, spec):
        shift = (st.raw_mean - st.mean)[..., None]
        return summarize(st.raw, st.consensus + shift, spec.lam)


@register_policy("no_rejection")
@dataclass(frozen=True)
class NoRejection(Policy):
    """Ablation without the filter: rank every candidate by s̄* - Δ*."""

    kernel: ClassVar[KernelRule | None] = KernelRule("consensus", "consensus", rank_by_margin=True)

    def _decide(self, st):  # every candidate accepted, ranked by the margin s̄* - Δ*
        return accept_and_rank(st.mean, st.dispersion, -np.inf, np.inf, True)


@register_policy("no_selection")
@dataclass(frozen=True)
class NoSelection(Verdict):
    """Ablation without the ranking: VERDICT's filter, a seeded random choice among the accepted."""

    kernel: ClassVar[KernelRule | None] = None  # random ranking
    seed: int = 0

    def _decide(self, st):
        acc, _, fb = super()._decide(st)
        rand = np.random.default_rng(self.seed).random(st.mean.shape)
        return acc, rand, fb


@register_policy("raw_average")
@dataclass(frozen=True)
class RawAverage(_Thresholded):
    """The dual rule on raw scores: accept raw mean > tau and raw mean absolute deviation < eps."""

    kernel: ClassVar[KernelRule | None] = KernelRule("raw", "raw")

    def _decide(self, st):
        return accept_and_rank(st.raw_mean, st.raw_mad, self.tau, self.eps, False)


@register_policy("mean")
@dataclass(frozen=True)
class Mean(Policy):
    """Rank by the raw mean score."""

    kernel: ClassVar[KernelRule | None] = KernelRule("raw", None)

    def _decide(self, st):
        return _all(st), st.raw_mean, st.raw_mean


@register_policy("max")
@dataclass(frozen=True)
class Max(Policy):
    """Rank by the highest raw score."""

    def _decide(self, st):
        return _all(st), st.raw_max, st.raw_max


@register_policy("min")
@dataclass(frozen=True)
class Min(Policy):
    """Rank by the lowest raw score."""

    def _decide(self, st):
        return _all(st), st.raw_min, st.raw_min


@register_policy("majority")
@dataclass(frozen=True)
class Majority(Policy):
    """Accept when a strict majority of judges score above 0.5; rank by the raw mean."""

    def _decide(self, st):
        votes = np.sum(st.raw > 0.5, axis=-1)  # NaN compares False
        acc = votes * 2 > st.n_scored
        return acc, st.raw_mean, st.raw_mean


@register_policy("variance")
@dataclass(frozen=True)
class Variance(Policy):
    """Accept when the raw (population) variance is at most max_var; rank by the raw mean."""

    max_var: float = DEFAULT_MAX_VAR

    def __post_init__(self):
        if not np.isfinite(self.max_var) or self.max_var < 0:
            raise ValueError(f"max_var must be a finite number >= 0, got {self.max_var}")

    def _decide(self, st):
        return st.raw_var <= self.max_var, st.raw_mean, st.raw_mean


@register_policy("random")
@dataclass(frozen=True)
class Random(Policy):
    """A seeded random choice among the candidates with a score."""

    seed: int = 0

    def _decide(self, st):
        rand = np.random.default_rng(self.seed).random(st.mean.shape)
        return _all(st), rand, rand


@register_policy("single_judge")
@dataclass(frozen=True)
class SingleJudge(Policy):
    """One judge alone: rank by column ``judge``'s raw score; the baseline a panel has to beat."""

    judge: int = 0  # column of the raw scores

    def __post_init__(self):
        j = self.judge
        if (
            isinstance(j, bool)
            or not isinstance(j, (int, float, np.integer, np.floating))
            or not float(j).is_integer()
            or j < 0
        ):
            raise ValueError(f"judge must be a column index >= 0, got {j!r}")
        object.__setattr__(self, "judge", int(j))

    def _decide(self, st):
        m = st.raw.shape[-1]
        if self.judge >= m:
            raise ValueError(f"single_judge: judge {self.judge} is not a column of scores from {m} judges")
        col = st.raw[..., self.judge]
        key = np.where(np.isnan(col), -1.0, col)  # scores lie in [0, 1]: an unscored candidate ranks last
        return _all(st), key, key


def list_policies() -> list[str]:
    """The policies held: the built-in ones and those of plugins loaded so far."""
    return sorted(p.name for p in POLICIES.loaded())


def get_policy(name: str, **params) -> Policy:
    """A policy by registered name (``-`` and ``_`` alike, any case; an installed plugin's too);
    an unknown name or parameter for that rule is a ValueError."""
    key = name.strip().lower().replace("-", "_") if isinstance(name, str) else name
    if key not in POLICIES:
        raise ValueError(POLICIES.unknown(name))
    cls = POLICIES.get(key)
    allowed = {f.name for f in fields(cls)}
    panel = sorted(set(params) & {"lambdas", "influence"})
    if panel:
        raise ValueError(
            f"policy {key!r} takes no {' or '.join(panel)}: λ and W belong to the panel; "
            f"pass ConsensusSpec(lambdas, influence) to decide()"
        )
    unknown = set(params) - allowed
    if unknown:
        raise ValueError(f"policy {key!r} takes no parameter(s) {sorted(unknown)}; it takes {sorted(allowed)}")
    return cls(**params)
