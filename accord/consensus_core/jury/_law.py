"""The jury accuracy law: predict, before spending, how accurate an M-member modal-vote jury is.

The one-factor model (seeds/003): a problem's difficulty p ~ Beta(a k, (1 - a) k) with
k = 1/rho - 1 (so a is the mean member accuracy and rho the pairwise error correlation); given p,
the M members are correct independently with probability p; a wrong answer lands on shared
attractor j with probability s_j (sum_j s_j <= 1) and is otherwise idiosyncratic (an answer no
other member gives). The jury picks the modal answer class, ties broken uniformly at random.

Closed forms (exact, no sampling):

- P(C = c) for the number of correct members: beta-binomial(M, a k, (1 - a) k).
- the jury's accuracy: sum_c P(C = c) * P(correct class wins | c), the second factor summed
  exactly over the wrong answers' allocation to attractors (a small dynamic programme).
- the unanimous-wrong floor: sum_j s_j^M E[(1 - p)^M], E[(1 - p)^M] = prod_{i<M} ((1-a)k + i)/(k + i).
- the abstention dial: coverage and accuracy when answering only if the modal class has >= t votes;
  t = M is "answer only when unanimous": accuracy E[p^M] / (E[p^M] + floor).

:func:`simulate` draws panels from the same model and runs the real vote on them, so the closed
forms can be checked against Monte Carlo.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial, lgamma

import numpy as np

from accord.consensus_core.jury._vote import vote_codes


@dataclass(frozen=True)
class LawParams:
    """The law's inputs: mean accuracy a, error correlation rho, attractor masses s (K,)."""

    a: float
    rho: float
    s: tuple[float, ...]

    @property
    def k(self) -> float:
        return 1.0 / self.rho - 1.0 if self.rho > 0 else float("inf")

    @property
    def s_idio(self) -> float:
        return max(0.0, 1.0 - sum(self.s))


def law_params(a: float, rho: float, s=0.0) -> LawParams:
    """Validated parameters; ``s`` is a scalar (one attractor) or a sequence of attractor masses."""
    a, rho = float(a), float(rho)
    if not (0.0 < a < 1.0):
        raise ValueError(f"mean accuracy a must lie in (0, 1), got {a}")
    if not (0.0 <= rho <= 1.0):
        raise ValueError(f"error correlation rho must lie in [0, 1], got {rho}")
    s_arr = np.atleast_1d(np.asarray(s, dtype=np.float64))
    if s_arr.ndim != 1 or not np.all(np.isfinite(s_arr)) or np.any(s_arr < 0):
        raise ValueError(f"attractor masses s must be finite and >= 0, got {np.asarray(s).tolist()}")
    if s_arr.sum() > 1.0 + 1e-12:
        raise ValueError(f"attractor masses must sum to <= 1, got sum {s_arr.sum():.6g}")
    return LawParams(a, rho, tuple(float(x) for x in s_arr if x > 0) or (0.0,))


def _check_m(M: int) -> int:
    if int(M) != M or M < 1:
        raise ValueError(f"panel size M must be a positive integer, got {M}")
    return int(M)


def beta_moment(a: float, rho: float, n: int) -> float:
    """E[p^n] for p ~ Beta(a k, (1 - a) k), k = 1/rho - 1: prod_{i<n} (a k + i)/(k + i)."""
    if rho >= 1.0:
        return a
    if rho <= 0.0:
        return a**n
    k = 1.0 / rho - 1.0
    out = 1.0
    for i in range(n):
        out *= (a * k + i) / (k + i)
    return out


def correct_count_pmf(a: float, rho: float, M: int) -> np.ndarray:
    """P(C = c), c = 0..M: beta-binomial (binomial at rho = 0, all-or-none at rho = 1)."""
    M = _check_m(M)
    c = np.arange(M + 1)
    if rho >= 1.0:
        out = np.zeros(M + 1)
        out[0], out[M] = 1.0 - a, a
        return out
    if rho <= 0.0:
        return np.array([factorial(M) / (factorial(i) * factorial(M - i)) * a**i * (1 - a) ** (M - i) for i in c])
    k = 1.0 / rho - 1.0
    al, be = a * k, (1.0 - a) * k

    def lbeta(x, y):
        return lgamma(x) + lgamma(y) - lgamma(x + y)

    return np.array(
        [
            np.exp(lgamma(M + 1) - lgamma(i + 1) - lgamma(M - i + 1) + lbeta(i + al, M - i + be) - lbeta(al, be))
            for i in c
        ]
    )


def _attractor_table(s: tuple[float, ...], w: int, cap: int, tie_at: int) -> np.ndarray:
    """G[used, ties] = sum over attractor counts n_j <= cap with sum n_j = used of prod s_j^n_j / n_j!,
    ties = number of attractors with n_j == tie_at (generating function of the multinomial)."""
    G = np.zeros((w + 1, len(s) + 1))
    G[0, 0] = 1.0
    for sj in s:
        new = np.zeros_like(G)
        for n in range(min(cap, w) + 1):
            term = sj**n / factorial(n)
            if term == 0.0:
                continue
            shift = 1 if n == tie_at else 0
            new[n:, shift:] += term * G[: w + 1 - n, : G.shape[1] - shift]
        G = new
    return G


