"""VERDICT's rule is written once (accord.consensus_core.accept_and_rank) and the three paths that
decide with it — the numpy reference, the compiled kernels, JAX — decide alike on the same inputs:
ties, scores on a threshold, failed judges, a candidate with one score or none, random batches."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from accord.consensus_core import ConsensusSpec, accept_and_rank, get_policy
from accord.consensus_core import _fused as fused

ROOT = Path(__file__).resolve().parents[1] / "accord"
TAU, EPS = 0.6, 0.1


def _inputs() -> list[tuple[np.ndarray, ConsensusSpec]]:
    """(steps, n, m) scores with the panel's spec: the cases where the paths could part."""
    rng = np.random.default_rng(3)
    paper = ConsensusSpec((1.5, 1.0, 0.8))
    cases = [
        np.array([[[0.9, 0.9, 0.9], [0.9, 0.9, 0.9], [0.1, 0.2, 0.3]]]),  # a tie: the lowest index
        np.array([[[TAU, TAU, TAU], [0.7, 0.7, 0.7], [0.65, 0.65, 0.65]]]),  # a mean exactly on tau
        np.array([[[0.2, 0.3, 0.1], [0.4, 0.3, 0.35], [0.0, 0.0, 0.0]]]),  # nothing accepted: the fallback
        np.array([[[0.9, np.nan, 0.9], [np.nan, np.nan, 0.95], [0.7, 0.8, np.nan]]]),  # failed judges
        np.array([[[np.nan, np.nan, 0.99], [np.nan, np.nan, np.nan], [0.3, np.nan, np.nan]]]),  # one score or none
        np.array([[[1.0, 0.0, 1.0], [0.5, 0.5, 0.5], [1.0, 1.0, 1.0]]]),  # the ends of [0, 1]
        np.round(rng.random((300, 4, 3)), 1),  # coarse scores: many ties and near-threshold means
        rng.random((300, 5, 3)),
    ]
    out = [(c, paper) for c in cases]
    nan = rng.random((200, 4, 3))
    nan[rng.random(nan.shape) < 0.2] = np.nan
    W = np.array([[0.0, 0.7, 0.3], [0.5, 0.0, 0.5], [0.2, 0.8, 0.0]])
    out += [(nan, paper), (rng.random((200, 4, 3)), ConsensusSpec((2.0, 0.5, 1.0), W))]
    return out


INPUTS = _inputs()


@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_numpy_fused_and_jax_decide_verdict_alike(k):
    raw, spec = INPUTS[k]
    policy = get_policy("verdict", tau=TAU, eps=EPS)
    ref = policy.decide(raw, spec, path="reference")
    paths = {}
    if fused.available():
        paths["fused"] = policy.decide(raw, spec, path="fused")
    try:
        from accord.consensus_core.jax_backend import verdict_decide_jax
    except ImportError:
        pass
    else:
        paths["jax"] = verdict_decide_jax(raw, spec, tau=TAU, eps=EPS)
    assert paths, "neither numba nor jax is installed: nothing to compare the reference with"
    for name, got in paths.items():
        for field in ("chosen", "accepted", "fallback"):
            want = getattr(ref, field)
            have = np.asarray(got[field] if isinstance(got, dict) else getattr(got, field))
            np.testing.assert_array_equal(have, want, err_msg=f"{name} path, {field}")


def test_the_rule_on_its_own_terms():
    mean = np.array([0.7, 0.7, 0.6, 0.9, np.nan])
    spread = np.array([0.05, 0.1, 0.0, 0.2, 0.0])
    accepted, key, fallback = accept_and_rank(mean, spread, TAU, EPS, False)
    assert accepted.tolist() == [True, False, False, False, False]  # strict on both thresholds; NaN never
    np.testing.assert_array_equal(key, mean)
    np.testing.assert_allclose(fallback, mean - spread)
    _, margin_key, _ = accept_and_rank(mean, spread, TAU, EPS, True)
    np.testing.assert_allclose(margin_key, mean - spread)


def test_the_compiled_kernel_is_generated_from_the_rule():
    """The kernels' module carries the rule's own source and calls it: editing the rule changes them."""
    text = fused._header(False) + fused._step_source(2, 3, True, False)
    assert inspect.getsource(accept_and_rank) in text
    assert "accept_and_rank(u0, v0, tau, eps, rank_by_margin)" in text
    assert "> tau" not in text.replace(inspect.getsource(accept_and_rank), "")


# VERDICT's acceptance written out by hand: a mean compared with tau and a spread with eps in one expression
_WRITTEN_OUT = re.compile(r"[\w{}\[\].\"']+\s*>\s*[\w.]*(?i:tau)\w*\)?\s*&\s*\(?[\w{}\[\].\"']+\s*<\s*[\w.]*(?i:eps)")


def test_the_rule_is_written_in_one_place():
    """No module but the rule's writes VERDICT's acceptance out (the math engine is outside the rule's reach)."""
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("mathcheck/") or rel == "consensus_core/_rule.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if _WRITTEN_OUT.search(line) and not line.lstrip().startswith(("#", '"', "verdict ")):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert found == []
    for written in (  # the forms it was written in before it was written once
        "acc = (st.mean > self.tau) & (st.dispersion < self.eps)",
        'accepted = (st["mean"] > tau) & (st["dispersion"] < eps) & valid',
        'f"o{i} = (u{i} > tau) & (v{i} < eps)",',
        "paper = float(np.mean((mean > DEFAULT_TAU) & (disp < DEFAULT_EPS)))",
    ):
        assert _WRITTEN_OUT.search(written), written
