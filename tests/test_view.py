"""`accord view`: one self-contained HTML page of a run, a verify output or a jury output.

The pages are checked as files (kind detection, escaping, recorded questions, bad input, --serve)
and in a real headless browser, Debian's chromium driven by chromedriver (installed by
scripts/setup_test.sh): no console error (a blocked inline script or a failed load is one), the
filters change the visible count, a screenshot is not blank. With ACCORD_WRITE_DOCS=1 the
screenshots are written to docs/ (docs/view-run.png, view-verify.png, view-jury.png).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.adapters.math import ArithmeticJudge
from accord.cli.main import main
from accord.consensus_core import get_policy
from accord.protocols import JudgeScore
from accord.verify.loop import Budgets, Chain, load_resume_state, Panel, StepLoop, TraceWriter
from accord.verify.tasks import TextTask
from accord.verify.view import detect_kind, render_jury, render_verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_RUN = ROOT / "examples" / "runs" / "smollm2-tiny"
HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">"quotes" & </textarea>'


class Summer:
    """A rule-based generator for "a + b" questions: the sum and the sum off by one, the wrong one
    first when a is odd (so the unverified chain answers those wrongly)."""

    seeded_by_row = False

    def propose(self, ctx, n, seed):
        a, b = (int(x) for x in re.findall(r"\d+", ctx.question)[:2])
        if ctx.steps:
            return [f"The answer is {ctx.steps[-1].split('=')[-1].strip()}."] * n
        return [f"{a} + {b} = {a + b + (k + a) % 2}" for k in range(n)]

    def is_final(self, step):
        return "answer is" in step


class Silent:
    """A judge that never scores (a failed judge on every candidate)."""

    name = "silent"

    def score(self, ctx, candidates):
        return [JudgeScore.failed("no opinion") for _ in candidates]


def record_run(folder: Path, questions: list[str]) -> Path:
    """A run folder written by the real step loop (arithmetic judge + a failing one)."""
    folder.mkdir(parents=True, exist_ok=True)
    tasks = [TextTask(id=f"t{i}", question=q, reference=str(sum(int(x) for x in re.findall(r"\d+", q)[:2])))
             for i, q in enumerate(questions)]
    panel = Panel([ArithmeticJudge(), Silent()], lambdas=[1.0, 1.0])
    chains = [Chain("verdict", get_policy("verdict", tau=0.6, eps=0.1)), Chain("base")]
    with TraceWriter(folder / "trace.jsonl") as writer:
        StepLoop(Summer(), panel, chains, Budgets(n=3, max_steps=3, max_tokens=100), writer=writer).run(tasks)
    return folder


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A fresh run folder, a verify --out file and a jury --out file, each made through the CLI or the loop."""
    base = tmp_path_factory.mktemp("view")
    run = record_run(base / "run", ["What is 12 + 30?", "What is 7 + 5?", HOSTILE + " What is 1 + 2?"])
    pred = base / "pred.jsonl"
    assert main(["verify", str(ROOT / "examples/solutions/processbench.jsonl"), "--out", str(pred), "--json",
                 "--bootstrap", "0", "--workers", "1", "--fail-on", "never"]) == 0
    jury = base / "jury.jsonl"
    assert main(["jury", str(ROOT / "examples/jury/panel.jsonl"), "--out", str(jury), "--json", "--n-boot", "40"]) == 0
    return {"run": run, "verify": pred, "jury": jury, "dir": base}


def view(path: Path, out: Path, capsys) -> str:
    assert main(["view", str(path), "--out", str(out)]) == 0
    assert f"Wrote {out}" in capsys.readouterr().out
    return out.read_text(encoding="utf-8")


# ----------------------------------------------------------------------------------- files


def test_traces_carry_each_question_and_reference_once(outputs):
    records = [json.loads(line) for line in (outputs["run"] / "trace.jsonl").read_text().splitlines()]
    tasks = [r for r in records if r["type"] == "task"]
    assert [t["task_id"] for t in tasks] == ["t0", "t1", "t2"]
    assert tasks[0]["question"] == "What is 12 + 30?" and tasks[0]["reference"] == "42"
    first_step = next(i for i, r in enumerate(records) if r["type"] == "step" and r["task_id"] == "t1")
    assert records.index(tasks[1]) < first_step  # before its chains
    assert load_resume_state(outputs["run"] / "trace.jsonl").tasks == {"t0", "t1", "t2"}


