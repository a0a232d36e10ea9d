"""Reward-model ensembles: in-memory evaluation and its streaming counterpart."""
