"""Score tables: the in-memory reader and the streaming reader family for CSV, JSONL and Parquet.

The streaming readers are built on pyarrow (the ``ray`` extra): they load on first use, so the
in-memory reader works on a base install."""

from importlib import import_module

from accord.verify.tables.score_table import ScoreTable, read_influence, read_score_table

DEFAULT_CHUNK_SIZE = 262_144  # rows per chunk of the streaming readers
# numeric columns that describe a response rather than score it: never taken as reward models unless
# named by --models (more with --meta)
METADATA = frozenset({"n_tokens", "num_tokens", "tokens", "length", "len", "n_chars", "latency", "latency_s",
                      "seconds", "time", "duration", "cost", "price", "step", "index", "idx", "rank", "seed",
                      "temperature", "score_time", "prompt_tokens", "completion_tokens"})

_LAZY = {
    "TableSource": "streaming", "decide_streaming": "streaming", "decide_with_ray": "streaming",
    "iter_chunks": "streaming", "open_source": "streaming",
    "RewardFile": "rewards", "RewardTable": "rewards", "iter_rewards": "rewards", "open_rewards": "rewards",
    "read_columns": "rewards",
}

__all__ = ["DEFAULT_CHUNK_SIZE", "METADATA", "RewardFile", "RewardTable", "ScoreTable", "TableSource", "decide_streaming", "decide_with_ray", "iter_chunks", "iter_rewards", "open_rewards", "open_source", "read_columns", "read_influence", "read_score_table"]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(f"accord.verify.tables.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'accord.verify.tables' has no attribute {name!r}")
