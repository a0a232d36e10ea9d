"""Which missing judge scores are abstentions (nothing for the judge to check) and which are failures.

A judge gives no score for two different reasons: the step has nothing it checks (the arithmetic
judge on a step without arithmetic, the final-answer judge before the last step) — an
*abstention*, normal and expected — or it could not do its job (a timeout, a crash, a server
without a reply) — a *failure*, which a reader should look at. A trace records an abstention's
reason in its own field (``abstentions``), which decides; where a trace has none (recorded before
that field, or a table of scores), the failure's reason decides: the phrases below are the ones
accord's own judges give when they abstain. Anything else stays a failure, so an unknown reason is
never hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

ABSTAIN_PHRASES = (
    "no arithmetic to check",
    "not checked",
    "no checkable claim",
    "not the final step",
    "no answer found",
    "no reference answer",
    "nothing to embed",
    "could not decide",
    "cannot confirm",
    "abstain",
)


def is_abstention(reason: str | None) -> bool:
    """True when a missing score's reason says the judge had nothing to check."""
    text = (reason or "").lower()
    return any(p in text for p in ABSTAIN_PHRASES)


def missing_kinds(
    raw, failures: Sequence[Sequence[str | None]] | None, abstentions: Sequence[Sequence[str | None]] | None = None
) -> list[list[str | None]]:
    """Per candidate and judge: ``None`` (scored), ``"abstained"`` or ``"failed"``. ``abstentions``:
    the recorded reasons of the judges that abstained (None where one did not)."""
    out = []
    for i, row in enumerate(raw):
        kinds = []
        for j, value in enumerate(row):
            if value == value:  # not NaN: a score
                kinds.append(None)
            elif abstentions is not None and abstentions[i][j] is not None:
                kinds.append("abstained")
            else:
                kinds.append("abstained" if is_abstention(failures[i][j] if failures else None) else "failed")
        out.append(kinds)
    return out


def missing_reasons(failures, abstentions, n: int, m: int) -> list[list[str | None]]:
    """Per candidate and judge, why a score is missing: the abstention's reason, else the failure's."""
    out = []
    for i in range(n):
        row = []
        for j in range(m):
            a = abstentions[i][j] if abstentions is not None else None
            row.append(a if a is not None else (failures[i][j] if failures is not None else None))
        out.append(row)
    return out


def count_missing(raw, failures, abstentions=None) -> tuple[int, int]:
    """``(abstained, failed)`` among the missing scores of one step's candidates."""
    kinds = [k for row in missing_kinds(raw, failures, abstentions) for k in row]
    return kinds.count("abstained"), kinds.count("failed")


__all__ = ["ABSTAIN_PHRASES", "count_missing", "is_abstention", "missing_kinds", "missing_reasons"]
