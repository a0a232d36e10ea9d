"""What the problem and the steps so far establish, carried from one step to the next.

A step of a real solution is checked against the facts of the steps before it, the names the
solution writes as functions, the problem's domain and a few flags (``i`` is the imaginary unit,
the solution speaks of digits). Rebuilt from all earlier text for every step, that costs time
growing with the square of the solution's length; :class:`Carried` holds it after ``n`` steps and
:meth:`Carried.advance` reads one more step. Only a new function name (which changes how every
earlier formula is read) makes it read the earlier steps again, at most once per distinct name.
"""

from __future__ import annotations

from dataclasses import dataclass

from accord.mathcheck._consequences import sign_facts
from accord.mathcheck._context import Facts, read_text
from accord.mathcheck._digits import digit_string
from accord.mathcheck._inequalities import Domain, constrained_names, domain_with, has_domain
from accord.mathcheck._notation import makes_imaginary
from accord.mathcheck._reader import applied_names


@dataclass(frozen=True)
class Carried:
    """The context of step ``n``: the problem and ``texts[:n]`` read, under ``functions``."""

    question: str
    texts: list[str]  # shared between the states of one solution; only the first n are this state's
    n: int
    functions: frozenset[str]
    facts: Facts  # after the problem and the n steps; not changed once made
    imaginary: bool
    digits: bool
    signs: tuple[tuple[str, str], ...]  # distinct "a > 0" facts of the problem and the steps
    constrained: frozenset[str] | None  # names an equation or ordering ties down (None: no domain)

    @classmethod
    def start(cls, question: str, functions: frozenset[str] | None = None) -> Carried:
        functions = frozenset(applied_names(question)) if functions is None else functions
        facts = Facts(functions=functions)
        read_text(question, facts)
        return cls(
            question,
            [],
            0,
            functions,
            facts,
            makes_imaginary(question, ()),
            "digit" in question.lower(),
            tuple(dict.fromkeys(sign_facts([question]))),
            frozenset(constrained_names([question], functions, orderings=False)) if has_domain(question) else None,
        )

    @classmethod
    def after(cls, question: str, steps, functions: frozenset[str] | None = None) -> Carried:
        """The context after ``steps``, read under ``functions`` (default: the names written as
        functions in the problem and the steps)."""
        steps = tuple(steps)
        if functions is None:
            functions = frozenset(applied_names(question)).union(*(applied_names(s) for s in steps))
        out = cls.start(question, functions)
        for s in steps:
            out = out.advance(s)
        return out

    @property
    def last(self) -> str | None:
        return self.texts[self.n - 1] if self.n else None

    @property
    def before_last(self) -> str | None:
        return self.texts[self.n - 2] if self.n > 1 else None

    def advance(self, step: str) -> Carried:
        """The context after one more step (functions unchanged: see :meth:`reading`)."""
        facts = self.facts.copy()
        facts.step = self.n
        digits = self.digits or "digit" in step.lower()
        read_text(step, facts, digit_string if digits else None)
        facts.forget_spent()
        texts = self.texts
        if len(texts) == self.n:
            texts.append(step)  # the usual case: this state is the newest of its solution
        else:
            texts = texts[: self.n] + [step]  # a second continuation of the same steps
        signs = self.signs
        new = [s for s in dict.fromkeys(sign_facts([step])) if s not in signs]
        if new:
            signs = signs + tuple(new)
        constrained = self.constrained
        if constrained is not None:
            constrained = constrained | constrained_names([step], self.functions)
        return Carried(
            self.question,
            texts,
            self.n + 1,
            self.functions,
            facts,
            self.imaginary or makes_imaginary(step, ()),
            digits,
            signs,
            constrained,
        )

    def reading(self, step: str) -> Carried:
        """This context as ``step`` needs it: when the step writes a new name as a function, the
        problem and the earlier steps are read again with it (as they would have been)."""
        functions = self.functions | applied_names(step)
        if functions == self.functions:
            return self
        return Carried.after(self.question, self.texts[: self.n], functions)

    def domain(self) -> Domain | None:
        return None if self.constrained is None else domain_with(self.question, self.functions, self.constrained)

    def with_step_signs(self, step: str) -> list[tuple[str, str]]:
        """The sign facts of the problem, the earlier steps and ``step``."""
        return list(self.signs) + sign_facts([step])
