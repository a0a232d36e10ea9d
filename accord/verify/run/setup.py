"""Assembling a run from its config: the tasks, the generator, the judge panel and the chains."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from accord.adapters.code.generator import CodeGenerator
from accord.adapters.llm import TransformersGenerator
from accord.adapters.served import build_generator as served_generator
from accord.adapters.served import is_served
from accord.adapters.vlm import VLMGenerator, shared_vlm
from accord.consensus_core import get_policy
from accord.errors import UserError
from accord.verify.loop.engine import BASE, Adaptive, Chain
from accord.verify.loop.panel import build_panel
from accord.verify.tasks import load_tasks


def build_chains(cfg: dict[str, Any], lambdas) -> list:
    """The verified chain, the baselines and (optionally) the base chain, in that order."""
    def make(name: str, params: dict | None, label: str | None) -> Chain:
        params = dict(params or {})
        params.setdefault("lambdas", tuple(lambdas))  # every policy takes the panel's λ unless its params set them
        try:
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
    g = cfg["generator"]
    if is_served(g):  # an OpenAI-compatible endpoint
        try:
            return served_generator(g)
        except ValueError as exc:
            raise UserError(f"generator: {exc}") from None
    make = TransformersGenerator
    if cfg["task"]["name"] == "humaneval":  # whole-program candidates for code
        make = CodeGenerator
    if cfg["task"]["name"] == "images":  # (image, question) tasks: a vision-language generator
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
    try:
        return build_panel(cfg["judges"], influence=cfg["influence"], timeout_s=cfg["judge_timeout_s"],
                           stubbornness=cfg["stubbornness"]["mode"], warmup=cfg["stubbornness"]["warmup"],
                           calibrate_thresholds=cfg["thresholds"]["target_rate"] if cfg["thresholds"]["mode"] == "calibrated" else None)
    except (OSError, ValueError, TypeError) as exc:
        raise UserError(f"config: judges: {str(exc).splitlines()[0]}") from None


def load_task_list(cfg: dict[str, Any]):
    try:
        return load_tasks(cfg["task"]["name"], **cfg["task"]["options"])
    except (ValueError, ModuleNotFoundError) as exc:
        raise UserError(f"config: task: {exc}") from None


def new_run_dir(cfg: dict[str, Any]) -> Path:
    out = cfg["output"]["dir"]
    if out:
        return Path(out)
    return Path("runs") / datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")


def adaptive_settings(a: dict[str, Any]):
    """The step loop's adaptive settings from the config's ``adaptive`` section."""
    calibrate = a["target_agreement"] if a["margin"] == "calibrated" else None
    return Adaptive(a["enabled"], a["group"], a["min_mean"], a["max_dispersion"], calibrate, a["warmup_steps"])
