"""A transformers causal LM as a step generator, and the LLM judges in the paper's three roles.

The generator proposes one reasoning step per call: the n candidates are sampled together, seeded,
from one computation of the prompt whose cache the chain's next, longer prompt reuses
(:mod:`accord.adapters.local._sampling`; temperature 0.8, top-p 0.6 by default, as in the VERDICT paper),
and each candidate stops at its first newline after some text, or at end of text.

The judges read a score from next-token probabilities in one forward pass (P(yes) normalised over
yes/no, or the expected digit 0-9 / 9) through :class:`accord.adapters.local._scoring.NextTokenScorer`;
they never generate and parse text. All roles that share a model are scored in one call.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from accord.protocols import JudgeScore, StepContext

DEFAULT_SYSTEM = (
    "You solve problems step by step. Write exactly one short step per line. "
    "When you know the result, write a last line of the form 'The answer is <value>.'"
)
# One worked exchange shown before the question: it teaches the one-step-per-line format.
DEFAULT_EXAMPLE = ("Calculate 14 + 9 - 5.\nReason step by step.", "14 + 9 = 23\n23 - 5 = 18\nThe answer is 18.")
FINAL_PATTERN = re.compile(r"(the\s+(final\s+)?answer\s+is|answer\s*:|####|\\boxed\{)", re.IGNORECASE)

# One lock per model object: generation and scoring on the same weights never overlap.
_MODEL_LOCKS: dict[int, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def model_lock(model) -> threading.Lock:
    """The lock that serialises use of one model object across threads."""
    with _LOCKS_GUARD:
        return _MODEL_LOCKS.setdefault(id(model), threading.Lock())


def chat_prompt(
    tokenizer, system: str, user: str, assistant_prefix: str = "", example: tuple[str, str] | None = None
) -> str:
    """The model's chat template (with an optional worked example exchange first) and a
    generation prompt, followed by an assistant prefix."""
    messages = [{"role": "system", "content": system}]
    if example:
        messages += [{"role": "user", "content": example[0]}, {"role": "assistant", "content": example[1]}]
    messages.append({"role": "user", "content": user})
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    else:
        text = "".join(m["content"] + "\n\n" for m in messages)
    return text + assistant_prefix


def steps_text(steps: Sequence[str]) -> str:
    """Accepted steps as the assistant has written them so far (one per line)."""
    return "".join(s + "\n" for s in steps)


class StopWhen:
    """Per-row stopping for ``generate``: a row is done once ``done(its new text)`` holds."""

    def __init__(self, tokenizer, prompt_len: int, done: Callable[[str], bool]):
        self.tokenizer = tokenizer
        self.prompt_len = prompt_len
        self.done = done

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        rows = input_ids[:, self.prompt_len :]
        flags = [self.done(self.tokenizer.decode(row, skip_special_tokens=True)) for row in rows]
        return torch.tensor(flags, dtype=torch.bool, device=input_ids.device)


def ends_line(text: str) -> bool:
    """A step is complete once its text has a newline after non-space text."""
    return "\n" in text.lstrip()


def check_sampling(temperature: float, top_p: float, max_new_tokens: int) -> None:
    if temperature < 0 or not (0 < top_p <= 1) or max_new_tokens < 1:
        raise ValueError(
            f"generator needs temperature >= 0, 0 < top_p <= 1, max_new_tokens >= 1; got "
            f"{temperature}, {top_p}, {max_new_tokens}"
        )


class CausalLMGenerator:
    """Set-up shared by the causal-LM generators (dataclasses with ``model``, ``device``, ``dtype``
    and the sampling fields): checks, loading, a constructor over an already loaded model, and
    sampling that computes each prompt once and reuses its cache as the chain grows."""

    max_prompt_cache_tokens = 8192  # prompt KV kept between calls (least recently used evicted)
    seeded_by_row = True  # candidate i depends on (seed, i) only: ``propose(..., first=i)`` continues a call

    def __post_init__(self) -> None:
        check_sampling(self.temperature, self.top_p, self.max_new_tokens)
        from accord.adapters.local._models import load_causal_lm

        self.lm, self.tokenizer = load_causal_lm(self.model, self.device, self.dtype)
        self._start()

    def _start(self) -> None:
        from accord.adapters.local._sampling import PromptSampler

        self.sampler = PromptSampler(self.lm, self.tokenizer, self.max_prompt_cache_tokens)
        self.last_stats: dict[str, Any] = {"generated": 0, "prompt": 0}

    @classmethod
    def from_loaded(cls, lm, tokenizer, **kwargs):
        """A generator over an already loaded (model, tokenizer) pair (tests, shared models)."""
        unknown = set(kwargs) - set(cls.__dataclass_fields__)
        if unknown:
            raise TypeError(f"{cls.__name__} has no option(s) {sorted(unknown)}")
        self = cls.__new__(cls)
        for k, f in cls.__dataclass_fields__.items():
            setattr(self, k, kwargs.get(k, f.default))
        check_sampling(self.temperature, self.top_p, self.max_new_tokens)
        self.lm, self.tokenizer = lm, tokenizer
        self._start()
        return self

    def clear_prompt_cache(self) -> None:
        """Drops every kept prompt KV (e.g. to free memory, or to time a run from cold)."""
        with model_lock(self.lm):
            self.sampler.prompts.clear()

    def sample(self, prompt: str, n: int, seed: int, done: Callable[[str], bool], first: int = 0) -> list[list[int]]:
        """Continuations ``first`` .. ``first + n - 1`` of ``prompt`` under ``seed`` (token ids), the prompt
        computed once and its cache kept for the chain's next, longer prompt; the work goes to ``last_stats``."""
        with model_lock(self.lm):
            out = self.sampler.sample(prompt, n, seed, self.temperature, self.top_p, self.max_new_tokens, done, first)
        per = [max(1, len(r)) for r in out.rows]
        self.last_stats = {
            "generated": sum(per),
            "prompt": out.prompt_computed,
            "prompt_reused": out.prompt_reused,
            "per_candidate": per,
        }
        return out.rows


