"""accord with the real inspect_ai, offline: evals on its mockllm models with outputs set here.

The scorers run through a task (in process) and through ``inspect score`` (the inspect CLI in a
subprocess, which finds them by name through the entry point); the reducer combines several model
graders; ``accord jury`` over the logs of three mock models gives what it gives over the same
answers as a jury file; ``accord verify`` reads a log's outputs as solutions.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import EvalError, read_eval_log, write_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import Score, match, model_graded_qa, multi_scorer  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

from accord.cli.main import main  # noqa: E402
from accord.consensus_core import ConsensusSpec  # noqa: E402
from accord.integrations.inspect_ai import answer_match, panel, verdict, verify_steps  # noqa: E402

INSPECT = str(Path(sys.executable).parent / "inspect")
PROBLEMS = {
    "p1": ("What is 12 * 7?", "84"),
    "p2": ("Solve 2x + 3 = 11 for x.", "4"),
    "p3": ("What is 3/4 + 1/4 + 1/2?", "3/2"),
    "p4": ("How many primes are less than 10?", "4"),
}
# what each mock model writes: alpha right everywhere, beta wrong on p2, gamma wrong on p2 and p4
SOLUTIONS = {
    "alpha": {
        "p1": "12 * 7 = 84.\nThe answer is 84.",
        "p2": "2x = 11 - 3 = 8, so x = 4.\nThe answer is 4.",
        "p3": "3/4 + 1/4 = 1, and 1 + 1/2 = 3/2.\nThe answer is 1.5.",
        "p4": "The primes below 10 are 2, 3, 5 and 7.\nThe answer is 4.",
    },
    "beta": {
        "p1": "12 * 7 = 84.\nThe answer is 84.",
        "p2": "2x = 11 - 3 = 14, so x = 7.\nThe answer is 7.",
        "p3": "3/4 + 1/4 + 1/2 = 3/2.\nThe answer is 3/2.",
        "p4": "The primes below 10 are 2, 3, 5 and 7.\nThe answer is 4.",
    },
    "gamma": {
        "p1": "12 * 7 = 84.\nThe answer is 84.",
        "p2": "2x = 11 - 3 = 14, so x = 7.\nThe answer is 7.",
        "p3": "3/4 + 1/4 + 1/2 = 3/2.\nThe answer is 3/2.",
        "p4": "The primes below 10 are 2, 3, 5, 7 and 9.\nThe answer is 5.",
    },
}
ANSWERS = {  # the final answers those outputs state, as a jury file would hold them
    "alpha": {"p1": "84", "p2": "4", "p3": "1.5", "p4": "4"},
    "beta": {"p1": "84", "p2": "7", "p3": "3/2", "p4": "4"},
    "gamma": {"p1": "84", "p2": "7", "p3": "3/2", "p4": "5"},
}


def mock_output(text: str, model: str = "mock") -> ModelOutput:
    """A mock reply with its token usage given (without one inspect would fetch a tokenizer to count)."""
    out = ModelOutput.from_content(model=model, content=text)
    out.usage = ModelUsage(input_tokens=12, output_tokens=24, total_tokens=36)
    return out


def replying(by_problem: dict[str, str], name: str):
    """A mockllm model answering each problem with the text given for it (samples run concurrently,
    so the reply is chosen by the question, not by the order of the calls)."""
    questions = {PROBLEMS[pid][0]: text for pid, text in by_problem.items()}

    def reply(messages, tools, tool_choice, config):
        asked = messages[-1].text
        return mock_output(next(t for q, t in questions.items() if q in asked), name)

    return get_model(f"mockllm/{name}", custom_outputs=reply)


def dataset(ids=tuple(PROBLEMS)) -> list[Sample]:
    return [Sample(id=pid, input=PROBLEMS[pid][0], target=PROBLEMS[pid][1]) for pid in ids]


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    """Three mock models on the same task, one log each (inspect's own match scorer)."""
    folder = tmp_path_factory.mktemp("logs")
    models = [replying(SOLUTIONS[name], name) for name in SOLUTIONS]
    task = Task(dataset=dataset(), solver=generate(), scorer=match())
    done = eval(task, model=models, log_dir=str(folder), display="none")
    assert [log.status for log in done] == ["success"] * 3
    return {log.eval.model.split("/")[1]: Path(log.location) for log in done}


def jury_json(capsys, *args: str) -> tuple[int, dict, str]:
    capsys.readouterr()
    code = main(["jury", *args, "--json", "--quiet"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip() else {}), out.err


def jury_file(path: Path, answers: dict[str, dict[str, str | None]], ids=tuple(PROBLEMS)) -> Path:
    with path.open("w") as fh:
        for pid in ids:
            row = {f"mockllm/{m}": answers[m].get(pid) for m in answers}
            problem, reference = PROBLEMS[pid]
            fh.write(json.dumps({"id": pid, "answers": row, "reference": reference, "problem": problem}) + "\n")
    return path


def comparable(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in ("file", "inspect_logs")}


def test_jury_over_three_logs_gives_what_it_gives_over_the_same_answers_as_jsonl(logs, tmp_path, capsys):
    code, over_logs, err = jury_json(capsys, str(logs["alpha"].parent))
    assert code == 0 and err == ""
    assert over_logs["members"] == ["mockllm/alpha", "mockllm/beta", "mockllm/gamma"]
    assert over_logs["inspect_logs"]["answers_read"] == {"stated": 12}
    code, over_jsonl, _ = jury_json(capsys, str(jury_file(tmp_path / "panel.jsonl", ANSWERS)))
    assert code == 0
    assert comparable(over_logs) == comparable(over_jsonl)
    # without learning from the targets: the majority is right where one member is wrong, and wrong
    # on p2, where two share a wrong answer
    code, majority, _ = jury_json(capsys, str(logs["alpha"].parent), "--label-budget", "0")
    assert code == 0 and [v["correct"] for v in majority["verdicts"]] == [True, False, True, True]
    assert over_logs["member_accuracy"]["mockllm/alpha"]["accuracy"] == 1.0
    # the files named one by one (in another order) are the same panel, members in the order given
    code, listed, _ = jury_json(capsys, str(logs["gamma"]), str(logs["alpha"]), str(logs["beta"]))
    assert code == 0 and listed["members"] == ["mockllm/gamma", "mockllm/alpha", "mockllm/beta"]
    assert [v["correct"] for v in listed["verdicts"]] == [v["correct"] for v in over_logs["verdicts"]]


def test_jury_names_the_samples_a_log_lacks_and_refuses_logs_of_another_task(logs, tmp_path, capsys):
    short = eval(
        Task(dataset=dataset(("p1", "p3")), solver=generate(), scorer=match()),
        model=replying(SOLUTIONS["beta"], "delta"),
        log_dir=str(tmp_path / "short"),
        display="none",
    )[0]
    code, doc, err = jury_json(capsys, str(logs["alpha"]), str(logs["beta"]), short.location)
    assert code == 0
    assert "mockllm/delta has no sample 'p2', 'p4' in its log: counted as no answer" in err
    assert doc["inspect_logs"]["missing"] == {"mockllm/delta": ["p2", "p4"]}
    assert [v["answers"]["mockllm/delta"] for v in doc["verdicts"]] == ["84", None, "3/2", None]
    other = Task(dataset=[Sample(id="p1", input=PROBLEMS["p1"][0], target="85")], solver=generate(), scorer=match())
    wrong = eval(other, model=replying(SOLUTIONS["alpha"], "omega"), log_dir=str(tmp_path / "other"), display="none")[0]
    code, _, err = jury_json(capsys, str(logs["alpha"]), wrong.location)
    assert code == 2
    assert err.strip().endswith(
        f"sample 'p1' has another target in {wrong.location} than in {logs['alpha']}: the logs are not of the same task"
    )
    assert len(err.strip().splitlines()) == 1


SAID = ["84", "4", "7", "3/2", "1.5", "(x-2)(x-3)", "Yes", None, "error"]  # None: states no answer


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.lists(st.sampled_from(SAID), min_size=4, max_size=4),
        min_size=2,
        max_size=4,
    )
)
def test_any_panel_of_logs_is_judged_as_its_jury_file(logs, tmp_path, capsys, table):
    """Logs written by inspect's own writer with any answers, outputs that state none, errored
    samples: ``accord jury`` over them equals ``accord jury`` over the jury file of those answers."""
    template = read_eval_log(str(logs["alpha"]))
    folder = tmp_path / f"panel{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    answers: dict[str, dict[str, str | None]] = {}
    for j, row in enumerate(table):
        name = f"m{j}"
        log = template.model_copy(deep=True)
        log.eval.model = f"mockllm/{name}"
        answers[name] = {}
        for sample, said in zip(log.samples, row):
            if said == "error":
                sample.output = mock_output("", name)
                sample.error = EvalError(message="RuntimeError: the model failed", traceback="", traceback_ansi="")
                answers[name][sample.id] = None
            elif said is None:
                sample.output = mock_output("I cannot solve this one, sorry about that.\nNo idea.", name)
                answers[name][sample.id] = None
            else:
                sample.output = mock_output(f"Working it out.\nThe answer is {said}.", name)
                answers[name][sample.id] = said
        write_eval_log(log, str(folder / f"{name}.eval"))
    code, over_logs, _ = jury_json(capsys, str(folder))
    assert code == 0
    code, over_jsonl, _ = jury_json(capsys, str(jury_file(folder / "panel.jsonl", answers)))
    assert code == 0
    assert comparable(over_logs) == comparable(over_jsonl)


