"""The development split run again with the judges on one scale and adaptive verification.

The same problems, candidates (run seed 1000) and panel as benchmarks/default_run.py's chosen setting
(T 1.0, top-p 0.95, n 5, two-term problems, one step), run as `accord run --calibration METHOD
--target-accept R --adaptive-margin calibrated` runs them: the scale is fitted label-free on the first
`--warmup` scored candidates, τ, ε set on it for the target acceptance, and the adaptive margin learned
label-free after `--margin-steps` fully verified steps. Writes a run folder with timing.json (wall and
process CPU seconds, candidates generated and scored) next to the trace.

Run: python benchmarks/dev_after.py --out runs/dev-after [--calibration quantile] [--target-accept 0.3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from default_run import SETTINGS, dev_config, dev_tasks  # noqa: E402

from accord.verify.analysis import accept_rule, paired_from, read_trace  # noqa: E402
from accord.verify.loop import (  # noqa: E402
    LABEL_FREE,
    Adaptive,
    JudgeScale,
    ScaleWarmup,
    StepLoop,
    TraceWriter,
    load_scale,
    save_scale,
)
from accord.verify.run import build_chains, build_generator, build_panel_from, save_run_config  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--calibration", default="quantile", help="quantile, agreement, standardize or a calibration.json")
    ap.add_argument("--target-accept", type=float, default=0.3)
    ap.add_argument("--warmup", type=int, default=30, help="candidates the scale is fitted on")
    ap.add_argument(
        "--margin-steps", type=int, default=6, help="fully verified steps the adaptive margin is learned on"
    )
    ap.add_argument("--no-adaptive", action="store_true")
    args = ap.parse_args()
    setting = next(s for s in SETTINGS if s[0] == "T1.0-p0.95-n5-2terms-s1")
    cfg = dev_config(setting, args.out)
    tasks = dev_tasks(cfg, setting[-1], 60)
    args.out.mkdir(parents=True, exist_ok=True)
    save_run_config(args.out, cfg)
    t0, c0 = time.perf_counter(), time.process_time()
    generator, panel = build_generator(cfg), build_panel_from(cfg)
    load = {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0}
    if args.calibration in LABEL_FREE:
        scale = ScaleWarmup(JudgeScale(args.calibration, tuple(panel.names)), args.warmup, args.target_accept)
    else:
        scale = ScaleWarmup(load_scale(args.calibration).for_judges(panel.names))
    adaptive = Adaptive(enabled=not args.no_adaptive, calibrate=0.95, warmup_steps=args.margin_steps)
    chains = build_chains(cfg)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with TraceWriter(args.out / "trace.jsonl") as writer:
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
        if scale.fitted:
            writer.write({"type": "calibration", **scale.scale.as_dict()})
        loop = StepLoop(
            generator,
            panel,
            chains,
            budgets=cfg.budgets.budgets(),
            seed=cfg.seed,
            writer=writer,
            adaptive=adaptive,
            scale=scale,
            on_event=lambda kind, **kw: (
                kind == "task_done" and print(f"    task {kw['index'] + 1}/{kw['total']}", file=sys.stderr, flush=True)
            ),
        )
        loop.run(tasks)
    t = loop.totals
    timing = {
        "wall_s": time.perf_counter() - wall0,
        "cpu_s": time.process_time() - cpu0,
        "load": load,
        "generate_s": t.generate_s,
        "judge_s": t.judge_s,
        "generate_calls": t.generate_calls,
        "candidates_generated": t.candidates_generated,
        "candidates_scored": t.candidates_scored,
        "problems": len(tasks),
        "margin": loop.margin_record(),
    }
    if scale.fitted:
        save_scale(args.out / "calibration.json", scale.scale)
    (args.out / "timing.json").write_text(json.dumps(timing, indent=2) + "\n")
    paired = paired_from(args.out / "trace.jsonl", tasks, generator.is_final)
    (args.out / "paired.json").write_text(json.dumps(paired, indent=2) + "\n")
    print(
        json.dumps(
            {
                "timing": timing,
                "accept_rule": accept_rule(read_trace(args.out / "trace.jsonl")),
                "comparisons": paired["comparisons"],
            },
            indent=1,
            default=str,
        )
    )


if __name__ == "__main__":
    main()
