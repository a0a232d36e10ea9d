"""Juries on a real panel: answer equivalence, grading speed, label-free and few-label decisions.

Data: a jury file with graded labels, ``{"id", "answers": {model: answer}, "reference",
"correct": {model: bool}}`` per line (the CHAMP development split: 3,060 rows, GPT-3.5, GPT-4,
GPT-4 Turbo, PaLM 2 Medium). ``correct`` is the ground truth here; accord never reads it.

1. Equivalence: each member answer is compared with the reference by ``--equivalence auto``;
   agreement with ``correct`` and false accepts (matches of answers graded wrong, over all
   answers graded wrong).
2. Speed, measured in this run on the same rows: the whole ``auto`` grading of the file (parse
   every distinct answer once, classes per row, the reference's class) against the pairwise
   math-verify equivalence accord used before (kept below as ``previous_math_equivalent``,
   re-parsing answers per comparison), run through the same classification.
3. Label-free: the best member, modal, weighted, Dawid-Skene, the difficulty-class vote and the
   label-free default (with its reasons when it falls back), each scored by ``correct`` of the
   answer it picks.
4. Few labels: ``--budgets`` labels (the references of that many rows), chosen actively and at
   random, over ``--seeds`` seeds; accuracy on the rows whose reference was not read, beside the
   best member, the best member on the labels, modal, weighted and the label-free default on the
   same rows.

    python benchmarks/jury_champ.py --data ../shared/data/champ-dev/jury.jsonl [--seeds 10] [--speed-rows N]
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time
import numpy as np
from math_verify import parse, verify

from accord.consensus_core.jury import choose_labels, dawid_skene, label_free_jury, weighted_plurality
from accord.consensus_core.jury._difficulty import fit_difficulty, pattern_fit, pattern_keys
from accord.consensus_core.jury._vote import MISSING, class_of, run_jury, vote_codes
from accord.mathcheck.answers import AnswerGrader, normalize_text

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "champ-dev" / "jury.jsonl"

# ----------------------------------------------------------------- the previous equivalence
_MATHY = re.compile(r"^[\d\s\\{}()\[\]^_+\-*/=.,a-zA-Z|<>]*$")
_BOXED = re.compile(r"^\\boxed\{(.*)\}$")


@functools.lru_cache(maxsize=65536)
def _previous_parse(answer: str) -> tuple:
    try:
        got = []
        if "$" not in answer and _MATHY.match(answer) and re.search(r"[\d\\]", answer):
            got = parse(f"${answer}$")
        if not got:
            got = parse(answer)
    except Exception:  # math-verify raises on some malformed LaTeX
        return ()
    return tuple(got)


def _previous_number(answer: str) -> float | None:
    t = answer.strip().strip("$").strip()
    m = _BOXED.match(t)
    if m:
        t = m.group(1).strip()
    try:
        return float(t.replace(",", "")) if re.fullmatch(r"[-+]?[\d,]*\.?\d+(e[-+]?\d+)?", t) else None
    except ValueError:
        return None


def previous_math_equivalent(x: str, y: str) -> bool:
    """The pairwise equivalence of ``accord jury --equivalence math`` before answers were parsed once."""
    if normalize_text(x) == normalize_text(y):
        return True
    nx, ny = _previous_number(x), _previous_number(y)
    if nx is not None and ny is not None:
        return abs(nx - ny) <= 1e-9 * max(1.0, abs(nx), abs(ny))
    px, py = _previous_parse(x.strip()), _previous_parse(y.strip())
    if not px or not py:
        return False
    try:
        return bool(verify(list(px), list(py)))
    except Exception:
        return False


# ----------------------------------------------------------------- helpers
def load(path: Path):
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    members = list(rows[0]["answers"])
    answers = [[r["answers"].get(m) for m in members] for r in rows]
    correct = np.array([[bool(r["correct"][m]) for m in members] for r in rows])
    return rows, members, answers, [r["reference"] for r in rows], correct


def picked(codes: np.ndarray, chosen: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Per row: is the answer of the chosen class graded correct (no answer: wrong)."""
    out = np.zeros(len(codes), dtype=bool)
    for i, (row, ch) in enumerate(zip(codes, chosen)):
        if ch != MISSING:
            out[i] = correct[i, int(np.argmax(row == ch))]
    return out