def test_verify_reads_one_log_as_solutions(logs, tmp_path, capsys):
    out = tmp_path / "pred.jsonl"
    capsys.readouterr()
    code = main(["verify", str(logs["gamma"]), "--out", str(out), "--json", "--bootstrap", "0", "--workers", "1"])
    assert code == 1  # a solution has an invalid step
    records = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert list(records) == ["p1", "p2", "p3", "p4"]
    assert records["p2"]["problem"] == PROBLEMS["p2"][0] and records["p2"]["reference"] == "4"
    assert records["p2"]["first_invalid_step_number"] == 1  # 11 - 3 = 14
    assert records["p1"]["prediction"] == -1
    assert "final_answer" in records["p1"]["judges"]  # the target is the reference


def test_verify_leaves_out_and_names_a_sample_without_output(logs, tmp_path, caplog):
    log = read_eval_log(str(logs["alpha"]))
    log.samples[1].output = mock_output("", "alpha")
    failure = "RuntimeError: the model failed\nat line 3"
    log.samples[1].error = EvalError(message=failure, traceback="", traceback_ansi="")
    broken = tmp_path / "broken.eval"
    write_eval_log(log, str(broken))
    out = tmp_path / "pred.jsonl"
    with caplog.at_level("WARNING", logger="accord.verify"):
        code = main(["verify", str(broken), "--out", str(out), "--json", "--bootstrap", "0", "--workers", "1"])
    assert code == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["p1", "p3", "p4"]
    assert f"{broken}: 1 sample(s) without output left out: 'p2' (RuntimeError: the model failed)" in caplog.text


