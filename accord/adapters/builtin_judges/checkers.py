"""Judge types ``code_check`` and ``critic``: served models that reason about a step (a checking
program run in the sandbox; ProcessBench's critic prompt). See :mod:`accord.adapters.served`."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from accord.adapters._registry import register_judge
from accord.adapters.served import ServedSpec


@dataclass(frozen=True)
class _CheckerSpec(ServedSpec):
    """A served checker's entry: the endpoint (``base_url`` and ``model`` required) and its options."""

    def options(self) -> dict[str, Any]:
        """The judge's keyword arguments: ``name``, ``max_tokens`` and the type's own fields."""
        own = {f.name for f in fields(self)} - {f.name for f in fields(ServedSpec)}
        return {k: getattr(self, k) for k in (own | {"name", "max_tokens"}) if getattr(self, k) is not None}


@dataclass(frozen=True)
class CodeCheckSpec(_CheckerSpec):
    """``{type: code_check, base_url: URL, model: NAME, max_tokens: 512, wall_s: 10}``."""

    wall_s: float | None = None


@dataclass(frozen=True)
class CriticSpec(_CheckerSpec):
    """``{type: critic, base_url: URL, model: NAME, max_tokens: 1024}``."""


@register_judge("code_check", CodeCheckSpec, columns={"code_check": 1.0})
def _code_check(spec: CodeCheckSpec, models: dict):
    """A served model writes a program that checks the step; the sandbox runs it."""
    from accord.adapters.served import CodeCheckJudge

    return CodeCheckJudge(spec.endpoint("code_check"), **spec.options())


@register_judge("critic", CriticSpec, columns={"critic": 1.0})
def _critic(spec: CriticSpec, models: dict):
    """A served model critiques the solution so far with ProcessBench's critic prompt."""
    from accord.adapters.served import CriticJudge

    return CriticJudge(spec.endpoint("critic"), **spec.options())
