"""A formula shown alone after words that rewrite: it must be the expression before, rewritten.

"The given expression is abc - (a+b-c)(a+c-b)(b+c-a)." then "We can rewrite the expression as
follows:" and the display "abc - (a^2 + b^2 + c^2 - ab - ac - bc)": the display states no relation
of its own, but the words claim it equals the expression before. So do "This simplifies to E1."
then "Further simplifying, we get E2.", and "Expanding (a+b)^2, we get:" then "a^2 + 2ab + b^2".

The expression before is the latest formula of the lead-in line or of the step before it, when that
formula is its only one and a bare expression (not a side of a relation: "n^2 - 1 = (n+1)(n-1)" then "the fully
factored form of the expression is" speaks of something earlier). The check applies only when

- the words rewrite (simplify, expand, factor, group, rearrange, "write … as") and do not change
  the expression (substitute, add, multiply, work on both sides, differentiate, apply a bound);
- the step is not itself a lead-in ("And then factor out 2^(n-2):" names a factor, not the result),
  and it does not name the part it rewrites ("we can rewrite abc as sqrt((ab)(bc)(ac))");
- both are expressions with the same free names (a new name is a substitution), and the shown one
  is the step's only formula: a display, or the end of a sentence that rewrites.

Then the display must agree with the expression before at random points of the problem's domain
(positive points when its names are positive), exactly where the values are rational.
"""

from __future__ import annotations

import re

from accord.mathcheck.checks._kept_sides import agree_at_points
from accord.mathcheck.reading import (
    Chain,
    MathParseError,
    ends_with_formula,
    has_prose,
    is_lead_in,
    read_chains,
    show,
    to_text,
    trailing_expression,
)
from accord.mathcheck.state import Facts, free_names, parse_side

_REWRITES = re.compile(
    r"\b(?:simplif\w*|rewrit\w*|re-writ\w*|expand\w*|factori[sz]\w*|factor(?:s|ed|ing)?(?!\s+of\b)|group\w*|"
    r"rearrang\w*|collect\w*|combin\w*|(?:write|express)\s+(?:this|it|the\s+expression|[^\s.,;:]{1,40})\s+as|"
    r"written\s+as|expressed\s+as)\b",
    re.IGNORECASE,
)
_CHANGES = re.compile(
    r"\b(?:substitut\w*|plug\w*|replac\w*|insert\w*|both\s+sides|add\w*|subtract\w*|multipl\w*|divid\w*|"
    r"squar\w*|differentiat\w*|derivative|integrat\w*|apply\w*|bound\w*|estimat\w*|approximat\w*|limit|"
    r"if|when|case|assum\w*|suppos\w*|mod\w*|inequalit\w*|equation\w*)\b|[≥≤<>]",
    re.IGNORECASE,
)
_NAMED_OBJECT = re.compile(
    r"\b(?:re-?write|write|express)\s+(?!(?:this|it|that|the|our|its|these)\b)\S+.{0,60}?\bas\b", re.IGNORECASE
)
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\[.*?\\\]|\\\(.*?\\\)", re.DOTALL)


def _only_expression(step: str) -> str | None:
    """The step's one formula, when it is an expression: shown alone, or ending a sentence that
    rewrites ("Further simplifying, we get (a+b+c)/(ab+bc+ca).")."""
    chains = read_chains(step)
    if not chains:
        return trailing_expression(step) if _REWRITES.search(step) else None
    if len(chains) != 1 or chains[0].relations or chains[0].continues:
        return None
    if has_prose(step) and not (_REWRITES.search(_MATH.sub(" ", step)) and ends_with_formula(step)):
        return None
    return chains[0].sides[0]


def _named_factor(chain: Chain, facts: Facts) -> bool:
    """ "we can factor \\(a^2\\), \\(b^2\\) from …": a name or its power the words speak of, not the
    expression rewritten."""
    if chain.relations:
        return False
    try:
        tree = parse_side(chain.sides[0], facts.functions)[0]
    except MathParseError:
        return False
    if tree[0] == "pow":
        tree = tree[1]
    return tree[0] in ("name", "num")


def _expression_before(texts: list[str], facts: Facts):
    """(tree, whole) of the latest formula in ``texts``: a bare expression (whole=True) or the last
    side of an equation; None when it is an inequality, a bare name or number, or unreadable."""
    for text in reversed(texts):
        chains = tuple(c for c in read_chains(text) if not _named_factor(c, facts))
        if not chains:
            ending = trailing_expression(text)
            if ending is None:
                continue
            chains = (Chain((ending,), (), ending),)
        if len(chains) > 1:
            return None  # "write A as B, and C as D:": which one is meant is not said
        chain = chains[0]
        if chain.relations and set(chain.relations) != {"="}:
            return None
        try:
            tree, odd = parse_side(chain.sides[-1], facts.functions)
        except MathParseError:
            return None
        if odd or tree[0] in ("name", "apply", "num", "neg"):
            return None
        return tree, not chain.relations
    return None


def rewritten_display(step: str, before: list[str], lead_in: str, facts: Facts, seed: int, positive: bool):
    """(holds, why, old text, new text) for a step that shows one expression after words that
    rewrite the expression before (module docstring); None when the rule does not apply."""
    words = f"{lead_in}\n{step}"
    if not _REWRITES.search(words) or _CHANGES.search(_MATH.sub(" ", words)):
        return None
    if is_lead_in(step) or _NAMED_OBJECT.search(_MATH.sub(" X ", step)):
        return None  # "And then factor out 2^(n-2):", "we can rewrite abc as …": not the whole expression
    shown = _only_expression(step)
    if shown is None:
        return None
    try:
        new, odd = parse_side(shown, facts.functions)
    except MathParseError:
        return None
    if odd or new[0] in ("name", "apply", "num", "neg"):
        return None
    earlier = _expression_before([t for t in before if t], facts)
    if earlier is None:
        return None
    old, whole = earlier
    if not whole:
        return None  # "n^2 - 1 = (n+1)(n-1)", then "the fully factored form is": of what came before
    old_names, new_names = free_names(old, facts), free_names(new, facts)
    if not old_names or new_names != old_names or any(n.endswith("()") for n in old_names):
        return None
    good, defined, witness = agree_at_points(new, old, facts, seed, positive)
    if witness is None:
        if defined < 3:
            return None
        return True, f"it is {to_text(old)} rewritten (holds at {good} points)", to_text(old), to_text(new)
    point, a, b = witness
    at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(point.items()))
    return (
        False,
        f"{to_text(new)} is shown as {to_text(old)} rewritten, but at {at} it is {show(a)}, not {show(b)}",
        to_text(old),
        to_text(new),
    )
