"""Score tables: the in-memory reader and the streaming reader family for CSV, JSONL and Parquet."""

from accord.verify.tables.score_table import ScoreTable, read_influence, read_score_table
from accord.verify.tables.streaming import TableSource, decide_streaming, decide_with_ray, iter_chunks, open_source
from accord.verify.tables.rewards import RewardFile, RewardTable, iter_rewards, open_rewards, read_columns

__all__ = ["RewardFile", "RewardTable", "ScoreTable", "TableSource", "decide_streaming", "decide_with_ray", "iter_chunks", "iter_rewards", "open_rewards", "open_source", "read_columns", "read_influence", "read_score_table"]
