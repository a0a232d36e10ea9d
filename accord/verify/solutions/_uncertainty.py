"""Why a step is uncertain, in one of a few words a user can count.

- ``no formula``: no judge found a relation or arithmetic in the step (prose only);
- ``read, not checkable``: formulas were read, but what they state could not be decided (an
  equation stating something about free names, a conclusion without a value);
- ``unreadable: …``: a formula accord could not read, with the parser's reason;
- ``timed out``: a judge's check of it ran past its time limit, and no judge scored it;
- ``judges disagree`` / ``score in between``: judges scored it, but the rule did not decide.

The decided share (steps valid, invalid or with no claim, over all steps) says how much of a run
was settled; ``no claim`` steps (a remark, a definition, an assumption: nothing in them to check)
are counted apart, so that the share of claims really checked is plain too.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

NO_FORMULA = "no formula"
NOT_CHECKABLE = "read, not checkable"
UNREADABLE = "unreadable"
TIMED_OUT = "timed out"
DISAGREE = "judges disagree"
IN_BETWEEN = "score in between"

_NOTHING = re.compile(
    r"^(?:no checkable claim \(no relation found\)|no arithmetic to check|not the final step"
    r"|no final answer.*|no checkable claim)$"
)
_UNREAD = re.compile(r"cannot read it: ([^;()]*(?:\([^()]*\)[^;()]*)*)")
_READ = re.compile(
    r"not checked|stating something|not an identity|without a modulus|free names|could not|cannot evaluate"
    r"|undefined|too large|new value|no value|between expressions|congruence|domain"
)


def uncertain_reason(
    scores: dict[str, float | None], reasons: dict[str, str | None], dispersion: float | None, eps: float
) -> str:
    """The kind of uncertainty of a step labelled uncertain (see the module docstring)."""
    if any(v is not None for v in scores.values()):
        return DISAGREE if dispersion is not None and dispersion >= eps else IN_BETWEEN
    texts = [r.strip() for r in reasons.values() if r and r.strip()]
    if any(t.startswith("timed out after") for t in texts):
        return TIMED_OUT
    unread = [m.group(1).strip().rstrip(".") for t in texts for m in _UNREAD.finditer(t)]
    read = any(_READ.search(_UNREAD.sub("", t)) for t in texts)
    if unread and not read:
        return f"{UNREADABLE}: {unread[0]}"
    if read or unread:
        return NOT_CHECKABLE
    return NO_FORMULA if all(_NOTHING.match(t) for t in texts) else NOT_CHECKABLE


def kind_of(reason: str) -> str:
    """The reason without its detail (``unreadable: cannot read '⋯'`` counts as ``unreadable``)."""
    return UNREADABLE if reason.startswith(UNREADABLE) else reason


def decided(records: Sequence[dict]) -> dict:
    """How much of a run was decided: steps valid, invalid or claiming nothing over all steps, the
    steps by role, and the uncertain steps counted by the kind of their reason."""
    labels = [s.get("label") for r in records for s in r.get("steps", [])]
    roles = Counter(s.get("role") for r in records for s in r.get("steps", []) if s.get("role"))
    kinds = Counter(
        kind_of(s.get("uncertain_reason") or NOT_CHECKABLE)
        for r in records
        for s in r.get("steps", [])
        if s.get("label") == "uncertain"
    )
    n = len(labels)
    n_claims = sum(x in ("valid", "invalid") for x in labels)
    n_none = labels.count("no claim")
    order = (NO_FORMULA, NOT_CHECKABLE, UNREADABLE, TIMED_OUT, DISAGREE, IN_BETWEEN)
    return {
        "steps": n,
        "decided": n_claims + n_none,
        "decided_share": round((n_claims + n_none) / n, 4) if n else None,
        "checked": n_claims,
        "no_claim": n_none,
        "uncertain": labels.count("uncertain"),
        "uncertain_by_reason": {k: kinds[k] for k in order if kinds[k]},
        "by_role": dict(roles.most_common()),
    }
