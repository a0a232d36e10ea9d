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
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from accord.verify.errors import UserError

NAME = "run"
HELP = "Grow reasoning chains one verified step at a time and compare policies (default: built-in arithmetic run)."
SUMMARY_FILE = "summary.json"

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
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE", help="YAML or TOML run config (flags below override it)")
    p.add_argument("--resume", metavar="RUN_DIR", help="resume a run from its folder (its config is used)")
    p.add_argument("--out", metavar="RUN_DIR", help="run folder to write (default runs/<time>); output.dir")
    p.add_argument("--task", help="task source: basic_arithmetic, gsm_symbolic, reasoning_gym, jsonl, ...")
    p.add_argument("--tasks-file", metavar="JSONL", help="your own questions (sets --task jsonl)")
    p.add_argument("--problems", type=int, help="number of problems (task.options.size)")
    p.add_argument("--task-seed", type=int, help="seed that draws the problems (task.options.seed)")
    p.add_argument("--model", help="generator causal LM: smollm2, a local path or a name")
    p.add_argument("--temperature", type=float)
    p.add_argument("--top-p", type=float)
    p.add_argument("--max-new-tokens", type=int, help="tokens per generated step")
    p.add_argument("-n", "--n", type=int, help="candidates per step (budgets.n_candidates)")
    p.add_argument("--max-steps", type=int, help="step budget per chain")
    p.add_argument("--max-tokens", type=int, help="generated-token budget per chain")
    p.add_argument("--policy", help="policy of the verified chain (default verdict)")
    p.add_argument("--tau", type=float, help="acceptance threshold on the mean")
    p.add_argument("--eps", type=float, help="acceptance threshold on the dispersion")
    p.add_argument("--baselines", help="comma-separated policies run as extra chains ('' for none)")
    p.add_argument("--no-base", action="store_true", help="do not run the unverified base chain")
    p.add_argument("--stubbornness", choices=("hand-set", "estimated"),
                   help="λ per judge: the judges' 'lambda' (default) or estimated from agreement after stubbornness.warmup candidates")
    p.add_argument("--thresholds", choices=("paper", "calibrated"),
                   help="VERDICT's tau, eps: the policy's (default) or set label-free after the warm-up (thresholds.target_rate)")
    p.add_argument("--adaptive", action="store_true", help="adaptive verification (skip candidates once one is accepted with margin)")
    p.add_argument("--adaptive-margin", choices=("fixed", "calibrated"), default=None,
                   help="adaptive verification's margin: as configured, or learned label-free after adaptive.warmup_steps "
                        "fully verified steps (implies --adaptive)")
    p.add_argument("--seed", type=int, help="run seed (candidate sampling)")
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument("--judge-timeout", type=float, help="seconds per judge call")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="any config key, e.g. budgets.max_steps=6 (repeatable)")
    p.add_argument("--no-report", action="store_true", help="skip report.json and plots")
    p.add_argument("--print-config", action="store_true", help="print the resolved config and exit")
    p.add_argument("--json", action="store_true", help="print summary.json instead of tables")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    from accord.verify.backends import ray_backend

    ray_backend.add_arguments(p)


