"""Code verification: a sandbox for untrusted programs and the judges that use it.

- :class:`Sandbox` runs one candidate and all its tests in one isolated, resource-limited process
  (bubblewrap or unshare, each with a private filesystem: the strongest this machine allows, named by
  ``describe()``; ``rlimits``, which shares the host filesystem, only when asked for by name).
- Judges: :class:`StaticJudge` (parse, entry point, pyflakes, forbidden imports),
  :class:`ExecutionJudge` (visible tests passed), :class:`SelfConsistencyJudge` (CodeT-style
  agreement on generated inputs), :class:`LLMCodeJudges` (a prompted LM in three code roles).
- :func:`mutate` (AST mutants) and :mod:`accord.adapters.code.pool` (policies on a model-free pool).
- :class:`CodeGenerator`: candidate programs from a causal LM for ``accord run --task humaneval``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from accord.adapters.code.judges import ExecutionJudge, SelfConsistencyJudge
from accord.adapters.code.limits import Limits
from accord.adapters.code.llm_judge import LLMCodeJudges
from accord.adapters.code.mutants import Mutant, mutate
from accord.adapters.code.runner import CodeRunner
from accord.adapters.code.sandbox import RunResult, Sandbox
from accord.adapters.code.spec import CodeSpec, CodeTest, visible_tests
from accord.adapters.code.static import StaticJudge
from accord.adapters.registry import Built, JudgeSpec, register_judge

DEFAULT_CODE_LAMBDA = {"spec": 1.5, "correctness": 1.0, "focus": 0.8}  # the LLM code roles, as the paper's V, L, C

CODE_JUDGE_TYPES = ("code_static", "code_execution", "code_consistency", "code_llm")


@functools.lru_cache(maxsize=None)
def shared_runner(isolation: str = "auto", workers: int | None = None, probes: int | None = None) -> CodeRunner:
    """One runner per (isolation, workers, probes) and process, so the execution and agreement judges
    share each candidate's run."""
    sandbox = Sandbox(isolation=isolation, workers=workers)
    return CodeRunner(sandbox) if probes is None else CodeRunner(sandbox, n_probes=int(probes))


def default_runner() -> CodeRunner:
    return shared_runner()


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


def _runner(spec: CodeRunSpec) -> CodeRunner:
    try:
        return shared_runner(spec.isolation, spec.workers, spec.probes)
    except RuntimeError as exc:
        raise ValueError(f"isolation: {exc}") from None


@register_judge("code_static", CodeStaticSpec, columns={StaticJudge.name: 1.0})
def _code_static(spec: CodeStaticSpec, models: dict) -> Built:
    return Built(_named(StaticJudge(), spec), (1.0,))


@register_judge("code_execution", CodeExecutionSpec, columns={ExecutionJudge.name: 1.0})
def _code_execution(spec: CodeExecutionSpec, models: dict) -> Built:
    return Built(_named(ExecutionJudge(_runner(spec)), spec), (1.0,))


@register_judge("code_consistency", CodeConsistencySpec, columns={SelfConsistencyJudge.name: 1.0})
def _code_consistency(spec: CodeConsistencySpec, models: dict) -> Built:
    return Built(_named(SelfConsistencyJudge(_runner(spec)), spec), (1.0,))


@register_judge("code_llm", CodeLLMSpec, columns={f"llm_code_{r}": v for r, v in DEFAULT_CODE_LAMBDA.items()})
def _code_llm(spec: CodeLLMSpec, models: dict) -> Built:
    lm, tok = models.get(spec.model, (None, None))
    kwargs = {k: list(v) if isinstance(v, tuple) else v for k in ("roles", "mode", "names", "device", "dtype")
              if (v := getattr(spec, k)) is not None}
    judge = LLMCodeJudges(model=spec.model, lm=lm, tokenizer=tok, **kwargs)
    return Built(judge, tuple(DEFAULT_CODE_LAMBDA[r] for r in judge.roles))


__all__ = [
    "CODE_JUDGE_TYPES",
    "CodeRunner",
    "CodeSpec",
    "CodeTest",
    "ExecutionJudge",
    "Limits",
    "Mutant",
    "RunResult",
    "Sandbox",
    "SelfConsistencyJudge",
    "StaticJudge",
    "default_runner",
    "shared_runner",
    "mutate",
    "visible_tests",
]

