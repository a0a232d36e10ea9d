"""Assembling a run from its config: the tasks, the generator, the judge panel and the chains."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from accord.adapters import GeneratorType, generator_type
from accord.consensus_core import get_policy
from accord.errors import UserError
from accord.verify.io import TRACE_FILE
from accord.verify.loop import BASE, Chain, JudgeScale, ScaleWarmup, build_panel, load_scale
from accord.verify.run._config import RunConfig, TaskConfig, save_run_config
from accord.verify.tasks import load_tasks, task_source


def build_chains(cfg: RunConfig) -> list[Chain]:
    """The verified chain, the baselines and (optionally) the base chain, in that order.

    Policies hold only their own parameters; λ and W are the panel's (each decision takes
    ``panel.consensus``), so a policy's ``params`` naming ``lambdas`` is an error.
    """

    def make(name: str, params: dict | None, label: str | None, key: str) -> Chain:
        try:
            policy = get_policy(name, **dict(params or {}))
        except ValueError as exc:
            raise UserError(f"config: {key}: {exc}") from None
        return Chain(label or policy.name, policy)

    chains = [make(cfg.policy.name, cfg.policy.params, None, "policy")]
    for k, b in enumerate(cfg.baselines):
        key = f"baselines[{k}]"
        chains.append(
            make(b, None, None, key) if isinstance(b, str) else make(b["name"], b.get("params"), b.get("label"), key)
        )
    if cfg.base_chain:
        chains.append(Chain(BASE, None))
    labels = [c.label for c in chains]
    if len(set(labels)) != len(labels):
        raise UserError(f"config: chain labels must be unique, got {labels} (give baselines a 'label')")
    return chains


def generator_of(cfg: RunConfig) -> GeneratorType:
    """The run's generator type: the entry's ``type``, else ``served`` for an endpoint (a ``base_url``),
    else the one its task source names (whole programs for code, a VLM for image questions, ...)."""
    g = cfg.generator
    try:
        name = g.type or ("served" if g.served else task_source(cfg.task.name).generator)
        return generator_type(name)
    except ValueError as exc:
        raise UserError(f"config: generator: {exc}") from None


def build_generator(cfg: RunConfig):
    """The run's generator, built by its registered type from the config's ``generator`` entry."""
    kind = generator_of(cfg)
    try:
        return kind.factory(cfg.generator.entry())
    except (OSError, ValueError) as exc:
        if kind.name == "served":
            raise UserError(f"generator: {exc}") from None
        raise UserError(f"generator {cfg.generator.model!r}: {str(exc).splitlines()[0]}") from None


def ends_answer(cfg: RunConfig):
    """When a step ends the answer, as the run's generator decides it, without loading its model:
    every candidate of a whole-program generator, else a step stating the answer (or an empty one)."""
    if generator_of(cfg).whole_program:
        return lambda step: True
    from accord.adapters.local import FINAL_PATTERN

    return lambda step: not step.strip() or bool(FINAL_PATTERN.search(step))


def build_panel_from(cfg: RunConfig):
    try:
        return build_panel(
            cfg.judges,
            influence=cfg.influence,
            timeout_s=cfg.judge_timeout_s,
            stubbornness=cfg.stubbornness.mode,
            warmup=cfg.stubbornness.warmup,
            calibrate_thresholds=cfg.thresholds.calibrate,
        )
    except (OSError, ValueError, TypeError) as exc:
        raise UserError(f"config: judges: {str(exc).splitlines()[0]}") from None


def build_scale(cfg: RunConfig, panel) -> ScaleWarmup | None:
    """The run's judge scale (None when calibration is off): fitted label-free during the run, or
    a saved one used from the first step."""
    cal = cfg.calibration
    if cal.mode == "off":
        return None
    try:
        if cal.mode == "file":
            scale = load_scale(cal.file).for_judges(panel.names)
            if not scale.fitted:
                raise ValueError(f"{cal.file}: the judge scale was never fitted")
            if scale.thresholds is None and cal.target_rate is not None:
                raise ValueError(
                    "calibration.target_rate needs a scale fitted during the run (a saved scale keeps its tau, eps)"
                )
            return ScaleWarmup(scale)
        return ScaleWarmup(JudgeScale(cal.mode, tuple(panel.names)), cal.warmup, cal.target_rate)
    except ValueError as exc:
        raise UserError(f"config: calibration: {exc}") from None


def load_task_list(task: TaskConfig):
    try:
        return load_tasks(task.name, **task.options)
    except (ValueError, ModuleNotFoundError) as exc:
        raise UserError(f"config: task: {exc}") from None


def new_run_dir(cfg: RunConfig) -> Path:
    if cfg.output.dir:
        return Path(cfg.output.dir)
    return Path("runs") / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def start_run_folder(cfg: RunConfig, run_dir: Path, resume: bool) -> Path:
    """The run folder's trace path; a new run first refuses a folder holding one, then saves its config."""
    trace_path = run_dir / TRACE_FILE
    if not resume:
        if trace_path.exists() and trace_path.stat().st_size > 0:
            raise UserError(f"{run_dir}: already holds a run (trace.jsonl); use --resume {run_dir} or another --out")
        save_run_config(run_dir, cfg)
    return trace_path
