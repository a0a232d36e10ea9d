"""Asking served models a set of questions and writing their answers as a jury file.

Each member (a model behind an OpenAI-compatible endpoint) answers every question once, prompted
like the step generator (solve step by step, end with "The answer is ..."); its final answer is
read from the reply as the step loop reads a chain's answer. Each question becomes one line of
the jury format (:mod:`accord.verify.io`) as soon as all members have answered, with the raw
replies and, where a member could not answer, the reason:

``{"id": "q1", "answers": {"a": "42", "b": null}, "reference": "42", "responses": {...}, "failures": {"b": "..."}}``

Collecting is resumable: lines already complete are kept, lines with failures are asked again
(the members that had answered come from the call cache at no cost), and questions not yet in
the file are asked.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from accord.adapters.local import DEFAULT_EXAMPLE, DEFAULT_SYSTEM
from accord.adapters.served import Endpoint, Recorder, ServedClient, Tally, run_async
from accord.errors import UserError
from accord.verify.io import fault_after_write, fault_before_write, json_objects, read_text, text_lines
from accord.verify.tasks import extract_answer

QUESTION_FIELDS = {"id", "question", "answer", "reference", "steps", "metadata"}
INSTRUCTION = "Reason step by step."


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    reference: str | None = None


@dataclass(frozen=True)
class Member:
    """A jury member: a name and the served model that answers for it."""

    name: str
    endpoint: Endpoint


@dataclass
class Collected:
    """What one collection did: questions in the file, kept from before, asked now, failed answers, calls."""

    questions: int
    kept: int
    asked: int
    failed_answers: int
    calls: Tally = field(default_factory=Tally)


def parse_member(text: str, **endpoint_options: Any) -> Member:
    """``NAME=BASE_URL,MODEL[,API_KEY_ENV]`` -> a member (a UserError says what is wrong)."""
    name, sep, rest = text.partition("=")
    parts = [p.strip() for p in rest.split(",")]
    if not sep or not name.strip() or len(parts) not in (2, 3) or not all(parts):
        raise UserError(
            f"--member {text!r}: expected NAME=BASE_URL,MODEL[,API_KEY_ENV], e.g. a=http://127.0.0.1:8000/v1,qwen"
        )
    key_env = parts[2] if len(parts) == 3 else endpoint_options.pop("api_key_env", None)
    endpoint_options.pop("api_key_env", None)
    try:
        return Member(name.strip(), Endpoint(parts[0], parts[1], api_key_env=key_env, **endpoint_options))
    except ValueError as exc:
        raise UserError(f"--member {name.strip()}: {exc}") from None


def read_questions(path: str | Path) -> list[Question]:
    """Questions from JSONL: ``{"question", "id"?, "answer" or "reference"?}`` (a task file works as is)."""
    p = Path(path)
    out: list[Question] = []
    seen: set[str] = set()
    lines = text_lines(p, "questions file (JSONL)")
    for no, obj in json_objects(lines, str(p), expect="expected an object with a 'question'", comments=True):
        where = f"{p}:{no}"
        unknown = set(obj) - QUESTION_FIELDS
        if unknown:
            raise UserError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(QUESTION_FIELDS)}")
        q = obj.get("question")
        if not isinstance(q, str) or not q.strip():
            raise UserError(f"{where}: 'question' must be a non-empty string")
        qid = obj.get("id", str(len(out) + 1))
        if not isinstance(qid, (str, int)) or isinstance(qid, bool) or str(qid) in seen:
            raise UserError(f"{where}: 'id' must be a unique string or number, got {qid!r}")
        ref = obj.get("reference", obj.get("answer"))
        if ref is not None and (isinstance(ref, bool) or not isinstance(ref, (str, int, float))):
            raise UserError(f"{where}: 'answer' / 'reference' must be text or a number")
        seen.add(str(qid))
        out.append(Question(str(qid), q.strip(), None if ref is None else str(ref).strip()))
    if not out:
        raise UserError(f"{p}: no questions in the file")
    return out


def complete_lines(out_path: Path, names: list[str]) -> dict[str, str]:
    """Lines of an earlier collection that need nothing more: every member present, none failed."""
    if not out_path.is_file():
        return {}
    done: dict[str, str] = {}
    for line in read_text(out_path, "jury file").split("\n"):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue  # blank, or cut short by an interrupted collection: asked again
        if isinstance(obj, dict) and not obj.get("failures") and set(names) <= set(obj.get("answers") or {}):
            done[str(obj.get("id"))] = line
    return done


def messages(question: str) -> list[dict[str, str]]:
    """The chat request a member answers: the step generator's prompt, for a whole solution."""
    return [
        {"role": "system", "content": DEFAULT_SYSTEM},
        {"role": "user", "content": DEFAULT_EXAMPLE[0]},
        {"role": "assistant", "content": DEFAULT_EXAMPLE[1]},
        {"role": "user", "content": f"{question}\n{INSTRUCTION}"},
    ]


def _put(fh, text: str) -> None:
    fh.write(text)
    fh.flush()


def collect(
    questions: list[Question],
    members: list[Member],
    out_path: str | Path,
    *,
    max_tokens: int = 256,
    temperature: float = 0.0,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Collected:
    """Asks every member every question not already answered in ``out_path``; appends one line per question.

    ``progress(done, total)``: questions answered (those kept from ``out_path`` included) after each."""
    names = [m.name for m in members]
    if len(members) < 2 or len(set(names)) != len(names):
        raise UserError(f"a jury needs at least two members with distinct names, got {names}")
    if max_tokens < 1 or temperature < 0:
        raise UserError(f"--max-tokens must be >= 1 and --temperature >= 0, got {max_tokens}, {temperature}")
    out = Path(out_path)
    done = complete_lines(out, names)
    kept = [done[q.id] for q in questions if q.id in done]
    todo = [q for q in questions if q.id not in done]
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    os.replace(tmp, out)  # earlier lines that were incomplete, failed or for other questions are dropped
    clients = {m.name: ServedClient(m.endpoint) for m in members}
    params = {"temperature": float(temperature), "max_tokens": int(max_tokens), "seed": int(seed)}
    failed = 0

    async def one(q: Question) -> dict[str, Any]:
        replies = await asyncio.gather(*(clients[n].chat(messages(q.question), params) for n in names))
        line: dict[str, Any] = {"id": q.id, "answers": {}, "responses": {}}
        if q.reference is not None:
            line["reference"] = q.reference
        for n, reply in zip(names, replies):
            clients[n].record(reply, "answer", n)
            text = ((reply.choices[0].get("message") or {}).get("content") or "") if reply.choices else None
            line["responses"][n] = text
            line["answers"][n] = extract_answer(text.splitlines())[0] if text else None
            if reply.error is not None:
                line.setdefault("failures", {})[n] = reply.error
        return line

    async def ask_all() -> None:
        nonlocal failed
        with open(out, "a", encoding="utf-8") as fh:
            for k, finished in enumerate(asyncio.as_completed([one(q) for q in todo]), 1):
                line = await finished
                failed += len(line.get("failures", {}))
                text = json.dumps(line, ensure_ascii=False) + "\n"
                fault_before_write("jury", k, lambda: _put(fh, text[: len(text) // 2]))
                _put(fh, text)
                fault_after_write("jury", k)
                if progress is not None:
                    progress(len(kept) + k, len(questions))

    with Recorder() as calls:
        if todo:
            run_async(ask_all())
    return Collected(len(questions), len(kept), len(todo), failed, calls.tally)
