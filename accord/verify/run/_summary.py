"""A finished run's ``summary.json`` (accuracy with intervals, timing, work, λ) and its report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accord.consensus_core import bootstrap_ci
from accord.verify.analysis import write_run_report
from accord.verify.run._config import RunConfig


def make_summary(cfg: RunConfig, ends, loop, labels, load_s: float, wall_s: float) -> dict[str, Any]:
    by: dict[str, list[float]] = {lab: [] for lab in labels}
    for e in ends:
        by.setdefault(e["chain"], []).append(float(e["correct"]))
    acc, ci = {}, {}
    for lab, xs in by.items():
        acc[lab] = sum(xs) / len(xs) if xs else None
        lo, hi = bootstrap_ci(xs, 2000, seed=0) if xs else (None, None)
        ci[lab] = [lo, hi]
    t = loop.totals
    work = t.generate_s + t.judge_s
    return {
        "accuracy": acc,
        "accuracy_ci95": ci,
        "n_problems": len({e["task_id"] for e in ends}),
        "chains": labels,
        "policy": cfg.policy.as_dict(),
        "timing": {
            "generate_s": round(t.generate_s, 3),
            "judge_s": round(t.judge_s, 3),
            "decide_s": round(t.decide_s, 4),
            "load_s": round(load_s, 3),
            "wall_s": round(wall_s, 3),
            "generate_share": round(t.generate_s / work, 4) if work else None,
            "judge_share": round(t.judge_s / work, 4) if work else None,
        },
        "work": {
            "generate_calls": t.generate_calls,
            "panel_calls": t.panel_calls,
            "candidates_generated": t.candidates_generated,
            "candidates_scored": t.candidates_scored,
            "generated_tokens": t.generated_tokens,
            "generator_prompt_tokens": t.prompt_tokens,
            "judge_prompt_tokens": t.judge_tokens,
            "resumed_steps": t.resumed_steps,
        },
        "stopped": {lab: _count([e["stopped"] for e in ends if e["chain"] == lab]) for lab in labels},
        "stubbornness": _stubbornness(cfg, getattr(loop, "panel", None)),
        "adaptive": {
            "enabled": cfg.adaptive.enabled,
            **({"margin": loop.margin_record()} if cfg.adaptive.enabled and hasattr(loop, "margin_record") else {}),
        },
    }


def _stubbornness(cfg: RunConfig, panel) -> dict[str, Any]:
    """The λ the run ended with and, when estimated, the estimate with its intervals."""
    out: dict[str, Any] = {"mode": cfg.stubbornness.mode}
    if panel is not None:
        out["lambdas"] = dict(zip(panel.names, panel.lambdas))
        out["estimate"] = panel.stubbornness_estimate
        out["thresholds"] = getattr(panel, "thresholds", None)
    return out


def _count(xs) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def write_report(run_dir: Path) -> str:
    """Writes report.json and the plots into the run folder; returns the report's file name."""
    write_run_report(run_dir)
    return "report.json"
