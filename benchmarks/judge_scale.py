"""Before -> after of putting the judges on one scale, on recorded run folders (no model is called).

For each run folder (e.g. the built-in run and the development-split run of benchmarks/default_run.py)
it prints, per method: the accept rule's firing rate, accuracy when it fired vs when it fell back,
VERDICT against Mean, the best single judge and the unverified chain (paired bootstrap interval,
exact McNemar p), and what adaptive verification would save at the calibrated margin (candidates
skipped and the seconds their generation and judging took in the recorded run).

Methods: the label-free scales, and ``platt`` fitted on labelled steps (each recorded candidate labelled
by its task's reference answer where taking it ends the chain). The protocol: the scale's method and
the target acceptance rate are chosen on the development split
(`--choose-on DEV_RUN`: the largest VERDICT accuracy, ties to the higher firing rate); the scale and
its τ, ε are fitted there (the dev run's recorded scores, and for ``platt`` its answers) and applied
unchanged to the reported run. Without --choose-on every setting is fitted on the run's own scores.

Run: python benchmarks/judge_scale.py RUN_DIR [RUN_DIR ...] [--choose-on DEV_RUN] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accord.adapters.local._llm import TransformersGenerator
from accord.consensus_core import ConsensusSpec, get_policy
from accord.verify.analysis import ContextTree, calibrated_replay, fit_scale_on_trace, read_trace
from accord.verify.loop import LABEL_FREE, calibrate_margin, save_scale
from accord.verify.run import TaskConfig, load_run_config, load_task_list

TARGETS = (None, 0.1, 0.2, 0.3, 0.5)  # None: tau 0.6, eps 0.1 on the scale


def tasks_of(run_dir: Path) -> dict:
    """The run's tasks by id (drawn again from its config; a wider draw covers a filtered dev split)."""
    cfg = load_run_config(run_dir)
    opts = dict(cfg.task.options)
    tasks = load_task_list(TaskConfig(cfg.task.name, {**opts, "size": int(opts.get("size", 60)) * 5}))
    return {t.id: t for t in tasks}


def is_final(text: str) -> bool:
    return TransformersGenerator.is_final(None, text)


def adaptive_saving(run_dir: Path, scale, tau: float, eps: float, group: int = 1) -> dict:
    """Replayed adaptive verification at the label-free calibrated margin (target agreement 0.95)."""
    trace = read_trace(run_dir / "trace.jsonl")
    tree = ContextTree.from_trace(trace)
    steps = [(scale.apply(n.raw), list(n.candidates)) for n in tree.nodes.values()]
    policy = get_policy("verdict", tau=tau, eps=eps)
    margin = calibrate_margin(steps, policy, 0.95, group)
    n = max(len(c) for _, c in steps)
    skipped = int(round(margin.stop_rate * margin.steps)) * (n - group)
    per = [r for r in trace.steps if r.chain == "verdict"]
    cost = sum(r.timings.get("generate_s", 0) + r.timings.get("judge_wall_s", 0) for r in per)
    scored = sum(r.n for r in per)
    return {
        "margin": margin.as_dict(),
        "contexts": margin.steps,
        "candidates": margin.steps * n,
        "candidates_skipped": skipped,
        "seconds_per_candidate": cost / scored if scored else None,
        "seconds_saved": skipped * cost / scored if scored else None,
    }


def evaluate(run_dir: Path, method: str | None, target, fit_on: Path | None = None) -> dict:
    """One setting on one run; ``fit_on``: the scale and τ, ε are fitted on that (development) run
    and applied unchanged here."""
    trace = read_trace(run_dir / "trace.jsonl")
    source = read_trace(fit_on / "trace.jsonl") if fit_on else trace
    src_dir = fit_on or run_dir
    scale = fit_scale_on_trace(source, method or "quantile", tasks=tasks_of(src_dir), is_final=is_final)
    if method is None:  # raw scores: the recorded decisions (the identity map)
        scale.calibrators = {n: None for n in scale.judges}
    if fit_on and target is not None:
        tree = ContextTree.from_trace(source)
        rows = np.concatenate([n.raw for n in tree.nodes.values()])
        scale.set_thresholds(rows, ConsensusSpec(source.steps[0].lambdas), target_rate=target)
        target = None
    out = calibrated_replay(
        trace, scale, target_rate=target, n_boot=2000, seed=0, tasks=tasks_of(run_dir), is_final=is_final
    )
    out["adaptive"] = adaptive_saving(run_dir, scale, out["tau"], out["eps"])
    return out


