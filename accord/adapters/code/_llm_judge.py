"""A prompted causal LM reading candidate code, in the step loop's three roles adapted to code.

Same machinery as the step loop's LLM judges (:mod:`accord.adapters.local`): the score is read from
the next-token distribution (P(yes) over yes/no, or the expected digit / 9) by
:class:`accord.adapters.local.NextTokenScorer` in one batched call for all roles x candidates,
with the shared prompt prefix (instructions + problem) computed once.
"""

from __future__ import annotations

from collections.abc import Sequence

from accord.adapters.code._spec import CodeSpec
from accord.adapters.local import LLMJudge, LLMJudges, chat_prompt
from accord.protocols import JudgeScore, StepContext

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
_CODE_CLOSING = {
    "yes_no": "Is the proposed code acceptable under this check? Answer yes or no.",
    "digits": "Rate the proposed code under this check from 0 (unacceptable) to 9 (fully acceptable). Answer with one "
    "digit.",
}
_SYSTEM = "You are a strict reviewer of Python code. You answer only as instructed."
_SENTINEL = "\x00CANDIDATE\x00"


def code_judge_items(
    tokenizer, role: str, mode: str, ctx: StepContext, candidates: Sequence[str]
) -> list[tuple[str, str]]:
    """(prefix, suffix) per candidate: the prefix (role, problem, accepted code) is shared."""
    earlier = "".join(ctx.steps)
    body = f"{CODE_ROLES[role]}\n\nProblem:\n```python\n{ctx.question.rstrip()}\n{earlier}```\n\n{_SENTINEL}"
    prefix, tail = chat_prompt(tokenizer, _SYSTEM, body).split(_SENTINEL, 1)
    out = []
    for c in candidates:
        shown = c.rstrip() if c.strip() else "(empty: no code)"
        out.append((prefix, f"Proposed function body:\n```python\n{shown}\n```\n\n{_CODE_CLOSING[mode]}{tail}"))
    return out


class LLMCodeJudges(LLMJudges):
    """Judge group: one panel column per code role, ``{prefix}{role}``, all scored in one call."""

    role_prompts = CODE_ROLES
    column_prefix = "llm_code_"
    judge_tag = "accord-code-judge"
    kind = "code judge"

    def items(self, role: str, ctx: StepContext, candidates: Sequence[str]) -> list[tuple[str, str]]:
        return code_judge_items(self.tokenizer, role, self.mode, ctx, candidates)

    def score_many(self, ctx: StepContext, candidates: Sequence[str]) -> list[list[JudgeScore]]:
        CodeSpec.from_context(ctx)  # a code judge outside a code task is a misconfiguration
        return super().score_many(ctx, candidates)


class LLMCodeJudge(LLMJudge):
    """One code role as a plain judge (``name``, ``score``), e.g. for the model-free pool's panel."""

    group = LLMCodeJudges

    def __init__(self, role: str = "correctness", **kwargs):
        super().__init__(role, **kwargs)
