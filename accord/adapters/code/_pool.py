"""A candidate pool that needs no model: each problem's canonical solution plus AST mutants, scored
by the code panel, labelled by the hidden tests; then every selection policy is evaluated on it.

Ties are handled honestly: when several candidates share the best rank key, the policy's pick is
counted as the expected correctness of a uniformly random choice among them (the fraction of the
tied candidates that are correct), not as whatever the lowest index happens to be. The candidate
order is also shuffled per problem, so the canonical solution has no fixed position.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from accord.adapters.code._mutants import mutate
from accord.consensus_core import ConsensusSpec, bootstrap_ci, get_policy

TIE_TOL = 1e-9


@dataclass
class PoolProblem:
    """One problem's pool: candidate programs, what each is, the panel's raw scores, the labels."""

    id: str
    kinds: list[str]  # "canonical" or the mutation description
    programs: list[str] = field(repr=False)
    scores: list[list[float]]  # n x m, NaN for a judge that could not score
    reasons: list[list[str | None]] = field(repr=False)
    correct: list[bool]


@dataclass
class PolicyResult:
    """How often a policy picks a correct program, over the problems of a pool."""

    policy: str
    accuracy: float  # mean expected correctness with uniform tie-breaking
    ci_low: float
    ci_high: float
    first_index_accuracy: float  # the policy's own pick (ties to the lowest index)
    tie_rate: float  # share of problems where the best key was shared by 2+ candidates
    mixed_tie_rate: float  # ... and the tied set held both correct and wrong programs
    n_problems: int


def build_pool(tasks, panel, n_mutants: int = 5, seed: int = 0, progress: Callable | None = None) -> list[PoolProblem]:
    """Score canonical + mutants of every task with ``panel`` (anything with ``score(ctx, candidates)``
    giving ``raw`` (n, m) and ``reasons``, e.g. a Panel) and label them by the hidden tests."""
    out = []
    for k, task in enumerate(tasks):
        whole = task.question + task.canonical_solution
        mutants = mutate(whole, task.entry_point, count=n_mutants, seed=seed)
        cands = [task.canonical_solution] + [m.source for m in mutants]
        kinds = ["canonical"] + [f"{m.kind}: {m.description}" for m in mutants]
        order = list(range(len(cands)))
        random.Random(f"{seed}:{task.id}").shuffle(order)
        cands, kinds = [cands[i] for i in order], [kinds[i] for i in order]
        ctx = task.context()
        scored = panel.score(ctx, cands)
        scores = [[float(x) for x in row] for row in scored.raw]
        reasons = [list(row) for row in scored.reasons]
        programs = [task.spec.program([], c) for c in cands]
        correct = [v == 1.0 for v in task.score_programs(programs)]
        out.append(PoolProblem(task.id, kinds, programs, scores, reasons, correct))
        if progress:
            progress(k + 1, len(tasks))
    return out


def expected_pick(rank_key: np.ndarray, correct: np.ndarray) -> tuple[float, bool, bool]:
    """(expected correctness of a uniform pick among the best-ranked, tied?, tie mixes labels?).

    When no candidate could be ranked (no judge scored any), all of them tie."""
    finite = np.isfinite(rank_key)
    if not finite.any():
        tied = np.ones(rank_key.shape, dtype=bool)
    else:
        best = np.max(rank_key[finite])
        tied = finite & (np.abs(rank_key - best) <= TIE_TOL)
    share = float(np.mean(correct[tied]))
    return share, bool(tied.sum() > 1), bool(0.0 < share < 1.0)


def evaluate_policies(pool: Sequence[PoolProblem], policies: Sequence[str], lambdas=None) -> list[PolicyResult]:
    """Every policy on every problem, plus the references ``pool`` (a random candidate) and
    ``oracle`` (a correct candidate whenever there is one), with the panel's λ (``lambdas``, one
    per judge column; None: 1.0 each)."""
    spec = ConsensusSpec(tuple(lambdas)) if lambdas is not None else None
    results = []
    for name in policies:
        policy = get_policy(name)
        shares, first, ties, mixed = [], [], [], []
        for prob in pool:
            raw = np.asarray(prob.scores, dtype=float)
            correct = np.asarray(prob.correct, dtype=bool)
            d = policy.decide(raw, spec)
            share, tie, mix = expected_pick(np.asarray(d.rank_key, dtype=float), correct)
            shares.append(share)
            ties.append(tie)
            mixed.append(mix)
            first.append(float(correct[int(d.chosen)]) if int(d.chosen) >= 0 else 0.0)
        results.append(_summary(name, shares, first, ties, mixed))
    base = [float(np.mean(p.correct)) for p in pool]
    results.append(_summary("pool", base, base, [False] * len(pool), [False] * len(pool)))
    oracle = [float(any(p.correct)) for p in pool]
    results.append(_summary("oracle", oracle, oracle, [False] * len(pool), [False] * len(pool)))
    return results


def _summary(name, shares, first, ties, mixed) -> PolicyResult:
    lo, hi = bootstrap_ci(shares)
    n = len(shares)
    return PolicyResult(
        name,
        float(np.mean(shares)) if n else float("nan"),
        lo,
        hi,
        float(np.mean(first)) if n else float("nan"),
        float(np.mean(ties)) if n else 0.0,
        float(np.mean(mixed)) if n else 0.0,
        n,
    )


def pool_to_json(pool: Sequence[PoolProblem], judges: Sequence[str]) -> dict:
    """A replayable record: every raw score, reason and label (NaN written as null)."""
    probs = []
    for p in pool:
        d = asdict(p)
        d["scores"] = [[None if np.isnan(x) else float(x) for x in row] for row in p.scores]
        probs.append(d)
    return {"judges": list(judges), "problems": probs}


def pool_from_json(data: dict) -> tuple[list[PoolProblem], list[str]]:
    """Inverse of :func:`pool_to_json`; a malformed record is a ValueError naming the problem."""
    try:
        judges = list(data["judges"])
        pool = []
        for i, d in enumerate(data["problems"]):
            scores = [[np.nan if x is None else float(x) for x in row] for row in d["scores"]]
            if len(scores) != len(d["correct"]) or any(len(r) != len(judges) for r in scores):
                raise ValueError(f"problem {i} ({d.get('id')}): score table does not match candidates x judges")
            pool.append(
                PoolProblem(d["id"], d["kinds"], d["programs"], scores, d["reasons"], [bool(c) for c in d["correct"]])
            )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a saved code pool: missing or malformed field {exc}") from None
    return pool, judges