def win_probability(p: LawParams, M: int, c: int) -> float:
    """P(the correct class is chosen | c of M members correct), ties broken uniformly."""
    if c == 0:
        return 0.0
    w = M - c
    G = _attractor_table(p.s, w, cap=c, tie_at=c)
    s0 = p.s_idio
    total = 0.0
    for used in range(w + 1):
        n0 = w - used
        idio = s0**n0 / factorial(n0)
        if idio == 0.0:
            continue
        for ties in range(G.shape[1]):
            if G[used, ties]:
                tied = 1 + ties + (n0 if c == 1 else 0)
                total += G[used, ties] * idio / tied
    return factorial(w) * total


def no_class_reaches(p: LawParams, M: int, c: int, t: int) -> float:
    """P(no wrong class has >= t votes | c correct), for t >= 2 (idiosyncratic answers are singletons)."""
    w = M - c
    G = _attractor_table(p.s, w, cap=t - 1, tie_at=-1)[:, 0]
    s0 = p.s_idio
    return factorial(w) * sum(G[u] * s0 ** (w - u) / factorial(w - u) for u in range(w + 1))


def largest_wrong_class_pmf(p: LawParams, M: int, c: int) -> np.ndarray:
    """P(largest wrong answer class has u members | c correct), u = 0..M - c (0 only when none is wrong)."""
    w = M - c
    out = np.zeros(w + 1)
    if w == 0:
        out[0] = 1.0
        return out
    cdf = [0.0] + [no_class_reaches(p, M, c, u + 1) for u in range(1, w + 1)]
    out[1:] = np.diff(cdf)
    return np.clip(out, 0.0, 1.0)


@dataclass(frozen=True)
class LawPrediction:
    """Closed-form predictions for one panel size M."""

    M: int
    accuracy: float  # modal vote, always answering
    floor: float  # P(all M members wrong on the same attractor)
    unanimous_rate: float  # P(all M members agree)
    unanimous_accuracy: float  # accuracy among unanimous answers
    coverage: np.ndarray  # (M,) P(modal class has >= t votes), t = 1..M
    dial_accuracy: np.ndarray  # (M,) accuracy among answered problems at threshold t

    def as_dict(self) -> dict:
        return {
            "M": self.M,
            "accuracy": self.accuracy,
            "floor": self.floor,
            "unanimous_rate": self.unanimous_rate,
            "unanimous_accuracy": self.unanimous_accuracy,
            "dial": [
                {"min_votes": t + 1, "coverage": float(cv), "accuracy": float(ac)}
                for t, (cv, ac) in enumerate(zip(self.coverage, self.dial_accuracy))
            ],
        }


def floor(a: float, rho: float, s, M: int) -> float:
    """The unanimous-wrong floor sum_j s_j^M E[(1 - p)^M]."""
    p = law_params(a, rho, s)
    M = _check_m(M)
    return float(sum(sj**M for sj in p.s) * beta_moment(1.0 - a, rho, M))


def predict(a: float, rho: float, s=0.0, M: int = 3) -> LawPrediction:
    """All closed-form predictions of the law for a panel of M members."""
    p = law_params(a, rho, s)
    M = _check_m(M)
    pmf = correct_count_pmf(p.a, p.rho, M)
    win = np.array([win_probability(p, M, c) for c in range(M + 1)])
    correct_joint = pmf * win  # P(C = c and the correct class is chosen)
    acc = float(correct_joint.sum())
    fl = floor(a, rho, s, M)
    coverage = np.ones(M)
    dial = np.zeros(M)
    for t in range(1, M + 1):
        if t >= 2:
            coverage[t - 1] = 1.0 - sum(pmf[c] * no_class_reaches(p, M, c, t) for c in range(t))
        hit = correct_joint[t:].sum()
        dial[t - 1] = hit / coverage[t - 1] if coverage[t - 1] > 0 else float("nan")
    if M == 1:
        unanimous = 1.0
        u_acc = p.a
    else:
        unanimous = beta_moment(p.a, p.rho, M) + fl
        u_acc = beta_moment(p.a, p.rho, M) / unanimous if unanimous > 0 else float("nan")
    return LawPrediction(
        M, min(acc, 1.0), fl, float(unanimous), float(u_acc), np.clip(coverage, 0, 1), np.clip(dial, 0, 1)
    )


def accuracy(a: float, rho: float, s=0.0, M: int = 3) -> float:
    """The jury's predicted accuracy (modal vote, always answering)."""
    return predict(a, rho, s, M).accuracy


