"""``accord run``: the step loop over a task set, with a verified chain and its baselines.

With no arguments: the built-in run (60 fixed-seed two-term reasoning-gym basic_arithmetic
problems, SmolLM2-135M proposing 5 diverse candidates, mixed panel, VERDICT, plus base / mean /
variance / raw_average chains on the same recorded candidates). Prints an accuracy table with
bootstrap intervals and the paired comparisons, and writes the run folder (config.yaml,
versions.json, trace.jsonl, summary.json with ``paired``, report and plots).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from accord.adapters.local import quiet_model_loading
from accord.cli.display import Table
from accord.cli.display import console as make_console
from accord.cli.options import nonnegative_float, nonnegative_int, positive_float, positive_int, unit_interval
from accord.cli.progress import enabled as progress_enabled
from accord.cli.progress import new_progress
from accord.errors import UserError
from accord.verify.io import CONFIG_FILE, path_kind, text_lines, writer_lock

if TYPE_CHECKING:
    from accord.verify.run import RayOptions, RunConfig

NAME = "run"
HELP = "Grow reasoning chains one verified step at a time and compare policies (default: built-in arithmetic run)."

# flag -> config key path
FLAG_KEYS = {
    "task": "task.name",
    "problems": "task.options.size",
    "task_seed": "task.options.seed",
    "model": "generator.model",
    "temperature": "generator.temperature",
    "top_p": "generator.top_p",
    "max_new_tokens": "generator.max_new_tokens",
    "n": "budgets.n_candidates",
    "max_steps": "budgets.max_steps",
    "max_tokens": "budgets.max_tokens",
    "policy": "policy.name",
    "tau": "policy.params.tau",
    "eps": "policy.params.eps",
    "seed": "seed",
    "threads": "threads",
    "judge_timeout": "judge_timeout_s",
    "stubbornness": "stubbornness.mode",
    "thresholds": "thresholds.mode",
    "target_accept": "calibration.target_rate",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="YAML or TOML run config (flags below override it)")
    p.add_argument("--resume", metavar="RUN_DIR", help="resume a run from its folder (its config is used)")
    p.add_argument("--out", metavar="RUN_DIR", help="run folder to write (default runs/<time>); output.dir")
    p.add_argument("--task", help="task source: basic_arithmetic, gsm_symbolic, reasoning_gym, jsonl, ...")
    p.add_argument("--tasks-file", metavar="JSONL", help="your own questions (sets --task jsonl)")
    p.add_argument("--problems", type=positive_int, help="number of problems (task.options.size)")
    p.add_argument("--task-seed", type=int, help="seed that draws the problems (task.options.seed)")
    p.add_argument("--model", help="generator causal LM: smollm2, a local path or a name")
    p.add_argument("--temperature", type=nonnegative_float)
    p.add_argument("--top-p", type=unit_interval)
    p.add_argument("--max-new-tokens", type=positive_int, help="tokens per generated step")
    p.add_argument("-n", "--n", type=positive_int, help="candidates per step (budgets.n_candidates)")
    p.add_argument("--max-steps", type=positive_int, help="step budget per chain")
    p.add_argument("--max-tokens", type=positive_int, help="generated-token budget per chain")
    p.add_argument("--policy", help="policy of the verified chain (default verdict)")
    p.add_argument("--tau", type=unit_interval, help="acceptance threshold on the mean")
    p.add_argument("--eps", type=unit_interval, help="acceptance threshold on the dispersion")
    p.add_argument("--baselines", help="comma-separated policies run as extra chains ('' for none)")
    p.add_argument("--no-base", action="store_true", help="do not run the unverified base chain")
    p.add_argument(
        "--stubbornness",
        choices=("hand-set", "estimated"),
        help="λ per judge: the judges' 'lambda' (default) or estimated from agreement after stubbornness.warmup "
        "candidates",
    )
    p.add_argument(
        "--thresholds",
        choices=("paper", "calibrated"),
        help="VERDICT's tau, eps: the policy's (default) or set label-free after the warm-up (thresholds.target_rate)",
    )
    p.add_argument(
        "--calibration",
        metavar="MODE|FILE",
        help="judges on one scale before the consensus: off (default), quantile, agreement, standardize "
        "(fitted label-free on the first calibration.warmup candidates) or a saved calibration.json",
    )
    p.add_argument(
        "--target-accept",
        type=unit_interval,
        metavar="RATE",
        help="with --calibration: VERDICT's tau, eps set on the scale so that this share of candidates is accepted",
    )
    p.add_argument(
        "--adaptive",
        action="store_true",
        help="adaptive verification (skip candidates once one is accepted with margin)",
    )
    p.add_argument(
        "--adaptive-margin",
        choices=("fixed", "calibrated"),
        default=None,
        help="adaptive verification's margin: as configured, or learned label-free after adaptive.warmup_steps "
        "fully verified steps (implies --adaptive)",
    )
    p.add_argument("--seed", type=int, help="run seed (candidate sampling)")
    p.add_argument("--threads", type=positive_int, help="torch CPU threads")
    p.add_argument("--judge-timeout", type=positive_float, help="seconds per judge call")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any config key, e.g. budgets.max_steps=6 (repeatable)",
    )
    p.add_argument("--no-report", action="store_true", help="skip report.json and plots")
    p.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    p.add_argument("--json", action="store_true", help="print summary.json instead of tables")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_ray_arguments(p)


def add_ray_arguments(p: argparse.ArgumentParser) -> None:
    """Flags of ``accord run`` for the Ray backend."""
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="local (default) or ray")
    p.add_argument("--address", default=None, help="Ray cluster address (default: RAY_ADDRESS, else a local cluster)")
    p.add_argument("--workers", type=positive_int, default=2, help="ray: problems in flight at once (default 2)")
    p.add_argument(
        "--worker-cpus", type=positive_float, default=0.5, help="ray: CPUs reserved per worker (default 0.5)"
    )
    p.add_argument(
        "--servers", type=positive_int, default=None, help="ray: model servers (default one per GPU, else 1)"
    )
    p.add_argument("--server-cpus", type=positive_float, default=1.0, help="ray: CPUs per model server (default 1)")
    p.add_argument(
        "--server-gpus",
        type=nonnegative_float,
        default=None,
        help="ray: GPUs per model server (default 1 if the cluster has GPUs)",
    )
    p.add_argument("--separate-servers", action="store_true", help="ray: generator and judges in different servers")
    p.add_argument("--pack", action="store_true", help="ray: pack servers on few nodes instead of spreading them")
    p.add_argument(
        "--max-retries",
        type=nonnegative_int,
        default=2,
        help="ray: retries per problem when a worker or server dies (default 2)",
    )


def ray_options(args: argparse.Namespace) -> RayOptions:
    """The Ray backend's options from the flags above."""
    from accord.verify.run import RayOptions

    return RayOptions(
        address=args.address,
        workers=args.workers,
        worker_cpus=args.worker_cpus,
        servers=args.servers,
        server_cpus=args.server_cpus,
        server_gpus=args.server_gpus,
        separate=args.separate_servers,
        spread=not args.pack,
        max_retries=args.max_retries,
    )


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The resolved config: defaults <- --config file <- flags <- --set."""
    from accord.verify.run import DEFAULTS, nested, parse_assignment, read_config_file, resolve

    file_cfg = read_config_file(args.config) if args.config else {}
    overrides = []
    name = "jsonl" if args.tasks_file else args.task
    if name is not None:
        # another task source starts from its own option defaults, not the replaced source's
        old = (file_cfg.get("task") or {}) if isinstance(file_cfg.get("task"), dict) else {}
        same = old.get("name", DEFAULTS["task"]["name"]) == name
        options = dict(old.get("options") or (DEFAULTS["task"]["options"] if "name" not in old else {})) if same else {}
        if args.tasks_file:
            options["path"] = args.tasks_file
        file_cfg = {**file_cfg, "task": {"name": name, "options": {}}}
        overrides.append({"task": {"name": name, "options": options}})
    for flag, key in FLAG_KEYS.items():
        value = getattr(args, flag, None)
        if value is not None and flag != "task":
            overrides.append(nested(key.split("."), value))
    if args.baselines is not None:
        overrides.append({"baselines": [b.strip() for b in args.baselines.split(",") if b.strip()]})
    if args.no_base:
        overrides.append({"base_chain": False})
    if args.calibration is not None:
        mode = args.calibration.strip()
        known = ("off", "quantile", "agreement", "standardize")
        chosen = {"mode": mode, "file": None} if mode in known else {"mode": "file", "file": mode}
        overrides.append({"calibration": chosen})
    if args.adaptive:
        overrides.append({"adaptive": {"enabled": True}})
    if args.adaptive_margin is not None:
        overrides.append(
            {
                "adaptive": {
                    "margin": args.adaptive_margin,
                    **({"enabled": True} if args.adaptive_margin == "calibrated" else {}),
                }
            }
        )
    if args.out:
        overrides.append({"output": {"dir": args.out}})
    if args.no_report:
        overrides.append({"output": {"report": False}})
    for text in args.set:
        overrides.append(nested(*parse_assignment(text)))
    file_cfg = _task_run_defaults(file_cfg, overrides)
    return resolve(file_cfg, overrides)


RESUME_FIXED_FLAGS = (
    "config",
    "set",
    "tasks_file",
    "baselines",
    "no_base",
    "adaptive",
    "adaptive_margin",
    "out",
    "calibration",
)


def resumed_config(args: argparse.Namespace) -> tuple[Path, RunConfig]:
    """The folder's recorded config, exactly; refused when flags given with --resume disagree with it.

    Checked before anything is written, so a refused resume leaves the folder as it was."""
    from accord.verify.run import load_run_config

    run_dir = Path(args.resume)
    if not run_dir.is_dir():
        raise UserError(f"--resume {run_dir}: not a run folder")
    cfg = load_run_config(run_dir)
    fixed = [f for f in RESUME_FIXED_FLAGS if getattr(args, f, None) not in (None, False, [])]
    if fixed:
        names = ", ".join("--" + f.replace("_", "-") for f in fixed)
        raise UserError(f"--resume {run_dir}: continues the recorded config; drop {names}")
    recorded = cfg.as_dict()
    for flag, key in FLAG_KEYS.items():
        value = getattr(args, flag, None)
        if value is None:
            continue
        have = recorded
        for part in key.split("."):
            have = have.get(part) if isinstance(have, dict) else None
        if have != value:
            raise UserError(
                f"--resume {run_dir}: --{flag.replace('_', '-')} {value} differs from the recorded {key} = {have!r} "
                f"in {run_dir / CONFIG_FILE}; drop the flag to continue the recorded run"
            )
    if args.no_report:  # the report is read off the trace afterwards; skipping it changes no result
        cfg = replace(cfg, output=replace(cfg.output, report=False))
    return run_dir, cfg


def _task_run_defaults(file_cfg: dict, overrides: list[dict]) -> dict:
    """HumanEval brings its own run defaults (code panel, one whole-program step); file and flags win."""
    from accord.verify.run import DEFAULTS
    from accord.verify.tasks import with_run_defaults

    name = DEFAULTS["task"]["name"]
    for d in [file_cfg, *overrides]:
        task = d.get("task")
        if isinstance(task, dict) and task.get("name"):
            name = task["name"]
    if name != "humaneval":
        return file_cfg
    return with_run_defaults(file_cfg)


class RichProgress:
    """A rich progress bar over problems that says what the loop is doing, with an ETA.

    The bar moves with each decided step (a problem counts ``chains × max_steps`` steps at most, so
    a problem's share is reached at its end at the latest), so the ETA is there after the first
    step, not only after the first problem. Where stderr is not a terminal (a log, a pipe), one
    line per finished problem says how many are done and about how long is left.
    """

    def __init__(self, console, max_steps: int = 1):
        self.console = console
        self.bar = new_progress(console=console, transient=False)  # off when stderr is not a terminal
        self.lines = not progress_enabled()
        self.task = None
        self.chain = ""
        self.step = 0
        self.tid = ""
        self.max_steps = max(1, int(max_steps))
        self.n_chains = 1
        self.index = 0
        self.steps_done = 0
        self.total = 0
        self.t0 = time.monotonic()

    def say(self, text: str) -> None:
        if self.task is None:
            self.console.print(f"[dim]{text}…[/dim]")
        else:
            self.bar.update(self.task, description=text)

    def start(self, total: int, chains) -> None:
        self.bar.start()
        self.task = self.bar.add_task("starting", total=total)
        self.n_chains, self.total, self.t0 = max(1, len(list(chains))), total, time.monotonic()

    def event(self, kind: str, **info) -> None:
        if self.task is None:
            return
        if kind == "task":
            self.tid, self.index, self.steps_done = info["task"], int(info.get("index", self.index)), 0
        elif kind == "step":
            self.chain, self.step = info["chain"], info["step"]
            self.steps_done += 1
            share = min(0.99, self.steps_done / (self.n_chains * self.max_steps))
            self.bar.update(self.task, completed=self.index + share)
        elif kind == "task_done":
            self.bar.update(self.task, completed=self.index + 1)
            if self.lines:
                self.console.print(eta_line(self.index + 1, self.total, time.monotonic() - self.t0), highlight=False)
            return
        what = {"generate": "generating", "judge": "judging", "step": "deciding"}.get(kind, "")
        self.bar.update(self.task, description=f"{self.tid} · {self.chain} · step {self.step + 1} · {what}")

    def stop(self) -> None:
        if self.task is not None:
            self.bar.stop()
            self.task = None


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def eta_line(done: int, total: int, elapsed: float) -> str:
    """``accord run: 2/4 problems done in 41 s; about 41 s left`` (left: the mean time per problem so far)."""
    left = "" if done >= total or done == 0 else f"; about {_duration(elapsed / done * (total - done))} left"
    return f"accord run: {done}/{total} problems done in {_duration(elapsed)}{left}"


def print_summary(summary: dict[str, Any], run_dir: Path, console) -> None:
    table = Table(title=f"Accuracy over {summary['n_problems']} problems (95% bootstrap interval)")
    for col in ("chain", "accuracy", "95% CI", "stopped"):
        table.add_column(col)
    for lab in summary["chains"]:
        a = summary["accuracy"].get(lab)
        lo, hi = summary["accuracy_ci95"].get(lab, [None, None])
        st = ", ".join(f"{k} {v}" for k, v in summary["stopped"].get(lab, {}).items())
        table.add_row(lab, "–" if a is None else f"{a:.3f}", "–" if lo is None else f"[{lo:.3f}, {hi:.3f}]", st)
    console.print(table)
    if summary.get("paired", {}).get("comparisons"):
        console.print(paired_table(summary["paired"]))
    if summary.get("accept_rule"):
        console.print(accept_rule_table(summary["accept_rule"]))
    if summary.get("judge_counts"):
        console.print(
            "judges (candidates scored / abstained / failed): "
            + ", ".join(f"{n} {c['scored']}/{c['abstained']}/{c['failed']}" for n, c in summary["judge_counts"].items())
        )
    served = summary.get("served") or {}
    if served.get("prompts"):
        used = ", ".join(f"{n} {k}" for k, n in sorted(served["prompts"].items()))
        why = "; ".join(f"{n}x {k}" for k, n in sorted((served.get("prompt_fallbacks") or {}).items()))
        console.print(f"served judge prompts: {used}" + (f" (asked as chats: {why})" if why else ""), highlight=False)
    if summary.get("calibration"):
        cal = summary["calibration"]
        console.print(f"judge scale: {cal['method']} ({cal['source'] or 'not fitted: too few candidates scored'})")
    ray = summary.get("backend") or {}
    if ray.get("retried_problems"):
        console.print(
            f"ray: {len(ray['retried_problems'])} problem(s) run again after a worker died "
            f"({ray['retries']} retries: {', '.join(ray['retried_problems'][:5])})",
            highlight=False,
        )
    t = summary["timing"]
    share = (
        f" (generation {100 * t['generate_share']:.0f}% / judging {100 * t['judge_share']:.0f}%)"
        if t["generate_share"] is not None
        else ""
    )
    console.print(
        f"wall {t['wall_s']:.1f} s: load {t['load_s']:.1f} s, generate {t['generate_s']:.1f} s, judge "
        f"{t['judge_s']:.1f} s{share}"
    )
    console.print(f"run folder: {run_dir}")


def accept_rule_table(rows: dict[str, Any]) -> Table:
    """Per verified chain: how often the accept rule fired, and accuracy when it fired vs fell back."""
    table = Table(title="Accept rule per chain (fired: some candidate accepted; else the fallback chose)")
    for col in ("chain", "fired", "share", "accuracy when fired", "when fallback", "tau / eps"):
        table.add_column(col)
    for chain, r in rows.items():
        f = lambda x: "–" if x is None else f"{x:.3f}"  # noqa: E731
        th = "–" if r.get("tau") is None else f"{r['tau']:.3g} / {r['eps']:.3g}"
        table.add_row(
            chain,
            f"{r['fired']}/{r['steps']}",
            f(r["fired_share"]),
            f"{f(r['accuracy_fired'])} ({r['problems_fired']})",
            f"{f(r['accuracy_fallback'])} ({r['problems_fallback']})",
            th,
        )
    return table


def paired_table(paired: dict[str, Any]) -> Table:
    """The paired comparisons as a table: difference, paired bootstrap interval, McNemar's p. A comparison
    replayed from recorded scores (not run as a chain) is marked with *."""
    table = Table(
        title="Paired over problems: n pairs, difference first - second, 95% paired bootstrap CI, exact McNemar p",
        caption="* replayed from the recorded scores",
    )
    for col in ("first vs second", "n", "accuracies", "diff", "95% CI", "p"):
        table.add_column(col, no_wrap=col != "n")  # numbers and names are read whole
    for c in paired["comparisons"]:
        second = c["second"].replace("single_judge:", "") + (
            " alone" if c["second"].startswith("single_judge:") else ""
        )
        name = f"{c['first']} vs {second}" + ("*" if c["source"] == "replayed" else "")
        problems = f"{c['n_pairs']} of {c['n_pairs'] + c['excluded']}" if c["excluded"] else str(c["n_pairs"])
        if not c["n_pairs"]:
            table.add_row(name, problems, "–", "–", "–", "–")
            continue
        lo, hi = c["ci"]
        table.add_row(
            name,
            problems,
            f"{c['accuracy_first']:.3f}/{c['accuracy_second']:.3f}",
            f"{c['difference']:+.3f}",
            f"[{lo:+.3f}, {hi:+.3f}]",
            f"{c['mcnemar']['p_value']:.3g}",
        )
    return table


def quiet_third_party_warnings() -> None:
    """Deprecation notices from the model libraries (``torch_dtype`` is deprecated, …) say nothing a
    user of ``accord run`` can act on; accord's own warnings still show."""
    for module in ("transformers", "torch", "huggingface_hub", "sentence_transformers", "accelerate"):
        warnings.filterwarnings("ignore", category=FutureWarning, module=module)
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=module)
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.set_verbosity_error()  # transformers logs its deprecations instead of warning


