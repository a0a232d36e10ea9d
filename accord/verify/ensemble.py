"""Reward-model ensembles on precomputed rewards: read, calibrate, combine, evaluate.

Input (JSONL), one of two layouts, detected from the first line:

- best-of-n: ``{"prompt_id", "response_id", "label"?, "<model>": reward, ...}`` per response;
  ``label`` is 1 for a correct / good response and 0 otherwise.
- pairs: ``{"prompt_id"?, "chosen": {"<model>": reward, ...}, "rejected": {...}}`` per preference pair.

Every other numeric field is a reward model; ``null`` or a missing field is a failed judge (NaN).
Rewards are calibrated to [0, 1] per model (:mod:`accord.adapters.calibration`), then combined by

- the established rules: ``mean``, ``min`` (worst case), ``uwo`` (mean - k * std, uncertainty
  penalty), and each model alone;
- FJ consensus under any policy of the core (``verdict``, ``no_rejection``, ...), by its rank key.

Selection accuracy counts ties fairly: when several responses share the best key, the prompt
scores the mean label of the tied ones (a pair tie scores 0.5). Intervals are percentile
bootstraps over prompts. Agreement: Krippendorff's alpha (interval metric) on calibrated scores,
pairwise Spearman correlations on raw rewards, Pearson on calibrated ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Sequence

import numpy as np

from accord.adapters.calibration import Calibrator, apply_calibrators
from accord.consensus_core import consensus_stats, default_lambdas, get_policy, influence_report, list_policies
from accord.verify.errors import UserError
from accord.verify.evaluation import bootstrap_ci

RESERVED = {"prompt_id", "response_id", "label", "correct", "id", "chosen", "rejected", "prompt", "response", "reference"}
BASE_RULES = ("mean", "min", "uwo")
TIE_TOL = 1e-12


@dataclass(frozen=True)
class RewardTable:
    """Rewards as (prompts, responses, models); padding rows are all NaN with ``valid`` False."""

    kind: str  # "best_of_n" or "pairs"
    models: list[str]
    prompt_ids: list[str]
    response_ids: list[list[str]]
    raw: np.ndarray  # (P, n, m)
    labels: np.ndarray | None  # (P, n), NaN on padding
    valid: np.ndarray  # (P, n)

    @property
    def flat_raw(self) -> np.ndarray:
        return self.raw[self.valid]

    @property
    def flat_labels(self) -> np.ndarray | None:
        return None if self.labels is None else self.labels[self.valid]


def _number(v, where: str) -> float:
    if v is None:
        return float("nan")
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise UserError(f"{where}: reward must be a number or null, got {v!r}")
    x = float(v)
    if np.isinf(x):
        raise UserError(f"{where}: reward is infinite")
    return x


def _label(v, where: str) -> float:
    if isinstance(v, bool):
        return float(v)
    if v in (0, 1):
        return float(v)
    raise UserError(f"{where}: label must be 0 or 1 (or true/false), got {v!r}")


def read_rewards(path: str | Path, models: Sequence[str] | None = None) -> RewardTable:
    """Parse a reward file (see the module doc); every problem is a UserError naming file:line."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"{p}: no such file")
    rows: list[tuple[int, dict]] = []
    with p.open(encoding="utf-8") as fh:
        for no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"{p}:{no}: not valid JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise UserError(f"{p}:{no}: expected a JSON object")
            rows.append((no, obj))
    if not rows:
        raise UserError(f"{p}: no rows")
    pairs = "chosen" in rows[0][1]
    first = rows[0][1]["chosen"] if pairs else rows[0][1]
    if pairs and not isinstance(first, dict):
        raise UserError(f"{p}:{rows[0][0]}: 'chosen' must be an object of model -> reward")
    found = [k for k, v in first.items() if k not in RESERVED and (v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)))]
    names = list(models) if models else found
    if len(names) < 2:
        raise UserError(f"{p}: an ensemble needs at least 2 reward models, found {names}")
    return _pairs(p, rows, names) if pairs else _best_of_n(p, rows, names)


