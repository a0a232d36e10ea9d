"""Figures for what ``accord jury`` claims and how its confidence holds, through the command users run.

On the CHAMP development split (Combinatorics, Number-Theory, Inequality), each category a fold
(leave-one-category-out: no setting here is tuned, so each fold is the category's rows alone).
To keep 10-20 seeds per fold affordable the answers are graded once per category with
``accord jury --equivalence auto`` and written back as their class names (``c0``, ``c1``, ...; the
reference as the class it matches, or ``none-right``); every measured run is then
``accord jury FOLD.jsonl --equivalence text ...`` on those files, which gives the same classes.

- ``labelfree``: the default without labels: claims made (a ranking or a sign), accuracy beside
  the best member and the difficulty-class vote, per fold.
- ``shared``: simulated panels whose weak members copy each other's wrong answers
  (:mod:`accord.consensus_core.jury._shared`): share of runs with a ranking or sign claim, and
  whether the agreement model's best member is the real one.
- ``budget``: ``--label-budget 50`` and ``200`` over ``--seeds`` seeds: the jury on the unlabelled
  rows against the best member chosen on the same labels and the accuracy-weighted vote; the
  calibration error of ``confidence`` (and of the uncalibrated score) on those rows.
- ``risk``: ``--risk ALPHA --label-budget N`` for alpha 0.2 and 0.1, N 100 and 200, with
  ``--risk-bound binomial`` (the default) and ``clopper-pearson`` (the earlier rule).

    python benchmarks/jury_trust.py [--parts labelfree,shared,budget,risk] [--seeds 10] [--risk-seeds 20]
        [--folds Combinatorics,Number-Theory,Inequality] [--classes DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
from pathlib import Path

import numpy as np
from scipy.special import expit, logit

from accord.cli.main import main as accord_main
from accord.consensus_core.jury import calibration_error
from accord.consensus_core.jury._shared import shared_error_panel

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "champ-dev" / "jury.jsonl"
FOLDS = ("Combinatorics", "Number-Theory", "Inequality")


def jury(path: Path, *argv: str) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = accord_main(["jury", str(path), "--json", "-q", *argv])
    if rc != 0:
        raise SystemExit(f"accord jury {path} {' '.join(argv)} exited {rc}")
    return json.loads(buf.getvalue())


def class_files(data: Path, folder: Path) -> dict[str, Path]:
    """Per category the rows with answers and reference as the classes ``--equivalence auto`` finds."""
    rows: dict[str, list[dict]] = {}
    for line in data.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        obj.pop("correct", None)  # accord never reads the graded labels
        cat = obj["id"].split("|", 1)[0].split("_")[1]
        if cat in FOLDS:
            rows.setdefault(cat, []).append(obj)
    out = {}
    for cat in FOLDS:
        raw = folder / f"{cat}.raw.jsonl"
        raw.write_text("".join(json.dumps(o) + "\n" for o in rows[cat]), encoding="utf-8")
        doc = jury(raw, "--method", "modal", "--n-boot", "40")
        lines = []
        for v in doc["verdicts"]:
            ans = {m: None if k is None else f"c{k}" for m, k in v["classes"].items()}
            right = [m for m, ok in v["member_correct"].items() if ok]
            lines.append({"id": v["id"], "answers": ans, "reference": ans[right[0]] if right else "none-right"})
        out[cat] = folder / f"{cat}.jsonl"
        out[cat].write_text("".join(json.dumps(o) + "\n" for o in lines), encoding="utf-8")
        print(f"{cat}: {len(lines)} rows graded", flush=True)
    return out


def part_labelfree(files: dict[str, Path]) -> dict:
    out = {}
    for cat, path in files.items():
        doc = jury(path, "--equivalence", "text", "--n-boot", "40", "--label-budget", "0")
        diff = jury(path, "--equivalence", "text", "--method", "difficulty", "--n-boot", "40", "--label-budget", "0")
        lf = doc["label_free"]
        out[cat] = {
            "default": doc["jury"]["accuracy"],
            "difficulty_vote": diff["jury"]["accuracy"],
            "best_member": doc["best_member"]["name"],
            "best_member_accuracy": doc["best_member"]["accuracy"],
            "ranking_claimed": lf["ranks_members"],
            "sign_claimed": lf["claims"],
            "estimated_best_member": lf["estimated_best_member"],
            "labels_needed": lf["labels_needed"],
            "label_rows_named": len(lf.get("label_rows", [])),
        }
        print(f"labelfree {cat}: {json.dumps(out[cat])}", flush=True)
    return out


SHARED = [  # strong members' accuracies, bloc accuracy, bloc size, copy probability
    ((0.55,), 0.35, 3, 0.7),
    ((0.55,), 0.4, 3, 0.5),
    ((0.6, 0.45), 0.35, 2, 0.8),
    ((0.5,), 0.3, 3, 0.9),
    ((0.55, 0.3), 0.4, 2, 0.6),
]


def part_shared(seeds: int, n: int = 600) -> dict:
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, (strong, weak, bloc, copy) in enumerate(SHARED):
            for seed in range(seeds):
                p = shared_error_panel(strong, weak, bloc, copy, n, 100 * k + seed)
                path = Path(tmp) / f"s{k}_{seed}.jsonl"
                path.write_text(
                    "".join(
                        json.dumps(
                            {"id": i, "answers": {f"m{j}": f"a{c}" for j, c in enumerate(row)}, "reference": "a0"}
                        )
                        + "\n"
                        for i, row in enumerate(p.codes)
                    )
                )
                label_free = ["--equivalence", "text", "--label-budget", "0", "--n-boot", "40", "--seed", str(seed)]
                doc = jury(path, *label_free)
                diff = jury(path, *label_free, "--method", "difficulty")
                lf = doc["label_free"]
                runs.append(
                    {
                        "panel": k,
                        "seed": seed,
                        "claims": bool(lf["ranks_members"] or lf["claims"]),
                        "model_best_is_best": lf["estimated_best_member"] == f"m{p.best}",
                        "old_ranking_claim": len(lf["reasons"])
                        == 1,  # only the shared-errors reason: the old rule ranked
                        "default": doc["jury"]["accuracy"],
                        "difficulty_vote": diff["jury"]["accuracy"],
                        "best_member": float(p.accuracy.max()),
                    }
                )
                print(f"shared {json.dumps(runs[-1])}", flush=True)
    return {
        "runs": len(runs),
        "claims": sum(r["claims"] for r in runs),
        "model_best_is_best": sum(r["model_best_is_best"] for r in runs),
        "old_rule_would_rank": sum(r["old_ranking_claim"] for r in runs),
        "old_rule_wrong_rankings": sum(r["old_ranking_claim"] and not r["model_best_is_best"] for r in runs),
        "default_mean": float(np.mean([r["default"] for r in runs])),
        "difficulty_vote_mean": float(np.mean([r["difficulty_vote"] for r in runs])),
        "best_member_mean": float(np.mean([r["best_member"] for r in runs])),
    }


def part_budget(files: dict[str, Path], seeds: int) -> dict:
    out = {}
    for cat, path in files.items():
        for budget in (50, 200):
            runs = []
            for seed in range(seeds):
                doc = jury(
                    path, "--equivalence", "text", "--label-budget", str(budget), "--seed", str(seed), "--n-boot", "40"
                )
                un = doc["unlabeled"]
                rest = [v for v in doc["verdicts"] if not v["labeled"] and not v["abstained"]]
                ok = np.array([v["correct"] for v in rest])
                score = np.array([v["score"] for v in rest])
                cal = doc.get("calibration")
                platt = None  # the map without the per-level blend, from the slope and intercept reported
                if cal:
                    z = logit(np.clip(score, 1e-4, 1 - 1e-4))
                    platt = calibration_error(expit(cal["slope"] * z + cal["intercept"]), ok)
                runs.append(
                    {
                        "jury": un["jury"]["accuracy"],
                        "best_on_labels": un["best_member_on_labels"]["accuracy"],
                        "accuracy_weighted": un["accuracy_weighted"]["accuracy"],
                        "best_hindsight": un["best_member"]["accuracy"],
                        "ece": doc["confidence"].get("error_on_unlabeled"),
                        "ece_score": calibration_error(score, ok),
                        "ece_platt": platt,
                    }
                )
                print(f"budget {cat} {budget} seed {seed}: {json.dumps(runs[-1])}", flush=True)
            out[f"{cat} {budget}"] = {
                "jury": float(np.mean([r["jury"] for r in runs])),
                "best_on_labels": float(np.mean([r["best_on_labels"] for r in runs])),
                "accuracy_weighted": float(np.mean([r["accuracy_weighted"] for r in runs])),
                "wins_vs_best_on_labels": sum(r["jury"] >= r["best_on_labels"] for r in runs),
                "wins_vs_accuracy_weighted": sum(r["jury"] >= r["accuracy_weighted"] for r in runs),
                "ece": float(np.mean([r["ece"] for r in runs if r["ece"] is not None])),
                "ece_uncalibrated": float(np.mean([r["ece_score"] for r in runs])),
                "ece_platt_only": float(np.mean([r["ece_platt"] for r in runs if r["ece_platt"] is not None])),
                "seeds": seeds,
            }
            print(f"budget {cat} {budget}: {json.dumps(out[f'{cat} {budget}'])}", flush=True)
    return out


def part_risk(
    files: dict[str, Path],
    seeds: int,
    bounds: tuple[str, ...] = ("binomial", "clopper-pearson"),
    alphas: tuple[float, ...] = (0.2, 0.1),
    budgets: tuple[int, ...] = (100, 200),
) -> dict:
    """Per fold, alpha, budget and ``--risk-bound``: seeds certified, mean coverage of the unlabelled
    rows (0 where nothing was certified), mean upper bound where certified, and seeds whose realised
    error among the answered unlabelled rows is over alpha."""
    out = {}
    for cat, path in files.items():
        for alpha in alphas:
            for budget in budgets:
                for bound in bounds:
                    runs = []
                    for seed in range(seeds):
                        argv = ["--equivalence", "text", "--risk", str(alpha), "--label-budget", str(budget)]
                        argv += ["--risk-bound", bound, "--seed", str(seed), "--n-boot", "40"]
                        runs.append(jury(path, *argv)["risk"])
                    errs = [r["realised_error"] for r in runs if r.get("realised_error") is not None]
                    bounds_certified = [r["bound"] for r in runs if r["threshold"] is not None]
                    key = f"{cat} alpha {alpha} N {budget} {bound}"
                    out[key] = {
                        "seeds": seeds,
                        "certified": len(bounds_certified),
                        "coverage_mean": float(np.mean([r["coverage_unlabeled"] for r in runs])),
                        "bound_mean_certified": float(np.mean(bounds_certified)) if bounds_certified else None,
                        "seeds_over_alpha": sum(e > alpha for e in errs),
                    }
                    print(f"risk {key}: {json.dumps(out[key])}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--parts", default="labelfree,shared,budget,risk")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--risk-seeds", type=int, default=20)
    ap.add_argument(
        "--classes", type=Path, default=None, help="a folder with the graded class files from an earlier run"
    )
    ap.add_argument("--folds", default=",".join(FOLDS), help="the categories to measure (comma-separated)")
    ap.add_argument("--alphas", default="0.2,0.1", help="risk: the --risk values (comma-separated)")
    ap.add_argument("--budgets", default="100,200", help="risk: the --label-budget values (comma-separated)")
    ap.add_argument("--bounds", default="binomial,clopper-pearson", help="risk: the --risk-bound values")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    parts = args.parts.split(",")
    figures: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.classes or Path(tmp)
        files = {c: folder / f"{c}.jsonl" for c in FOLDS}
        if any(p in parts for p in ("labelfree", "budget", "risk")) and not all(f.is_file() for f in files.values()):
            files = class_files(args.data, folder)
        files = {c: f for c, f in files.items() if c in args.folds.split(",")}
        if "labelfree" in parts:
            figures["labelfree"] = part_labelfree(files)
        if "shared" in parts:
            figures["shared"] = part_shared(min(args.seeds, 4))
        if "budget" in parts:
            figures["budget"] = part_budget(files, args.seeds)
        if "risk" in parts:
            figures["risk"] = part_risk(
                files,
                args.risk_seeds,
                tuple(args.bounds.split(",")),
                tuple(float(a) for a in args.alphas.split(",")),
                tuple(int(b) for b in args.budgets.split(",")),
            )
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
