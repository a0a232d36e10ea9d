"""Judge every step of a solution in context, and turn the scores into its output record.

Step k is judged with the problem and steps 0..k-1 as context (:class:`StepContext`, made as the
steps advance: :func:`step_contexts`), the
solution's reference answer (for the final-answer judge), and in ``metadata`` whether it is the
last step (``final``) and the text of step k+1 (``next_step``: "This is impossible." tells a math
judge that a false equation was derived on purpose; after a lead-in, the whole display it announces,
:func:`accord.mathcheck.display_after`). Scores go through an optional
:class:`~accord.adapters._cache.JudgeCache`, keyed by judge, judge settings and the context's chained key,
so a re-run (another policy, a resumed file) never pays for a judge call twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from accord.adapters import JudgeCache, code_digest
from accord.errors import UserError
from accord.mathcheck import CLAIMS_NOTHING, display_after, is_lead_in, read_outline
from accord.protocols import StepContext, StepsBefore, context_key
from accord.verify.loop import Panel, build_panel
from accord.verify.solutions._labelling import UNCERTAIN, explain, prediction, rule_stats, three_way, with_roles
from accord.verify.solutions._reading import Solution
from accord.verify.solutions._settings import VerifySettings
from accord.verify.solutions._uncertainty import uncertain_reason


@dataclass(frozen=True)
class StepScores:
    scores: dict[str, float | None]
    reasons: dict[str, str | None]


def make_panel(settings: VerifySettings) -> Panel:
    """The panel the settings describe (a UserError naming what is wrong in them)."""
    try:
        return build_panel(list(settings.judges), influence=settings.influence, timeout_s=settings.judge_timeout_s)
    except (TypeError, ValueError) as exc:
        raise UserError(f"judges: {exc}") from None


def step_contexts(sol: Solution) -> Iterator[StepContext]:
    """Each step's context, made as the steps advance: the steps before are a view, not a copy, and
    ``metadata["context_key"]`` is chained from the step before
    (:func:`~accord.protocols.context_key`), so a step's context costs the same early or late in a
    long solution."""
    key = context_key("", sol.problem)
    last = len(sol.steps) - 1
    for k, step in enumerate(sol.steps):
        nxt = "" if k == last else display_after(sol.steps, k) if is_lead_in(step) else sol.steps[k + 1]
        yield StepContext(
            sol.problem,
            StepsBefore(sol.steps, k),
            reference=sol.reference,
            metadata={"final": k == last, "next_step": nxt, "context_key": key},
        )
        key = context_key(key, step)


class ScoreCache:
    """Judge calls by (column, judge settings, whole context), in a :class:`JudgeCache`."""

    def __init__(self, names: Sequence[str], info: dict, cache: JudgeCache | None):
        self.names = list(names)
        self.cache = cache
        code = code_digest()  # a newer accord judges afresh rather than reuse an older one's verdicts
        self.settings = {
            n: json.dumps({"judge": info.get(n, {}), "code": code}, sort_keys=True, default=str) for n in self.names
        }

    @staticmethod
    def prompt(ctx: StepContext, step: str) -> str:
        """The cache key's text: the context's chained key (the problem and every step before, in
        one hash) when it has one, else the whole context."""
        meta = {k: ctx.metadata.get(k) for k in ("final", "next_step")}
        key = ctx.metadata.get("context_key")
        before = key if isinstance(key, str) else [ctx.question, list(ctx.steps)]
        return json.dumps([before, step, ctx.reference, meta], ensure_ascii=False)

    def get(self, ctx: StepContext, step: str) -> StepScores | None:
        if self.cache is None:
            return None
        prompt = self.prompt(ctx, step)
        hits = [self.cache.get(n, self.settings[n], prompt) for n in self.names]
        if any(h is None for h in hits):
            return None
        return StepScores(
            {n: h.value for n, h in zip(self.names, hits)}, {n: h.reason for n, h in zip(self.names, hits)}
        )

    def put(self, ctx: StepContext, step: str, scored: StepScores) -> None:
        if self.cache is not None:
            prompt = self.prompt(ctx, step)
            for n in self.names:
                self.cache.put(n, self.settings[n], prompt, scored.scores[n], scored.reasons[n])

    def get_solution(self, sol: Solution) -> list[StepScores] | None:
        """Every step's scores from the cache, or None if one is missing."""
        out = []
        for ctx, step in zip(step_contexts(sol), sol.steps):
            hit = self.get(ctx, step)
            if hit is None:
                return None
            out.append(hit)
        return out

    def put_solution(self, sol: Solution, scored: Sequence[StepScores]) -> None:
        for ctx, step, sc in zip(step_contexts(sol), sol.steps, scored):
            self.put(ctx, step, sc)


