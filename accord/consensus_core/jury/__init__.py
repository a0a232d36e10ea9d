"""The LLM jury: M members answer each question once and one answer is chosen per question.

- :func:`run_jury` — the modal answer class per question (seeded ties, abstention below a floor).
- :func:`weighted_vote`, :func:`dawid_skene`, :func:`weighted_plurality` — label-free estimators of
  member accuracy and the votes they weight; :func:`label_free_jury` checks their claims.
- :func:`fit_few_labels`, :func:`choose_labels` — the few-label jury and which rows to label.
- :func:`certify_threshold`, :func:`labels_needed` — risk control over a confidence threshold
  (``RISK_BOUNDS`` name its tests; :func:`hypergeometric_pvalue`, :func:`hb_pvalue`,
  :func:`binomial_pvalue`, :func:`upper_bound`); :func:`candidate_rows` — the rows it may answer.
- :func:`predict`, :func:`estimate_law`, :func:`check_law`, :func:`simulate_panel` — the jury law:
  accuracy of a panel of M members from their accuracy and how their wrong answers coincide.
- :func:`plan_panel` — which members to seat.
- :func:`prior_vote`, :func:`trusted_answers` — the decision without labels when the user knows the
  members; :func:`rows_to_label` — the rows worth a person's labels; :func:`calibrate`,
  :func:`calibrate_cross_fitted` — confidence calibrated on labels; :func:`reliability_table` — how
  well (both expected calibration errors).

Exports load on first use: a command that names a few of them (``accord jury``'s parser) does not
import scipy.stats with the estimators.
"""

from importlib import import_module

_EXPORTS = {
    "DifficultyFit": "_difficulty",
    "fit_difficulty": "_difficulty",
    "check_law": "_estimate",
    "estimate_law": "_estimate",
    "FitCheck": "_estimate",
    "LawEstimate": "_estimate",
    "best_member_answers": "_label_free",
    "label_free_jury": "_label_free",
    "LabelFreeJury": "_label_free",
    "choose_labels": "_labels",
    "LABEL_CHOICES": "_labels",
    "FewLabelJury": "_labels",
    "fit_few_labels": "_labels",
    "law_params": "_law",
    "LawParams": "_law",
    "LawPrediction": "_law",
    "predict": "_law",
    "simulate": "_law",
    "simulate_panel": "_law",
    "simulate_unequal_panel": "_law",
    "SimulatedPanel": "_law",
    "MAX_CANDIDATES": "_plan",
    "PanelPlan": "_plan",
    "plan_panel": "_plan",
    "candidate_rows": "_risk",
    "certify_threshold": "_risk",
    "labels_needed": "_risk",
    "RiskThreshold": "_risk",
    "RISK_BOUNDS": "_risk_names",
    "CANDIDATE_SHARE": "_risk_names",
    "hypergeometric_pvalue": "_risk_bounds",
    "hypergeometric_upper": "_risk_bounds",
    "hb_pvalue": "_risk_bounds",
    "binomial_pvalue": "_risk_bounds",
    "upper_bound": "_risk_bounds",
    "classify": "_vote",
    "correctness": "_vote",
    "JuryResult": "_vote",
    "MISSING": "_vote",
    "normalized_equal": "_vote",
    "run_jury": "_vote",
    "Vote": "_vote",
    "vote_codes": "_vote",
    "dawid_skene": "_weighted",
    "weighted_plurality": "_weighted",
    "weighted_vote": "_weighted",
    "WeightedVote": "_weighted",
    "rows_to_label": "_ask",
    "calibrate": "_calibration",
    "calibrate_cross_fitted": "_calibration",
    "calibration_error_count": "_calibration",
    "CrossFit": "_calibration",
    "MIN_LABELS": "_calibration",
    "reliability_table": "_calibration",
    "agreement_levels": "_calibration",
    "calibration_error": "_calibration",
    "prior_vote": "_trust",
    "trusted_answers": "_trust",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"accord.consensus_core.jury.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'accord.consensus_core.jury' has no attribute {name!r}")
