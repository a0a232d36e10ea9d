"""Comparing numbers a source states with recomputed values, for audit checks.

A stated number is correct when it equals the recomputed value rounded to the digits printed
(half a unit in the last digit), unless a looser tolerance is given for a loose "≈". An audit
check collects numbers and yes/no statements and turns them into one :class:`Result`: the
``ok_status`` when all hold, REFUTED (with the wrong ones as counterexample and errata) otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from accord.proofs.registry import PROVED, REFUTED, Erratum, Result

PAPER = "VERDICT paper (seeds/002)"  # the source the core checks and the audit cite


@dataclass(frozen=True)
class Number:
    """One number as the paper states it, and its recomputed value."""

    where: str
    quantity: str
    stated: float
    value: float
    tol: float  # half a unit in the last printed digit, unless the paper says "≈" loosely

    @property
    def ok(self) -> bool:
        return abs(self.stated - self.value) <= self.tol + 1e-12

    def line(self) -> str:
        mark = "ok" if self.ok else "WRONG"
        return f"{self.where}: {self.quantity} stated {self.stated:g}, computed {self.value:.6g} [{mark}]"

    def as_dict(self) -> dict:
        printed = {"where": self.where, "quantity": self.quantity, "stated": self.stated}
        return {**printed, "computed": self.value, "ok": self.ok}


def stated(
    where: str, quantity: str, stated_value: str | float, value, decimals: int | None = None, tol: float | None = None
) -> Number:
    """A number as printed (pass a string such as "0.2000" to keep its trailing zeros) and its
    recomputed value; the tolerance is half a unit in the last printed digit unless given."""
    if tol is None:
        d = decimals if decimals is not None else _decimals(stated_value)
        tol = 0.5 * 10.0 ** (-d)
    return Number(where, quantity, float(stated_value), float(value), tol)


def _decimals(x: str | float) -> int:
    s = x.strip() if isinstance(x, str) else repr(float(x))
    if isinstance(x, float) and s.endswith(".0"):
        return 0
    return len(s.split(".")[1]) if "." in s else 0


def audit_result(
    numbers: list[Number],
    booleans: list[tuple[str, bool]],
    errata_for_wrong: Callable[[list[Number]], list[Erratum]],
    status_ok: str = PROVED,
    data: dict | None = None,
) -> Result:
    """PROVED (or ``status_ok``) if every number and statement holds; REFUTED with errata if not."""
    wrong = [n for n in numbers if not n.ok]
    bad_facts = [t for t, ok in booleans if not ok]
    ev = [n.line() for n in numbers] + [f"{t} [{'ok' if ok else 'WRONG'}]" for t, ok in booleans]
    payload = {"numbers": [n.as_dict() for n in numbers], **(data or {})}
    if wrong or bad_facts:
        msgs = [f"{n.where}: {n.quantity} is {n.value:.4g}, not {n.stated:g}" for n in wrong] + bad_facts
        return Result(
            REFUTED,
            "; ".join(msgs),
            ev,
            counterexample=[n.as_dict() for n in wrong] or bad_facts,
            errata=errata_for_wrong(wrong),
            data=payload,
        )
    return Result(status_ok, f"all {len(numbers)} numbers and {len(booleans)} statements correct", ev, data=payload)
