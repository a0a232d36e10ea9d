"""Running (or resuming) a configured run in this process, writing the run folder as it goes."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from accord.adapters.served import Recorder
from accord.errors import UserError
from accord.verify.analysis import accept_rule, judge_counts, paired_from, read_trace
from accord.verify.io import SUMMARY_FILE
from accord.verify.loop import CALIBRATION_FILE, StepLoop, TraceWriter, resume_after_outage, save_scale
from accord.verify.run._config import RunConfig
from accord.verify.run._setup import (
    build_chains,
    build_generator,
    build_panel_from,
    build_scale,
    load_task_list,
    start_run_folder,
)
from accord.verify.run._summary import make_summary, write_report


def execute_locally(cfg: RunConfig, run_dir: Path, resume: bool = False, progress=None) -> dict[str, Any]:
    """Runs (or resumes) the configured run in ``run_dir``; returns the summary it wrote."""
    t_start = time.perf_counter()
    trace_path = start_run_folder(cfg, run_dir, resume)
    if cfg.threads:
        import torch  # heavy optional dependency: only when a thread count is set

        torch.set_num_threads(int(cfg.threads))
    say = progress.say if progress else (lambda text: None)
    say("loading tasks")
    tasks = load_task_list(cfg.task)
    state = resume_after_outage(trace_path) if resume else None  # steps an endpoint outage left unscored are redone
    say(f"loading generator {cfg.generator.model}")
    t0 = time.perf_counter()
    generator = build_generator(cfg)
    say("loading judges")
    panel = build_panel_from(cfg)
    scale = build_scale(cfg, panel)
    load_s = time.perf_counter() - t0
    chains = build_chains(cfg)
    writer = TraceWriter(trace_path)
    served = Recorder(writer.write)  # every served call: one trace line, summed in the summary
    try:
        if not resume or not trace_path.stat().st_size:
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
            if scale is not None and scale.fitted:  # a saved scale: recorded before the first step
                writer.write({"type": "calibration", **scale.scale.as_dict()})
        else:
            writer.write(
                {
                    "type": "resume",
                    "at_steps": state.n_steps,
                    "finished_chains": len(state.ends),
                    "notes": state.notes + ([writer.note] if writer.note else []),
                    "started": datetime.now(UTC).isoformat(),
                }
            )
        try:
            loop = StepLoop(
                generator,
                panel,
                chains,
                budgets=cfg.budgets.budgets(),
                seed=cfg.seed,
                adaptive=cfg.adaptive.settings(),
                writer=writer,
                resume=state,
                on_event=progress.event if progress else None,
                scale=scale,
            )
            if progress:
                progress.start(len(tasks), [c.label for c in chains])
            ends = loop.run(tasks)
        except ValueError as exc:
            raise UserError(f"{run_dir}: {exc}") from None
    finally:
        served.close()
        writer.close()
        if progress:
            progress.stop()
    summary = make_summary(cfg, ends, loop, [c.label for c in chains], load_s, time.perf_counter() - t_start)
    if scale is not None:
        summary["calibration"] = scale.scale.as_dict()
        if scale.fitted:
            save_scale(run_dir / CALIBRATION_FILE, scale.scale)
    summary["paired"] = paired_from(trace_path, tasks, generator.is_final)
    recorded = read_trace(trace_path)
    summary["accept_rule"] = accept_rule(recorded)
    summary["judge_counts"] = judge_counts(recorded)
    if served.tally.requests or served.tally.cached:
        summary["served"] = served.tally.as_dict()
    (run_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if cfg.output.report:
        say("writing report and plots")
        summary["report"] = write_report(run_dir)
    return summary
