"""Streaming score tables in chunks: same decisions as the in-memory reader, bounded memory, clear errors."""

import json
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.cli.main import main
from accord.consensus_core import get_policy
from accord.errors import UserError
from accord.verify.tables import decide_rows, decide_streaming, iter_chunks, open_source, read_score_table

JUDGES = ("visual", "logical", "contextual")


def random_rows(rng, n_steps, max_cands=4, nan_rate=0.15):
    """(step, candidate, scores) rows; steps have 1..max_cands candidates, some judges failed."""
    rows = []
    for s in range(n_steps):
        for c in range(int(rng.integers(1, max_cands + 1))):
            x = np.round(rng.random(len(JUDGES)), 3)
            x[rng.random(len(JUDGES)) < nan_rate] = np.nan
            rows.append((f"s{s}", f"c{c}", x))
    return rows


def write_csv(path, rows):
    lines = ["step,candidate," + ",".join(JUDGES)]
    lines += [f"{s},{c}," + ",".join("" if np.isnan(v) else repr(float(v)) for v in x) for s, c, x in rows]
    path.write_text("\n".join(lines) + "\n")


def write_jsonl(path, rows):
    recs = [
        {"step": s, "candidate": c, "scores": {j: None if np.isnan(v) else float(v) for j, v in zip(JUDGES, x)}}
        for s, c, x in rows
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def write_parquet(path, rows, row_group_size=None):
    x = np.array([r[2] for r in rows])
    cols = {"step": [r[0] for r in rows], "candidate": [r[1] for r in rows]}
    cols.update({j: pa.array(x[:, i], mask=np.isnan(x[:, i])) for i, j in enumerate(JUDGES)})
    pq.write_table(pa.table(cols), path, row_group_size=row_group_size)


WRITERS = {"csv": write_csv, "jsonl": write_jsonl, "parquet": write_parquet}


def in_memory(csv_path, policy):
    """The reference: the whole table read by the in-memory reader and decided in one call."""
    table = read_score_table(csv_path)
    d = policy.decide(table.raw)
    out = {"chosen": [], "accepted": [], "mean": [], "dispersion": [], "consensus": []}
    for s, cands in enumerate(table.candidates):
        for c in range(len(cands)):
            out["chosen"].append(bool(d.chosen[s] == c))
            out["accepted"].append(bool(d.accepted[s, c]))
            out["mean"].append(d.stats.mean[s, c])
            out["dispersion"].append(d.stats.dispersion[s, c])
            out["consensus"].append(d.stats.consensus[s, c])
    return out


def assert_same(out_path, ref):
    got = pq.read_table(out_path)
    assert got.column("chosen").to_pylist() == ref["chosen"]
    assert got.column("accepted").to_pylist() == ref["accepted"]
    np.testing.assert_array_equal(got.column("mean").to_numpy(zero_copy_only=False), np.array(ref["mean"], float))
    np.testing.assert_array_equal(
        got.column("dispersion").to_numpy(zero_copy_only=False), np.array(ref["dispersion"], float)
    )
    cons = np.column_stack([got.column(f"consensus_{j}").to_numpy(zero_copy_only=False) for j in JUDGES])
    np.testing.assert_array_equal(cons, np.array(ref["consensus"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 10_000),
    n_steps=st.integers(1, 25),
    chunk=st.integers(1, 40),
    fmt=st.sampled_from(sorted(WRITERS)),
    policy=st.sampled_from(["verdict", "mean_preserving", "raw_average", "majority", "min"]),
)
def test_chunked_equals_in_memory(tmp_path, seed, n_steps, chunk, fmt, policy):
    rng = np.random.default_rng(seed)
    rows = random_rows(rng, n_steps)
    write_csv(tmp_path / "ref.csv", rows)
    path = tmp_path / f"t.{fmt}"
    WRITERS[fmt](path, rows)
    pol = get_policy(policy)
    summary = decide_streaming(open_source(path), pol, tmp_path / "out.parquet", chunk_size=chunk)
    ref = in_memory(tmp_path / "ref.csv", pol)
    assert_same(tmp_path / "out.parquet", ref)
    assert summary.rows == len(rows) and summary.steps == n_steps
    assert summary.accepted + summary.fallback + summary.unchosen == n_steps


def test_large_table_bounded_memory_identical(tmp_path, monkeypatch):
    """300k rows through 3k-row chunks: peak memory is a small fraction of the table's, result identical."""
    rng = np.random.default_rng(7)
    n_steps, n = 100_000, 3
    x = rng.random((n_steps * n, len(JUDGES)))
    x[rng.random(x.shape) < 0.05] = np.nan
    table = pa.table(
        {
            "step": np.repeat(np.arange(n_steps), n).astype(str),
            "candidate": np.tile(["a", "b", "c"], n_steps),
            **{j: pa.array(x[:, i], mask=np.isnan(x[:, i])) for i, j in enumerate(JUDGES)},
        }
    )
    full_bytes = table.nbytes + x.nbytes
    path = tmp_path / "big.parquet"
    pq.write_table(table, path, row_group_size=20_000)
    del table
    base = pa.total_allocated_bytes()

    policy = get_policy("verdict")
    peaks = []
    real_decide = decide_rows

    def observed(src, t, pol, check=True, spec=None):  # records memory in use while each chunk is decided
        out = real_decide(src, t, pol, check, spec=spec)
        peaks.append((t.num_rows, pa.total_allocated_bytes()))
        return out

    monkeypatch.setattr("accord.verify.tables._streaming.decide_rows", observed)  # the function decide_streaming calls
    tracemalloc.start()
    try:
        summary = decide_streaming(open_source(path), policy, tmp_path / "out.parquet", chunk_size=3_000)
        _, np_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert summary.rows == n_steps * n and summary.steps == n_steps and summary.chunks == 100
    assert max(rows for rows, _ in peaks) <= 3_000 + n  # a chunk plus at most one carried step
    arrow_peak = max(b for _, b in peaks) - base  # a chunk, one decoded row group, the reader's buffer
    assert arrow_peak < full_bytes / 8, (arrow_peak, full_bytes)
    assert np_peak < full_bytes / 10, (np_peak, full_bytes)

    d = policy.decide(x.reshape(n_steps, n, len(JUDGES)))  # the in-memory result, in one call
    got = pq.read_table(tmp_path / "out.parquet")
    chosen = got.column("chosen").to_numpy(zero_copy_only=False).reshape(n_steps, n)
    assert np.array_equal(np.where(chosen.any(1), chosen.argmax(1), -1), d.chosen)
    np.testing.assert_array_equal(got.column("mean").to_numpy(zero_copy_only=False), d.stats.mean.reshape(-1))
    np.testing.assert_array_equal(got.column("accepted").to_numpy(zero_copy_only=False), d.accepted.reshape(-1))


def test_cli_streams_parquet_and_keeps_small_output(tmp_path, capsys):
    rows = random_rows(np.random.default_rng(1), 12)
    write_parquet(tmp_path / "t.parquet", rows)
    out = tmp_path / "out.parquet"
    assert main(["consensus", str(tmp_path / "t.parquet"), "--output", str(out), "--chunk-size", "5", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] == len(rows) and doc["steps"] == 12 and doc["backend"] == "local"
    assert pq.read_table(out).num_rows == len(rows)
    assert not (tmp_path / "out.parquet.partial").exists()


@pytest.mark.parametrize(
    "fmt, rows, message",
    [
        (
            "csv",
            [("1", "a", [0.5, 0.5, 0.5]), ("2", "a", [0.5, 0.5, 0.5]), ("1", "b", [0.5, 0.5, 0.5])],
            "t.csv:4: step '1' appears again",
        ),
        (
            "csv",
            [("1", "a", [0.5, 0.5, 0.5]), ("1", "a", [0.1, 0.5, 0.5])],
            "t.csv:3: candidate 'a' of step '1' appears twice",
        ),
        ("csv", [("1", "a", [0.5, 1.5, 0.5])], "t.csv:2 (logical): score 1.5 is outside [0, 1]"),
        (
            "parquet",
            [("1", "a", [0.5, 0.5, 0.5]), ("1", "b", [0.5, 0.5, -0.2])],
            "t.parquet:row 2 (contextual): score -0.2 is outside",
        ),
        (
            "jsonl",
            [("1", "a", [0.5, 0.5, 0.5]), ("1", "b", [0.5, 2.0, 0.5])],
            "t.jsonl:2 (logical): score 2.0 is outside",
        ),
    ],
)
def test_bad_tables_name_the_row(tmp_path, capsys, fmt, rows, message):
    path = tmp_path / f"t.{fmt}"
    WRITERS[fmt](path, [(s, c, np.array(x, float)) for s, c, x in rows])
    out = tmp_path / "out.parquet"
    assert main(["consensus", str(path), "--output", str(out), "--chunk-size", "10"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "out.parquet.partial").exists()


def test_streaming_needs_output_and_valid_parquet(tmp_path, capsys):
    write_parquet(tmp_path / "t.parquet", random_rows(np.random.default_rng(2), 3))
    assert main(["consensus", str(tmp_path / "t.parquet")]) == 2
    assert "needs --output OUT" in capsys.readouterr().err
    pq.write_table(pa.table({"step": ["1"], "candidate": ["a"], "p": ["high"], "q": [0.2]}), tmp_path / "s.parquet")
    with pytest.raises(UserError, match="judge column 'p' has type string"):
        open_source(tmp_path / "s.parquet")
    with pytest.raises(UserError, match="--chunk-size must be >= 1"):
        list(iter_chunks(open_source(tmp_path / "t.parquet"), 0))


@pytest.mark.parametrize("chunk", ["10", "100000"])  # the long cell straddles a read block, or fits in one
def test_a_streamed_csv_cell_above_the_field_limit_names_its_line(tmp_path, capsys, chunk):
    path = tmp_path / "t.csv"
    write_csv(path, [("1", "a", np.array([0.5, 0.5, 0.5])), ("1", "b" * (1 << 20 | 1), np.array([0.5, 0.5, 0.5]))])
    out = tmp_path / "out.parquet"
    assert main(["consensus", str(path), "--output", str(out), "--chunk-size", chunk]) == 2
    err = capsys.readouterr().err
    assert "t.csv:3: malformed CSV (field larger than field limit" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
