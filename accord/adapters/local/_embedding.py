"""Contextual relevance from sentence embeddings (all-MiniLM-L6-v2): a cheap, model-free-of-prompts judge.

The score is the cosine similarity between the candidate step and the question (with the last
accepted step, which is what the next step should continue from), clipped to [0, 1]: unrelated
text lands near 0, a step that restates or works on the question's quantities scores high. An
empty step cannot be embedded meaningfully and is recorded as a failure, not scored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from accord.protocols import JudgeScore, StepContext


class EmbeddingRelevanceJudge:
    """Cosine similarity of candidate and (question + last step), clipped to [0, 1]."""

    def __init__(self, name: str = "minilm_relevance", model=None, device: str = "cpu"):
        if model is None:
            from accord.adapters.local._models import load_minilm

            model = load_minilm(device)
        self.name = name
        self.model = model

    def describe(self) -> dict:
        return {"scoring": "cosine similarity, clipped to [0, 1]", "model": "all-MiniLM-L6-v2"}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        anchor = ctx.question + ("\n" + ctx.steps[-1] if ctx.steps else "")
        live = [i for i, c in enumerate(candidates) if c.strip()]
        out = [JudgeScore.failed("empty step: nothing to embed")] * len(candidates)
        if not live:
            return list(out)
        emb = self.model.encode(
            [anchor] + [candidates[i] for i in live], convert_to_numpy=True, normalize_embeddings=True
        )
        sims = np.clip(emb[1:] @ emb[0], 0.0, 1.0)
        out = list(out)
        for i, s in zip(live, sims):
            out[i] = JudgeScore(float(s))
        return out
