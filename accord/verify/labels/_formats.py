"""Per-step labels in the common annotation formats and converters between them.

Every format is read into :class:`LabeledSolution` with one value per step on MMReason's scale:
correct = 1, unverifiable (neutral) = 0.5, incorrect = 0, ``None`` = not labelled.

==============  =====================================================================================
prm800k         JSONL in PRM800K's layout: ``label.steps[k].completions[c].rating`` in {-1, 0, +1}
                (0 = neutral -> 0.5), the chosen completion's text is the step
processbench    JSON list or JSONL: ``steps`` and ``label`` = index of the first wrong step, -1 if
                none; steps before it are correct, steps after it are unlabelled (no ``label``:
                no step is labelled)
mmreason        JSONL: ``steps`` and ``labels`` of "correct" / "unverifiable" / "incorrect"
                (or 1 / 0.5 / 0)
accord          a run folder or ``trace.jsonl`` (read only): one solution per task for one chain,
                each chosen step labelled by the dual rule on its recorded scores: accepted
                (s̄* > τ, Δ* < ε) -> correct; confident but dispersed (s̄* > τ, Δ* >= ε) ->
                unverifiable; s̄* <= τ -> incorrect
verify          an ``accord verify --out`` file (read only): ``step_labels`` valid / uncertain / invalid
                -> correct / unverifiable / incorrect; the steps' text where recorded
==============  =====================================================================================

Conversions are lossy where a format cannot say something: ProcessBench keeps only the first
wrong step (unverifiable steps are not errors); PRM800K and MMReason keep every step.
The metrics on these labels are in :mod:`accord.verify.labels`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accord.consensus_core import ConsensusSpec, get_policy
from accord.errors import UserError
from accord.verify.analysis import primary_chain, read_settings, read_trace, resolve_trace, verdict_params
from accord.verify.io import json_objects, parse_json, read_text, write_text_atomic

CORRECT, UNVERIFIABLE, INCORRECT = 1.0, 0.5, 0.0
FORMATS = ("prm800k", "processbench", "mmreason", "accord", "verify")
_MMR_NAMES = {"correct": CORRECT, "unverifiable": UNVERIFIABLE, "incorrect": INCORRECT}
_PRM_RATING = {1: CORRECT, 0: UNVERIFIABLE, -1: INCORRECT}


@dataclass(frozen=True)
class LabeledSolution:
    """One solution's steps with a label per step on the 1 / 0.5 / 0 scale (None = unlabelled)."""

    id: str
    steps: tuple[str, ...]
    labels: tuple[float | None, ...]
    question: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if len(self.steps) != len(self.labels):
            raise ValueError(f"solution {self.id!r}: {len(self.steps)} steps but {len(self.labels)} labels")
        bad = [x for x in self.labels if x not in (None, CORRECT, UNVERIFIABLE, INCORRECT)]
        if bad:
            raise ValueError(f"solution {self.id!r}: step labels must be 1, 0.5, 0 or None, got {bad[:3]}")

    def first_wrong(self) -> int:
        """ProcessBench's label: index of the first incorrect step, -1 if no step is incorrect."""
        return next((i for i, x in enumerate(self.labels) if x == INCORRECT), -1)

    def step_score(self) -> float | None:
        """MMReason's score of this solution: the mean of its labelled step values."""
        vals = [x for x in self.labels if x is not None]
        return float(np.mean(vals)) if vals else None


# ---------------------------------------------------------------- reading


def _records(path: Path) -> Iterable[tuple[int, dict]]:
    """(line number, object) for a JSONL file or a JSON array; errors name the file and line."""
    text = read_text(path, "label file")
    if text.lstrip().startswith("["):
        data = parse_json(text, str(path))
        for i, obj in enumerate(data):
            if not isinstance(obj, dict):
                raise UserError(f"{path}:1: item {i} of the JSON list must be an object")
            yield i + 1, obj
        return
    yield from json_objects(text.splitlines(), str(path), expect="each line must be a JSON object")