def test_a_resumed_run_does_not_record_a_question_twice(tmp_path):
    run = record_run(tmp_path / "r", ["What is 2 + 3?"])
    trace = run / "trace.jsonl"
    lines = trace.read_text().splitlines()
    trace.write_text("\n".join(lines[:3]) + "\n")  # killed after the task record and two steps
    panel = Panel([ArithmeticJudge(), Silent()], lambdas=[1.0, 1.0])
    chains = [Chain("verdict", get_policy("verdict", tau=0.6, eps=0.1)), Chain("base")]
    state = load_resume_state(trace)
    with TraceWriter(trace) as writer:
        StepLoop(Summer(), panel, chains, Budgets(n=3, max_steps=3, max_tokens=100), writer=writer,
                 resume=state).run([TextTask(id="t0", question="What is 2 + 3?", reference="5")])
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [r["type"] for r in records] == [json.loads(line)["type"] for line in lines]  # as uninterrupted
    assert sum(r["type"] == "task" for r in records) == 1


def test_each_kind_is_detected_and_rendered(outputs, tmp_path, capsys):
    assert detect_kind(outputs["run"]) == "run" and detect_kind(outputs["run"] / "trace.jsonl") == "run"
    assert detect_kind(outputs["verify"]) == "verify" and detect_kind(outputs["jury"]) == "jury"
    page = view(outputs["run"], tmp_path / "run.html", capsys)
    assert "What is 12 + 30?" in page and page.count('class="item problem"') == 3
    assert "(question not recorded)" not in page
    page = view(outputs["verify"], tmp_path / "verify.html", capsys)
    assert page.count('class="item problem"') == 5 and 'class="invalid' in page and 'class="valid' in page
    assert "Counting each handshake" in page  # the step text, recorded by accord verify --out
    page = view(outputs["jury"], tmp_path / "jury.html", capsys)
    assert page.count('<tr class="item') == 300 and 'class="c0' in page


def test_the_default_output_sits_next_to_the_input(outputs, capsys):
    assert main(["view", str(outputs["jury"])]) == 0
    assert (outputs["dir"] / "jury.html").is_file() and "jury view" in capsys.readouterr().out


def test_an_old_trace_says_its_question_was_not_recorded(tmp_path, capsys):
    page = view(EXAMPLE_RUN, tmp_path / "old.html", capsys)
    assert page.count("(question not recorded)") == 4
    assert "Paired comparisons" in page and "verdict (primary)" in page


def test_a_verify_file_without_step_text_still_shows_its_labels(outputs, tmp_path, capsys):
    old = tmp_path / "old.jsonl"
    lines = []
    for line in outputs["verify"].read_text().splitlines():
        rec = json.loads(line)
        rec.pop("problem")
        for step in rec["steps"]:
            step.pop("text")
        lines.append(json.dumps(rec))
    old.write_text("\n".join(lines) + "\n")
    page = view(old, tmp_path / "old.html", capsys)
    assert page.count("(step text not recorded)") == 18 and page.count("(problem not recorded)") == 5
    assert page.count('<li class="invalid') == 2


def test_user_text_is_escaped_and_the_page_fetches_nothing(outputs, tmp_path, capsys):
    page = view(outputs["run"], tmp_path / "run.html", capsys)
    assert "<script>window.pwned" not in page and "<img src=x" not in page
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # the page's own script, allowed by its hash only
    assert "default-src 'none'" in page
    assert not re.search(r'(src|href)="(https?:)?//', page)
    hostile = tmp_path / "hostile.jsonl"
    rec = json.loads(outputs["verify"].read_text().splitlines()[0])
    rec.update(id=HOSTILE, problem=HOSTILE)
    rec["steps"][0]["text"] = HOSTILE
    rec["steps"][0]["reason"] = HOSTILE
    hostile.write_text(json.dumps(rec) + "\n")
    page = view(hostile, tmp_path / "hostile.html", capsys)
    assert "<script>window.pwned" not in page and "<img src=x" not in page and page.count("<script>") == 1


class _Tags(HTMLParser):
    """Start tags and text of a page, as a browser's parser sees them."""

    def __init__(self):
        super().__init__()
        self.tags, self.text = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