def _pairs(p: Path, rows, names) -> RewardTable:
    raw = np.full((len(rows), 2, len(names)), np.nan)
    ids = []
    for k, (no, obj) in enumerate(rows):
        for side, key in enumerate(("chosen", "rejected")):
            d = obj.get(key)
            if not isinstance(d, dict):
                raise UserError(f"{p}:{no}: a pair needs '{key}' as an object of model -> reward")
            for j, m in enumerate(names):
                raw[k, side, j] = _number(d.get(m), f"{p}:{no}: {key}.{m}")
        ids.append(str(obj.get("prompt_id", obj.get("id", k + 1))))
    labels = np.tile(np.array([1.0, 0.0]), (len(rows), 1))
    return RewardTable("pairs", list(names), ids, [["chosen", "rejected"]] * len(rows), raw, labels, np.ones((len(rows), 2), dtype=bool))


def _best_of_n(p: Path, rows, names) -> RewardTable:
    order: dict[str, list[tuple[int, dict]]] = {}
    for no, obj in rows:
        if "prompt_id" not in obj:
            raise UserError(f"{p}:{no}: missing 'prompt_id'")
        order.setdefault(str(obj["prompt_id"]), []).append((no, obj))
    n = max(len(v) for v in order.values())
    P, m = len(order), len(names)
    raw = np.full((P, n, m), np.nan)
    valid = np.zeros((P, n), dtype=bool)
    has_label = all(("label" in o or "correct" in o) for _, o in rows)
    labels = np.full((P, n), np.nan) if has_label else None
    resp_ids = []
    for i, (pid, items) in enumerate(order.items()):
        ids = []
        for k, (no, obj) in enumerate(items):
            for j, mname in enumerate(names):
                raw[i, k, j] = _number(obj.get(mname), f"{p}:{no}: {mname}")
            valid[i, k] = True
            ids.append(str(obj.get("response_id", k + 1)))
            if labels is not None:
                labels[i, k] = _label(obj.get("label", obj.get("correct")), f"{p}:{no}")
        if len(set(ids)) != len(ids):
            raise UserError(f"{p}: prompt {pid!r} has repeated response ids")
        resp_ids.append(ids)
    return RewardTable("best_of_n", list(names), list(order), resp_ids, raw, labels, valid)


# ---------------------------------------------------------------------------------------------
# rules
# ---------------------------------------------------------------------------------------------


def rule_keys(cal: np.ndarray, rule: str, k: float = 1.0, lambdas=None, **policy_params) -> np.ndarray:
    """Ranking key (P, n) of a rule on calibrated scores (P, n, m); -inf never wins."""
    if rule in ("mean", "min", "uwo"):
        st = consensus_stats(cal, np.ones(cal.shape[-1]))
        key = {"mean": st.raw_mean, "min": st.raw_min, "uwo": st.raw_mean - k * np.sqrt(st.raw_var)}[rule]
        return np.where(np.isnan(key), -np.inf, key)
    if rule.startswith("model:"):
        j = int(rule.split(":", 1)[1])
        return np.where(np.isnan(cal[..., j]), -np.inf, cal[..., j])
    name = rule.removeprefix("fj:")
    accepted = {f.name for f in fields(type(get_policy(name)))}
    params = {p: v for p, v in policy_params.items() if p in accepted}  # e.g. tau/eps only where used
    key = get_policy(name, lambdas=lambdas, **params).decide(cal).rank_key
    return np.where(np.isnan(key), -np.inf, key)


