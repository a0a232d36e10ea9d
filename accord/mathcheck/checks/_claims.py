"""Check the relation chains of one step of a real solution, in the context of the steps before it.

Each link ``a REL b`` of a chain gets a verdict:

- both sides have a value (numbers, or names given values earlier): evaluated exactly (or to 50
  digits) and compared; a side written with d decimals may be the value rounded or cut to d
  decimals; ``≈`` allows the stated precision (:func:`approximately`); ``≡`` compares modulo n;
- otherwise, for ``=``: an identity when both sides agree at random points (exact rationals; the
  solution's functions take random values per argument) — after substituting the definitions, or
  solving a recent equation for one of its names, if needed;
- a link that is not an identity is false only when it rewrites an expression (a link after the
  first of a chain, or a continued chain) into one with the same free names, and no earlier
  equation explains it: ``ddq = dq^2`` with the counterexample ``at d = 2, q = 3 the left side is
  12, the right side 18``. A first link (``x^2 + y^2 = z^2``) states something; it is not checked.

So a link is ``False`` only with a shown evaluation or counterexample; everything accord cannot
read or decide is ``None`` with the reason. ``real=True`` repeats the same reading in floating
point at random real points and scores the share of points where a rewriting holds. Comparing at
written precision is :mod:`accord.mathcheck.reading._precision`; identities at random points and what
explains a non-identity, :mod:`accord.mathcheck.state._identities`. Claims in words are read too:
facts about written-out numbers (:mod:`accord.mathcheck.checks._numberfacts`), relations claimed for
all n, "always" and residues modulo n (:mod:`accord.mathcheck.checks._quantifiers`), "rewrite A as B"
(:mod:`accord.mathcheck.checks._rewrites`), equations derived from the one before
(:mod:`accord.mathcheck.checks._transforms`); a number spelt by its digits (``abcd``) is not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from accord.mathcheck.checks._arithmetic import calculator_annotations
from accord.mathcheck.checks._case_steps import CASE_REACH, case_clause, case_values, in_case
from accord.mathcheck.checks._combinations import combination_check, combines_equations
from accord.mathcheck.checks._consequence import consequence
from accord.mathcheck.checks._consequences import inequality_follows
from accord.mathcheck.checks._counterexamples import on_the_problem
from accord.mathcheck.checks._displays import rewritten_display
from accord.mathcheck.checks._inequalities import check_inequality
from accord.mathcheck.checks._kept_sides import never_equal, side_rewritten
from accord.mathcheck.checks._last_digits import last_digit_claims
from accord.mathcheck.checks._numberfacts import number_facts
from accord.mathcheck.checks._quantifiers import (
    always_claims,
    never_check,
    never_claims,
    prime_check,
    quantified,
    residue_check,
    residue_claims,
    search_values,
    universal_check,
    whatever_the_value,
)
from accord.mathcheck.checks._residue_cases import residue_case, within_case
from accord.mathcheck.checks._rewrites import ALIGNED, REWRITE, first_link_rewrites, rewrite_context
from accord.mathcheck.checks._sequence_words import word_claims
from accord.mathcheck.checks._sequences import sequence_claims
from accord.mathcheck.checks._solutions import (
    equations_in,
    sentence_of,
    solutions_check,
    solutions_claimed,
    value_found,
)
from accord.mathcheck.checks._substitutions import substituted_side
from accord.mathcheck.checks._transforms import transforms
from accord.mathcheck.reading import (
    OPERATING,
    TRIAL,
    Chain,
    EvaluationError,
    MathParseError,
    TooLarge,
    Undefined,
    Unknown,
    applied_names,
    approx,
    assumes,
    cites_inequality,
    compare,
    digit_string,
    imaginary_link,
    is_lead_in,
    moduli_in,
    names,
    parse,
    read_chains,
    remainder_statements,
    says,
    show,
    speaks_of_contradiction,
    to_text,
    uses_bare_log,
    value_of,
    without_remainders,
)
from accord.mathcheck.state import (
    CASE,
    CLAIMING,
    N_FLOAT_POINTS,
    N_POINTS,
    Carried,
    Facts,
    closed_value,
    conditional,
    congruence_holds,
    domain_sign,
    end_of_step,
    explained,
    free_names,
    holds_at_points,
    is_identity,
    opens_case,
    parse_side,
    record,
    seed_of,
    side_trees,
    small_counterexample,
    subject_key,
)


@dataclass(frozen=True)
class Link:
    """The verdict on one relation of a chain."""

    left: str
    relation: str
    right: str
    holds: bool | None  # None: not checked (reason says why)
    reason: str
    score: float | None = None  # float mode: share of points where it holds

    @property
    def text(self) -> str:
        return f"{self.left} {self.relation} {self.right}"


def _symbolic_link(
    ta, tb, facts: Facts, rewriting: bool, real: bool, text: str
) -> tuple[bool | None, str, float | None]:
    seed = seed_of(text)
    n = N_FLOAT_POINTS if real else N_POINTS
    good, defined, _ = holds_at_points(ta, tb, facts, seed, real, definitions=False, n=n, stop=not real)
    where = ""
    if defined < 3 and good == defined:  # √a, log b: undefined at negative points, so draw positive ones
        where = " positive"
        good, defined, _ = holds_at_points(ta, tb, facts, seed, real, False, n=n, stop=not real, positive=True)
    if defined < 3 and good == defined:  # (-2)^n: a power of a negative number, defined at integers
        where = " integer"
        good, defined, _ = holds_at_points(ta, tb, facts, seed, real, False, n=n, stop=not real, integers=True)
    if defined < 3 and good == defined:
        return None, "undefined at most points (a domain problem)", None
    if good == defined:
        return True, f"holds at {defined} random{where} points", 1.0
    share = good / defined if real else None
    if facts.definitions and is_identity(ta, tb, facts, seed, definitions=True):
        return True, "holds with the definitions made earlier", 1.0
    if not rewriting:
        why = explained(ta, tb, facts, seed, recent=True)
        if why is not None:
            return True, why, 1.0
        return None, "an equation stating something (not an identity, not checked)", None
    free_a, free_b = free_names(ta, facts), free_names(tb, facts)
    plain = bool(free_a | free_b) and not any(n.endswith("()") for n in free_a | free_b)
    verdict = consequence("=", ta, tb, facts, seed, cited=facts.cited, rewrite=plain)  # against what is in force
    if verdict is not None and verdict.holds is not None:
        return verdict.holds, verdict.reason, float(verdict.holds)
    if free_a != free_b or not free_a:
        return None, "not an identity, and it brings in other names: not checked", None
    if any(n.endswith("()") for n in free_a):
        return None, "not an identity for every function; not checked", None
    why = explained(ta, tb, facts, seed)
    if why is not None:
        return True, why, 1.0
    plain = sorted(free_a)
    given = on_the_problem(ta, tb, facts, plain)  # a point on the problem's own condition, when it has one
    small = given[:3] if given else small_counterexample(ta, tb, facts, plain)
    if small is None:
        return (
            None,
            "not an identity, but it holds at small positive integers (it may depend on the domain): not checked",
            None,
        )
    pt, a, b = small
    at = ", ".join(f"{k} = {show(v)}" for k, v in sorted(pt.items())) + (f" (where {given[3]})" if given else "")
    if share is None:
        share = 0.0
    return (
        False,
        (
            f"{to_text(ta)} = {to_text(tb)} is not an identity: at {at} the left side is {show(a)}, the right "
            f"side {show(b)}" + (" (nor does it follow from the equations before it)" if facts.equations else "")
        ),
        share,
    )


def _closed(tree, facts: Facts, values: bool = True):
    """(value, used names) of a tree whose names all have values (with ``values=False``: a tree
    without names), else raises EvaluationError."""
    used: list[str] = []

    def look(name: str):
        if not values:
            raise Unknown(name)
        v = facts.value(name)
        used.append(name)
        return v

    return value_of(tree, look), used


def _with_values(used: list[str], facts: Facts) -> str:
    if not used:
        return ""
    parts = []
    for n in dict.fromkeys(used):
        at = facts.origin(n)
        where = "the problem" if at < 0 else f"step {at + 1}"
        parts.append(f"{n} = {show(facts.value(n))} from {where}")
    return " (with " + ", ".join(parts) + ")"


def _closed_link(rel, ta, tb, va, vb, used, facts, modulus_tree, alternative) -> tuple[bool | None, str]:
    modulus = None
    if rel == "≡":
        if modulus_tree is None:
            return None, "a congruence without a modulus"
        try:
            modulus, more = _closed(modulus_tree, facts)
            used = used + more
        except EvaluationError as exc:
            return None, f"the modulus has no value: {exc}"
    ok = compare(rel, va, vb, ta, tb, modulus, facts.value)
    if ok is None:
        return (
            None,
            "the two sides are too close to tell apart at 50 digits" if rel != "≡" else "a congruence of non-integers",
        )
    if ok:
        if rel != "=":
            return True, "holds"
        return (
            True,
            f"holds: both sides are {show(va)}"
            if va == vb
            else f"holds at the precision written ({show(va)} and {show(vb)})",
        )
    if alternative is not None and alternative():
        return True, "holds when read the other way (1/2x as 1/(2x), x^1/3 as x^(1/3), log as log base 10)"
    lhs, rhs = to_text(ta), to_text(tb)
    what = {"=": "", "≡": f" (mod {show(modulus)})"}.get(rel, "")
    if rel == "=" and tb[0] == "num":
        detail = f"the left side is {show(va)}"
    elif rel == "=" and ta[0] == "num":
        detail = f"the right side is {show(vb)}"
    elif rel == "≡":
        detail = f"the left side is {show(va % modulus)}, the right side {show(vb % modulus)} (mod {show(modulus)})"
    else:
        detail = f"the left side is {show(va)}, the right side {show(vb)}"
    return False, f"{lhs} {rel} {rhs}{what} is false: {detail}{_with_values(used, facts)}"


def _holds_read_otherwise(left: str, right: str, facts, rewriting: bool, real: bool, text: str) -> bool:
    """An equation that fails as read but holds read the other way ("(ab)(bc)(ac)^(1/6)" as the
    root of the whole product, "1/2x" as 1/(2x)) is not flagged."""
    try:
        ta = parse(left, facts.functions, implicit_first=True)[0]
        tb = parse(right, facts.functions, implicit_first=True)[0]
        return _symbolic_link(ta, tb, facts, rewriting, real, f"{text}|{left}|{right}|other")[0] is True
    except (MathParseError, EvaluationError, TooLarge, ArithmeticError, ValueError):
        return False


def _alternative(side_texts, rel, facts, modulus_tree) -> callable:
    """The other reading of ambiguous notation, evaluated on demand."""

    def holds() -> bool:
        try:
            ta = parse(side_texts[0], facts.functions, implicit_first=True)[0]
            tb = parse(side_texts[1], facts.functions, implicit_first=True)[0]
            for base in (None, 10):
                va = approx(ta, facts.value, base) if base else closed_value(ta, facts)
                vb = approx(tb, facts.value, base) if base else closed_value(tb, facts)
                modulus = closed_value(modulus_tree, facts) if modulus_tree is not None else None
                if compare(rel, va, vb, ta, tb, modulus):
                    return True
        except (EvaluationError, MathParseError, ArithmeticError, ValueError):
            return False
        return False

    return holds


def check_chain(
    chain: Chain, facts: Facts, real: bool = False, cues=(frozenset(), False, False, "", None)
) -> list[Link]:
    """Verdicts on every link of one chain (a side with ``±`` is read in both branches, :func:`_both_branches`)."""
    if sum("±" in side for side in chain.sides) == 1 and not chain.continues:
        return _both_branches(chain, facts, real, cues)
    return _check_chain(chain, facts, real, cues)


def _both_branches(chain: Chain, facts: Facts, real: bool, cues) -> list[Link]:
    """``(-1 ± 5)/2 = 2``: a link holds when it holds in either branch (+ or −), is false when it is
    false in both, and is not decided otherwise."""
    verdicts = []
    for sign in ("+", "-"):
        sides = tuple(side.replace("±", sign) for side in chain.sides)
        branch = Chain(sides, chain.relations, chain.text.replace("±", sign), chain.modulus, chain.continues)
        verdicts.append(_check_chain(branch, facts.copy(), real, cues))
    links = []
    for i, (plus, minus) in enumerate(zip(*verdicts)):
        left, right = (chain.sides[i], chain.sides[i + 1]) if i + 1 < len(chain.sides) else (plus.left, plus.right)
        if plus.holds or minus.holds:
            good = plus if plus.holds else minus
            links.append(Link(left, plus.relation, right, True, f"holds in one branch of ±: {good.reason}", 1.0))
        elif plus.holds is False and minus.holds is False:
            links.append(
                Link(
                    left,
                    plus.relation,
                    right,
                    False,
                    f"false in both branches of ±: {plus.reason}; {minus.reason}",
                    0.0,
                )
            )
        else:
            links.append(Link(left, plus.relation, right, None, plus.reason if plus.holds is None else minus.reason))
    record(chain, side_trees(chain, facts)[0], facts)
    return links


def _check_chain(
    chain: Chain, facts: Facts, real: bool = False, cues=(frozenset(), False, False, "", None)
) -> list[Link]:
    """Verdicts on every link of one chain; records what the chain establishes into ``facts``.

    ``cues``: the moduli the step mentions, whether it speaks of a contradiction, whether it
    assumes or defines (then a rewriting that is not an identity is a supposition, not checked),
    how the step presents its formulas (an aligned row, a rewrite, an equation: whether an opening
    link between expressions with the same names is a rewrite, :mod:`accord.mathcheck.checks._rewrites`), the domain
    of the problem's names for inequalities with free names (None: not checked;
    :mod:`accord.mathcheck.checks._inequalities`), the quantified names, whether the step transforms
    the relation before, whether ``i`` is imaginary, the texts it operates on, whether it cites an
    inequality, and the residue case it opens with (:mod:`accord.mathcheck.checks._residue_cases`)."""
    trees, why = side_trees(chain, facts)
    texts = (["(previous)"] if chain.continues else []) + list(chain.sides)
    modulus_tree = None
    if chain.modulus is not None:
        try:
            modulus_tree = parse_side(chain.modulus, facts.functions)[0]
        except MathParseError:
            pass
    ambiguous = set()
    for i, t in enumerate(texts):
        if i == 0 and chain.continues:
            continue
        try:
            if parse_side(t, facts.functions)[1]:
                ambiguous.add(i)
        except MathParseError:
            pass
    subject = subject_key(trees[0], facts) if trees[0] is not None and not chain.continues else None
    links = []
    for i, rel in enumerate(chain.relations):
        ta, tb = trees[i], trees[i + 1]
        left, right = texts[i], texts[i + 1]
        if ta is None or tb is None:
            links.append(Link(left, rel, right, None, f"cannot read it: {why[i] or why[i + 1]}"))
            continue
        rewriting = (i > 0 or chain.continues) and not cues[2]
        if rel in _ORDER_RELATIONS and len(cues) > 9 and cues[9] and not cues[2]:
            rewriting = True  # an instance of the cited inequality: it holds everywhere, first link too
        opening = False
        if not rewriting and rel == "=" and not cues[2] and not chain.continues:
            rewriting = opening = first_link_rewrites(ta, tb, facts, cues[3], seed_of(chain.text))
        link = _check_link(
            rel,
            ta,
            tb,
            left,
            right,
            facts,
            rewriting,
            real,
            modulus_tree,
            i == 0 and subject is not None,
            ({i, i + 1} & ambiguous or uses_bare_log(ta) or uses_bare_log(tb)),
            chain.text,
            cues,
        )
        if opening and link.holds is False and cues[1]:  # "so 9 = 4, which is impossible": derived on purpose
            why = f"false as the step itself says (a contradiction): {link.reason}"
            link = Link(link.left, rel, link.right, None, why)
        elif opening and link.holds is False:
            link = Link(link.left, rel, link.right, False, f"read as a rewrite: {link.reason}", link.score)
        links.append(link)
    record(chain, trees, facts)
    return links


_ORDER_RELATIONS = ("<", "≤", ">", "≥")
_SUPPOSES = re.compile(
    r"\b(?:suppose|supposing|assume|assuming|let['’]?s\s+say|let\s+us\s+say|denote|define|call)\b", re.IGNORECASE
)
_TRIAL = re.compile(r"\b(?:" + TRIAL + r")\b|≈|\?", re.IGNORECASE)


def _claimed(ta, tb, left: str, right: str, facts: Facts, cues, text: str, everywhere: bool = True) -> bool:
    """The relation is claimed as found: the step claims (its role), it is not a case's own value
    ("If x = 2, then ..."), nor put as a trial, a failure or a rough value in its sentence ("so x =
    4 does not work"), nor the absurdity a contradiction wants (``everywhere``: it fails wherever
    the premises hold; a rewrite that fails at some points is a slip whatever the next step says)."""
    if not facts.claims or cues[2] or everywhere and (cues[1] or facts.absurd):
        return False
    if ta[0] == "name" and (ta[1] in facts.case or facts.in_case and tb[0] in ("num", "neg")):
        return False  # the case's own value ("consider the case when n = 1")
    if re.search(rf"{re.escape(left.strip())}\s*=\s*{re.escape(right.strip())}", facts.clause):
        return False  # "For q = p and r = p, we get ...": what the case supposes
    step = cues[8][2] if len(cues) > 8 and cues[8] else text
    return not _TRIAL.search(sentence_of(step, left, right))


def _check_link(
    rel, ta, tb, left, right, facts, rewriting, real, modulus_tree, is_subject, ambiguous, text, cues
) -> Link:
    if modulus_tree is None and rel == "≡" and len(cues[0]) == 1:  # "(mod 8)" written outside the formula
        modulus_tree = ("num", Fraction(next(iter(cues[0]))), 0)
    if len(cues) > 7 and cues[7] and "i" in names(ta) | names(tb):  # i is the imaginary unit here
        holds, reason = imaginary_link(rel, ta, tb)
        return Link(left, rel, right, holds, reason, None if holds is None else float(holds))
    order = rel in ("<", "≤", ">", "≥")  # an inequality: only about the quantified names, none with a value
    case = "name" in (ta[0], tb[0]) and not (names(ta) and names(tb))  # "n = 1": a case, not a claim for all n
    if (
        len(cues) > 5
        and cues[5]
        and not case
        and (rel in ("=", "≡") or order and names(ta) | names(tb) <= set(cues[5]))
    ):
        verdict = universal_check(rel, ta, tb, modulus_tree if rel == "≡" else None, facts, cues[5])
        if verdict is not None:
            return Link(left, rel, right, verdict[0], verdict[1], float(verdict[0]))
    values = rel in ("=", "≈", "≡")  # an inequality with a name is a condition ("if d > 1"), not a claim
    try:
        (va, used_a), (vb, used_b) = _closed(ta, facts, values), _closed(tb, facts, values)
    except TooLarge as exc:
        return Link(left, rel, right, None, str(exc))
    except Undefined as exc:
        return Link(left, rel, right, None, f"undefined: {exc}")
    except Unknown:
        if rel == "≡" and modulus_tree is not None:
            verdict = within_case(ta, tb, modulus_tree, cues[10]) if len(cues) > 10 and cues[10] else None
            if verdict is not None:  # "For y ≡ 6 (mod 8), we have y(y + 1) ≡ 0 (mod 8)"
                return Link(left, rel, right, verdict[0], verdict[1], float(verdict[0]))
            return _congruence_link(ta, tb, left, right, modulus_tree, facts, text)
        if rel in ("<", "≤", ">", "≥") and rewriting and len(cues) > 4 and cues[4] is not None:
            holds, reason = check_inequality(rel, ta, tb, facts, cues[4], seed_of(f"{text}|{left}|{right}"))
            return Link(left, rel, right, holds, reason, None if holds is None else float(holds))
        if rel in _ORDER_RELATIONS and len(cues) > 8 and cues[8] and not ambiguous:  # before "follows": a
            operated, _, step = cues[8]  # wrong rewrite of one side may still follow
            verdict = substituted_side(rel, ta, tb, operated, step, facts, seed_of(f"{text}|{left}"))
            if verdict is not None:
                return Link(left, rel, right, verdict[0], verdict[1], float(verdict[0]))
            positive = cues[4] is not None and cues[4].sign != "real"
            verdict = side_rewritten(rel, ta, tb, operated, step, facts, seed_of(f"{text}|{left}"), positive)
            if verdict is not None:
                return Link(left, rel, right, verdict[0], verdict[1], float(verdict[0]))
        if (
            rel in ("<", "≤", ">", "≥")
            and not rewriting
            and len(cues) > 8
            and cues[8]
            and (cues[6] or _concluded(cues[8][2]))
        ):
            verdict = inequality_follows(rel, ta, tb, facts, cues[4], *cues[8], seed_of(f"{text}|{left}|{right}"))
            if verdict is not None and not (ambiguous and verdict[0] is False):
                return Link(left, rel, right, verdict[0], verdict[1], float(verdict[0]))
        if rel in _ORDER_RELATIONS and not rewriting and len(cues) > 4 and cues[4] is not None:
            seed = seed_of(f"{text}|{left}|{right}")
            holds, reason = check_inequality(rel, ta, tb, facts, cues[4], seed, first=True)
            if holds is False and ambiguous:  # "(a + b)(b + c) / abc": read one way of two
                return Link(left, rel, right, None, f"read one way of two, not flagged: {reason}")
            if holds is False and cues[1]:  # "this gives 1 > 64, which is not true": derived on purpose
                return Link(left, rel, right, None, f"false as the step itself says (a contradiction): {reason}")
            if holds is None:
                return Link(left, rel, right, None, reason)
            why = "true wherever the problem's names live" if holds else "false for every admissible value"
            return Link(left, rel, right, holds, f"{reason}: {why}", float(holds))
        if rel != "=":
            return Link(left, rel, right, None, "a relation between expressions with free names: not checked")
        try:
            holds, reason, share = _symbolic_link(ta, tb, facts, rewriting, real, f"{text}|{left}|{right}")
            if holds is None and reason.startswith("an equation stating"):
                # the statement the step says it operates on, or whose side it keeps
                source = None if ambiguous else facts.source() or facts.kept_from(ta, tb)
                # "we can rewrite A as B": a rewrite of an expression, not a condition with a number side
                rewrites = not ambiguous and cues[3] in (ALIGNED, REWRITE) and bool(names(ta)) and bool(names(tb))
                seed = seed_of(f"{text}|{left}|{right}")
                v = consequence("=", ta, tb, facts, seed, source, facts.cited, rewrite=rewrites)
                if v is not None and v.holds:
                    return Link(left, rel, right, True, f"{to_text(ta)} = {to_text(tb)} {v.reason}", 1.0)
                if (
                    v is not None
                    and v.holds is False
                    and _claimed(ta, tb, left, right, facts, cues, text, v.everywhere)
                ):
                    return Link(left, rel, right, False, v.reason, 0.0)
            if (
                holds is None
                and reason.startswith("an equation stating")
                and len(cues) > 8
                and cues[8]
                and combines_equations("\n".join([*cues[8][0][-1:], cues[8][2]]))
            ):
                verdict = combination_check(ta, tb, facts, seed_of(f"{text}|{left}|{right}"))
                if verdict is not None:
                    return Link(left, rel, right, verdict[0], verdict[1], float(verdict[0]))
            if holds is None and reason.startswith("an equation stating") and not ambiguous:
                why = never_equal(ta, tb, facts, seed_of(f"{text}|{left}|{right}"))
                if why is not None and not cues[1]:
                    return Link(left, rel, right, False, f"{to_text(ta)} = {to_text(tb)}: {why}", 0.0)
            if holds is False and ambiguous and _holds_read_otherwise(left, right, facts, rewriting, real, text):
                return Link(left, rel, right, None, f"read one way of two, not flagged: {reason}")
        except TooLarge as exc:
            return Link(left, rel, right, None, str(exc))
        except EvaluationError as exc:
            return Link(left, rel, right, None, f"cannot evaluate it: {exc}")
        return Link(left, rel, right, holds, reason, share if real else None)
    except (EvaluationError, ArithmeticError, ValueError) as exc:
        return Link(left, rel, right, None, f"cannot evaluate it: {exc}")
    if is_subject and used_a:
        same = compare("=", va, vb, ta, tb, None)
        if not same:
            return Link(left, rel, right, None, f"gives {left} a new value (earlier {show(va)})")
    alt = _alternative((left, right), rel, facts, modulus_tree) if ambiguous else None
    holds, reason = _closed_link(rel, ta, tb, va, vb, used_a + used_b, facts, modulus_tree, alt)
    if holds is False:
        moduli, contradiction = cues[0], cues[1]
        if rel == "=" and all(isinstance(v, Fraction) and v.denominator == 1 for v in (va, vb)):
            for m in sorted(moduli):
                if (va - vb) % m == 0:
                    return Link(
                        left, rel, right, None, f"equal modulo {m} (the step works modulo {m}): read as a congruence"
                    )
        if contradiction and (rel in ("<", "≤", ">", "≥") or not _computation(ta, tb, used_a + used_b)):
            return Link(left, rel, right, None, f"false as the step itself says (a contradiction): {reason}")
    return Link(left, rel, right, holds, reason, None if holds is None else float(holds))


def _computation(ta, tb, used) -> bool:
    """``7·8 = 54``: a number worked out from numbers alone. Such a slip is never the contradiction
    a solution derives on purpose, whatever the next step says."""

    def literal(t) -> bool:
        return t[0] == "num" or t[0] == "neg" and t[1][0] == "num"

    return not used and literal(ta) != literal(tb)


def _congruence_link(ta, tb, left, right, modulus_tree, facts: Facts, text: str) -> Link:
    """A congruence with free names: valid when it holds at random integers; otherwise a
    statement about the names in the solution: not checked."""
    holds = congruence_holds(ta, tb, modulus_tree, facts, seed_of(text))
    if holds is None:
        return Link(left, "≡", right, None, "a congruence accord could not evaluate at integers")
    if not holds:
        return Link(left, "≡", right, None, "a congruence stating something about its names: not checked")
    return Link(left, "≡", right, True, "holds at random integers", 1.0)


def check_step(question: str, steps: tuple[str, ...], step: str, real: bool = False, following: str = "") -> list[Link]:
    """Verdicts on every link of ``step``, given the problem and the steps before it; ``following``
    (the next step, when known) may say the step is a contradiction ("This is impossible")."""
    return check_in(Carried.after(question, steps).reading(step), step, real, following)


def check_in(carried: Carried, step: str, real: bool = False, following: str = "") -> list[Link]:
    """:func:`check_step` with the context of the steps before carried along (``carried``, already
    :meth:`~Carried.reading` the step): the work does not grow with the number of earlier steps."""
    question = carried.question
    facts = carried.facts.copy()
    facts.step = carried.n
    after, role = carried.role(step, following or None)
    facts.scopes = frozenset(role.scopes)
    facts.in_force = carried.in_force(role)
    facts.cited = role.cites
    facts.claims = role.role in CLAIMING
    facts.absurd = role.absurdity
    facts.case = case_values(step)
    facts.clause = case_clause(step)
    facts.in_case = bool(facts.case) or any(kind == CASE for _, kind, _ in after.open) or says(step, "case")
    facts.positive = domain_sign(question) == "positive"
    links: list[Link] = []
    domain = None if conditional(step) else carried.domain()
    last = carried.last
    lead_in = last if last is not None and is_lead_in(last) else ""
    facts.claims = facts.claims and not _SUPPOSES.search(lead_in)  # "let's say the left side is a cube:"
    operated = [] if last is None else [carried.before_last, last] if lead_in and carried.n > 1 else [last]
    if lead_in or says(f"{lead_in}\n{step}", OPERATING):  # the step operates on the statements before
        facts.operated = role.cites or tuple(range(max(-1, carried.n - (2 if lead_in else 1)), carried.n))
    digits = carried.digits or "digit" in step.lower()
    if digits and any(digit_string(t) for t in operated if t):
        operated = []  # "aabb - 1100a - 11b = 0" read as a product: nothing to derive from
    case = case_values(step)  # "If y = 1, then ...": the values the step's case gives
    cues = (
        moduli_in(step),
        speaks_of_contradiction(step + "\n" + following),
        assumes(step),
        rewrite_context(step, lead_in),
        domain,
        quantified(step),
        transforms(step, lead_in) and not case,  # a case substitutes into an earlier equation instead
        carried.imaginary,
        (operated, carried.with_step_signs(step), step),
        cites_inequality(step, lead_in),
        residue_case(step),
    )
    for rem in remainder_statements(step):  # "100 ÷ 7 = 14 remainder 2": a = b·q + r, never a ÷ b = q
        links.append(Link(rem.text, "", "", rem.holds, rem.reason, float(rem.holds)))
    step_read = without_remainders(step)
    for eq in calculator_annotations(step):  # <<expr=value>>: checked exactly, never "at the precision written"
        links.append(
            Link(
                eq.claimed[0],
                "=",
                eq.claimed[1],
                eq.correct,
                "calculator annotation holds"
                if eq.correct
                else f"{eq.text} is wrong: {eq.claimed[0]} = "
                f"{show(eq.values[0]) if eq.values else 'undefined'}, not {eq.claimed[1]}",
                float(eq.correct),
            )
        )
    facts_said = number_facts(step) + last_digit_claims(step)  # "1977 is not divisible by 3", "... of 7^9 is 7"
    for fact in facts_said:
        links.append(Link(fact.text, "", "", fact.holds, fact.reason, float(fact.holds)))
    for claim in sequence_claims(question, step) + word_claims(question, step):  # "a_5 = 31", "a_n is increasing"
        links.append(Link(claim.text, "", "", claim.holds, claim.reason, float(claim.holds)))
    links.extend(_always(step, facts, cues[1], question))
    earlier = [eq for text in operated if text for eq in equations_in(text, facts)]
    ordered: list[str] = []  # the inequalities read so far in this step
    derives = bool(_DERIVES.search(step_read))
    for chain in read_chains(step_read):
        if digits and digit_string(chain.text):
            links.append(
                Link(chain.text, "", "", None, "a number written by its digits (abcd), not a product: not read")
            )
            continue
        found = [link for link in check_chain(chain, facts, real, cues) if not _bound_of(link, cues[5])]
        if ordered and derives:
            found = [_derived_within(link, ordered[-1], facts, cues) for link in found]
        found = [_as_solution(link, step_read, earlier, facts) for link in found]
        links.extend(
            _in_case(link, case, question, carried.texts[max(0, carried.n - CASE_REACH) : carried.n], facts)
            for link in found
        )
        earlier.extend(equations_in(chain.text, facts))
        if set(chain.relations) & set(_ORDER_RELATIONS) and not chain.continues:
            ordered.append(chain.text)
    for sentence, tuple_names, values in solutions_claimed(step_read):  # "(x, y) = (13, 4) are the solutions"
        verdict = solutions_check(tuple_names, values, equations_in(question, facts) + equations_in(sentence, facts))
        if verdict is not None:
            said = f"solutions ({', '.join(tuple_names)})"
            links.append(Link(said, "", "", verdict[0], verdict[1], float(verdict[0])))
    if not links and operated:  # "We can rewrite the expression as follows:" then the expression alone
        positive = domain is not None and domain.sign != "real"
        shown = rewritten_display(step_read, operated, lead_in, facts, seed_of(step), positive)
        if shown is not None:
            holds, why, old, new = shown
            links.append(Link(f"{old} rewritten as {new}", "", "", holds, why, float(holds)))
    end_of_step(step, facts)
    return links


_CONCLUDED = re.compile(
    r"\s*(?:[-*•]\s*)?(?:so|thus|hence|therefore|this\s+(?:implies|gives|means)|which\s+implies)\b", re.I
)


def _concluded(step: str) -> bool:
    """ "so a + b + c ≥ 2": the step opens by concluding from the one before."""
    return bool(_CONCLUDED.match(re.sub(r"^\W*\$?", "", step)))


_DERIVES = re.compile(
    r"\b(?:we\s+get|gets?|gives?|giving|implies|implying|which\s+means|means\s+that|so|thus|hence|therefore|"
    r"yields?|obtain|follows)\b",
    re.IGNORECASE,
)


def _derived_within(link: Link, before: str, facts: Facts, cues) -> Link:
    """ "From 1/(x+y) ≤ x, we get 1 ≤ x^2 + xy, which implies x ≥ 1": an unchecked inequality after
    another in the same step and words that derive it, checked as its consequence (the earlier one
    may have more names)."""
    if link.holds is not None or link.relation not in _ORDER_RELATIONS or len(cues) < 9 or cues[4] is None:
        return link
    try:
        ta, tb = parse_side(link.left, facts.functions)[0], parse_side(link.right, facts.functions)[0]
    except MathParseError:
        return link
    seed = seed_of(f"{before}|{link.left}|{link.right}")
    verdict = inequality_follows(
        link.relation, ta, tb, facts, cues[4], [before], cues[8][1], cues[8][2], seed, fewer_names=True
    )
    if verdict is None:
        return link
    why = verdict[1].replace("the inequality before it", "the inequality it is derived from")
    return Link(link.left, link.relation, link.right, verdict[0], why, float(verdict[0]))


def _as_solution(link: Link, step: str, earlier: list[tuple], facts: Facts) -> Link:
    """An unchecked ``y = 5`` the step concludes, checked in the equation it was found from."""
    if link.holds is not None or link.relation != "=":
        return link
    verdict = value_found(link.left, link.right, sentence_of(step, link.left, link.right), earlier, facts)
    if verdict is None:
        return link
    return Link(link.left, "=", link.right, verdict[0], verdict[1], float(verdict[0]))


def _in_case(link: Link, case: dict[str, int], question: str, before: list[str], facts: Facts) -> Link:
    """An unchecked equation in the case the step opens with, checked with the case's values put in
    (:mod:`accord.mathcheck.checks._case_steps`). A contradiction the step goes on to speak of ("but x
    is not an integer") is about the case, not a licence for a wrong equation."""
    if not case or link.holds is not None or link.relation != "=" or not link.reason.startswith("an equation stating"):
        return link
    try:
        ta, tb = parse_side(link.left, facts.functions)[0], parse_side(link.right, facts.functions)[0]
    except MathParseError:
        return link
    verdict = in_case(ta, tb, case, question, list(before), facts, seed_of(f"{link.left}|{link.right}"))
    if verdict is None:
        return link
    return Link(link.left, "=", link.right, verdict[0], verdict[1], float(verdict[0]))


def _always(step: str, facts: Facts, contradiction: bool = False, question: str = "") -> list[Link]:
    """ "n^2 is always even": checked on the smallest cases (:mod:`accord.mathcheck.checks._quantifiers`);
    "2^x must be a multiple of 3", said of particular values, only when every integer gives the
    same answer, and not when the step (or the next) says it is a contradiction."""
    out = []
    for claim in always_claims(step):
        try:
            tree = parse_side(claim.subject, facts.functions)[0]
        except MathParseError:
            continue
        free = free_names(tree, facts)
        if any(name.endswith("()") for name in free):
            continue
        domains = claim.domains or dict.fromkeys(free, "positive")
        if claim.prime:
            verdict = prime_check(tree, facts, domains)
            if verdict is not None:
                out.append(Link(claim.text, "", "", verdict[0], f"{claim.text}: {verdict[1]}", float(verdict[0])))
            continue
        if claim.plain:
            verdict = whatever_the_value(tree, claim.residue, claim.modulus, facts)
            if verdict is not None and not verdict[0] and contradiction:
                continue  # derived on purpose, to be refuted
        else:
            verdict = universal_check(
                "≡", tree, ("num", Fraction(claim.residue), 0), ("num", Fraction(claim.modulus), 0), facts, domains
            )
        if verdict is not None:
            out.append(Link(claim.text, "", "", verdict[0], f"{claim.text}: {verdict[1]}", float(verdict[0])))
    for never in never_claims(step):  # "9 + b^2 can never be a perfect square": one value refutes it
        try:
            tree = parse_side(never.subject, facts.functions)[0]
        except MathParseError:
            continue
        verdict = never_check(tree, never.kind, facts, search_values(question))
        if verdict is not None and not contradiction:
            out.append(Link(never.text, "", "", verdict[0], f"{never.text}: {verdict[1]}", float(verdict[0])))
    for res in residue_claims(step):
        try:
            tree = parse_side(res.subject, facts.functions)[0]
        except MathParseError:
            continue
        verdict = residue_check(tree, res.modulus, res.claimed, facts)
        if verdict is not None:
            out.append(Link(res.text, "", "", verdict[0], f"{res.text}: {verdict[1]}", float(verdict[0])))
    return out


def _bound_of(link: Link, domains: dict[str, str]) -> bool:
    """ "n ≥ 3" in "… for all n ≥ 3": the quantifier's own range, not a claim of the step."""
    kind = domains.get(link.left.strip().strip("$"))
    return bool(
        kind and kind.startswith("≥") and link.relation in ("≥", ">") and re.fullmatch(r"-?\d+", link.right.strip())
    )


_EXCUSED = ("equal modulo", "false as the step itself says")


def step_verdict(links: list[Link], real: bool = False) -> tuple[float | None, str]:
    """A judge's score for a step: 0 with the first false link's evidence, 1 if every checked link
    holds and so does the step's last relation (its conclusion: a step whose side computations
    hold but whose conclusion was not checked is not valid), None (with the reasons) otherwise."""
    checked = [ln for ln in links if ln.holds is not None]
    false = [ln for ln in checked if ln.holds is False]
    if false:
        if real:
            worst = min(false, key=lambda ln: ln.score if ln.score is not None else 0.0)
            score = worst.score if worst.score is not None else 0.0
            return score, worst.reason
        return 0.0, false[0].reason
    if checked and links[-1].holds is None and not links[-1].reason.startswith(_EXCUSED):
        last = links[-1]
        return None, (
            f"the step's conclusion {last.text} was not checked ({last.reason}); only side relations hold: "
            + "; ".join(ln.text for ln in checked[:3])
            + (" ..." if len(checked) > 3 else "")
        )
    if checked:
        return 1.0, f"{len(checked)} relation(s) hold: " + "; ".join(
            f"{ln.text} ({ln.reason})" for ln in checked[:3]
        ) + (" ..." if len(checked) > 3 else "")
    if not links:
        return None, "no checkable claim (no relation found)"
    reasons = list(dict.fromkeys(f"{ln.text}: {ln.reason}" for ln in links))
    return None, "no checkable claim: " + "; ".join(reasons[:3]) + (" ..." if len(reasons) > 3 else "")


def solution_check(
    question: str, steps: list[str], step: str, real: bool = False, following: str = ""
) -> tuple[float | None, str]:
    """The judge-facing entry point (runs in a time-limited worker).

    A lead-in (a step ending in ":") and the display after it are one claim, attributed to the
    lead-in, as annotators do: when the next line has a false relation, so has the lead-in; a
    lead-in with nothing checkable of its own takes the next line's verdict. The steps before are
    checked too, in order, so that a step they refute is no premise of this one (a carried context,
    :func:`carried_verdict`, does this once per step)."""
    with mpmath.workdps(60):
        steps = list(steps)
        carried = Carried.start(question, frozenset(applied_names(question)).union(*map(applied_names, steps)))
        for k, s in enumerate(steps):
            _, carried = carried_verdict(carried.reading(s), s, real, steps[k + 1] if k + 1 < len(steps) else step)
        return carried_verdict(carried.reading(step), step, real, following)[0]


def carried_verdict(
    carried: Carried, step: str, real: bool = False, following: str = ""
) -> tuple[tuple[float | None, str], Carried]:
    """:func:`solution_check` on a carried context (already reading ``step``), with the context
    after the step."""
    with mpmath.workdps(60):
        verdict = step_verdict(check_in(carried, step, real, following), real=real)
        after = carried.advance(step, following or None, verdict[0] == 0.0)
        if verdict[0] == 0.0 or not is_lead_in(step) or not following.strip() or opens_case(following):
            return verdict, after  # a lead-in to a list of cases ("by the following cases:") announces no display
        shown = step_verdict(check_in(after.reading(following), following, real, ""), real=real)
        if shown[0] is not None and (shown[0] < 0.5 or verdict[0] is None):
            return (shown[0], f"the claim of the next line: {shown[1]}"), after
        return verdict, after
