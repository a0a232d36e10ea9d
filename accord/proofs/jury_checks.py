"""Checks of the jury law's key identities (group ``jury``; run with ``accord prove --group jury``).

1. E[(1 - p)^M] for p ~ Beta(α, β) is the rising-factorial ratio (β)_M / (α + β)_M, M symbolic —
   the factor of the unanimous-wrong floor, as :func:`accord.consensus_core.jury._law.beta_moment` computes it.
2. With α = a k, β = (1 - a) k and k = 1/ρ − 1, the mean accuracy is a and the error correlation of
   two members (independent given p) is exactly ρ.
3. The closed-form accuracy, floor and unanimous accuracy equal a brute-force sum over every
   answer pattern of M members (exact rationals, M = 2..5, several attractor profiles).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp

from accord.proofs.registry import CHECKED_NUMERICALLY, PROVED, Result, register_claim

JURY_REVIEW = "LLM-jury review (seeds/003), Eq. (1)"


@register_claim(
    "jury-beta-moment",
    "For p ~ Beta(α, β) and any M >= 0: E[(1 − p)^M] = B(α, β + M) / B(α, β) = Π_{i<M} (β + i)/(α + β + i).",
    group="jury",
    source=JURY_REVIEW,
)
def beta_moment_identity() -> Result:
    a, b = sp.symbols("alpha beta", positive=True)
    M = sp.Symbol("M", integer=True, nonnegative=True)
    p = sp.Symbol("p", positive=True)
    ratio = sp.beta(a, b + M) / sp.beta(a, b)
    product = sp.rf(b, M) / sp.rf(a + b, M)
    diff = sp.gammasimp(ratio.rewrite(sp.gamma) - product.rewrite(sp.gamma))
    if diff != 0:
        return Result("FAILED", f"B(α, β+M)/B(α, β) − (β)_M/(α+β)_M simplified to {diff}, not 0")
    ev = ["B(α, β+M)/B(α, β) = Γ(β+M)Γ(α+β) / (Γ(β)Γ(α+β+M)) = (β)_M / (α+β)_M, M symbolic (gammasimp)"]
    for al, be in ((sp.Integer(2), sp.Integer(3)), (sp.Integer(3), sp.Integer(1))):
        for m in range(1, 5):  # the integral definition itself, exact, for explicit α, β, M
            integral = sp.integrate((1 - p) ** m * p ** (al - 1) * (1 - p) ** (be - 1), (p, 0, 1))
            norm = sp.gamma(al) * sp.gamma(be) / sp.gamma(al + be)
            if sp.simplify(sp.gammasimp(integral / norm) - sp.rf(be, m) / sp.rf(al + be, m)) != 0:
                return Result("FAILED", f"the integral at α = {al}, β = {be}, M = {m} disagrees")
    ev.append("∫ (1−p)^M Beta(p; α, β) dp = (β)_M/(α+β)_M by exact integration, M = 1..4, (α, β) = (2, 3), (3, 1)")
    return Result(PROVED, "Beta moment of (1 − p)^M, symbolic M", ev)


@register_claim(
    "jury-correlation-parameter",
    "With p ~ Beta(a k, (1 − a) k), k = 1/ρ − 1, a member is right with probability a and two members "
    "(independent given p) have error correlation exactly ρ.",
    group="jury",
    source=JURY_REVIEW,
)
def correlation_parameter() -> Result:
    a, rho = sp.symbols("a rho", positive=True)
    k = 1 / rho - 1
    al, be = a * k, (1 - a) * k
    mean = al / (al + be)
    second = al * (al + 1) / ((al + be) * (al + be + 1))  # E[p^2]
    var = second - mean**2
    corr = var / (mean * (1 - mean))  # Cov(err_i, err_j) = Var(p); Var(err) = a(1 - a)
    ok_mean = sp.simplify(mean - a) == 0
    ok_corr = sp.simplify(corr - rho) == 0
    if not (ok_mean and ok_corr):
        return Result("FAILED", f"mean − a = {sp.simplify(mean - a)}, corr − ρ = {sp.simplify(corr - rho)}")
    return Result(
        PROVED,
        "mean a and error correlation ρ, a and ρ symbolic",
        [
            "E[p] = ak/(ak + (1−a)k) = a",
            "Cov(1−x_i, 1−x_j) = Var(p) = a(1−a)/(k+1)",
            "corr = 1/(k+1) = ρ for k = 1/ρ − 1",
        ],
    )


def _brute_force(a: Fraction, rho: Fraction, s: tuple[Fraction, ...], M: int) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (accuracy, floor, unanimous accuracy) by summing over every answer pattern."""
    k = 1 / rho - 1
    al, be = a * k, (1 - a) * k

    def moment(i: int, j: int) -> Fraction:  # E[p^i (1-p)^j]
        out = Fraction(1)
        for t in range(i):
            out *= (al + t) / (k + t)
        for t in range(j):
            out *= (be + t) / (k + i + t)
        return out

    s0 = 1 - sum(s)
    K = len(s)
    acc = floor = unan_ok = unan = Fraction(0)
    # each member: 0 = right, 1..K = attractor, K + 1 = an answer of its own
    for pattern in itertools.product(range(K + 2), repeat=M):
        c = pattern.count(0)
        prob = moment(c, M - c)
        for x in pattern:
            if 1 <= x <= K:
                prob *= s[x - 1]
            elif x == K + 1:
                prob *= s0
        if prob == 0:
            continue
        counts = [c] + [pattern.count(j) for j in range(1, K + 1)]
        own = pattern.count(K + 1)
        top = max(counts + ([1] if own else []))
        tied = sum(1 for x in counts if x == top) + (own if top == 1 else 0)
        if c == top and c > 0:
            acc += prob / tied
        if len(set(pattern)) == 1 and (pattern[0] != K + 1 or M == 1):
            if pattern[0] == 0:
                unan_ok += prob
            elif pattern[0] <= K:
                floor += prob
            unan += prob
    return acc, floor, unan_ok / unan