def run(args: argparse.Namespace) -> int:
    from accord.verify.run import execute_locally, execute_on_ray, new_run_dir

    if args.resume:
        run_dir, cfg = resumed_config(args)
    else:
        if args.tasks_file:  # read through once now: a bad file is refused before any model loads
            for _ in text_lines(args.tasks_file, "task file (JSONL)"):
                pass
        cfg = config_from_args(args)
        run_dir = new_run_dir(cfg)
        if path_kind(run_dir, "--out") not in ("folder", "missing"):
            raise UserError(f"--out {run_dir}: exists and is not a folder; a run writes a folder there")
    if args.print_config:
        print(json.dumps(cfg.as_dict(), indent=2))
        return 0
    console = Console(stderr=True)
    progress = None if (args.quiet or args.json) else RichProgress(console, cfg.budgets.max_steps)
    quiet_third_party_warnings()
    quiet_model_loading()  # the run's own bar (and its "loading" line) says what is happening
    with writer_lock(run_dir):  # one writer per run folder, taken before anything is written
        if getattr(args, "backend", "local") == "ray":
            summary = execute_on_ray(cfg, run_dir, bool(args.resume), progress, ray_options(args))
        else:
            summary = execute_locally(cfg, run_dir, resume=bool(args.resume), progress=progress)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary, run_dir, make_console())
    return 0
