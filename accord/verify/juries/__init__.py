"""Juries of models answering the same questions: collect each member's answers (``accord jury
collect``, or read from inspect_ai logs) and pick one answer per question by a panel method
(``accord jury``): votes, weights learned from a few labels, label-free estimates, risk-controlled
abstention; the whole report of a jury (:func:`jury_report`), the labels a person gives and asks
for, and how it is written out."""

from accord.verify.juries._collect import collect, parse_member, read_questions
from accord.verify.juries._inspect_panel import LogPanel, output_answer, read_inspect_panel
from accord.verify.juries._label_files import (
    LabelsRead,
    apply_labels,
    ask_rows,
    member_index,
    parse_costs,
    parse_prior,
    read_labels,
    write_ask_file,
)
from accord.verify.juries._methods import (
    METHODS,
    MIN_ROWS,
    Decision,
    PanelClasses,
    agreement_share,
    chosen_members,
    decide,
    decide_with_risk,
    panel_classes,
    unlabeled_comparison,
)
from accord.verify.juries._output import finite, strict_json, verdicts_csv
from accord.verify.juries._report import JuryReport, JurySettings, jury_report, stages

__all__ = [
    "agreement_share",
    "apply_labels",
    "ask_rows",
    "chosen_members",
    "collect",
    "decide",
    "decide_with_risk",
    "Decision",
    "finite",
    "jury_report",
    "JuryReport",
    "JurySettings",
    "LabelsRead",
    "LogPanel",
    "member_index",
    "METHODS",
    "MIN_ROWS",
    "output_answer",
    "panel_classes",
    "PanelClasses",
    "parse_costs",
    "parse_member",
    "parse_prior",
    "read_inspect_panel",
    "read_labels",
    "read_questions",
    "stages",
    "strict_json",
    "unlabeled_comparison",
    "verdicts_csv",
    "write_ask_file",
]
