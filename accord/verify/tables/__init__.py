"""Score tables: the in-memory reader and the streaming reader family for CSV, JSONL and Parquet.

The streaming readers are built on pyarrow (the ``ray`` extra): they load on first use, so the
in-memory reader works on a base install."""

from accord.exports import lazy_exports
from accord.verify.tables._score_table import NAN_MODES, ScoreTable, read_influence, read_score_table

DEFAULT_CHUNK_SIZE = 262_144  # rows per chunk of the streaming readers
# numeric columns that describe a response rather than score it: never taken as reward models unless
# named by --models (more with --meta)
METADATA = frozenset(
    {
        "n_tokens",
        "num_tokens",
        "tokens",
        "length",
        "len",
        "n_chars",
        "latency",
        "latency_s",
        "seconds",
        "time",
        "duration",
        "cost",
        "price",
        "step",
        "index",
        "idx",
        "rank",
        "seed",
        "temperature",
        "score_time",
        "prompt_tokens",
        "completion_tokens",
    }
)

_LAZY = {
    "COLS": "_rewards",
    "LABEL": "_rewards",
    "NOUNS": "_rewards",
    "PROMPT": "_rewards",
    "RESPONSE": "_rewards",
    "RewardFile": "_rewards",
    "RewardTable": "_rewards",
    "block_rows": "_rewards",
    "iter_rewards": "_rewards",
    "label_value": "_rewards",
    "open_rewards": "_rewards",
    "pick_models": "_rewards",
    "read_columns": "_rewards",
    "reward_value": "_rewards",
    "RESERVED": "_rewards",
    "TableSource": "_streaming",
    "ChunkWriter": "_streaming",
    "EdgeMerger": "_streaming",
    "check_groups": "_streaming",
    "counted_chunks": "_streaming",
    "float_array": "_streaming",
    "ray_dataset": "_streaming",
    "row_total": "_streaming",
    "run_starts": "_streaming",
    "split_block": "_streaming",
    "whole_groups": "_streaming",
    "decide_rows": "_streaming",
    "decide_streaming": "_streaming",
    "decide_with_ray": "_streaming",
    "iter_chunks": "_streaming",
    "open_source": "_streaming",
    "merge_ray_blocks": "_streaming",
}

__getattr__ = lazy_exports(__name__, _LAZY)
# the eager names, then every lazy one (each named once, in _LAZY)
__all__ = ["DEFAULT_CHUNK_SIZE", "METADATA", "NAN_MODES", "ScoreTable", "read_influence", "read_score_table", *_LAZY]
