"""How the built-in run's sampling settings were chosen: candidate settings on a development split.

Each setting is run exactly as ``accord run`` runs it (the built-in panel, VERDICT, the Mean /
Variance / Raw Average baselines and the unverified base chain on the same recorded candidates),
but on a development split: problems drawn with reasoning-gym seed 1000 (the reported run draws
with seed 0; any question that also occurs among the reported problems is dropped) and candidates
sampled with run seed 1000 (the reported run uses 0). The models are loaded once for all settings.

Per setting it prints every chain's accuracy, the run's paired comparisons (VERDICT against base,
Mean, mean-preserving VERDICT and the best single judge: difference, paired bootstrap interval,
McNemar p; accord.verify.analysis), the share of steps whose candidates are not all the same text,
each judge alone, and the time per problem: wall and process CPU seconds (with one torch thread per
model the CPU time bounds the time on an idle 2-core machine). The rule, fixed before any reported problem is
run: take the setting with the largest VERDICT - base on this split among those whose projected
reported run (CPU seconds per problem x reported problems + CPU seconds of loading the models) stays
under 8 minutes.

Each setting writes a run folder under --out; a folder that already holds a finished run is read,
not run again, so the table can be reprinted (and other policies replayed) for free.

Run: python benchmarks/default_run.py [--out runs/dev-split] [--reported 60] [--only LABEL,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

from accord.verify.analysis import paired_from, read_trace
from accord.verify.run import (
    RunConfig,
    TaskConfig,
    build_chains,
    build_generator,
    build_panel_from,
    load_task_list,
    resolve,
    save_run_config,
)

DEV_SEED = 1000  # reasoning-gym seed and generation seed of the development split
BUDGET_S = 480.0  # the projected reported run must fit in 8 of the 10 minutes
THREE_TERMS, TWO_TERMS = {"max_terms": 3}, {"max_terms": 2}  # basic_arithmetic's built-in: 2-3 terms
# (label, temperature, top_p, candidates per step, steps at most, task options over the built-in ones,
# dev problems): the paper's sampling on the built-in problems, then more diverse sampling with
# multi-step chains (12 problems each: both were projected far over the time budget), then two-term
# problems decided in one step with the paper's and more diverse sampling and 3, 5 or 8 candidates
SETTINGS = [
    ("T0.8-p0.6-n3-s4", 0.8, 0.6, 3, 4, THREE_TERMS, 12),
    ("T1.0-p0.95-n5-s3", 1.0, 0.95, 5, 3, THREE_TERMS, 12),
    ("T1.0-p0.95-n5-2terms-s2", 1.0, 0.95, 5, 2, TWO_TERMS, 12),
    ("T0.8-p0.6-n3-2terms-s1", 0.8, 0.6, 3, 1, TWO_TERMS, 20),
    ("T1.0-p0.95-n3-2terms-s1", 1.0, 0.95, 3, 1, TWO_TERMS, 20),
    ("T1.0-p0.95-n5-2terms-s1", 1.0, 0.95, 5, 1, TWO_TERMS, 20),
    ("T1.0-p0.95-n8-2terms-s1", 1.0, 0.95, 8, 1, TWO_TERMS, 20),
]


def dev_config(setting, out: Path) -> RunConfig:
    _, temperature, top_p, n, max_steps, options, problems = setting
    return resolve(
        None,
        [
            {
                "task": {"options": {"size": problems, "seed": DEV_SEED, **options}},
                "generator": {"temperature": temperature, "top_p": top_p},
                "budgets": {"n_candidates": n, "max_steps": max_steps},
                "seed": DEV_SEED,
                "output": {"dir": str(out)},
            }
        ],
    )


def dev_tasks(cfg: RunConfig, problems: int, reported: int) -> list:
    """``problems`` dev-split problems, none of whose questions is among the reported problems."""

    def draw(size: int, seed: int) -> list:
        return load_task_list(TaskConfig(cfg.task.name, {**cfg.task.options, "size": size, "seed": seed}))

    seen = {t.question for t in draw(reported, 0)}
    pool = draw(problems + reported, DEV_SEED)
    return [t for t in pool if t.question not in seen][:problems]


def run_setting(cfg: RunConfig, out: Path, tasks, generator, panel) -> dict:
    """One setting's run folder (trace, config) and its timing; the models are the loaded ones."""
    from accord.adapters.local import TransformersGenerator
    from accord.verify.io import TRACE_FILE
    from accord.verify.loop import StepLoop, TraceWriter

    g = cfg.generator
    gen = TransformersGenerator.from_loaded(
        generator.lm, generator.tokenizer, temperature=g.temperature, top_p=g.top_p, max_new_tokens=g.max_new_tokens
    )
    chains = build_chains(cfg)
    save_run_config(out, cfg)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with TraceWriter(out / TRACE_FILE) as writer:
        writer.write(
            {
                "type": "run",
                "seed": cfg.seed,
                "judges": panel.names,
                "lambdas": list(panel.lambdas),
                "chains": [c.label for c in chains],
                "scoring": panel.describe(),
                "started": datetime.now(UTC).isoformat(),
            }
        )
        loop = StepLoop(
            gen,
            panel,
            chains,
            budgets=cfg.budgets.budgets(),
            seed=cfg.seed,
            writer=writer,
            on_event=lambda kind, **kw: (
                kind == "task_done" and print(f"    task {kw['index'] + 1}/{kw['total']}", file=sys.stderr, flush=True)
            ),
        )
        loop.run(tasks)
    t = loop.totals
    timing = {
        "wall_s": time.perf_counter() - wall0,
        "cpu_s": time.process_time() - cpu0,
        "generate_s": t.generate_s,
        "judge_s": t.judge_s,
        "generate_calls": t.generate_calls,
        "problems": len(tasks),
    }
    (out / "paired.json").write_text(json.dumps(paired_from(out / TRACE_FILE, tasks, gen.is_final), indent=2) + "\n")
    (out / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    return timing


def diversity(trace) -> float:
    """Share of recorded contexts whose candidates are not all the same text."""
    seen = {}
    for r in trace.steps:
        seen[(r.task_id, r.context_id)] = len({c.strip() for c in r.candidates}) > 1
    return sum(seen.values()) / len(seen) if seen else 0.0


def row(label: str, out: Path, load_cpu_s: float, reported: int) -> dict:
    trace = read_trace(out / "trace.jsonl")
    timing = json.loads((out / "timing.json").read_text())
    paired = json.loads((out / "paired.json").read_text())
    acc = {c: sum(e.correct for e in trace.end_of(c).values()) / len(trace.end_of(c)) for c in trace.chains()}
    vs = {p["second"]: p for p in paired["comparisons"] if p["first"] == paired["primary"]}
    per_problem = timing["cpu_s"] / timing["problems"]
    return {
        "setting": label,
        "problems": timing["problems"],
        "accuracy": acc,
        "vs": vs,
        "verdict_minus_base": vs["base"]["difference"],
        "diverse_steps": diversity(trace),
        "single_judges": paired["single_judges"],
        "wall_per_problem_s": timing["wall_s"] / timing["problems"],
        "cpu_per_problem_s": per_problem,
        "projected_reported_s": per_problem * reported + load_cpu_s,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reported", type=int, default=60, help="problems of the reported run (kept out of the dev split)")
    ap.add_argument("--out", default="runs/dev-split")
    ap.add_argument("--only", help="comma-separated setting labels to run")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    settings = [s for s in SETTINGS if not args.only or s[0] in args.only.split(",")]
    root = Path(args.out)
    generator = panel = None
    rows = []
    for s in settings:
        out = root / s[0]
        cfg = dev_config(s, out)
        if not (out / "timing.json").is_file():
            if generator is None:
                t0, c0 = time.perf_counter(), time.process_time()
                generator, panel = build_generator(cfg), build_panel_from(cfg)
                load = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
                root.mkdir(parents=True, exist_ok=True)
                (root / "load.json").write_text(json.dumps(load) + "\n")
            print(f"{s[0]}: running {s[-1]} dev-split problems", file=sys.stderr, flush=True)
            run_setting(cfg, out, dev_tasks(cfg, s[-1], args.reported), generator, panel)
        rows.append(row(s[0], out, json.loads((root / "load.json").read_text())["cpu_s"], args.reported))
    print(f"dev split: reasoning-gym seed {DEV_SEED}, generation seed {DEV_SEED}")
    for r in rows:
        acc = "  ".join(f"{c} {a:.2f}" for c, a in r["accuracy"].items())
        singles = "  ".join(f"{j} {v['accuracy']:.2f}({v['exact']})" for j, v in r["single_judges"].items())
        pairs = "; ".join(
            f"vs {'best single judge ' if k.startswith('single_judge:') else ''}{k.removeprefix('single_judge:')} "
            f"{c['difference']:+.3f} [{c['ci'][0]:+.3f}, {c['ci'][1]:+.3f}] p {c['mcnemar']['p_value']:.3g}"
            + (f" ({c['n_pairs']} problems)" if c["excluded"] else "")
            for k, c in r["vs"].items()
            if c["n_pairs"]
        )
        print(
            f"{r['setting']} ({r['problems']} problems): {acc}\n    verdict {pairs}\n"
            f"    steps with differing candidates {r['diverse_steps']:.2f}; "
            f"single judges (accuracy, exact chains): {singles}\n"
            f"    per problem: wall {r['wall_per_problem_s']:.1f} s, CPU {r['cpu_per_problem_s']:.1f} s; "
            f"projected reported run ({args.reported} problems) {r['projected_reported_s']:.0f} s"
        )
    fit = [r for r in rows if r["projected_reported_s"] <= BUDGET_S]
    if fit:
        best = max(fit, key=lambda r: r["verdict_minus_base"])
        print(f"chosen: {best['setting']} (largest VERDICT - base among settings projected under {BUDGET_S:.0f} s)")
    else:
        print(f"no setting is projected under {BUDGET_S:.0f} s")
    return 0


if __name__ == "__main__":
    with _machine.Run():
        rc = main()
    sys.exit(rc)
