"""Label-free judge reliability: stubbornness λ estimated from agreement, and thresholds τ, ε
set from an unlabelled calibration batch instead of by hand.

Reliability (no labels). Each judge's scores are modelled as one shared latent quality plus
judge-specific noise (a one-factor model); judge j's reliability ρ_j is the correlation of its
score with the latent quality:

- ``factor`` (default, m >= 3): ρ_j² = r_jk r_jl / r_kl averaged over pairs (k, l) of other
  judges (r = pairwise score correlations) — the classic triad estimate of a factor loading; a
  judge no triad identifies (the other judges do not correlate at all) falls back to ``loo``;
- judges that share a source (the roles of one prompted model: a panel passes its judge groups)
  are not independent witnesses: their agreement with each other counts for nothing, only
  agreement across groups does;
- ``loo``: ρ_j = correlation of judge j with the mean of the other judges (leave one out).

Map to λ (documented, monotone): signal-to-noise SNR_j = ρ_j² / (1 − ρ_j²), λ_j = SNR_j divided
by the geometric mean of the SNRs (so a panel of equally reliable judges gets λ = 1 each), clipped
to [λ_min, λ_max] = [0.25, 4]. A more reliable judge holds its own score more firmly and so carries
more of the consensus. Intervals are percentile bootstraps over scored rows.

Thresholds (no labels). ``target_rate``: ε is the ``eps_quantile`` of Δ* over the calibration
batch and τ is chosen so that the share of candidates accepted (s̄* > τ and Δ* < ε) is the target;
``quantiles``: τ and ε are plain quantiles of s̄* and Δ*. The paper's τ = 0.6, ε = 0.1 are
reported next to them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from accord.consensus_core._policies import DEFAULT_EPS, DEFAULT_TAU
from accord.consensus_core._rule import accept_and_rank
from accord.consensus_core._statistics import consensus_stats
from accord.consensus_core._validation import as_scores

LAMBDA_MIN, LAMBDA_MAX = 0.25, 4.0
REL_MIN, REL_MAX = 0.02, 0.98


@dataclass(frozen=True)
class StubbornnessEstimate:
    """Estimated reliabilities and the λ they map to, with bootstrap intervals."""

    method: str
    reliability: np.ndarray  # (m,)
    reliability_ci: np.ndarray  # (m, 2)
    lambdas: np.ndarray  # (m,)
    lambdas_ci: np.ndarray  # (m, 2)
    n_rows: int
    level: float

    def as_dict(self, names=None) -> dict:
        names = list(names) if names is not None else [f"judge{i + 1}" for i in range(self.lambdas.size)]
        return {
            "method": self.method,
            "n_rows": self.n_rows,
            "level": self.level,
            "mapping": f"lambda = SNR / geomean(SNR), SNR = rho^2/(1-rho^2), clipped to [{LAMBDA_MIN}, {LAMBDA_MAX}]",
            "judges": {
                n: {
                    "reliability": float(r),
                    "reliability_ci": [float(x) for x in rc],
                    "lambda": float(lam),
                    "lambda_ci": [float(x) for x in lc],
                }
                for n, r, rc, lam, lc in zip(
                    names, self.reliability, self.reliability_ci, self.lambdas, self.lambdas_ci
                )
            },
        }


def _rows(raw) -> np.ndarray:
    r = as_scores(raw)
    r = r.reshape(-1, r.shape[-1])
    keep = (~np.isnan(r)).sum(axis=1) >= 2
    r = r[keep]
    if r.shape[0] < 5:
        raise ValueError(
            f"estimating judge reliability needs at least 5 rows scored by two or more judges, got {r.shape[0]}"
        )
    return r


def _corr(r: np.ndarray) -> np.ndarray:
    """Pairwise Pearson correlations over rows both judges scored (NaN-aware); 0 if undefined."""
    m = r.shape[1]
    C = np.eye(m)
    ok = ~np.isnan(r)
    for i in range(m):
        for j in range(i + 1, m):
            both = ok[:, i] & ok[:, j]
            a, b = r[both, i], r[both, j]
            c = float(np.corrcoef(a, b)[0, 1]) if both.sum() >= 3 and a.std() > 0 and b.std() > 0 else 0.0
            C[i, j] = C[j, i] = c
    return C


def _leave_one_out(r: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each judge's correlation with the mean of the judges outside its group (0 where undefined)."""
    m = r.shape[1]
    rel = np.zeros(m)
    ok = ~np.isnan(r)
    for j in range(m):
        others = r[:, groups != groups[j]]
        if others.shape[1] == 0:
            continue
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # rows no other judge scored
            mean_o = np.nanmean(others, axis=1)
        both = ok[:, j] & ~np.isnan(mean_o)
        a, b = r[both, j], mean_o[both]
        rel[j] = float(np.corrcoef(a, b)[0, 1]) if both.sum() >= 3 and a.std() > 0 and b.std() > 0 else 0.0
    return rel


def _groups(groups, m: int) -> np.ndarray:
    if groups is None:
        return np.arange(m).astype(str)
    g = np.asarray([str(x) for x in groups])
    if g.shape != (m,):
        raise ValueError(f"got {g.size} group labels for {m} judges")
    return g


