"""`accord view`: one self-contained HTML page of a run, a verify output or a jury output.

The pages are checked as files (kind detection, escaping, recorded questions, bad input, --serve)
and in a real headless browser, Debian's chromium driven by chromedriver (installed by
scripts/setup_test.sh): no console error (a blocked inline script or a failed load is one), the
filters change the visible count, a screenshot is not blank. With ACCORD_WRITE_DOCS=1 the
screenshots are written to docs/ (docs/view-run.png, view-verify.png, view-jury.png, view-math.png,
view-index.png, view-compare.png).
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
from cli_runs import verify_to
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accord.adapters.math import ArithmeticJudge
from accord.cli.main import main
from accord.consensus_core import get_policy
from accord.protocols import JudgeScore
from accord.verify.loop import Budgets, Chain, Panel, StepLoop, TraceWriter, load_resume_state
from accord.verify.tasks import TextTask
from accord.verify.view import detect_kind, render_jury, render_verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_RUN = ROOT / "examples" / "runs" / "smollm2-tiny"
MATH_SOLUTIONS = ROOT / "tests" / "fixtures" / "view" / "math_solutions.jsonl"
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


def record_run(folder: Path, questions: list[str], n: int = 3, lambdas=(1.0, 1.0)) -> Path:
    """A run folder written by the real step loop (arithmetic judge + a failing one), ``n`` candidates a step."""
    folder.mkdir(parents=True, exist_ok=True)
    tasks = [
        TextTask(id=f"t{i}", question=q, reference=str(sum(int(x) for x in re.findall(r"\d+", q)[:2])))
        for i, q in enumerate(questions)
    ]
    panel = Panel([ArithmeticJudge(), Silent()], lambdas=list(lambdas))
    chains = [Chain("verdict", get_policy("verdict", tau=0.6, eps=0.1)), Chain("base")]
    with TraceWriter(folder / "trace.jsonl") as writer:
        StepLoop(Summer(), panel, chains, Budgets(n=n, max_steps=3, max_tokens=100), writer=writer).run(tasks)
    return folder


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """A fresh run folder, a verify --out file and a jury --out file, each made through the CLI or the loop."""
    base = tmp_path_factory.mktemp("view")
    run = record_run(base / "run", ["What is 12 + 30?", "What is 7 + 5?", HOSTILE + " What is 1 + 2?"])
    pred = base / "pred.jsonl"
    verify_to(ROOT / "examples/solutions/processbench.jsonl", pred)
    jury = base / "jury.jsonl"  # 100 labels taught the jury; the other 200 references measure it
    argv = ["jury", str(ROOT / "examples/jury/panel.jsonl"), "--out", str(jury), "--json", "--n-boot", "40"]
    assert main([*argv, "--label-budget", "100"]) == 0
    math = base / "math.jsonl"  # solutions with inline, display and bare math, verified through the CLI
    verify_to(MATH_SOLUTIONS, math)
    return {"run": run, "verify": pred, "jury": jury, "math": math, "dir": base}


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
        StepLoop(Summer(), panel, chains, Budgets(n=3, max_steps=3, max_tokens=100), writer=writer, resume=state).run(
            [TextTask(id="t0", question="What is 2 + 3?", reference="5")]
        )
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
    assert page.count('<tr class="item') == 300 and 'class="k0' in page


def test_the_default_output_sits_next_to_the_input(outputs, capsys):
    assert main(["view", str(outputs["jury"])]) == 0
    assert (outputs["dir"] / "jury.html").is_file() and "jury view" in capsys.readouterr().out


def test_an_old_trace_says_its_question_was_not_recorded(tmp_path, capsys):
    old = tmp_path / "old"
    old.mkdir()
    lines = (EXAMPLE_RUN / "trace.jsonl").read_text().splitlines()
    (old / "trace.jsonl").write_text("".join(f"{line}\n" for line in lines if json.loads(line)["type"] != "task"))
    page = view(old, tmp_path / "old.html", capsys)
    assert page.count("(question not recorded)") == 4
    assert "Paired comparisons" in page and "verdict (primary)" in page


@pytest.mark.parametrize("name", ["smollm2-tiny", "synthetic"])
def test_the_shipped_example_runs_show_their_problems(name, tmp_path, capsys):
    page = view(ROOT / "examples" / "runs" / name, tmp_path / "example.html", capsys)
    assert "(question not recorded)" not in page
    assert ("Calculate 5 - 33 - 65." if name == "smollm2-tiny" else "Synthetic problem task-000") in page


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
    verify = render_verify(
        Path("x.jsonl"),
        [
            {
                "id": answer,
                "problem": question,
                "prediction": -1,
                "step_labels": ["valid"],
                "judges": ["j", "k"],
                "steps": [
                    {"text": question, "scores": {"j": 1.0, "k": None}, "reasons": {"k": reason}, "reason": reason}
                ],
            }
        ],
    )
    jury = render_jury(
        Path("y.jsonl"),
        [
            {
                "id": question,
                "answer": answer,
                "agreement": 0.5,
                "abstained": False,
                "tie": False,
                "members": ["a"],
                "answers": {"a": answer, reason: question},
                "classes": {"a": 0, reason: 1},
            }
        ],
    )
    for page in (verify, jury):
        parsed = _Tags()
        parsed.feed(page)
        assert sum(tag == "script" for tag, _ in parsed.tags) == 1
        assert not any(k.startswith("on") for _, attrs in parsed.tags for k in attrs)
        assert {tag for tag, _ in parsed.tags} <= {
            "html",
            "head",
            "meta",
            "title",
            "style",
            "body",
            "header",
            "h1",
            "h2",
            "h3",
            "div",
            "span",
            "label",
            "input",
            "main",
            "section",
            "p",
            "ol",
            "li",
            "details",
            "summary",
            "table",
            "tr",
            "th",
            "td",
            "b",
            "ul",
            "script",
        }
        shown = "".join(parsed.text)
        assert question in shown and answer in shown


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty"),
        ('{"a": 1}\n', "not a line of a run folder"),
        ("not json\n", "not valid JSON"),
        (
            '{"id": "x", "steps": [], "step_labels": []}\n{"id": "y", "agreement": 1, "abstained": false}\n',
            ":2: not a line",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    assert main(["view", str(bad), "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1 and err.startswith("accord view: error:")
    assert not (tmp_path / "x.html").exists()


def test_missing_paths_bad_outputs_and_ports_are_refused(outputs, tmp_path, capsys):
    for argv, message in (
        ([str(tmp_path / "nope")], "no such"),
        ([str(tmp_path)], "not a run folder"),
        ([str(outputs["jury"]), "--out", str(outputs["jury"])], "is the input file"),
        ([str(outputs["jury"]), "--out", str(tmp_path / "no" / "x.html")], "does not exist"),
    ):
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
        proc = subprocess.Popen(
            [sys.executable, "-m", "accord.cli.main", "view", str(jury), "--serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
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
    assert {
        "report.json",
        "sweep.json",
        "sweep_tau_eps.png",
        "sweep_stubbornness.png",
        "roc.png",
        "confidence_dispersion.png",
    } <= {p.name for p in out.iterdir()}
    assert sorted(p.name for p in run.iterdir()) == before
    afile = tmp_path / "afile"
    afile.write_text("x")
    for cmd in ("report", "sweep"):
        assert main([cmd, str(run), "--out-dir", str(afile)]) == 2
        err = capsys.readouterr().err
        assert "is not a folder" in err and len(err.splitlines()) == 1


def test_heatmap_colours_span_zero_to_one_and_say_what_the_cells_span():
    from accord.verify.analysis import heatmap_figure

    fig = heatmap_figure(
        np.array([[0.58, 0.67], [0.6, np.nan]]), ["a", "b"], ["x", "y"], title="t", xlabel="x", ylabel="y"
    )
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
        pytest.fail(
            "chromium and chromedriver are needed (scripts/setup_test.sh installs Debian's chromium, chromium-driver)"
        )
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--window-size=1400,1100",
        "--force-device-scale-factor=1",
    ):
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


def _screenshot(driver, name: str, tmp_path: Path, docs: bool = True) -> None:
    import matplotlib.image

    png = driver.get_screenshot_as_png()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
    assert len(np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)) > 1  # not blank
    target = (ROOT / "docs" if docs and os.environ.get("ACCORD_WRITE_DOCS") == "1" else tmp_path) / name
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
    _screenshot(browser, "view-run.png", tmp_path, docs=False)  # docs/view-run.png: with its plots, below

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
    _toggle(browser, "abstained")  # the arithmetic judge has nothing to check in "The answer is 42."
    assert _shown(browser) == (3, 3)
    _toggle(browser, "abstained")
    search = browser.find_element("id", "search")
    search.send_keys("5 = 1")  # step text only ("7 + 5 = 12", "7 + 5 = 13"): not an id, not a question
    assert _shown(browser) == (1, 3) and browser.find_element("id", "task-t1").is_displayed()
    search.clear()
    search.send_keys(" ")
    assert _shown(browser) == (3, 3)
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
    assert (
        n == sum(json.loads(line)["prediction"] >= 0 for line in outputs["verify"].read_text().splitlines())
        and 0 < n < 5
    )
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
    _screenshot(browser, "view-jury.png", tmp_path, docs=False)  # docs/view-jury.png: the page with its pictures, below


# Visible text: every text node but KaTeX's hidden MathML copy (kept for copying and screen readers).
VISIBLE_TEXT = """
var w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), out = [];
while (w.nextNode()) {
  var p = w.currentNode.parentElement;
  if (!p.closest('.katex-mathml, script, style')) { out.push(w.currentNode.data); }
}
return out.join(' ');
"""


def test_math_is_typeset_in_every_page(browser, outputs, tmp_path, capsys):
    run = record_run(tmp_path / "run", ["What is 12 + 30? Give it as $\\frac{a}{b}$ with $b = 1$."])
    for path, display in ((outputs["math"], True), (run, False), (outputs["jury"], False)):
        page = tmp_path / f"{path.stem}.html"
        view(path, page, capsys)
        _open(browser, page)
        for summary in browser.find_elements("css selector", "details > summary"):
            browser.execute_script("arguments[0].parentElement.open = true", summary)
        text = browser.execute_script(VISIBLE_TEXT)
        for raw in ("\\frac", "\\sqrt", "\\boxed", "$$", "\\["):
            assert raw not in text, (path.name, raw)
        assert browser.execute_script("return document.querySelectorAll('.katex').length") > 0
        assert browser.execute_script("return document.querySelectorAll('.katex-error').length") == 0
        assert bool(browser.execute_script("return document.querySelectorAll('.katex-display').length")) == display
        assert _errors(browser) == []
    _open(browser, tmp_path / "math.html")
    prices = browser.find_element("id", "sol-prices").text
    assert "A pen costs $3 and a book $12." in prices  # prices stay text
    first = browser.find_element("css selector", "#sol-roots .question .tex")
    assert first.get_attribute("title") == "\\sqrt{\\frac{25}{36}}"  # the TeX source, for copying
    assert (
        browser.execute_script(  # copying typeset math gives its source back (KaTeX's copy-tex)
            "return arguments[0].querySelector('annotation').textContent", first
        )
        == "\\sqrt{\\frac{25}{36}}"
    )
    browser.execute_script("window.scrollTo(0, 0)")
    _screenshot(browser, "view-math.png", tmp_path)


def test_tex_spans_are_found_and_escaped():
    from accord.verify.view._math import tex_html

    assert tex_html("costs $5 and $10") == "costs $5 and $10"
    assert tex_html("so $x<1$ or $$y$$") == (
        'so <span class="tex" data-display="0">x&lt;1</span> or <span class="tex" data-display="1">y</span>'
    )
    assert (
        tex_html("answer \\boxed{\\frac{1}{2}}.")
        == 'answer <span class="tex" data-display="0">\\boxed{\\frac{1}{2}}</span>.'
    )
    assert tex_html("\\[a\\] and \\(b\\)").count('class="tex"') == 2
    assert tex_html("C:\\Users\\me") == "C:\\Users\\me"  # not a known command: text


@settings(max_examples=80, deadline=None)
@given(
    text=st.lists(
        st.sampled_from([*"$\\{}[]()^_ ab1<&", "\\frac", "\\boxed", "$$", "\\begin{x}", "\\end{x}"]), max_size=25
    ).map("".join)
)
def test_any_text_keeps_its_characters_once_marked(text):
    from accord.verify.view._math import tex_html

    parsed = _Tags()
    parsed.feed(tex_html(text))
    assert {tag for tag, _ in parsed.tags} <= {"span"}

    def strip(t):  # to a fixed point: removing "$" can bring a "\" next to a "[" ("\$$[$$")
        while (shorter := re.sub(r"\$|\\[\[\]()]", "", t)) != t:
            t = shorter
        return t

    assert strip("".join(parsed.text)) == strip(text)  # marking adds spans and removes no character but delimiters


def test_abstentions_failures_and_the_base_chain_are_labelled_as_they_are(browser, outputs, tmp_path, capsys):
    page = tmp_path / "run.html"
    view(outputs["run"], page, capsys)
    _open(browser, page)
    t0 = browser.find_element("id", "task-t0")
    cells = {c.text for c in t0.find_elements("css selector", "td.abstained")}
    assert cells == {"abstained"}  # arithmetic on "The answer is 42.": nothing to check
    failed = t0.find_elements("css selector", "td.failed")
    assert failed and {c.text for c in failed} == {"failed"}  # the silent judge: no opinion
    assert all(c.get_attribute("title") == "failed: no opinion" for c in failed)
    assert all(
        c.get_attribute("title") == "abstained: no arithmetic to check"
        for c in t0.find_elements("css selector", "td.abstained")
    )
    badges = [b.text for b in t0.find_elements("css selector", ".badge")]
    assert "a judge failed" in badges and "a judge abstained" in badges
    base = t0.find_element("css selector", '.chain[data-col="1"]')  # chains: verdict, base
    assert "base" in base.find_element("tag name", "h4").text
    assert not base.find_elements("xpath", ".//th[text()='accepted']") and "accepted" not in base.text
    verdict = t0.find_element("css selector", '.chain[data-col="0"]')
    assert verdict.find_elements("xpath", ".//th[text()='accepted']")
    assert _errors(browser) == []


def test_the_report_counts_abstentions_apart_from_failures(outputs, tmp_path, capsys):
    assert main(["report", str(outputs["run"]), "--out-dir", str(tmp_path), "--bootstrap", "100"]) == 0
    rates = json.loads((tmp_path / "report.json").read_text())["rates"]
    # per chain: the silent judge fails on every candidate; arithmetic abstains on the "answer is" steps
    for chain, r in rates.items():
        assert r["failed_scores"] == r["scores"] // 2 and 0 < r["abstained_scores"] < r["scores"] // 2, (chain, r)


def test_the_report_fits_80_columns_without_breaking_a_word(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["report", str(EXAMPLE_RUN), "--out-dir", str(tmp_path), "--bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    for word in ("rejected", "accepted", "raw_average", "abstained", "lambdas=(1.5,"):
        assert word in out
    assert "failed scores" not in out


def test_the_jury_bar_and_split_filter_follow_the_class_shares(browser, outputs, tmp_path, capsys):
    page = tmp_path / "jury.html"
    view(outputs["jury"], page, capsys)
    _open(browser, page)
    records = [json.loads(line) for line in outputs["jury"].read_text().splitlines()]

    def answered(r):  # the classes members' answers fell into (a member without an answer has none)
        return {c for c in r["classes"].values() if c is not None}

    split = sum(len(answered(r)) > 1 for r in records)
    assert 0 < split < len(records)
    # agreement is the vote's share: 1 on a row whose answering members all agree
    assert all(r["agreement"] == 1.0 for r in records if len(answered(r)) == 1)
    _toggle(browser, "split")
    assert _shown(browser)[0] == split
    _toggle(browser, "split")
    row = browser.find_element("id", "search")
    unanimous = next(r for r in records if len(set(r["classes"].values())) == 1 and None not in r["classes"].values())
    split_row = next(r for r in records if len(set(r["classes"].values())) > 1)
    widths = browser.execute_script(
        "return Array.from(document.querySelectorAll('tr.item')).map(function (tr) {"
        "  return Array.from(tr.querySelectorAll('.shares .seg')).map(function (s) { return s.offsetWidth; }); })"
    )
    by_id = {r["id"]: w for r, w in zip(records, widths)}
    assert by_id[unanimous["id"]] == [60]
    shares = sorted(
        list(split_row["classes"].values()).count(c) / len(split_row["classes"])
        for c in set(split_row["classes"].values())
    )
    assert sorted(by_id[split_row["id"]]) == sorted(max(1, round(60 * x)) for x in shares)
    assert row is not None and _errors(browser) == []


def test_the_verify_evidence_is_shown_once(browser, outputs, tmp_path, capsys):
    page = tmp_path / "math.html"
    view(outputs["math"], page, capsys)
    _open(browser, page)
    step = browser.find_elements("css selector", "#sol-roots li.invalid")[-1]  # the boxed final answer
    step.find_element("tag name", "summary").click()
    shown = step.find_element("tag name", "details").text
    assert shown.count("differs from") == 1, shown
    assert "abstained" in shown and _errors(browser) == []
    page = tmp_path / "verify.html"  # three judges' reasons, joined into the rule's reason: each shown once
    view(outputs["verify"], page, capsys)
    _open(browser, page)
    step = browser.find_element("css selector", "#sol-handshakes li.invalid")
    step.find_element("tag name", "summary").click()
    shown = step.find_element("tag name", "details").text
    assert shown.count("8 * 7 = 54 is wrong") == 1 and shown.count("the left side is 56") == 2, shown


def test_the_index_of_a_folder_sorts_and_compares_two_runs(browser, outputs, tmp_path, capsys):
    folder = tmp_path / "runs"
    questions = ["What is 12 + 30?", "What is 7 + 5?", "What is 1 + 2?", "What is 4 + 4?"]
    record_run(folder / "three-candidates", questions)
    record_run(folder / "one-candidate", questions, n=1, lambdas=(2.0, 1.0))  # the first, wrong when a is odd
    shutil.copy(outputs["verify"], folder / "pred.jsonl")
    (folder / "nested").mkdir()
    shutil.copy(outputs["jury"], folder / "nested" / "verdicts.jsonl")
    shutil.copy(MATH_SOLUTIONS, folder / "solutions.jsonl")  # an input, not a result: left out
    assert main(["view", str(folder)]) == 0
    assert "index of 4 results" in capsys.readouterr().out
    for page in (
        "index.html",
        "three-candidates/view.html",
        "one-candidate/view.html",
        "pred.html",
        "nested/verdicts.html",
    ):
        assert (folder / page).is_file(), page
    _open(browser, folder / "index.html")
    assert _shown(browser) == (4, 4)
    hrefs = [a.get_attribute("href") for a in browser.find_elements("css selector", "#results a")]
    assert all(Path(urllib.request.url2pathname(h.removeprefix("file://"))).is_file() for h in hrefs)

    def column(name):
        idx = [th.text.rstrip(" ↕▲▼") for th in browser.find_elements("css selector", "#results th")].index(name)
        return [
            row.find_elements("tag name", "td")[idx].get_attribute("data-v")
            for row in browser.find_elements("css selector", "#results tbody tr")
        ]

    def header(name):
        return next(th for th in browser.find_elements("css selector", "#results th") if th.text.startswith(name))

    header("problems").click()
    assert [int(x) for x in column("problems")] == sorted(int(x) for x in column("problems"))
    header("problems").click()
    assert [int(x) for x in column("problems")] == sorted((int(x) for x in column("problems")), reverse=True)
    header("result").click()
    assert column("result") == sorted(column("result"))
    assert header("result").get_attribute("aria-sort") == "ascending"
    _toggle(browser, "run")
    assert _shown(browser) == (2, 4)
    _toggle(browser, "run")

    names = column("result")
    for name in ("one-candidate", "three-candidates"):  # A: one candidate a step, B: three
        row = browser.find_elements("css selector", "#results tbody tr")[names.index(name)]
        row.find_element("css selector", "input.pick").click()
    paired = {
        r.find_elements("tag name", "td")[0].text: [td.text for td in r.find_elements("tag name", "td")]
        for r in browser.find_elements("css selector", "#compare-paired tr")[1:]
    }
    # verdict: one candidate answers 7 + 5 and 1 + 2 wrongly, three candidates let the judge pick the sum
    assert paired["verdict"][1:] == ["4", "0.500", "1.000", "+0.500", "[-0.066, +1.000]", "0 / 2"]
    assert paired["base"][1] == "4"
    settings = {
        r.find_elements("tag name", "td")[0].text: [td.text for td in r.find_elements("tag name", "td")[1:]]
        for r in browser.find_elements("css selector", "#compare-settings tr")[1:]
    }
    assert settings["trace.lambdas"] == ["[2.0, 1.0]", "[1.0, 1.0]"]
    assert settings["trace.candidates per step"] == ["1", "3"]
    assert "trace.judges" not in settings  # the same in both
    assert _errors(browser) == []
    _screenshot(browser, "view-index.png", tmp_path, docs=False)  # docs/view-index.png: at 1000 px, below


_VERIFY_LINE = json.dumps(
    {
        "id": "s",
        "problem": "p",
        "prediction": -1,
        "step_labels": ["valid"],
        "steps": [{"text": "$x$", "label": "valid"}],
    }
)
_JURY_LINE = json.dumps({"id": "q", "answer": "1", "agreement": 1.0, "abstained": False, "classes": {"a": 0}})
_file_texts = st.lists(st.sampled_from([_VERIFY_LINE, _JURY_LINE, "not json", '{"a": 1}', ""]), max_size=3).map(
    lambda lines: "".join(f"{line}\n" for line in lines)
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(_file_texts, min_size=0, max_size=4))
def test_any_folder_is_indexed_or_refused_in_one_line(files, tmp_path_factory, capsys):
    folder = tmp_path_factory.mktemp("anyfolder")
    for i, text in enumerate(files):
        (folder / f"f{i}.jsonl").write_text(text)
    kinds = [{line for line in t.splitlines() if line.strip()} for t in files]  # blank lines are skipped
    results = sum(1 for k in kinds if len(k) == 1 and k <= {_VERIFY_LINE, _JURY_LINE})  # one kind, nothing else
    code = main(["view", str(folder)])
    out, err = capsys.readouterr()
    if results:
        assert code == 0 and f"index of {results} results" in out
        assert (folder / "index.html").is_file()
    else:
        assert code == 2 and len(err.splitlines()) == 1 and "holds no run folder" in err


# ------------------------------------------------------------------- what the pages show at a glance

OVERFLOW = "return [document.documentElement.scrollWidth, window.innerWidth]"


def _fits_width(driver) -> None:
    """The page needs no sideways scrolling (wide tables scroll inside their own box)."""
    scroll, inner = driver.execute_script(OVERFLOW)
    assert scroll <= inner, (scroll, inner)


def test_the_jury_page_scores_only_rows_it_did_not_see_and_marks_labels(browser, outputs, tmp_path, capsys):
    records = [json.loads(line) for line in outputs["jury"].read_text().splitlines()]
    labelled = [r for r in records if r["labeled"]]
    unseen = [r for r in records if not r["labeled"]]
    assert len(labelled) == 100 and len(unseen) == 200
    page = tmp_path / "jury.html"
    view(outputs["jury"], page, capsys)
    browser.set_window_size(1000, 1100)
    try:
        _open(browser, page)
        summary = browser.find_element("id", "summary").text
        right = sum(r["correct"] for r in unseen)
        assert f"the jury is right on {right} of 200" in summary and "100 labelled rows left out" in summary
        _toggle(browser, "labelled")
        assert _shown(browser)[0] == 100
        badges = browser.find_elements("css selector", "tr.item:not([hidden]) .badge.lab")
        assert len(badges) == 100 and all(b.is_displayed() for b in badges[:5])
        _toggle(browser, "labelled")
        # the legend says what the class colours mean, and the marks say right and wrong
        legend = browser.find_element("id", "class-legend").text
        assert "say nothing about right or wrong" in legend and "✓" in legend
        first = next(r for r in records if "member_correct" in r)
        cells = browser.find_elements("css selector", f"tr.item:nth-of-type({records.index(first) + 2}) td[title]")
        marks = {c.get_attribute("title").split(":")[0]: c.text.strip()[-1] for c in cells}
        assert all(marks[m] == ("✓" if ok else "✗") for m, ok in first["member_correct"].items())
        colours = browser.execute_script(
            "return Array.from(document.querySelectorAll('td.k0')).slice(0, 3)"
            ".map(function (td) { return getComputedStyle(td).backgroundColor; })"
        )
        ok_green = browser.execute_script(
            "var b = document.querySelector('.badge.ok'); return getComputedStyle(b).backgroundColor;"
        )
        assert colours and ok_green not in colours  # the first class is not the colour of "right"
        _fits_width(browser)
        assert _errors(browser) == []
    finally:
        browser.set_window_size(1400, 1100)


def test_the_jury_page_draws_reliability_risk_coverage_and_member_intervals(browser, outputs, tmp_path, capsys):
    from accord.consensus_core.jury import reliability_table

    records = [json.loads(line) for line in outputs["jury"].read_text().splitlines()]
    unseen = [r for r in records if not r["labeled"] and not r["abstained"] and r["confidence"] is not None]
    table = reliability_table([r["confidence"] for r in unseen], [r["correct"] for r in unseen])
    page = tmp_path / "jury.html"
    view(outputs["jury"], page, capsys)
    browser.set_window_size(1000, 1100)
    try:
        _open(browser, page)
        dots = browser.find_elements("css selector", "#reliability circle.point")
        assert len(dots) == len(table["equal_count"]["table"])
        legend = browser.find_element("css selector", "#reliability figcaption.legend").text
        assert f"ECE {table['equal_count']['ece']:.3f} over bins of equal rows" in legend
        assert "200 rows whose reference the jury did not read" in legend
        cells = browser.find_elements("css selector", ".reliability-table tr")[1:]
        assert [int(r.find_elements("tag name", "td")[1].get_attribute("textContent")) for r in cells] == [
            b["rows"] for b in table["equal_count"]["table"]
        ]
        curve = browser.find_element("css selector", "#risk-coverage polyline.curve").get_attribute("points")
        assert len(curve.split()) == len([r for r in records if not r["labeled"] and not r["abstained"]])
        bars = browser.find_elements("css selector", "#accuracy-intervals g.bar")
        assert [b.find_element("tag name", "title").get_attribute("textContent").split(":")[0] for b in bars] == [
            "jury",
            "alpha",
            "bravo",
            "charlie",
            "delta",
        ]
        for fig in ("reliability", "risk-coverage", "accuracy-intervals"):
            box = browser.find_element("id", fig).rect
            assert box["x"] + box["width"] <= 1000 and box["width"] > 200
        _fits_width(browser)
        assert _errors(browser) == []
        _screenshot(browser, "view-jury.png", tmp_path)
    finally:
        browser.set_window_size(1400, 1100)


def test_a_jury_that_learned_from_every_reference_is_scored_out_of_fold(browser, tmp_path, capsys):
    out = tmp_path / "learned.jsonl"
    argv = ["jury", str(ROOT / "examples/jury/panel.jsonl"), "--out", str(out), "-q", "--n-boot", "40"]
    assert main(argv) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(r["labeled"] and "held_out" in r for r in records)
    page = tmp_path / "learned.html"
    view(out, page, capsys)
    _open(browser, page)
    held = sum(r["held_out"]["correct"] for r in records)
    assert f"the jury is right on {held} of 300" in browser.find_element("id", "summary").text
    assert "out-of-fold" in browser.find_element("css selector", "#reliability figcaption.legend").text
    assert _errors(browser) == []


def test_the_run_page_shows_its_plots_and_keeps_the_consensus_columns_in_view(browser, tmp_path, capsys):
    run = Path(shutil.copytree(EXAMPLE_RUN, tmp_path / "run"))
    assert main(["report", str(run), "--bootstrap", "100"]) == 0  # writes roc.png, confidence_dispersion.png
    capsys.readouterr()
    page = tmp_path / "run.html"
    view(run, page, capsys)
    for width in (1400, 1000):
        browser.set_window_size(width, 1100)
        try:
            _open(browser, page)
            images = browser.find_elements("css selector", "#plots img.plot")
            assert len(images) == 2
            assert all(browser.execute_script("return arguments[0].naturalWidth", im) > 100 for im in images)
            links = [a.get_attribute("href") for a in browser.find_elements("css selector", "#plots a")]
            assert [h.rsplit("/", 1)[-1] for h in links] == ["confidence_dispersion.png", "roc.png"]
            for header in ("s̄*", "Δ*", "accepted"):
                cell = next(
                    th
                    for th in browser.find_elements("css selector", '[data-col="0"] table.cands th')
                    if th.text == header
                )
                left = browser.execute_script("return arguments[0].getBoundingClientRect().right", cell)
                box = browser.execute_script(
                    "return arguments[0].closest('.chain').getBoundingClientRect().right", cell
                )
                assert left <= box, (width, header)  # in view inside its chain, no sideways scroll needed
            _fits_width(browser)
            assert _errors(browser) == []
            if width == 1000:
                _screenshot(browser, "view-run.png", tmp_path)
        finally:
            browser.set_window_size(1400, 1100)


def test_the_search_finds_text_shown_only_on_hover(browser, outputs, tmp_path, capsys):
    page = tmp_path / "run.html"
    view(outputs["run"], page, capsys)
    _open(browser, page)
    search = browser.find_element("id", "search")
    search.send_keys("no opinion")  # the failing judge's reason, shown on hover over its cells
    assert _shown(browser) == (3, 3)
    search.clear()
    search.send_keys("silent")  # the judge's full name (its header may be cut short)
    assert _shown(browser)[0] == 3
    page = tmp_path / "jury.html"
    view(outputs["jury"], page, capsys)
    _open(browser, page)
    records = [json.loads(line) for line in outputs["jury"].read_text().splitlines()]
    search = browser.find_element("id", "search")
    search.send_keys("no member's answer matches")  # the reason a labelled row abstained
    assert _shown(browser)[0] == sum("matches its reference" in (r.get("reason") or "") for r in records) > 0
    assert _errors(browser) == []


def _runs_with_one_differing_question(folder: Path) -> None:
    """Two runs of four tasks whose ids are the same; the task t3 asks another question in the second."""
    questions = ["What is 12 + 30?", "What is 7 + 5?", "What is 1 + 2?", "What is 4 + 4?"]
    record_run(folder / "first", questions, n=1, lambdas=(2.0, 1.0))
    record_run(folder / "second", [*questions[:3], "What is 9 + 9?"])


def test_compare_pairs_only_the_same_question(browser, tmp_path, capsys):
    folder = tmp_path / "runs"
    _runs_with_one_differing_question(folder)
    (folder / "other").mkdir()
    record_run(folder / "other" / "elsewhere", ["What is 3 + 3?"])  # shares an id, not its question
    assert main(["view", str(folder)]) == 0
    capsys.readouterr()
    browser.set_window_size(1000, 1100)
    try:
        _open(browser, folder / "index.html")
        names = [td.get_attribute("data-v") for td in browser.find_elements("css selector", "#results td:nth-child(3)")]

        def pick(*which):
            for box in browser.find_elements("css selector", "input.pick"):
                if box.is_selected():
                    box.click()
            for name in which:
                browser.find_elements("css selector", "input.pick")[names.index(name)].click()

        pick("first", "second")
        pairing = browser.find_element("css selector", "#compare p.pairing").text
        assert pairing.startswith("3 tasks in common") and "1 id in both ask a different question" in pairing
        differ = browser.find_element("id", "compare-differ").text
        assert "t3: A asks “What is 4 + 4?”, B asks “What is 9 + 9?”" in differ
        paired = {
            r.find_elements("tag name", "td")[0].text: r.find_elements("tag name", "td")[1].text
            for r in browser.find_elements("css selector", "#compare-paired tr")[1:]
        }
        assert paired["verdict"] == "3" and paired["base"] == "3"
        _fits_width(browser)
        _screenshot(browser, "view-compare.png", tmp_path)
        pick("first", "other/elsewhere")
        assert not browser.find_elements("id", "compare-paired")
        nothing = browser.find_element("css selector", "#compare p.nothing").text
        assert nothing == "A and B have nothing to pair: every id they share asks a different question."
        assert "0 –" not in browser.find_element("id", "compare").text
        assert _errors(browser) == []
    finally:
        browser.set_window_size(1400, 1100)


def test_the_index_reads_at_1000_pixels_with_accuracy_and_f1_apart(browser, outputs, tmp_path, capsys):
    folder = tmp_path / "runs"
    _runs_with_one_differing_question(folder)
    shutil.copy(outputs["verify"], folder / "pred.jsonl")
    shutil.copy(outputs["jury"], folder / "verdicts.jsonl")
    assert main(["view", str(folder)]) == 0
    capsys.readouterr()
    browser.set_window_size(1000, 1100)
    try:
        _open(browser, folder / "index.html")
        heads = [th.text.rstrip(" ↕▲▼") for th in browser.find_elements("css selector", "#results th")]
        assert "accuracy" in heads and "F1" in heads and "headline" not in heads
        kinds = [td.text for td in browser.find_elements("css selector", "#results td:nth-child(2)")]
        acc = [td.get_attribute("data-v") for td in browser.find_elements("css selector", "#results td:nth-child(7)")]
        f1 = [td.get_attribute("data-v") for td in browser.find_elements("css selector", "#results td:nth-child(8)")]
        assert all((a == "") == (k == "verify") for k, a in zip(kinds, acc))  # a verify output has no accuracy
        assert all((f == "") == (k != "verify") for k, f in zip(kinds, f1))
        _fits_width(browser)
        assert _errors(browser) == []
        _screenshot(browser, "view-index.png", tmp_path)
    finally:
        browser.set_window_size(1400, 1100)
