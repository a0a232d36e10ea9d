"""VLM judges and generator on tiny random Qwen2-VL / Qwen2.5-VL / LLaVA models (CPU, no download)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch  # noqa: F401  (the models extra: missing, these tests fail instead of being skipped)
from PIL import Image

from accord.adapters import JudgeCache, judge_type
from accord.adapters.local._vlm import (
    VLM_ROLES,
    VLMGenerator,
    VLMJudge,
    VLMJudges,
    family_of,
    load_image,
    load_vlm,
    random_vlm,
)
from accord.errors import UserError
from accord.protocols import StepContext


def _default_lambda(role: str) -> float:
    """The vlm judge type's registered default λ of a role's column."""
    return judge_type("vlm").columns[f"vlm_{role}"]


EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "images"
FAMILIES = ["qwen2_vl", "qwen2_5_vl", "llava"]
CANDIDATES = ["There are 3 red circles.", "The answer is 2.", "A cat sits next to the circles."]


@pytest.fixture(scope="module")
def vlms():
    return {f: random_vlm(f, seed=1) for f in FAMILIES}


@pytest.fixture(scope="module")
def picture():
    return load_image(EXAMPLES / "shapes_0.png")


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_batched_scores_equal_one_prompt_at_a_time(vlms, picture, family):
    vlm = vlms[family]
    assert family_of(vlm.model.config) == family
    ctx = StepContext("How many red circles are in the image?", ("I look at the red shapes.",), (picture,))
    judges = VLMJudges(vlm=vlm, batch_size=16)
    batched = judges.score_many(ctx, CANDIDATES)
    assert judges.forward_passes == 1  # 3 roles x 3 candidates in one pass
    assert len(batched) == 3 and all(len(r) == 3 for r in batched)
    single = VLMJudges(vlm=vlm, batch_size=1).score_many(ctx, CANDIDATES)
    a = np.array([[s.value for s in r] for r in batched])
    b = np.array([[s.value for s in r] for r in single])
    assert np.all((a >= 0) & (a <= 1)) and np.max(np.abs(a - b)) < 1e-5
    # the image really enters the model: every image position is a visual token, and a
    # different picture changes the scores
    inp = vlm.inputs([vlm.chat("s", "u", 1)], [picture])
    assert int((inp["input_ids"] == vlm.image_token_id).sum()) == vlm._image_inputs([picture])["counts"][0] > 1
    other = ctx.__class__(ctx.question, ctx.steps, (Image.new("RGB", (80, 60), (0, 90, 200)),))
    c = np.array([[s.value for s in r] for r in judges.score_many(other, CANDIDATES)])
    assert np.max(np.abs(a - c)) > 0
    digits = VLMJudge("visual", vlm=vlm, mode="digits").score(ctx, CANDIDATES)
    assert all(0 <= s.value <= 1 for s in digits)


@pytest.mark.slow
def test_text_only_context_and_judge_cache(vlms, picture, tmp_path):
    vlm = vlms["qwen2_5_vl"]
    cache = JudgeCache(tmp_path / "judge_cache.jsonl")
    judges = VLMJudges(("visual", "logical"), vlm=vlm, cache=cache)
    ctx = StepContext("How many red circles?", (), (picture,))
    first = judges.score_many(ctx, CANDIDATES[:2])
    passes = judges.forward_passes
    assert judges.score_many(ctx, CANDIDATES[:2]) == first and judges.forward_passes == passes
    # same prompts, another image: another key, scored again
    judges.score_many(StepContext("How many red circles?", (), (EXAMPLES / "shapes_1.png",)), CANDIDATES[:2])
    assert judges.forward_passes == passes + 1
    # no attachment: scored as text only
    text_only = judges.score_many(StepContext("What is 2 + 2?"), ["4"])
    assert 0 <= text_only[0][0].value <= 1


@pytest.mark.slow
def test_load_by_local_path(vlms, picture, tmp_path):
    vlm = vlms["llava"]
    folder = tmp_path / "tiny-llava"
    vlm.model.save_pretrained(folder)
    vlm.tokenizer.save_pretrained(folder)
    vlm.image_processor.save_pretrained(folder)
    loaded = load_vlm(str(folder), device="cpu", dtype="float32")
    ctx = StepContext("How many red circles?", (), (picture,))
    a = VLMJudges(vlm=vlm).score_many(ctx, CANDIDATES[:1])
    b = VLMJudges(vlm=loaded).score_many(ctx, CANDIDATES[:1])
    assert max(abs(x[0].value - y[0].value) for x, y in zip(a, b)) < 1e-6
    with pytest.raises(ValueError, match="not found locally"):
        load_vlm(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="dtype"):
        load_vlm(str(folder), dtype="int8")


@pytest.mark.slow
def test_two_step_loop_on_an_image_task(vlms):
    from accord.consensus_core import get_policy
    from accord.verify.loop import Budgets, Chain, Panel, StepLoop
    from accord.verify.tasks import load_tasks

    vlm = vlms["qwen2_5_vl"]
    task = load_tasks("images", path=str(EXAMPLES / "questions.jsonl"), limit=1)[0]
    assert task.context().attachments and Path(task.context().attachments[0]).is_file()
    judges = VLMJudges(vlm=vlm)
    panel = Panel([judges], [_default_lambda(r) for r in judges.roles])
    gen = VLMGenerator(vlm, max_new_tokens=4)
    events = []
    loop = StepLoop(
        gen,
        panel,
        [Chain("verdict", get_policy("verdict"))],
        Budgets(n=2, max_steps=2),
        seed=3,
        on_event=lambda kind, **kw: events.append(kind),
    )
    end = loop.run([task])[0]
    steps = events.count("step")
    assert 1 <= steps <= 2 and end["n_steps"] <= steps and end["task_id"] == task.id
    assert loop.totals.panel_calls == steps and loop.totals.candidates_scored == 2 * steps
    # the generator is seeded: same seed, same candidates
    ctx = task.context()
    assert gen.propose(ctx, 2, seed=5) == gen.propose(ctx, 2, seed=5)


def test_image_task_file_errors_name_the_line(tmp_path):
    from accord.verify.tasks import load_tasks

    tasks = load_tasks("images", path=str(EXAMPLES / "questions.jsonl"))
    assert len(tasks) == 6 and all(Path(t.images[0]).is_file() for t in tasks)
    assert tasks[0].score(["I count them.", "The answer is 4."]) == float(tasks[0].reference == "4")
    bad = tmp_path / "q.jsonl"
    for line, msg in [
        ({"image": "nope.png", "question": "q?", "answer": 1}, "q.jsonl:1: image file .*nope.png does not exist"),
        ({"question": "q?", "answer": 1}, "q.jsonl:1: missing 'image'"),
        ({"image": [], "question": "q?", "answer": 1}, "'image' must be a file path"),
        ({"image": "x.png", "question": "q?", "answer": 1, "colour": 1}, "unknown field"),
    ]:
        bad.write_text(json.dumps(line) + "\n")
        with pytest.raises(UserError, match=msg):
            load_tasks("images", path=str(bad))
    (tmp_path / "x.png").write_text("not a picture")
    bad.write_text(json.dumps({"image": "x.png", "question": "q?", "answer": 1}) + "\n")
    with pytest.raises(UserError, match="x.png is not a readable image"):
        load_tasks("images", path=str(bad))


def test_bad_configuration_is_named(vlms):
    vlm = vlms["qwen2_vl"]
    with pytest.raises(ValueError, match="unknown VLM judge role"):
        VLMJudges(("visual", "smell"), vlm=vlm)
    with pytest.raises(ValueError, match="mode"):
        VLMJudges(vlm=vlm, mode="stars")
    with pytest.raises(ValueError, match="need a loaded vlm or a model"):
        VLMJudges()
    with pytest.raises(ValueError, match="unsupported vision-language model type 'bert'"):
        family_of(type("C", (), {"model_type": "bert"})())
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_image("/no/such/picture.png")
    with pytest.raises(TypeError, match="an image must be"):
        load_image(42)
    assert set(VLM_ROLES) == {"visual", "logical", "contextual"}


@pytest.mark.slow
def test_accord_run_on_image_tasks_with_a_vlm_generator_and_vlm_judges(vlms, tmp_path):
    """`accord run` end to end from a config: a VLM from a local folder generates and judges."""
    import yaml

    from accord.adapters.local import shared_vlm
    from accord.cli.main import main

    vlm = vlms["qwen2_vl"]
    folder = tmp_path / "vlm"
    for part in (vlm.model, vlm.tokenizer, vlm.image_processor):
        part.save_pretrained(folder)
    cfg = {
        "task": {"name": "images", "options": {"path": str(EXAMPLES / "questions.jsonl"), "limit": 2}},
        "generator": {"model": str(folder), "max_new_tokens": 4},
        "judges": [{"type": "vlm", "role": r, "model": str(folder)} for r in ("visual", "logical", "contextual")]
        + [{"type": "embedding", "lambda": 0.8}],
        "baselines": ["mean"],
        "base_chain": False,
        "budgets": {"n_candidates": 2, "max_steps": 2, "max_tokens": 16},
        "output": {"report": False},
    }
    (tmp_path / "run.yaml").write_text(yaml.safe_dump(cfg))
    shared_vlm.cache_clear()
    assert (
        main(["run", "--config", str(tmp_path / "run.yaml"), "--out", str(tmp_path / "out"), "--quiet", "--json"]) == 0
    )
    assert shared_vlm.cache_info().currsize == 1  # generator and judges share one loaded model
    recs = [json.loads(x) for x in (tmp_path / "out" / "trace.jsonl").read_text().splitlines()]
    head = recs[0]
    assert head["judges"][:3] == ["vlm_visual", "vlm_logical", "vlm_contextual"]
    assert head["lambdas"][:3] == [_default_lambda(r) for r in ("visual", "logical", "contextual")]
    assert head["scoring"]["vlm_visual"]["scoring"] == "next-token"
    steps = [r for r in recs if r["type"] == "step"]
    assert steps and all(len(r["raw"][0]) == 4 and all(v is not None for v in r["raw"][0][:3]) for r in steps)
    assert {r["task_id"] for r in recs if r["type"] == "task_end"} == {t for t in {r["task_id"] for r in steps}}
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["n_problems"] == 2
    # a VLM judge without a model is a config error naming the judge
    bad = {**cfg, "judges": [{"type": "vlm", "role": "visual"}, {"type": "embedding"}]}
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(bad))
    assert main(["run", "--config", str(tmp_path / "bad.yaml"), "--out", str(tmp_path / "bad"), "--quiet"]) == 2