@register_claim(
    "jury-closed-forms",
    "The law's closed-form accuracy, unanimous-wrong floor Σ_j s_j^M E[(1−p)^M] and unanimous accuracy "
    "equal an exact sum over all answer patterns of the one-factor model (M = 2..5).",
    expect=CHECKED_NUMERICALLY,
    group="jury",
    source=JURY_REVIEW,
)
def closed_forms_vs_enumeration() -> Result:
    from accord.consensus_core.jury import predict

    cases = [
        (Fraction(7, 10), Fraction(3, 10), (Fraction(1, 5),), 3),
        (Fraction(1, 2), Fraction(1, 4), (Fraction(3, 10), Fraction(1, 10)), 4),
        (Fraction(2, 5), Fraction(1, 2), (Fraction(1, 2),), 5),
        (Fraction(3, 5), Fraction(1, 10), (Fraction(0),), 2),
    ]
    worst = 0.0
    ev = []
    for a, rho, s, M in cases:
        acc, fl, ua = _brute_force(a, rho, s, M)
        p = predict(float(a), float(rho), tuple(float(x) for x in s), M)
        dev = max(abs(p.accuracy - float(acc)), abs(p.floor - float(fl)), abs(p.unanimous_accuracy - float(ua)))
        worst = max(worst, dev)
        ev.append(
            f"a={a}, ρ={rho}, s={[str(x) for x in s]}, M={M}: exact accuracy {float(acc):.10f}, closed form "
            f"{p.accuracy:.10f}"
        )
    if worst > 1e-12:
        return Result("FAILED", f"closed forms differ from enumeration by {worst:.3g}", ev)
    ev.append(f"largest difference over {len(cases)} cases: {worst:.2e} (floating point)")
    return Result(CHECKED_NUMERICALLY, "closed forms = exhaustive enumeration (float vs exact rationals)", ev)