def _str_list(obj: dict, key: str, where: str) -> list[str]:
    val = obj.get(key)
    if not isinstance(val, list) or not all(isinstance(s, str) for s in val):
        raise UserError(f"{where}: field {key!r} must be a list of strings")
    return val


def _ident(obj: dict, where: str, line: int, path: Path) -> str:
    ident = obj.get("id")
    if ident is None:
        return f"{path.stem}:{line}"
    if not isinstance(ident, (str, int)):
        raise UserError(f"{where}: field 'id' must be a string or an integer")
    return str(ident)


def read_prm800k(path: Path) -> list[LabeledSolution]:
    out = []
    for line, obj in _records(path):
        where = f"{path}:{line}"
        label = obj.get("label")
        if not isinstance(label, dict) or not isinstance(label.get("steps"), list):
            raise UserError(f"{where}: a PRM800K record needs 'label': {{'steps': [...]}}")
        steps, labels = [], []
        for k, st in enumerate(label["steps"]):
            comps = st.get("completions") if isinstance(st, dict) else None
            if not isinstance(comps, list) or not comps and not st.get("human_completion"):
                raise UserError(f"{where}: step {k} needs a list 'completions'")
            chosen = st.get("chosen_completion")
            if isinstance(chosen, int) and not isinstance(chosen, bool):
                if not 0 <= chosen < len(comps):
                    raise UserError(f"{where}: step {k}: chosen_completion {chosen} out of range")
                comp = comps[chosen]
            elif st.get("human_completion"):
                human = st["human_completion"]
                comp = {"text": human.get("text", "") if isinstance(human, dict) else str(human), "rating": None}
            else:
                comp = comps[0]  # no choice recorded: the labeller stopped at this step
            rating = comp.get("rating") if isinstance(comp, dict) else None
            if rating is not None and rating not in _PRM_RATING:
                raise UserError(f"{where}: step {k}: rating must be -1, 0, 1 or null, got {rating!r}")
            text = comp.get("text") if isinstance(comp, dict) else None
            if not isinstance(text, str):
                raise UserError(f"{where}: step {k}: the completion needs a string 'text'")
            steps.append(text)
            labels.append(None if rating is None else _PRM_RATING[rating])
        q = obj.get("question")
        problem = q.get("problem", "") if isinstance(q, dict) else ""
        meta = {"finish_reason": label.get("finish_reason")} if label.get("finish_reason") else {}
        if isinstance(q, dict) and isinstance(q.get("ground_truth_answer"), str):
            meta["reference"] = q["ground_truth_answer"]
        out.append(LabeledSolution(_ident(obj, where, line, path), tuple(steps), tuple(labels), problem, meta))
    return out


def read_processbench(path: Path) -> list[LabeledSolution]:
    out = []
    for line, obj in _records(path):
        where = f"{path}:{line}"
        steps = _str_list(obj, "steps", where)
        first = obj.get("label")
        if first is None and "label" not in obj:
            labels = [None] * len(steps)  # not annotated (e.g. solutions to verify)
        elif not isinstance(first, int) or isinstance(first, bool) or not -1 <= first < len(steps):
            raise UserError(f"{where}: 'label' must be -1 or a step index in [0, {len(steps)}), got {first!r}")
        else:
            labels = (
                [CORRECT] * len(steps)
                if first == -1
                else [CORRECT] * first + [INCORRECT] + [None] * (len(steps) - first - 1)
            )
        meta = {k: obj[k] for k in ("generator", "final_answer_correct", "reference") if k in obj}
        out.append(
            LabeledSolution(
                _ident(obj, where, line, path), tuple(steps), tuple(labels), str(obj.get("problem", "")), meta
            )
        )
    return out


