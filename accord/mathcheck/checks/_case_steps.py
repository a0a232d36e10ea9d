"""An equation derived in a case the step opens with, checked with the case's values put in.

"If y = 1, then x^2 = 20", for the problem x^2 - 3y^2 = 17; "For x = 1, we get y(20 + y - 1) = 10,
which simplifies to y(19) = 10", after y(20x + y - 1) = 10x. The case's values are already the
step's facts (a plain ``y = 1`` holds in its own step), so an equation of the problem, of the steps
just before or of this step that names a case variable becomes an equation in the remaining names.
The derived equation follows when it holds at points where one of those does; it is false when
every one of them refutes it, and only when that cannot be a combination of several: one such
equation, or a derived equation in a single name.
"""

from __future__ import annotations

import re

from accord.mathcheck.checks._solutions import equations_in
from accord.mathcheck.checks._transforms import does_not_follow, follows, identity_safely, is_case
from accord.mathcheck.reading import names
from accord.mathcheck.state import Facts, free_names

CASE_REACH = 10  # steps back a run of cases may go for the equation it substitutes into
_OPENING = re.compile(
    r"^\W*(?:\d+[.)]\s+)?(?:case\s*\d*\s*[:.)-]\s*)?(?:if|for|when|with|setting|substituting|plugging\s+in|putting|taking)\b"
    r"(?P<clause>[^,:;\n]*?)(?:,|:|\bthen\b|\bwe\s+(?:get|have|obtain)\b|\bgives\b|$)",
    re.IGNORECASE,
)
_ASSIGNED = re.compile(r"(?<![\w^_{])([A-Za-z](?:_\{?\w+\}?)?)\s*=\s*\\?\(?\s*\$?\s*(-?\d+)(?![\w.^/])")


def case_clause(step: str) -> str:
    """The clause a step opens its case with ("For q = p and r = p" of "For q = p and r = p, we get ..."),
    or ""."""
    opening = _OPENING.match(re.sub(r"\\[()\[\]]|\$|\*\*", "", step))
    return opening["clause"] if opening else ""


def case_values(step: str) -> dict[str, int]:
    """The names the step's opening clause gives whole-number values ("If x = 1 and y = 2, ...")."""
    plain = re.sub(r"\\[()\[\]]|\$|\*\*", "", step)
    opening = _OPENING.match(plain)
    if opening is None:
        return {}
    return {name.replace("{", "").replace("}", ""): int(v) for name, v in _ASSIGNED.findall(opening["clause"])}


def in_case(
    ta, tb, case: dict[str, int], question: str, before: list[str], facts: Facts, seed: int
) -> tuple[bool, str] | None:
    """(holds, why) for ``ta = tb`` derived in the case, or None when nothing decides it. ``before``:
    the texts of the steps before (a run of cases may go back to an equation several steps up)."""
    free = free_names(ta, facts) | free_names(tb, facts)
    if not free or any(n.endswith("()") for n in free) or is_case(ta, tb):
        return None
    here = [(left, right) for left, right, at in facts.equations if at == facts.step]
    candidates = []
    for left, right in [eq for text in (question, *before) for eq in equations_in(text, facts)] + here:
        if (left, right) == (ta, tb) or (left, right) in candidates or not (names(left) | names(right)) & set(case):
            continue
        if (free_names(left, facts) | free_names(right, facts)) != free or is_case(left, right):
            continue
        if not identity_safely(left, right, facts, seed):
            candidates.append((left, right))
    if not candidates:
        return None
    shown = " and ".join(f"{name} = {value}" for name, value in case.items())
    why = follows(ta, tb, facts, seed, candidates)
    if why is not None:
        return True, f"in the case {shown}: {why.replace('the equation before it, ', '')}"
    if len(candidates) > 1 and len(free) > 1:
        return None  # it may combine two of them
    why = does_not_follow(ta, tb, facts, seed, candidates)
    if why is None:
        return None
    return False, f"in the case {shown}: {why.replace('the equation before it, ', '')}"
