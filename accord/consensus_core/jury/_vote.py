"""The LLM jury: M panel members answer each problem once; the modal answer class wins.

Answers are grouped into equivalence classes by a pluggable ``equivalent(x, y) -> bool`` (default:
equal after trimming, case folding and collapsing white space; math-verify equivalence lives in
:mod:`accord.mathcheck.answers`). The modal class is chosen and the agreement fraction
(its votes over the members that answered) is its confidence; below ``min_agreement`` the jury
abstains. The chosen answer keeps the text of the first member in its class.

Tie rule (documented, seeded, never list order): when several classes share the top vote count,
each tied class gets a uniform random key from ``numpy.random.default_rng(seed)`` (one key per
problem and member slot, drawn for the whole batch at once) and the class with the largest key
wins — every tied class is equally likely, and the same seed gives the same choice. Ties are
flagged in the result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

Equivalence = Callable[[str, str], bool]
MISSING = -1  # class code of a member that gave no answer


@dataclass(frozen=True)
class Vote:
    """Modal vote over class codes, arrays of shape (n,)."""

    chosen: np.ndarray  # class code of the winner; MISSING when nobody answered
    votes: np.ndarray  # members in the winning class
    answered: np.ndarray  # members that gave an answer
    tied: np.ndarray  # bool: the winner was drawn among tied classes

    @property
    def agreement(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.answered > 0, self.votes / np.maximum(self.answered, 1), 0.0)


def vote_codes(codes, seed: int = 0) -> Vote:
    """Modal class of each row of ``codes`` (n, M) (equal codes = same answer; -1 = no answer)."""
    c = np.asarray(codes)
    if c.ndim != 2:
        raise ValueError(f"class codes must have shape (problems, members), got {c.shape}")
    if not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"class codes must be integers, got dtype {c.dtype}")
    n, M = c.shape
    present = c != MISSING
    same = (c[:, :, None] == c[:, None, :]) & present[:, :, None] & present[:, None, :]
    count = same.sum(axis=2)  # (n, M) votes for member i's class
    earlier = np.tril(np.ones((M, M), dtype=bool), k=-1)  # j < i
    first = present & ~np.any(same & earlier[None], axis=2)
    top = count.max(axis=1) if M else np.zeros(n, dtype=int)
    cand = first & (count == top[:, None]) & present
    keys = np.random.default_rng(seed).random((n, M))
    pick = np.argmax(np.where(cand, keys, -1.0), axis=1)
    rows = np.arange(n)
    chosen = np.where(top > 0, c[rows, pick], MISSING)
    return Vote(chosen.astype(np.int64), top.astype(np.int64), present.sum(axis=1), cand.sum(axis=1) > 1)


def normalized_equal(x: str, y: str) -> bool:
    """Equal after trimming, case folding and collapsing white space (the default equivalence)."""
    return " ".join(x.split()).casefold() == " ".join(y.split()).casefold()


def classify(answers: Sequence[str | None], equivalent: Equivalence | None = None) -> np.ndarray:
    """Class codes 0, 1, ... for one problem's answers (first-seen order; None -> MISSING).

    Each answer joins the first earlier class whose representative it is equivalent to.
    """
    eq = equivalent or normalized_equal
    reps: list[str] = []
    out = np.full(len(answers), MISSING, dtype=np.int64)
    for i, ans in enumerate(answers):
        if ans is None:
            continue
        if not isinstance(ans, str):
            raise ValueError(f"answer {i} must be a string or None, got {type(ans).__name__}")
        for code, rep in enumerate(reps):
            if eq(rep, ans):
                out[i] = code
                break
        else:
            out[i] = len(reps)
            reps.append(ans)
    return out


def class_of(
    truth: str | None, answers: Sequence[str | None], codes: np.ndarray, equivalent: Equivalence | None = None
) -> int:
    """Code of the class equivalent to ``truth`` among one problem's answers; -2 if none is."""
    eq = equivalent or normalized_equal
    if truth is None:
        return -2
    for ans, code in zip(answers, codes):
        if ans is not None and eq(ans, truth):
            return int(code)
    return -2


@dataclass(frozen=True)
class JuryResult:
    """The jury's verdict per problem."""

    answers: list[str | None]  # the chosen answer text, None when abstaining or nobody answered
    modal: list[str | None]  # the modal answer even where the jury abstained (for analysis)
    codes: np.ndarray  # (n, M) class codes per problem
    vote: Vote
    abstained: np.ndarray  # (n,) bool
    min_agreement: float
    seed: int

    @property
    def agreement(self) -> np.ndarray:
        return self.vote.agreement


def run_jury(
    panel_answers: Sequence[Sequence[str | None]],
    equivalent: Equivalence | None = None,
    min_agreement: float = 0.0,
    seed: int = 0,
) -> JuryResult:
    """Modal answer per problem for a panel's answers (n problems x M members)."""
    if not (0.0 <= min_agreement <= 1.0):
        raise ValueError(f"min_agreement must lie in [0, 1], got {min_agreement}")
    rows = [list(r) for r in panel_answers]
    if not rows:
        raise ValueError("no problems given")
    M = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != M:
            raise ValueError(f"problem {i} has {len(r)} answers, expected {M} (use None for a missing answer)")
    codes = np.stack([classify(r, equivalent) for r in rows]) if M else np.zeros((len(rows), 0), dtype=np.int64)
    v = vote_codes(codes, seed)
    modal: list[str | None] = []
    for r, cs, ch in zip(rows, codes, v.chosen):
        modal.append(None if ch == MISSING else r[int(np.argmax(cs == ch))])
    abstain = (v.answered == 0) | (v.agreement < min_agreement)
    chosen = [None if ab else m for m, ab in zip(modal, abstain)]
    return JuryResult(chosen, modal, codes, v, abstain, float(min_agreement), int(seed))


def correctness(codes: np.ndarray, truth_codes: np.ndarray) -> np.ndarray:
    """(n, M) bool: member answered in the truth's class (truth code -2 = nobody was right)."""
    c = np.asarray(codes)
    t = np.asarray(truth_codes)[:, None]
    return (c == t) & (c != MISSING)
