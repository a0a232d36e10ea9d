"""Verification, one package per stage of the data flow (docs/architecture.md):

tasks -> loop (generate, score with the panel, decide, trace) -> run (assembly, local or Ray) ->
analysis (replay, evaluation, reports); solutions, candidates, juries and curation judge what
people already have; labels, ensemble, tables, view and io serve them. Each package's ``__all__``
is its API; its modules are private.
"""

from accord.protocols import Generator, Judge, JudgeScore, StepContext, Task

__all__ = ["Generator", "Judge", "JudgeScore", "StepContext", "Task"]
