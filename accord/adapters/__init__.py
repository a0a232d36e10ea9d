"""Judges and generators: everything that scores a step or proposes one, behind one registry.

- The judge registry: a panel's ``judges`` entries become typed specs (:func:`parse_judge`, one
  :class:`JudgeSpec` subclass per type) and judges (:func:`build_judges`, each with its λ per
  column); :func:`register_judge` adds a type. The built-in types live in
  :mod:`accord.adapters.builtin_judges`, one module per family, loaded on the first lookup.
- Score calibration (:class:`Calibrator`: standardize, quantile, Platt, sigmoid; saved and reapplied)
  and the judge-call cache (:class:`JudgeCache`).
- Sub-packages, each with its API in its ``__init__``: :mod:`.local` (in-process models: LLM, VLM,
  embedding and reward-model judges, generators), :mod:`.served` (the same behind OpenAI-compatible
  endpoints), :mod:`.math` (symbolic and numeric checks, answer equivalence), :mod:`.code` (the
  sandbox and the code judges).
"""

from accord.adapters._cache import JudgeCache, code_digest
from accord.adapters._calibration import (
    METHODS,
    Calibrator,
    apply_calibrators,
    fit_calibrators,
    load_calibrators,
    save_calibrators,
)
from accord.adapters._registry import (
    UNKNOWN_COLUMN_LAMBDA,
    Built,
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
    "METHODS",
    "UNKNOWN_COLUMN_LAMBDA",
    "Built",
    "Calibrator",
    "JudgeCache",
    "code_digest",
    "JudgeSpec",
    "JudgeType",
    "apply_calibrators",
    "build_judges",
    "column_lambdas",
    "fit_calibrators",
    "judge_type",
    "judge_types",
    "load_calibrators",
    "parse_judge",
    "register_judge",
    "save_calibrators",
]
