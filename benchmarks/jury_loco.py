"""What ``accord jury`` claims, checked through the command users run on a real panel.

Every figure comes from ``accord jury FILE --json`` (``accord.cli.main.main``), on the CHAMP
development split (Combinatorics, Number-Theory, Inequality) only; a row's category is the
problem named in its id (``P_<Category>_<k>|<prompt setting>``).

The two per-fold parts grade each category once with ``--equivalence auto`` and write the answers
back as their class names (``benchmarks/jury_trust.py``'s class files), so that 10 seeds per fold
stay affordable; every measured run is then ``accord jury FOLD.jsonl --equivalence text ...``, which
gives the same classes (checked: one seed per fold is also run on the fold's own answers with
``--equivalence auto``, and its figures must be the same).

- ``confidence``: leave one category out. ``--label-budget N`` (N = 50, 200) with each
  ``--label-choice`` (mixed, active, random) over ``--seeds`` seeds per fold: both expected
  calibration errors of ``confidence`` on the rows whose reference was not read, as the command
  reports them (``confidence_error``: ten equal-width bins, ten bins of about equal rows), and the
  jury's accuracy there. The label choice is picked on two categories (smallest mean equal-count
  error at 200 labels) and reported on the third; the default is the choice whose worst fold is best.
- ``risk``: leave one category out. ``--risk ALPHA --label-budget N`` (alpha 0.2 and 0.1, N 100
  and 200) with each ``--risk-candidates`` share over ``--seeds`` seeds per fold: seeds whose
  certified coverage is at least 15% of the unlabelled rows, mean coverage, the smallest error the
  labels certify at the coverage found (``bound``), and seeds whose realised error on the answered
  unlabelled rows is over alpha. The share is picked on two categories (most seeds certifying 15%
  at alpha 0.2, over both budgets, among the shares over alpha in at most delta of the seeds) and
  reported on the third.
- ``budget``: ``--label-budget N`` (N = 50, 200, labels chosen actively, the default) over the
  seeds: the jury on the unlabelled rows beside the accuracy-weighted vote with accuracies from
  the same labels, the best member chosen on the labels and the best member by hindsight.
- ``loco``: leave one category out. Each label-free ``--method`` runs on each category's rows
  alone; the default rule is the one with the best mean accuracy on the two other categories,
  reported on the third; the label-free default's printed advantage interval (vote - best
  member) is checked against the realised difference (vote accuracy - the best member's).
- ``simulated``: the same check of the advantage interval on panels drawn from the jury law's
  shared-attractor model (correlated errors, unequal members), written as jury files: five fixed
  settings over the seeds and a random settings family (:func:`check_family`), both apart from
  the family the interval's dependence allowance was calibrated on (benchmarks/jury_dependence.py).
  Reported: coverage of the intervals printed as a ranking, and of the sign claims ("the vote is
  ahead of / behind the best member"), with the share of panels where a claim is made.

    python benchmarks/jury_loco.py [--parts confidence,risk,budget,loco,simulated] [--seeds 10] [--data FILE]
        [--classes DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np

from accord.cli.main import main as accord_main
from accord.consensus_core.jury._law import simulate_unequal_panel

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "champ-dev" / "jury.jsonl"
LABEL_FREE = ("auto", "modal", "weighted", "dawid-skene", "difficulty", "best-member")


def jury(path: Path, *argv: str) -> dict:
    """One ``accord jury PATH --json ...`` run; its JSON document."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = accord_main(["jury", str(path), "--json", *argv])
    if rc != 0:
        raise SystemExit(f"accord jury {path} {' '.join(argv)} exited {rc}")
    return json.loads(buf.getvalue())


def category(pid: str) -> str:
    return pid.split("|", 1)[0].split("_")[1]


def split_by_category(data: Path, folder: Path) -> dict[str, Path]:
    rows: dict[str, list[str]] = {}
    for line in data.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj.pop("correct", None)  # accord never reads the graded labels
        rows.setdefault(category(obj["id"]), []).append(json.dumps(obj))
    out = {}
    for cat, lines in sorted(rows.items()):
        out[cat] = folder / f"{cat}.jsonl"
        out[cat].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


CHOICES = ("mixed", "active", "random")
SHARES = (0.5, 0.6, 0.7, 0.8, 1.0)
FOLDS = ("Combinatorics", "Number-Theory", "Inequality")


def fold_files(data: Path, folder: Path) -> dict[str, Path]:
    """Per category the class file (answers and reference as the classes ``--equivalence auto`` finds)."""
    from jury_trust import class_files  # benchmarks/jury_trust.py: grades each category once

    files = {c: folder / f"{c}.jsonl" for c in FOLDS}
    if not all(f.is_file() for f in files.values()):
        files = class_files(data, folder)
    return files