class PanelScorer:
    """A panel behind a judge-call cache."""

    def __init__(self, panel: Panel, cache: JudgeCache | None = None):
        self.panel = panel
        self.cached = ScoreCache(panel.names, panel.describe(), cache)

    def score(self, ctx: StepContext, step: str) -> StepScores:
        hit = self.cached.get(ctx, step)
        if hit is not None:
            return hit
        names = self.panel.names
        ps = self.panel.score(ctx, [step])
        scores = {n: (None if np.isnan(v) else float(v)) for n, v in zip(names, ps.raw[0])}
        reasons = dict(zip(names, ps.reasons[0] if ps.reasons is not None else ps.failures[0]))
        out = StepScores(scores, reasons)
        self.cached.put(ctx, step, out)
        return out


def judge_solution(sol: Solution, scorer: PanelScorer, progress=None) -> list[StepScores]:
    out = []
    for ctx, step in zip(step_contexts(sol), sol.steps):
        out.append(scorer.score(ctx, step))
        if progress is not None:
            progress(1)
    return out


def raw_matrix(steps: Sequence[dict], judges: Sequence[str]) -> np.ndarray:
    """(steps, judges) raw scores of an output record's steps, NaN where a judge gave none."""
    return np.array(
        [[np.nan if s["scores"].get(j) is None else float(s["scores"][j]) for j in judges] for s in steps], dtype=float
    ).reshape(len(steps), len(judges))


def solution_record(
    sol: Solution,
    scored: Sequence[StepScores],
    judges: Sequence[str],
    lambdas: Sequence[float],
    policy: str,
    tau: float,
    eps: float,
    influence=None,
    scale=None,
) -> dict:
    """The output line of one solution: prediction, step labels, and per step its role in the proof
    (:func:`accord.mathcheck.read_outline`), the raw scores (null with the reason), the rule's mean
    and dispersion, the label, its reason and evidence.

    With a fitted judge ``scale`` (:class:`accord.verify.loop.JudgeScale`) the rule reads the
    mapped scores, recorded beside the raw ones as ``scaled``."""
    roles = [s.role for s in read_outline(sol.problem, sol.steps).steps]
    steps = [
        {"step_number": k + 1, "text": text, "role": role, "scores": s.scores, "reasons": s.reasons}
        for k, (text, role, s) in enumerate(zip(sol.steps, roles, scored))
    ]
    raw = raw_matrix(steps, judges)
    seen = raw if scale is None else scale.apply(raw)
    st = rule_stats(seen, policy, judges, lambdas, influence)
    labels = with_roles(three_way(st, tau, eps), st, roles, CLAIMS_NOTHING)
    for k, (step, label) in enumerate(zip(steps, labels)):
        mean = None if np.isnan(st.score[k]) else float(st.score[k])
        disp = None if st.dispersion is None or np.isnan(st.dispersion[k]) else float(st.dispersion[k])
        if scale is not None:
            step["scaled"] = {j: (None if np.isnan(v) else float(v)) for j, v in zip(judges, seen[k])}
        reason, evidence = explain(label, step.get("scaled", step["scores"]), step["reasons"], mean, disp, tau, eps)
        step.update({"mean": mean, "dispersion": disp, "label": label, "reason": reason})
        if label == UNCERTAIN:
            step["uncertain_reason"] = uncertain_reason(step["scores"], step["reasons"], disp, eps)
        if evidence:
            step["evidence"] = evidence
    first = prediction(labels)
    rec = {
        "id": sol.id,
        "problem": sol.problem,
        "prediction": first,
        "first_invalid_step_number": first + 1 if first >= 0 else None,
        "step_labels": labels,
        "policy": policy,
        "tau": tau,
        "eps": eps,
        "judges": list(judges),
        "lambdas": [float(x) for x in lambdas],
        "steps": steps,
    }
    if scale is not None:
        rec["calibration"] = scale.method
    if sol.reference is not None:
        rec["reference"] = sol.reference
    if sol.first_wrong is not None:
        rec["label"] = sol.first_wrong
    return rec