def config_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The resolved config: defaults <- --config file <- flags <- --set."""
    from accord.verify import config as C

    file_cfg = C.read_config_file(args.config) if args.config else {}
    overrides = []
    name = "jsonl" if args.tasks_file else args.task
    if name is not None:
        # another task source starts from its own option defaults, not the replaced source's
        old = (file_cfg.get("task") or {}) if isinstance(file_cfg.get("task"), dict) else {}
        same = old.get("name", C.DEFAULTS["task"]["name"]) == name
        options = dict(old.get("options") or (C.DEFAULTS["task"]["options"] if "name" not in old else {})) if same else {}
        if args.tasks_file:
            options["path"] = args.tasks_file
        file_cfg = {**file_cfg, "task": {"name": name, "options": {}}}
        overrides.append({"task": {"name": name, "options": options}})
    for flag, key in FLAG_KEYS.items():
        value = getattr(args, flag, None)
        if value is not None and flag != "task":
            overrides.append(C.nested(key.split("."), value))
    if args.baselines is not None:
        overrides.append({"baselines": [b.strip() for b in args.baselines.split(",") if b.strip()]})
    if args.no_base:
        overrides.append({"base_chain": False})
    if args.adaptive:
        overrides.append({"adaptive": {"enabled": True}})
    if args.adaptive_margin is not None:
        overrides.append({"adaptive": {"margin": args.adaptive_margin, **({"enabled": True} if args.adaptive_margin == "calibrated" else {})}})
    if args.out:
        overrides.append({"output": {"dir": args.out}})
    if args.no_report:
        overrides.append({"output": {"report": False}})
    for text in args.set:
        overrides.append(C.nested(*C.parse_assignment(text)))
    file_cfg = _task_run_defaults(file_cfg, overrides)
    return C.resolve(file_cfg, overrides)


def _task_run_defaults(file_cfg: dict, overrides: list[dict]) -> dict:
    """HumanEval brings its own run defaults (code panel, one whole-program step); file and flags win."""
    from accord.verify import config as C

    name = C.DEFAULTS["task"]["name"]
    for d in [file_cfg, *overrides]:
        task = d.get("task")
        if isinstance(task, dict) and task.get("name"):
            name = task["name"]
    if name != "humaneval":
        return file_cfg
    from accord.verify.tasks.humaneval import with_run_defaults

    return with_run_defaults(file_cfg)


def build_chains(cfg: dict[str, Any], lambdas) -> list:
    """The verified chain, the baselines and (optionally) the base chain, in that order."""
    from accord.consensus_core import get_policy
    from accord.verify.engine import BASE, Chain

    def make(name: str, params: dict | None, label: str | None) -> Chain:
        params = dict(params or {})
        try:
            import dataclasses

            from accord.consensus_core.policies import _REGISTRY

            cls = _REGISTRY.get(name.strip().lower().replace("-", "_"))
            if cls is not None and "lambdas" in {f.name for f in dataclasses.fields(cls)}:
                params.setdefault("lambdas", tuple(lambdas))
            policy = get_policy(name, **params)
        except ValueError as exc:
            raise UserError(f"config: {exc}") from None
        return Chain(label or policy.name, policy)

    chains = [make(cfg["policy"]["name"], cfg["policy"].get("params"), None)]
    for b in cfg["baselines"]:
        chains.append(make(b, None, None) if isinstance(b, str) else make(b["name"], b.get("params"), b.get("label")))
    if cfg["base_chain"]:
        chains.append(Chain(BASE, None))
    labels = [c.label for c in chains]
    if len(set(labels)) != len(labels):
        raise UserError(f"config: chain labels must be unique, got {labels} (give baselines a 'label')")
    return chains


def build_generator(cfg: dict[str, Any]):
    from accord.adapters.llm import TransformersGenerator

    g = cfg["generator"]
    make = TransformersGenerator
    if cfg["task"]["name"] == "humaneval":  # whole-program candidates for code
        from accord.adapters.code.generator import CodeGenerator as make
    if cfg["task"]["name"] == "images":  # (image, question) tasks: a vision-language generator
        from accord.adapters.vlm import VLMGenerator, shared_vlm

        try:
            vlm = shared_vlm(g["model"], g["device"], g["dtype"])
            return VLMGenerator(vlm, temperature=g["temperature"], top_p=g["top_p"], max_new_tokens=g["max_new_tokens"])
        except (OSError, ValueError) as exc:
            raise UserError(f"generator {g['model']!r}: {str(exc).splitlines()[0]}") from None
    try:
        return make(
            model=g["model"], temperature=g["temperature"], top_p=g["top_p"], max_new_tokens=g["max_new_tokens"],
            device=g["device"], dtype=g["dtype"],
        )
    except (OSError, ValueError) as exc:
        raise UserError(f"generator {g['model']!r}: {str(exc).splitlines()[0]}") from None


def build_panel_from(cfg: dict[str, Any]):
    from accord.verify.panel import build_panel

    try:
        return build_panel(cfg["judges"], influence=cfg["influence"], timeout_s=cfg["judge_timeout_s"],
                           stubbornness=cfg["stubbornness"]["mode"], warmup=cfg["stubbornness"]["warmup"],
                           calibrate_thresholds=cfg["thresholds"]["target_rate"] if cfg["thresholds"]["mode"] == "calibrated" else None)
    except (OSError, ValueError, TypeError) as exc:
        raise UserError(f"config: judges: {str(exc).splitlines()[0]}") from None


def load_task_list(cfg: dict[str, Any]):
    from accord.verify.tasks import load_tasks

    try:
        return load_tasks(cfg["task"]["name"], **cfg["task"]["options"])
    except (ValueError, ModuleNotFoundError) as exc:
        raise UserError(f"config: task: {exc}") from None


def new_run_dir(cfg: dict[str, Any]) -> Path:
    out = cfg["output"]["dir"]
    if out:
        return Path(out)
    return Path("runs") / datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")


def execute(cfg: dict[str, Any], run_dir: Path, resume: bool = False, progress=None) -> dict[str, Any]:
    """Runs (or resumes) the configured run in ``run_dir``; returns the summary it wrote."""
    from accord.verify import config as C
    from accord.verify.engine import Budgets, StepLoop
    from accord.verify.trace import TRACE_FILE, TraceWriter, load_resume_state

    t_start = time.perf_counter()
    trace_path = run_dir / TRACE_FILE
    if not resume:
        if trace_path.exists() and trace_path.stat().st_size > 0:
            raise UserError(f"{run_dir}: already holds a run (trace.jsonl); use --resume {run_dir} or another --out")
        C.save_run_config(run_dir, cfg)
    if cfg["threads"]:
        import torch

        torch.set_num_threads(int(cfg["threads"]))
    say = progress.say if progress else (lambda text: None)
    say("loading tasks")
    tasks = load_task_list(cfg)
    state = load_resume_state(trace_path) if resume else None
    say(f"loading generator {cfg['generator']['model']}")
    t0 = time.perf_counter()
    generator = build_generator(cfg)
    say("loading judges")
    panel = build_panel_from(cfg)
    load_s = time.perf_counter() - t0
    chains = build_chains(cfg, panel.lambdas)
    b = cfg["budgets"]
    a = cfg["adaptive"]
    writer = TraceWriter(trace_path)
    try:
        if not resume or not trace_path.stat().st_size:
            writer.write({"type": "run", "seed": cfg["seed"], "judges": panel.names, "lambdas": list(panel.lambdas),
                          "chains": [c.label for c in chains], "scoring": panel.describe(),
                          "started": datetime.now(timezone.utc).isoformat()})
        else:
            writer.write({"type": "resume", "at_steps": state.n_steps, "finished_chains": len(state.ends),
                          "notes": state.notes + ([writer.note] if writer.note else []),
                          "started": datetime.now(timezone.utc).isoformat()})
        try:
            loop = StepLoop(
                generator, panel, chains,
                budgets=Budgets(b["n_candidates"], b["max_steps"], b["max_tokens"]),
                seed=cfg["seed"],
                adaptive=adaptive_settings(a),
                writer=writer, resume=state,
                on_event=progress.event if progress else None,
            )
            if progress:
                progress.start(len(tasks), [c.label for c in chains])
            ends = loop.run(tasks)
        except ValueError as exc:
            raise UserError(f"{run_dir}: {exc}") from None
    finally:
        writer.close()
        if progress:
            progress.stop()
    summary = make_summary(cfg, ends, loop, [c.label for c in chains], load_s, time.perf_counter() - t_start)
    summary["paired"] = paired_from(trace_path, tasks, generator.is_final)
    (run_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if cfg["output"]["report"]:
        say("writing report and plots")
        summary["report"] = write_report(run_dir)
    return summary


def paired_from(trace_path: Path, tasks=None, is_final=None) -> dict[str, Any]:
    """The run's paired comparisons (verified chains vs base, VERDICT vs Mean, mean-preserving, best single
    judge); with the tasks and the generator's ``is_final``, replays ending off recorded ground are scored too."""
    from accord.verify.paired import paired_summary
    from accord.verify.records import read_trace
    from accord.verify.report import clean

    by_id = {t.id: t for t in tasks} if tasks is not None else None
    return clean(paired_summary(read_trace(trace_path), tasks=by_id, is_final=is_final))