# ---------------------------------------------------------------------------------------------
# Monte Carlo simulator of the same model
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimulatedPanel:
    """Answer class codes (n, M): 0 = correct, 1..K = attractor j, K + 1 + i = member i's own answer."""

    codes: np.ndarray
    difficulty: np.ndarray  # (n,) the drawn p
    n_attractors: int

    @property
    def correct(self) -> np.ndarray:
        return self.codes == 0


def simulate_panel(a: float, rho: float, s=0.0, M: int = 3, n: int = 10000, seed: int = 0) -> SimulatedPanel:
    """Draw n problems and each member's answer class from the one-factor model."""
    p = law_params(a, rho, s)
    M = _check_m(M)
    rng = np.random.default_rng(seed)
    if p.rho <= 0:
        diff = np.full(n, p.a)
    elif p.rho >= 1:
        diff = (rng.random(n) < p.a).astype(np.float64)
    else:
        k = p.k
        diff = rng.beta(p.a * k, (1 - p.a) * k, size=n)
    correct = rng.random((n, M)) < diff[:, None]
    K = len(p.s)
    edges = np.cumsum(p.s)
    u = rng.random((n, M))
    attractor = np.searchsorted(edges, u, side="right")  # 0..K-1 attractor, K = idiosyncratic
    own = K + 1 + np.arange(M)[None, :]
    wrong_code = np.where(attractor < K, attractor + 1, own)
    codes = np.where(correct, 0, wrong_code).astype(np.int64)
    return SimulatedPanel(codes, diff, K)


def simulate_unequal_panel(
    accuracies, correlation: float = 0.3, s=0.0, n: int = 10000, seed: int = 0
) -> SimulatedPanel:
    """Members of unequal accuracy with correlated errors (Gaussian copula on a shared difficulty).

    Member i is right iff Phi(sqrt(c) z + sqrt(1 - c) e_i) < a_i with z, e_i standard normal, so
    its accuracy is exactly a_i and c sets how strongly errors co-occur; wrong answers land on the
    shared attractors s as in :func:`simulate_panel`. ``difficulty`` holds Phi(z).
    """
    from scipy.stats import norm

    acc = np.asarray(accuracies, dtype=np.float64)
    if acc.ndim != 1 or acc.size < 1 or np.any((acc <= 0) | (acc >= 1)):
        raise ValueError(
            f"member accuracies must be a vector of values in (0, 1), got {np.asarray(accuracies).tolist()}"
        )
    if not (0.0 <= correlation < 1.0):
        raise ValueError(f"latent correlation must lie in [0, 1), got {correlation}")
    p = law_params(float(acc.mean()), 0.0, s)
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n)
    e = rng.standard_normal((n, acc.size))
    u = norm.cdf(np.sqrt(correlation) * z[:, None] + np.sqrt(1 - correlation) * e)
    correct = u < acc[None, :]
    K = len(p.s)
    attractor = np.searchsorted(np.cumsum(p.s), rng.random((n, acc.size)), side="right")
    own = K + 1 + np.arange(acc.size)[None, :]
    codes = np.where(correct, 0, np.where(attractor < K, attractor + 1, own)).astype(np.int64)
    return SimulatedPanel(codes, norm.cdf(z), K)


@dataclass(frozen=True)
class SimulationResult:
    M: int
    n: int
    accuracy: float
    floor: float
    unanimous_rate: float
    unanimous_accuracy: float
    coverage: np.ndarray
    dial_accuracy: np.ndarray


def simulate(
    a: float, rho: float, s=0.0, M: int = 3, n: int = 200000, seed: int = 0, chunk: int = 250000
) -> SimulationResult:
    """Monte Carlo estimates of everything :func:`predict` computes, using the real modal vote."""
    M = _check_m(M)
    hits = np.zeros(M + 1)  # hits[t]: correct and modal count == t
    counts = np.zeros(M + 1)  # modal count == t
    fl = 0.0
    unanimous = 0.0
    unanimous_ok = 0.0
    done = 0
    part = 0
    while done < n:
        size = min(chunk, n - done)
        panel = simulate_panel(a, rho, s, M, size, seed=seed * 1000003 + part)
        v = vote_codes(panel.codes, seed=seed * 7919 + part)
        ok = v.chosen == 0
        hits += np.bincount(v.votes[ok], minlength=M + 1)[: M + 1]
        counts += np.bincount(v.votes, minlength=M + 1)[: M + 1]
        first = panel.codes[:, 0]
        all_same = np.all(panel.codes == first[:, None], axis=1)
        unanimous += all_same.sum()
        unanimous_ok += (all_same & (first == 0)).sum()
        fl += (all_same & (first >= 1) & (first <= panel.n_attractors)).sum()
        done += size
        part += 1
    cov = np.array([counts[t:].sum() / n for t in range(1, M + 1)])
    dial = np.array([hits[t:].sum() / max(counts[t:].sum(), 1) for t in range(1, M + 1)])
    u_acc = unanimous_ok / unanimous if unanimous else float("nan")
    return SimulationResult(M, n, float(hits.sum() / n), float(fl / n), float(unanimous / n), float(u_acc), cov, dial)
