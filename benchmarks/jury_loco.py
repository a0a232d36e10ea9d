"""What ``accord jury`` claims, checked through the command users run on a real panel.

Every figure comes from ``accord jury FILE --json`` (``accord.cli.main.main``), on the CHAMP
development split (Combinatorics, Number-Theory, Inequality) only; a row's category is the
problem named in its id (``P_<Category>_<k>|<prompt setting>``).

- ``risk``: ``--risk 0.1 --delta 0.1 --label-budget N`` (N = 100, 200) over ``--seeds`` seeds: how
  often a threshold was certified, coverage of the unlabelled rows, realised error on the answered
  unlabelled rows, and the share of seeds whose realised error is over alpha.
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

    python benchmarks/jury_loco.py [--parts risk,budget,loco,simulated] [--seeds 10] [--data FILE]
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


def part_risk(data: Path, seeds: int, alpha: float = 0.1, delta: float = 0.1) -> dict:
    out = {}
    for budget in (100, 200):
        runs = []
        for seed in range(seeds):
            r = jury(
                data,
                "--risk",
                str(alpha),
                "--delta",
                str(delta),
                "--label-budget",
                str(budget),
                "--seed",
                str(seed),
                "--n-boot",
                "1",
            )["risk"]
            runs.append(r)
            err = r.get("realised_error")
            print(
                f"risk N={budget} seed={seed}: threshold {r['threshold']}, coverage {r['coverage_unlabeled']:.3f}, "
                f"realised error {'-' if err is None else f'{err:.3f}'}, bound {r['bound']:.3f}",
                flush=True,
            )
        errs = [r["realised_error"] for r in runs if "realised_error" in r]
        out[budget] = {
            "seeds": seeds,
            "certified": sum(r["threshold"] is not None for r in runs),
            "coverage_mean": float(np.mean([r["coverage_unlabeled"] for r in runs])),
            "coverage_when_certified": float(
                np.mean([r["coverage_unlabeled"] for r in runs if r["threshold"] is not None])
            )
            if errs
            else None,
            "realised_error_mean": float(np.mean(errs)) if errs else None,
            "realised_error_max": float(np.max(errs)) if errs else None,
            "share_over_alpha": sum(e > alpha for e in errs) / seeds,
        }
        print(f"risk N={budget}: {json.dumps(out[budget])}", flush=True)
    return out


def part_budget(data: Path, seeds: int) -> dict:
    out = {}
    keys = ("jury", "accuracy_weighted", "best_member_on_labels", "best_member", "label_free")
    for budget in (50, 200):
        runs = []
        for seed in range(seeds):
            un = jury(data, "--label-budget", str(budget), "--seed", str(seed), "--n-boot", "1")["unlabeled"]
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
    vote = np.array([v["correct"] for v in doc["verdicts"]]) if lf["rule"] == "vote" else None
    best = doc["best_member"]["accuracy"]
    realised = (float(vote.mean()) if vote is not None else doc["vote_accuracy"]) - best
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
            for method in LABEL_FREE:
                doc = jury(path, "--method", method, "--n-boot", "40")
                acc[cat][method] = doc["jury"]["accuracy"]
                if method == "auto":
                    diff = jury(path, "--method", "difficulty", "--n-boot", "1")
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
            doc = jury(path, "--equivalence", "text", "--n-boot", "40", "--seed", str(seed))
            doc["vote_accuracy"] = jury(path, "--equivalence", "text", "--method", "difficulty", "--n-boot", "1")[
                "jury"
            ]["accuracy"]
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
    ap.add_argument("--parts", default="risk,budget,loco,simulated")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", type=Path, default=None, help="write the figures as JSON here")
    args = ap.parse_args()
    parts = args.parts.split(",")
    figures = {}
    if "risk" in parts:
        figures["risk"] = part_risk(args.data, args.seeds)
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