_pieces = st.sampled_from([*"<>&\"'/= scriptonerrorimg\n", "<script>", "</textarea>", "-->", "<img src=x>"])
_hostile_text = st.lists(_pieces, min_size=1, max_size=20).map("".join) | st.text(min_size=1, max_size=30)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_hostile_text, min_size=3, max_size=3))
def test_any_text_shows_as_text_and_adds_no_tag(texts):
    question, answer, reason = texts
    verify = render_verify(Path("x.jsonl"), [{"id": answer, "problem": question, "prediction": -1, "step_labels": ["valid"],
                                              "judges": ["j", "k"], "steps": [{"text": question, "scores": {"j": 1.0, "k": None},
                                                                               "reasons": {"k": reason}, "reason": reason}]}])
    jury = render_jury(Path("y.jsonl"), [{"id": question, "answer": answer, "agreement": 0.5, "abstained": False, "tie": False,
                                          "members": ["a"], "answers": {"a": answer, reason: question}, "classes": {"a": 0, reason: 1}}])
    for page in (verify, jury):
        parsed = _Tags()
        parsed.feed(page)
        assert sum(tag == "script" for tag, _ in parsed.tags) == 1
        assert not any(k.startswith("on") for _, attrs in parsed.tags for k in attrs)
        assert {tag for tag, _ in parsed.tags} <= {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3",
                                                   "div", "span", "label", "input", "main", "section", "p", "ol", "li", "details",
                                                   "summary", "table", "tr", "th", "td", "b", "ul", "script"}
        shown = "".join(parsed.text)
        assert question in shown and answer in shown


