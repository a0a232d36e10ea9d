"""Symbolic (sympy) proofs of the consensus core's properties and an audit of the VERDICT paper.

>>> from accord.proofs import run_all, report
>>> doc = report(run_all())          # {"checks": [...], "errata": [...], "ok": bool}

Checks are registered with :func:`register_claim` in modules named ``accord.proofs.*_checks``
(imported on the first lookup; an installed package's through the ``accord.claims`` entry points);
each has a statement, an expected status and a result (PROVED, REFUTED with a counterexample,
CHECKED-NUMERICALLY, or FAILED).
"""

from accord.proofs.registry import (
    CHECKED_NUMERICALLY,
    CLAIMS,
    FAILED,
    PROVED,
    REFUTED,
    Check,
    Erratum,
    Outcome,
    Result,
    checks,
    errata,
    erratum,
    register_claim,
    report,
    run_all,
    run_check,
)

__all__ = [
    "CHECKED_NUMERICALLY",
    "CLAIMS",
    "FAILED",
    "PROVED",
    "REFUTED",
    "Check",
    "Erratum",
    "Outcome",
    "Result",
    "checks",
    "errata",
    "erratum",
    "register_claim",
    "report",
    "run_all",
    "run_check",
]