def _mean(xs) -> float | None:
    xs = [x for x in xs if x is not None]
    return float(np.mean(xs)) if xs else None


def part_confidence(files: dict[str, Path], seeds: int) -> dict:
    runs: dict = {}
    for cat, path in files.items():
        for choice in CHOICES:
            for budget in (50, 200):
                rows = []
                for seed in range(seeds):
                    argv = ["--equivalence", "text", "--label-budget", str(budget), "--label-choice", choice]
                    doc = jury(path, *argv, "--seed", str(seed), "--n-boot", "40", "-q")
                    e = doc.get("confidence_error") or {}
                    rows.append(
                        {
                            "ece_width": e.get("equal_width"),
                            "ece_count": e.get("equal_count"),
                            "accuracy": doc["jury"]["accuracy"],
                            "best_member": doc["best_member"]["accuracy"],
                        }
                    )
                key = f"{cat} {choice} {budget}"
                runs[key] = {
                    "seeds": seeds,
                    "ece_width": _mean(r["ece_width"] for r in rows),
                    "ece_count": _mean(r["ece_count"] for r in rows),
                    "ece_count_max": max(r["ece_count"] for r in rows if r["ece_count"] is not None),
                    "accuracy": _mean(r["accuracy"] for r in rows),
                    "best_member": _mean(r["best_member"] for r in rows),
                }
                print(f"confidence {key}: {json.dumps(runs[key])}", flush=True)
    folds = {}
    for held in files:
        others = [c for c in files if c != held]
        pick = min(CHOICES, key=lambda ch: np.mean([runs[f"{c} {ch} 200"]["ece_count"] for c in others]))
        folds[held] = {"chosen_on_others": pick, "50": runs[f"{held} {pick} 50"], "200": runs[f"{held} {pick} 200"]}
        print(f"confidence fold {held}: chosen on the others {pick}: {json.dumps(folds[held])}", flush=True)
    worst = {ch: max(runs[f"{c} {ch} 200"]["ece_count"] for c in files) for ch in CHOICES}
    print(f"confidence: worst fold's equal-count error at 200 labels per choice {json.dumps(worst)}", flush=True)
    return {"runs": runs, "folds": folds, "worst_fold_200": worst}


def part_risk(files: dict[str, Path], seeds: int, delta: float = 0.1, shares=SHARES) -> dict:
    runs: dict = {}

    def measure(path: Path, alpha: float, budget: int, share: float) -> dict:
        rows = []
        for seed in range(seeds):
            argv = ["--equivalence", "text", "--risk", str(alpha), "--delta", str(delta), "--label-budget", str(budget)]
            argv += ["--risk-candidates", str(share), "--seed", str(seed), "--n-boot", "40", "-q"]
            r = jury(path, *argv)["risk"]
            rows.append(r)
        errs = [r.get("realised_error") for r in rows]
        return {
            "seeds": seeds,
            "certified_15": sum(r["coverage_unlabeled"] >= 0.15 for r in rows),
            "certified": sum(r["threshold"] is not None for r in rows),
            "coverage_mean": float(np.mean([r["coverage_unlabeled"] for r in rows])),
            "bound_mean": _mean(r["bound"] for r in rows),
            "over_alpha": sum(e is not None and e > alpha for e in errs),
            "realised_error_max": max((e for e in errs if e is not None), default=None),
        }

    for cat, path in files.items():
        for share in shares:
            for budget in (100, 200):
                key = f"{cat} 0.2 {budget} {share}"
                runs[key] = measure(path, 0.2, budget, share)
                print(f"risk {key}: {json.dumps(runs[key])}", flush=True)
    folds = {}
    for held in files:
        others = [c for c in files if c != held]

        def score(share: float) -> tuple:
            keys = [f"{c} 0.2 {b} {share}" for c in others for b in (100, 200)]
            safe = all(runs[k]["over_alpha"] <= delta * seeds for k in keys)
            return (safe, sum(runs[k]["certified_15"] for k in keys), np.mean([runs[k]["coverage_mean"] for k in keys]))

        pick = max(shares, key=score)
        out = {"chosen_on_others": pick}
        for alpha in (0.2, 0.1):
            for budget in (100, 200):
                key = f"{held} {alpha} {budget} {pick}"
                if key not in runs:
                    runs[key] = measure(files[held], alpha, budget, pick)
                    print(f"risk {key}: {json.dumps(runs[key])}", flush=True)
                out[f"alpha {alpha} labels {budget}"] = runs[key]
        folds[held] = out
        print(f"risk fold {held}: {json.dumps(out)}", flush=True)
    return {"runs": runs, "folds": folds}


