"""Reward-model ensembles: in-memory evaluation and its streaming counterpart."""

from accord.verify.ensemble.rewards import default_rules, evaluate_ensemble, read_rewards
from accord.verify.ensemble.streaming import Scorer, evaluate_streaming, fit_streamed

__all__ = ["Scorer", "default_rules", "evaluate_ensemble", "evaluate_streaming", "fit_streamed", "read_rewards"]