@pytest.mark.parametrize("content, message", [
    ("", "empty"),
    ('{"a": 1}\n', "not a line of a run folder"),
    ("not json\n", "not valid JSON"),
    ('{"id": "x", "steps": [], "step_labels": []}\n{"id": "y", "agreement": 1, "abstained": false}\n', ":2: not a line"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    assert main(["view", str(bad), "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and err.startswith("accord view: error:")
    assert not (tmp_path / "x.html").exists()


def test_missing_paths_bad_outputs_and_ports_are_refused(outputs, tmp_path, capsys):
    for argv, message in (([str(tmp_path / "nope")], "no such"),
                          ([str(tmp_path)], "not a run folder"),
                          ([str(outputs["jury"]), "--out", str(outputs["jury"])], "is the input file"),
                          ([str(outputs["jury"]), "--out", str(tmp_path / "no" / "x.html")], "does not exist")):
        assert main(["view", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.splitlines()) == 1, err
    assert main(["view", str(outputs["jury"]), "--serve", "--port", "70000"]) == 2
    assert "port" in capsys.readouterr().err


def test_serve_answers_on_loopback_and_stops_on_ctrl_c(outputs, tmp_path):
    jury = tmp_path / "jury.jsonl"
    shutil.copy(outputs["jury"], jury)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    # Ctrl-C as at a terminal: a test run started in the background (a shell without job control)
    # ignores SIGINT, and a child started from it would inherit that; a handled signal is reset at exec
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "accord.cli.main", "view", str(jury), "--serve", "--port", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line).group(0)
        with urllib.request.urlopen(url, timeout=30) as resp:
            body = resp.read().decode("utf-8")
        assert resp.status == 200 and "accord jury: jury.jsonl" in body
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(url + "other", timeout=30)
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jury.jsonl"]  # --serve alone writes nothing


# ------------------------------------------------------------- report and sweep elsewhere


def test_report_and_sweep_write_into_out_dir_and_leave_the_run_folder_alone(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(ROOT / "examples" / "runs" / "synthetic", run)
    before = sorted(p.name for p in run.iterdir())
    out = tmp_path / "made" / "here"  # created with its parents
    assert main(["report", str(run), "--out-dir", str(out), "--bootstrap", "100"]) == 0
    assert f"Wrote {out / 'report.json'}" in capsys.readouterr().out.replace("\n", "")
    assert main(["sweep", str(run), "--out-dir", str(out), "--tau", "0.5", "0.6", "--eps", "0.1", "0.2", "--json"]) == 0
    capsys.readouterr()
    assert {"report.json", "sweep.json", "sweep_tau_eps.png", "sweep_stubbornness.png", "roc.png",
            "confidence_dispersion.png"} <= {p.name for p in out.iterdir()}
    assert sorted(p.name for p in run.iterdir()) == before
    afile = tmp_path / "afile"
    afile.write_text("x")
    for cmd in ("report", "sweep"):
        assert main([cmd, str(run), "--out-dir", str(afile)]) == 2
        err = capsys.readouterr().err
        assert "is not a folder" in err and len(err.splitlines()) == 1


def test_heatmap_colours_span_zero_to_one_and_say_what_the_cells_span():
    from accord.verify.analysis import heatmap_figure

    fig = heatmap_figure(np.array([[0.58, 0.67], [0.6, np.nan]]), ["a", "b"], ["x", "y"], title="t", xlabel="x", ylabel="y")
    image = fig.axes[0].images[0]
    assert (image.norm.vmin, image.norm.vmax) == (0.0, 1.0)
    assert "cells span 0.58–0.67" in fig.axes[1].get_ylabel()


# --------------------------------------------------------------------------------- browser


@pytest.fixture(scope="module")
def browser():
    """Headless chromium through chromedriver, keeping the console log."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.fail("chromium and chromedriver are needed (scripts/setup_test.sh installs Debian's chromium, chromium-driver)")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                "--window-size=1400,1100", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=opts)
    yield driver
    driver.quit()


def _open(driver, page: Path) -> None:
    driver.get(page.resolve().as_uri())
    driver.get_log("browser")  # drain: each test sees the log of its own page


def _errors(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _shown(driver) -> tuple[int, int]:
    shown, total = re.fullmatch(r"(\d+) of (\d+) shown", driver.find_element("id", "shown").text).groups()
    visible = sum(e.is_displayed() for e in driver.find_elements("css selector", ".item"))
    assert visible == int(shown)
    return int(shown), int(total)


def _screenshot(driver, name: str, tmp_path: Path) -> None:
    import matplotlib.image

    png = driver.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 1  # not blank
    target = (ROOT / "docs" if os.environ.get("ACCORD_WRITE_DOCS") == "1" else tmp_path) / name
    target.write_bytes(png)


def _toggle(driver, flag: str) -> None:
    driver.find_element("id", f"filter-{flag}").click()


def test_the_run_page_in_a_browser(browser, outputs, tmp_path, capsys):
    page = tmp_path / "run.html"
    view(EXAMPLE_RUN, page, capsys)
    _open(browser, page)
    assert _shown(browser) == (4, 4)
    mean_col = browser.find_elements("css selector", '[data-col="1"]')  # the mean chain: off by default
    assert mean_col and not any(e.is_displayed() for e in mean_col)
    browser.find_element("css selector", 'input[data-chain="1"]').click()
    assert all(e.is_displayed() for e in mean_col)
    browser.find_element("css selector", 'input[data-chain="1"]').click()
    assert _errors(browser) == []
    _screenshot(browser, "view-run.png", tmp_path)

    fresh = tmp_path / "fresh.html"  # t1 and t2: the unverified chain answers wrongly, the verified one not
    view(outputs["run"], fresh, capsys)
    _open(browser, fresh)
    assert _shown(browser) == (3, 3)
    _toggle(browser, "disagree")
    assert _shown(browser) == (2, 3)
    assert not browser.find_element("id", "task-t0").is_displayed()
    _toggle(browser, "disagree")
    _toggle(browser, "failed")
    assert _shown(browser) == (3, 3)  # the silent judge failed everywhere
    _toggle(browser, "wrong")
    assert _shown(browser) == (0, 3)
    _toggle(browser, "wrong")
    _toggle(browser, "failed")
    assert browser.execute_script("return window.pwned === undefined")  # the hostile question runs nothing
    assert "<script>window.pwned = 1</script>" in browser.find_element("id", "task-t2").text
    assert _errors(browser) == []


def test_the_verify_page_in_a_browser(browser, outputs, tmp_path, capsys):
    page = tmp_path / "verify.html"
    view(outputs["verify"], page, capsys)
    _open(browser, page)
    assert _shown(browser) == (5, 5)
    _toggle(browser, "invalid")
    n = _shown(browser)[0]
    assert n == sum(json.loads(line)["prediction"] >= 0 for line in outputs["verify"].read_text().splitlines()) and 0 < n < 5
    _toggle(browser, "invalid")
    step = browser.find_element("css selector", "li.invalid")
    assert "invalid" in step.get_attribute("title")  # the reason on hover
    step.find_element("tag name", "summary").click()  # the evidence on expand
    assert step.find_element("tag name", "table").is_displayed()
    assert _errors(browser) == []
    _screenshot(browser, "view-verify.png", tmp_path)


def test_the_jury_page_in_a_browser(browser, outputs, tmp_path, capsys):
    page = tmp_path / "jury.html"
    view(outputs["jury"], page, capsys)
    _open(browser, page)
    assert _shown(browser) == (300, 300)
    _toggle(browser, "wrong")
    wrong = sum(not json.loads(line)["correct"] for line in outputs["jury"].read_text().splitlines())
    assert _shown(browser)[0] == wrong and 0 < wrong < 300
    search = browser.find_element("id", "search")
    search.send_keys("q1")
    n = _shown(browser)[0]
    assert 0 < n < wrong
    search.clear()
    search.send_keys(" ")  # an input event: back to the filter alone
    _toggle(browser, "wrong")
    assert _errors(browser) == []
    _screenshot(browser, "view-jury.png", tmp_path)