def judge_reliability(raw, method: str = "factor", groups=None) -> np.ndarray:
    """Each judge's estimated correlation with the latent quality, from scores (..., m) alone.

    ``groups`` labels judges that are not independent witnesses (e.g. several roles read from one
    model): agreement inside a group is not evidence of reliability, so a judge is only compared
    with judges of other groups, and a triad's two other judges must come from different groups.
    """
    r = _rows(raw)
    m = r.shape[1]
    g = _groups(groups, m)
    if method == "factor" and len(set(g.tolist())) < 3:
        method = "loo"  # a factor loading needs a third independent judge to be identified
    if method == "factor":
        C = _corr(r)
        rel = np.empty(m)
        loo = None
        for j in range(m):
            vals = []
            for k in range(m):
                for l in range(k + 1, m):
                    if g[j] in (g[k], g[l]) or g[k] == g[l] or abs(C[k, l]) < 1e-3:
                        continue
                    vals.append(C[j, k] * C[j, l] / C[k, l])
            if vals:
                rel[j] = np.sqrt(max(float(np.median(vals)), 0.0))
            else:  # no two other judges agree at all (e.g. one scores a constant): no triad identifies j
                loo = _leave_one_out(r, g) if loo is None else loo
                rel[j] = loo[j]
    elif method == "loo":
        rel = _leave_one_out(r, g)
    else:
        raise ValueError(f"unknown reliability method {method!r}; choose factor or loo")
    return np.clip(rel, REL_MIN, REL_MAX)


def reliability_to_lambda(reliability) -> np.ndarray:
    """The monotone map ρ -> λ (see the module doc)."""
    rho = np.clip(np.asarray(reliability, dtype=np.float64), REL_MIN, REL_MAX)
    snr = rho**2 / (1 - rho**2)
    lam = snr / np.exp(np.mean(np.log(snr)))
    return np.clip(lam, LAMBDA_MIN, LAMBDA_MAX)


def estimate_stubbornness(
    raw, method: str = "factor", n_boot: int = 200, level: float = 0.95, seed: int = 0, groups=None
) -> StubbornnessEstimate:
    """λ per judge from a batch of scored steps (..., m), with bootstrap intervals over rows;
    ``groups`` as in :func:`judge_reliability`."""
    r = _rows(raw)
    rel = judge_reliability(r, method, groups)
    lam = reliability_to_lambda(rel)
    rng = np.random.default_rng(seed)
    b_rel = np.empty((n_boot, rel.size))
    for b in range(n_boot):
        b_rel[b] = judge_reliability(r[rng.integers(0, r.shape[0], r.shape[0])], method, groups)
    lo, hi = (1 - level) / 2 * 100, (1 + level) / 2 * 100
    if n_boot:
        b_lam = np.stack([reliability_to_lambda(x) for x in b_rel])
        rel_ci = np.stack([np.percentile(b_rel, lo, axis=0), np.percentile(b_rel, hi, axis=0)], axis=1)
        lam_ci = np.stack([np.percentile(b_lam, lo, axis=0), np.percentile(b_lam, hi, axis=0)], axis=1)
    else:
        rel_ci = np.stack([rel, rel], axis=1)
        lam_ci = np.stack([lam, lam], axis=1)
    return StubbornnessEstimate(method, rel, rel_ci, lam, lam_ci, int(r.shape[0]), level)


@dataclass(frozen=True)
class Thresholds:
    tau: float
    eps: float
    method: str
    acceptance_rate: float  # on the calibration batch
    paper_tau: float = DEFAULT_TAU
    paper_eps: float = DEFAULT_EPS
    paper_acceptance_rate: float = float("nan")

    def as_dict(self) -> dict:
        return {
            k: getattr(self, k)
            for k in ("tau", "eps", "method", "acceptance_rate", "paper_tau", "paper_eps", "paper_acceptance_rate")
        }


def calibrate_thresholds(
    raw,
    lambdas,
    method: str = "target_rate",
    target_rate: float = 0.5,
    eps_quantile: float = 0.75,
    tau_quantile: float = 0.5,
    influence=None,
) -> Thresholds:
    """τ and ε from unlabelled candidates' raw scores (..., m) (see the module doc)."""
    st = consensus_stats(raw, lambdas, influence)
    ok = st.valid
    mean, disp = st.mean[ok], st.dispersion[ok]
    if mean.size < 5:
        raise ValueError(
            f"threshold calibration needs at least 5 candidates scored by two or more judges, got {mean.size}"
        )
    for name, q in (("target_rate", target_rate), ("eps_quantile", eps_quantile), ("tau_quantile", tau_quantile)):
        if not (0.0 < q <= 1.0):
            raise ValueError(f"{name} must lie in (0, 1], got {q}")
    eps = float(np.quantile(disp, eps_quantile)) + 1e-9  # Δ* < ε keeps the quantile itself
    if method == "quantiles":
        tau = float(np.quantile(mean, tau_quantile))
    elif method == "target_rate":
        passing = np.sort(mean[disp < eps])[::-1]
        want = int(round(target_rate * mean.size))
        if want == 0:
            tau = float(mean.max())
        elif want >= passing.size:
            tau = float(passing.min() - 1e-9) if passing.size else float(mean.max())
        else:
            tau = float((passing[want - 1] + passing[want]) / 2)
    else:
        raise ValueError(f"unknown threshold method {method!r}; choose target_rate or quantiles")
    rate = float(np.mean(accept_and_rank(mean, disp, tau, eps, False)[0]))
    paper = float(np.mean(accept_and_rank(mean, disp, DEFAULT_TAU, DEFAULT_EPS, False)[0]))
    return Thresholds(tau, eps, method, rate, paper_acceptance_rate=paper)
