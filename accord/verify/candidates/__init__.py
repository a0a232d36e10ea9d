"""Code candidates people already have (``accord code``): read candidates and their tests, score
each with the sandboxed code judges and decide by a policy."""

from accord.verify.candidates._check import (
    call_args,
    check_candidates,
    read_candidates,
    read_code_tests,
    tests_from_check,
    tests_from_source,
)

__all__ = [
    "call_args",
    "check_candidates",
    "read_candidates",
    "read_code_tests",
    "tests_from_check",
    "tests_from_source",
]
