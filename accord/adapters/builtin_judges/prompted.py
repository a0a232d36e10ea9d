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


def _columns(kind: str, roles) -> dict[str, float]:
    """The paper's λ per role (V, L, C): the columns named ``{kind}_{role}`` and, in a score table,
    ``{role}`` alone."""
    lam = dict(zip(roles, PAPER_LAMBDA))
    return {**{f"{kind}_{r}": v for r, v in lam.items()}, **lam}


def _group(kind: str, known_roles, specs: list[_PromptedSpec], local) -> Columns:
    """The judge group of specs sharing one model: served, or ``local(key, roles, names)``; a column per role."""
    key = _key(specs[0], kind, known_roles)
    roles, names = [s.role for s in specs], [s.name or f"{kind}_{s.role}" for s in specs]
    if key[0] == "served":
        from accord.adapters.served import build_served_judges

        judges = build_served_judges(kind, key[1], roles, names)
    else:
        judges = local(key, roles, names)
    return Columns(judges, tuple(f"{kind}_{r}" for r in roles))


@register_judge("llm", LLMSpec, group_by=lambda s: _key(s, "llm", LLM_ROLES), columns=_columns("llm", LLM_ROLES))
def _llm(specs: list[LLMSpec], models: dict):
    """A prompted LLM in one role (grounding, logic, relevance), local or served: P(yes) to its question."""

    def local(key, roles, names):
        from accord.adapters.local import LLMJudges

        _, model, mode = key
        lm, tok = models.get(model, (None, None))
        return LLMJudges(roles, model=model, mode=mode, names=names, lm=lm, tokenizer=tok)

    return _group("llm", LLM_ROLES, specs, local)


@register_judge("vlm", VLMSpec, group_by=lambda s: _key(s, "vlm", VLM_ROLES), columns=_columns("vlm", VLM_ROLES))
def _vlm(specs: list[VLMSpec], models: dict):
    """A prompted vision-language model in one role (visual, logical, contextual), local or served."""

    def local(key, roles, names):
        from accord.adapters.local import VLMJudges, shared_vlm

        _, model, mode, device, dtype = key
        return VLMJudges(roles, mode=mode, names=names, vlm=shared_vlm(model, device, dtype))

    return _group("vlm", VLM_ROLES, specs, local)
