"""Adds the ``task`` record (problem text and reference) to the example run folders recorded before
traces carried it, so that their pages show each problem.

``examples/runs/smollm2-tiny`` was run on ``basic_arithmetic`` (size 4, seed 0): its problems are
made again from that task source, deterministically, and each must match the recorded reference.
``examples/runs/synthetic`` has no problem text (its scores are drawn from a seeded model of sound
and flawed steps); its task records say so. Running this again changes nothing.

    PYTHONPATH=. python scripts/example_task_records.py
"""

from __future__ import annotations

import json
from pathlib import Path

from accord.verify.tasks import TextTask, load_tasks

ROOT = Path(__file__).resolve().parents[1] / "examples" / "runs"


def add_task_records(trace: Path, tasks: dict[str, TextTask]) -> int:
    """Writes each task's record before its first record; returns how many were added."""
    lines = trace.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    if any(r.get("type") == "task" for r in records):
        return 0
    out, seen = [], set()
    for line, rec in zip(lines, records):
        tid = rec.get("task_id")
        if tid is not None and tid not in seen:
            seen.add(tid)
            task = tasks[tid]
            ends = [r for r in records if r.get("type") == "task_end" and r.get("task_id") == tid]
            assert all(str(r.get("reference")) == str(task.reference) for r in ends), tid
            out.append(
                json.dumps(
                    {
                        "type": "task",
                        "task_id": tid,
                        "question": task.question,  # as the loop writes it
                        "reference": None if task.reference is None else str(task.reference),
                    }
                )
            )
        out.append(line)
    trace.write_text("\n".join(out) + "\n", encoding="utf-8")
    return len(seen)


def main() -> None:
    tiny = {t.id: t for t in load_tasks("basic_arithmetic", size=4, seed=0)}
    print("smollm2-tiny:", add_task_records(ROOT / "smollm2-tiny" / "trace.jsonl", tiny), "task records added")
    synthetic = {}
    for line in (ROOT / "synthetic" / "trace.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("type") == "task_end" and rec["task_id"] not in synthetic:
            synthetic[rec["task_id"]] = TextTask(
                id=rec["task_id"],
                reference=rec.get("reference"),
                question=f"Synthetic problem {rec['task_id']} (no text: each step is a sound or flawed move whose "
                f"judge scores are drawn from a seeded model; the right final answer is "
                f"{rec.get('reference')}).",
            )
    print("synthetic:", add_task_records(ROOT / "synthetic" / "trace.jsonl", synthetic), "task records added")


if __name__ == "__main__":
    main()
