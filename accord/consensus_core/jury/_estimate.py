"""Estimating the jury law's inputs from labelled panel answers, and testing the law's fit.

Estimators (method of moments, bootstrap intervals over problems):

- a: the fraction of correct answers.
- rho: from the rate at which two members of the same panel are both correct,
  E[p^2] = a^2 + rho a (1 - a) under the Beta law, so rho = (P(both right) - a^2) / (a (1 - a)).
- s: two wrong answers to the same problem coincide with probability sum_j s_j^2 (idiosyncratic
  answers never coincide), r of them with probability q_r = sum_j s_j^r. One attractor: s = sqrt(q_2);
  K attractors: the masses whose power sums best match q_2 .. q_{K+1} (least squares).

Goodness of fit (the one-factor assumption): problems are binned by difficulty as measured by
the number c of members right; within a bin the law predicts both how often the bin occurs
(beta-binomial) and the size of the largest wrong answer class (the attractor model). Observed vs
predicted cell counts give a chi-square statistic whose p-value is computed from the chi-square
law and by a parametric bootstrap (simulate from the fitted law, refit, recompute). The
conditional test of shared blind spots is reported next to it: among problems everyone got
wrong, the observed rate of a unanimous wrong answer vs the predicted sum_j s_j^M.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import comb as binom

from accord.consensus_core.jury._law import correct_count_pmf, largest_wrong_class_pmf, law_params, simulate_panel
from accord.consensus_core.jury._vote import MISSING


@dataclass(frozen=True)
class LawEstimate:
    """Estimated (a, rho, s) with percentile bootstrap intervals."""

    a: float
    rho: float
    s: tuple[float, ...]
    a_ci: tuple[float, float]
    rho_ci: tuple[float, float]
    s_ci: tuple[tuple[float, float], ...]
    n_problems: int
    M: int
    level: float = 0.95
    boot: np.ndarray = field(default=None, repr=False, compare=False)  # (B, 2 + K)

    def as_dict(self) -> dict:
        return {
            "a": self.a,
            "rho": self.rho,
            "s": list(self.s),
            "a_ci": list(self.a_ci),
            "rho_ci": list(self.rho_ci),
            "s_ci": [list(c) for c in self.s_ci],
            "n_problems": self.n_problems,
            "M": self.M,
            "level": self.level,
        }


def _check(codes, correct) -> tuple[np.ndarray, np.ndarray]:
    c = np.asarray(codes)
    ok = np.asarray(correct, dtype=bool)
    if c.ndim != 2 or ok.shape != c.shape:
        raise ValueError(
            f"codes and correctness must both have shape (problems, members); got {c.shape} and {ok.shape}"
        )
    if c.shape[1] < 2:
        raise ValueError("estimating the law needs at least 2 members per problem")
    if c.shape[0] < 2:
        raise ValueError("estimating the law needs at least 2 problems")
    return c, ok & (c != MISSING)


def _wrong_class_sizes(codes: np.ndarray, correct: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per member: the size of its wrong class (0 if right or missing); per problem: wrong count."""
    wrong = (codes != MISSING) & ~correct
    same = (codes[:, :, None] == codes[:, None, :]) & wrong[:, :, None] & wrong[:, None, :]
    return same.sum(axis=2), wrong.sum(axis=1)


def _coincidence(sizes: np.ndarray, w: np.ndarray, r: int) -> tuple[float, float]:
    """(numerator, denominator) of q_r: coinciding r-subsets of wrong answers over all r-subsets."""
    size = sizes[sizes > 0].astype(np.float64)
    num = float(np.sum(binom(size, r) / size)) if size.size else 0.0
    return num, float(np.sum(binom(w.astype(np.float64), r)))


