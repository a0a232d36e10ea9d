"""p-values for "the error rate among these rows exceeds alpha", and the upper bounds they give.

Each answered row is right or wrong, so ``e`` errors among ``n`` random rows are Binomial(n, r).
Two valid p-values for H0: r > alpha:

- ``binomial``: the exact tail P(Binomial(n, alpha) <= e), the test behind the Clopper–Pearson
  bound. For 0/1 errors it is the smallest valid (non-randomised) p-value.
- ``hb``: Hoeffding–Bentkus (Bates et al., 2021), min(exp(-n h(min(e/n, alpha), alpha)),
  e * P(Binomial(n, alpha) <= ceil(e))), h the Bernoulli relative entropy. It holds for any loss
  in [0, 1]; on 0/1 errors it is never below the exact tail (its Hoeffding term is the Chernoff
  bound of that tail, its Bentkus term is e times it), so it certifies no more often.

The upper bound of a p-value family is the smallest alpha it would not reject at level delta.
"""

from __future__ import annotations

import math

from scipy.stats import binom

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
