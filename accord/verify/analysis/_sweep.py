"""Threshold (τ × ε) and stubbornness (λ × ε) sweeps of a recorded run, by replay.

Each cell replays the policy over every task (no model is called) and reports accuracy among the
chains that stayed on recorded ground, how many did, and the accuracy bounds over the diverged
ones. Heatmaps show the accuracy among exact chains, annotated with the exact count: a cell whose
chains mostly diverged says so instead of showing a confident number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from accord.verify.analysis import _plots as plots
from accord.verify.analysis._evaluation import verdict_params
from accord.verify.analysis._records import Trace, read_trace, resolve_trace
from accord.verify.analysis._replay import ContextTree, make_spec, replay
from accord.verify.analysis._report import trace_notes
from accord.verify.loop import json_safe

DEFAULT_TAUS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
DEFAULT_EPSS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3)
DEFAULT_SCALES = (0.25, 0.5, 1.0, 2.0, 4.0)
SWEEP_FILE = "sweep.json"
TAU_EPS_PNG = "sweep_tau_eps.png"
LAMBDA_PNG = "sweep_stubbornness.png"


def _grid(trace: Trace, tree: ContextTree, policy: str, cells: list[list[dict]]) -> dict[str, Any]:
    """Replay every cell's parameters; arrays of accuracy, exact counts and bounds."""
    out: dict[str, list[list[Any]]] = {k: [] for k in ("accuracy_exact", "exact", "accuracy_low", "accuracy_high")}
    for row in cells:
        vals = {k: [] for k in out}
        for params in row:
            s = replay(trace, make_spec(policy, **params), tree).summary()
            for k in out:
                vals[k].append(s[k])
        for k in out:
            out[k].append(vals[k])
    out["n_tasks"] = len(tree.tasks)
    return out


def threshold_sweep(
    trace: Trace,
    taus: Sequence[float] = DEFAULT_TAUS,
    epss: Sequence[float] = DEFAULT_EPSS,
    lambdas: Sequence[float] | None = None,
    policy: str = "verdict",
    tree: ContextTree | None = None,
) -> dict[str, Any]:
    """Rows τ, columns ε; λ fixed (the recorded panel's when None)."""
    tree = tree or ContextTree.from_trace(trace)
    lam = {"lambdas": tuple(lambdas)} if lambdas is not None else {}
    cells = [[{"tau": float(t), "eps": float(e), **lam} for e in epss] for t in taus]
    return {
        "policy": policy,
        "tau": list(map(float, taus)),
        "eps": list(map(float, epss)),
        "lambdas": list(lambdas) if lambdas is not None else None,
        **_grid(trace, tree, policy, cells),
    }


def recorded_lambdas(trace: Trace) -> tuple[float, ...]:
    """The panel stubbornness of the VERDICT chain (or the first step record)."""
    lam = verdict_params(trace)["lambdas"]
    if lam is not None:
        return tuple(lam)
    if not trace.steps:
        raise ValueError("the trace has no step records")
    return trace.steps[0].lambdas


def default_lambda_sets(trace: Trace, scales: Sequence[float] = DEFAULT_SCALES) -> list[tuple[float, ...]]:
    """The recorded λ scaled by each factor, and equal stubbornness (all 1)."""
    base = recorded_lambdas(trace)
    sets = [tuple(round(s * x, 6) for x in base) for s in scales]
    equal = (1.0,) * len(base)
    return sets + ([equal] if equal not in sets else [])


def stubbornness_sweep(
    trace: Trace,
    lambda_sets: Sequence[Sequence[float]],
    epss: Sequence[float] = DEFAULT_EPSS,
    tau: float | None = None,
    policy: str = "verdict",
    tree: ContextTree | None = None,
) -> dict[str, Any]:
    """Rows λ vectors, columns ε, at the run's τ: λ rescales Δ*, so its effect shows against ε."""
    tree = tree or ContextTree.from_trace(trace)
    tau = verdict_params(trace)["tau"] if tau is None else float(tau)
    cells = [[{"tau": tau, "eps": float(e), "lambdas": tuple(map(float, lam))} for e in epss] for lam in lambda_sets]
    return {
        "policy": policy,
        "tau": tau,
        "eps": list(map(float, epss)),
        "lambdas": [list(map(float, lam)) for lam in lambda_sets],
        **_grid(trace, tree, policy, cells),
    }


def _annotations(res: dict[str, Any]) -> np.ndarray:
    acc, exact, n = res["accuracy_exact"], res["exact"], res["n_tasks"]
    return np.array(
        [[("–" if a is None else f"{a:.2f}") + f"\n{e}/{n}" for a, e in zip(ra, re)] for ra, re in zip(acc, exact)],
        dtype=object,
    )


def _matrix(res: dict[str, Any]) -> np.ndarray:
    return np.array([[np.nan if a is None else a for a in row] for row in res["accuracy_exact"]], dtype=float)


def write_sweep(
    run_dir: Path,
    taus: Sequence[float] = DEFAULT_TAUS,
    epss: Sequence[float] = DEFAULT_EPSS,
    lambda_sets: Sequence[Sequence[float]] | None = None,
    policy: str = "verdict",
    out_dir: Path | None = None,
) -> dict[str, Any]:
    """Both sweeps of a run folder; writes sweep.json and the two heatmaps to ``out_dir`` (default:
    the run folder), returns the results."""

    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir is not None else run_dir
    trace = read_trace(resolve_trace(run_dir))
    tree = ContextTree.from_trace(trace)
    th = threshold_sweep(trace, taus, epss, None, policy, tree)
    sets = list(lambda_sets) if lambda_sets else default_lambda_sets(trace)
    st = stubbornness_sweep(trace, sets, epss, None, policy, tree)
    fmt = lambda xs: [f"{x:g}" for x in xs]
    lambda_rows = ["(" + ", ".join(fmt(lam)) + ")" for lam in st["lambdas"]]
    by_tau = f"{policy}: accuracy among exact replays (exact/total below)"
    by_lambda = f"{policy} at τ = {st['tau']:g}: accuracy among exact replays"
    for sweep, rows, ylabel, name, title in (  # rows by the swept setting, columns by ε
        (th, fmt(th["tau"]), "τ (confidence threshold)", TAU_EPS_PNG, by_tau),
        (st, lambda_rows, "stubbornness λ", LAMBDA_PNG, by_lambda),
    ):
        columns, notes, xlabel = fmt(sweep["eps"]), _annotations(sweep), "ε (dispersion limit)"
        plots.heatmap(
            _matrix(sweep), rows, columns, out_dir / name, title=title, xlabel=xlabel, ylabel=ylabel, annotations=notes
        )
    result = json_safe(
        {
            "run": str(run_dir),
            "notes": trace_notes(trace, tree),
            "thresholds": th,
            "stubbornness": st,
            "plots": [TAU_EPS_PNG, LAMBDA_PNG],
        }
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / SWEEP_FILE).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result
