"""Step-label datasets: formats (ProcessBench, PRM800K, MMReason) and metrics against a run."""

from accord.verify.labels._formats import (
    CORRECT,
    FORMATS,
    INCORRECT,
    UNVERIFIABLE,
    LabeledSolution,
    detect_label_format,
    read_step_labels,
    write_labels,
)
from accord.verify.labels._metrics import (
    first_wrong_f1,
    match,
    mmreason_step_score,
    score_labels,
    step_agreement,
)

__all__ = [
    "CORRECT",
    "detect_label_format",
    "first_wrong_f1",
    "FORMATS",
    "INCORRECT",
    "LabeledSolution",
    "match",
    "mmreason_step_score",
    "read_step_labels",
    "score_labels",
    "step_agreement",
    "UNVERIFIABLE",
    "write_labels",
]