@dataclass
class TransformersGenerator(CausalLMGenerator):
    """Proposes candidate next steps with a causal LM; ``model`` is "smollm2", a name or a path."""

    model: str = "smollm2"
    temperature: float = 0.8
    top_p: float = 0.6
    max_new_tokens: int = 48
    system_prompt: str = DEFAULT_SYSTEM
    instruction: str = "Reason step by step."
    example: tuple[str, str] | None = DEFAULT_EXAMPLE
    device: str = "cpu"
    dtype: str = "float32"

    def prompt(self, ctx: StepContext) -> str:
        user = f"{ctx.question}\n{self.instruction}".strip()
        return chat_prompt(self.tokenizer, self.system_prompt, user, steps_text(ctx.steps), self.example)

    def propose(self, ctx: StepContext, n: int, seed: int, first: int = 0) -> list[str]:
        """Candidate next steps ``first`` .. ``first + n - 1``, sampled together from one computation of the prompt."""
        rows = self.sample(self.prompt(ctx), n, seed, ends_line, first)
        return [self.tokenizer.decode(ids, skip_special_tokens=True).lstrip().split("\n", 1)[0].strip() for ids in rows]

    def is_final(self, step: str) -> bool:
        """A step ends the answer when it states the answer, or when the model wrote nothing more."""
        return not step.strip() or bool(FINAL_PATTERN.search(step))


# --------------------------------------------------------------------------- judges
LLM_ROLES: dict[str, str] = {
    "grounding": (
        "Check GROUNDING: every number, quantity and fact the proposed step uses must come from the "
        "question or from the earlier steps; nothing may be invented or misread."
    ),
    "logic": (
        "Check LOGICAL VALIDITY: the proposed step must follow from the question and the earlier "
        "steps, every calculation in it must be correct, and it must move toward the answer."
    ),
    "relevance": (
        "Check RELEVANCE: the proposed step must stay on the question asked, with no off-topic, "
        "speculative or repeated content."
    ),
}
CLOSING = {  # one check's closing question (judges that ask about one role per prompt)
    "yes_no": "Is the proposed step acceptable under this check? Answer yes or no.",
    "digits": "Rate the proposed step under this check from 0 (unacceptable) to 9 (fully acceptable). Answer with one "
    "digit.",
}
LLM_JUDGE_SYSTEM = "You are a strict grader of reasoning steps. You answer only as instructed."
_ANSWER_FORMAT = {
    "yes_no": "Judge the proposed step under each check separately: for each check write its name, a colon, "
    "and yes if the step passes it or no if it does not.",
    "digits": "Judge the proposed step under each check separately: for each check write its name, a colon, "
    "and one digit from 0 (fails it) to 9 (fully passes it).",
}


def role_label(role: str) -> str:
    """The check's name as written in the prompt ("LOGICAL VALIDITY"); the answer is read after it."""
    m = re.match(r"Check ([A-Z][A-Z ]*[A-Z]):", LLM_ROLES[role])
    return m.group(1) if m else role.upper()


