"""Juries of models answering the same questions: collect each member's answers (``accord jury
collect``, or read from inspect_ai logs) and pick one answer per question by a panel method (``accord
jury``): votes, weights learned from a few labels, label-free estimates, risk-controlled abstention."""

from accord.verify.juries._collect import collect, parse_member, read_questions
from accord.verify.juries._inspect_panel import LogPanel, output_answer, read_inspect_panel
from accord.verify.juries._methods import (
    METHODS,
    MIN_ROWS,
    agreement_share,
    chosen_members,
    decide,
    decide_with_risk,
    panel_classes,
    unlabeled_comparison,
)

__all__ = [
    "agreement_share",
    "chosen_members",
    "MIN_ROWS",
    "collect",
    "decide",
    "decide_with_risk",
    "LogPanel",
    "METHODS",
    "output_answer",
    "panel_classes",
    "parse_member",
    "read_inspect_panel",
    "read_questions",
    "unlabeled_comparison",
]
