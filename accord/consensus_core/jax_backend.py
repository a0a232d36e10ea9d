"""The consensus core jit-compiled with JAX; agrees with the numpy reference to 1e-12 in float64.

Importing this module turns on JAX's 64-bit mode (``jax_enable_x64``): the core's convention is
float64 everywhere, and float32 would not meet the agreement bound. Validation is done with the
numpy checks before entering jitted code, so bad input raises the same ValueError on both paths.

Failed judges (NaN) are handled without data-dependent shapes: the closed form masks them out,
and the general-W path solves a masked, batched m x m system per candidate.
"""

from __future__ import annotations

from functools import partial

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from accord.consensus_core.policies import DEFAULT_EPS, DEFAULT_TAU, default_lambdas  # noqa: E402
from accord.consensus_core.validation import as_influence, as_lambdas, as_scores  # noqa: E402

_LAST = -1e6


@jax.jit
def _closed_form(raw, lam):
    scored = ~jnp.isnan(raw)
    k = scored.sum(axis=-1, keepdims=True).astype(raw.dtype)
    km1 = k - 1.0
    r0 = jnp.where(scored, raw, 0.0)
    w = jnp.where(scored, 1.0 / jnp.where(scored, k + km1 * lam, 1.0), 0.0)
    lw = km1 * lam * w
    denom = 1.0 - w.sum(axis=-1, keepdims=True)
    S = (lw * r0).sum(axis=-1, keepdims=True) / jnp.where(k >= 2, denom, 1.0)
    s = jnp.where(k >= 2, w * S + lw * r0, r0)
    return jnp.where(scored, s, jnp.nan)


@jax.jit
def _general(raw, lam, W):
    m = raw.shape[-1]
    scored = ~jnp.isnan(raw)
    mf = scored.astype(raw.dtype)
    eye = jnp.eye(m, dtype=raw.dtype)
    k = mf.sum(axis=-1)[..., None, None]
    Wm = W * mf[..., None, :]  # keep influence from judges that scored
    sums = Wm.sum(axis=-1, keepdims=True)
    uniform = (mf[..., None, :] * (1.0 - eye)) / jnp.maximum(k - 1.0, 1.0)
    Wn = jnp.where(sums > 0, Wm / jnp.where(sums > 0, sums, 1.0), uniform)
    rows = mf[..., :, None]
    A = jnp.where(rows > 0, eye + jnp.diag(lam) - Wn, eye)
    r0 = jnp.where(scored, raw, 0.0)
    s = jnp.linalg.solve(A, (lam * r0)[..., None])[..., 0]
    s = jnp.where(k[..., 0] >= 2, s, r0)
    return jnp.where(scored, s, jnp.nan)


def consensus_jax(raw, lambdas, influence=None):
    """JAX twin of :func:`accord.consensus_core.consensus` (returns a jax array)."""
    r = as_scores(raw)
    lam = as_lambdas(lambdas, r.shape[-1])
    if influence is None:
        return _closed_form(jnp.asarray(r), jnp.asarray(lam))
    W = as_influence(influence, r.shape[-1])
    return _general(jnp.asarray(r), jnp.asarray(lam), jnp.asarray(W))


@jax.jit
def _stats(raw, s, lam):
    scored = ~jnp.isnan(raw)
    k = scored.sum(axis=-1)
    kk = jnp.maximum(k, 1)
    mean = jnp.where(k > 0, jnp.nansum(s, axis=-1) / kk, jnp.nan)
    raw_mean = jnp.where(k > 0, jnp.nansum(raw, axis=-1) / kk, jnp.nan)
    dispersion = jnp.where(k > 0, jnp.nansum(jnp.abs(s - mean[..., None]), axis=-1) / kk, jnp.nan)
    dev = raw - raw_mean[..., None]
    raw_mad = jnp.where(k > 0, jnp.nansum(jnp.abs(dev), axis=-1) / kk, jnp.nan)
    raw_var = jnp.where(k > 0, jnp.nansum(dev**2, axis=-1) / kk, jnp.nan)
    lam_b = jnp.where(scored, lam, 0.0)
    weighted = jnp.where(k > 0, jnp.nansum(lam_b * s, axis=-1) / jnp.where(k > 0, lam_b.sum(axis=-1), 1.0), jnp.nan)
    return {
        "consensus": s,
        "mean": mean,
        "weighted_mean": weighted,
        "dispersion": dispersion,
        "raw_mean": raw_mean,
        "raw_mad": raw_mad,
        "raw_var": raw_var,
        "n_scored": k,
    }


def consensus_stats_jax(raw, lambdas, influence=None) -> dict:
    """Consensus scores and statistics as a dict of jax arrays (same fields as ConsensusStats)."""
    r = as_scores(raw)
    lam = as_lambdas(lambdas, r.shape[-1])
    s = consensus_jax(r, lam, influence)
    return _stats(jnp.asarray(r), s, jnp.asarray(lam))


@partial(jax.jit, static_argnames=("general",))
def _verdict(raw, lam, W, tau, eps, general=False):
    s = _general(raw, lam, W) if general else _closed_form(raw, lam)
    st = _stats(raw, s, lam)
    valid = st["n_scored"] >= 2
    accepted = (st["mean"] > tau) & (st["dispersion"] < eps) & valid
    any_acc = accepted.any(axis=-1)
    one = st["n_scored"] == 1
    fb = jnp.where(valid, st["mean"] - st["dispersion"], jnp.where(one, _LAST + jnp.nan_to_num(st["raw_mean"]), -jnp.inf))
    key = jnp.where(any_acc[..., None], jnp.where(accepted, st["mean"], -jnp.inf), fb)
    key = jnp.where(jnp.isnan(key), -jnp.inf, key)
    chosen = jnp.argmax(key, axis=-1)
    chosen = jnp.where(jnp.all(jnp.isneginf(key), axis=-1), -1, chosen)
    return {
        "chosen": chosen,
        "accepted": accepted,
        "fallback": ~any_acc,
        "rank_key": key,
        "mean": st["mean"],
        "dispersion": st["dispersion"],
        "consensus": s,
    }


def verdict_decide_jax(raw, lambdas=None, influence=None, tau: float = DEFAULT_TAU, eps: float = DEFAULT_EPS) -> dict:
    """VERDICT's decision for raw scores (..., n, m), jit-compiled end to end (consensus, stats, choice)."""
    r = as_scores(raw)
    if r.ndim < 2:
        raise ValueError(f"decide needs scores of shape (..., n, m); got shape {r.shape}")
    m = r.shape[-1]
    lam = as_lambdas(lambdas if lambdas is not None else default_lambdas(m), m)
    if eps <= 0 or not np.isfinite(tau) or not np.isfinite(eps):
        raise ValueError(f"thresholds must be finite with eps > 0, got tau={tau}, eps={eps}")
    general = influence is not None
    W = as_influence(influence, m) if general else np.zeros((m, m))
    return _verdict(jnp.asarray(r), jnp.asarray(lam), jnp.asarray(W), float(tau), float(eps), general=general)
