"""Which missing judge scores are abstentions (nothing for the judge to check) and which are failures.

A judge gives no score for two different reasons: the step has nothing it checks (the arithmetic
judge on a step without arithmetic, the final-answer judge before the last step) — an
*abstention*, normal and expected — or it could not do its job (a timeout, a crash, a server
without a reply) — a *failure*, which a reader should look at. A trace records both the same way
(no score, and the judge's reason), so the reason decides (an explicit mask, rows of booleans
one per judge, decides instead where a caller has one): the phrases below are the ones accord's own judges give when they abstain. Anything else stays a
failure, so an unknown reason is never hidden.
"""

from __future__ import annotations

from typing import Sequence

ABSTAIN_PHRASES = (
    "no arithmetic to check", "not checked", "no checkable claim", "not the final step", "no answer found",
    "no reference answer", "nothing to embed", "could not decide", "cannot confirm", "abstain",
)


def is_abstention(reason: str | None) -> bool:
    """True when a missing score's reason says the judge had nothing to check."""
    text = (reason or "").lower()
    return any(p in text for p in ABSTAIN_PHRASES)


def missing_kinds(raw, failures: Sequence[Sequence[str | None]] | None,
                  abstained: Sequence[Sequence[bool]] | None = None) -> list[list[str | None]]:
    """Per candidate and judge: ``None`` (scored), ``"abstained"`` or ``"failed"``."""
    out = []
    for i, row in enumerate(raw):
        kinds = []
        for j, value in enumerate(row):
            if value == value:  # not NaN: a score
                kinds.append(None)
            elif abstained is not None:
                kinds.append("abstained" if abstained[i][j] else "failed")
            else:
                kinds.append("abstained" if is_abstention(failures[i][j] if failures else None) else "failed")
        out.append(kinds)
    return out


def count_missing(raw, failures, abstained=None) -> tuple[int, int]:
    """``(abstained, failed)`` among the missing scores of one step's candidates."""
    kinds = [k for row in missing_kinds(raw, failures, abstained) for k in row]
    return kinds.count("abstained"), kinds.count("failed")


__all__ = ["ABSTAIN_PHRASES", "count_missing", "is_abstention", "missing_kinds"]
