"""Answer equivalence as users get it: ``accord jury FILE --equivalence auto --json``'s
``member_correct`` against the graded labels, per category of the CHAMP development split.

The file's ``correct`` field is removed before accord reads it; with ``--problems STEPS`` each
row also gets its problem's text (from the split's steps.jsonl, by problem id), so problems that
ask for a form are graded in that form. Agreement is over every member
answer; a false accept is an answer graded wrong that accord matched with the reference (the
rate is over all answers graded wrong), a false reject the reverse. The disagreements are listed.

    python benchmarks/jury_equivalence.py --data ../shared/data/champ-dev/jury.jsonl [--problems
    ../shared/data/champ-dev/steps.jsonl] [--show 40]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

from benchmarks.jury_loco import DEFAULT_DATA, category, jury


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument(
        "--problems", type=Path, default=None, help="steps.jsonl of the split: attach each row's problem text"
    )
    args = ap.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    labels = {r["id"]: r.pop("correct") for r in rows}
    if args.problems:
        texts = {}
        for line in args.problems.read_text(encoding="utf-8").splitlines():
            obj = json.loads(line)
            texts[obj["id"].split("|", 1)[0]] = obj["problem"]
        for r in rows:
            r["problem"] = texts.get(r["id"].split("|", 1)[0])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "panel.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        doc = jury(path, "--equivalence", "auto", "--method", "modal", "--n-boot", "40")
    print("answers read:", json.dumps(doc.get("answers_read", {})))
    per: dict[str, dict[str, int]] = {}
    misses = []
    for v in doc["verdicts"]:
        cat = category(v["id"])
        c = per.setdefault(
            cat, {"answers": 0, "agree": 0, "wrong": 0, "false_accepts": 0, "right": 0, "false_rejects": 0}
        )
        for m, said in v["member_correct"].items():
            truth = bool(labels[v["id"]][m])
            c["answers"] += 1
            c["agree"] += said == truth
            c["wrong"] += not truth
            c["right"] += truth
            c["false_accepts"] += said and not truth
            c["false_rejects"] += truth and not said
            if said != truth:
                misses.append(
                    {
                        "id": v["id"],
                        "member": m,
                        "answer": v["answers"][m],
                        "reference": v["reference"],
                        "graded": truth,
                    }
                )
    total = {k: sum(c[k] for c in per.values()) for k in next(iter(per.values()))}
    for name, c in [*per.items(), ("all", total)]:
        print(
            f"{name}: agreement {c['agree'] / c['answers']:.4f} ({c['answers']} answers), false accepts "
            f"{c['false_accepts']} "
            f"({c['false_accepts'] / max(c['wrong'], 1):.4%} of {c['wrong']} wrong), false rejects "
            f"{c['false_rejects']} of {c['right']} right"
        )
    for m in misses[: args.show]:
        print(json.dumps(m))


if __name__ == "__main__":
    with _machine.Run():
        main()
