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
read or decide is ``None`` with the reason. ``mode="float"`` repeats the same reading in
floating point at random real points and scores the share of points where a rewriting holds.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from accord.adapters.math.context import (
    Facts,
    closed_value,
    end_of_step,
    facts_after,
    functions_of,
    parse_side,
    record,
    side_trees,
    subject_key,
)
from accord.adapters.math.cues import assumes, moduli_in, speaks_of_contradiction
from accord.adapters.math.evaluate import (
    EvaluationError,
    NotExact,
    TooLarge,
    Undefined,
    Unknown,
    approx,
    exact,
    uses_bare_log,
)
from accord.adapters.math.parser import MathParseError, children, names, parse, to_text
from accord.adapters.math.reader import Chain, read_chains

N_POINTS = 6
N_FLOAT_POINTS = 16
_TOL_DIGITS = 30  # approximate values equal to this many digits count as equal


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


def _fmt(v) -> str:
    if isinstance(v, Fraction):
        if max(v.numerator.bit_length(), v.denominator.bit_length()) > 100:  # over 30 digits
            digits = len(str(abs(v.numerator)))
            return f"{mpmath.nstr(_as_mp(v), 8)} (a {digits}-digit number)" if v.denominator == 1 else mpmath.nstr(_as_mp(v), 12)
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return mpmath.nstr(v, 12)




def _decimals(tree) -> int:
    """Decimals of a side written as a plain decimal number (0 otherwise)."""
    if tree[0] == "neg":
        tree = tree[1]
    return tree[2] if tree[0] == "num" else 0


def _as_mp(v):
    return mpmath.mpf(v.numerator) / v.denominator if isinstance(v, Fraction) else mpmath.mpf(v)


