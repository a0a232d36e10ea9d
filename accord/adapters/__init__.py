"""Judges and generators: everything that scores a step or proposes one, behind one registry.

- The judge registry (:data:`JUDGES`): a panel's ``judges`` entries become typed specs
  (:func:`parse_judge`, one :class:`JudgeSpec` subclass per type) and judges (:func:`build_judges`,
  each with its λ per column); :func:`register_judge` adds a type. The built-in types live in
  :mod:`accord.adapters.builtin_judges`, one module per family, loaded on the first lookup.
- The generator registry (:data:`GENERATORS`): :func:`register_generator` adds a generator type, a
  run config's ``generator.type`` names one; the built-in ones live in
  :mod:`accord.adapters.builtin_generators`.
- Score calibration (:class:`Calibrator`: standardize, quantile, Platt, sigmoid; saved and reapplied)
  and the judge-call cache (:class:`JudgeCache`).
- Sub-packages, each with its API in its ``__init__``: :mod:`.local` (in-process models: LLM, VLM,
  embedding and reward-model judges, generators), :mod:`.served` (the same behind OpenAI-compatible
  endpoints), :mod:`.math` (symbolic and numeric checks, answer equivalence), :mod:`.code` (the
  sandbox and the code judges).
"""

from accord.adapters._cache import CACHE_ENV, JudgeCache, code_digest, user_cache_dir
from accord.adapters._calibration import (
    CALIBRATION_METHODS,
    Calibrator,
    apply_calibrators,
    fit_calibrators,
    load_calibrators,
    save_calibrators,
)
from accord.adapters._generators import GENERATORS, GeneratorType, generator_type, register_generator
from accord.adapters._registry import (
    JUDGES,
    UNKNOWN_COLUMN_LAMBDA,
    Built,
    Columns,
    JudgeSpec,
    JudgeType,
    build_judges,
    column_lambdas,
    judge_type,
    judge_types,
    parse_judge,
    register_judge,
)

__all__ = [
    "CACHE_ENV",
    "GENERATORS",
    "GeneratorType",
    "JUDGES",
    "CALIBRATION_METHODS",
    "UNKNOWN_COLUMN_LAMBDA",
    "Built",
    "Calibrator",
    "Columns",
    "JudgeCache",
    "code_digest",
    "JudgeSpec",
    "JudgeType",
    "apply_calibrators",
    "build_judges",
    "column_lambdas",
    "fit_calibrators",
    "generator_type",
    "judge_type",
    "judge_types",
    "load_calibrators",
    "parse_judge",
    "register_generator",
    "register_judge",
    "save_calibrators",
    "user_cache_dir",
]