def _mmr_value(x, where: str, k: int) -> float | None:
    if x is None:
        return None
    if isinstance(x, str) and x.strip().lower() in _MMR_NAMES:
        return _MMR_NAMES[x.strip().lower()]
    if isinstance(x, (int, float)) and not isinstance(x, bool) and float(x) in (CORRECT, UNVERIFIABLE, INCORRECT):
        return float(x)
    raise UserError(f"{where}: step {k}: label must be correct / unverifiable / incorrect (or 1 / 0.5 / 0), got {x!r}")


def read_mmreason(path: Path) -> list[LabeledSolution]:
    out = []
    for line, obj in _records(path):
        where = f"{path}:{line}"
        steps = _str_list(obj, "steps", where)
        labels = obj.get("labels")
        if not isinstance(labels, list) or len(labels) != len(steps):
            raise UserError(f"{where}: 'labels' must be a list with one label per step ({len(steps)})")
        vals = tuple(_mmr_value(x, where, k) for k, x in enumerate(labels))
        meta = {"reference": obj["reference"]} if isinstance(obj.get("reference"), str) else {}
        out.append(
            LabeledSolution(_ident(obj, where, line, path), tuple(steps), vals, str(obj.get("question", "")), meta)
        )
    return out


_VERIFY_LABELS = {"valid": CORRECT, "uncertain": UNVERIFIABLE, "no claim": UNVERIFIABLE, "invalid": INCORRECT}


def read_verify(path: Path) -> list[LabeledSolution]:
    """The step labels ``accord verify --out`` predicted, one solution per record."""
    out = []
    for line, obj in _records(path):
        where = f"{path}:{line}"
        labels, steps = obj.get("step_labels"), obj.get("steps")
        if not isinstance(labels, list) or not isinstance(steps, list) or len(labels) != len(steps):
            raise UserError(f"{where}: not an accord verify --out record ('steps' and 'step_labels', one per step)")
        if any(x not in _VERIFY_LABELS for x in labels):
            raise UserError(f"{where}: 'step_labels' must be valid, invalid, uncertain or no claim")
        texts = tuple(str(s.get("text", "")) if isinstance(s, dict) else "" for s in steps)
        out.append(
            LabeledSolution(
                _ident(obj, where, line, path),
                texts,
                tuple(_VERIFY_LABELS[x] for x in labels),
                str(obj.get("problem") or ""),
                {"prediction": obj.get("prediction")},
            )
        )
    return out


def read_accord(
    path: Path, chain: str | None = None, tau: float | None = None, eps: float | None = None
) -> list[LabeledSolution]:
    """One solution per finished task of ``chain``; each chosen step labelled by the dual rule."""

    trace = read_trace(resolve_trace(path))
    influence = read_settings(trace.path.parent).influence
    chain = chain or primary_chain(trace)
    if chain not in trace.chains():
        raise UserError(f"{path}: no chain {chain!r} in the trace (chains: {', '.join(trace.chains())})")
    p = verdict_params(trace)
    tau = p["tau"] if tau is None else tau
    eps = p["eps"] if eps is None else eps
    recs: dict[str, list] = {}
    for r in trace.steps:
        if r.chain == chain:
            recs.setdefault(r.task_id, []).append(r)
    out = []
    for task_id, end in trace.end_of(chain).items():
        rs = sorted(recs.get(task_id, []), key=lambda r: r.step)
        labels = []
        for r in rs:
            d = get_policy("verdict", tau=tau, eps=eps).decide(r.raw, ConsensusSpec(r.lambdas, influence))
            c = r.chosen
            if c < 0:
                labels.append(None)
            elif d.accepted[c]:
                labels.append(CORRECT)
            elif d.stats.mean[c] > tau:
                labels.append(UNVERIFIABLE)
            else:
                labels.append(INCORRECT if np.isfinite(d.stats.mean[c]) else None)
        kept = [
            (r.candidates[r.chosen], x) for r, x in zip(rs, labels) if r.chosen >= 0 and r.candidates[r.chosen].strip()
        ]  # an empty step does not extend the chain
        steps = tuple(t for t, _ in kept)
        labels = [x for _, x in kept]
        if steps != end.steps:
            raise UserError(
                f"{path}:{end.line}: task {task_id!r} chain {chain!r}: the task_end steps do not "
                f"match the chosen candidates of its step records"
            )
        out.append(
            LabeledSolution(
                task_id, steps, tuple(labels), "", {"final_answer_correct": end.correct >= 0.5, "chain": chain}
            )
        )
    return out


