"""Judge types ``code_static``, ``code_execution``, ``code_consistency`` and ``code_llm``: the code
judges of :mod:`accord.adapters.code` (one family: ``judge_types(family="code")``)."""

from __future__ import annotations

from dataclasses import dataclass

from accord.adapters._registry import Columns, JudgeSpec, register_judge
from accord.consensus_core import PAPER_LAMBDA

# the LLM code roles' columns (spec, correctness, focus), λ as the paper's V, L, C
_CODE_LLM_COLUMNS = dict(zip(("llm_code_spec", "llm_code_correctness", "llm_code_focus"), PAPER_LAMBDA))


@dataclass(frozen=True)
class CodeStaticSpec(JudgeSpec):
    """``{type: code_static}``."""


@dataclass(frozen=True)
class CodeRunSpec(JudgeSpec):
    """``{type: code_execution|code_consistency, probes: n, isolation: auto|bwrap|unshare|rlimits, workers: n}``."""

    probes: int | None = None
    isolation: str = "auto"
    workers: int | None = None


@dataclass(frozen=True)
class CodeExecutionSpec(CodeRunSpec):
    """``{type: code_execution, ...}``: visible tests passed."""


@dataclass(frozen=True)
class CodeConsistencySpec(CodeRunSpec):
    """``{type: code_consistency, ...}``: agreement on generated inputs."""


@dataclass(frozen=True)
class CodeLLMSpec(JudgeSpec):
    """``{type: code_llm, model: smollm2, roles: [spec, correctness, focus], mode: yes_no, names: [...]}``."""

    model: str = "smollm2"
    roles: tuple[str, ...] | None = None
    mode: str | None = None
    names: tuple[str, ...] | None = None
    device: str | None = None
    dtype: str | None = None


def _named(judge, spec: JudgeSpec):
    if spec.name is not None:
        judge.name = str(spec.name)
    return judge


def _runner(spec: CodeRunSpec):
    from accord.adapters.code import shared_runner

    try:
        return shared_runner(spec.isolation, spec.workers, spec.probes)
    except RuntimeError as exc:
        raise ValueError(f"isolation: {exc}") from None


@register_judge("code_static", CodeStaticSpec, columns={"static": 1.0})
def _code_static(spec: CodeStaticSpec, models: dict):
    """Static checks of a candidate program: it parses, defines the entry point, names nothing undefined."""
    from accord.adapters.code import StaticJudge

    return _named(StaticJudge(), spec)


@register_judge("code_execution", CodeExecutionSpec, columns={"execution": 1.0})
def _code_execution(spec: CodeExecutionSpec, models: dict):
    """The share of the task's visible tests a candidate passes, run in the sandbox."""
    from accord.adapters.code import ExecutionJudge

    return _named(ExecutionJudge(_runner(spec)), spec)


@register_judge("code_consistency", CodeConsistencySpec, columns={"consistency": 1.0})
def _code_consistency(spec: CodeConsistencySpec, models: dict):
    """How often a candidate agrees with the other candidates on generated probe inputs, run in the sandbox."""
    from accord.adapters.code import SelfConsistencyJudge

    return _named(SelfConsistencyJudge(_runner(spec)), spec)


@register_judge("code_llm", CodeLLMSpec, columns=_CODE_LLM_COLUMNS)
def _code_llm(spec: CodeLLMSpec, models: dict):
    """A local LLM judges a candidate program in three roles: the specification, correctness, focus."""
    from accord.adapters.code import LLMCodeJudges

    lm, tok = models.get(spec.model, (None, None))
    kwargs = {
        k: list(v) if isinstance(v, tuple) else v
        for k in ("roles", "mode", "names", "device", "dtype")
        if (v := getattr(spec, k)) is not None
    }
    judge = LLMCodeJudges(model=spec.model, lm=lm, tokenizer=tok, **kwargs)
    return Columns(judge, tuple(f"llm_code_{r}" for r in judge.roles))
