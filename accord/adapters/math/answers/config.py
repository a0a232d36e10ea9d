"""Frozen settings of answer parsing and grading (the same parse serves every comparison).

``ParseConfig(text_forms=False)`` is the ``math`` equivalence (math where the answer parses as
math, normalised text otherwise); the default is ``auto``, which also reads the textual forms of
:mod:`accord.adapters.math.answers.text_forms`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ParseConfig:
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
    min_rounded_digits: int = 3  # a written decimal matches a value it rounds or truncates only with this many significant digits
    singleton_matches_element: bool = True  # {3} and "3 is the only value" equal 3
    timeout_s: float = 5.0  # math-verify's verify, used only when sample points cannot decide

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise ValueError(f"answer comparison timeout must be > 0 s, got {self.timeout_s}")


AUTO = ParseConfig()
MATH = ParseConfig(text_forms=False)
