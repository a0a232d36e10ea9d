"""Adaptive verification's margin, chosen without reference answers.

Adaptive verification scores a step's first candidate(s) and, when one is accepted with margin
(s̄* >= ``min_mean`` and Δ* <= ``max_dispersion``), skips the rest. Whether a margin is safe can be
read off fully verified steps (all n candidates scored): at such a step adaptive would stop exactly
when its first group holds a candidate accepted with that margin, and would then take it; elsewhere
it decides over all n, as full verification does. So a full run (or its warm-up) tells, for every
margin, how often adaptive would stop and how often its step would be the one full verification
chose. :func:`calibrate_margin` takes the margin that stops most often while agreeing with full
verification on at least ``target_agreement`` of the steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from accord.consensus_core import ConsensusSpec, Policy


@dataclass(frozen=True)
class Margin:
    """A margin and what it does on the replayed steps."""

    min_mean: float
    max_dispersion: float
    stop_rate: float  # share of steps where adaptive would skip the rest
    agreement: float  # share of steps where adaptive's step equals full verification's (same text)
    steps: int

    def as_dict(self) -> dict[str, float | int | None]:
        """For JSON records: a margin that never stops has infinite bounds, written as null."""
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class _Replay:
    """Per replayable step: s̄* and Δ* of the first group's chosen candidate (-inf / inf where none
    is accepted) and whether taking it would be taking full verification's step."""

    mean: np.ndarray
    disp: np.ndarray
    agrees: np.ndarray

    def margin(self, min_mean: float, max_dispersion: float) -> Margin:
        stop = (self.mean >= min_mean) & (self.disp <= max_dispersion)
        n = len(stop)
        agree = ~stop | self.agrees
        return Margin(
            float(min_mean),
            float(max_dispersion),
            float(stop.mean()) if n else 0.0,
            float(agree.mean()) if n else 1.0,
            n,
        )


def _replayable(
    steps: Sequence[tuple[np.ndarray, Sequence[str]]], policy: Policy, group: int, spec: ConsensusSpec | None
) -> _Replay:
    means, disps, agrees = [], [], []
    for raw, cands in steps:
        raw = np.asarray(raw, dtype=float)
        if raw.ndim != 2 or raw.shape[0] != len(cands) or raw.shape[0] <= group:
            continue  # a step with no candidates left to skip tells nothing about the margin
        full = policy.decide(raw[None], spec)
        head = policy.decide(raw[None, :group], spec)
        c = int(head.chosen[0])
        ok = c >= 0 and bool(head.accepted[0][c])
        means.append(float(head.stats.mean[0][c]) if ok else -np.inf)
        disps.append(float(head.stats.dispersion[0][c]) if ok else np.inf)
        agrees.append(ok and int(full.chosen[0]) >= 0 and cands[c] == cands[int(full.chosen[0])])
    return _Replay(np.array(means, dtype=float), np.array(disps, dtype=float), np.array(agrees, dtype=bool))


def replay_margin(
    steps: Sequence[tuple[np.ndarray, Sequence[str]]],
    policy: Policy,
    min_mean: float,
    max_dispersion: float,
    group: int = 1,
    spec: ConsensusSpec | None = None,
) -> Margin:
    """What margin (``min_mean``, ``max_dispersion``) would do on fully verified ``steps`` of (raw (n, m),
    candidates), decided with the panel's ``spec`` (None: λ = 1 each)."""
    return _replayable(steps, policy, group, spec).margin(min_mean, max_dispersion)


def calibrate_margin(
    steps: Sequence[tuple[np.ndarray, Sequence[str]]],
    policy: Policy,
    target_agreement: float = 0.95,
    group: int = 1,
    spec: ConsensusSpec | None = None,
) -> Margin:
    """The margin that stops most often on fully verified ``steps`` while adaptive's step equals full
    verification's on at least ``target_agreement`` of them (ties: the stricter margin)."""
    if not 0.0 < target_agreement <= 1.0:
        raise ValueError(f"target_agreement must be in (0, 1], got {target_agreement}")
    if group < 1:
        raise ValueError(f"group must be >= 1, got {group}")
    rep = _replayable(steps, policy, group, spec)
    if not len(rep.mean):
        raise ValueError("no fully verified step with candidates beyond the first group to calibrate on")
    accepted = np.isfinite(rep.mean)
    best = Margin(np.inf, -np.inf, 0.0, 1.0, len(rep.mean))  # never stop: agrees everywhere
    for m in sorted(set(rep.mean[accepted].tolist()), reverse=True):  # strictest first: ties keep the stricter
        for d in sorted(set(rep.disp[accepted].tolist())):
            got = rep.margin(m, d)
            if got.agreement >= target_agreement and got.stop_rate > best.stop_rate:
                best = got
    return best
