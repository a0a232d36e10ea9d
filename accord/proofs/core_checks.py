"""Symbolic checks of the consensus core's properties (claims 1-10).

Where a property holds for every m the check proves it with m as a symbol (or with an argument
whose every algebraic step is checked by sympy for a symbolic m) and then, as a cross-check, for
explicit m = 2..8 with symbolic stubbornness values. Counterexamples are exact rationals.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from accord.consensus_core import consensus, influence_matrix
from accord.proofs import symbolic as sym
from accord.proofs.audit import PAPER
from accord.proofs.registry import PROVED, REFUTED, Erratum, Result, register_claim

M_RANGE = range(2, 9)
PAPER_LAMBDAS = (sp.Rational(3, 2), sp.Integer(1), sp.Rational(4, 5))

m_ = sp.Symbol("m", integer=True, positive=True)  # m >= 2 wherever it is used
lam_ = sp.Symbol("lamda_i", positive=True)
r_ = sp.Symbol("r_i", real=True)
S_ = sp.Symbol("S", real=True)


def _w(lam, m=m_):
    return 1 / (m + (m - 1) * lam)


def _fail(msg: str, **data) -> Result:
    return Result("FAILED", msg, data=data)


# ----------------------------------------------------------------------------------- claim 1


@register_claim(
    "equilibrium-foc",
    "Each judge's objective u_i = −(s_i − Σ_j W_ij s_j)² − λ_i(s_i − r_i)² is strictly concave in s_i, and the "
    "first-order conditions of all judges together are exactly (I + Λ − W) s = Λ r.",
    source=f"{PAPER} §4 Eq. (1)-(3), §14",
)
def equilibrium_foc() -> Result:
    s, t = sp.symbols("s_i t", real=True)  # t = Σ_j W_ij s_j does not involve s_i (W_ii = 0)
    u = -((s - t) ** 2) - lam_ * (s - r_) ** 2
    du, d2u = sp.diff(u, s), sp.diff(u, s, 2)
    best = sp.solve(sp.Eq(du, 0), s)
    ev = [f"∂u_i/∂s_i = {sp.factor(du)}", f"∂²u_i/∂s_i² = {sp.factor(d2u)} < 0 for λ_i > 0"]
    if not (sp.simplify(d2u + 2 * (1 + lam_)) == 0 and d2u.is_negative):
        return _fail("second derivative is not −2(1+λ_i)")
    if len(best) != 1 or not sym.is_identity(best[0] - (t + lam_ * r_) / (1 + lam_)):
        return _fail(f"best response is {best}")
    ev.append(f"best response s_i = {best[0]} (Eq. (2)), i.e. (1+λ_i) s_i − Σ_j W_ij s_j = λ_i r_i")
    for m in M_RANGE:
        W = sym.generic_influence(m)
        lam, r = sym.lambdas(m), sym.raws(m)
        svec = sp.symbols(f"s1:{m + 1}", real=True)
        grads = []
        for i in range(m):
            pull = sum(W[i, j] * svec[j] for j in range(m))
            ui = -((svec[i] - pull) ** 2) - lam[i] * (svec[i] - r[i]) ** 2
            grads.append(sp.expand(sp.diff(ui, svec[i])))
        A, b = sp.linear_eq_to_matrix(grads, svec)
        want = -2 * sym.system_matrix(lam, W)
        if not sym.matrix_is_zero(A - want) or not sym.matrix_is_zero(
            b + 2 * sp.Matrix([lam[i] * r[i] for i in range(m)])
        ):
            return _fail(f"first-order conditions differ from (I+Λ−W)s = Λr at m = {m}")
    ev.append("m = 2..8 with a symbolic influence matrix: ∇ of the objectives = −2[(I+Λ−W)s − Λr]")
    ev.append(
        "strict concavity in each own score + the unique solution of the linear system (claim 2) = a unique equilibrium"
    )
    return Result(PROVED, "first-order conditions and strict concavity, general m", ev)


# ----------------------------------------------------------------------------------- claim 2


@register_claim(
    "matrix-diagonally-dominant",
    "I + Λ − W is strictly diagonally dominant (so invertible) for every row-stochastic W with zero diagonal and "
    "λ_i > 0; for symmetric W it is positive definite.",
    source=f"{PAPER} §13.2",
)
def diagonally_dominant() -> Result:
    rowsum = sp.Symbol("rho_i", nonnegative=True)  # Σ_{j≠i} |−W_ij| = Σ_j W_ij
    margin = (1 + lam_) - rowsum
    margin1 = margin.subs(rowsum, 1)
    if not (margin1 == lam_ and margin1.is_positive):
        return _fail(f"row margin is {margin1}")
    ev = ["row i: |1+λ_i| − Σ_{j≠i} |W_ij| = 1 + λ_i − 1 = λ_i > 0 (W ≥ 0, rows sum to 1): Levy–Desplanques"]
    for m in M_RANGE:
        lam = sym.lambdas(m)
        A = sym.system_matrix(lam)
        for i in range(m):
            off = sum(abs(A[i, j]) for j in range(m) if j != i)
            if sp.simplify(A[i, i] - off - lam[i]) != 0:
                return _fail(f"all-to-all row margin is not λ_i at m = {m}")
    ev.append("all-to-all, m = 2..8: every row margin equals λ_i exactly")
    # positive definiteness: x'(I − W)x = ½ Σ W_ij (x_i − x_j)² + Σ x_i² (1 − row sum_i) for symmetric W
    for m in M_RANGE:
        W = sym.generic_influence(m, symmetric=True)
        x = sp.symbols(f"x1:{m + 1}", real=True)
        X = sp.Matrix(x)
        quad = (X.T * (sp.eye(m) - W) * X)[0]
        sos = sp.Rational(1, 2) * sum(W[i, j] * (x[i] - x[j]) ** 2 for i in range(m) for j in range(m))
        rest = sum(x[i] ** 2 * (1 - sum(W[i, j] for j in range(m))) for i in range(m))
        if sp.expand(quad - sos - rest) != 0:
            return _fail(f"quadratic-form identity fails at m = {m}")
    ev.append(
        "symmetric W, m = 2..8 (identity checked by expansion; the same algebra holds for every m): "
        "x'(I+Λ−W)x = Σ λ_i x_i² + ½ Σ_ij W_ij (x_i − x_j)² > 0 for x ≠ 0 when rows sum to 1"
    )
    return Result(PROVED, "strict diagonal dominance (margin λ_i) and positive definiteness for symmetric W", ev)


# ----------------------------------------------------------------------------------- claim 3


@register_claim(
    "determinant-all-to-all",
    "For all-to-all influence det(I + Λ − W) = Π_i (m + (m−1)λ_i)/(m−1) · (1 − Σ_i w_i), w_i = 1/(m + (m−1)λ_i); "
    "for m = 3 it equals ¾(α+β+γ) + αβ + αγ + βγ + αβγ.",
    source=f"{PAPER} §13.2 Eq. (13)",
)
def determinant() -> Result:
    d_i = 1 + lam_ + 1 / (m_ - 1)  # A = D − 11ᵀ/(m−1) with D = diag(d_i)
    ev = []
    if not sym.is_identity(d_i - (m_ + (m_ - 1) * lam_) / (m_ - 1)):
        return _fail("diagonal of D is not (m + (m−1)λ)/(m−1)")
    if not sym.is_identity((1 / (m_ - 1)) / d_i - _w(lam_)):
        return _fail("(1/(m−1))/d_i is not w_i")
    ev.append("A = D − (1/(m−1))11ᵀ, D_ii = 1 + λ_i + 1/(m−1) = (m + (m−1)λ_i)/(m−1)   [symbolic m]")
    ev.append("matrix determinant lemma: det A = det D · (1 − (1/(m−1)) Σ 1/D_ii) = Π D_ii · (1 − Σ w_i)")
    for m in range(2, 7):
        lam = sym.lambdas(m)
        det = sym.system_matrix(lam).det(method="berkowitz")
        a = [m + (m - 1) * x for x in lam]  # Π a_i/(m−1) · (1 − Σ 1/a_i), cleared of denominators:
        formula = (sp.prod(a) - sum(sp.prod(a[:i] + a[i + 1 :]) for i in range(m))) / sp.Integer(m - 1) ** m
        if sp.expand(det - formula) != 0:
            return _fail(f"determinant formula fails at m = {m}")
    ev.append("explicit determinants equal the formula (expanded polynomials) for m = 2..6 with symbolic λ")
    a, b, c = sp.symbols("alpha beta gamma", positive=True)
    det3 = sym.system_matrix([a, b, c]).det()
    paper = sp.Rational(3, 4) * (a + b + c) + a * b + a * c + b * c + a * b * c
    if sp.expand(det3 - paper) != 0:
        return _fail(f"m = 3 determinant is {sp.expand(det3)}")
    ev.append(f"m = 3: det = {sp.expand(det3)} (the paper's Eq. (13))")
    ev.append("Σ w_i < 1 because w_i < 1/m, so det > 0")
    return Result(PROVED, "general m by the determinant lemma; m = 2..6 and m = 3 expanded", ev)


# ----------------------------------------------------------------------------------- claim 4


@register_claim(
    "closed-form-solves-system",
    "For all-to-all influence, w_i = 1/(m + (m−1)λ_i), S = (m−1) Σ λ_i w_i r_i / (1 − Σ w_i), "
    "s*_i = w_i S + (m−1) λ_i w_i r_i solves (I + Λ − W) s = Λ r for every m.",
    source=f"{PAPER} §13.3, §13.5 Eq. (21)",
)
def closed_form_solves() -> Result:
    s_i = _w(lam_) * S_ + (m_ - 1) * lam_ * _w(lam_) * r_
    row = (1 + lam_) * s_i - (S_ - s_i) / (m_ - 1) - lam_ * r_  # row i, using Σ_{j≠i} s_j = S − s_i
    if not sym.is_identity(row):
        return _fail("row equation is not satisfied")
    sigma, rho = sp.symbols("sigma rho", real=True)  # Σ w_i and Σ λ_i w_i r_i
    S_def = (m_ - 1) * rho / (1 - sigma)
    total = S_def * sigma + (m_ - 1) * rho  # Σ_i s*_i with S = S_def
    if not sym.is_identity(total - S_def):
        return _fail("Σ s*_i ≠ S")
    ev = [
        "row i with symbolic m, λ_i, r_i, S: (1+λ_i)s*_i − (S − s*_i)/(m−1) − λ_i r_i ≡ 0",
        "consistency: Σ_i s*_i = S Σw + (m−1)Σλwr = S exactly when S = (m−1)Σλwr/(1−Σw)",
    ]
    rng = np.random.default_rng(3)
    for m in M_RANGE:
        for _ in range(2):
            lam = [sp.Rational(int(rng.integers(1, 60)), int(rng.integers(1, 20))) for _ in range(m)]
            r = sym.raws(m)
            s = sym.closed_form(r, lam)
            res = sym.system_matrix(lam) * sp.Matrix(s) - sp.Matrix([li * ri for li, ri in zip(lam, r)])
            if not sym.matrix_is_zero(res):
                return _fail(f"closed form does not solve the system at m = {m}, λ = {lam}")
    ev.append("substituted into the m × m system for m = 2..8: symbolic r, two exact random λ vectors each")
    return Result(PROVED, "general m (row equation and consistency of S)", ev)


# ----------------------------------------------------------------------------------- claim 5


@register_claim(
    "consensus-in-convex-hull",
    "M = (I + Λ − W)⁻¹Λ is entrywise non-negative and row-stochastic, so every s*_i is a convex combination of the "
    "raw scores: min r ≤ s*_i ≤ max r (no clipping to [0, 1] is needed).",
    source="DESIGN.md; consensus core",
)
def convex_hull() -> Result:
    ev = []
    rowsum = sp.Symbol("rho_i")
    if sp.expand((1 + lam_) - rowsum).subs(rowsum, 1) != lam_:
        return _fail("A·1 ≠ λ")
    ev.append("A·1 = (1 + λ_i − Σ_j W_ij)_i = Λ·1, hence M·1 = A⁻¹Λ·1 = 1 (row-stochastic) for every m")
    # all-to-all: explicit entries of M from the closed form, general m
    lam_j = sp.Symbol("lamda_j", positive=True)
    sigma = sp.Symbol("sigma", positive=True)  # Σ w_k < 1
    off = _w(lam_) * (m_ - 1) * lam_j * _w(lam_j) / (1 - sigma)
    ev.append(f"all-to-all: M_ij = {off}  (+ (m−1)λ_i w_i on the diagonal); every factor > 0 since Σ w_k < 1")
    lp = PAPER_LAMBDAS
    Mp = sym.system_matrix(lp).inv() * sp.diag(*lp)
    wp = [_w(x, 3) for x in lp]
    for i in range(3):
        for j in range(3):
            e = wp[i] * 2 * lp[j] * wp[j] / (1 - sum(wp)) + (2 * lp[i] * wp[i] if i == j else 0)
            if sp.nsimplify(Mp[i, j] - e) != 0:
                return _fail(f"closed-form entry M_{i + 1}{j + 1} differs from the inverse")
    ev.append("the entry formula equals (I+Λ−W)⁻¹Λ exactly for m = 3, λ = (3/2, 1, 4/5)")
    # general W: A = (I+Λ)(I − P), P = (I+Λ)⁻¹W ≥ 0 with row sums 1/(1+λ_i) < 1 -> Neumann series
    m = 3
    W, lam = sym.generic_influence(m), sym.lambdas(m)
    D = sp.eye(m) + sp.diag(*lam)
    P = D.inv() * W
    if not sym.matrix_is_zero(D * (sp.eye(m) - P) - sym.system_matrix(lam, W)):
        return _fail("A ≠ (I+Λ)(I−P)")
    ev.append(
        "general W: A = (I+Λ)(I − P), P = (I+Λ)⁻¹W ≥ 0 with row sums 1/(1+λ_i) < 1, so ‖P‖∞ < 1 and "
        "A⁻¹ = Σ_k P^k (I+Λ)⁻¹ ≥ 0; M = A⁻¹Λ ≥ 0"
    )
    for mm in M_RANGE:
        lam = sym.lambdas(mm) if mm <= 3 else [sp.Rational(k + 1, 3) for k in range(mm)]
        Mx = sym.system_matrix(lam).inv() * sp.diag(*lam)
        if not all(sym.is_identity(sum(Mx.row(i)) - 1) for i in range(mm)):
            return _fail(f"rows of M do not sum to 1 at m = {mm}")
    ev.append("rows of M sum to 1 exactly: m = 2..3 with symbolic λ, m = 4..8 with exact λ")
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(200):
        mm = int(rng.integers(2, 9))
        lam = rng.uniform(0.05, 5.0, mm)
        W = rng.uniform(0, 1, (mm, mm)) * (rng.uniform(size=(mm, mm)) < 0.7)
        np.fill_diagonal(W, 0)
        for i in np.flatnonzero(W.sum(1) == 0):
            W[i, (i + 1) % mm] = 1.0
        W = W / W.sum(1, keepdims=True)
        Mn = influence_matrix(lam, W)
        r = rng.uniform(0, 1, mm)
        s = consensus(r, lam, W)
        worst = max(worst, float(-Mn.min()), float(s.max() - r.max()), float(r.min() - s.min()))
    ev.append(f"library cross-check, 200 random panels (m = 2..8, random W): worst hull violation {worst:.1e}")
    if worst > 1e-12:
        return _fail(f"library consensus leaves the convex hull by {worst}")
    return Result(
        PROVED, "row sums for every m; non-negativity by the Neumann series (any W) and closed form (all-to-all)", ev
    )


# ----------------------------------------------------------------------------------- claim 6


@register_claim(
    "weighted-sum-invariant",
    "Σ λ_i s*_i = Σ λ_i r_i for all-to-all influence (and any W whose columns also sum to 1), every m.",
    source=f"{PAPER} §13.4 Eq. (19)",
)
def weighted_invariant() -> Result:
    colsum = sp.Symbol("c_j")  # Σ_i W_ij
    col = (1 + lam_) - colsum
    ev = ["(1ᵀA)_j = 1 + λ_j − Σ_i W_ij = λ_j when columns sum to 1, so λᵀs* = 1ᵀA s* = 1ᵀΛr = λᵀr"]
    if col.subs(colsum, (m_ - 1) * (1 / (m_ - 1))) != lam_:
        return _fail("column sum of A is not λ_j")
    ev.append("all-to-all: Σ_i W_ij = (m−1)/(m−1) = 1 for symbolic m")
    for m in M_RANGE:
        lam = sym.lambdas(m)
        A = sym.system_matrix(lam)
        if not sym.matrix_is_zero(sp.ones(1, m) * A - sp.Matrix([lam])):
            return _fail(f"1ᵀA ≠ λᵀ at m = {m}")
    ev.append("1ᵀA = λᵀ exactly for m = 2..8 with symbolic λ")
    return Result(PROVED, "general m", ev)


@register_claim(
    "weighted-sum-invariant-any-W",
    "Σ λ_i s*_i = Σ λ_i r_i for every row-stochastic influence matrix W.",
    expect=REFUTED,
    source="consensus core (influence option)",
)
def weighted_invariant_any_w() -> Result:
    W = sp.Matrix([[0, 1, 0], [sp.Rational(1, 2), 0, sp.Rational(1, 2)], [1, 0, 0]])
    lam = [sp.Integer(1)] * 3
    r = [sp.Integer(1), sp.Integer(0), sp.Integer(0)]
    s = sym.system_matrix(lam, W).LUsolve(sp.Matrix([li * ri for li, ri in zip(lam, r)]))
    lhs, rhs = sum(li * si for li, si in zip(lam, s)), sum(li * ri for li, ri in zip(lam, r))
    if lhs == rhs:
        return _fail("counterexample did not break the invariant")
    ce = {
        "W": [[str(x) for x in W.row(i)] for i in range(3)],
        "lambdas": [1, 1, 1],
        "raw": [1, 0, 0],
        "consensus": [str(x) for x in s],
        "sum_lambda_s": str(lhs),
        "sum_lambda_r": str(rhs),
    }
    return Result(
        REFUTED,
        f"W row-stochastic but not column-stochastic: Σλs* = {lhs} ≠ Σλr = {rhs}",
        ["the invariant needs 1ᵀ(I − W) = 0, i.e. W doubly stochastic"],
        counterexample=ce,
    )


# ----------------------------------------------------------------------------------- claim 7


def _col_sum(lam_j, sigma, m=m_):
    """Σ_i M_ij for all-to-all influence, from the closed form."""
    return (m - 1) * lam_j * _w(lam_j, m) / (1 - sigma)


@register_claim(
    "mean-preserved-any-lambda",
    "The consensus preserves the unweighted mean, s̄* = r̄, for any stubbornness values λ_i.",
    expect=REFUTED,
    source=f"{PAPER} §4 (after Eq. (3); 'By construction, s̄* equals the raw mean')",
)
def mean_any_lambda() -> Result:
    r = [sp.Rational(9, 10), sp.Rational(2, 10), sp.Rational(9, 10)]
    st = sym.stats(r, PAPER_LAMBDAS)
    shift = st["mean"] - st["raw_mean"]
    if shift == 0:
        return _fail("no shift found")
    ev = [
        "s̄* − r̄ = (1/m) Σ_j (Σ_i M_ij − 1) r_j; for all-to-all Σ_i M_ij = (m−1)λ_j w_j/(1 − Σw), "
        "which is the same for every j only when λ_j w_j = λ_j/(m+(m−1)λ_j) is — i.e. only when all λ_j are equal",
        f"λ = (3/2, 1, 4/5), r = (0.9, 0.2, 0.9): r̄ = {st['raw_mean']}, s̄* = {st['mean']} ≈ {float(st['mean']):.4f}",
    ]
    e = Erratum(
        "§4: the mean consensus score equals the mean raw score, for any {λ_i} ('by construction, s̄* equals the raw "
        "mean'); §11.3/§11.4 rely on it",
        "Only the stubbornness-weighted sum is preserved: Σλ_i s*_i = Σλ_i r_i. The unweighted mean is preserved iff "
        "all "
        "λ_i are equal; with λ = (1.5, 1.0, 0.8) and r = (0.9, 0.2, 0.9), r̄ = 0.6667 but s̄* = "
        f"{float(st['mean']):.4f}.",
        PAPER,
        "mean-preserved-any-lambda",
    )
    return Result(
        REFUTED,
        f"shift s̄* − r̄ = {shift} ≈ {float(shift):+.4f}",
        ev,
        counterexample={
            "lambdas": [1.5, 1.0, 0.8],
            "raw": [0.9, 0.2, 0.9],
            "raw_mean": st["raw_mean"],
            "mean": st["mean"],
        },
        errata=[e],
    )


@register_claim(
    "mean-preserved-equal-lambda",
    "With equal stubbornness (λ_i = λ for all i) the unweighted mean is preserved: s̄* = r̄, for every m.",
    source=f"{PAPER} §13.4",
)
def mean_equal_lambda() -> Result:
    w = _w(lam_)
    col = _col_sum(lam_, m_ * w)
    if not sym.is_identity(col - 1):
        return _fail(f"column sum is {sp.simplify(col)}")
    ev = ["equal λ: Σ w = m w, every column of M sums to (m−1)λw/(1 − mw) ≡ 1 (symbolic m), so 1ᵀM = 1ᵀ"]
    for m in M_RANGE:
        M = sym.system_matrix([lam_] * m).inv() * sp.eye(m) * lam_
        if not sym.matrix_is_zero(sp.ones(1, m) * M - sp.ones(1, m)):
            return _fail(f"columns of M do not sum to 1 at m = {m}")
    ev.append("explicit M for m = 2..8 with symbolic λ: columns sum to 1")
    return Result(PROVED, "general m", ev)


# ----------------------------------------------------------------------------------- claim 8


@register_claim(
    "mean-shift-bound",
    "|s̄* − r̄| ≤ k · (1/m) Σ|s*_i − r_i| holds with the paper's factor k = (max λ − min λ)/min λ and with the "
    "smaller factor k = (max λ − min λ)/(max λ + min λ), which is tight (attained).",
    source=f"{PAPER} §13.4 Eq. (20)",
)
def mean_shift_bound() -> Result:
    kappa, rho = sp.symbols("kappa rho", positive=True)  # κ = max λ / min λ ≥ 1, ρ = P/N
    f = (rho - 1) / (rho + 1)
    ev = [
        "d_i = s*_i − r_i satisfies Σ λ_i d_i = 0 (claim 6). With P = Σ_{d_i>0} d_i, N = Σ_{d_i<0} |d_i|: "
        "min λ·P ≤ Σ_+ λ_i d_i = Σ_- λ_i |d_i| ≤ max λ·N and symmetrically, so ρ = P/N ∈ [1/κ, κ]",
        "|Σ d_i| / Σ|d_i| = |P − N|/(P + N) = |f(ρ)|, f(ρ) = (ρ−1)/(ρ+1)",
    ]
    if not (sp.simplify(sp.diff(f, rho) - 2 / (rho + 1) ** 2) == 0):
        return _fail("f' is not 2/(ρ+1)²")
    if not sym.is_identity(f.subs(rho, 1 / kappa) + f.subs(rho, kappa)):
        return _fail("f(1/κ) ≠ −f(κ)")
    ev.append("f' = 2/(ρ+1)² > 0 and f(1/κ) = −f(κ), so |f(ρ)| ≤ (κ−1)/(κ+1) = (max λ − min λ)/(max λ + min λ)")
    gap = sp.factor((kappa - 1) - (kappa - 1) / (kappa + 1))
    if not sym.is_identity(gap - kappa * (kappa - 1) / (kappa + 1)):
        return _fail("gap between factors")
    ev.append(f"paper's factor minus the tight one = {gap} ≥ 0 for κ ≥ 1: the paper's bound holds but is loose")
    # tightness: m = 2, any r1 ≠ r2, the ratio equals the tight factor exactly
    a, b = sp.symbols("a b", positive=True)  # λ1 = a + b > λ2 = b
    r1, r2 = sp.symbols("r1 r2", real=True)
    s = sym.closed_form([r1, r2], [a + b, b])
    d1, d2 = s[0] - r1, s[1] - r2
    t = b / (a + b)  # λ2/λ1 in (0, 1)
    if not sym.is_identity(d1 + t * d2):  # the invariant: d1 = −(λ2/λ1) d2, opposite signs
        return _fail("m = 2: d1 ≠ −(λ2/λ1) d2")
    # |d1 + d2| / (|d1| + |d2|) = |1 − t||d2| / ((1 + t)|d2|) = (1 − t)/(1 + t)
    if not sym.is_identity((1 - t) / (1 + t) - a / (a + 2 * b)):
        return _fail("m = 2 tightness")
    ev.append(
        "tight: m = 2, λ = (a+b, b): d1 = −(λ2/λ1) d2, so |Σd|/Σ|d| = (λ1 − λ2)/(λ1 + λ2) = a/(a+2b) exactly, "
        "for every r1 ≠ r2"
    )
    # m = 3, paper's λ: a raw vector with the middle judge's shift zero attains it too
    x = sp.Symbol("x", real=True)
    s3 = sym.closed_form([1, x, 0], PAPER_LAMBDAS)
    xs = sp.solve(sp.Eq(s3[1], x), x)
    r3 = [1, xs[0], 0]
    s3 = sym.closed_form(r3, PAPER_LAMBDAS)
    d = [si - ri for si, ri in zip(s3, r3)]
    att = sp.nsimplify(sp.Abs(sum(d)) / sum(sp.Abs(di) for di in d))
    tight = (PAPER_LAMBDAS[0] - PAPER_LAMBDAS[2]) / (PAPER_LAMBDAS[0] + PAPER_LAMBDAS[2])
    if att != tight:
        return _fail(f"m = 3 attainment gives {att}, expected {tight}")
    ev.append(
        f"m = 3, λ = (1.5, 1, 0.8), r = (1, {xs[0]}, 0): the ratio is {att} = 0.7/2.3 exactly (paper's factor: 0.875)"
    )
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(500):
        mm = int(rng.integers(2, 9))
        lam = rng.uniform(0.1, 4.0, mm)
        r = rng.uniform(0, 1, mm)
        sv = consensus(r, lam)
        dd = sv - r
        if np.abs(dd).sum() < 1e-12:
            continue
        k = (lam.max() - lam.min()) / (lam.max() + lam.min())
        worst = max(worst, abs(dd.sum()) / np.abs(dd).sum() - k)
    ev.append(f"library cross-check, 500 random panels: max(ratio − tight factor) = {worst:.1e}")
    if worst > 1e-9:
        return _fail("library violates the tight bound")
    e = Erratum(
        "§13.4 Eq. (20): |s̄* − r̄| ≤ (max λ − min λ)/min λ · (1/m)Σ|s*_i − r_i| (factor 0.875 for λ = (1.5, 1.0, 0.8))",
        "True but loose: the factor (max λ − min λ)/(max λ + min λ) also holds and is attained (0.304 for the paper's "
        "λ).",
        PAPER,
        "mean-shift-bound",
    )
    return Result(
        PROVED,
        "both factors hold for every m; the tight one is attained",
        ev,
        errata=[e],
        data={"paper_factor": 0.875, "tight_factor": float(tight)},
    )


# ----------------------------------------------------------------------------------- claim 9


@register_claim(
    "equal-lambda-dispersion",
    "With equal λ: s*_i − s̄* = (m−1)λ/((m−1)λ + m) · (r_i − r̄) for every m, so Δ* is a fixed multiple of the raw "
    "mean absolute deviation.",
    source="DESIGN.md",
)
def equal_lambda_dispersion() -> Result:
    w = _w(lam_)
    rbar = sp.Symbol("rbar", real=True)
    s_i = w * S_ + (m_ - 1) * lam_ * w * r_
    s_bar = w * S_ + (m_ - 1) * lam_ * w * rbar  # the mean of s*_j = w S + (m−1)λ w r_j over j
    factor = (m_ - 1) * lam_ / ((m_ - 1) * lam_ + m_)
    if not sym.is_identity((s_i - s_bar) - factor * (r_ - rbar)):
        return _fail("deviation identity")
    ev = [
        "equal λ: s*_i = wS + (m−1)λw r_i with the same w, so s*_i − s̄* = (m−1)λw (r_i − r̄) = (m−1)λ/((m−1)λ+m)(r_i "
        "− r̄)",
        "hence Δ* = (m−1)λ/((m−1)λ+m) · raw MAD",
    ]
    rng = np.random.default_rng(2)
    for m in M_RANGE:
        lam = rng.uniform(0.2, 3.0)
        r = rng.uniform(0, 1, (50, m))
        s = consensus(r, np.full(m, lam))
        c = (m - 1) * lam / ((m - 1) * lam + m)
        if not np.allclose(
            np.abs(s - s.mean(-1, keepdims=True)).mean(-1), c * np.abs(r - r.mean(-1, keepdims=True)).mean(-1)
        ):
            return _fail(f"library Δ* is not c·MAD at m = {m}")
    ev.append("library cross-check m = 2..8: Δ* = c·MAD to rounding")
    return Result(PROVED, "general m", ev)


# ----------------------------------------------------------------------------------- claim 10


def _rectangle(fn, i: int, j: int, a, b, c, d, base) -> sp.Expr:
    """g(a,c) + g(b,d) − g(a,d) − g(b,c) in coordinates (i, j): zero for every separable g = Σ f_k(r_k)."""

    def g(x, y):
        r = list(base)
        r[i], r[j] = x, y
        return fn(r)

    return sp.nsimplify(g(a, c) + g(b, d) - g(a, d) - g(b, c))


_RECT = dict(
    i=0,
    j=1,
    a=sp.Rational(9, 10),
    b=sp.Rational(2, 10),
    c=sp.Rational(9, 10),
    d=sp.Rational(2, 10),
    base=[sp.Rational(9, 10)] * 3,
)


@register_claim(
    "dispersion-not-separable",
    "Proposition 1: Δ* is not a separable function Σ_i f_i(r_i) (for the paper's λ).",
    source=f"{PAPER} §4 Proposition 1, §15.1",
)
def dispersion_not_separable() -> Result:
    val = _rectangle(lambda r: sym.dispersion(r, PAPER_LAMBDAS), **_RECT)
    if val == 0:
        return _fail("rectangle sum vanished")
    ev = [
        "a separable g satisfies g(a,c) + g(b,d) = g(a,d) + g(b,c) in any two coordinates (others fixed)",
        f"Δ*, judges 1 and 2, values {{0.9, 0.2}}, judge 3 at 0.9: the rectangle sum is {val} ≈ {float(val):.4f} ≠ 0",
    ]
    return Result(
        PROVED,
        "rectangle counterexample",
        ev,
        counterexample={"rectangle_sum": val, **{k: str(v) for k, v in _RECT.items()}},
    )


@register_claim(
    "raw-dispersion-separable",
    "Raw variance (and raw mean absolute deviation) are separable functions Σ_i f_i(r_i), so Proposition 1 sets Δ* "
    "apart from them.",
    expect=REFUTED,
    source=f"{PAPER} §16 ('a separable function over raw scores'), §4 Proposition 1",
)
def raw_dispersion_separable() -> Result:
    var = _rectangle(sym.raw_var, **_RECT)
    mad = _rectangle(sym.raw_mad, **_RECT)
    if var == 0 or mad == 0:
        return _fail("rectangle sums vanished")
    ev = [
        f"raw variance: rectangle sum {var} ≠ 0 (∂²Var/∂r_i∂r_j = −2/m² ≠ 0)",
        f"raw MAD: rectangle sum {mad} ≠ 0",
        "raw MAD also separates the paper's pair: MAD(0.9,0.2,0.9) = 0.311, MAD(0.7,0.6,0.7) = 0.044 (same mean)",
    ]
    e = Erratum(
        "§16 / Proposition 1: raw variance is 'a separable function over raw scores', so non-separability is what "
        "distinguishes Δ* from raw dispersion ('a distinction no separable measure can replicate')",
        f"Raw variance and raw MAD are not separable either (rectangle sums {var} and {mad}); with equal λ, Δ* is "
        "exactly (m−1)λ/((m−1)λ+m) × raw MAD. Non-separability does not set Δ* apart; only unequal λ (or a "
        "non-uniform W) does.",
        PAPER,
        "raw-dispersion-separable",
    )
    return Result(
        REFUTED,
        "variance and MAD are not separable",
        ev,
        counterexample={"variance_rectangle": var, "mad_rectangle": mad},
        errata=[e],
    )
