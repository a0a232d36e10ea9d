"""Resuming a run after a served endpoint was down: the steps it left without scores are redone.

While an endpoint is unreachable its judges give null scores (reason: ``served endpoint
unavailable ...``) and the run goes on with the rest of the panel, so the run finishes. On
``--resume``, every chain is rewound to its first step decided at such a context: those step
records and the chain's end move to ``trace.redone.jsonl`` (kept, never deleted), the trace is
rewritten without them (the kept records renumbered in order, under the folder's writer lock),
and the loop decides them again. Candidates are reused; the contexts hit
are scored again, the calls that had succeeded coming from the call cache at no cost.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from accord.adapters.served import UNAVAILABLE
from accord.verify.io import REDONE_FILE
from accord.verify.loop._trace import ResumeState, cut_partial_line, load_resume_state


def unavailable(record: dict) -> bool:
    """Whether a step record holds a score lost to an unreachable endpoint."""
    return any(isinstance(f, str) and f.startswith(UNAVAILABLE) for row in record.get("failures") or [] for f in row)


def _renumbered(line: str, position: int) -> str:
    """A kept record with its ``seq`` set to its new place: the rewritten trace is one writer's, in order."""
    rec = json.loads(line)
    if rec.get("seq") is None or rec["seq"] == position:
        return line
    return json.dumps({**rec, "seq": position}, ensure_ascii=False)


def resume_after_outage(trace_path: str | Path) -> ResumeState:
    """The state to resume from, with the steps an outage left unscored taken out to be redone."""
    path = Path(trace_path)
    cut = cut_partial_line(path)
    state = load_resume_state(path)
    if cut:
        state.notes.append(cut)
    if not path.exists():
        return state
    lines = [ln for ln in path.read_text(encoding="utf-8").split("\n") if ln.strip()]
    records = [json.loads(ln) for ln in lines]
    hit = {r["context_id"] for r in records if r.get("type") == "step" and unavailable(r)}
    if not hit:
        return state
    rewind: dict[tuple[str, str], int] = {}
    for r in records:
        if r.get("type") == "step" and r["context_id"] in hit:
            key = (r["task_id"], r["chain"])
            rewind[key] = min(int(r["step"]), rewind.get(key, int(r["step"])))
    keep, redo, n_steps = [], [], 0
    for line, r in zip(lines, records):
        key = (r.get("task_id"), r.get("chain"))
        dropped = key in rewind and (
            r.get("type") == "task_end" or (r.get("type") == "step" and int(r["step"]) >= rewind[key])
        )
        (redo if dropped else keep).append(line)
        if dropped and r["type"] == "step":
            n_steps += 1
            state.steps.pop((r["task_id"], r["chain"], int(r["step"])), None)
        elif dropped:
            state.ends.pop(key, None)
    for cid in hit:  # scored again; the candidates stay
        state.scores.pop(cid, None)
    with open(path.parent / REDONE_FILE, "a", encoding="utf-8") as fh:
        fh.write("".join(ln + "\n" for ln in redo))
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write("".join(_renumbered(ln, position) + "\n" for position, ln in enumerate(keep)))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    state.notes.append(
        f"redoing {n_steps} step(s) of {len(rewind)} chain(s) decided while a served endpoint was "
        f"unavailable (their records moved to {REDONE_FILE})"
    )
    return state