def line(run: str, label: str, r: dict) -> str:
    v, m, b = r["rows"]["verdict_scaled"], r["rows"]["mean_raw"], r["rows"]["best_single_judge"]
    cmp = {(c["first"], c["second"]): c for c in r["comparisons"]}

    def d(a, bb):
        c = cmp.get((a, bb))
        if not c or not c["n_pairs"]:
            return "–"
        mc = c["mcnemar"] or {}
        return (
            f"{c['difference']:+.3f} [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}] p={mc.get('p_value', float('nan')):.2g} "
            f"({mc.get('only_first_correct')}/{mc.get('only_second_correct')})"
        )

    ad = r["adaptive"]
    return (
        f"| {run} | {label} | {r['tau']:.3f} / {r['eps']:.3f} | {v['fired']}/{v['steps']} | "
        f"{_f(v['accuracy_fired'])} / {_f(v['accuracy_fallback'])} | {_f(v['accuracy'])} | {_f(m['accuracy'])} | "
        f"{_f(b['accuracy'])} ({b['judge']}) | {d('verdict_scaled', 'base')} | {d('verdict_scaled', 'mean_raw')} | "
        f"{d('verdict_scaled', 'best_single_judge')} | {ad['candidates_skipped']}/{ad['candidates']}, "
        f"{_f(ad['seconds_saved'], 1)} s |"
    )


def _f(x, k: int = 3) -> str:
    return "–" if x is None else f"{x:.{k}f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path)
    ap.add_argument("--choose-on", type=Path, help="development run folder the method and target are chosen on")
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--save-scale", type=Path, help="write the chosen scale, fitted on --choose-on, as calibration.json"
    )
    args = ap.parse_args()
    settings = [(None, None)] + [(m, t) for m in (*LABEL_FREE, "platt") for t in TARGETS]
    results = {}
    for run in ([args.choose_on] if args.choose_on else []) + args.runs:
        fit_on = args.choose_on if args.choose_on and run != args.choose_on else None
        results[str(run)] = {f"{m or 'raw'}@{t}": evaluate(run, m, t, fit_on) for m, t in settings}
    chosen = None
    if args.choose_on:
        dev = results[str(args.choose_on)]
        keys = [k for k in dev if not k.startswith("raw")]
        chosen = max(
            keys,
            key=lambda k: (
                dev[k]["rows"]["verdict_scaled"]["accuracy"] or 0,
                dev[k]["rows"]["verdict_scaled"]["fired"],
            ),
        )
    print(
        "| run | scale @ target accept | τ / ε | fired | acc. fired / fallback | VERDICT | Mean | best judge | "
        "VERDICT − base | VERDICT − Mean | VERDICT − best judge | adaptive: skipped, saved |"
    )
    print("|" + "---|" * 12)
    for run, rs in results.items():
        for key, r in rs.items():
            print(line(Path(run).name, key + (" (chosen)" if key == chosen else ""), r))
    for run, rs in results.items():
        if chosen:
            print(f"{Path(run).name}: {rs[chosen]['consensus_vs_mean']}")
    if args.save_scale and chosen:
        method, target = chosen.split("@")
        dev = read_trace(args.choose_on / "trace.jsonl")
        scale = fit_scale_on_trace(dev, method, tasks=tasks_of(args.choose_on), is_final=is_final)
        if target != "None":
            rows = np.concatenate([n.raw for n in ContextTree.from_trace(dev).nodes.values()])
            scale.set_thresholds(rows, ConsensusSpec(dev.steps[0].lambdas), target_rate=float(target))
        save_scale(args.save_scale, scale)
    if args.json:
        args.json.write_text(json.dumps({"chosen": chosen, "results": results}, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()
