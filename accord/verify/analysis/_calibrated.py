"""A recorded run replayed with its judges on one scale: does the accept rule fire, and does it help?

Given a run folder and a judge scale (fitted label-free on the run's own recorded scores, or a
saved ``calibration.json``, e.g. one fitted on a development split), every recorded context is
re-decided on the mapped scores, with VERDICT's τ, ε as given, or set on the scale from a target
acceptance rate. Reported per policy: accuracy over the problems whose replayed chain stays on
recorded ground, the share of decided steps where the accept rule fired, and accuracy when every
step fired vs when some step fell back; then paired comparisons (difference, paired bootstrap
interval, exact McNemar): VERDICT on the scale against the unverified chain, VERDICT as recorded,
Mean (raw) and the best single judge; and one plain sentence on whether the consensus beats Mean.

With no scale (``scale=None``) the replay is the raw-score replay: the recorded decisions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from accord.consensus_core import ConsensusSpec
from accord.verify.analysis._evaluation import paired_difference
from accord.verify.analysis._paired import with_task_scores
from accord.verify.analysis._records import Trace
from accord.verify.analysis._replay import ContextTree, ReplayResult, make_spec, replay
from accord.verify.loop import BASE, JudgeScale


def _fired(result: ReplayResult, decisions) -> dict[str, Any]:
    steps = fired = 0
    when_fired, when_fell = [], []
    for task, o in result.outcomes.items():
        flags = [not decisions[(task, cid)][2] for cid in o.contexts]
        steps += len(flags)
        fired += sum(flags)
        if o.correct is not None:
            (when_fired if flags and all(flags) else when_fell).append(o.correct)
    return {
        "steps": steps,
        "fired": fired,
        "fired_share": fired / steps if steps else None,
        "problems_fired": len(when_fired),
        "accuracy_fired": float(np.mean(when_fired)) if when_fired else None,
        "problems_fallback": len(when_fell),
        "accuracy_fallback": float(np.mean(when_fell)) if when_fell else None,
    }


def _row(trace: Trace, tree: ContextTree, spec, scale: JudgeScale | None) -> tuple[dict[str, float], dict[str, Any]]:
    r = replay(trace, spec, tree, scale=scale)
    c = r.correct_exact()
    info = {
        "policy": spec.title,
        "scale": None if scale is None else scale.method,
        "exact": r.n_exact,
        "n_tasks": r.n_tasks,
        "accuracy": float(np.mean(list(c.values()))) if c else None,
        **_fired(r, tree.decide(spec, scale)),
    }
    return c, info


def candidate_labels(tree: ContextTree, tasks, is_final) -> np.ndarray:
    """Per recorded candidate (contexts in tree order): 1 if taking it ends the chain with a right
    answer, 0 if wrong, NaN where the chain would go on (its correctness is not known yet). A step
    ends the chain when it ends the answer or the step budget is spent (the run's config.yaml)."""
    out = []
    depth = _depths(tree)
    last = tree.settings.max_steps
    for key, node in tree.nodes.items():
        task, steps = tasks.get(node.task_id), depth.get(key)
        for cand in node.candidates:
            if task is None or steps is None:
                out.append(np.nan)
            elif is_final(cand) or (last is not None and len(steps) + 1 >= last):
                out.append(float(task.score(list(steps) + ([cand] if cand.strip() else [])) >= 0.5))
            else:
                out.append(np.nan)
    return np.array(out, dtype=float)


def _depths(tree: ContextTree) -> dict[tuple[str, str], tuple[str, ...]]:
    """The accepted steps of every recorded context, found by walking from each task's root."""
    from accord.verify.loop import context_id

    found: dict[tuple[str, str], tuple[str, ...]] = {}
    todo = [(t, ()) for t in {k[0] for k in tree.nodes}]
    while todo:
        task, steps = todo.pop()
        key = (task, context_id(task, list(steps)))
        node = tree.nodes.get(key)
        if node is None or key in found:
            continue
        found[key] = steps
        todo.extend((task, steps + (c,)) for c in set(node.candidates) if c.strip())
    return found


def fit_scale_on_trace(
    trace: Trace, method: str, tree: ContextTree | None = None, tasks=None, is_final=None
) -> JudgeScale:
    """A judge scale fitted on every recorded context's scores (each context once); ``platt`` needs
    the run's ``tasks`` (by id) and ``is_final`` to label the candidates (:func:`candidate_labels`)."""
    tree = tree or ContextTree.from_trace(trace)
    rows = np.concatenate([n.raw for n in tree.nodes.values()])
    if method == "platt" and (tasks is None or is_final is None):
        raise ValueError("the platt scale needs labelled steps: the run's tasks with their reference answers")
    labels = candidate_labels(tree, tasks, is_final) if method == "platt" else None
    if labels is not None:
        known = labels[np.isfinite(labels)]
        if len(set(known.tolist())) < 2:
            what = "no recorded candidate ends a chain" if not len(known) else f"every one is {int(known[0])}"
            raise ValueError(f"the platt scale needs right and wrong labelled candidates; {what}")
    scale = JudgeScale(method, trace.steps[0].judges).fit(rows, labels)
    scale.source = (
        f"labelled: {int(np.isfinite(labels).sum())} candidates of this run, by their tasks' answers"
        if labels is not None
        else f"label-free: the {len(rows)} recorded candidates of this run"
    )
    return scale


def calibrated_replay(
    trace: Trace,
    scale: JudgeScale,
    *,
    target_rate: float | None = None,
    tau: float = 0.6,
    eps: float = 0.1,
    n_boot: int = 2000,
    seed: int = 0,
    tasks=None,
    is_final=None,
) -> dict[str, Any]:
    """The run re-decided on ``scale`` (see the module doc), JSON-ready. With the run's ``tasks`` (by id)
    and its generator's ``is_final``, a replayed chain ending on a candidate no recorded chain took is
    scored by its task (:func:`accord.verify.analysis._paired.with_task_scores`)."""
    tree = ContextTree.from_trace(trace)
    if tasks is not None and is_final is not None:
        tree = with_task_scores(tree, tasks, is_final)
    scale = scale.for_judges(trace.steps[0].judges)
    lambdas = trace.steps[0].lambdas
    if target_rate is not None:
        rows = np.concatenate([n.raw for n in tree.nodes.values()])
        scale.set_thresholds(rows, ConsensusSpec(lambdas, tree.settings.influence), target_rate=target_rate)
    if scale.thresholds is not None:
        tau, eps = scale.thresholds["tau"], scale.thresholds["eps"]
    verdict = make_spec("verdict", tau=tau, eps=eps)
    raw_verdict = make_spec("verdict", **{k: v for k, v in _recorded_verdict(trace).items() if v is not None})
    rows: dict[str, dict[str, Any]] = {}
    correct: dict[str, dict[str, float]] = {}
    for key, spec, sc in (
        ("verdict_scaled", verdict, scale),
        ("mean_scaled", make_spec("mean"), scale),
        ("verdict_raw", raw_verdict, None),
        ("mean_raw", make_spec("mean"), None),
    ):
        correct[key], rows[key] = _row(trace, tree, spec, sc)
    singles = {}
    for j, name in enumerate(trace.steps[0].judges):
        c, info = _row(trace, tree, make_spec("single_judge", judge=j), None)
        singles[name] = (c, info)
    best = max(singles, key=lambda n: (singles[n][1]["accuracy"] or -1, singles[n][1]["exact"]))
    correct["best_single_judge"], rows["best_single_judge"] = singles[best]
    rows["best_single_judge"]["judge"] = best
    if BASE in trace.chains():
        correct[BASE] = {t: e.correct for t, e in trace.end_of(BASE).items()}
    pairs = [
        ("verdict_scaled", BASE),
        ("verdict_scaled", "verdict_raw"),
        ("verdict_scaled", "mean_raw"),
        ("verdict_scaled", "mean_scaled"),
        ("verdict_scaled", "best_single_judge"),
        ("verdict_raw", "mean_raw"),
        ("mean_raw", BASE),
    ]
    comparisons = [
        {"first": a, "second": b, **paired_difference(correct[a], correct[b], n_boot, seed)}
        for a, b in pairs
        if a in correct and b in correct
    ]
    return {
        "scale": scale.as_dict(),
        "tau": tau,
        "eps": eps,
        "rows": rows,
        "comparisons": comparisons,
        "consensus_vs_mean": plain_verdict_vs_mean(comparisons),
    }


def _recorded_verdict(trace: Trace) -> dict[str, Any]:
    for c in trace.chains():
        pol = trace.chain_policy(c) or {}
        if pol.get("name") == "verdict":
            return {"tau": pol.get("tau"), "eps": pol.get("eps")}
    return {"tau": 0.6, "eps": 0.1}


def _says(c: dict[str, Any] | None, what: str) -> str:
    if c is None or not c["n_pairs"]:
        return f"VERDICT could not be compared with {what} on this run."
    lo, hi = c["ci"]
    mc = c["mcnemar"] or {}
    tail = (
        f"(difference {c['difference']:+.3f}, paired 95% interval [{lo:+.3f}, {hi:+.3f}], McNemar p = "
        f"{mc.get('p_value', float('nan')):.2g}, {c['n_pairs']} problems)"
    )
    if lo > 0:
        return f"VERDICT on the judge scale beats {what} on this run {tail}."
    if hi < 0:
        return f"VERDICT on the judge scale is worse than {what} on this run {tail}."
    return f"VERDICT on the judge scale does not beat {what} on this run {tail}."


def plain_verdict_vs_mean(comparisons: list[dict[str, Any]]) -> str:
    """Plain sentences: does VERDICT on the judge scale beat Mean (raw) and Mean on the same scale
    (the consensus itself, the scale being equal)? A paired interval above 0 is a win."""
    by = {(c["first"], c["second"]): c for c in comparisons}
    raw = _says(by.get(("verdict_scaled", "mean_raw")), "Mean of the raw scores")
    same = _says(by.get(("verdict_scaled", "mean_scaled")), "Mean on the same scale")
    if "does not beat" in same or "worse" in same:
        same += " Here the consensus adds nothing a plain mean of the calibrated judges does not give."
    return raw + " " + same
