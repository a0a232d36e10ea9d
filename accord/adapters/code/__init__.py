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

from accord.adapters.code.judges import ExecutionJudge, SelfConsistencyJudge
from accord.adapters.code.limits import Limits
from accord.adapters.code.mutants import Mutant, mutate
from accord.adapters.code.runner import CodeRunner
from accord.adapters.code.sandbox import RunResult, Sandbox
from accord.adapters.code.spec import CodeSpec, CodeTest, visible_tests
from accord.adapters.code.static import StaticJudge

CODE_JUDGE_TYPES = ("code_static", "code_execution", "code_consistency", "code_llm")


@functools.lru_cache(maxsize=1)
def default_runner() -> CodeRunner:
    """One runner per process, so the execution and agreement judges share each candidate's run."""
    return CodeRunner()


def build_code_judge(kind: str, spec: dict, models: dict | None = None):
    """A code judge (or judge group) from a run config entry; ``spec`` holds its options."""
    spec = dict(spec)
    if kind == "code_static":
        judge = StaticJudge()
    elif kind in ("code_execution", "code_consistency"):
        probes = spec.pop("probes", None)
        runner = default_runner() if probes is None else CodeRunner(default_runner().sandbox, n_probes=int(probes))
        judge = ExecutionJudge(runner) if kind == "code_execution" else SelfConsistencyJudge(runner)
    elif kind == "code_llm":
        from accord.adapters.code.llm_judge import LLMCodeJudges

        model = spec.pop("model", "smollm2")
        lm, tok = (models or {}).get(model, (None, None))
        kwargs = {k: spec.pop(k) for k in ("roles", "mode", "names", "device", "dtype") if k in spec}
        if spec:
            _extra(kind, spec)
        return LLMCodeJudges(model=model, lm=lm, tokenizer=tok, **kwargs)
    else:
        raise ValueError(f"unknown code judge type {kind!r}; choose one of {', '.join(CODE_JUDGE_TYPES)}")
    if "name" in spec:
        judge.name = str(spec.pop("name"))
    if spec:
        _extra(kind, spec)
    return judge


def _extra(kind: str, spec: dict) -> None:
    raise ValueError(f"{kind} judge takes no option(s) {sorted(spec)}")


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
    "build_code_judge",
    "panel_entry",
    "default_runner",
    "mutate",
    "visible_tests",
]


def panel_entry(kind: str, spec: dict, lam, models: dict | None = None):
    """(judge or group, one λ per panel column) for a code judge in a run config.

    ``lambda`` may be one number (every column) or a list (one per column); by default 1.0, and the
    LLM roles take their code defaults (spec 1.5, correctness 1.0, focus 0.8).
    """
    judge = build_code_judge(kind, spec, models)
    cols = list(getattr(judge, "names", None) or [judge.name])
    if isinstance(lam, (list, tuple)):
        if len(lam) != len(cols):
            raise ValueError(f"{kind}: {len(lam)} lambdas given for columns {cols}")
        return judge, [float(x) for x in lam]
    if lam is not None:
        return judge, [float(lam)] * len(cols)
    if kind == "code_llm":
        from accord.adapters.code.llm_judge import DEFAULT_CODE_LAMBDA

        return judge, [DEFAULT_CODE_LAMBDA[r] for r in judge.roles]
    return judge, [1.0] * len(cols)
