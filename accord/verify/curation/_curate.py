"""Benchmark curation: drop the questions a panel answers correctly without their essential context.

A question that models answer right without its image (or without the passage, table, ... it is
about) does not test what it claims to. Each question of a JSONL benchmark is put to every
member of a panel (any :class:`~accord.protocols.Generator`: a local causal LM, a VLM, a
served model) with the essential field removed; a member answers by writing steps until it
states an answer (at most ``max_steps``), and the answer is graded against the reference with
the ``auto`` answer equivalence. A question that ``quorum`` or more members still answer right
is dropped; the report keeps every member's answer for every question.

Benchmark lines: ``{"id"?, "question", "answer", "image"?: path or [paths], FIELD?: ...}``. Other
string (or list-of-string) fields, such as the choices of a multiple-choice question, stay in
the prompt as ``name: value`` lines unless they are the field dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from accord.errors import UserError
from accord.mathcheck.answers import AnswerGrader
from accord.protocols import Generator, StepContext
from accord.verify.io import json_objects, text_lines
from accord.verify.tasks import extract_answer

ITEM_FIELDS = ("id", "question", "answer", "image")
# How a local causal-LM member is asked (one short answer line, shown once by example).
ANSWER_SYSTEM = "Answer the question in one short line of the form 'The answer is <answer>.'"
ANSWER_EXAMPLE = ("What is 10 + 5?", "The answer is 15.")


@dataclass(frozen=True)
class BenchmarkItem:
    id: str
    question: str
    reference: str
    images: tuple[str, ...]
    fields: dict  # other fields, in file order
    line: dict = field(repr=False)  # the line as read, written back for kept questions


@dataclass(frozen=True)
class MemberAnswer:
    member: str
    answer: str | None
    correct: bool
    steps: tuple[str, ...]
    answer_source: str  # stated, last_number or none


@dataclass(frozen=True)
class QuestionVerdict:
    id: str
    kept: bool
    right_without_context: int
    answers: tuple[MemberAnswer, ...]

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "kept": self.kept,
            "right_without_context": self.right_without_context,
            "answers": [asdict(a) for a in self.answers],
        }


def read_benchmark(path: str | Path, drop: str) -> list[BenchmarkItem]:
    """The questions of a JSONL benchmark; every line must carry the field to drop."""
    p = Path(path)
    items, ids = [], set()
    shape = "each line must be a JSON object with 'question' and 'answer'"
    for no, obj in json_objects(text_lines(p, "benchmark (JSONL)"), str(p), expect=shape, comments=True):
        where = f"{p}:{no}"
        q, a = obj.get("question"), obj.get("answer")
        if not isinstance(q, str) or not q.strip():
            raise UserError(f"{where}: 'question' must be a non-empty string")
        if isinstance(a, bool) or not isinstance(a, (str, int, float)) or not str(a).strip():
            raise UserError(f"{where}: 'answer' must be a non-empty string or a number")
        if drop not in obj:
            raise UserError(f"{where}: no field {drop!r} to drop (fields: {', '.join(obj)})")
        image = obj.get("image", [])
        images = [image] if isinstance(image, str) else image
        if not isinstance(images, list) or not all(isinstance(x, str) for x in images):
            raise UserError(f"{where}: 'image' must be a path or a list of paths")
        extra = {k: v for k, v in obj.items() if k not in ITEM_FIELDS}
        for k, v in extra.items():
            if not (
                isinstance(v, (str, int, float))
                or (isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v))
            ):
                raise UserError(f"{where}: field {k!r} must be text, a number or a list of them")
        qid = str(obj.get("id", f"{p.stem}/{len(items)}"))
        if qid in ids:
            raise UserError(f"{where}: duplicate id {qid!r}")
        ids.add(qid)
        items.append(BenchmarkItem(qid, q.strip(), str(a).strip(), tuple(images), extra, obj))
    if not items:
        raise UserError(f"{p}: no questions in the file")
    return items


def blind_context(item: BenchmarkItem, drop: str) -> StepContext:
    """The question without its essential context: the dropped field (or the images) left out."""
    lines = [
        f"{k}: {', '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in item.fields.items() if k != drop
    ]
    question = "\n".join(lines + [item.question])
    images = () if drop == "image" else item.images
    return StepContext(question, attachments=images, metadata={"task_id": item.id, "dropped": drop})


def answer_without_context(
    generator: Generator, ctx: StepContext, seed: int, max_steps: int
) -> tuple[tuple[str, ...], str | None, str]:
    """Steps written one at a time (the first candidate each time) until one states an answer."""
    steps: list[str] = []
    for _ in range(max_steps):
        step = generator.propose(ctx, 1, seed)[0]
        steps.append(step)
        if generator.is_final(step):
            break
        ctx = ctx.extend(step)
    answer, source = extract_answer(steps)
    return tuple(steps), answer, source


def curate(
    items: Sequence[BenchmarkItem],
    panel: Mapping[str, Generator],
    quorum: int,
    drop: str,
    seed: int = 0,
    max_steps: int = 2,
    grader: AnswerGrader | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[QuestionVerdict]:
    """Ask every member every question without ``drop``; keep a question unless ``quorum`` members get it right."""
    if not panel:
        raise ValueError("curation needs at least one panel member")
    if not 1 <= quorum <= len(panel):
        raise ValueError(f"quorum must lie in [1, {len(panel)}] (the panel size), got {quorum}")
    if max_steps < 1:
        raise ValueError(f"max_steps must be >= 1, got {max_steps}")
    grader = grader or AnswerGrader()
    out = []
    for done, item in enumerate(items):
        ctx = blind_context(item, drop)
        answers = []
        for k, (name, gen) in enumerate(panel.items()):
            steps, answer, source = answer_without_context(gen, ctx, seed + k, max_steps)
            right = answer is not None and grader.equivalent(answer, item.reference)
            answers.append(MemberAnswer(name, answer, bool(right), steps, source))
        right_count = sum(a.correct for a in answers)
        out.append(QuestionVerdict(item.id, right_count < quorum, right_count, tuple(answers)))
        if progress:
            progress(done + 1, len(items))
    return out


def write_curation(
    items: Sequence[BenchmarkItem],
    verdicts: Sequence[QuestionVerdict],
    kept_path: str | Path | None,
    report_path: str | Path | None,
) -> None:
    """The kept questions as they were read, and one report line per question."""
    if kept_path:
        with open(kept_path, "w", encoding="utf-8") as fh:
            for item, v in zip(items, verdicts):
                if v.kept:
                    fh.write(json.dumps(item.line) + "\n")
    if report_path:
        with open(report_path, "w", encoding="utf-8") as fh:
            for v in verdicts:
                fh.write(json.dumps(v.as_dict()) + "\n")
