"""``accord verify`` on the CHAMP dev split, rules and thresholds chosen leave-one-category-out.

Runs the command users run once (``accord verify STEPS --out PRED.jsonl --json --fail-on never``,
a fresh process: start-up included; wall and CPU time, worker processes included), then from the
raw judge scores in ``PRED.jsonl`` (what ``--policy``/``--tau`` relabel without judging again):

- the whole split, every single judge and every rule at the default settings: ProcessBench F1
  (harmonic mean of the accuracy on erroneous and on correct solutions), exact hits, false alarms
  (correct solutions with an invalid step), precision of the invalid flags (share at or after the
  annotated first error);
- leave-one-category-out: for each category, the rule and τ with the best F1 on the other two
  among those with false alarms ≤ 3% and precision ≥ 0.9 there (the best F1 if none qualifies;
  equal F1 broken by fewer false alarms, then higher precision there, then the default policy,
  then the lower τ), and its figures on the held-out category; the three folds pooled;
- each category on its own, every judge and rule at the default settings (the per-fold table);
- the steps decided and the uncertain steps by reason, and the steps with no formula split by a
  rough reading of their words (no claim at all; a plan, case, supposition or definition; other
  prose), with the decided share among the steps that are not claim-free;
- with ``--baseline OLD.jsonl`` (an earlier run's ``--out``): the solutions whose first error is
  found exactly now and not before, and the reverse, counted by the check whose evidence found it;
- with ``--calibration METHOD``: the judges on one scale, leave-one-category-out through the command
  (``accord verify HELD_OUT --calibration platt --calibrate-on OTHER_TWO --save-calibration``: Platt
  fitted on the annotated steps of the other two categories, applied to the third; a label-free
  method is fitted on the held-out category's own scores), every judge and rule at the default
  settings with and without the scale on the held-out categories pooled, and per category: F1,
  false alarms, precision of the invalid flags, decided share (steps labelled valid or invalid).
  Every run shares one judge-call cache (``--cache``), so the panel judges each step once.

Run: python benchmarks/verify_loco.py [--data ../shared/data/champ-dev/steps.jsonl] [--baseline OLD.jsonl]
     [--calibration platt] [--cache FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

from accord.verify.solutions import INVALID, prediction, raw_matrix, rule_stats, three_way
from accord.verify.solutions._uncertainty import kind_of, uncertain_reason

CHAMP = Path("shared") / "data" / "champ-dev" / "steps.jsonl"
DEFAULT_DATA = next((p / CHAMP for p in ROOT.parents if (p / CHAMP).is_file()), ROOT.parent / CHAMP)
RULES = ("mean", "verdict", "mean_preserving", "min", "max")
TAUS = (0.6, 0.7, 0.8, 0.9)
EPS = 0.1
MAX_FALSE_ALARMS, MIN_PRECISION = 0.03, 0.9
# the check behind an invalid step, read from its evidence
CHECKS = [
    ("lead-in", re.compile(r"the claim of the next line")),
    ("calculator annotation", re.compile(r"calculator annotation")),
    ("sequence the problem defines", re.compile(r"with the problem's definition|for the problem's sequence")),
    ("opening link read as a rewrite", re.compile(r"read as a rewrite")),
    ("equation derived from the one before", re.compile(r"does not follow from the equation before it")),
    ("tuple claimed as a solution", re.compile(r"is not a solution of")),
    ("inequality derived from another", re.compile(r"does not follow from the inequality")),
    ("quantified claim (small cases)", re.compile(r"claimed for all .* it fails at")),
    ("residues claimed modulo n", re.compile(r"\(mod \d+\), not among|over all residues, never")),
    (
        "number fact in prose",
        re.compile(
            r"(?:divisible by|multiple of|factor of|divisor of|divides?|divide|prime|"
            r"composite|even|odd|coprime|than)[^:;]{0,40} is false: "
        ),
    ),
    ("inequality", re.compile(r"inequality .*(?:fails|is false) at")),
    ("not an identity (later link)", re.compile(r"is not an identity")),
    ("arithmetic", re.compile(r"is false|is wrong")),
]


def category(ident: str) -> str:
    return ident.split("|")[0].split("_")[1]


def accord_verify(data: Path, out: Path, *extra: str) -> tuple[dict, float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "accord.cli.main",
            "verify",
            str(data),
            "--out",
            str(out),
            "--json",
            "--bootstrap",
            "0",
            "--fail-on",
            "never",
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"accord verify failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout), wall, cpu


_STATS: dict[tuple[str, str], object] = {}


def labels_of(rec: dict, rule: str, tau: float) -> list[str]:
    """The step labels ``--policy RULE --tau TAU`` gives (the rule's statistics computed once)."""
    judges, lambdas = rec["judges"], rec["lambdas"]
    k = (rec["id"], rule, rec.get("calibration"))
    if k not in _STATS:
        # a record labelled on a judge scale is relabelled on its mapped scores (``scaled``)
        steps = [{"scores": s["scaled"]} for s in rec["steps"]] if rec.get("calibration") else rec["steps"]
        _STATS[k] = rule_stats(raw_matrix(steps, judges), rule, judges, lambdas)
    return three_way(_STATS[k], tau, EPS)


def figures(recs: list[dict], rule: str, tau: float) -> dict:
    err = cor = hit_e = hit_c = alarms = n_inv = n_late = 0
    for r in recs:
        labels = labels_of(r, rule, tau)
        first, pred = r["label"], prediction(labels)
        inv = [k for k, x in enumerate(labels) if x == INVALID]
        n_inv += len(inv)
        if first >= 0:
            err += 1
            hit_e += pred == first
            n_late += sum(k >= first for k in inv)
        else:
            cor += 1
            hit_c += pred == -1
            alarms += bool(inv)
    acc_e, acc_c = hit_e / err if err else 0.0, hit_c / cor if cor else 0.0
    f1 = 2 * acc_e * acc_c / (acc_e + acc_c) if acc_e + acc_c else 0.0
    return {
        "f1": f1,
        "acc_e": acc_e,
        "acc_c": acc_c,
        "exact": hit_e,
        "n_err": err,
        "alarms": alarms,
        "n_cor": cor,
        "false_alarm_rate": alarms / cor if cor else 0.0,
        "precision": n_late / n_inv if n_inv else None,
        "n_invalid": n_inv,
    }


def row(name: str, f: dict) -> str:
    prec = "–" if f["precision"] is None else f"{f['precision']:.3f}"
    return (
        f"| {name} | {f['f1']:.3f} | {f['acc_e']:.3f} | {f['acc_c']:.3f} | {f['exact']} / {f['n_err']} | "
        f"{f['alarms']} / {f['n_cor']} ({f['false_alarm_rate']:.3f}) | {prec} | {f['n_invalid']} |"
    )


HEAD = (
    "| rule | F1 | acc. erroneous | acc. correct | exact hits | false alarms | precision of invalid | #invalid |\n"
    "|---|---|---|---|---|---|---|---|"
)


def choose(
    recs: list[dict], candidates: list[tuple[str, float]], constrained: bool = True, policy: str = "verdict"
) -> tuple[str, float]:
    """The candidate with the best F1 on ``recs``. Equal F1 is broken by what the constraints
    value, measured on the same categories: fewer false alarms, then higher precision of the
    invalid flags; then the command's own policy over any other rule; then the lower τ. The order
    of ``candidates`` never decides (it used to: the first of equals won, a single judge listed
    before the rules)."""
    scored = [(figures(recs, rule, tau), rule, tau) for rule, tau in candidates]
    ok = (
        [
            s
            for s in scored
            if s[0]["false_alarm_rate"] <= MAX_FALSE_ALARMS and (s[0]["precision"] or 0.0) >= MIN_PRECISION
        ]
        if constrained
        else []
    )
    best = max(
        ok or scored,
        key=lambda s: (
            round(s[0]["f1"], 12),
            -s[0]["false_alarm_rate"],
            s[0]["precision"] or 0.0,
            s[1] == policy,
            -s[2],
        ),
    )
    return best[1], best[2]


def which_check(reason: str) -> str:
    return next((name for name, pat in CHECKS if pat.search(reason or "")), "other")


def compare(recs: list[dict], old: dict[str, dict], policy: str, tau: float) -> None:
    gained, lost = Counter(), Counter()
    for r in recs:
        o = old.get(r["id"])
        if o is None or r["label"] < 0:
            continue
        now, before = r["prediction"] == r["label"], o["prediction"] == o["label"]
        if now and not before:
            was = o["steps"][r["prediction"]].get("reason", "") if r["prediction"] < len(o["steps"]) else ""
            gained[
                "contradiction cue narrowed"
                if "as the step itself says" in was
                else which_check(r["steps"][r["prediction"]].get("reason", ""))
            ] += 1
        elif before and not now:
            lost[which_check(o["steps"][o["prediction"]].get("reason", ""))] += 1
    print("\nfirst errors found exactly now and not by the baseline, by the check whose evidence found them:")
    for name, n in gained.most_common():
        print(f"  {name}: {n}")
    print(f"found by the baseline and not now: {sum(lost.values())} {dict(lost)}")
    alarms_now = sum(1 for r in recs if r["label"] < 0 and INVALID in r["step_labels"])
    alarms_old = sum(1 for o in old.values() if o["label"] < 0 and INVALID in o["step_labels"])
    print(f"false alarms on correct solutions: {alarms_old} before, {alarms_now} now")


UNCERTAIN_KINDS = ("no formula", "read, not checkable", "unreadable", "judges disagree", "score in between")


def decided_row(name: str, recs: list[dict]) -> str:
    """Decided share (valid or invalid at the record's own settings) and the uncertain steps by
    reason, read again from the judges' reasons (so an older --out file is counted the same way)."""
    steps = [(s, r["eps"]) for r in recs for s in r["steps"]]
    kinds = Counter(
        kind_of(uncertain_reason(s["scores"], s["reasons"], s.get("dispersion"), eps))
        for s, eps in steps
        if s["label"] == "uncertain"
    )
    n_dec = sum(s["label"] in ("valid", "invalid") for s, _ in steps)
    return (
        f"| {name} | {len(steps)} | {n_dec} ({n_dec / len(steps):.3f}) | "
        + " | ".join(str(kinds[k]) for k in UNCERTAIN_KINDS)
        + " |"
    )


DECIDED_HEAD = (
    "| | steps | decided (share) | " + " | ".join(UNCERTAIN_KINDS) + " |\n|---|---|---|" + "---|" * len(UNCERTAIN_KINDS)
)


def print_decided(recs: list[dict], cats: list[str], title: str) -> None:
    print(
        f"\n{title}: steps decided (valid or invalid) and uncertain steps by reason, default settings\n{DECIDED_HEAD}"
    )
    for c in cats:
        print(decided_row(c, [r for r in recs if category(r["id"]) == c]))
    print(decided_row("whole split", recs))


# a rough reading of the words of a step with no formula, for the table below only (accord does not use it)
_NO_CLAIM = re.compile(r"(?:[:?]|\\\[|\\begin\{\w+\*?\})\s*$|^\s*(?:draw|label|fill|dot|path|size|unitsize)\s*\(", re.I)
_PLAN = re.compile(
    r"^\s*(?:[-*•]|\d+[.)])?\s*(?:(?:now|next|first|then|finally|so),?\s+)?(?:let'?s|let us|we (?:need|want|can|will|"
    r"must|should|have to|start|begin|are asked)|to (?:solve|find|do|count|determine|prove|show|simplify|minimi|"
    r"maximi|answer|check|compute|calculate|get)|consider|recall|note that|notice that|case\b|step\b|suppose|"
    r"assume|if\b|for (?:each|every|the)\b)|\blet\s+\S+\s+(?:be|denote)\b|\bdenote\b|\bdefine\b",
    re.I,
)


def print_no_formula_split(recs: list[dict]) -> None:
    """The steps with no formula, split by a rough reading of their words: how many state nothing
    a checker could decide (so how far reading formulas alone can take the decided share)."""
    kinds = Counter()
    for r in recs:
        for s in r["steps"]:
            if s["label"] != "uncertain":
                continue
            if kind_of(uncertain_reason(s["scores"], s["reasons"], s.get("dispersion"), r["eps"])) != "no formula":
                continue
            text = s["text"].strip()
            kinds[
                "no claim: lead-in, heading, drawing, question"
                if not text or _NO_CLAIM.search(text)
                else "no claim: plan, case, supposition, definition"
                if _PLAN.search(text)
                else "prose that may claim something"
            ] += 1
    steps = sum(len(r["steps"]) for r in recs)
    decided = sum(s["label"] != "uncertain" for r in recs for s in r["steps"])
    claim_free = (
        kinds["no claim: lead-in, heading, drawing, question"] + kinds["no claim: plan, case, supposition, definition"]
    )
    print("\nsteps with no formula, by a rough reading of their words (this table only):")
    for kind, n in kinds.most_common():
        print(f"  {kind}: {n}")
    print(
        f"  decided share among the other steps: {decided / (steps - claim_free):.3f} "
        f"({decided} of {steps - claim_free})"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--baseline", type=Path, help="an earlier run's --out file to compare with")
    ap.add_argument("--keep", type=Path, help="keep this run's --out file here")
    ap.add_argument("--records", type=Path, help="an --out file of a finished run to read instead of running again")
    ap.add_argument(
        "--calibration",
        choices=("platt", "quantile", "agreement", "standardize"),
        help="also run with the judges on this scale, leave-one-category-out (platt fitted on the other two)",
    )
    ap.add_argument("--cache", type=Path, help="judge-call cache shared by every run (default: a temporary one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or Path(tmp) / "judge.cache"
        return measure(args, cache, Path(tmp))


def measure(args: argparse.Namespace, cache: Path, tmp: Path) -> int:
    if args.records:
        recs = [json.loads(x) for x in args.records.read_text().splitlines() if x.strip()]
        doc = {k: recs[0][k] for k in ("judges", "tau", "eps", "policy")}
        print(f"{args.records}: {len(recs)} solutions, {sum(len(r['steps']) for r in recs)} steps (not run again)")
    else:
        if not args.data.is_file():
            sys.exit(f"{args.data}: not found (the CHAMP dev split lives in ../shared/data/champ-dev/)")
        out = args.keep or tmp / "pred.jsonl"
        if out.exists():
            out.unlink()
        doc, wall, cpu = accord_verify(args.data, out, "--cache", str(cache))
        recs = [json.loads(x) for x in out.read_text().splitlines()]
        print(
            f"accord verify {args.data}: {len(recs)} solutions, {doc['steps']} steps, judges "
            f"{', '.join(doc['judges'])}; "
            f"whole command {wall:.1f} s wall, {cpu:.1f} s CPU (worker processes included), "
            f"load average {os.getloadavg()[0]:.1f}"
        )
    judges = doc["judges"]
    print(f"\nwhole split, default settings (τ {doc['tau']}, ε {doc['eps']}):\n{HEAD}")
    for rule in list(judges) + list(RULES):
        print(row(rule, figures(recs, rule, doc["tau"])))
    cats = sorted({category(r["id"]) for r in recs})
    candidates = [(rule, tau) for rule in list(judges) + list(RULES) for tau in TAUS]
    for constrained in (True, False):
        how = (
            f"best F1 with false alarms ≤ {MAX_FALSE_ALARMS:.0%} and precision ≥ {MIN_PRECISION} there, else the "
            "best F1"
            if constrained
            else "best F1 there"
        )
        print(
            f"\nleave-one-category-out (rule and τ chosen on the other two categories: {how}):\n"
            f"{HEAD.replace('| rule |', '| held out (chosen) |')}"
        )
        pooled = []
        for held in cats:
            train = [r for r in recs if category(r["id"]) != held]
            test = [r for r in recs if category(r["id"]) == held]
            rule, tau = choose(train, candidates, constrained, doc["policy"])
            print(row(f"{held} ({rule}, τ {tau})", figures(test, rule, tau)))
            pooled.append((test, rule, tau))
        # the three held-out categories together, each labelled by its own fold's choice
        print(
            row("pooled held-out", _pooled([dict(r, _rule=rule, _tau=tau) for test, rule, tau in pooled for r in test]))
        )
    print(
        f"\nper category at the default settings (policy {doc['policy']}):\n{HEAD.replace('| rule |', '| category |')}"
    )
    for c in cats:
        print(row(c, figures([r for r in recs if category(r["id"]) == c], doc["policy"], doc["tau"])))
    for c in cats:
        print(f"\nheld-out {c}, every judge and rule at the default settings (τ {doc['tau']}):\n{HEAD}")
        for rule in list(judges) + list(RULES):
            print(row(rule, figures([r for r in recs if category(r["id"]) == c], rule, doc["tau"])))
    print_decided(recs, cats, "this run")
    print_no_formula_split(recs)
    if args.baseline:
        old = {json.loads(x)["id"]: json.loads(x) for x in args.baseline.read_text().splitlines() if x.strip()}
        print_decided(list(old.values()), cats, "the baseline")
        compare(recs, old, doc["policy"], doc["tau"])
    if args.calibration:
        on_one_scale(args, recs, cats, judges, doc, cache, tmp)
    return 0


def decided_share(recs: list[dict], rule: str, tau: float) -> tuple[int, int]:
    labels = [x for r in recs for x in labels_of(r, rule, tau)]
    return sum(x != "uncertain" for x in labels), len(labels)


def scale_row(name: str, f: dict, dec: tuple[int, int]) -> str:
    prec = "–" if f["precision"] is None else f"{f['precision']:.3f}"
    return (
        f"| {name} | {f['f1']:.3f} | {f['exact']} / {f['n_err']} | {f['alarms']} / {f['n_cor']} "
        f"({f['false_alarm_rate']:.3f}) | {prec} ({f['n_invalid']}) | {dec[0]} / {dec[1]} ({dec[0] / dec[1]:.3f}) |"
    )


SCALE_HEAD = (
    "| {what} | F1 | exact hits | false alarms | precision of invalid (#invalid) | decided steps (share) |\n"
    "|---|---|---|---|---|---|"
)


def on_one_scale(args, recs: list[dict], cats: list[str], judges: list[str], doc: dict, cache: Path, tmp: Path) -> None:
    """Each category verified with the judges on one scale through the command (fitted without it for
    platt), against the same records on raw scores, at the default settings."""
    import numpy as np

    from accord.adapters import Calibrator

    rows = {r["id"]: r for r in recs}
    if not args.data.is_file():
        sys.exit(f"{args.data}: not found (--calibration verifies each category of it again)")
    src = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    scaled: list[dict] = []
    print(f"\njudges on one scale ({args.calibration}), leave-one-category-out through accord verify:")
    for held in cats:
        test, train, out = tmp / f"{held}.jsonl", tmp / f"not-{held}.jsonl", tmp / f"{held}-scaled.jsonl"
        test.write_text("".join(json.dumps(r) + "\n" for r in src if category(r["id"]) == held))
        train.write_text("".join(json.dumps(r) + "\n" for r in src if category(r["id"]) != held))
        extra = ["--cache", str(cache), "--calibration", args.calibration]
        if args.calibration == "platt":
            extra += ["--calibrate-on", str(train), "--save-calibration", str(tmp / f"{held}-scale.json")]
        got, wall, _ = accord_verify(test, out, *extra)
        fold = [json.loads(x) for x in out.read_text().splitlines()]
        scaled += fold
        cal = got["calibration"]
        print(f"  {held}: {len(fold)} solutions, scale fitted on {cal['source']}; {wall:.1f} s wall")
        if args.calibration == "platt":
            maps = json.loads((tmp / f"{held}-scale.json").read_text())["maps"]
            for j in judges:
                m = maps.get(j)
                if m and m["method"] == "platt":
                    c = Calibrator.from_dict(m)
                    p0, p1 = c.apply(np.array([0.0, 1.0]))
                    print(f"    {j}: P(step right | score 0) = {p0:.3f}, P(step right | score 1) = {p1:.3f}")
    raw_same = [rows[r["id"]] for r in scaled]
    tau = doc["tau"]
    print(
        f"\nheld-out categories pooled, default settings (τ {tau}, ε {EPS}), raw scores → on the scale:\n"
        + SCALE_HEAD.format(what="rule")
    )
    for rule in list(judges) + list(RULES):
        print(scale_row(f"{rule}, raw", figures(raw_same, rule, tau), decided_share(raw_same, rule, tau)))
        print(scale_row(f"{rule}, on the scale", figures(scaled, rule, tau), decided_share(scaled, rule, tau)))
    print(f"\nper held-out category, policy {doc['policy']}:\n" + SCALE_HEAD.format(what="category"))
    for held in cats:
        a = [r for r in raw_same if category(r["id"]) == held]
        b = [r for r in scaled if category(r["id"]) == held]
        print(scale_row(f"{held}, raw", figures(a, doc["policy"], tau), decided_share(a, doc["policy"], tau)))
        print(scale_row(f"{held}, on the scale", figures(b, doc["policy"], tau), decided_share(b, doc["policy"], tau)))


def _pooled(merged: list[dict]) -> dict:
    parts = [figures([r], r["_rule"], r["_tau"]) for r in merged]
    err = sum(p["n_err"] for p in parts)
    cor = sum(p["n_cor"] for p in parts)
    exact = sum(p["exact"] for p in parts)
    hit_c = sum(p["acc_c"] * p["n_cor"] for p in parts)
    alarms = sum(p["alarms"] for p in parts)
    n_inv = sum(p["n_invalid"] for p in parts)
    n_late = sum((p["precision"] or 0.0) * p["n_invalid"] for p in parts)
    acc_e, acc_c = exact / err, hit_c / cor
    return {
        "f1": 2 * acc_e * acc_c / (acc_e + acc_c) if acc_e + acc_c else 0.0,
        "acc_e": acc_e,
        "acc_c": acc_c,
        "exact": exact,
        "n_err": err,
        "alarms": alarms,
        "n_cor": cor,
        "false_alarm_rate": alarms / cor,
        "precision": n_late / n_inv if n_inv else None,
        "n_invalid": n_inv,
    }


if __name__ == "__main__":
    with _machine.Run():
        rc = main()
    sys.exit(rc)
