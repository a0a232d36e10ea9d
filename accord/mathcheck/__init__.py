"""Mathematics in text, read once and checked: the engine behind ``accord verify``, ``accord check``
and the math judges (:mod:`accord.adapters.math`), and answer equivalence (:mod:`.answers`: the
jury's ``auto``/``math``/``text`` equivalences and the final-answer reward). Pure sympy, mpmath and
math-verify: no judges, no files.

Three packages, importing one way: :mod:`.reading` (text to statements and their values),
:mod:`.state` (the proof state: roles, scopes, premises in force, domain) and :mod:`.checks` (a step
checked against that state); :mod:`.answers` builds on the reading alone.

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
    "AnswerConfig": "reading",
    "GradeConfig": "reading",
    "StepConfig": "reading",
    "parse_sympy": "reading",
    "classify": "reading",
    "check_arithmetic": "checks",
    "solution_check": "checks",
    "carried_check": "checks",
    "MISSING": "checks",
    "READ_AGAIN": "checks",
    "SHORT": "checks",
    "symbolic_check": "checks",
    "numeric_check": "checks",
    "final_answer_check": "checks",
    "by_answer_forms": "checks",
    "UNPARSED_REFERENCE": "checks",
    "run_limited": "reading",
    "read_outline": "state",
    "display_after": "reading",
    "is_lead_in": "reading",
    "Outline": "state",
    "ROLES": "state",
    "CLAIMS_NOTHING": "state",
}

__all__ = sorted(_EXPORTS)


# exports load on first use: a check worker importing one light module (exact arithmetic) does not
# import sympy and math-verify with the checks or the answers
__getattr__ = lazy_exports(__name__, _EXPORTS)