def adaptive_settings(a: dict[str, Any]):
    """The step loop's adaptive settings from the config's ``adaptive`` section."""
    from accord.verify.engine import Adaptive

    calibrate = a["target_agreement"] if a["margin"] == "calibrated" else None
    return Adaptive(a["enabled"], a["group"], a["min_mean"], a["max_dispersion"], calibrate, a["warmup_steps"])


def make_summary(cfg, ends, loop, labels, load_s: float, wall_s: float) -> dict[str, Any]:
    from accord.verify.evaluation import bootstrap_ci

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
        "policy": cfg["policy"],
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
            "generate_calls": t.generate_calls, "panel_calls": t.panel_calls,
            "candidates_generated": t.candidates_generated, "candidates_scored": t.candidates_scored,
            "generated_tokens": t.generated_tokens, "generator_prompt_tokens": t.prompt_tokens,
            "judge_prompt_tokens": t.judge_tokens,
            "resumed_steps": t.resumed_steps,
        },
        "stopped": {lab: _count([e["stopped"] for e in ends if e["chain"] == lab]) for lab in labels},
        "stubbornness": _stubbornness(cfg, getattr(loop, "panel", None)),
        "adaptive": {"enabled": cfg["adaptive"]["enabled"],
                     **({"margin": loop.margin_record()} if cfg["adaptive"]["enabled"] and hasattr(loop, "margin_record") else {})},
    }


