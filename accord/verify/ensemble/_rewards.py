"""Reward-model ensembles on precomputed rewards: read, calibrate, combine, evaluate.

Input: JSONL in one of two layouts, detected from the first line (CSV and Parquet hold the
best-of-n layout as columns; large tables are streamed by :mod:`accord.verify.ensemble`):

- best-of-n: ``{"prompt_id", "response_id", "label"?, "<model>": reward, ...}`` per response;
  ``label`` is 1 for a correct / good response and 0 otherwise.
- pairs: ``{"prompt_id"?, "chosen": {"<model>": reward, ...}, "rejected": {...}}`` per preference pair.

Every other numeric field is a reward model unless it is a known metadata name (``n_tokens``,
``latency``, ... :data:`accord.verify.tables.METADATA`) or named in ``meta``; ``models``
names them explicitly. ``null`` or a missing field is a failed judge (NaN).
Rewards are calibrated to [0, 1] per model (:mod:`accord.adapters._calibration`), then combined by

- the established rules: ``mean``, ``min`` (worst case), ``uwo`` (mean - k * std, uncertainty
  penalty), and each model alone;
- FJ consensus under any policy of the core (``verdict``, ``no_rejection``, ...), by its rank key.

Selection accuracy counts ties fairly: when several responses share the best key, the prompt
scores the mean label of the tied ones (a pair tie scores 0.5). Intervals are percentile
bootstraps over prompts. Agreement: Krippendorff's alpha (interval metric) on calibrated scores,
pairwise Spearman correlations on raw rewards, Pearson on calibrated ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

from accord.adapters import Calibrator, apply_calibrators
from accord.consensus_core import (
    ConsensusSpec,
    bootstrap_cis,
    consensus_stats,
    get_policy,
    influence_report,
    list_policies,
)
from accord.errors import UserError
from accord.verify.ensemble._wide import is_wide, wide_report
from accord.verify.io import input_file, json_objects, text_lines
from accord.verify.tables import RESERVED, RewardTable, label_value, pick_models, read_columns, reward_value

BASE_RULES = ("mean", "min", "uwo")
REWARD_TIE = 1e-12  # rewards this close to the best tie with it


def read_rewards(path: str | Path, models: Sequence[str] | None = None, meta: Sequence[str] = ()) -> RewardTable:
    """Parse a reward file (see the module doc); every problem is a UserError naming file:line."""
    p = input_file(path, "reward table")
    if p.suffix.lower() in (".csv", ".parquet", ".pq"):
        return read_columns(p, models, meta)
    rows = list(json_objects(text_lines(p), str(p)))
    if not rows:
        raise UserError(f"{p}: no rows")
    pairs = "chosen" in rows[0][1]
    first = rows[0][1]["chosen"] if pairs else rows[0][1]
    if pairs and not isinstance(first, dict):
        raise UserError(f"{p}:{rows[0][0]}: 'chosen' must be an object of model -> reward")
    numeric = [k for k, v in first.items() if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))]
    names, left_out = pick_models(numeric, models, meta)
    fields_seen = {k for _, o in rows for k in ((o.get("chosen") or {}) if pairs else o)} if models else set()
    unknown = [m for m in models or () if m not in fields_seen]
    if unknown:
        raise UserError(
            f"{p}: --models {', '.join(unknown)}: no such reward field in any row; "
            f"the reward fields are {', '.join(n for n in numeric if n not in RESERVED) or '(none)'}"
        )
    if len(names) < 2:
        raise UserError(f"{p}: an ensemble needs at least 2 reward models, found {names}")
    table = _pairs(p, rows, names) if pairs else _best_of_n(p, rows, names)
    return replace(table, metadata=tuple(left_out))


def _pairs(p: Path, rows, names) -> RewardTable:
    raw = np.full((len(rows), 2, len(names)), np.nan)
    ids = []
    for k, (no, obj) in enumerate(rows):
        for side, key in enumerate(("chosen", "rejected")):
            d = obj.get(key)
            if not isinstance(d, dict):
                raise UserError(f"{p}:{no}: a pair needs '{key}' as an object of model -> reward")
            for j, m in enumerate(names):
                raw[k, side, j] = reward_value(d.get(m), f"{p}:{no}: {key}.{m}")
        ids.append(str(obj.get("prompt_id", obj.get("id", k + 1))))
    labels = np.tile(np.array([1.0, 0.0]), (len(rows), 1))
    return RewardTable(
        "pairs",
        list(names),
        ids,
        [["chosen", "rejected"]] * len(rows),
        raw,
        labels,
        np.ones((len(rows), 2), dtype=bool),
    )


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
    unlabelled = [no for no, o in rows if "label" not in o and "correct" not in o]
    has_label = not unlabelled
    if unlabelled and len(unlabelled) < len(rows):  # else the whole file would silently count as unlabelled
        raise UserError(
            f"{p}:{unlabelled[0]}: no 'label' while other rows have one ({len(unlabelled)} of "
            f"{len(rows)} rows lack it); label every row, or none"
        )
    labels = np.full((P, n), np.nan) if has_label else None
    resp_ids = []
    for i, (pid, items) in enumerate(order.items()):
        ids = []
        for k, (no, obj) in enumerate(items):
            for j, mname in enumerate(names):
                raw[i, k, j] = reward_value(obj.get(mname), f"{p}:{no}: {mname}")
            valid[i, k] = True
            ids.append(str(obj.get("response_id", k + 1)))
            if labels is not None:
                labels[i, k] = label_value(obj.get("label", obj.get("correct")), f"{p}:{no}")
        if len(set(ids)) != len(ids):
            raise UserError(f"{p}: prompt {pid!r} has repeated response ids")
        resp_ids.append(ids)
    return RewardTable("best_of_n", list(names), list(order), resp_ids, raw, labels, valid)


# ---------------------------------------------------------------------------------------------
# rules
# ---------------------------------------------------------------------------------------------


def check_rules(rules: Sequence[str]) -> None:
    for r in rules:
        if r not in BASE_RULES and r.removeprefix("fj:") not in list_policies():
            raise UserError(
                f"unknown rule {r!r}; choose from {', '.join(BASE_RULES)} or fj:<policy> with policy in "
                f"{', '.join(list_policies())}"
            )


def selectors(models: Sequence[str], rules: Sequence[str]) -> list[tuple[str, str]]:
    """(report name, rule) for each model alone, then each rule."""
    return [(name, f"model:{j}") for j, name in enumerate(models)] + [(r, r) for r in rules]


def selector_keys(cal: np.ndarray, rule: str, k: float, lambdas, policy_params: dict | None) -> np.ndarray:
    """rule_keys with the policy parameters only for FJ rules; a bad parameter is a UserError."""
    try:
        params = (policy_params or {}) if rule.startswith("fj:") else {}
        return rule_keys(cal, rule, k=k, lambdas=lambdas, **params)
    except ValueError as exc:
        raise UserError(f"rule {rule}: {exc}") from None


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
    spec = None if lambdas is None else ConsensusSpec(tuple(lambdas))
    key = get_policy(name, **params).decide(cal, spec).rank_key
    return np.where(np.isnan(key), -np.inf, key)


def best_responses(key: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """(P, n) mask of the responses tied for their prompt's best finite key (none if all -inf)."""
    k = np.where(valid, key, -np.inf)
    top = k.max(axis=1, keepdims=True)
    return valid & (k >= top - REWARD_TIE) & np.isfinite(top)