def _close(a, b, digits: int = _TOL_DIGITS) -> bool | None:
    """Equal (True), different (False) or too close to tell (None) for approximate values."""
    a, b = _as_mp(a), _as_mp(b)
    scale = max(mpmath.mpf(1), abs(a), abs(b))
    d = abs(a - b) / scale
    if d <= mpmath.mpf(10) ** (-digits):
        return True
    if d > mpmath.mpf(10) ** (-(digits // 2)):
        return False
    return None


def approximately(a, b, ta, tb) -> bool:
    """``a ≈ b``: within one unit of the last written decimal of a bare-number side (``≈ 3.14``
    allows 0.01), or of the last non-zero digit of an integer side (``≈ 1000`` allows 1000), or
    within 1% when neither side is a bare number."""
    tol = None
    for tree in (ta, tb):
        t = tree[1] if tree[0] == "neg" else tree
        if t[0] == "num":
            if t[2] > 0:
                unit = Fraction(1, 10 ** t[2])
            else:
                n, zeros = t[1].numerator, 0
                while n and n % 10 == 0:
                    n, zeros = n // 10, zeros + 1
                unit = Fraction(10**zeros)
            tol = unit if tol is None else max(tol, unit)
    fa, fb = _as_mp(a), _as_mp(b)
    if tol is None:
        return abs(fa - fb) <= mpmath.mpf("0.01") * max(abs(fa), abs(fb))
    return abs(fa - fb) <= _as_mp(tol)


def _literal_decimals(tree) -> int:
    """The most decimals of any number written in a tree."""
    if tree[0] == "num":
        return tree[2]
    if tree[0] == "name":
        return 0
    return max((_literal_decimals(c) for c in children(tree)), default=0)


def _nudged(tree, sign: int):
    """The tree with every written decimal moved by one unit of its last digit."""
    if tree[0] == "num":
        return ("num", tree[1] + sign * Fraction(1, 10 ** tree[2]), tree[2]) if tree[2] else tree
    if tree[0] == "name":
        return tree
    if tree[0] in ("add", "mul"):
        return (tree[0], tuple(_nudged(c, sign) for c in tree[1]))
    if tree[0] in ("call", "apply"):
        return (tree[0], tree[1], tuple(_nudged(c, sign) for c in tree[2]))
    return (tree[0],) + tuple(_nudged(c, sign) for c in tree[1:])


def _rounded_or_cut(v, d: int):
    x = _as_mp(v) * 10**d
    return {Fraction(int(mpmath.nint(x)), 10**d), Fraction(int(x), 10**d)}


def written_precision(ta, tb, va, vb, look) -> bool:
    """Equal at the precision the solution wrote: a bare decimal side is the other side rounded or
    cut to its decimals; a side computed from written decimals (2.923, a rounded value) may be off
    by what moving each of them one unit in its last digit changes."""
    for t, other, v in ((ta, vb, va), (tb, va, vb)):
        d = _decimals(t)
        if d and isinstance(v, Fraction) and v in _rounded_or_cut(other, d):
            return True
    inner = [t for t in (ta, tb) if _literal_decimals(t) and not _decimals(t)]  # decimals inside an expression
    if look is None or not inner:
        return False
    spans = []
    for t, v in ((ta, va), (tb, vb)):
        vals = [_as_mp(v)]
        for sign in (-1, 1):
            try:
                vals.append(_as_mp(_value(_nudged(t, sign), look)))
            except (EvaluationError, ArithmeticError, ValueError):
                return False
        spans.append((min(vals), max(vals)))
    (lo_a, hi_a), (lo_b, hi_b) = spans
    return lo_a <= hi_b and lo_b <= hi_a


def _compare(rel: str, a, b, ta, tb, modulus, look=None) -> bool | None:
    if rel == "≈":
        return approximately(a, b, ta, tb)
    if rel == "≡":
        if modulus is None or not all(isinstance(v, Fraction) and v.denominator == 1 for v in (a, b, modulus)):
            return None
        return modulus != 0 and (a - b) % modulus == 0
    exact_pair = isinstance(a, Fraction) and isinstance(b, Fraction)
    if rel in ("=", "≠"):
        if exact_pair:
            eq = a == b
        else:
            eq = _close(a, b)
            if eq is None:
                return None
        if not eq and written_precision(ta, tb, a, b, look):
            eq = True
        return eq if rel == "=" else not eq
    if not exact_pair and _close(a, b) is not False:
        return None  # an inequality between (nearly) equal approximations: not decided
    fa, fb = (a, b) if exact_pair else (_as_mp(a), _as_mp(b))
    return {"<": fa < fb, "≤": fa <= fb, ">": fa > fb, "≥": fa >= fb}[rel]


class _Point:
    """A random point: free names and unknown applied values get random numbers, memoised."""

    def __init__(self, facts: Facts, rng: random.Random, real: bool, fixed: dict | None = None,
                 definitions: bool = False, depth: int = 0, integers: bool = False):
        self.facts, self.rng, self.real = facts, rng, real
        self.assigned: dict[str, object] = dict(fixed or {})
        self.definitions = definitions
        self.depth = depth
        self.integers = integers  # factorials, binomials, mod: random positive integers

    def draw(self):
        if self.integers:
            return Fraction(self.rng.randint(2, 60))
        if self.real:
            return mpmath.mpf(self.rng.choice([-1, 1]) * self.rng.uniform(0.3, 3.0))
        return Fraction(self.rng.choice([-1, 1]) * self.rng.randint(11, 97), self.rng.randint(7, 31))

    def __call__(self, name: str):
        if name in self.assigned:
            return self.assigned[name]
        try:
            return self.facts.value(name)
        except Unknown:
            pass
        if self.definitions and name in self.facts.definitions and self.depth < 4:
            inner = _Point(self.facts, self.rng, self.real, self.assigned, True, self.depth + 1, self.integers)
            v = _value(self.facts.definitions[name], inner)
            self.assigned.update(inner.assigned)
        else:
            v = self.draw()
        self.assigned[name] = v
        return v


def _value(tree, look):
    try:
        return exact(tree, look)
    except NotExact:
        return approx(tree, look)


def _free(tree, facts: Facts) -> set[str]:
    """Names without a value in the facts, and ``f()`` for every function the tree applies."""
    out = set()
    for n in names(tree):
        try:
            facts.value(n)
        except Unknown:
            out.add(n)
    stack = [tree]
    while stack:
        t = stack.pop()
        if t[0] == "apply":
            out.add(t[1] + "()")
        stack.extend(children(t))
    return out


def _agree(a, b, real: bool) -> bool:
    if not real and isinstance(a, Fraction) and isinstance(b, Fraction):
        return a == b
    return _close(a, b, 9 if real else _TOL_DIGITS) is True


_INTEGER_ONLY = {"fact", "mod"}
_INTEGER_CALLS = {"binom", "factorial", "gcd", "lcm"}


def integer_only(tree) -> bool:
    """The tree uses an operation defined on integers only (n!, binomials, mod, gcd)."""
    if tree[0] in _INTEGER_ONLY or tree[0] == "call" and tree[1] in _INTEGER_CALLS:
        return True
    return any(integer_only(c) for c in children(tree))


def _holds_at_points(ta, tb, facts: Facts, seed: int, real: bool, definitions: bool, solve=None, n=N_POINTS,
                     stop: bool = False):
    """(agreeing points, defined points, first disagreeing point) of ``a = b`` at random points
    (random positive integers when a side needs integers); with ``stop``, it returns at the first
    disagreement."""
    rng = random.Random(seed)
    good, defined, witness = 0, 0, None
    integers = integer_only(ta) or integer_only(tb)
    for _ in range(n):
        look = _Point(facts, rng, real and not integers, definitions=definitions, integers=integers)
        try:
            if solve is not None and not solve(look):
                continue
            a, b = _value(ta, look), _value(tb, look)
        except (Undefined, ZeroDivisionError, ValueError, ArithmeticError):
            continue
        defined += 1
        if _agree(a, b, real):
            good += 1
        elif witness is None:
            witness = (dict(look.assigned), a, b)
            if stop:
                break
    return good, defined, witness


def _identity(ta, tb, facts, seed, definitions=False, solve=None) -> bool:
    good, defined, _ = _holds_at_points(ta, tb, facts, seed, False, definitions, solve, stop=True)
    return defined >= 3 and good == defined


def _explained(ta, tb, facts: Facts, seed: int, recent: bool = False) -> str | None:
    """Why a non-identity still holds given what came before (a reason), or None; ``recent``:
    only equations of this step and the one before."""
    link_names = names(ta) | names(tb)
    for left, right, at in reversed(facts.equations):
        if recent and at < facts.step - 1:
            break
        for x in sorted((names(left) | names(right)) & link_names):
            try:
                if _identity(ta, tb, facts, seed, solve=_linear_solver((left, right), x, facts)):
                    where = "the problem" if at < 0 else f"step {at + 1}"
                    return f"follows from {to_text(left)} = {to_text(right)} ({where}) solved for {x}"
            except EvaluationError:
                continue
    return None


def _symbolic_link(ta, tb, facts: Facts, rewriting: bool, real: bool, text: str) -> tuple[bool | None, str, float | None]:
    seed = _seed(text)
    good, defined, _ = _holds_at_points(ta, tb, facts, seed, real, definitions=False,
                                        n=N_FLOAT_POINTS if real else N_POINTS, stop=not real)
    if defined < 3 and good == defined:
        return None, "undefined at most points (a domain problem)", None
    if good == defined:
        return True, f"holds at {defined} random points", 1.0
    share = good / defined if real else None
    if facts.definitions and _identity(ta, tb, facts, seed, definitions=True):
        return True, "holds with the definitions made earlier", 1.0
    if not rewriting:
        why = _explained(ta, tb, facts, seed, recent=True)
        if why is not None:
            return True, why, 1.0
        return None, "an equation stating something (not an identity, not checked)", None
    free_a, free_b = _free(ta, facts), _free(tb, facts)
    if free_a != free_b or not free_a:
        return None, "not an identity, and it brings in other names: not checked", None
    if any(n.endswith("()") for n in free_a):
        return None, "not an identity for every function; not checked", None
    why = _explained(ta, tb, facts, seed)
    if why is not None:
        return True, why, 1.0
    plain = sorted(free_a)
    small = _small_counterexample(ta, tb, facts, plain)
    if small is None:
        return None, "not an identity, but it holds at small positive integers (it may depend on the domain): not checked", None
    pt, a, b = small
    at = ", ".join(f"{k} = {_fmt(v)}" for k, v in sorted(pt.items()))
    if share is None:
        share = 0.0
    return False, (f"{to_text(ta)} = {to_text(tb)} is not an identity: at {at} the left side is {_fmt(a)}, the right "
                   f"side {_fmt(b)}" + (" (nor does it follow from the equations before it)" if facts.equations else "")), share


def _linear_solver(eq, x: str, facts: Facts):
    """At a point, set x so that the equation ``eq = (left, right)`` holds, if it is affine in x."""
    left, right = eq

    def solve(look: _Point) -> bool:
        g = []
        for t in (Fraction(0), Fraction(1), Fraction(2)):
            look.assigned[x] = t
            g.append(exact(left, look) - exact(right, look))
        slope = g[1] - g[0]
        if slope == 0 or g[2] - g[1] != slope:
            return False
        look.assigned[x] = -g[0] / slope
        return True

    return solve


def _small_counterexample(ta, tb, facts: Facts, free: list[str]):
    """A point with small positive integers where the sides differ, for the evidence."""
    pools = [[2, 3, 5, 7, 11, 13], [3, 2, 7, 5, 13, 11], [2, 5, 3, 11, 7, 13], [4, 3, 6, 5, 8, 7]]
    for pool in pools:
        fixed = {n: Fraction(pool[i % len(pool)] + 10 * (i // len(pool))) for i, n in enumerate(free)}
        look = _Point(facts, random.Random(0), False, fixed)
        try:
            a, b = _value(ta, look), _value(tb, look)
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if not _agree(a, b, False):
            return {k: v for k, v in look.assigned.items() if k in fixed}, a, b
    return None


def _seed(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


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

    return _value(tree, look), used


def _with_values(used: list[str], facts: Facts) -> str:
    if not used:
        return ""
    parts = []
    for n in dict.fromkeys(used):
        at = facts.origin(n)
        where = "the problem" if at < 0 else f"step {at + 1}"
        parts.append(f"{n} = {_fmt(facts.value(n))} from {where}")
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
    ok = _compare(rel, va, vb, ta, tb, modulus, facts.value)
    if ok is None:
        return None, "the two sides are too close to tell apart at 50 digits" if rel != "≡" else "a congruence of non-integers"
    if ok:
        return True, f"holds: both sides are {_fmt(va)}" if rel == "=" else "holds"
    if alternative is not None and alternative():
        return True, "holds when read the other way (1/2x as 1/(2x), x^1/3 as x^(1/3), log as log base 10)"
    lhs, rhs = to_text(ta), to_text(tb)
    what = {"=": "", "≡": f" (mod {_fmt(modulus)})"}.get(rel, "")
    if rel == "=" and tb[0] == "num":
        detail = f"the left side is {_fmt(va)}"
    elif rel == "=" and ta[0] == "num":
        detail = f"the right side is {_fmt(vb)}"
    elif rel == "≡":
        detail = f"the left side is {_fmt(va % modulus)}, the right side {_fmt(vb % modulus)} (mod {_fmt(modulus)})"
    else:
        detail = f"the left side is {_fmt(va)}, the right side {_fmt(vb)}"
    return False, f"{lhs} {rel} {rhs}{what} is false: {detail}{_with_values(used, facts)}"


def _alternative(side_texts, rel, facts, modulus_tree) -> "callable":
    """The other reading of ambiguous notation, evaluated on demand."""
    def holds() -> bool:
        try:
            ta = parse(side_texts[0], facts.functions, implicit_first=True)[0]
            tb = parse(side_texts[1], facts.functions, implicit_first=True)[0]
            for base in (None, 10):
                va = approx(ta, facts.value, base) if base else closed_value(ta, facts)
                vb = approx(tb, facts.value, base) if base else closed_value(tb, facts)
                modulus = closed_value(modulus_tree, facts) if modulus_tree is not None else None
                if _compare(rel, va, vb, ta, tb, modulus):
                    return True
        except (EvaluationError, MathParseError, ArithmeticError, ValueError):
            return False
        return False
    return holds


def check_chain(chain: Chain, facts: Facts, real: bool = False, cues=(frozenset(), False, False)) -> list[Link]:
    """Verdicts on every link of one chain; records what the chain establishes into ``facts``.

    ``cues``: the moduli the step mentions, whether it speaks of a contradiction, and whether it
    assumes or defines (then a rewriting that is not an identity is a supposition, not checked)."""
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
        links.append(_check_link(rel, ta, tb, left, right, facts, rewriting, real, modulus_tree,
                                 i == 0 and subject is not None,
                                 ({i, i + 1} & ambiguous or uses_bare_log(ta) or uses_bare_log(tb)),
                                 chain.text, cues))
    record(chain, trees, facts)
    return links


def _check_link(rel, ta, tb, left, right, facts, rewriting, real, modulus_tree, is_subject, ambiguous, text,
                cues) -> Link:
    values = rel in ("=", "≈", "≡")  # an inequality with a name is a condition ("if d > 1"), not a claim
    try:
        (va, used_a), (vb, used_b) = _closed(ta, facts, values), _closed(tb, facts, values)
    except TooLarge as exc:
        return Link(left, rel, right, None, str(exc))
    except Undefined as exc:
        return Link(left, rel, right, None, f"undefined: {exc}")
    except Unknown:
        if rel == "≡" and modulus_tree is not None:
            return _congruence_identity(ta, tb, left, right, modulus_tree, facts, text)
        if rel != "=":
            return Link(left, rel, right, None, "a relation between expressions with free names: not checked")
        try:
            holds, reason, share = _symbolic_link(ta, tb, facts, rewriting, real, f"{text}|{left}|{right}")
        except TooLarge as exc:
            return Link(left, rel, right, None, str(exc))
        except EvaluationError as exc:
            return Link(left, rel, right, None, f"cannot evaluate it: {exc}")
        return Link(left, rel, right, holds, reason, share if real else None)
    except (EvaluationError, ArithmeticError, ValueError) as exc:
        return Link(left, rel, right, None, f"cannot evaluate it: {exc}")
    if is_subject and used_a:
        same = _compare("=", va, vb, ta, tb, None)
        if not same:
            return Link(left, rel, right, None, f"gives {left} a new value (earlier {_fmt(va)})")
    alt = _alternative((left, right), rel, facts, modulus_tree) if ambiguous else None
    holds, reason = _closed_link(rel, ta, tb, va, vb, used_a + used_b, facts, modulus_tree, alt)
    if holds is False:
        moduli, contradiction, _ = cues
        if rel == "=" and all(isinstance(v, Fraction) and v.denominator == 1 for v in (va, vb)):
            for m in sorted(moduli):
                if (va - vb) % m == 0:
                    return Link(left, rel, right, None, f"equal modulo {m} (the step works modulo {m}): read as a congruence")
        if contradiction:
            return Link(left, rel, right, None, f"false as the step itself says (a contradiction): {reason}")
    return Link(left, rel, right, holds, reason, None if holds is None else float(holds))


def _congruence_identity(ta, tb, left, right, modulus_tree, facts: Facts, text: str) -> Link:
    """``a ≡ b (mod n)`` with free names: valid when it holds at random integers (Fermat's
    ``a^5 ≡ a (mod 5)``); otherwise a statement about the names in the solution: not checked."""
    rng = random.Random(_seed(text))
    tried = 0
    for _ in range(N_POINTS):
        look = _Point(facts, rng, False, integers=True)
        try:
            a, b, m = exact(ta, look), exact(tb, look), exact(modulus_tree, look)
        except (EvaluationError, ArithmeticError, ValueError):
            continue
        if not all(v.denominator == 1 for v in (a, b, m)) or m == 0:
            continue
        tried += 1
        if (a - b) % m:
            return Link(left, "≡", right, None, "a congruence stating something about its names: not checked")
    if tried < 3:
        return Link(left, "≡", right, None, "a congruence accord could not evaluate at integers")
    return Link(left, "≡", right, True, f"holds at {tried} random integers", 1.0)


def check_step(question: str, steps: tuple[str, ...], step: str, real: bool = False, following: str = "") -> list[Link]:
    """Verdicts on every link of ``step``, given the problem and the steps before it; ``following``
    (the next step, when known) may say the step is a contradiction ("This is impossible")."""
    functions = functions_of(question, tuple(steps) + (step,))
    facts = facts_after(question, tuple(steps), functions).copy()
    facts.step = len(steps)
    links: list[Link] = []
    cues = (moduli_in(step), speaks_of_contradiction(step + "\n" + following), assumes(step))
    for chain in read_chains(step):
        links.extend(check_chain(chain, facts, real, cues))
    end_of_step(step, facts)
    return links


def step_verdict(links: list[Link], real: bool = False) -> tuple[float | None, str]:
    """A judge's score for a step: 0 with the first false link's evidence, 1 if every checked link
    holds, None (with the reasons) if nothing could be checked."""
    checked = [ln for ln in links if ln.holds is not None]
    false = [ln for ln in checked if ln.holds is False]
    if false:
        if real:
            worst = min(false, key=lambda ln: ln.score if ln.score is not None else 0.0)
            score = worst.score if worst.score is not None else 0.0
            return score, worst.reason
        return 0.0, false[0].reason
    if checked:
        return 1.0, f"{len(checked)} relation(s) hold: " + "; ".join(
            f"{ln.text} ({ln.reason})" for ln in checked[:3]) + (" ..." if len(checked) > 3 else "")
    if not links:
        return None, "no checkable claim (no relation found)"
    reasons = list(dict.fromkeys(f"{ln.text}: {ln.reason}" for ln in links))
    return None, "no checkable claim: " + "; ".join(reasons[:3]) + (" ..." if len(reasons) > 3 else "")


def solution_check(question: str, steps: list[str], step: str, real: bool = False, following: str = "") -> tuple[float | None, str]:
    """The judge-facing entry point (runs in a time-limited worker)."""
    with mpmath.workdps(60):
        return step_verdict(check_step(question, tuple(steps), step, real, following), real=real)

