"""Code candidates people already have (``accord code``): read candidates and their tests, score
each with the sandboxed code judges (:func:`code_panel`) and decide by a policy."""

from accord.verify.candidates._check import (
    call_args,
    check_candidates,
    read_candidates,
    read_code_tests,
    tests_from_check,
    tests_from_source,
)
from accord.verify.candidates._panel import CODE_JUDGES, code_panel

__all__ = [
    "CODE_JUDGES",
    "call_args",
    "check_candidates",
    "code_panel",
    "read_candidates",
    "read_code_tests",
    "tests_from_check",
    "tests_from_source",
]
