"""Score tables through Ray Data: the same output as the in-process path, errors as one line."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
import ray  # noqa: F401  (the ray extra: missing, these tests fail instead of being skipped)
from test_tables_streaming import random_rows, write_csv, write_jsonl, write_parquet

from accord.cli.main import main
from accord.consensus_core import get_policy
from accord.errors import UserError
from accord.verify.tables import decide_streaming, decide_with_ray, open_source


@pytest.fixture(scope="session")
def ray_cluster():
    """One local two-CPU Ray cluster for the whole test session (start-up is slow)."""
    from accord.verify.io import connect_ray

    cluster = connect_ray(num_cpus=2)
    yield cluster
    cluster.shutdown()


def test_ray_parquet_equals_local_across_block_edges(tmp_path, ray_cluster):
    """Many small row groups: steps straddle Ray blocks and are joined back whole."""
    rows = random_rows(np.random.default_rng(3), 800, max_cands=5)
    path = tmp_path / "t.parquet"
    write_parquet(path, rows, row_group_size=97)
    src = open_source(path)
    policy = get_policy("verdict", tau=0.55)
    local = decide_streaming(src, policy, tmp_path / "local.parquet", chunk_size=1000)
    ray_sum = decide_with_ray(src, policy, tmp_path / "ray.parquet", chunk_size=150)
    assert pq.read_table(tmp_path / "ray.parquet").equals(pq.read_table(tmp_path / "local.parquet"))
    assert ray_sum.chunks > 1
    assert (ray_sum.rows, ray_sum.steps, ray_sum.accepted, ray_sum.fallback, ray_sum.unchosen) == (
        local.rows,
        local.steps,
        local.accepted,
        local.fallback,
        local.unchosen,
    )


@pytest.mark.parametrize("fmt, writer", [("csv", write_csv), ("jsonl", write_jsonl)])
def test_ray_text_formats_equal_local(tmp_path, ray_cluster, fmt, writer):
    rows = random_rows(np.random.default_rng(4), 400)
    path = tmp_path / f"t.{fmt}"
    writer(path, rows)
    src = open_source(path)
    policy = get_policy("no_rejection")
    decide_streaming(src, policy, tmp_path / "local.parquet", chunk_size=64)
    decide_with_ray(src, policy, tmp_path / "ray.parquet", chunk_size=64)
    assert pq.read_table(tmp_path / "ray.parquet").equals(pq.read_table(tmp_path / "local.parquet"))


def test_cli_backend_ray(tmp_path, ray_cluster, capsys):
    rows = random_rows(np.random.default_rng(5), 50)
    write_parquet(tmp_path / "t.parquet", rows)
    out = tmp_path / "out.parquet"
    assert main(["consensus", str(tmp_path / "t.parquet"), "--backend", "ray", "--output", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["backend"] == "ray" and doc["rows"] == len(rows) and doc["steps"] == 50
    assert pq.read_table(out).num_rows == len(rows)


def test_error_inside_a_ray_task_is_one_line(tmp_path, ray_cluster, capsys):
    rows = random_rows(np.random.default_rng(6), 30, nan_rate=0.0)
    rows[40] = (rows[40][0], rows[40][1], np.array([0.5, 1.7, 0.5]))
    write_parquet(tmp_path / "t.parquet", rows)
    out = tmp_path / "out.parquet"
    assert main(["consensus", str(tmp_path / "t.parquet"), "--backend", "ray", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"step {rows[40][0]!r} candidate {rows[40][1]!r} (logical): score 1.7 is outside [0, 1]" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_ray_refuses_a_nan_score_unless_read_as_failed(tmp_path, ray_cluster, fmt):
    """A literal NaN is an error on the Ray path too; with nan="failed" it is a failed judge, as locally."""
    if fmt == "csv":
        text = "step,candidate,a,b\n" + "".join(
            f"s{s},c{c},{0.1 * c + 0.05},{'nan' if (s, c) == (7, 1) else 0.5}\n" for s in range(20) for c in range(3)
        )
    else:
        text = "".join(
            f'{{"step": "s{s}", "candidate": "c{c}", "scores": {{"a": {0.1 * c + 0.05}, '
            f'"b": {"NaN" if (s, c) == (7, 1) else 0.5}}}}}\n'
            for s in range(20)
            for c in range(3)
        )
    path = tmp_path / f"t.{fmt}"
    path.write_text(text)
    policy = get_policy("verdict")
    with pytest.raises(UserError, match=r"score is NaN"):
        decide_with_ray(open_source(path), policy, tmp_path / "ray.parquet", chunk_size=10)
    src = open_source(path, nan="failed")
    decide_with_ray(src, policy, tmp_path / "ray.parquet", chunk_size=10)
    decide_streaming(src, policy, tmp_path / "local.parquet", chunk_size=10)
    ray_t, local_t = pq.read_table(tmp_path / "ray.parquet"), pq.read_table(tmp_path / "local.parquet")
    assert ray_t.equals(local_t) and ray_t.column("b").null_count == 1
