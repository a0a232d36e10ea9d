"""Code verification: a sandbox for untrusted programs and the judges that use it.

- :class:`Sandbox` runs one candidate and all its tests in one isolated, resource-limited process
  (bubblewrap or unshare, each with a private filesystem: the strongest this machine allows, named by
  ``describe()``; ``rlimits``, which shares the host filesystem, only when asked for by name).
- Judges: :class:`StaticJudge` (parse, entry point, pyflakes, forbidden imports),
  :class:`ExecutionJudge` (visible tests passed), :class:`SelfConsistencyJudge` (CodeT-style
  agreement on generated inputs), :class:`LLMCodeJudges` (a prompted LM in three code roles).
- :func:`mutate` (AST mutants) and :func:`build_pool`, :func:`evaluate_policies` (policies on a model-free pool).
- :class:`CodeGenerator`: candidate programs from a causal LM for ``accord run --task humaneval``.
"""

from __future__ import annotations

from accord.adapters.code._generator import CodeGenerator
from accord.adapters.code._judges import ExecutionJudge, SelfConsistencyJudge
from accord.adapters.code._limits import Limits
from accord.adapters.code._llm_judge import LLMCodeJudges
from accord.adapters.code._mutants import Mutant, mutate
from accord.adapters.code._pool import build_pool, evaluate_policies, pool_from_json, pool_to_json
from accord.adapters.code._runner import CodeRunner, default_runner, shared_runner
from accord.adapters.code._sandbox import RunResult, Sandbox
from accord.adapters.code._spec import CodeSpec, CodeTest, visible_tests
from accord.adapters.code._static import StaticJudge

__all__ = [
    "CodeGenerator",
    "CodeRunner",
    "CodeSpec",
    "CodeTest",
    "ExecutionJudge",
    "LLMCodeJudges",
    "Limits",
    "Mutant",
    "RunResult",
    "Sandbox",
    "SelfConsistencyJudge",
    "StaticJudge",
    "build_pool",
    "default_runner",
    "evaluate_policies",
    "mutate",
    "pool_from_json",
    "pool_to_json",
    "shared_runner",
    "visible_tests",
]
