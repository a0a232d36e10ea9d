"""A prompted causal LM reading candidate code, in the step loop's three roles adapted to code.

Same machinery as the step loop's LLM judges (:mod:`accord.adapters.llm`): the score is read from
the next-token distribution (P(yes) over yes/no, or the expected digit / 9) by
:class:`accord.adapters.scoring.NextTokenScorer` in one batched call for all roles x candidates,
with the shared prompt prefix (instructions + problem) computed once.
"""

from __future__ import annotations

from typing import Sequence

from accord.adapters.code.spec import CodeSpec
from accord.adapters.llm import chat_prompt, model_lock
from accord.verify.protocols import JudgeScore, StepContext

CODE_ROLES: dict[str, str] = {
    "spec": (
        "Check GROUNDING IN THE SPECIFICATION: the proposed function body must use the parameters of "
        "the signature and do what the docstring asks, with no invented requirements or names."
    ),
    "correctness": (
        "Check CORRECTNESS: the proposed function body must return the right result for every example "
        "in the docstring and for edge cases (empty input, boundaries); no off-by-one errors, wrong "
        "operators, missing branches or wrong return values."
    ),
    "focus": (
        "Check FOCUS: the proposed function body must only solve the problem: no printing, no input, "
        "no file, process or network access, no unrelated code."
    ),
}
DEFAULT_CODE_LAMBDA = {"spec": 1.5, "correctness": 1.0, "focus": 0.8}
_CLOSING = {
    "yes_no": "Is the proposed code acceptable under this check? Answer yes or no.",
    "digits": "Rate the proposed code under this check from 0 (unacceptable) to 9 (fully acceptable). Answer with one digit.",
}
_SYSTEM = "You are a strict reviewer of Python code. You answer only as instructed."
_SENTINEL = "\x00CANDIDATE\x00"


def code_judge_items(tokenizer, role: str, mode: str, ctx: StepContext, candidates: Sequence[str]) -> list[tuple[str, str]]:
    """(prefix, suffix) per candidate: the prefix (role, problem, accepted code) is shared."""
    earlier = "".join(ctx.steps)
    body = f"{CODE_ROLES[role]}\n\nProblem:\n```python\n{ctx.question.rstrip()}\n{earlier}```\n\n{_SENTINEL}"
    prefix, tail = chat_prompt(tokenizer, _SYSTEM, body).split(_SENTINEL, 1)
    out = []
    for c in candidates:
        shown = c.rstrip() if c.strip() else "(empty: no code)"
        out.append((prefix, f"Proposed function body:\n```python\n{shown}\n```\n\n{_CLOSING[mode]}{tail}"))
    return out


class LLMCodeJudges:
    """Judge group: one panel column per role, ``{prefix}{role}``, all scored in one call."""

    def __init__(
        self,
        roles: Sequence[str] = ("spec", "correctness", "focus"),
        model: str = "smollm2",
        mode: str = "yes_no",
        name_prefix: str = "llm_code_",
        names: Sequence[str] | None = None,
        lm=None,
        tokenizer=None,
        cache=None,
        device: str = "cpu",
        dtype: str = "float32",
    ):
        from accord.adapters.scoring import MODES, NextTokenScorer

        unknown = [r for r in roles if r not in CODE_ROLES]
        if unknown or not roles:
            raise ValueError(f"unknown code judge role(s) {unknown or list(roles)}; choose from {sorted(CODE_ROLES)}")
        if mode not in MODES:
            raise ValueError(f"LLM judge mode must be one of {MODES}, got {mode!r}")
        if lm is None:
            from accord.adapters.models import load_causal_lm

            lm, tokenizer = load_causal_lm(model, device, dtype)
        self.roles = tuple(roles)
        self.mode = mode
        self.names = list(names) if names is not None else [f"{name_prefix}{r}" for r in roles]
        if len(self.names) != len(self.roles):
            raise ValueError(f"{len(self.names)} names given for {len(self.roles)} roles")
        self.lm, self.tokenizer = lm, tokenizer
        self.scorer = NextTokenScorer(lm, tokenizer, mode=mode, model_id=model, cache=cache, judge=f"accord-code-judge/{mode}")
        self.last_tokens = 0

    def describe(self) -> dict:
        return {"roles": dict(zip(self.names, self.roles)), **self.scorer.describe()}

    def score_many(self, ctx: StepContext, candidates: Sequence[str]) -> list[list[JudgeScore]]:
        CodeSpec.from_context(ctx)  # a code judge outside a code task is a misconfiguration
        items = [it for r in self.roles for it in code_judge_items(self.tokenizer, r, self.mode, ctx, candidates)]
        before = self.scorer.stats.prefix_tokens_computed + self.scorer.stats.suffix_tokens
        with model_lock(self.lm):
            values = self.scorer.score(items)
        self.last_tokens = self.scorer.stats.prefix_tokens_computed + self.scorer.stats.suffix_tokens - before
        n = len(candidates)
        return [[JudgeScore(v) for v in values[k * n : (k + 1) * n]] for k in range(len(self.roles))]


class LLMCodeJudge:
    """One role as a plain judge (``name``, ``score``), e.g. for the model-free pool's panel."""

    def __init__(self, role: str = "correctness", **kwargs):
        self._group = LLMCodeJudges((role,), **kwargs)
        self.name = self._group.names[0]

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        return self._group.score_many(ctx, candidates)[0]
