"""Judge solutions people already have: find the first wrong step (``accord verify``).

Read solutions (:mod:`.reading`, :mod:`.splitter`), judge each step in the context of the problem
and the steps before it with a panel (:mod:`.judging`), label it valid / invalid / uncertain under
a rule, or no claim where its role in the proof claims nothing (:mod:`.labelling`), write one
line per solution, resumably (:mod:`.output`), and, when the input is annotated, score every
judge and rule against the annotation (:mod:`.metrics`).

>>> from accord.verify.solutions import read_solutions, resolve_settings, verify_solutions
"""

from accord.verify.solutions._export import write_csv, write_csv_to
from accord.verify.solutions._judging import raw_matrix
from accord.verify.solutions._labelling import INVALID, LABELS, NO_CLAIM, prediction, rule_stats, three_way, with_roles
from accord.verify.solutions._metrics import Annotated, evaluate_rules
from accord.verify.solutions._reading import FORMATS, MAX_STEP_CHARS, MAX_STEPS_PER_SOLUTION, Solution, read_solutions
from accord.verify.solutions._runner import VerifyResult, verify_solutions
from accord.verify.solutions._scale import JUDGE_SCALES, fit_on_records, step_labels
from accord.verify.solutions._settings import LABELLED_POLICIES, VerifySettings, resolve_settings
from accord.verify.solutions._splitter import split_steps
from accord.verify.solutions._uncertainty import decided

__all__ = [
    "Annotated",
    "decided",
    "evaluate_rules",
    "fit_on_records",
    "FORMATS",
    "INVALID",
    "LABELS",
    "NO_CLAIM",
    "LABELLED_POLICIES",
    "MAX_STEP_CHARS",
    "MAX_STEPS_PER_SOLUTION",
    "prediction",
    "raw_matrix",
    "read_solutions",
    "resolve_settings",
    "rule_stats",
    "JUDGE_SCALES",
    "Solution",
    "split_steps",
    "step_labels",
    "three_way",
    "verify_solutions",
    "VerifyResult",
    "VerifySettings",
    "with_roles",
    "write_csv",
    "write_csv_to",
]