def judge_body(mode: str, ctx: StepContext, candidate: str) -> str:
    """The judge's user message for one candidate: every check's definition and the answer format,
    the question, the earlier steps, then the candidate (the same for all roles)."""
    earlier = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(ctx.steps)) or "(none yet)"
    checks = "\n".join(f"- {text}" for text in LLM_ROLES.values())
    step = candidate if candidate.strip() else "(empty: the reasoning stops here)"
    return (
        f"Checks:\n{checks}\n\n{_ANSWER_FORMAT[mode]}\n\nQuestion: {ctx.question}\n\n"
        f"Earlier steps:\n{earlier}\n\nProposed step: {step}"
    )


def judge_items(tokenizer, role: str, mode: str, ctx: StepContext, candidates: Sequence[str]) -> list[tuple[str, str]]:
    """(prefix, suffix) prompts for one role, laid out so that judging costs little.

    The prefix is the chat prompt of :func:`judge_body`: it is the same for all roles of a
    candidate, and all candidates share everything before the candidate (its key/value cache is
    computed once, and extended as the chain grows), so each candidate costs only its own tokens.
    The suffix is only the role's label ("LOGICAL VALIDITY:"), after which the yes/no (or digit)
    token is read.
    """
    return [
        (chat_prompt(tokenizer, LLM_JUDGE_SYSTEM, judge_body(mode, ctx, c)), f"{role_label(role)}:") for c in candidates
    ]


class LLMJudges:
    """A prompted causal LM judging in one or more roles; all roles x candidates in one scorer call.

    Each role is one panel column named ``{name_prefix}{role}`` (every role of ``role_prompts`` by
    default). Scores are next-token probabilities (``mode="yes_no"``: P(yes) normalised over yes/no;
    ``"digits"``: expected digit / 9). Subclasses for other kinds of step (e.g. code) override
    ``role_prompts``, ``column_prefix``, ``judge_tag``, ``kind`` and ``items``: the prompt building;
    the scoring machinery stays here.
    """

    role_prompts: dict[str, str] = LLM_ROLES
    column_prefix = "llm_"
    judge_tag = "accord-llm-judge"
    kind = "LLM judge"

    def __init__(
        self,
        roles: Sequence[str] | None = None,
        model: str = "smollm2",
        mode: str = "yes_no",
        name_prefix: str | None = None,
        names: Sequence[str] | None = None,
        lm=None,
        tokenizer=None,
        cache=None,
        device: str = "cpu",
        dtype: str = "float32",
    ):
        from accord.adapters.local._scoring import NextTokenScorer, check_roles_and_mode

        roles = tuple(self.role_prompts) if roles is None else roles
        name_prefix = self.column_prefix if name_prefix is None else name_prefix
        check_roles_and_mode(self.kind, roles, self.role_prompts, mode)
        if lm is None:
            from accord.adapters.local._models import load_causal_lm

            lm, tokenizer = load_causal_lm(model, device, dtype)
        self.roles = tuple(roles)
        self.mode = mode
        self.names = list(names) if names is not None else [f"{name_prefix}{r}" for r in roles]
        if len(self.names) != len(self.roles):
            raise ValueError(f"{len(self.names)} names given for {len(self.roles)} roles")
        self.lm, self.tokenizer = lm, tokenizer
        self.scorer = NextTokenScorer(
            lm, tokenizer, mode=mode, model_id=model, cache=cache, judge=f"{self.judge_tag}/{mode}"
        )
        self.last_tokens = 0

    def describe(self) -> dict:
        """How the scores are read (recorded in the run's trace header)."""
        return {"roles": dict(zip(self.names, self.roles)), **self.scorer.describe()}

    def items(self, role: str, ctx: StepContext, candidates: Sequence[str]) -> list[tuple[str, str]]:
        """The (prefix, suffix) prompts of one role for every candidate."""
        return judge_items(self.tokenizer, role, self.mode, ctx, candidates)

    def score_many(self, ctx: StepContext, candidates: Sequence[str]) -> list[list[JudgeScore]]:
        """Scores per role (outer) per candidate (inner), from one batched scorer call."""
        items = [it for role in self.roles for it in self.items(role, ctx, candidates)]
        before = self.scorer.stats.prefix_tokens_computed + self.scorer.stats.suffix_tokens
        with model_lock(self.lm):
            values = self.scorer.score(items)
        self.last_tokens = self.scorer.stats.prefix_tokens_computed + self.scorer.stats.suffix_tokens - before
        n = len(candidates)
        return [[JudgeScore(v) for v in values[k * n : (k + 1) * n]] for k in range(len(self.roles))]


class LLMJudge:
    """One role of :class:`LLMJudges` as a plain :class:`~accord.protocols.Judge`."""

    group = LLMJudges

    def __init__(self, role: str = "logic", **kwargs):
        self._group = self.group((role,), **kwargs)
        self.name = self._group.names[0]

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        return self._group.score_many(ctx, candidates)[0]
