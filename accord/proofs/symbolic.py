"""Exact (sympy) versions of the consensus objects the checks reason about.

The library computes in floating point (:mod:`accord.consensus_core`); these build the same
matrices and closed forms with symbols or exact rationals, so a check can prove an identity for
every value, or compare a paper's rounded number with the exact one.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import sympy as sp


def rat(x) -> sp.Rational:
    """An exact rational from a decimal literal ("0.9" and 0.9 both give 9/10)."""
    if isinstance(x, sp.Basic):
        return x
    return sp.Rational(Fraction(str(x)))


def lambdas(m: int, name: str = "lamda") -> list[sp.Symbol]:
    return list(sp.symbols(f"{name}1:{m + 1}", positive=True))


def raws(m: int, name: str = "r") -> list[sp.Symbol]:
    return list(sp.symbols(f"{name}1:{m + 1}", real=True))


def all_to_all(m: int) -> sp.Matrix:
    return (sp.ones(m, m) - sp.eye(m)) / (m - 1)


def generic_influence(m: int, symmetric: bool = False) -> sp.Matrix:
    """A symbolic m x m influence matrix with zero diagonal (row sums not imposed)."""
    W = sp.zeros(m, m)
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            if symmetric and j < i:
                W[i, j] = W[j, i]
            else:
                W[i, j] = sp.Symbol(f"w{i + 1}_{j + 1}", nonnegative=True)
    return W


def system_matrix(lam: Sequence, W: sp.Matrix | None = None) -> sp.Matrix:
    """A = I + Λ − W: the equilibrium solves A s* = Λ r."""
    m = len(lam)
    W = all_to_all(m) if W is None else W
    return sp.eye(m) + sp.diag(*[rat(x) for x in lam]) - W


def closed_form(r: Sequence, lam: Sequence) -> list[sp.Expr]:
    """The paper's O(m) solution for all-to-all influence, exactly:
    w_i = 1/(m + (m−1)λ_i), S = (m−1) Σ λ_i w_i r_i / (1 − Σ w_i), s*_i = w_i S + (m−1) λ_i w_i r_i."""
    m = len(r)
    r = [rat(x) for x in r]
    lam = [rat(x) for x in lam]
    w = [1 / (m + (m - 1) * li) for li in lam]
    S = (m - 1) * sum(li * wi * ri for li, wi, ri in zip(lam, w, r)) / (1 - sum(w))
    return [wi * S + (m - 1) * li * wi * ri for li, wi, ri in zip(lam, w, r)]


def stats(r: Sequence, lam: Sequence) -> dict:
    """Exact s*, s̄*, Δ*, raw mean, raw MAD and raw variance for one score vector."""
    s = closed_form(r, lam)
    m = len(s)
    r = [rat(x) for x in r]
    mean = sum(s) / m
    raw_mean = sum(r) / m
    return {
        "consensus": s,
        "mean": sp.nsimplify(mean),
        "dispersion": sum(sp.Abs(si - mean) for si in s) / m,
        "raw_mean": raw_mean,
        "raw_mad": sum(sp.Abs(ri - raw_mean) for ri in r) / m,
        "raw_var": sum((ri - raw_mean) ** 2 for ri in r) / m,
    }


def dispersion(r: Sequence, lam: Sequence) -> sp.Expr:
    return stats(r, lam)["dispersion"]


def raw_mad(r: Sequence) -> sp.Expr:
    r = [rat(x) for x in r]
    mu = sum(r) / len(r)
    return sum(sp.Abs(x - mu) for x in r) / len(r)


def raw_var(r: Sequence) -> sp.Expr:
    r = [rat(x) for x in r]
    mu = sum(r) / len(r)
    return sum((x - mu) ** 2 for x in r) / len(r)


def is_identity(expr: sp.Expr) -> bool:
    """expr is identically zero (cancel decides rational functions; simplify otherwise)."""
    num, _ = sp.fraction(sp.together(expr))
    if sp.expand(num) == 0:
        return True
    e = sp.cancel(sp.together(expr))
    return e == 0 or sp.simplify(e) == 0


def matrix_is_zero(M: sp.Matrix) -> bool:
    return all(is_identity(e) for e in M)
