"""Mathematics in text, read once and checked: the engine behind ``accord verify``, ``accord check``
and the math judges (:mod:`accord.adapters.math`), and answer equivalence (:mod:`.answers`: the
jury's ``auto``/``math``/``text`` equivalences and the final-answer reward). Pure sympy, mpmath and
math-verify: no judges, no files.

Text becomes sympy in one layer (:func:`parse_sympy`), whose strategy a frozen config selects
(:class:`StepConfig`: accord's own parser of step notation; :class:`AnswerConfig`: final answers,
sympy's parser with answer names and math-verify for LaTeX), and every sympy or math-verify call
that may run long goes through one worker path with a time limit that holds in threads
(:func:`run_limited`, on :mod:`accord.timelimit`).

>>> from accord.mathcheck import check_arithmetic
>>> check_arithmetic("She has 12 x 2 = 24 apples.")[0]
1.0
"""

from accord.exports import lazy_exports

_EXPORTS = {
    "AnswerGrader": "answers",
    "equivalence": "answers",
    "AnswerConfig": "_config",
    "GradeConfig": "_config",
    "StepConfig": "_config",
    "parse_sympy": "_sympy_text",
    "classify": "_steps",
    "check_arithmetic": "_arithmetic",
    "solution_check": "_claims",
    "carried_check": "_carried_checks",
    "MISSING": "_carried_checks",
    "READ_AGAIN": "_carried_checks",
    "SHORT": "_carried_checks",
    "symbolic_check": "_checks",
    "numeric_check": "_checks",
    "final_answer_check": "_final_answer",
    "by_answer_forms": "_final_answer",
    "UNPARSED_REFERENCE": "_final_answer",
    "run_limited": "_limited",
    "read_outline": "_roles",
    "display_after": "_reader",
    "is_lead_in": "_cues",
    "Outline": "_roles",
    "ROLES": "_roles",
    "CLAIMS_NOTHING": "_roles",
}

__all__ = sorted(_EXPORTS)


# exports load on first use: a check worker importing one light module (exact arithmetic) does not
# import sympy and math-verify with the checks or the answers
__getattr__ = lazy_exports(__name__, _EXPORTS)
