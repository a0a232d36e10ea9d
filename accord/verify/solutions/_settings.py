"""What ``accord verify`` runs with: the panel, the decision rule, limits.

The default panel is deterministic: the arithmetic judge and the symbolic and numeric judges
reading solutions (``mode: solution``), plus the final-answer judge (last step only) when the
solutions carry a reference answer. A config file (YAML or TOML; an ``accord run`` config works
too) may set ``judges`` (any judge a run config allows: LLM judges local or served, code judges,
reward models), ``influence``, ``policy`` and ``judge_timeout_s``; its other run keys (task,
generator, budgets, ...) are accepted and not used here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from accord.consensus_core import get_policy
from accord.errors import UserError
from accord.verify.run import DEFAULTS as RUN_DEFAULTS
from accord.verify.run import read_config_file

MATH_PANEL: list[dict[str, Any]] = [  # the exact symbolic judge is the most stubborn
    {"type": "arithmetic", "lambda": 1.0},
    {"type": "symbolic", "mode": "solution", "lambda": 1.5},
    {"type": "numeric", "mode": "solution", "lambda": 1.0},
]
FINAL_ANSWER = {"type": "final_answer", "scope": "final", "lambda": 1.0}
LABELLED_POLICIES = ("verdict", "mean_preserving", "raw_average", "mean", "max", "min")
USED_KEYS = ("judges", "influence", "policy", "judge_timeout_s")


@dataclass(frozen=True)
class VerifySettings:
    """The resolved settings: judge specs (as in a run config), the labelling rule and its τ, ε."""

    judges: tuple[dict, ...]
    policy: str
    tau: float
    eps: float
    influence: Any = None
    judge_timeout_s: float = 120.0


def resolve_settings(
    config_path: str | None = None,
    judges: str | None = None,
    policy: str | None = None,
    tau: float | None = None,
    eps: float | None = None,
    with_reference: bool = False,
    judge_timeout_s: float | None = None,
) -> VerifySettings:
    """Defaults, then the config file, then the command-line options; validated."""
    cfg: dict[str, Any] = {}
    if config_path is not None:
        cfg = read_config_file(config_path)
        unknown = sorted(set(cfg) - set(RUN_DEFAULTS))
        if unknown:
            raise UserError(
                f"{config_path}: unknown config key(s) {', '.join(unknown)}; accord verify uses {', '.join(USED_KEYS)}"
            )
    specs = copy.deepcopy(cfg.get("judges")) or copy.deepcopy(MATH_PANEL)
    if judges is not None:
        specs = _select(specs, judges)
    if not isinstance(specs, list) or not all(isinstance(j, dict) and isinstance(j.get("type"), str) for j in specs):
        raise UserError("config key 'judges' must list judges, each a mapping with a 'type'")
    if with_reference and not any(j["type"] == "final_answer" for j in specs) and judges is None:
        specs.append(dict(FINAL_ANSWER))
    if len(specs) < 2:
        raise UserError("a panel needs at least two judges")
    pol = cfg.get("policy") or {}
    if not isinstance(pol, dict):
        raise UserError("config key 'policy' must be a mapping with 'name' and 'params'")
    name = policy or pol.get("name", "verdict")
    params = dict(pol.get("params") or {})
    if tau is not None:
        params["tau"] = tau
    if eps is not None:
        params["eps"] = eps
    key = str(name).strip().lower().replace("-", "_")
    if key not in LABELLED_POLICIES:
        raise UserError(
            f"--policy: {name!r} has no three-way step labels; choose one of {', '.join(LABELLED_POLICIES)}"
        )
    try:
        p = get_policy(key, **{k: v for k, v in params.items() if k in ("tau", "eps")})
    except ValueError as exc:
        raise UserError(f"policy: {exc}") from None
    t = float(getattr(p, "tau", params.get("tau", 0.6)))
    e = float(getattr(p, "eps", params.get("eps", 0.1)))
    if not 0.5 <= t < 1:
        raise UserError(f"--tau must be in [0.5, 1) (a step is invalid below 1 - tau), got {t}")
    timeout = judge_timeout_s if judge_timeout_s is not None else cfg.get("judge_timeout_s", 120.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not timeout > 0:
        raise UserError(f"judge timeout must be a number of seconds > 0, got {timeout!r}")
    return VerifySettings(tuple(specs), key, t, e, cfg.get("influence"), float(timeout))


def column_name(spec: dict) -> str:
    """The panel column a judge spec gives (``llm_logic`` for an LLM judge in the logic role)."""
    if spec.get("name"):
        return str(spec["name"])
    return f"{spec['type']}_{spec['role']}" if spec.get("role") else str(spec["type"])


def _select(specs: list[dict], names: str) -> list[dict]:
    """``--judges arithmetic,symbolic``: judges of the panel (or of the math panel) by type or name."""
    want = [n.strip() for n in names.split(",") if n.strip()]
    pool = specs + [j for j in MATH_PANEL + [FINAL_ANSWER] if j["type"] not in {s["type"] for s in specs}]
    out = []
    for n in want:
        match = [j for j in pool if column_name(j) == n] or [j for j in pool if j["type"] == n]
        if not match:
            known = sorted({column_name(j) for j in pool})
            raise UserError(f"--judges: unknown judge {n!r}; choose from {', '.join(known)}")
        out.append(copy.deepcopy(match[0]))
    if len({column_name(j) for j in out}) != len(out):
        raise UserError(f"--judges: a judge is named twice in {names!r}")
    return out
