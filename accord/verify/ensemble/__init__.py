"""Reward-model ensembles: in-memory evaluation and its streaming counterpart."""

from accord.verify.ensemble._rewards import (
    RewardTable,
    best_responses,
    check_rules,
    default_rules,
    evaluate_ensemble,
    krippendorff_alpha,
    pairwise_correlations,
    read_rewards,
    rule_keys,
    selection_hits,
)
from accord.verify.ensemble._streaming import STREAMED_FITS, Scorer, evaluate_streaming, fit_streamed
from accord.verify.ensemble._wide import (
    WIDE_MODELS,
    RestMoments,
    column_correlations,
    rest_means,
    spearman_vs_rest,
)

__all__ = [
    "best_responses",
    "check_rules",
    "column_correlations",
    "default_rules",
    "evaluate_ensemble",
    "evaluate_streaming",
    "fit_streamed",
    "krippendorff_alpha",
    "pairwise_correlations",
    "read_rewards",
    "rest_means",
    "RestMoments",
    "RewardTable",
    "rule_keys",
    "Scorer",
    "selection_hits",
    "spearman_vs_rest",
    "STREAMED_FITS",
    "WIDE_MODELS",
]
