"""What the problem and the steps so far establish, carried from one step to the next.

A step of a real solution is checked against the facts of the steps before it, the names the
solution writes as functions, the problem's domain and a few flags (``i`` is the imaginary unit,
the solution speaks of digits). Rebuilt from all earlier text for every step, that costs time
growing with the square of the solution's length; :class:`Carried` holds it after ``n`` steps and
:meth:`Carried.advance` reads one more step. Only a new function name (which changes how every
earlier formula is read) makes it read the earlier steps again, at most once per distinct name.

It also carries the proof state: the outline read so far (roles and open scopes,
:class:`~accord.mathcheck.state._roles.Outline`), the steps whose own check refuted them, which are
never premises of a later step, and the names a general form binds again: "Let's try f(x) = ax^2 +
bx + c" after "f(x) = ax + b" makes a, b and c new unknowns, so what was found of the earlier a
and b ("a = 1/2") is not in force from there on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from accord.mathcheck.reading import applied_names, digit_string, makes_imaginary, names
from accord.mathcheck.state._context import Facts, read_text
from accord.mathcheck.state._domain import Domain, constrained_names, domain_with, has_domain, sign_facts
from accord.mathcheck.state._roles import Outline, StepRole


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
    outline: Outline  # the proof read so far: roles, open scopes, labels
    refuted: frozenset[int] = frozenset()  # steps whose own check refuted them: never premises
    rebound: tuple[tuple[str, int], ...] = ()  # (name, the latest step that bound it again); "f()": a function
    forms: frozenset[str] = frozenset()  # the functions given a general form so far

    @classmethod
    def start(cls, question: str, functions: frozenset[str] | None = None) -> Carried:
        functions = frozenset(applied_names(question)) if functions is None else functions
        facts = Facts(functions=functions)
        read_text(question, facts, digit_string if "digit" in question.lower() else None)
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
            Outline.start(question),
            forms=frozenset(_forms_at(facts, -1)),
        )

    @classmethod
    def after(
        cls, question: str, steps, functions: frozenset[str] | None = None, refuted: frozenset[int] = frozenset()
    ) -> Carried:
        """The context after ``steps``, read under ``functions`` (default: the names written as
        functions in the problem and the steps); ``refuted``: the steps already refuted."""
        steps = tuple(steps)
        if functions is None:
            functions = frozenset(applied_names(question)).union(*(applied_names(s) for s in steps))
        out = cls.start(question, functions)
        for k, s in enumerate(steps):
            out = out.advance(s, steps[k + 1] if k + 1 < len(steps) else None, k in refuted)
        return out

    @property
    def last(self) -> str | None:
        return self.texts[self.n - 1] if self.n else None

    @property
    def before_last(self) -> str | None:
        return self.texts[self.n - 2] if self.n > 1 else None

    def role(self, step: str, following: str | None = None) -> tuple[Outline, StepRole]:
        """The outline after ``step`` and the step's role (``following``: the next step, if any)."""
        outline, role, _ = self.outline.advance(step, following)
        return outline, role

    def in_force(self, role: StepRole):
        """Whether a premise is in force at the step of ``role``: its step not refuted, and every
        scope it was stated in still open."""
        open_ids = frozenset(role.scopes)
        refuted = self.refuted
        if not self.rebound:
            return lambda p: p.step not in refuted and p.scopes <= open_ids
        since = dict(self.rebound)

        def in_force(p) -> bool:
            if p.step in refuted or not p.scopes <= open_ids:
                return False
            bound = [since.get(n, -2) for n in p.names]
            form = general_form(p)
            if form is not None:
                bound.append(since.get(form[0] + "()", -2))
            return all(p.step >= at for at in bound)

        return in_force

    def advance(self, step: str, following: str | None = None, refuted: bool = False) -> Carried:
        """The context after one more step (functions unchanged: see :meth:`reading`); ``refuted``:
        the step's own check refuted it."""
        outline, role = self.role(step, following)
        facts = self.facts.copy(owner=True)
        facts.step = self.n
        facts.scopes = frozenset(role.scopes)
        digits = self.digits or "digit" in step.lower()
        read_text(step, facts, digit_string if digits else None)
        rebound, forms = self.rebound, self.forms
        new_forms = _forms_at(facts, self.n)
        if new_forms:
            problem = _names_of(self.question)
            fresh = {n for f, unknowns in new_forms.items() if f in forms for n in {f + "()", *(unknowns - problem)}}
            if fresh:
                rebound = tuple((n, at) for n, at in rebound if n not in fresh) + tuple((n, self.n) for n in fresh)
            forms = forms | frozenset(new_forms)
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
            outline,
            self.refuted | {self.n} if refuted else self.refuted,
            rebound,
            forms,
        )

    def reading(self, step: str) -> Carried:
        """This context as ``step`` needs it: when the step writes a new name as a function, the
        problem and the earlier steps are read again with it (as they would have been)."""
        functions = self.functions | applied_names(step)
        if functions == self.functions:
            return self
        return Carried.after(self.question, self.texts[: self.n], functions, self.refuted)

    def domain(self) -> Domain | None:
        return None if self.constrained is None else domain_with(self.question, self.functions, self.constrained)

    def with_step_signs(self, step: str) -> list[tuple[str, str]]:
        """The sign facts of the problem, the earlier steps and ``step``."""
        return list(self.signs) + sign_facts([step])


def general_form(p) -> tuple[str, frozenset[str]] | None:
    """``f(x) = a·x^2 + b·x + c``: the function a premise gives a general form, and the unknowns of
    that form (its names other than the arguments), or None."""
    for a, b in ((p.left, p.right), (p.right, p.left)):
        if a[0] == "apply" and a[2] and all(arg[0] == "name" for arg in a[2]):
            args = {arg[1] for arg in a[2]}
            return a[1], frozenset(names(b) - args)
    return None


def _forms_at(facts: Facts, step: int) -> dict[str, frozenset[str]]:
    """The general forms the premises of ``step`` give (the latest premises, read back from the end)."""
    out = {}
    for i in range(facts.n_premises - 1, -1, -1):
        p = facts.premises[i]
        if p.step != step:
            break
        form = general_form(p)
        if form is not None:
            out[form[0]] = out.get(form[0], frozenset()) | form[1]
    return out


@lru_cache(maxsize=256)
def _names_of(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])", text))
