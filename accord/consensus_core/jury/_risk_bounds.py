"""p-values for "the error rate among these rows exceeds alpha", and the upper bounds they give.

Each answered row is right or wrong, so ``e`` errors among ``n`` random rows are Binomial(n, r).
Two valid p-values for H0: r > alpha:

- ``binomial``: the exact tail P(Binomial(n, alpha) <= e), the test behind the Clopper–Pearson
  bound. For 0/1 errors it is the smallest valid (non-randomised) p-value.
- ``hb``: Hoeffding–Bentkus (Bates et al., 2021), min(exp(-n h(min(e/n, alpha), alpha)),
  e * P(Binomial(n, alpha) <= ceil(e))), h the Bernoulli relative entropy. It holds for any loss
  in [0, 1]; on 0/1 errors it is never below the exact tail (its Hoeffding term is the Chernoff
  bound of that tail, its Bentkus term is e times it), so it certifies no more often.

- ``hypergeometric``: the rows are a finite file, not a sample of a larger one. Of the N rows at
  or above a threshold, E are wrong (unknown) and n random ones were labelled; their errors are
  Hypergeometric(N, E, n). H0: E / N > alpha, i.e. E >= floor(alpha N) + 1, and the p-value is
  P(Hypergeometric(N, floor(alpha N) + 1, n) <= e): exact for the rows of the file, and smaller
  than the binomial tail when the labels are a large share of those rows (they were drawn
  without replacement).

The upper bound of a p-value family is the smallest alpha it would not reject at level delta.
"""

from __future__ import annotations

import math

from scipy.stats import binom, hypergeom

BOUNDS = ("binomial", "hb")


def binomial_pvalue(errors: int, n: int, alpha: float) -> float:
    """P(Binomial(n, alpha) <= errors): small when ``errors`` is too few for an error rate above alpha."""
    return 1.0 if n <= 0 else float(binom.cdf(errors, n, alpha))


def bernoulli_kl(x: float, a: float) -> float:
    """Relative entropy of Bernoulli(x) from Bernoulli(a)."""
    out = 0.0
    if x > 0:
        out += x * math.log(x / a)
    if x < 1:
        out += (1 - x) * math.log((1 - x) / (1 - a))
    return out


def hb_pvalue(errors: int, n: int, alpha: float) -> float:
    """The Hoeffding–Bentkus p-value of H0: error rate > alpha, from ``errors`` in ``n``."""
    if n <= 0:
        return 1.0
    rate = errors / n
    hoeffding = math.exp(-n * bernoulli_kl(min(rate, alpha), alpha))
    bentkus = math.e * float(binom.cdf(math.ceil(n * rate - 1e-12), n, alpha))
    return min(hoeffding, bentkus, 1.0)


def hypergeometric_pvalue(errors: int, n: int, alpha: float, population: int) -> float:
    """P(Hypergeometric(population, floor(alpha population) + 1, n) <= errors): small when
    ``errors`` among ``n`` rows drawn without replacement from ``population`` rows are too few for
    more than ``alpha`` of those rows to be wrong."""
    if n <= 0:
        return 1.0
    wrong = int(math.floor(alpha * population)) + 1
    if wrong > population:
        return 0.0  # the rows cannot hold that many errors
    return float(hypergeom.cdf(errors, population, wrong, n))


def hypergeometric_upper(errors: int, n: int, delta: float, population: int) -> float:
    """The largest error share of the ``population`` rows that ``errors`` among ``n`` of them drawn
    at random leave plausible at level ``delta``: with probability >= 1 - delta the share is at most this."""
    if n <= 0:
        return 1.0
    lo, hi = errors, population - (n - errors)  # the errors the rows can hold
    while lo < hi:  # largest E with P(X <= errors | E) > delta
        mid = (lo + hi + 1) // 2
        if hypergeom.cdf(errors, population, mid, n) > delta:
            lo = mid
        else:
            hi = mid - 1
    return lo / population


PVALUES = {"binomial": binomial_pvalue, "hb": hb_pvalue}


def upper_bound(errors: int, n: int, delta: float, bound: str = "binomial", tol: float = 1e-7) -> float:
    """The smallest error rate the ``bound``'s test does not reject at level ``delta``: with
    probability >= 1 - delta the true rate is at most this."""
    if n <= 0 or errors >= n:
        return 1.0
    pvalue = PVALUES[bound]
    lo, hi = errors / n, 1.0 - 1e-12  # both p-values fall as alpha grows: > delta below the bound, <= above
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if pvalue(errors, n, mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi
