"""Frozen settings of the math front end: which parsing strategy a text gets, and how answers are graded.

- :class:`StepConfig`: a side of a relation in a solution step, read by accord's own parser
  (:mod:`accord.mathcheck.reading._parser`; no ``eval``, every name a symbol, ``f(n)`` applied when
  ``f`` is in ``functions``), for the symbolic and numeric judges;
- :class:`AnswerConfig`: a final answer, for the jury's equivalence and the reward: structure and
  textual forms (:mod:`accord.mathcheck.answers`), expression leaves by sympy's parser with
  answer names (``C(n, k)``, ``H_n``, ``e``), LaTeX by math-verify. ``AnswerConfig(text_forms=False)``
  is the ``math`` equivalence; the default (:data:`AUTO`) also reads textual forms;
- :class:`GradeConfig`: the comparison rules of two parsed answers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StepConfig:
    functions: frozenset[str] = frozenset()  # names written as functions in the solution (f(n) applied, not a product)


@dataclass(frozen=True)
class AnswerConfig:
    text_forms: bool = True  # keywords (yes/no/none/infinitely many), sentences, alternatives, units
    timeout_s: float = 5.0  # per answer, for the sympy / math-verify part (run in a worker process)
    max_chars: int = 20_000  # longer answers are compared as text
    max_symbolic_chars: int = 2_000  # longer non-numeric leaves are not given to sympy
    sample_points: int = 5  # evaluations of an expression with free symbols

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"answer parsing timeout must be > 0 s, got {self.timeout_s}")
        if self.sample_points < 2:
            raise ValueError(f"need at least 2 sample points, got {self.sample_points}")


@dataclass(frozen=True)
class GradeConfig:
    computed_rel_tol: float = 1e-25  # two irrationals evaluated to 40 digits
    min_rounded_digits: int = (
        3  # a written decimal matches a value it rounds or truncates only with this many significant digits
    )
    singleton_matches_element: bool = True  # {3} and "3 is the only value" equal 3
    timeout_s: float = 5.0  # math-verify's verify, used only when sample points cannot decide

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"answer comparison timeout must be > 0 s, got {self.timeout_s}")


STEP = StepConfig()
AUTO = AnswerConfig()
MATH = AnswerConfig(text_forms=False)