def _fit_s(q: list[float], K: int) -> np.ndarray:
    if K == 1:
        return np.array([np.sqrt(max(q[0], 0.0))])
    from scipy.optimize import minimize

    target = np.array(q[:K])
    powers = np.arange(2, K + 2)

    def loss(x):
        return float(np.sum(((x[None, :] ** powers[:, None]).sum(axis=1) - target) ** 2 / np.maximum(target, 1e-6)))

    start = np.sqrt(max(q[0], 1e-6)) * np.linspace(1.0, 0.3, K) / np.sqrt(np.sum(np.linspace(1.0, 0.3, K) ** 2))
    res = minimize(
        loss,
        start,
        method="SLSQP",
        bounds=[(0.0, 1.0)] * K,
        constraints=[{"type": "ineq", "fun": lambda x: 1.0 - x.sum()}],
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return np.sort(np.clip(res.x, 0.0, 1.0))[::-1]


def _point(codes: np.ndarray, correct: np.ndarray, K: int) -> np.ndarray:
    present = codes != MISSING
    n_ans = present.sum(axis=1).astype(np.float64)
    n_ok = correct.sum(axis=1).astype(np.float64)
    if n_ans.sum() == 0:
        raise ValueError("no member answered any problem")
    a = n_ok.sum() / n_ans.sum()
    pairs = (n_ans * (n_ans - 1)).sum()
    if pairs == 0:
        raise ValueError("no problem has two answers: the error correlation cannot be estimated")
    both = (n_ok * (n_ok - 1)).sum() / pairs
    if a <= 0.0 or a >= 1.0:
        rho = 0.0
    else:
        rho = float(np.clip((both - a * a) / (a * (1 - a)), 0.0, 1.0))
    sizes, w = _wrong_class_sizes(codes, correct)
    q = []
    for r in range(2, K + 2):
        num, den = _coincidence(sizes, w, r)
        q.append(num / den if den > 0 else 0.0)
    s = _fit_s(q, K)
    return np.concatenate([[a, rho], s])


def estimate_law(
    codes, correct, n_attractors: int = 1, n_boot: int = 200, level: float = 0.95, seed: int = 0
) -> LawEstimate:
    """Estimate (a, rho, s_1..s_K) from class codes (n, M) and member correctness (n, M)."""
    c, ok = _check(codes, correct)
    K = int(n_attractors)
    if K < 1:
        raise ValueError(f"the number of attractors must be >= 1, got {n_attractors}")
    if K + 1 > c.shape[1]:
        raise ValueError(f"{K} attractors need panels of at least {K + 1} members, got {c.shape[1]}")
    est = _point(c, ok, K)
    rng = np.random.default_rng(seed)
    n = c.shape[0]
    boot = np.empty((n_boot, est.size))
    for b in range(n_boot):
        idx = rng.integers(0, n, n)
        boot[b] = _point(c[idx], ok[idx], K)
    lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    if n_boot:
        ql, qh = np.percentile(boot, lo, axis=0), np.percentile(boot, hi, axis=0)
    else:
        ql = qh = est
    cis = [(float(x), float(y)) for x, y in zip(ql, qh)]
    return LawEstimate(
        float(est[0]),
        float(est[1]),
        tuple(float(x) for x in est[2:]),
        cis[0],
        cis[1],
        tuple(cis[2:]),
        n,
        c.shape[1],
        level,
        boot,
    )


# ---------------------------------------------------------------------------------------------
# goodness of fit
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FitCheck:
    """Observed vs predicted answer-class counts binned by difficulty (c = members right)."""

    M: int
    n_problems: int
    bins: list[dict]  # per c: n observed, n predicted, largest wrong class observed/predicted
    chi2: float
    df: int
    p_value: float  # chi-square law
    p_bootstrap: float  # parametric bootstrap
    all_wrong: int  # problems every member got wrong
    unanimous_wrong: int  # of those, all on the same wrong answer
    unanimous_wrong_predicted: float  # sum_j s_j^M
    estimate: LawEstimate

    def as_dict(self) -> dict:
        return {
            "M": self.M,
            "n_problems": self.n_problems,
            "bins": self.bins,
            "chi2": self.chi2,
            "df": self.df,
            "p_value": self.p_value,
            "p_bootstrap": self.p_bootstrap,
            "all_wrong": self.all_wrong,
            "unanimous_wrong": self.unanimous_wrong,
            "unanimous_wrong_rate_predicted": self.unanimous_wrong_predicted,
            "estimate": self.estimate.as_dict(),
        }


def _cells(codes: np.ndarray, correct: np.ndarray, M: int) -> np.ndarray:
    """Observed counts (M + 1, M + 1): rows c = members right, columns u = largest wrong class."""
    sizes, _ = _wrong_class_sizes(codes, correct)
    c = correct.sum(axis=1)
    u = sizes.max(axis=1)
    out = np.zeros((M + 1, M + 1))
    np.add.at(out, (c, u), 1)
    return out


def _expected(a: float, rho: float, s, M: int, n: int) -> np.ndarray:
    p = law_params(a, rho, s) if 0 < a < 1 else None
    out = np.zeros((M + 1, M + 1))
    if p is None:
        out[M if a >= 1 else 0, 0 if a >= 1 else 1] = n
        return out
    pmf = correct_count_pmf(p.a, p.rho, M)
    for c in range(M + 1):
        out[c, : M - c + 1] = n * pmf[c] * largest_wrong_class_pmf(p, M, c)
    return out


def _chi2(obs: np.ndarray, exp: np.ndarray, min_expected: float = 5.0) -> tuple[float, int]:
    """Chi-square over cells (c-major order) merged greedily until each group expects >= min_expected."""
    o, e = obs.ravel(), exp.ravel()
    groups_o, groups_e = [], []
    acc_o = acc_e = 0.0
    for oi, ei in zip(o, e):
        acc_o += oi
        acc_e += ei
        if acc_e >= min_expected:
            groups_o.append(acc_o)
            groups_e.append(acc_e)
            acc_o = acc_e = 0.0
    if groups_e:
        groups_o[-1] += acc_o
        groups_e[-1] += acc_e
    go, ge = np.array(groups_o), np.array(groups_e)
    if go.size == 0:
        return 0.0, 0
    stat = float(np.sum((go - ge) ** 2 / np.maximum(ge, 1e-12)))
    return stat, int(go.size)


def check_law(codes, correct, n_attractors: int = 1, n_boot: int = 200, seed: int = 0) -> FitCheck:
    """Goodness of fit of the one-factor law on problems every member answered."""
    c, ok = _check(codes, correct)
    full = np.all(c != MISSING, axis=1)
    c, ok = c[full], ok[full]
    if c.shape[0] < 10:
        raise ValueError(f"the fit check needs at least 10 problems answered by every member, got {c.shape[0]}")
    M = c.shape[1]
    n = c.shape[0]
    K = int(n_attractors)
    est = estimate_law(c, ok, K, n_boot=0, seed=seed)
    obs = _cells(c, ok, M)
    exp = _expected(est.a, est.rho, est.s, M, n)
    stat, groups = _chi2(obs, exp)
    df = max(groups - 1 - (2 + K), 1)
    from scipy.stats import chi2 as chi2_law

    p_chi = float(chi2_law.sf(stat, df))
    rng = np.random.default_rng(seed)
    exceed = 0
    done = 0
    if 0 < est.a < 1:
        for _ in range(n_boot):
            sim = simulate_panel(est.a, est.rho, est.s, M, n, seed=int(rng.integers(2**31)))
            try:
                e_b = estimate_law(sim.codes, sim.correct, K, n_boot=0)
            except ValueError:
                continue
            if not (0 < e_b.a < 1):
                continue
            st_b, _ = _chi2(_cells(sim.codes, sim.correct, M), _expected(e_b.a, e_b.rho, e_b.s, M, n))
            exceed += st_b >= stat
            done += 1
    p_boot = (1 + exceed) / (1 + done) if done else float("nan")
    bins = []
    for cc in range(M + 1):
        row_o, row_e = obs[cc, : M - cc + 1], exp[cc, : M - cc + 1]
        bins.append(
            {
                "correct": cc,
                "observed": int(row_o.sum()),
                "predicted": float(row_e.sum()),
                "largest_wrong_observed": row_o.astype(int).tolist(),
                "largest_wrong_predicted": [float(x) for x in row_e],
            }
        )
    all_wrong = int(obs[0].sum())
    unan = int(obs[0, M])
    return FitCheck(M, n, bins, stat, df, p_chi, float(p_boot), all_wrong, unan, float(sum(x**M for x in est.s)), est)
