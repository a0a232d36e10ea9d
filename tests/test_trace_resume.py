"""Traces are flushed record by record; a killed run resumes losing at most the step in flight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from polling import wait_until
from test_engine import AdditionWalker, chains, panel, tasks

from accord.verify.loop import (
    Budgets,
    StepLoop,
    TraceWriter,
    cut_partial_line,
    load_resume_state,
    read_records,
)


def test_each_record_is_on_disk_as_soon_as_it_is_written(tmp_path):
    path = tmp_path / "t.jsonl"
    w = TraceWriter(path)
    for i in range(3):
        w.write({"type": "note", "i": i, "x": np.float64(0.5), "nan": float("nan"), "arr": np.array([1, 2])})
        lines = path.read_text().splitlines()  # read while the writer is still open
        assert len(lines) == i + 1
        assert json.loads(lines[-1]) == {
            "type": "note",
            "i": i,
            "x": 0.5,
            "nan": None,
            "arr": [1, 2],
            "run_id": w.run_id,
            "writer": w.writer_id,
            "seq": i,
        }
    w.close()


def test_a_half_written_last_line_is_cut_before_appending(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"type": "a"}\n{"type": "b", "x": [1, 2')
    records, notes = read_records(path)
    assert [r["type"] for r in records] == ["a"] and len(notes) == 1
    w = TraceWriter(path)
    assert w.note and "half-written" in w.note
    w.write({"type": "c"})
    w.close()
    assert [r["type"] for r in read_records(path)[0]] == ["a", "c"]
    assert cut_partial_line(path) is None  # nothing more to cut


def test_a_whole_last_record_missing_only_its_newline_is_kept(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"type": "a"}\n{"type": "b"}')  # killed between the record and its newline
    assert [r["type"] for r in read_records(path)[0]] == ["a", "b"]
    w = TraceWriter(path)
    assert w.note and "completed" in w.note
    w.write({"type": "c"})
    w.close()
    assert [r["type"] for r in read_records(path)[0]] == ["a", "b", "c"]


def test_a_malformed_line_inside_the_trace_is_an_error(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"type": "a"}\nnot json\n{"type": "b"}\n')
    with pytest.raises(ValueError, match=r"t.jsonl:2"):
        read_records(path)


def _full_run(path: Path):
    with TraceWriter(path) as w:
        loop = StepLoop(AdditionWalker(), panel(), chains(), budgets=Budgets(3, 5, 200), seed=1, writer=w)
        return loop.run(tasks()), loop


def _strip(rec: dict, *more: str) -> dict:
    """A record without what differs between two runs of the same seed: timings and ids."""
    return {k: v for k, v in rec.items() if k not in ("timings", "run_id", "writer") + more}


def _rounded(x):
    if isinstance(x, float):
        return round(x, 6)
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


@settings(max_examples=15, deadline=None)
@given(cut=st.floats(0.0, 1.0))
def test_resume_from_any_prefix_reproduces_the_uninterrupted_run(tmp_path_factory, cut):
    tmp = tmp_path_factory.mktemp("resume")
    ends_full, _ = _full_run(tmp / "full.jsonl")
    full = (tmp / "full.jsonl").read_bytes()
    part = tmp / "part.jsonl"
    part.write_bytes(full[: int(len(full) * cut)])  # a kill at any byte, even mid-line
    state = load_resume_state(part)
    gen = AdditionWalker()
    with TraceWriter(part) as w:
        loop = StepLoop(gen, panel(), chains(), budgets=Budgets(3, 5, 200), seed=1, writer=w, resume=state)
        ends = loop.run(tasks())
    assert [_strip(e, "seq") for e in ends] == [_strip(e, "seq") for e in ends_full]
    a = [_strip(r) for r in read_records(part)[0]]
    b = [_strip(r) for r in read_records(tmp / "full.jsonl")[0]]
    assert sorted(map(json.dumps, a)) == sorted(map(json.dumps, b))  # nothing lost, nothing twice
    # finished chains are not recomputed: only contexts not yet in the trace are generated
    assert gen.calls == len({r["context_id"] for r in b if r["type"] == "step"} - set(state.candidates))


# --------------------------------------------------------------- a real kill of `accord run`
def _tiny_model(folder: Path, tokenizer) -> None:
    """A randomly initialised 2-layer Llama with SmolLM2's tokenizer (fast to load in a subprocess)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    LlamaForCausalLM(cfg).save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def tiny_config(folder: Path, model: Path, problems: int = 3) -> Path:
    cfg = {
        "task": {"name": "basic_arithmetic", "options": {"size": problems, "seed": 5}},
        "generator": {"model": str(model), "max_new_tokens": 6},
        "judges": [
            {"type": "llm", "role": "grounding", "model": str(model)},
            {"type": "llm", "role": "logic", "model": str(model)},
            {"type": "arithmetic", "lambda": 1.5},
        ],
        "budgets": {"n_candidates": 2, "max_steps": 3, "max_tokens": 100},
        "baselines": ["mean"],
        "threads": 1,
        "output": {"report": False},
    }
    path = folder / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory, smollm2):
    folder = tmp_path_factory.mktemp("tiny-llama")
    _tiny_model(folder, smollm2[1])
    return folder


def _accord(*args: str) -> list[str]:
    return [sys.executable, "-m", "accord.cli.main", *args]


def _env() -> dict:
    return {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}


@pytest.mark.slow
def test_kill_and_resume_equals_an_uninterrupted_run(tiny_model, tmp_path):
    cfg = tiny_config(tmp_path, tiny_model)
    full, killed = tmp_path / "full", tmp_path / "killed"
    subprocess.run(
        _accord("run", "--config", str(cfg), "--out", str(full), "--quiet"),
        check=True,
        env=_env(),
        capture_output=True,
        timeout=600,
    )
    n_steps = sum(1 for r in read_records(full / "trace.jsonl")[0] if r["type"] == "step")
    assert n_steps >= 6

    proc = subprocess.Popen(
        _accord("run", "--config", str(cfg), "--out", str(killed), "--quiet"),
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    trace = killed / "trace.jsonl"
    wait_until(
        lambda: (
            proc.poll() is not None or (trace.exists() and trace.read_text().count('"type": "step"') >= n_steps // 2)
        ),
        "half the steps written",
        timeout_s=600,
    )
    assert proc.poll() is None, "the run finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = [r for r in read_records(trace)[0] if r["type"] in ("step", "task_end")]
    assert 0 < len(before) < n_steps
    assert not (killed / "summary.json").exists()

    out = subprocess.run(
        _accord("run", "--resume", str(killed), "--json"), env=_env(), capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout)
    assert summary["work"]["resumed_steps"] >= 1

    def records(run):
        # the judges' prefix KV cache is warm or cold depending on where the run restarted, which
        # changes float rounding (~1e-10) and how many prompt tokens were computed, nothing else
        return sorted(
            json.dumps(_rounded(_strip(r, "tokens", "seq")))
            for r in read_records(run / "trace.jsonl")[0]
            if r["type"] in ("step", "task_end")
        )

    assert records(killed) == records(full)  # same decisions, nothing lost, nothing recorded twice
    assert json.loads((full / "summary.json").read_text())["accuracy"] == summary["accuracy"]
    # the records written before the kill were kept as they were, not recomputed
    after = [r for r in read_records(trace)[0] if r["type"] in ("step", "task_end")]
    assert after[: len(before)] == before