def inspect_score(log: Path, out: Path, scorer: str, *args: str) -> subprocess.CompletedProcess:
    cmd = [INSPECT, "score", str(log), "--scorer", scorer, *args, "--action", "append", "--output-file", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=out.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_inspect_score_runs_the_accord_scorers_by_name(logs, tmp_path):
    steps, both = tmp_path / "steps.eval", tmp_path / "both.eval"
    inspect_score(logs["gamma"], steps, "accord/verify_steps")
    inspect_score(steps, both, "accord/answer_match", "-S", "equivalence=math")
    log = read_eval_log(str(both))
    assert [s.name for s in log.results.scores] == ["match", "verify_steps", "answer_match"]
    by_id = {s.id: s.scores for s in log.samples}
    assert {pid: sc["verify_steps"].value for pid, sc in by_id.items()} == {"p1": "C", "p2": "I", "p3": "C", "p4": "I"}
    p2 = by_id["p2"]["verify_steps"]
    assert p2.explanation.startswith("step 1 of 2 is invalid: '2x = 11 - 3 = 14, so x = 7.'. Evidence: ")
    assert p2.metadata["first_invalid_step"] == 1
    assert [(s["label"], s["role"]) for s in p2.metadata["steps"]] == [("invalid", "claim"), ("invalid", "claim")]
    assert all(s["reason"] for s in p2.metadata["steps"])
    assert {pid: sc["answer_match"].value for pid, sc in by_id.items()} == {"p1": "C", "p2": "I", "p3": "C", "p4": "I"}
    p3 = by_id["p3"]["answer_match"]
    assert p3.answer == "3/2" and p3.metadata["matched_target"] == "3/2" and p3.metadata["equivalence"] == "math"


def test_answer_match_reads_forms_inspect_match_does_not(logs, tmp_path):
    """alpha writes 1.5 for the target 3/2: accord's equivalence matches it, normalised text does not."""
    math_log, text_log = tmp_path / "math.eval", tmp_path / "text.eval"
    inspect_score(logs["alpha"], math_log, "accord/answer_match")
    inspect_score(logs["alpha"], text_log, "accord/answer_match", "-S", "equivalence=text")
    auto = {s.id: s.scores["answer_match"] for s in read_eval_log(str(math_log)).samples}
    text = {s.id: s.scores["answer_match"] for s in read_eval_log(str(text_log)).samples}
    assert auto["p3"].value == "C" and text["p3"].value == "I"
    assert auto["p3"].metadata["normalised_answer"] == "1.5" and auto["p3"].metadata["read_as"] == "math"
    assert [auto[p].value for p in PROBLEMS] == ["C", "C", "C", "C"]


GRADES = {  # two model graders: a lenient one that passes everything, a strict one that fails p2 and p4
    "lenient": {pid: "GRADE: C" for pid in PROBLEMS},
    "strict": {"p1": "GRADE: C", "p2": "GRADE: I", "p3": "GRADE: C", "p4": "GRADE: I"},
}


def grader(name: str):
    def reply(messages, tools, tool_choice, config):
        prompt = messages[-1].text
        pid = next(p for p, (q, _) in PROBLEMS.items() if q in prompt)
        return mock_output(GRADES[name][pid], name)

    return get_model(f"mockllm/{name}", custom_outputs=reply)


def test_verdict_reduces_model_graders_and_accord_scorers_in_a_task(tmp_path):
    graders = [model_graded_qa(model=grader("lenient")), model_graded_qa(model=grader("strict")), answer_match()]
    task = Task(
        dataset=dataset(),
        solver=generate(),
        scorer=[
            verify_steps(),
            multi_scorer(graders, verdict(lambdas=[1.0, 1.0, 1.5])),
            multi_scorer(graders[:2], "accord/verdict"),  # by name: λ = 1 each
            model_graded_qa(model=[grader("lenient"), grader("strict")], reducer=verdict(lambdas=[2.0, 1.0])),
        ],
    )
    log = eval(task, model=replying(SOLUTIONS["beta"], "beta"), log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success", log.error
    scores = {s.id: list(s.scores.values()) for s in log.samples}
    lams = ConsensusSpec((1.0, 1.0, 1.5))
    for pid, (steps, weighted, by_name, grader_panel) in scores.items():
        values = [1.0, 1.0 if GRADES["strict"][pid].endswith("C") else 0.0, 0.0 if pid == "p2" else 1.0]
        expect = lams.stats([values])
        meta = weighted.metadata
        assert meta["values"] == values and meta["lambdas"] == [1.0, 1.0, 1.5]
        assert math.isclose(weighted.value, float(expect.mean[0])) and math.isclose(meta["mean"], weighted.value)
        assert math.isclose(meta["dispersion"], float(expect.dispersion[0]))
        assert meta["accepted"] == (expect.mean[0] > 0.6 and expect.dispersion[0] < 0.1)
        assert [p["value"] for p in meta["panel"]][:2] == ["C", GRADES["strict"][pid][-1]]
        assert by_name.metadata["lambdas"] == [1.0, 1.0]
        # inspect's own grader panel, its grades combined by the consensus instead of a majority
        strict = 1.0 if GRADES["strict"][pid].endswith("C") else 0.0
        assert grader_panel.metadata["values"] == [1.0, strict] and grader_panel.metadata["lambdas"] == [2.0, 1.0]
        assert grader_panel.value == pytest.approx(float(ConsensusSpec((2.0, 1.0)).stats([[1.0, strict]]).mean[0]))
        assert grader_panel.metadata["accepted"] == (strict == 1.0)
    # all agree on p1 and p3: accepted; the graders split on p4: not accepted; all but one fail p2
    assert {pid: sc[1].metadata["accepted"] for pid, sc in scores.items()} == {
        "p1": True,
        "p2": False,
        "p3": True,
        "p4": False,
    }
    assert scores["p4"][1].value > 0.5 and "not accepted" in scores["p4"][1].explanation
    # the log as inspect view shows it: the reduced score's metadata is in the sample's JSON
    written = json.loads(read_eval_log(log.location).samples[3].model_dump_json())
    assert set(written["scores"]["multi_scorer"]["metadata"]) >= {"mean", "dispersion", "accepted", "consensus"}


def test_panel_scorer_reduces_scorers_named_on_the_command_line(logs, tmp_path):
    out = tmp_path / "panel.eval"
    inspect_score(
        logs["beta"], out, "accord/panel", "-S", "scorers=[match, accord/answer_match]", "-S", "lambdas=[1.0, 2.0]"
    )
    got = {s.id: s.scores["panel"] for s in read_eval_log(str(out)).samples}
    assert got["p2"].value == 0.0 and got["p2"].metadata["accepted"] is False
    assert got["p1"].value == pytest.approx(1.0) and got["p1"].metadata["accepted"] is True
    assert got["p1"].metadata["lambdas"] == [1.0, 2.0]


def test_verdict_options_fail_at_once_and_odd_values_are_recorded():
    with pytest.raises(ValueError, match="λ"):
        verdict(lambdas=[1.0, -1.0])
    with pytest.raises(ValueError, match="eps"):
        verdict(eps=0.0)
    with pytest.raises(ValueError, match="value must be"):
        verdict(value="median")
    with pytest.raises(ValueError, match="at least 2 scorers"):
        panel(scorers="match")
    reduce = verdict(lambdas=[1.0, 1.0, 1.0])
    odd = reduce([Score(value=1.0), Score(value=7), Score(value="C"), Score(value=float("nan"))])
    assert odd.metadata["ignored"] == {"2": "7 is outside [0, 1]", "4": "unscored"}
    assert odd.metadata["lambda_fallback"].startswith("3 λ given for 4 values")
    assert odd.value == pytest.approx(1.0) and odd.metadata["values"] == [1.0, None, 1.0, None]
    nothing = reduce([Score(value="maybe"), Score(value=float("nan"))])
    assert math.isnan(nothing.value) and nothing.metadata["ignored"]["1"] == "'maybe' is not a score"
    with pytest.raises(ValueError, match="equivalence must be"):
        answer_match(equivalence="fuzzy")
    with pytest.raises(ValueError, match="fail_on"):
        verify_steps(fail_on="never")


def test_bad_logs_are_one_line_errors(logs, tmp_path, capsys):
    garbage = tmp_path / "broken.eval"
    garbage.write_bytes(b"PK\x03\x04 not a zip at all")
    empty = tmp_path / "empty"
    empty.mkdir()
    for args, says in (
        ([str(garbage), str(logs["alpha"])], f"{garbage}: not a readable inspect log"),
        ([str(empty)], f"{empty}: no inspect logs (.eval, or .json logs) in the folder"),
        ([str(logs["alpha"])], "one log of one epoch is one member; a jury needs at least 2"),
        ([str(logs["alpha"]), str(tmp_path / "missing.eval")], "missing.eval: no such file or folder"),
    ):
        code, _, err = jury_json(capsys, *args)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
