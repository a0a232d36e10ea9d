"""Output files a user's own tools read: caches kept out of the user's output folder, ``labels score``
reading ``accord verify --out``, and ``accord code --format csv`` as a flat table."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from cli_runs import verify_to
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "examples" / "solutions" / "processbench.jsonl"


def _verify(out: Path, *extra: str) -> None:
    verify_to(SOLUTIONS, out, *extra)


def test_verify_keeps_its_cache_in_the_user_cache_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "results" / "pred.jsonl"
    out.parent.mkdir()
    _verify(out)
    first = json.loads(capsys.readouterr().out)
    assert sorted(p.name for p in out.parent.iterdir()) == ["pred.jsonl"]  # nothing beside the output
    cached = list((tmp_path / "cache" / "verify").iterdir())
    assert len(cached) == 1 and cached[0].name.startswith("pred.jsonl-")
    out.unlink()
    _verify(out)
    second = json.loads(capsys.readouterr().out)
    assert second["cache"]["hits"] == first["cache"]["misses"] > 0 and second["cache"]["misses"] == 0


def test_labels_score_reads_a_verify_output(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ACCORD_CACHE_DIR", str(tmp_path / "cache"))
    pred = tmp_path / "pred.jsonl"
    _verify(pred)
    capsys.readouterr()
    assert main(["labels", "score", str(pred), str(SOLUTIONS), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    records = [json.loads(line) for line in pred.read_text().splitlines()]
    wrong = [r["prediction"] == r["label"] for r in records if r["label"] >= 0]
    right = [r["prediction"] == -1 for r in records if r["label"] == -1]
    a, b = sum(wrong) / len(wrong), sum(right) / len(right)
    assert got["matched"] == len(records)
    assert abs(got["first_wrong"]["f1"] - 2 * a * b / (a + b)) < 1e-9, got


_labels = st.lists(
    st.lists(st.sampled_from(["valid", "uncertain", "invalid"]), min_size=1, max_size=5), min_size=1, max_size=6
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labels=_labels)
def test_any_verify_output_is_summarised_by_labels_score(labels, tmp_path_factory, capsys):
    folder = tmp_path_factory.mktemp("labels")
    pred = folder / "pred.jsonl"
    pred.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"s{i}",
                    "problem": "p",
                    "prediction": -1,
                    "step_labels": ls,
                    "steps": [{"text": f"step {k}", "label": x} for k, x in enumerate(ls)],
                }
            )
            + "\n"
            for i, ls in enumerate(labels)
        )
    )
    assert main(["labels", "score", str(pred), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["solutions"] == len(labels) and got["steps"] == sum(map(len, labels))
    assert got["with_error"] == sum("invalid" in ls for ls in labels)


def test_code_writes_a_flat_csv_with_the_jsonl_content(tmp_path, capsys):
    base = [
        "code",
        str(ROOT / "examples/code/candidates.jsonl"),
        "--tests",
        str(ROOT / "examples/code/tests.jsonl"),
        "--quiet",
        "--workers",
        "2",
    ]
    main([*base, "--out", str(tmp_path / "c.jsonl")])
    main([*base, "--out", str(tmp_path / "c.csv"), "--format", "csv"])
    capsys.readouterr()
    nested = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    with (tmp_path / "c.csv").open(newline="") as fh:
        flat = list(csv.DictReader(fh))
    assert len(flat) == len(nested) > 0
    for row, rec in zip(flat, nested):
        assert (row["task_id"], row["id"], row["picked"]) == (rec["task_id"], rec["id"], str(rec["picked"]))
        for judge, score in rec["scores"].items():
            assert row[f"score_{judge}"] == ("" if score is None else str(score))
            assert row[f"reason_{judge}"] == rec["reasons"][judge]
    assert not any(isinstance(v, (dict, list)) or str(v).startswith("{") for row in flat for v in row.values())
    main([*base, "--format", "csv"])  # no --out: the CSV on stdout
    assert capsys.readouterr().out == (tmp_path / "c.csv").read_text()