def check_auto(data: Path, files: dict[str, Path], folder: Path) -> dict:
    """One seed per fold on the fold's own answers with --equivalence auto: the same figures as on its class file."""
    out = {}
    for cat, path in files.items():
        raw = folder / f"{cat}.raw.jsonl"
        argv = ["--label-budget", "200", "--seed", "0", "--n-boot", "40", "-q"]
        a = jury(raw, "--equivalence", "auto", *argv)
        b = jury(path, "--equivalence", "text", *argv)
        out[cat] = {
            "same": a["confidence_error"] == b["confidence_error"] and a["jury"] == b["jury"],
            "auto": a["confidence_error"],
            "classes": b["confidence_error"],
        }
        print(f"check {cat}: {json.dumps(out[cat])}", flush=True)
    return out


def part_budget(data: Path, seeds: int) -> dict:
    out = {}
    keys = ("jury", "accuracy_weighted", "best_member_on_labels", "best_member", "label_free")
    for budget in (50, 200):
        runs = []
        for seed in range(seeds):
            un = jury(data, "--label-budget", str(budget), "--seed", str(seed), "--n-boot", "40")["unlabeled"]
            runs.append({k: un[k]["accuracy"] for k in keys})
            print(f"budget {budget} seed {seed}: " + ", ".join(f"{k} {v:.3f}" for k, v in runs[-1].items()), flush=True)
        out[budget] = {k: float(np.mean([r[k] for r in runs])) for k in keys}
        out[budget]["jury_ge_weighted"] = sum(r["jury"] >= r["accuracy_weighted"] for r in runs)
        out[budget]["jury_ge_best_member"] = sum(r["jury"] >= r["best_member"] for r in runs)
        print(f"budget {budget} mean over {seeds} seeds: {json.dumps(out[budget])}", flush=True)
    return out


def advantage_check(doc: dict) -> dict:
    """The printed advantage interval against the realised difference (vote - the actual best member)."""
    lf = doc["label_free"]
    best = doc["best_member"]["accuracy"]
    # the interval is the difficulty vote's (run with --method difficulty), not the default's (the majority)
    realised = doc["vote_accuracy"] - best
    lo, hi = lf["advantage_ci"]
    return {
        "rule": lf["rule"],
        "advantage": lf["advantage"],
        "ci": [lo, hi],
        "realised": realised,
        "covered": lo - 1e-9 <= realised <= hi + 1e-9,
        "default_accuracy": doc["jury"]["accuracy"],
        "best_member": best,
        "ranks_members": lf.get("ranks_members"),
        "claims": lf.get("claims"),
        "labels_needed": lf.get("labels_needed"),
    }


