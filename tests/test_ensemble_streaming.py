"""Streaming reward tables through ``accord ensemble``: same report and keys as in memory, bounded
memory, Ray Data equal to the in-process stream, one-line errors naming the row."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from accord.adapters import fit_calibrators
from accord.cli.main import main
from accord.verify.ensemble import (
    RewardTable,
    Scorer,
    best_responses,
    evaluate_ensemble,
    evaluate_streaming,
    fit_streamed,
    read_rewards,
    rule_keys,
)
from accord.verify.tables import open_rewards

MODELS = ("rm_a", "rm_b", "rm_c")
RULES = ("mean", "min", "uwo", "fj:verdict", "fj:no_rejection", "fj:mean_preserving")


def make_rows(rng, n_prompts, max_resp=5, nan_rate=0.1):
    """Best-of-n rows, prompts contiguous with 1..max_resp responses; coarse rewards make ties."""
    rows = []
    truth = rng.normal(size=3)
    for p in range(n_prompts):
        for r in range(int(rng.integers(1, max_resp + 1))):
            label = int(rng.random() < 0.3)
            x = np.round(truth * label + rng.normal(size=3), 1)
            x[rng.random(3) < nan_rate] = np.nan
            rows.append(
                {
                    "prompt_id": f"p{p}",
                    "response_id": f"r{r}",
                    "label": label,
                    **{m: None if np.isnan(v) else float(v) for m, v in zip(MODELS, x)},
                }
            )
    return rows


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_csv(path, rows):
    head = ["prompt_id", "response_id", "label", *MODELS]
    lines = [",".join(head)] + [",".join("" if r[c] is None else str(r[c]) for c in head) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def write_parquet(path, rows, row_group_size=None):
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=row_group_size)


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}


def streamed(path, out=None, chunk=7, backend="local", n_boot=300, **kw):
    src = open_rewards(path)
    cals = fit_streamed(src, "standardize", chunk)
    scorer = Scorer(src.models, cals, RULES, 0.5, (1.5, 1.0, 0.8), {"tau": 0.55}, src.label is not None)
    return evaluate_streaming(src, scorer, out, chunk, backend, n_boot=n_boot, **kw)


def assert_same_report(doc, ref):
    assert (doc["prompts"], doc["responses"], doc["models"]) == (ref["prompts"], ref["responses"], ref["models"])
    for m in ref["models"]:
        for k, v in ref["calibration"][m]["params"].items():
            assert doc["calibration"][m]["params"][k] == pytest.approx(v, rel=1e-12)
    assert doc["accuracy"].keys() == ref["accuracy"].keys()
    for name, e in ref["accuracy"].items():
        assert doc["accuracy"][name] == e, name  # the same hits per prompt, so the same bootstrap
    assert doc["baselines"] == pytest.approx(ref["baselines"], rel=1e-12)
    ag, rag = doc["agreement"], ref["agreement"]
    assert ag["krippendorff_alpha"] == pytest.approx(rag["krippendorff_alpha"], rel=1e-12, abs=1e-12)
    assert ag["spearman_raw"] == rag["spearman_raw"]  # the whole table fits in the sample: exact
    assert ag["pearson_calibrated"] == pytest.approx(rag["pearson_calibrated"], rel=1e-12, abs=1e-12)
    assert doc["influence"] == ref["influence"]


@pytest.mark.parametrize("fmt", sorted(WRITERS))
@pytest.mark.parametrize("chunk", [1, 7, 10_000])
def test_streamed_equals_in_memory(tmp_path, fmt, chunk):
    rows = make_rows(np.random.default_rng(len(fmt) + chunk), 60)
    write_jsonl(tmp_path / "ref.jsonl", rows)
    path = tmp_path / f"t.{fmt}"
    WRITERS[fmt](path, rows)
    table = read_rewards(tmp_path / "ref.jsonl")
    cals = fit_calibrators(table.flat_raw, table.models, "standardize")
    ref = evaluate_ensemble(table, cals, RULES, k=0.5, lambdas=(1.5, 1.0, 0.8), policy_params={"tau": 0.55}, n_boot=300)
    doc = streamed(path, tmp_path / "out.parquet", chunk)
    assert_same_report(doc, ref)
    assert doc["spearman_sample"]["exact"]

    # the rows: every rule's key to 1e-12, and the same selected responses
    out = pq.read_table(tmp_path / "out.parquet")
    assert out.num_rows == len(rows) and out.column("response_id").to_pylist() == [r["response_id"] for r in rows]
    from accord.adapters import apply_calibrators

    cal = apply_calibrators(table.raw, table.models, cals)
    for rule in RULES:
        key = rule_keys(cal, rule, k=0.5, lambdas=(1.5, 1.0, 0.8), **({"tau": 0.55} if rule.startswith("fj:") else {}))
        np.testing.assert_allclose(out.column(f"key_{rule}").to_numpy(), key[table.valid], rtol=1e-12, atol=1e-12)
        assert out.column(f"selected_{rule}").to_pylist() == best_responses(key, table.valid)[table.valid].tolist()
    np.testing.assert_allclose(
        out.column("calibrated_rm_b").to_numpy(zero_copy_only=False), cal[..., 1][table.valid], rtol=1e-12
    )


def test_spearman_on_a_labelled_sample_when_the_table_exceeds_it(tmp_path):
    rows = make_rows(np.random.default_rng(3), 400)
    write_parquet(tmp_path / "t.parquet", rows)
    small = streamed(tmp_path / "t.parquet", chunk=50, sample_size=300)
    again = streamed(tmp_path / "t.parquet", chunk=333, sample_size=300)
    assert small["spearman_sample"] == {"rows": 300, "of": len(rows), "exact": False, "seed": 0}
    assert (
        small["agreement"]["spearman_raw"] == again["agreement"]["spearman_raw"]
    )  # the sample does not depend on the chunking
    full = streamed(tmp_path / "t.parquet", chunk=50)
    for pair, r in full["agreement"]["spearman_raw"].items():
        assert abs(small["agreement"]["spearman_raw"][pair] - r) < 0.2


def test_large_table_bounded_memory_identical(tmp_path, monkeypatch):
    """~240k rows through 4k-row chunks: peak memory a fraction of the table's, report identical."""
    rng = np.random.default_rng(11)
    n_prompts, chunk, most = 30_000, 4_000, 12
    sizes = rng.integers(4, most + 1, n_prompts)
    n = int(sizes.sum())
    pid = np.repeat(np.arange(n_prompts), sizes)
    pos = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    label = (rng.random(n) < 0.3).astype(np.int64)
    x = np.round(rng.normal(size=(n, 3)) + label[:, None], 2)
    x[rng.random(x.shape) < 0.05] = np.nan
    table = pa.table(
        {
            "prompt_id": pid.astype(str),
            "response_id": pos.astype(str),
            "label": label,
            **{m: pa.array(x[:, j], mask=np.isnan(x[:, j])) for j, m in enumerate(MODELS)},
        }
    )
    full_bytes = table.nbytes + x.nbytes
    pq.write_table(table, tmp_path / "big.parquet", row_group_size=20_000)
    del table

    held, real_score = [], Scorer.score

    def observed(self, t):  # rows held at once, and Arrow memory in use, at each scoring
        held.append((t.num_rows, pa.total_allocated_bytes()))
        return real_score(self, t)

    monkeypatch.setattr(Scorer, "score", observed)
    rules = ("mean", "fj:verdict")
    base = pa.total_allocated_bytes()
    tracemalloc.start()
    try:
        src = open_rewards(tmp_path / "big.parquet")
        cals = fit_streamed(src, "standardize", chunk)
        scorer = Scorer(src.models, cals, rules, 1.0, (1.5, 1.0, 0.8), {}, True)
        doc = evaluate_streaming(src, scorer, tmp_path / "out.parquet", chunk, n_boot=1, sample_size=2_000)
        _, np_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n > 50 * chunk and doc["stream"]["chunks"] == -(-n // chunk)
    assert max(r for r, _ in held) <= chunk + most  # a chunk plus one carried prompt
    assert max(b for _, b in held) - base < full_bytes / 4, (max(b for _, b in held) - base, full_bytes)
    assert np_peak < full_bytes / 3, (np_peak, full_bytes)

    # the in-memory reference, built from the same arrays
    raw = np.full((n_prompts, most, 3), np.nan)
    raw[pid, pos] = x
    labels = np.full((n_prompts, most), np.nan)
    labels[pid, pos] = label
    valid = ~np.isnan(labels)
    t = RewardTable("best_of_n", list(MODELS), [str(p) for p in range(n_prompts)], [], raw, labels, valid)
    ref = evaluate_ensemble(t, fit_calibrators(t.flat_raw, t.models), rules, lambdas=(1.5, 1.0, 0.8), n_boot=1)
    ref["agreement"]["spearman_raw"] = doc["agreement"]["spearman_raw"]  # sampled here (2,000 of the rows)
    assert_same_report(doc, ref)
    assert doc["prompts"] == n_prompts and not doc["spearman_sample"]["exact"]


def test_cli_streams_parquet_and_writes_rows(tmp_path, capsys):
    rows = make_rows(np.random.default_rng(5), 30)
    write_parquet(tmp_path / "t.parquet", rows)
    out = tmp_path / "out.parquet"
    assert (
        main(
            [
                "ensemble",
                str(tmp_path / "t.parquet"),
                "--output",
                str(out),
                "--chunk-size",
                "8",
                "--json",
                "--n-boot",
                "50",
            ]
        )
        == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["stream"]["backend"] == "local" and doc["responses"] == len(rows) and doc["prompts"] == 30
    cols = pq.read_schema(out).names
    assert cols[:3] == ["prompt_id", "response_id", "label"] and "calibrated_rm_a" in cols
    assert "key_fj:verdict" in cols and "selected_rm_c" in cols and "selected_uwo" in cols
    assert not (tmp_path / "out.parquet.partial").exists()
    # a label-free calibration fitted elsewhere in memory (quantile), applied while streaming
    write_jsonl(tmp_path / "cal.jsonl", rows[:40])
    argv = [
        "ensemble",
        str(tmp_path / "t.parquet"),
        "--calibration",
        "quantile",
        "--calibrate-on",
        str(tmp_path / "cal.jsonl"),
        "--n-boot",
        "40",
    ]
    assert main(argv) == 0
    assert "best-of-n accuracy" in capsys.readouterr().out


@pytest.mark.parametrize(
    "fmt, edit, argv, message",
    [
        ("jsonl", lambda rows: rows.insert(3, "{not json"), [], "t.jsonl:4: not valid JSON"),
        ("jsonl", lambda rows: rows[5].update(label=2), [], "t.jsonl:6: label must be 0 or 1"),
        (
            "csv",
            lambda rows: rows[4].update(rm_b="high"),
            [],
            "t.csv:6: rm_b: reward must be a number or null, got 'high'",
        ),
        ("parquet", lambda rows: rows[7].update(rm_a=float("inf")), [], "t.parquet:row 8: rm_a: reward is infinite"),
        (
            "parquet",
            lambda rows: rows.append(dict(rows[0], response_id="rx")),
            [],
            "prompt 'p0' appears again after other prompts",
        ),
        (
            "parquet",
            lambda rows: rows.insert(1, dict(rows[0])),
            [],
            "t.parquet:row 2: response 'r0' of prompt 'p0' appears twice",
        ),
        (
            "parquet",
            lambda rows: None,
            ["--calibration", "quantile"],
            "quantile calibration needs every reward in memory",
        ),
    ],
)
def test_bad_tables_are_one_line_errors(tmp_path, capsys, fmt, edit, argv, message):
    rows = make_rows(np.random.default_rng(8), 10, nan_rate=0.0)
    edit(rows)
    path = tmp_path / f"t.{fmt}"
    if fmt == "jsonl":
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    else:
        WRITERS[fmt](path, rows)
    out = tmp_path / "out.parquet"
    assert main(["ensemble", str(path), "--stream", "--output", str(out), "--chunk-size", "100", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err, err
    assert not out.exists() and not (tmp_path / "out.parquet.partial").exists()


def test_pairs_stay_in_memory(tmp_path, capsys):
    (tmp_path / "p.jsonl").write_text(json.dumps({"chosen": {"a": 1, "b": 2}, "rejected": {"a": 0, "b": 1}}) + "\n")
    assert main(["ensemble", str(tmp_path / "p.jsonl"), "--stream"]) == 2
    assert "pairs layout is evaluated in memory" in capsys.readouterr().err


# --- Ray Data --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster():
    import ray

    from accord.verify.io import connect_ray

    started = not ray.is_initialized()  # a cluster another test module started is reused, and left running
    yield connect_ray(num_cpus=2)
    if started:
        ray.shutdown()


@pytest.mark.parametrize("fmt", ["parquet", "jsonl"])
def test_ray_equals_local_stream(tmp_path, ray_cluster, fmt):
    """Small blocks: prompts straddle Ray blocks and are joined back whole on the driver."""
    rows = make_rows(np.random.default_rng(9), 300)
    path = tmp_path / f"t.{fmt}"
    write_parquet(path, rows, row_group_size=37) if fmt == "parquet" else write_jsonl(path, rows)
    local = streamed(path, tmp_path / "local.parquet", chunk=64)
    ray = streamed(path, tmp_path / "ray.parquet", chunk=64, backend="ray")
    assert pq.read_table(tmp_path / "ray.parquet").equals(pq.read_table(tmp_path / "local.parquet"))
    assert ray["stream"].pop("chunks") > 1
    for doc in (local, ray):
        (
            doc["stream"].pop("seconds"),
            doc["stream"].pop("backend"),
            doc["stream"].pop("output"),
            doc["stream"].pop("chunks", None),
        )
    assert ray == local


def test_cli_backend_ray_error_is_one_line(tmp_path, ray_cluster, capsys):
    rows = make_rows(np.random.default_rng(10), 40, nan_rate=0.0)
    rows[50]["rm_c"] = float("inf")
    write_parquet(tmp_path / "t.parquet", rows, row_group_size=16)
    out = tmp_path / "out.parquet"
    argv = ["ensemble", str(tmp_path / "t.parquet"), "--backend", "ray", "--output", str(out), "--load-calibration"]
    (tmp_path / "cal.json").write_text(json.dumps({m: {"method": "sigmoid"} for m in MODELS}))
    assert main([*argv, str(tmp_path / "cal.json")]) == 2
    err = capsys.readouterr().err.strip()
    r = rows[50]
    assert (
        f"prompt {r['prompt_id']!r} response {r['response_id']!r}: rm_c: reward is infinite" in err and "\n" not in err
    )
    assert not out.exists()
