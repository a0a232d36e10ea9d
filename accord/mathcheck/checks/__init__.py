"""The checks of a step against the proof state: the one consequence check (_consequence), a
step's relations dispatched (_claims, _checks, _carried_checks), and the readers of claims it
does not cover yet (inequalities, congruences, sequences, quantified and spoken claims, numbers
in words, final answers). Built on :mod:`accord.mathcheck.state` and :mod:`accord.mathcheck.reading`.
"""

from accord.exports import lazy_exports

_EXPORTS = {
    "MISSING": "_carried_checks",
    "READ_AGAIN": "_carried_checks",
    "SHORT": "_carried_checks",
    "UNPARSED_REFERENCE": "_final_answer",
    "by_answer_forms": "_final_answer",
    "carried_check": "_carried_checks",
    "check_arithmetic": "_arithmetic",
    "final_answer_check": "_final_answer",
    "numeric_check": "_checks",
    "solution_check": "_claims",
    "symbolic_check": "_checks",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_exports(__name__, _EXPORTS)