def pattern_ceiling(codes: np.ndarray, correct: np.ndarray) -> float:
    """In-sample accuracy of the best fixed choice of member per agreement pattern."""
    keys = pattern_keys(codes)
    total = 0
    for key in {tuple(k) for k in keys}:
        rows = np.all(keys == key, axis=1)
        firsts = sorted({j for j in key if j >= 0})
        total += max((int(correct[rows, j].sum()) for j in firsts), default=0)
    return total / len(codes)


def grade_auto(answers, references):
    grader = AnswerGrader()
    grader.prepare([a for row in answers for a in row] + list(references))
    codes = grader.codes(answers)
    truth = np.array([grader.truth(r, row, c) for r, row, c in zip(references, answers, codes)], dtype=np.int64)
    return grader, codes, truth


def grade_previous(answers, references):
    _previous_parse.cache_clear()
    res = run_jury(answers, previous_math_equivalent)
    truth = np.array([class_of(r, a, c, previous_math_equivalent) for r, a, c in zip(references, answers, res.codes)])
    return res.codes, truth


# ----------------------------------------------------------------- sections
def equivalence_section(answers, references, correct, speed_rows: int | None):
    t0 = time.perf_counter()
    grader, codes, truth = grade_auto(answers, references)
    t_auto = time.perf_counter() - t0
    said = np.array(
        [[a is not None and grader.equivalent(a, ref) for a in row] for row, ref in zip(answers, references)]
    )
    wrong = ~correct
    agree = float((said == correct).mean())
    false_accepts = int((said & wrong).sum())
    print("== answer equivalence (auto) vs graded labels")
    print(f"answers {said.size}, graded correct {int(correct.sum())}, graded wrong {int(wrong.sum())}")
    print(
        f"agreement {agree:.4f}   false accepts {false_accepts} ({false_accepts / wrong.sum():.4f} of wrong)   "
        f"false rejects {int((~said & correct).sum())} ({(~said & correct).sum() / correct.sum():.4f} of correct)   "
        f"timeouts {grader.parser.timeouts}"
    )
    hows: dict[str, int] = {}
    for a in {a for row in answers for a in row if a is not None}:
        hows[grader.parse(a).how] = hows.get(grader.parse(a).how, 0) + 1
    print("distinct answers read as:", ", ".join(f"{k} {v}" for k, v in sorted(hows.items())))
    n = len(answers) if speed_rows is None else min(speed_rows, len(answers))
    t0 = time.perf_counter()
    sub_grader, sub_codes, sub_truth = grade_auto(answers[:n], references[:n])
    t_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    old_codes, old_truth = grade_previous(answers[:n], references[:n])
    t_old = time.perf_counter() - t0
    old_said = (old_codes == old_truth[:, None]) & (old_codes != MISSING)
    old_agree = float((old_said == correct[:n]).mean())
    print(f"== grading speed on {n} rows (classes + reference class), measured in this run")
    print(
        f"auto (each answer parsed once): {t_new:.1f} s   previous pairwise math-verify: {t_old:.1f} s   "
        f"ratio {t_old / t_new:.1f}x   (whole file, auto: {t_auto:.1f} s)"
    )
    print(
        f"previous path on these rows: agreement with graded labels {old_agree:.4f}, "
        f"correct answers marked wrong {int((~old_said & correct[:n]).sum())} of {int(correct[:n].sum())}"
    )
    return codes, truth


