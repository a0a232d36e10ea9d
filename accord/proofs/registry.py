"""Registry of named checks (claims), their results, and the errata they find.

A check is a function registered with :func:`register_claim` (in :data:`CLAIMS`); it returns a
:class:`Result` whose status is PROVED (a symbolic derivation that holds for the stated generality), REFUTED (with a
counterexample), CHECKED-NUMERICALLY (only numeric evidence was possible, and it is labelled as
such) or FAILED (the check itself could not be completed, or raised). Each check declares the
status it ``expects``: a claim of the paper that is false is expected to be REFUTED. A run fails
when any check's status differs from its expectation.

Checks live in modules named ``accord.proofs.*_checks``, imported on the first lookup, so another
module registers more checks by adding such a file; an installed package adds its own through the
``accord.claims`` entry-point group. Errata (claims of a source that are
false or misstated, with the correct statement) are registered with :func:`erratum`, or attached
to a result.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from accord.registry import Registry
from accord.timelimit import CheckError, CheckTimeout, call_with_limit

PROVED = "PROVED"
REFUTED = "REFUTED"
CHECKED_NUMERICALLY = "CHECKED-NUMERICALLY"
FAILED = "FAILED"
STATUSES = (PROVED, REFUTED, CHECKED_NUMERICALLY, FAILED)


@dataclass(frozen=True)
class Erratum:
    """A claim of a source that is false or misstated, and the correct statement."""

    claim: str  # the source's words or number, with where it is stated
    correction: str
    source: str = ""
    check: str = ""  # name of the check that establishes the correction

    def as_dict(self) -> dict:
        return {"claim": self.claim, "correction": self.correction, "source": self.source, "check": self.check}


@dataclass
class Result:
    """What a check established. ``evidence`` holds the derivation's key facts as text."""

    status: str
    detail: str = ""
    evidence: list[str] = field(default_factory=list)
    counterexample: Any = None
    errata: list[Erratum] = field(default_factory=list)
    data: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}; use one of {STATUSES}")


@dataclass(frozen=True)
class Check:
    name: str
    statement: str
    fn: Callable[[], Result]
    expect: str = PROVED
    group: str = "core"
    source: str = ""  # where the statement comes from (e.g. "VERDICT §13.4")


@dataclass
class Outcome:
    check: Check
    result: Result
    seconds: float

    @property
    def ok(self) -> bool:
        return self.result.status == self.check.expect

    def as_dict(self) -> dict:
        r = self.result
        return {
            "name": self.check.name,
            "statement": self.check.statement,
            "source": self.check.source,
            "group": self.check.group,
            "status": r.status,
            "expected": self.check.expect,
            "ok": self.ok,
            "detail": r.detail,
            "evidence": list(r.evidence),
            "counterexample": _jsonable(r.counterexample),
            "data": _jsonable(r.data),
            "seconds": round(self.seconds, 3),
        }


def _describe(check: Check) -> tuple[str, dict]:
    return check.statement, {"expect": check.expect, "group": check.group, "source": check.source}


CLAIMS: Registry[Check] = Registry("check", "accord.claims", builtins=("accord.proofs.*_checks",), describe=_describe)
_ERRATA: list[Erratum] = []


def register_claim(name: str, statement: str, expect: str = PROVED, group: str = "core", source: str = ""):
    """Register the decorated zero-argument function as the check of ``statement``."""
    if expect not in STATUSES or expect == FAILED:
        raise ValueError(f"expect must be one of PROVED, REFUTED, CHECKED-NUMERICALLY; got {expect!r}")
    return CLAIMS.register(name, lambda fn: Check(name, statement, fn, expect, group, source))


def erratum(claim_text: str, correction: str, source: str = "", check: str = "") -> Erratum:
    """Register a standing erratum (one not produced by running a check)."""
    e = Erratum(claim_text, correction, source, check)
    _ERRATA.append(e)
    return e


def checks(names: list[str] | None = None, group: str | None = None) -> list[Check]:
    """Registered checks — the built-in ones and every installed plugin's — in registration order,
    optionally filtered; a name no check has is a ValueError listing the known ones."""
    wanted = {CLAIMS.get(n).name for n in names or ()}  # an unknown name: the registry's one error
    out = [p.value for p in CLAIMS.everything()]
    if group is not None:
        out = [c for c in out if c.group == group]
    if names:
        out = [c for c in out if c.name in wanted]
    return out


def _execute(check: Check) -> Result:
    try:
        result = check.fn()
        if not isinstance(result, Result):
            result = Result(FAILED, f"check returned {type(result).__name__}, not a Result")
    except Exception as exc:
        tb = traceback.format_exc(limit=3).strip().splitlines()
        result = Result(FAILED, f"{type(exc).__name__}: {exc}", evidence=tb[-3:])
    return result


def run_named(name: str) -> Result:
    """Run the check called ``name`` (after discovery); used inside a time-limited worker."""
    return _execute(checks([name])[0])


def run_check(check: Check, timeout: float | None = None) -> Outcome:
    """Run one check; an exception is a FAILED result carrying the traceback's last line.

    With ``timeout`` the check runs in a worker process that is killed after that many seconds
    (sympy cannot be interrupted in-process); a check that runs past it is FAILED.
    """
    t0 = time.perf_counter()
    if timeout is None:
        result = _execute(check)
    else:
        try:
            result = call_with_limit(run_named, check.name, timeout=timeout)
        except CheckTimeout:
            result = Result(FAILED, f"ran past the {timeout:g} s limit")
        except CheckError as exc:
            result = Result(FAILED, f"could not run in a worker: {exc}")
    return Outcome(check, result, time.perf_counter() - t0)


def run_all(
    names: list[str] | None = None,
    group: str | None = None,
    timeout: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """Run the selected checks in order; ``progress(done, total)`` after each."""
    selected = checks(names, group)
    out = []
    for c in selected:
        out.append(run_check(c, timeout))
        if progress is not None:
            progress(len(out), len(selected))
    return out


def errata(outcomes: list[Outcome]) -> list[Erratum]:
    """Standing errata plus those the outcomes found, without duplicates."""
    seen, out = set(), []
    for e in list(_ERRATA) + [e for o in outcomes for e in o.result.errata]:
        key = (e.claim, e.correction)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def report(outcomes: list[Outcome]) -> dict:
    """The ``accord prove --json`` document."""
    return {
        "checks": [o.as_dict() for o in outcomes],
        "errata": [e.as_dict() for e in errata(outcomes)],
        "ok": all(o.ok for o in outcomes),
    }


def _jsonable(x: Any) -> Any:
    """Plain JSON types; sympy and numpy values become numbers or strings."""
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        return x
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    try:
        import numpy as np

        if isinstance(x, np.ndarray):
            return _jsonable(x.tolist())
        if isinstance(x, np.generic):
            return x.item()
    except ImportError:  # pragma: no cover
        pass
    try:
        import sympy as sp

        if isinstance(x, sp.Basic):
            if x.is_Integer:
                return int(x)
            if x.is_Rational:
                return str(x)
            if x.is_number:
                return float(x)
            return str(x)
    except ImportError:  # pragma: no cover
        pass
    return str(x)
