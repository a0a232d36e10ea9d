"""``accord verify --calibration``: the panel's judges on one scale before the steps are labelled.

The step loop's judge scale (:mod:`accord.verify.loop._scale`) applied to solutions: each judge's
raw step scores go through its own monotone map, then the rule labels the step on the mapped
scores (valid above τ, invalid below 1 − τ). The maps are fitted on judged steps:

- label-free (``quantile``, ``agreement``, ``standardize``) on the scores themselves;
- ``platt`` on labelled steps: in a solution annotated with its first wrong step k, the steps
  before k are right (1), step k is wrong (0), and the steps after it are not labelled (an error
  propagates, so they are neither); every step of a solution annotated correct (-1) is right.

A judge that abstained or failed on a step has no score there (NaN): it is left out of its own fit
and of that step's consensus, which is taken over the judges that scored.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from accord.verify.loop import SCALE_METHODS, JudgeScale
from accord.verify.solutions._judging import raw_matrix

JUDGE_SCALES = tuple(m for m in SCALE_METHODS if m != "off")  # what a verify run may fit its judges on


def step_labels(first_wrong: int | None, n_steps: int) -> np.ndarray:
    """Per step 1 (right), 0 (the first wrong step) or NaN (after it, or the solution not annotated)."""
    y = np.full(n_steps, np.nan)
    if first_wrong is None:
        return y
    if first_wrong < 0:
        y[:] = 1.0
        return y
    y[: min(first_wrong, n_steps)] = 1.0
    if first_wrong < n_steps:
        y[first_wrong] = 0.0
    return y


def fit_on_records(
    method: str, judges: Sequence[str], records: Sequence[dict], first_wrong: Sequence[int | None], source: str
) -> JudgeScale:
    """A scale fitted on the judged steps of output records (``first_wrong``: each one's annotation).

    A ValueError says what is missing (no labelled step for ``platt``, no record)."""
    if method not in JUDGE_SCALES:
        raise ValueError(f"the judge scale must be one of {', '.join(JUDGE_SCALES)}, got {method!r}")
    if not records:
        raise ValueError("no solution to fit the judge scale on")
    rows = np.concatenate([raw_matrix(r["steps"], judges) for r in records])
    labels = None
    if method == "platt":
        labels = np.concatenate([step_labels(fw, len(r["steps"])) for r, fw in zip(records, first_wrong)])
        known = labels[np.isfinite(labels)]
        if len(known) == 0:
            raise ValueError(f"{source}: platt needs annotated solutions (a 'label' per solution); none has one")
        if len(set(known.tolist())) < 2:
            raise ValueError(f"{source}: platt needs both right and wrong labelled steps; all are {int(known[0])}")
    scale = JudgeScale(method, tuple(judges)).fit(rows, labels)
    n_lab = 0 if labels is None else int(np.isfinite(labels).sum())
    scale.source = f"{source}: {len(rows)} steps" + (f", {n_lab} of them labelled" if labels is not None else "")
    return scale