def selection_hits(key: np.ndarray, labels: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Per prompt: the mean label among the responses tied for the best key (NaN if none valid)."""
    tied = best_responses(key, valid)
    with np.errstate(invalid="ignore"):
        hits = np.nansum(np.where(tied, labels, 0.0), axis=1) / tied.sum(axis=1)
    return np.where(tied.any(axis=1), hits, np.nan)


# ---------------------------------------------------------------------------------------------
# agreement
# ---------------------------------------------------------------------------------------------


def alpha_sums(values: np.ndarray) -> np.ndarray:
    """The four sums Krippendorff's interval alpha needs: (n, within-unit term, sum v, sum v^2).

    They add over any split of the units into blocks, so a streamed table gets the same alpha.
    """
    x = np.asarray(values, dtype=np.float64)
    ok = ~np.isnan(x)
    m_u = ok.sum(axis=1)
    use = m_u >= 2
    xs = np.where(ok, x, 0.0)[use]
    m_u = m_u[use]
    s1, s2 = xs.sum(axis=1), (xs**2).sum(axis=1)
    within = (2 * m_u * s2 - 2 * s1**2) / (m_u - 1)  # sum over ordered pairs in a unit, / (m_u - 1)
    return np.array([m_u.sum(), within.sum(), s1.sum(), s2.sum()], dtype=np.float64)


def alpha_from_sums(sums: np.ndarray) -> float:
    n, within, sv, sv2 = (float(v) for v in sums)
    if n < 2:
        return float("nan")
    d_e = (2 * n * sv2 - 2 * sv**2) / (n * (n - 1))
    return float(1.0 - (within / n) / d_e) if d_e > 0 else float("nan")


def krippendorff_alpha(values: np.ndarray) -> float:
    """Krippendorff's alpha, interval metric, for values (units, coders) with NaN = missing."""
    return alpha_from_sums(alpha_sums(values))


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


def report_head(kind: str, models, prompts: int, responses: int, calibrators, lam, k: float) -> dict:
    used = set(models)
    return {
        "kind": kind,
        "models": list(models),
        "prompts": prompts,
        "responses": responses,
        "calibration": {n: c.as_dict() for n, c in calibrators.items() if n in used},
        "lambdas": list(lam),
        "k": k,
    }


def accuracy_report(
    hits: dict[str, np.ndarray], label_mean: np.ndarray, label_max: np.ndarray, n_boot: int, seed: int
) -> dict:
    """Accuracy with a bootstrap CI per selector from per-prompt hits (NaN = no selection), and
    the random / oracle baselines from each prompt's mean and best label."""
    acc: dict[str, dict] = {}
    cis = bootstrap_cis((h[~np.isnan(h)] for h in hits.values()), n_boot=n_boot, seed=seed)
    for (name, h), (lo, hi) in zip(hits.items(), cis):
        h = h[~np.isnan(h)]
        acc[name] = {"accuracy": float(h.mean()) if h.size else float("nan"), "ci": [lo, hi], "n": int(h.size)}
    return {
        "accuracy": acc,
        "baselines": {"random": float(np.nanmean(label_mean)), "oracle": float(np.nanmean(label_max))},
    }


def default_rules() -> list[str]:
    return [*BASE_RULES, "fj:verdict", "fj:no_rejection"]


def picks(table: RewardTable, cal: np.ndarray, rules: Sequence[str], k: float, lambdas, policy_params) -> list[dict]:
    """Per prompt, the response id(s) each rule picks (several when tied; none when nothing scored)."""
    chosen = {r: best_responses(selector_keys(cal, r, k, lambdas, policy_params), table.valid) for r in rules}
    return [
        {"prompt_id": pid, **{r: [table.response_ids[i][j] for j in np.flatnonzero(chosen[r][i])] for r in rules}}
        for i, pid in enumerate(table.prompt_ids)
    ]


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
    """Per-model and per-rule accuracy with intervals, agreement, and the FJ influence report.
    ``lambdas``: one per model, in ``table.models`` order (None: 1.0 each)."""
    m = len(table.models)
    lam = tuple(lambdas) if lambdas is not None else (1.0,) * m
    cal = apply_calibrators(table.raw, table.models, calibrators)
    rules = list(rules) if rules else default_rules()
    check_rules(rules)
    doc = report_head(table.kind, table.models, len(table.prompt_ids), int(table.valid.sum()), calibrators, lam, k)
    if table.labels is not None:
        hits = {}
        for name, rule in selectors(table.models, rules):
            hits[name] = selection_hits(selector_keys(cal, rule, k, lam, policy_params), table.labels, table.valid)
        lab = np.where(table.valid, table.labels, np.nan)
        doc.update(accuracy_report(hits, np.nanmean(lab, axis=1), np.nanmax(lab, axis=1), n_boot, seed))
    else:  # nothing to score against: what each rule picks is the result
        doc["picks"] = picks(table, cal, rules, k, lam, policy_params)
    flat_cal = cal[table.valid]
    if is_wide(m):  # every pair and the m x m influence matrix would grow with m^2
        return doc | wide_report(krippendorff_alpha(flat_cal), table.flat_raw, flat_cal, lam, table.models)
    doc["agreement"] = {
        "krippendorff_alpha": krippendorff_alpha(flat_cal),
        "spearman_raw": pairwise_correlations(table.flat_raw, table.models, "spearman"),
        "pearson_calibrated": pairwise_correlations(flat_cal, table.models, "pearson"),
    }
    doc["influence"] = influence_report(lam, judges=table.models).as_dict()
    return doc
