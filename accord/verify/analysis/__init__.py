"""After a run: reading traces, replaying policies, evaluation, diagnostics, reports, plots and sweeps."""

from accord.verify.analysis._abstention import (
    ABSTAIN_PHRASES,
    count_missing,
    is_abstention,
    missing_kinds,
    missing_reasons,
)
from accord.verify.analysis._acceptance import accept_rule, judge_counts
from accord.verify.analysis._calibrated import (
    calibrated_replay,
    candidate_labels,
    fit_scale_on_trace,
    plain_verdict_vs_mean,
)
from accord.verify.analysis._derivation_check import check_derivation
from accord.verify.analysis._diagnostics import CORRECT_AT
from accord.verify.analysis._evaluation import (
    accuracy_table,
    bootstrap_ci,
    mcnemar,
    paired_comparison,
    rates,
    review_test,
    timing_shares,
    verdict_params,
)
from accord.verify.analysis._paired import paired_from, paired_summary
from accord.verify.analysis._plots import heatmap_figure
from accord.verify.analysis._records import (
    StepRecord,
    TaskEnd,
    Trace,
    read_settings,
    read_summary,
    read_trace,
    resolve_trace,
)
from accord.verify.analysis._replay import (
    DIVERGED,
    EXACT,
    ContextTree,
    fidelity,
    make_spec,
    parse_policy_spec,
    recorded_scale,
    recorded_spec,
    replay,
)
from accord.verify.analysis._report import (
    REPORT_FILE,
    ROC_FILE,
    SCATTER_FILE,
    build_report,
    primary_chain,
    write_run_report,
)
from accord.verify.analysis._sweep import (
    DEFAULT_EPSS,
    DEFAULT_TAUS,
    default_lambda_sets,
    recorded_lambdas,
    stubbornness_sweep,
    threshold_sweep,
    write_sweep,
)
from accord.verify.loop import json_safe as clean  # the JSON-safe copy, under the name accord.verify.view reads

__all__ = [
    "ABSTAIN_PHRASES",
    "count_missing",
    "is_abstention",
    "missing_kinds",
    "missing_reasons",
    "accept_rule",
    "calibrated_replay",
    "candidate_labels",
    "fit_scale_on_trace",
    "judge_counts",
    "plain_verdict_vs_mean",
    "recorded_scale",
    "accuracy_table",
    "bootstrap_ci",
    "build_report",
    "check_derivation",
    "clean",
    "ContextTree",
    "CORRECT_AT",
    "DEFAULT_EPSS",
    "default_lambda_sets",
    "DEFAULT_TAUS",
    "DIVERGED",
    "EXACT",
    "fidelity",
    "heatmap_figure",
    "make_spec",
    "mcnemar",
    "paired_comparison",
    "paired_from",
    "paired_summary",
    "parse_policy_spec",
    "primary_chain",
    "rates",
    "read_settings",
    "read_summary",
    "read_trace",
    "recorded_lambdas",
    "recorded_spec",
    "replay",
    "REPORT_FILE",
    "resolve_trace",
    "review_test",
    "ROC_FILE",
    "SCATTER_FILE",
    "StepRecord",
    "stubbornness_sweep",
    "TaskEnd",
    "threshold_sweep",
    "timing_shares",
    "Trace",
    "verdict_params",
    "write_run_report",
    "write_sweep",
]