def part_loco(data: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        files = split_by_category(data, Path(tmp))
        acc: dict[str, dict[str, float]] = {}
        checks = {}
        for cat, path in files.items():
            acc[cat] = {}
            for method in LABEL_FREE:  # --label-budget 0: no rule reads a reference; they all measure
                doc = jury(path, "--method", method, "--n-boot", "40", "--label-budget", "0")
                acc[cat][method] = doc["jury"]["accuracy"]
                if method == "auto":
                    diff = jury(path, "--method", "difficulty", "--n-boot", "40", "--label-budget", "0")
                    doc["vote_accuracy"] = diff["jury"]["accuracy"]
                    checks[cat] = advantage_check(doc)
                    acc[cat]["best member (hindsight)"] = doc["best_member"]["accuracy"]
            print(f"{cat}: " + ", ".join(f"{k} {v:.3f}" for k, v in acc[cat].items()), flush=True)
            print(f"{cat}: advantage {json.dumps(checks[cat])}", flush=True)
    folds = {}
    for held in acc:
        others = [c for c in acc if c != held]
        chosen = max(LABEL_FREE, key=lambda m: np.mean([acc[c][m] for c in others]))
        folds[held] = {
            "chosen_on_others": chosen,
            "accuracy": acc[held][chosen],
            "best_member": acc[held]["best member (hindsight)"],
        }
        print(
            f"fold {held}: chosen on the others {chosen}, accuracy {acc[held][chosen]:.3f} vs best member "
            f"{acc[held]['best member (hindsight)']:.3f}",
            flush=True,
        )
    return {
        "accuracy": acc,
        "advantage": checks,
        "folds": folds,
        "coverage": sum(c["covered"] for c in checks.values()) / len(checks),
    }


SIM_PANELS = [  # member accuracies, error correlation, attractor mass (the jury law's model)
    ((0.6, 0.5, 0.35, 0.2), 0.1, 0.2),
    ((0.6, 0.5, 0.35, 0.2), 0.4, 0.4),
    ((0.53, 0.45, 0.4, 0.4), 0.5, 0.5),
    ((0.7, 0.4, 0.4, 0.4), 0.3, 0.6),
    ((0.55, 0.55, 0.5, 0.3, 0.3), 0.4, 0.3),
]


def write_simulated(path: Path, accs, rho: float, s: float, n: int, seed: int) -> None:
    sim = simulate_unequal_panel(accs, rho, s, n=n, seed=seed)
    codes = sim.codes  # class 0 is the right answer
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            answers = {f"m{j}": f"a{codes[i, j]}" for j in range(codes.shape[1])}
            f.write(json.dumps({"id": f"q{i}", "answers": answers, "reference": "a0"}) + "\n")


def check_family(seed: int = 7, panels: int = 20):
    """A second check family, drawn apart from the calibration one of benchmarks/jury_dependence.py
    (other seed, other ranges): 3-5 members, best accuracy 0.5-0.75, error correlation 0.1-0.5,
    attractor mass 0.1-0.6, 300 or 600 problems."""
    rng = np.random.default_rng(seed)
    for _ in range(panels):
        M = int(rng.integers(3, 6))
        best = rng.uniform(0.5, 0.75)
        accs = tuple(np.round(np.concatenate([[best], rng.uniform(0.2, best - 0.03, M - 1)]), 3))
        yield accs, float(rng.uniform(0.1, 0.5)), float(rng.uniform(0.1, 0.6)), int(rng.choice([300, 600]))


def claim_summary(rows: list[dict]) -> dict:
    ranked = [r for r in rows if r["ranks_members"] is not False]
    signed = [r for r in ranked if r.get("claims")]
    return {
        "runs": len(rows),
        "coverage_all_intervals": sum(r["covered"] for r in rows) / len(rows),
        "default_minus_best_member": float(np.mean([r["default_accuracy"] - r["best_member"] for r in rows])),
        "ranked": len(ranked),
        "coverage_ranked": (sum(r["covered"] for r in ranked) / len(ranked)) if ranked else None,
        "sign_claims": len(signed),
        "sign_claim_share": len(signed) / len(rows),
        "coverage_sign_claims": (sum(r["covered"] for r in signed) / len(signed)) if signed else None,
    }


def part_simulated(seeds: int, n: int = 400) -> dict:
    settings = [(k, accs, rho, s, n, seed) for k, (accs, rho, s) in enumerate(SIM_PANELS) for seed in range(seeds)]
    settings += [(len(SIM_PANELS) + k, accs, rho, s, m, 0) for k, (accs, rho, s, m) in enumerate(check_family())]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, accs, rho, s, m, seed in settings:
            path = Path(tmp) / f"sim{k}_{seed}.jsonl"
            write_simulated(path, accs, rho, s, m, 1000 * k + seed)
            label_free = ["--equivalence", "text", "--label-budget", "0"]
            doc = jury(path, *label_free, "--n-boot", "40", "--seed", str(seed))
            doc["vote_accuracy"] = jury(path, *label_free, "--method", "difficulty", "--n-boot", "40")["jury"][
                "accuracy"
            ]
            rows.append(
                {
                    "panel": k,
                    "family": "fixed" if k < len(SIM_PANELS) else "random",
                    "seed": seed,
                    "accs": list(accs),
                    "rho": rho,
                    "s": s,
                    "n": m,
                    **advantage_check(doc),
                }
            )
            print(f"simulated {k} seed {seed}: {json.dumps(rows[-1])}", flush=True)
    out = {"all": claim_summary(rows)}
    for fam in ("fixed", "random"):
        out[fam] = claim_summary([r for r in rows if r["family"] == fam])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--parts", default="confidence,risk,budget,loco,simulated")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--classes", type=Path, default=None, help="a folder for (or with) the graded class files")
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = ap.parse_args()
    parts = args.parts.split(",")
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.classes or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if "confidence" in parts or "risk" in parts:
            files = fold_files(args.data, folder)
            figures["check_auto"] = check_auto(args.data, files, folder)
        if "confidence" in parts:
            figures["confidence"] = part_confidence(files, args.seeds)
        if "risk" in parts:
            figures["risk"] = part_risk(files, args.seeds)
    if "budget" in parts:
        figures["budget"] = part_budget(args.data, args.seeds)
    if "loco" in parts:
        figures["loco"] = part_loco(args.data)
    if "simulated" in parts:
        figures["simulated"] = part_simulated(args.seeds)
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    with _machine.Run():
        main()