def detect_label_format(path: Path) -> str:
    """Guess the format from a file's first record (a folder or trace.jsonl is accord's)."""
    path = Path(path)
    if path.is_dir() or path.name == "trace.jsonl":
        return "accord"
    for _, obj in _records(path):
        if obj.get("type") in ("step", "task_end"):
            return "accord"
        if "step_labels" in obj and "steps" in obj:  # before "label": a verify --out record keeps the input's
            return "verify"
        if isinstance(obj.get("label"), dict):
            return "prm800k"
        if "label" in obj and "steps" in obj:
            return "processbench"
        if "labels" in obj and "steps" in obj:
            return "mmreason"
        break
    raise UserError(f"{path}: cannot tell the step-label format; pass it explicitly ({', '.join(FORMATS)})")


def read_step_labels(path: str | Path, fmt: str | None = None, **accord_options) -> list[LabeledSolution]:
    """Read step labels in any supported format (detected when ``fmt`` is None)."""
    path = Path(path)
    if not path.exists():
        raise UserError(f"{path}: no such file or folder")
    fmt = (fmt or detect_label_format(path)).lower()
    if fmt == "accord":
        return read_accord(path, **accord_options)
    readers = {
        "prm800k": read_prm800k,
        "processbench": read_processbench,
        "mmreason": read_mmreason,
        "verify": read_verify,
    }
    if fmt not in readers:
        raise UserError(f"unknown step-label format {fmt!r}; choose one of {', '.join(FORMATS)}")
    sols = readers[fmt](path)
    seen: set[str] = set()
    for s in sols:
        if s.id in seen:
            raise UserError(f"{path}: solution id {s.id!r} appears more than once")
        seen.add(s.id)
    return sols


# ---------------------------------------------------------------- writing


def to_prm800k(s: LabeledSolution) -> dict[str, Any]:
    rating = {CORRECT: 1, UNVERIFIABLE: 0, INCORRECT: -1, None: None}
    steps = [
        {
            "completions": [{"text": t, "rating": rating[x], "flagged": None}],
            "human_completion": None,
            "chosen_completion": 0,
        }
        for t, x in zip(s.steps, s.labels)
    ]
    finish = "found_error" if INCORRECT in s.labels else "solution"
    return {"id": s.id, "question": {"problem": s.question}, "label": {"steps": steps, "finish_reason": finish}}


def to_processbench(s: LabeledSolution) -> dict[str, Any]:
    out = {"id": s.id, "problem": s.question, "steps": list(s.steps), "label": s.first_wrong()}
    if "final_answer_correct" in s.meta:
        out["final_answer_correct"] = bool(s.meta["final_answer_correct"])
    return out


def to_mmreason(s: LabeledSolution) -> dict[str, Any]:
    names = {CORRECT: "correct", UNVERIFIABLE: "unverifiable", INCORRECT: "incorrect", None: None}
    return {"id": s.id, "question": s.question, "steps": list(s.steps), "labels": [names[x] for x in s.labels]}


def write_labels(solutions: Sequence[LabeledSolution], path: str | Path, fmt: str) -> Path:
    """Write solutions as JSONL in ``fmt`` (prm800k, processbench or mmreason)."""
    writers = {"prm800k": to_prm800k, "processbench": to_processbench, "mmreason": to_mmreason}
    if fmt not in writers:
        raise UserError(
            f"cannot write step labels as {fmt!r}; choose one of {', '.join(writers)} "
            "(accord traces are written by runs)"
        )
    path = Path(path)
    write_text_atomic(path, "".join(json.dumps(writers[fmt](s)) + "\n" for s in solutions), "OUT")
    return path
