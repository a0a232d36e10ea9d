"""The consensus core jit-compiled with JAX; agrees with the numpy reference to 1e-12 in float64.
JAX is the ``jax`` extra (``pip install 'accord[jax]'``).

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

from accord.consensus_core._equilibrium import influence_matrix  # noqa: E402
from accord.consensus_core._fused import MARGIN  # noqa: E402
from accord.consensus_core._policies import DEFAULT_EPS, DEFAULT_TAU, Verdict, panel_spec  # noqa: E402
from accord.consensus_core._rule import accept_and_rank  # noqa: E402
from accord.consensus_core._spec import ConsensusSpec  # noqa: E402
from accord.consensus_core._validation import as_influence, as_lambdas, as_scores  # noqa: E402

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


def _choose(mean, spread, tau, eps, accepted, key, fallback):
    """The choice on stacked (steps, n) keys: the best accepted candidate by ``key``, else the best by
    ``fallback``; ties to the lowest index, -1 when every key is -inf (as the numpy reference). Also
    which steps are near a threshold or a tie (``near``): there float rounding may part from the
    reference, which decides them again (as it does for the compiled kernels)."""
    any_acc = accepted.any(axis=-1)
    final = jnp.where(any_acc[..., None], jnp.where(accepted, key, -jnp.inf), fallback)
    final = jnp.where(jnp.isnan(final), -jnp.inf, final)
    chosen = jnp.argmax(final, axis=-1)  # the first of equal maxima
    chosen = jnp.where(jnp.all(jnp.isneginf(final), axis=-1), -1, chosen)
    near = ((jnp.abs(mean - tau) <= MARGIN) | (jnp.abs(spread - eps) <= MARGIN)).any(axis=-1)
    if final.shape[-1] > 1:
        top = jnp.sort(final, axis=-1)
        near = near | (top[..., -2] >= top[..., -1] - MARGIN)
    return chosen, ~any_acc, near


@partial(jax.jit, static_argnames=("general",))
def _verdict(raw, lam, W, tau, eps, general=False):
    """VERDICT with failed judges (NaN): a candidate scored by fewer than two judges is never accepted
    and ranks below every valid one (one score: by it; none: never chosen)."""
    s = _general(raw, lam, W) if general else _closed_form(raw, lam)
    st = _stats(raw, s, lam)
    valid = st["n_scored"] >= 2
    accepted, key, fallback = accept_and_rank(st["mean"], st["dispersion"], tau, eps, False)
    accepted = accepted & valid
    one = st["n_scored"] == 1
    fallback = jnp.where(valid, fallback, jnp.where(one, _LAST + jnp.nan_to_num(st["raw_mean"]), -jnp.inf))
    chosen, fell_back, near = _choose(st["mean"], st["dispersion"], tau, eps, accepted, key, fallback)
    return {
        "chosen": chosen,
        "accepted": accepted,
        "fallback": fell_back,
        "near": near,
        "mean": st["mean"],
        "dispersion": st["dispersion"],
        "consensus": s,
    }


@jax.jit
def _verdict_clean(raw, a, D, tau, eps):
    """VERDICT for a batch with no failed judge: s̄* = r·a, s* − s̄* = r Dᵀ, unrolled over n and m.

    Unrolling turns every reduction over the short candidate and judge axes into elementwise
    work on (steps,) vectors, which XLA fuses into a single pass over the input. Also returns
    whether every score was in [0, 1] (NaN fails that test); if not, the caller takes the
    NaN-aware path.
    """
    steps, n, m = raw.shape
    means, disps = [], []
    clean = jnp.ones((steps,), dtype=bool)
    for i in range(n):
        cols = [raw[:, i, j] for j in range(m)]
        for c in cols:
            clean = clean & (c >= 0.0) & (c <= 1.0)
        means.append(sum(a[j] * cols[j] for j in range(m)))
        disps.append(sum(jnp.abs(sum(D[k, j] * cols[j] for j in range(m))) for k in range(m)) / m)
    mean, dispersion = jnp.stack(means, axis=-1), jnp.stack(disps, axis=-1)
    accepted, key, fallback = accept_and_rank(mean, dispersion, tau, eps, False)
    chosen, fell_back, near = _choose(mean, dispersion, tau, eps, accepted, key, fallback)
    return {
        "chosen": chosen,
        "accepted": accepted,
        "fallback": fell_back,
        "near": near,
        "mean": mean,
        "dispersion": dispersion,
        "clean": jnp.all(clean),
    }


def verdict_decide_jax(
    raw, spec: ConsensusSpec | None = None, tau: float = DEFAULT_TAU, eps: float = DEFAULT_EPS
) -> dict:
    """VERDICT's decision for raw scores (..., n, m) with the panel's λ and W (``spec``; None: λ = 1
    each, as :meth:`Policy.decide`), jit-compiled end to end: the numpy policy's decisions.

    Returns a dict of jax arrays: chosen, accepted, fallback, mean (s̄*), dispersion (Δ*). A batch
    with no failed judge takes a lean kernel that never materialises s* (use :func:`consensus_jax`
    for the scores themselves); a batch with NaN (failed judges) takes the NaN-aware kernel, which
    also returns ``consensus``. Steps near a threshold or a tie are decided again by the numpy
    reference, so rounding never parts the two. Bad scores or thresholds raise the same ValueError
    as the numpy path.
    """
    r = np.asarray(raw, dtype=np.float64)
    if r.ndim < 2 or r.shape[-1] < 2:
        raise ValueError(f"decide needs scores of shape (..., n, m) with m >= 2; got shape {r.shape}")
    policy = Verdict(tau=tau, eps=eps)  # the thresholds checked as the policy checks them
    spec = panel_spec(spec, r)
    m, general = spec.m, spec.influence is not None
    W = spec.influence if general else np.zeros((m, m))
    M = influence_matrix(spec.lam, spec.influence, m)
    a = M.mean(axis=0)
    batch = r.shape[:-2]
    flat = jnp.asarray(r).reshape((-1,) + r.shape[-2:])
    out = _verdict_clean(flat, jnp.asarray(a), jnp.asarray(M - a[None, :]), policy.tau, policy.eps)
    if not bool(out.pop("clean")):
        spec.check(r)  # raises for out-of-range or infinite scores; NaN (failed judges) passes
        out = _verdict(flat, jnp.asarray(spec.lam), jnp.asarray(W), policy.tau, policy.eps, general=general)
    redo = np.flatnonzero(np.asarray(out.pop("near")))
    if redo.size:  # near a threshold or a tie: the reference's decision, as on the compiled path
        ref = policy.decide_reference(r.reshape(flat.shape)[redo], spec)
        for name in ("chosen", "accepted", "fallback"):
            out[name] = out[name].at[redo].set(getattr(ref, name))
    return {k: v.reshape(batch + v.shape[1:]) for k, v in out.items()}