def selection_hits(key: np.ndarray, labels: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per prompt: the mean label among the responses tied for the best key (NaN if none valid)."""
    k = np.where(valid, key, -np.inf)
    top = k.max(axis=1, keepdims=True)
    tied = valid & (k >= top - TIE_TOL) & np.isfinite(top)
    with np.errstate(invalid="ignore"):
        hits = np.nansum(np.where(tied, labels, 0.0), axis=1) / tied.sum(axis=1)
    return np.where(tied.any(axis=1), hits, np.nan)


# ---------------------------------------------------------------------------------------------
# agreement
# ---------------------------------------------------------------------------------------------


def krippendorff_alpha(values: np.ndarray) -> float:
    """Krippendorff's alpha, interval metric, for values (units, coders) with NaN = missing."""
    x = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(x)
    m_u = ok.sum(axis=1)
    use = m_u >= 2
    x, ok, m_u = x[use], ok[use], m_u[use]
    n = m_u.sum()
    if n < 2:
        return float("nan")
    xs = np.where(ok, x, 0.0)
    s1, s2 = xs.sum(axis=1), (xs**2).sum(axis=1)
    within = (2 * m_u * s2 - 2 * s1**2) / (m_u - 1)  # sum over ordered pairs in a unit, / (m_u - 1)
    d_o = within.sum() / n
    all_v = xs[ok]
    d_e = (2 * n * np.sum(all_v**2) - 2 * np.sum(all_v) ** 2) / (n * (n - 1))
    return float(1.0 - d_o / d_e) if d_e > 0 else float("nan")


def pairwise_correlations(x: np.ndarray, names: Sequence[str], method: str = "spearman") -> dict[str, float]:
    from scipy.stats import pearsonr, spearmanr

    out = {}
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
            a, b = x[both, i], x[both, j]
            if both.sum() < 3 or a.std() == 0 or b.std() == 0:
                r = float("nan")
            else:
                r = float((spearmanr if method == "spearman" else pearsonr)(a, b)[0])
            out[f"{names[i]}~{names[j]}"] = r
    return out


# ---------------------------------------------------------------------------------------------
# the whole evaluation
# ---------------------------------------------------------------------------------------------


def default_rules() -> list[str]:
    return [*BASE_RULES, "fj:verdict", "fj:no_rejection"]


def evaluate_ensemble(
    table: RewardTable,
    calibrators: dict[str, Calibrator],
    rules: Sequence[str] | None = None,
    k: float = 1.0,
    lambdas=None,
    policy_params: dict | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict:
    """Per-model and per-rule accuracy with intervals, agreement, and the FJ influence report."""
    m = len(table.models)
    lam = tuple(lambdas) if lambdas is not None else default_lambdas(m)
    cal = apply_calibrators(table.raw, table.models, calibrators)
    rules = list(rules) if rules else default_rules()
    for r in rules:
        base = r.removeprefix("fj:")
        if r not in BASE_RULES and base not in list_policies():
            raise UserError(f"unknown rule {r!r}; choose from {', '.join(BASE_RULES)} or fj:<policy> with policy in {', '.join(list_policies())}")
    doc: dict = {
        "kind": table.kind,
        "models": table.models,
        "prompts": len(table.prompt_ids),
        "responses": int(table.valid.sum()),
        "calibration": {n: c.as_dict() for n, c in calibrators.items() if n in table.models},
        "lambdas": list(lam),
        "k": k,
    }
    if table.labels is not None:
        acc: dict[str, dict] = {}
        entries = [(name, f"model:{j}") for j, name in enumerate(table.models)] + [(r, r) for r in rules]
        for label, rule in entries:
            try:
                params = (policy_params or {}) if rule.startswith("fj:") else {}
                key = rule_keys(cal, rule, k=k, lambdas=lam, **params)
            except ValueError as exc:
                raise UserError(f"rule {rule}: {exc}") from None
            hits = selection_hits(key, table.labels, table.valid)
            hits = hits[~np.isnan(hits)]
            lo, hi = bootstrap_ci(hits, n_boot=n_boot, seed=seed)
            acc[label] = {"accuracy": float(hits.mean()) if hits.size else float("nan"), "ci": [lo, hi], "n": int(hits.size)}
        doc["accuracy"] = acc
        lab = np.where(table.valid, table.labels, np.nan)
        doc["baselines"] = {
            "random": float(np.nanmean(np.nanmean(lab, axis=1))),
            "oracle": float(np.nanmean(np.nanmax(lab, axis=1))),
        }
    flat_cal = cal[table.valid]
    doc["agreement"] = {
        "krippendorff_alpha": krippendorff_alpha(flat_cal),
        "spearman_raw": pairwise_correlations(table.flat_raw, table.models, "spearman"),
        "pearson_calibrated": pairwise_correlations(flat_cal, table.models, "pearson"),
    }
    doc["influence"] = influence_report(lam, judges=table.models).as_dict()
    return doc
