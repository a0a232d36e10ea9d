"""JudgeCache: keyed by (judge, model, prompt), persisted append-only, survives a torn last line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adapters._cache import CachedScore, JudgeCache, cache_key


def test_get_put_and_counters():
    c = JudgeCache()
    assert c.get("logical", "smollm2", "p") is None
    c.put("logical", "smollm2", "p", 0.25)
    assert c.get("logical", "smollm2", "p") == CachedScore(0.25)
    assert c.get("visual", "smollm2", "p") is None  # another judge
    assert c.get("logical", "qwen", "p") is None  # another model
    assert c.stats() == {"entries": 1, "hits": 1, "misses": 3, "skipped_lines": 0}
    c.put("code", "python", "q", None, "timeout")
    assert c.get("code", "python", "q") == CachedScore(None, "timeout")
    assert ("code", "python", "q") in c and len(c) == 2


@settings(max_examples=60, deadline=None)
@given(
    a=st.tuples(st.text(max_size=6), st.text(max_size=6), st.text(max_size=6)),
    b=st.tuples(st.text(max_size=6), st.text(max_size=6), st.text(max_size=6)),
)
def test_keys_collide_only_for_equal_parts(a, b):
    assert (cache_key(*a) == cache_key(*b)) == (a == b)


def test_persisted_and_reloaded(tmp_path):
    path = tmp_path / "run" / "judge_cache.jsonl"
    with JudgeCache(path) as c:
        for i in range(5):
            c.put("j", "m", f"prompt {i}", i / 4)
        c.put("j", "m", "prompt 0", 0.0)  # same value again: no new line
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"format": "accord-judge-cache/1"} and len(lines) == 6
    assert "prompt" not in path.read_text()  # prompts are not stored, only digests
    back = JudgeCache(path)
    assert [back.get("j", "m", f"prompt {i}").value for i in range(5)] == [0, 0.25, 0.5, 0.75, 1.0]
    back.put("j", "m", "prompt 5", 0.1)
    back.close()
    assert len(JudgeCache(path)) == 6


def test_torn_last_line_is_skipped_and_repaired(tmp_path):
    path = tmp_path / "judge_cache.jsonl"
    with JudgeCache(path) as c:
        c.put("j", "m", "a", 0.5)
        c.put("j", "m", "b", 0.6)
    text = path.read_text()
    path.write_text(text[:-15])  # a crash in the middle of writing the last line
    c = JudgeCache(path)
    assert c.skipped_lines == 1 and c.get("j", "m", "a").value == 0.5 and c.get("j", "m", "b") is None
    c.put("j", "m", "b", 0.6)
    c.close()
    assert JudgeCache(path).get("j", "m", "b").value == 0.6


def test_bad_lines_and_values_are_named(tmp_path):
    path = tmp_path / "judge_cache.jsonl"
    good = json.dumps({"k": "0" * 64, "judge": "j", "model": "m", "v": 0.5})
    path.write_text(good + "\n" + json.dumps({"k": "1" * 64, "v": 1.5}) + "\n" + good + "\n")
    with pytest.raises(ValueError, match=r"judge_cache.jsonl:2: .*'v' must be in \[0, 1\]"):
        JudgeCache(path)
    path.write_text(json.dumps({"format": "other/9"}) + "\n")
    with pytest.raises(ValueError, match=":1: .*unknown format"):
        JudgeCache(path)
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        JudgeCache().put("j", "m", "p", float("nan"))
