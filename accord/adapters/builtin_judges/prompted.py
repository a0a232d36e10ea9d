"""Judge types ``llm`` and ``vlm``: a prompted model in one role per entry, local or served.

Entries naming the same model (and mode, device, ...; or the same served endpoint and options) are
one judge group: the model scores all their roles in one call, one panel column per role, named
``{type}_{role}`` unless the entry gives a ``name``. Default λ: the paper's per role (``PAPER_LAMBDA``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accord.adapters._registry import Columns, register_judge
from accord.adapters.local import LLM_ROLES, VLM_ROLES
from accord.adapters.served import ServedSpec, judge_group_key
from accord.consensus_core import PAPER_LAMBDA

# the paper's λ per role (V, L, C), the columns named {type}_{role} and, in a score table, {role} alone
LLM_LAMBDA = dict(zip(LLM_ROLES, PAPER_LAMBDA))
VLM_LAMBDA = dict(zip(VLM_ROLES, PAPER_LAMBDA))

_SERVED = (
    "base_url",
    "api_key_env",
    "max_concurrency",
    "timeout_s",
    "max_retries",
    "cache",
    "max_tokens",
    "top_logprobs",
    "batch",
    "prompt",
)


@dataclass(frozen=True)
class _PromptedSpec(ServedSpec):
    role: str | None = None
    mode: str | None = None  # yes_no (default) or digits
    top_logprobs: int | None = None  # served only, like the endpoint's keys
    batch: Any = None  # served only: "auto" (one completions request per step where the server allows) or false
    # served only: "auto" (the local judge's prompt where the server allows, else the question), "question"
    # (the check asked in the user's turn) or "local" (the local judge's prompt)
    prompt: str | None = None

    def served_options(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("model", "mode", *_SERVED) if getattr(self, k) is not None}

    def check(self, kind: str, roles) -> None:
        if self.role not in roles:
            raise ValueError(f"{kind} judge needs a 'role' in {sorted(roles)}, got {self.role!r}")
        extra = [k for k in _SERVED if getattr(self, k) is not None] if not self.served else []
        if extra:
            raise ValueError(f"{kind} judge takes no option(s) {extra} without a 'base_url'")


@dataclass(frozen=True)
class LLMSpec(_PromptedSpec):
    """``{type: llm, role: grounding|logic|relevance, model: smollm2, mode: yes_no}``."""


@dataclass(frozen=True)
class VLMSpec(_PromptedSpec):
    """``{type: vlm, role: visual|logical|contextual, model: PATH_OR_NAME, device: cpu, dtype: float32}``."""

    device: str | None = None
    dtype: str | None = None


def _key(spec: _PromptedSpec, kind: str, roles) -> tuple:
    spec.check(kind, roles)
    if spec.served:
        extra = [k for k in ("device", "dtype") if getattr(spec, k, None) is not None]
        if extra:
            raise ValueError(f"{kind} judge: served judge takes no option(s) {extra}")
        return ("served", judge_group_key(spec.served_options()))
    if kind == "llm":
        return ("local", spec.model or "smollm2", spec.mode or "yes_no")
    if not isinstance(spec.model, str) or not spec.model:
        raise ValueError("vlm judge needs a 'model' (a local folder or a cached name)")
    return ("local", spec.model, spec.mode or "yes_no", spec.device or "cpu", spec.dtype or "float32")


def _names(specs, kind: str) -> tuple[list[str], list[str]]:
    return [s.role for s in specs], [s.name or f"{kind}_{s.role}" for s in specs]


@register_judge(
    "llm",
    LLMSpec,
    group_by=lambda s: _key(s, "llm", LLM_ROLES),
    columns={**{f"llm_{r}": v for r, v in LLM_LAMBDA.items()}, **LLM_LAMBDA},
)
def _llm(specs: list[LLMSpec], models: dict):
    """A prompted LLM in one role (grounding, logic, relevance), local or served: P(yes) to its question."""
    key = _key(specs[0], "llm", LLM_ROLES)
    roles, names = _names(specs, "llm")
    columns = tuple(f"llm_{r}" for r in roles)
    if key[0] == "served":
        from accord.adapters.served import build_served_judges

        return Columns(build_served_judges("llm", key[1], roles, names), columns)
    from accord.adapters.local import LLMJudges

    _, model, mode = key
    lm, tok = models.get(model, (None, None))
    return Columns(LLMJudges(roles, model=model, mode=mode, names=names, lm=lm, tokenizer=tok), columns)


@register_judge(
    "vlm",
    VLMSpec,
    group_by=lambda s: _key(s, "vlm", VLM_ROLES),
    columns={**{f"vlm_{r}": v for r, v in VLM_LAMBDA.items()}, **VLM_LAMBDA},
)
def _vlm(specs: list[VLMSpec], models: dict):
    """A prompted vision-language model in one role (visual, logical, contextual), local or served."""
    key = _key(specs[0], "vlm", VLM_ROLES)
    roles, names = _names(specs, "vlm")
    columns = tuple(f"vlm_{r}" for r in roles)
    if key[0] == "served":
        from accord.adapters.served import build_served_judges

        return Columns(build_served_judges("vlm", key[1], roles, names), columns)
    from accord.adapters.local import VLMJudges, shared_vlm

    _, model, mode, device, dtype = key
    return Columns(VLMJudges(roles, mode=mode, names=names, vlm=shared_vlm(model, device, dtype)), columns)
