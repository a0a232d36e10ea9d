"""Judge solutions people already have: find the first wrong step (``accord verify``).

Read solutions (:mod:`.reading`, :mod:`.splitter`), judge each step in the context of the problem
and the steps before it with a panel (:mod:`.judging`), label it valid / invalid / uncertain under
a rule (:mod:`.labelling`), write one line per solution, resumably (:mod:`.output`), and, when the
input is annotated, score every judge and rule against the annotation (:mod:`.metrics`).

>>> from accord.verify.solutions import read_solutions, resolve_settings, verify_solutions
"""

from accord.verify.solutions.reading import Solution, read_solutions
from accord.verify.solutions.runner import VerifyResult, verify_solutions
from accord.verify.solutions.settings import VerifySettings, resolve_settings
from accord.verify.solutions.splitter import split_steps

__all__ = ["Solution", "VerifyResult", "VerifySettings", "read_solutions", "resolve_settings", "split_steps",
           "verify_solutions"]
