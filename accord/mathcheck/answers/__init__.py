"""Answer equivalence for real final answers: math where an answer parses as math, textual forms otherwise.

The answer side of the math package: expressions are read by its one parsing layer
(:mod:`accord.mathcheck.reading._sympy_text`) in its one worker path (:mod:`accord.mathcheck.reading._limited`).
``AnswerGrader(AnswerConfig(), GradeConfig())`` parses each answer once (:mod:`.parser`) and
compares parsed forms (:mod:`.grader`); :func:`equivalence` gives the jury's ``auto``, ``math``
and ``text`` equivalences.
"""

from accord.mathcheck.answers._asked_form import FORMS, asked_form
from accord.mathcheck.answers._forms import ParsedAnswer
from accord.mathcheck.answers._grader import AnswerGrader, Comparer
from accord.mathcheck.answers._parser import AnswerParser
from accord.mathcheck.answers._text_forms import normalize_text
from accord.mathcheck.reading import AUTO, MATH, AnswerConfig, GradeConfig

EQUIVALENCES = ("auto", "math", "text")


def text_equivalent(x: str, y: str) -> bool:
    """Equal after NFKC, case folding, collapsing white space and dropping trailing punctuation and $."""
    return normalize_text(x) == normalize_text(y)


def equivalence(name: str):
    """A fresh ``(str, str) -> bool`` for ``auto`` (math and textual forms), ``math`` or ``text``."""
    if name == "text":
        return text_equivalent
    if name == "auto":
        return AnswerGrader(AUTO)
    if name == "math":
        return AnswerGrader(MATH)
    raise ValueError(f"unknown answer equivalence {name!r}; choose one of {', '.join(EQUIVALENCES)}")


__all__ = [
    "AUTO",
    "MATH",
    "EQUIVALENCES",
    "FORMS",
    "asked_form",
    "AnswerConfig",
    "AnswerGrader",
    "AnswerParser",
    "Comparer",
    "GradeConfig",
    "ParsedAnswer",
    "equivalence",
    "normalize_text",
    "text_equivalent",
]
