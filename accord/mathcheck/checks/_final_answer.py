"""A step's final answer against a reference: math-verify first, accord's answer forms for a
reference math-verify cannot read."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

from accord.mathcheck.reading import extract, formulas, same

_EXPLICIT_ANSWER = re.compile(r"\\boxed|\banswer\s*(?:is|:|=)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.^_])-?\d+(?:\.\d+)?(?:/\d+)?(?![\w.]\d)")


def final_answer_check(candidate: str, reference: str) -> tuple[float | None, str]:
    """math-verify equivalence of the answer in ``candidate`` to ``reference`` (runs in a worker;
    :mod:`accord.mathcheck.reading._sympy_text` turns math-verify's own timeouts off).

    A step with an explicit answer (``\\boxed{..}``, "the answer is ..") is judged by it. Otherwise
    the step matches when any number or formula in it equals the reference; it is judged wrong
    only when it states a single number, and that number differs ("there are 29 strings of length
    6" names two numbers: the step is not judged)."""
    gold = extract(reference)
    if not gold:
        return None, f"cannot parse the reference answer {reference!r}"
    if _EXPLICIT_ANSWER.search(candidate):
        pred = extract(candidate)
        if not pred:
            return None, "no answer found in the step"
        ok = same(gold, pred)
        return (
            (1.0, f"answer {pred[-1]} matches {gold[-1]}")
            if ok
            else (0.0, f"answer {pred[-1]} differs from {gold[-1]}")
        )
    numbers = list(dict.fromkeys(_NUMBER.findall(candidate)))
    pieces = list(dict.fromkeys(numbers + [f for f in formulas(candidate) if not _NUMBER.fullmatch(f.strip())]))
    whole = extract(candidate)
    if not pieces and not whole:
        return None, "no answer found in the step"
    if whole and same(gold, whole):
        return 1.0, f"answer {whole[-1]} matches {gold[-1]}"
    for piece in pieces:
        pred = extract(piece)
        if pred and same(gold, pred):
            return 1.0, f"the step states {piece.strip()}, which matches {gold[-1]}"
    if len(numbers) == 1 and len(pieces) == 1:
        return 0.0, f"answer {numbers[0]} differs from {gold[-1]}"
    return (
        None,
        f"no number or formula in the step equals {gold[-1]} (it states {', '.join(p.strip() for p in pieces[:4])})",
    )


UNPARSED_REFERENCE = "cannot parse the reference answer"
_ANSWER_CLAUSE = re.compile(r"\banswer\s+(?:is|:)\s*([^,.;]+)", re.IGNORECASE)
# "n(n-3)/2." at the end of a sentence: an expression in a name, never a bare number ("greater than 1")
_MATH_TOKEN = re.compile(r"(?<!\S)(?=\S*[A-Za-z])(?=\S*[()^*/+\-!\\{}])\S+")
_GRADER_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _answer_grader():
    from accord.mathcheck.answers import AUTO, AnswerGrader  # the jury's answer forms

    return AnswerGrader(AUTO)


def by_answer_forms(candidate: str, reference: str) -> tuple[float, str] | None:
    """A reference math-verify cannot read ("n(n-3)/2", "Yes", "No such values") compared by
    accord's answer forms with the step and each formula in it: a match is valid; anything else
    stays unjudged, since a sentence that matches no form is not a wrong answer. Runs in the
    caller's process: the grader has its own time-limited workers."""
    said = [m.group(1) for m in _ANSWER_CLAUSE.finditer(candidate)]
    tokens = _MATH_TOKEN.findall(candidate)
    pieces = [candidate, *said, *(f.strip() for f in formulas(candidate)), *tokens[-1:]]
    pieces = list(dict.fromkeys(p.strip().rstrip(".,;:$").strip() for p in pieces if p.strip()))
    with _GRADER_LOCK:
        grader = _answer_grader()
        for piece in pieces:
            try:
                if grader.equivalent(reference, piece):
                    return 1.0, f"the step states {piece[:80]!r}, which matches {reference!r} (answer forms)"
            except Exception:  # noqa: BLE001 — an answer the forms cannot compare: not judged
                continue
    return None
