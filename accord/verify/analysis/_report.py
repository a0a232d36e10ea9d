"""The evaluation report of a run folder: ``report.json`` and PNG plots next to the trace.

:func:`build_report` computes everything from a parsed trace (no model is called);
:func:`write_run_report` reads ``RUN_DIR/trace.jsonl`` and ``summary.json``, writes
``report.json``, ``confidence_dispersion.png`` and ``roc.png`` there (or in another folder) and
returns the report.
``accord run`` calls it at the end of a run; ``accord report RUN_DIR`` calls it on any run folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from accord.errors import UserError
from accord.verify.analysis import _plots as plots
from accord.verify.analysis._diagnostics import ALL_CHAINS, candidate_table, dispersion_diagnostics
from accord.verify.analysis._evaluation import (
    accuracy_table,
    rates,
    replay_table,
    review_test,
    timing_shares,
    verdict_params,
)
from accord.verify.analysis._records import Trace, read_summary, read_trace, resolve_trace
from accord.verify.analysis._replay import ContextTree, PolicySpec, fidelity, make_spec
from accord.verify.loop import json_safe

REPORT_FILE = "report.json"
SCATTER_FILE = "confidence_dispersion.png"
ROC_FILE = "roc.png"


def trace_notes(trace, tree) -> list[str]:
    """What a reader of this trace should know: skipped lines, inconsistent records, unfinished tasks."""
    return (
        list(trace.notes)
        + tree.inconsistent
        + (
            [f"{len(tree.unfinished)} task(s) have steps but no task_end (an interrupted run); replays leave them out"]
            if tree.unfinished
            else []
        )
    )


def default_replay_specs(tau: float, eps: float, lambdas=None) -> list[PolicySpec]:
    """VERDICT at the run's thresholds, its ablations and the paper's raw-score baselines."""
    lam = {"lambdas": lambdas} if lambdas is not None else {}
    return [
        make_spec("verdict", tau=tau, eps=eps, **lam),
        make_spec("mean_preserving", tau=tau, eps=eps, **lam),
        make_spec("no_rejection", **lam),
        make_spec("raw_average", tau=tau, eps=eps),
        make_spec("mean"),
        make_spec("max"),
        make_spec("min"),
        make_spec("majority"),
        make_spec("variance"),
    ]


def primary_chain(trace: Trace) -> str | None:
    """The chain the diagnostics plots are drawn for: "verdict" if recorded, else the first verified one."""
    chains = trace.chains()
    if "verdict" in chains:
        return "verdict"
    return next((c for c in chains if c != "base"), chains[0] if chains else None)


def build_report(
    trace: Trace,
    summary: dict | None = None,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    specs: list[PolicySpec] | None = None,
    extra_specs: list[PolicySpec] = (),
) -> dict[str, Any]:
    """Accuracy, rates, timings, replay fidelity, Δ* diagnostics, the review's paired test, replays.

    ``specs`` replaces the default replayed policies; ``extra_specs`` are replayed after them.
    """
    tree = ContextTree.from_trace(trace)
    p = verdict_params(trace)
    specs = specs if specs is not None else default_replay_specs(p["tau"], p["eps"], p["lambdas"])
    specs = [*specs, *extra_specs]
    report = {
        "trace": str(trace.path),
        "n_tasks": len(trace.tasks()),
        "chains": trace.chains(),
        "primary_chain": primary_chain(trace),
        "notes": trace_notes(trace, tree),
        "summary": summary,
        "thresholds": p,
        "accuracy": accuracy_table(trace, n_boot, seed),
        "rates": rates(trace),
        "timing": timing_shares(trace),
        "fidelity": fidelity(trace),
        "diagnostics": {
            c or ALL_CHAINS: dispersion_diagnostics(trace, c, p["tau"], p["eps"], max(n_boot // 2, 100), seed)
            for c in [*trace.chains(), None]
        },
        "review_test": review_test(trace, n_boot, seed, tree),
        "replay": replay_table(trace, specs, n_boot, seed, tree),
    }
    return json_safe(report)


def write_run_report(
    run_dir: Path, *, n_boot: int = 2000, seed: int = 0, extra_specs: list[PolicySpec] = (), out_dir: Path | None = None
) -> dict[str, Any]:
    """Read the run folder's trace and summary, write report.json and the plots to ``out_dir``
    (default: the run folder), return the report."""

    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir is not None else run_dir
    trace = read_trace(resolve_trace(run_dir))
    if not trace.steps and not trace.ends:
        raise UserError(f"{trace.path}: the trace has no step or task_end records yet")
    report = build_report(trace, read_summary(run_dir), n_boot=n_boot, seed=seed, extra_specs=list(extra_specs))
    written = []
    chain = report["primary_chain"]
    if chain is not None:
        table = candidate_table(trace, chain)
        if table.mean.size:
            th = report["thresholds"]
            written.append(plots.confidence_dispersion(table, th["tau"], th["eps"], out_dir / SCATTER_FILE).name)
            written.append(plots.roc_plot([table, candidate_table(trace, None)], out_dir / ROC_FILE).name)
    report["plots"] = written
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / REPORT_FILE).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report
