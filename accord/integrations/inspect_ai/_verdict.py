"""``accord/verdict``: several scorers' values for one sample combined by the VERDICT consensus.

The values r (one per scorer, grader or epoch, in their order) become Friedkin–Johnsen consensus
scores s* with each one's stubbornness λ; their mean s̄* is the reduced value (``value="accepted"``:
1 when the accept rule fires, else 0) and the rule fires when s̄* > τ and the dispersion Δ* < ε,
the panel's agreement. Values are read as inspect's metrics read them (``C`` 1, ``P`` 0.5, ``I`` and
``N`` 0, booleans, yes/no, numbers); a value that is unscored, outside [0, 1] or not a number is
left out of the consensus (a failed judge) and recorded under ``ignored``; λ given for another
number of values than came (a scorer that returned nothing) falls back to λ = 1 each, recorded
under ``lambda_fallback``. The metadata carries s*, s̄*, Δ*, whether the rule fired, λ, τ, ε and each
value with its explanation.

``accord/panel`` is the same reduction as a scorer of named scorers, for ``inspect score``, which
takes one scorer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import anyio
import numpy as np
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    PARTIAL,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    mean,
    score_reducer,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_create

from accord.consensus_core import DEFAULT_EPS, DEFAULT_TAU, ConsensusSpec, get_policy, parse_lambdas

VALUES = ("mean", "accepted")
_WORDS = {CORRECT: 1.0, PARTIAL: 0.5, INCORRECT: 0.0, NOANSWER: 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def _as_unit(value: Any) -> tuple[float, str | None]:
    """A score value as a number in [0, 1], or NaN and why it is left out."""
    if isinstance(value, bool):
        return float(value), None
    if isinstance(value, (int, float)):
        x = float(value)
        if math.isnan(x):
            return math.nan, "unscored"
        return (x, None) if 0.0 <= x <= 1.0 else (math.nan, f"{x:g} is outside [0, 1]")
    if isinstance(value, str):
        word = value.strip()
        if word in _WORDS or word.lower() in _WORDS:
            return _WORDS.get(word, _WORDS.get(word.lower(), math.nan)), None
        try:
            return _as_unit(float(word))
        except ValueError:
            return math.nan, f"{value!r} is not a score"
    return math.nan, f"a {type(value).__name__} value: one number per scorer is combined"


def _check(lambdas, tau: float, eps: float, value: str) -> tuple[tuple[float, ...] | None, Any]:
    """λ (None: 1 each) and the rule, checked when the reducer is made: bad options fail at once."""
    if value not in VALUES:
        raise ValueError(f"value must be one of {', '.join(VALUES)}, got {value!r}")
    lams = None if lambdas is None else parse_lambdas(lambdas)
    return lams, get_policy("verdict", tau=tau, eps=eps)


def _reduce(scores: Sequence[Score | None], lams: tuple[float, ...] | None, rule, value: str) -> Score:
    raw, ignored = [], {}
    for i, s in enumerate(scores):
        x, why = (math.nan, "no score") if s is None else _as_unit(s.value)
        raw.append(x)
        if why is not None:
            ignored[str(i + 1)] = why
    m = len(raw)
    fallback = None
    if lams is None:
        used = (1.0,) * m
    elif len(lams) == 1:
        used = lams * m
    elif len(lams) != m:
        used = (1.0,) * m
        fallback = f"{len(lams)} λ given for {m} values (a scorer gave none?): λ = 1 for each"
    else:
        used = lams
    scored = [x for x in raw if not math.isnan(x)]
    panel = [
        {"value": None if s is None else s.value, "explanation": None if s is None else s.explanation} for s in scores
    ]
    if not scored:
        return Score.unscored(
            reason="no value to combine",
            explanation="accord/verdict: no scorer gave a value in [0, 1]",
            metadata={"values": [None] * m, "ignored": ignored, "panel": panel},
        )
    if m == 1:  # one value: its own consensus, no dispersion
        s_star, s_mean, disp = [raw[0]], raw[0], 0.0
        accepted = s_mean > rule.tau and disp < rule.eps
    else:
        r = np.array([raw], dtype=float)  # one candidate, m judges
        decision = rule.decide(r, ConsensusSpec(used), path="reference")
        st = decision.stats
        s_star = [None if math.isnan(v) else float(v) for v in st.consensus[0]]
        s_mean, disp = float(st.mean[0]), float(st.dispersion[0])
        accepted = bool(decision.accepted[0])
    fired = "accepted" if accepted else "not accepted"
    shown = ", ".join("–" if math.isnan(x) else f"{x:g}" for x in raw)
    explanation = (
        f"VERDICT: s̄* = {s_mean:.3f}, Δ* = {disp:.3f}: {fired} "
        f"(the rule: s̄* > τ = {rule.tau:g} and Δ* < ε = {rule.eps:g}); "
        f"values {shown} with λ {', '.join(f'{x:g}' for x in used)}"
    )
    metadata = {
        "mean": s_mean,
        "dispersion": disp,
        "accepted": accepted,
        "consensus": s_star,
        "values": [None if math.isnan(x) else x for x in raw],
        "lambdas": list(used),
        "tau": rule.tau,
        "eps": rule.eps,
        "scored": len(scored),
        "panel": panel,
    }
    if ignored:
        metadata["ignored"] = ignored
    if fallback:
        metadata["lambda_fallback"] = fallback
    answer = next((s.answer for s in scores if s is not None and s.answer is not None), None)
    return Score(
        value=s_mean if value == "mean" else float(accepted), answer=answer, explanation=explanation, metadata=metadata
    )


@score_reducer(name="accord/verdict")
def verdict(
    lambdas: list[float] | float | str | None = None,
    tau: float = DEFAULT_TAU,
    eps: float = DEFAULT_EPS,
    value: str = "mean",
) -> ScoreReducer:
    """Combine a sample's scores by the VERDICT consensus (see the module docstring).

    Args:
        lambdas: λ per score, in the order the scores come (the scorers of ``multi_scorer``, the
            epochs); one number for all; default 1 each.
        tau: the rule fires when s̄* > τ (default 0.6).
        eps: ... and Δ* < ε (default 0.1).
        value: the reduced value: ``mean`` (s̄*, default) or ``accepted`` (1 or 0).
    """
    lams, rule = _check(lambdas, tau, eps, value)

    def reduce(scores: list[Score]) -> Score:
        return _reduce(scores, lams, rule, value)

    return reduce


def _named(spec: Any) -> Scorer:
    """A scorer from its name (``"accord/answer_match"``), a mapping ``{"name": ..., **args}``, or itself."""
    if callable(spec):
        return spec
    if isinstance(spec, str):
        return registry_create("scorer", spec.strip())
    if isinstance(spec, dict) and isinstance(spec.get("name"), str):
        args = {k: v for k, v in spec.items() if k != "name"}
        return registry_create("scorer", spec["name"], **args)
    raise ValueError(f"a scorer is a name or {{'name': NAME, ...args}}, got {spec!r}")


@scorer(metrics=[mean(), stderr()], name="panel")  # registered as accord/panel
def panel(
    scorers: list[Any] | str,
    lambdas: list[float] | float | str | None = None,
    tau: float = DEFAULT_TAU,
    eps: float = DEFAULT_EPS,
    value: str = "mean",
) -> Scorer:
    """Run several scorers and reduce their scores with ``accord/verdict``.

    Args:
        scorers: scorers by name (``"match,accord/answer_match"`` or a list), each may be
            ``{"name": NAME, ...args}``; in Python, scorer objects too.
        lambdas: λ per scorer, in that order (default 1 each).
        tau: the rule fires when s̄* > τ (default 0.6).
        eps: ... and Δ* < ε (default 0.1).
        value: the score: ``mean`` (s̄*, default) or ``accepted`` (1 or 0).
    """
    specs = [s for s in scorers.split(",") if s.strip()] if isinstance(scorers, str) else list(scorers)
    if len(specs) < 2:
        raise ValueError(f"accord/panel combines at least 2 scorers, got {len(specs)}")
    lams, rule = _check(lambdas, tau, eps, value)
    if lams is not None and len(lams) not in (1, len(specs)):
        raise ValueError(f"{len(lams)} λ for {len(specs)} scorers: give one λ per scorer (or one for all)")
    members = [_named(s) for s in specs]

    async def score(state: TaskState, target: Target) -> Score:
        results: list[Score | None] = [None] * len(members)

        async def one(i: int) -> None:
            results[i] = await members[i](state, target)

        async with anyio.create_task_group() as tg:
            for i in range(len(members)):
                tg.start_soon(one, i)
        return _reduce(results, lams, rule, value)

    return score
