"""``accord verify`` on real model solutions with human-annotated first wrong steps (CHAMP dev split).

Runs the command as a user would (``accord verify STEPS --out PRED.jsonl --json``, a fresh
process, so start-up is included) with the default deterministic math panel, and prints:

- coverage: solutions with a prediction, solutions with a crash (none expected);
- precision of the invalid labels: share at or after the annotated first error, and share of the
  correct solutions with any invalid step;
- ProcessBench accuracy on erroneous / correct solutions, F1 and step AUC for every single judge
  and for the rules mean, verdict, mean_preserving, with 95% bootstrap intervals;
- speed: wall time of the whole command, its CPU time (worker processes included), steps/s.

``--llm N`` then judges a seeded random sample of N solutions (chosen without looking at labels,
among those with at most ``--llm-max-steps`` steps, so that a CPU run stays short) twice — the
math panel alone, and the math panel plus SmolLM2-135M judges in the logic and grounding roles
(examples/configs/verify_llm.yaml) — and prints the same figures for both on that sample.

Run: python benchmarks/verify_champ.py [--data ../shared/data/champ-dev/steps.jsonl] [--llm 20 [--llm-max-steps 10]]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

ROOT = Path(__file__).resolve().parents[1]
CHAMP = Path("shared") / "data" / "champ-dev" / "steps.jsonl"
DEFAULT_DATA = next((p / CHAMP for p in ROOT.parents if (p / CHAMP).is_file()), ROOT.parent / CHAMP)
LLM_PANEL = ROOT / "examples" / "configs" / "verify_llm.yaml"


def accord_verify(data: Path, out: Path, *extra: str) -> tuple[dict, float, float]:
    """(the --json document, wall seconds, CPU seconds incl. children) of one ``accord verify`` run."""
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


def _ci(f: dict, key: str) -> str:
    v, iv = f[key], f["intervals"][key]
    if v is None:
        return "     –          "
    return f"{v:.3f} [{iv[0]:.2f}, {iv[1]:.2f}]" if iv else f"{v:.3f}"


def print_metrics(doc: dict, title: str) -> None:
    m = doc["metrics"]
    print(
        f"\n{title}: {m['n_solutions']} solutions ({m['n_erroneous']} with an annotated error), "
        f"{m['n_steps_labelled']} labelled steps; 95% bootstrap intervals over solutions"
    )
    head = (
        f"{'rule':<16} {'acc. erroneous':>20} {'acc. correct':>20} {'F1':>20} {'step AUC':>20} "
        f"{'invalid at/after':>20} {'correct w/ invalid':>20} {'#invalid':>9}"
    )
    print(head)
    print("-" * len(head))
    for rule, f in m["rules"].items():
        print(
            f"{rule:<16} {_ci(f, 'error_accuracy'):>20} {_ci(f, 'correct_accuracy'):>20} {_ci(f, 'f1'):>20} "
            f"{_ci(f, 'step_auc'):>20} {_ci(f, 'invalid_at_or_after'):>20} {_ci(f, 'correct_with_invalid'):>20} "
            f"{f['n_invalid']:>9}"
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--llm", type=int, default=0, metavar="N", help="also compare SmolLM2 judges on N solutions")
    ap.add_argument("--llm-max-steps", type=int, default=10, help="LLM sample: solutions with at most this many steps")
    ap.add_argument("--seed", type=int, default=0, help="seed of the LLM sample")
    ap.add_argument("--skip-full", action="store_true", help="only the LLM comparison")
    ap.add_argument("--bootstrap", type=int, default=1000)
    args = ap.parse_args()
    if not args.data.is_file():
        sys.exit(f"{args.data}: not found (the CHAMP dev split lives in ../shared/data/champ-dev/)")
    rows = [json.loads(x) for x in args.data.read_text().splitlines() if x.strip()]
    if not args.skip_full:
        full_run(args, rows)
    if args.llm:
        llm_comparison(args, rows)
    return 0


def full_run(args, rows: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "pred.jsonl"
        doc, wall, cpu = accord_verify(args.data, out, "--bootstrap", str(args.bootstrap))
        preds = [json.loads(x) for x in out.read_text().splitlines()]
    verdict = doc["metrics"]["rules"][doc["policy"]]
    print(
        f"accord verify {args.data} (default math panel: {', '.join(doc['judges'])}; policy {doc['policy']}, "
        f"tau {doc['tau']}, eps {doc['eps']})"
    )
    print(
        f"solutions: {len(rows)}; with a prediction: {len(preds)}; "
        f"predicted with an invalid step: {doc['with_invalid_step']}"
    )
    print(
        f"correct solutions with any invalid step: {verdict['correct_with_invalid']:.3f} "
        f"({round(verdict['correct_with_invalid'] * sum(r['label'] == -1 for r in rows))} of "
        f"{sum(r['label'] == -1 for r in rows)})"
    )
    print(
        f"invalid labels at or after the annotated first error: {verdict['invalid_at_or_after']:.3f} "
        f"(of {verdict['n_invalid']} invalid labels)"
    )
    print(
        f"speed: {doc['steps']} steps, whole command {wall:.1f} s wall ({cpu:.1f} s CPU incl. worker processes); "
        f"judging {doc['seconds']:.1f} s = {doc['steps_per_second']:.1f} steps/s"
    )
    print_metrics(doc, "against the annotation")


def llm_comparison(args, rows: list[dict]) -> None:
    """The math panel alone and with SmolLM2 judges, on the same seeded sample."""
    pool = [r for r in rows if len(r["steps"]) <= args.llm_max_steps]
    sample = random.Random(args.seed).sample(pool, min(args.llm, len(pool)))
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "sample.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in sample))
        math_doc, w1, c1 = accord_verify(data, Path(tmp) / "math.jsonl", "--bootstrap", str(args.bootstrap))
        llm_doc, w2, c2 = accord_verify(
            data, Path(tmp) / "llm.jsonl", "--config", str(LLM_PANEL), "--bootstrap", str(args.bootstrap)
        )
    print(
        f"\nLLM judges on a seeded sample of {len(sample)} of the {len(pool)} solutions with at most "
        f"{args.llm_max_steps} steps ({sum(len(r['steps']) for r in sample)} steps, "
        f"{sum(r['label'] == -1 for r in sample)} correct solutions)"
    )
    print(
        f"math panel: {w1:.1f} s wall; with SmolLM2 judges: {w2:.1f} s wall ({llm_doc['steps_per_second']:.2f} steps/s)"
    )
    print_metrics(math_doc, "math panel alone")
    print_metrics(llm_doc, "math panel + SmolLM2 logic and grounding judges")


if __name__ == "__main__":
    with _machine.Run():
        rc = main()
    sys.exit(rc)