def _stubbornness(cfg, panel) -> dict[str, Any]:
    """The λ the run ended with and, when estimated, the estimate with its intervals."""
    out: dict[str, Any] = {"mode": cfg["stubbornness"]["mode"]}
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


def write_report(run_dir: Path) -> str | None:
    """report.json and plots from the evaluation module, when it is installed with accord."""
    try:
        from accord.verify.report import write_run_report
    except ImportError:
        return None
    write_run_report(run_dir)
    return "report.json"


class RichProgress:
    """A rich progress bar over problems that says what the loop is doing."""

    def __init__(self, console):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.console = console
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=console, transient=False)
        self.task = None
        self.chain = ""
        self.step = 0
        self.tid = ""

    def say(self, text: str) -> None:
        if self.task is None:
            self.console.print(f"[dim]{text}…[/dim]")
        else:
            self.bar.update(self.task, description=text)

    def start(self, total: int, chains) -> None:
        self.bar.start()
        self.task = self.bar.add_task("starting", total=total)

    def event(self, kind: str, **info) -> None:
        if self.task is None:
            return
        if kind == "task":
            self.tid = info["task"]
        elif kind == "step":
            self.chain, self.step = info["chain"], info["step"]
        elif kind == "task_done":
            self.bar.advance(self.task)
            return
        what = {"generate": "generating", "judge": "judging", "step": "deciding"}.get(kind, "")
        self.bar.update(self.task, description=f"{self.tid} · {self.chain} · step {self.step + 1} · {what}")

    def stop(self) -> None:
        if self.task is not None:
            self.bar.stop()
            self.task = None


def print_summary(summary: dict[str, Any], run_dir: Path, console) -> None:
    from rich.table import Table

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
    t = summary["timing"]
    share = f" (generation {100 * t['generate_share']:.0f}% / judging {100 * t['judge_share']:.0f}%)" if t["generate_share"] is not None else ""
    console.print(f"wall {t['wall_s']:.1f} s: load {t['load_s']:.1f} s, generate {t['generate_s']:.1f} s, judge {t['judge_s']:.1f} s{share}")
    console.print(f"run folder: {run_dir}")


def paired_table(paired: dict[str, Any]):
    """The paired comparisons as a table: difference, paired bootstrap interval, McNemar's p."""
    from rich.table import Table

    table = Table(title="Paired over problems (difference first - second, 95% paired bootstrap interval, exact McNemar p)")
    for col in ("first vs second", "how", "problems", "accuracies", "difference", "95% CI", "McNemar p"):
        table.add_column(col)
    for c in paired["comparisons"]:
        second = c["second"].replace("single_judge:", "") + (" alone" if c["second"].startswith("single_judge:") else "")
        problems = f"{c['n_pairs']} of {c['n_pairs'] + c['excluded']}" if c["excluded"] else str(c["n_pairs"])
        if not c["n_pairs"]:
            table.add_row(f"{c['first']} vs {second}", c["source"], problems, "–", "–", "–", "–")
            continue
        lo, hi = c["ci"]
        table.add_row(f"{c['first']} vs {second}", c["source"], problems, f"{c['accuracy_first']:.3f} / {c['accuracy_second']:.3f}",
                      f"{c['difference']:+.3f}", f"[{lo:+.3f}, {hi:+.3f}]", f"{c['mcnemar']['p_value']:.3g}")
    return table


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from accord.verify import config as C

    if args.resume:
        run_dir = Path(args.resume)
        cfg = C.load_run_config(run_dir)
        if args.config or args.set:
            raise UserError("--resume uses the run folder's own config; drop --config/--set")
    else:
        cfg = config_from_args(args)
        run_dir = new_run_dir(cfg)
    if args.print_config:
        print(json.dumps(cfg, indent=2))
        return 0
    console = Console(stderr=True)
    progress = None if (args.quiet or args.json) else RichProgress(console)
    if getattr(args, "backend", "local") == "ray":
        from accord.verify.backends import ray_backend

        summary = ray_backend.execute(cfg, run_dir, bool(args.resume), progress, ray_backend.options_from(args))
    else:
        summary = execute(cfg, run_dir, resume=bool(args.resume), progress=progress)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary, run_dir, Console(width=None if sys.stdout.isatty() else 120))
    return 0
