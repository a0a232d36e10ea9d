"""Judge type ``embedding``: relevance from MiniLM sentence embeddings (:mod:`accord.adapters.local`)."""

from __future__ import annotations

from dataclasses import dataclass

from accord.adapters._registry import JudgeSpec, register_judge


@dataclass(frozen=True)
class EmbeddingSpec(JudgeSpec):
    """``{type: embedding}``."""


@register_judge("embedding", EmbeddingSpec, columns={"minilm_relevance": 1.0})
def _embedding(spec: EmbeddingSpec, models: dict):
    """Relevance: the step's MiniLM embedding against the question's; one column, ``minilm_relevance`` unless named."""
    from accord.adapters.local import EmbeddingRelevanceJudge

    return EmbeddingRelevanceJudge(spec.name or "minilm_relevance")