def label_free_section(codes, correct, members, seed: int):
    best = correct.mean(axis=0)
    print("== label-free (scored by the graded label of the picked answer)")
    print(
        "members: "
        + ", ".join(f"{m} {a:.3f}" for m, a in zip(members, best))
        + f"   any member right {correct.any(axis=1).mean():.3f}"
    )
    rules = {
        "modal": vote_codes(codes, seed).chosen,
        "weighted": weighted_plurality(codes, seed=seed).chosen,
        "dawid-skene": dawid_skene(codes, seed=seed).chosen,
        "difficulty vote": fit_difficulty(codes, seed=seed).chosen,
    }
    for name, chosen in rules.items():
        acc = picked(codes, chosen, correct).mean()
        print(f"{name:>16}: {acc:.3f}   vs best member {acc - best.max():+.3f}")
    ceiling = pattern_ceiling(codes, correct)
    print(
        f"{'pattern ceiling':>16}: {ceiling:.3f}   (the best class per agreement pattern, read off every label: no "
        "rule over patterns does better here)"
    )
    one = fit_difficulty(codes, 1, seed=seed)
    two = fit_difficulty(codes, 2, seed=seed)
    for name, fit in (("one-coin", one), ("difficulty", two)):
        pf = pattern_fit(codes, fit)
        print(
            f"fit test, {name} model: chi2 {pf.chi2:.1f} df {pf.df} p {pf.p_value:.3g}  RMSEA {pf.rmsea:.3f} close-fit "
            f"p {pf.p_close:.3g}"
            f"   estimated accuracies " + ", ".join(f"{a:.3f}" for a in fit.accuracy)
        )
    lf = label_free_jury(codes, seed=seed)
    acc = picked(codes, lf.chosen, correct).mean()
    print(
        f"label-free default: rule {lf.rule} (estimated best member {members[lf.best_member]}, same in "
        f"{lf.best_member_share:.0%} of refits)"
        f"   accuracy {acc:.3f}   vs best member {acc - best.max():+.3f}"
    )
    for r in lf.reasons:
        print(f"  says: {r}")
    return lf, rules


def few_label_section(codes, truth, correct, members, lf, rules, budgets, seeds: int):
    base = fit_difficulty(codes)
    lf_hits = picked(codes, lf.chosen, correct)
    modal_hits = picked(codes, rules["modal"], correct)
    weighted_hits = picked(codes, rules["weighted"], correct)
    print(f"== few labels: accuracy on the rows whose reference was not read, mean of {seeds} seeds [min, max]")
    print(
        f"{'budget':>6} {'choice':>7} {'jury':>16} {'best member':>16} {'best on labels':>16} {'modal':>7} "
        f"{'weighted':>8} {'label-free':>10} {'jury - best':>12}"
    )
    for budget in budgets:
        for choice in ("active", "random"):
            rows = []
            for seed in range(seeds):
                jury = choose_labels(codes, truth, budget, choice, seed=seed, label_free=base)
                rest = ~jury.labeled
                hits = picked(codes, jury.chosen, correct)[rest]
                member = correct[rest].mean(axis=0)
                on_labels = int(np.argmax(correct[jury.labeled].mean(axis=0)))
                rows.append(
                    (
                        hits.mean(),
                        member.max(),
                        member[on_labels],
                        modal_hits[rest].mean(),
                        weighted_hits[rest].mean(),
                        lf_hits[rest].mean(),
                    )
                )
            r = np.array(rows)
            m, lo, hi = r.mean(axis=0), r.min(axis=0), r.max(axis=0)
            jury_col = f"{m[0]:.3f} [{lo[0]:.3f},{hi[0]:.3f}]"
            best_col = f"{m[1]:.3f} [{lo[1]:.3f},{hi[1]:.3f}]"
            lab_col = f"{m[2]:.3f} [{lo[2]:.3f},{hi[2]:.3f}]"
            print(
                f"{budget:>6} {choice:>7} {jury_col:>16} {best_col:>16} {lab_col:>16} {m[3]:7.3f} {m[4]:8.3f} "
                f"{m[5]:10.3f} {m[0] - m[1]:+12.3f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--budgets", type=int, nargs="+", default=[50, 200])
    ap.add_argument(
        "--speed-rows", type=int, default=None, help="rows for the speed comparison (default: the whole file)"
    )
    args = ap.parse_args()
    rows, members, answers, references, correct = load(args.data)
    print(f"{args.data}: {len(rows)} rows, members {', '.join(members)}")
    codes, truth = equivalence_section(answers, references, correct, args.speed_rows)
    lf, rules = label_free_section(codes, correct, members, seed=0)
    few_label_section(codes, truth, correct, members, lf, rules, args.budgets, args.seeds)


if __name__ == "__main__":
    with _machine.Run():
        main()
