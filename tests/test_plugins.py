"""Plugins: an installed package adds its own parts (a judge type, a policy, a task source, a generator
type, a proof check) through entry points, and a config names them like built-ins.

The test builds a small plugin package, installs accord and the plugin into a fresh virtual
environment (``python -m venv``, then ``pip install`` of both, offline: their dependencies are the
ones this interpreter already has, read through a ``.pth`` file), and runs the installed ``accord``
there: ``verify --config`` and ``run --config`` with the plugin's judge, ``list judges``, ``prove``,
and a broken plugin, which is one line naming it (exit 2, no traceback).
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]

PLUGIN = '''
"""A plugin for accord: word-count judge, shortest-step policy, two-number sums, an echo generator."""

from __future__ import annotations

import re
from dataclasses import dataclass

from accord.adapters import JudgeSpec, register_generator, register_judge
from accord.consensus_core import Policy, register_policy
from accord.proofs import PROVED, Result, register_claim
from accord.protocols import JudgeScore
from accord.verify.tasks import TextTask, register_task


class WordCountJudge:
    def __init__(self, name, scale):
        self.name, self.scale = name, scale

    def score(self, ctx, candidates):
        return [JudgeScore(1.0 / (1.0 + len(c.split()) / self.scale), f"{len(c.split())} words") for c in candidates]


@dataclass(frozen=True)
class WordCountSpec(JudgeSpec):
    scale: float = 8.0


@register_judge("word_count", WordCountSpec, columns={"word_count": 0.7})
def _word_count(spec, models):
    """Shorter steps score higher: 1 / (1 + words / scale)."""
    if not spec.scale > 0:
        raise ValueError(f"scale must be > 0, got {spec.scale}")
    return WordCountJudge(spec.name or "word_count", spec.scale)


@register_policy("shortest_mean")
@dataclass(frozen=True)
class ShortestMean(Policy):
    """Rank by the raw mean; accept every candidate."""

    def _decide(self, st):
        return st.valid, st.raw_mean, st.raw_mean


@register_task("sums")
def sums(size: int = 3, seed: int = 0):
    """Two-number sums."""
    pairs = [(i + seed, i + 2) for i in range(size)]
    return [TextTask(f"sums/{seed}/{i}", f"Calculate {a} + {b}.", str(a + b)) for i, (a, b) in enumerate(pairs)]


class EchoGenerator:
    """Proposes the sum written out, then a wrong one, again and again."""

    def propose(self, ctx, n, seed):
        a, b = (int(x) for x in re.findall(r"\\d+", ctx.question)[:2])
        steps = [f"{a} + {b} = {a + b}. The answer is {a + b}.", f"{a} + {b} = {a + b + 1}. The answer is {a + b + 1}."]
        return [steps[i % 2] for i in range(n)]

    def is_final(self, step):
        return "answer is" in step


@register_generator("echo")
def _echo(entry):
    """Proposes the right sum, then a wrong one (no model)."""
    return EchoGenerator()


@register_claim("word-count-score-in-unit-interval", "a word count score lies in (0, 1]", group="wordcount")
def _in_unit_interval():
    values = [1.0 / (1.0 + w / 8.0) for w in range(200)]
    return Result(PROVED if all(0 < v <= 1 for v in values) else "REFUTED", "checked for 0..199 words")
'''

PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"

[tool.setuptools]
py-modules = ["{module}"]

{entry_points}
"""

ENTRY_POINTS = """
[project.entry-points."accord.judges"]
word_count = "accord_wordcount"
[project.entry-points."accord.policies"]
shortest_mean = "accord_wordcount"
[project.entry-points."accord.tasks"]
sums = "accord_wordcount"
[project.entry-points."accord.generators"]
echo = "accord_wordcount"
[project.entry-points."accord.claims"]
word-count-score-in-unit-interval = "accord_wordcount"
"""

BROKEN_ENTRY_POINTS = """
[project.entry-points."accord.judges"]
shaky = "accord_shaky"
"""


def _package(folder: Path, name: str, module: str, source: str, entry_points: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT.format(name=name, module=module, entry_points=entry_points))
    (folder / f"{module}.py").write_text(textwrap.dedent(source))
    return folder


def _run(cmd: list, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=900, **kw)


@pytest.fixture(scope="module")
def fresh_env(tmp_path_factory) -> Path:
    """A new virtual environment holding accord (built from this tree) and the two plugins."""
    tmp = tmp_path_factory.mktemp("plugins")
    env = tmp / "env"
    made = _run([sys.executable, "-m", "venv", "--without-pip", env])
    assert made.returncode == 0, made.stderr
    python = env / "bin" / "python"
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    # the dependencies (numpy, sympy, setuptools, ...) this interpreter has, read-only: nothing is downloaded
    (purelib / "outer_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    source = tmp / "accord-src"  # a copy: building in place would leave build/ in the tree
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "accord", source / "accord", ignore=shutil.ignore_patterns("__pycache__"))
    good = _package(tmp / "wordcount", "accord-wordcount", "accord_wordcount", PLUGIN, ENTRY_POINTS)
    broken = _package(
        tmp / "shaky", "accord-shaky", "accord_shaky", "import a_module_nobody_installed\n", BROKEN_ENTRY_POINTS
    )
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-build-isolation"]
    for package in (source, good, broken):
        done = _run([*pip, "--no-index", package])
        assert done.returncode == 0, done.stdout + done.stderr
    return env


def _accord(env: Path, *args, cwd: Path) -> subprocess.CompletedProcess:
    plain = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLUMNS")}
    return _run([env / "bin" / "accord", *args], cwd=cwd, env={**plain, "COLUMNS": "200"})


@pytest.mark.slow
def test_accord_in_the_fresh_environment_is_the_installed_copy(fresh_env, tmp_path):
    where = _run([fresh_env / "bin" / "python", "-c", "import accord; print(accord.__file__)"], cwd=tmp_path)
    assert where.stdout.strip().startswith(str(fresh_env)), where.stdout + where.stderr


@pytest.mark.slow
def test_a_plugin_judge_from_verify_config(fresh_env, tmp_path):
    solutions = tmp_path / "solutions.jsonl"
    solutions.write_text(
        json.dumps({"id": "a", "problem": "Calculate 2 + 3.", "steps": ["2 + 3 = 5", "The answer is 5."], "label": -1})
        + "\n"
    )
    config = tmp_path / "verify.yaml"
    config.write_text(
        yaml.safe_dump(
            {"judges": [{"type": "arithmetic"}, {"type": "word_count", "scale": 4}], "policy": {"name": "verdict"}}
        )
    )
    out = tmp_path / "pred.jsonl"
    done = _accord(
        fresh_env, "verify", solutions, "--config", config, "--json", "--out", out, "--fail-on", "never", cwd=tmp_path
    )
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["judges"] == ["arithmetic", "word_count"] and summary["lambdas"] == [1.0, 0.7]
    record = json.loads(out.read_text().splitlines()[0])
    scores = [s["scores"]["word_count"] for s in record["steps"]]
    assert scores == pytest.approx([1 / (1 + 5 / 4), 1 / (1 + 4 / 4)])  # 5 and 4 words, scale 4


@pytest.mark.slow
def test_a_plugin_judge_task_generator_and_policy_from_run_config(fresh_env, tmp_path):
    config = tmp_path / "run.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "task": {"name": "sums", "options": {"size": 3, "seed": 1}},
                "generator": {"type": "echo"},
                "judges": [{"type": "arithmetic", "lambda": 1.5}, {"type": "word_count"}],
                "baselines": ["mean", "shortest_mean"],
                "budgets": {"n_candidates": 2, "max_steps": 2, "max_tokens": 100},
                "output": {"report": False},
            }
        )
    )
    run = tmp_path / "run"
    done = _accord(fresh_env, "run", "--config", config, "--out", run, "--json", "--quiet", cwd=tmp_path)
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["n_problems"] == 3
    assert (
        summary["accuracy"]["verdict"] == 1.0 and summary["accuracy"]["base"] == 1.0
    )  # the echo's first step is right
    assert set(summary["accuracy"]) == {"verdict", "mean", "shortest_mean", "base"}
    head = json.loads((run / "trace.jsonl").read_text().splitlines()[0])
    assert head["judges"] == ["arithmetic", "word_count"] and head["lambdas"] == [1.5, 0.7]
    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved["generator"]["type"] == "echo" and saved["judges"][1] == {"type": "word_count"}
    again = _accord(fresh_env, "run", "--resume", run, "--json", "--no-report", "--quiet", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["accuracy"] == summary["accuracy"]


@pytest.mark.slow
def test_list_shows_the_plugins_parts_and_prove_runs_its_check(fresh_env, tmp_path):
    listed = _accord(fresh_env, "list", "judges", cwd=tmp_path)
    print(listed.stdout)
    assert listed.returncode == 0, listed.stderr
    rows = {line.split()[0]: line for line in listed.stdout.splitlines() if line.strip()}
    assert "accord-wordcount 0.1.0" in rows["word_count"] and "scale=8.0" in rows["word_count"]
    assert "cannot be used" in rows["shaky"] and "arithmetic" in rows  # the broken plugin shown; the built-ins too
    doc = json.loads(_accord(fresh_env, "list", "judges", "--json", cwd=tmp_path).stdout)
    assert [b["name"] for b in doc["broken"]] == ["shaky"] and "a_module_nobody_installed" in doc["broken"][0]["error"]
    for kind, name in (("policies", "shortest_mean"), ("tasks", "sums"), ("generators", "echo")):
        got = _accord(fresh_env, "list", kind, "--json", cwd=tmp_path)
        assert got.returncode == 0, got.stderr
        parts = {p["name"]: p for p in json.loads(got.stdout)["parts"]}
        assert parts[name]["origin"] == "accord-wordcount 0.1.0", parts[name]
        assert "verdict" in parts or "basic_arithmetic" in parts or "text" in parts  # the built-ins too
    proved = _accord(fresh_env, "prove", "--group", "wordcount", "--json", cwd=tmp_path)
    assert proved.returncode == 0, proved.stderr
    assert [c["name"] for c in json.loads(proved.stdout)["checks"]] == ["word-count-score-in-unit-interval"]


@pytest.mark.slow
def test_a_broken_plugin_is_one_line_naming_it(fresh_env, tmp_path):
    config = tmp_path / "shaky.yaml"
    config.write_text(yaml.safe_dump({"judges": [{"type": "arithmetic"}, {"type": "shaky"}]}))
    solutions = tmp_path / "s.jsonl"
    solutions.write_text(json.dumps({"id": "a", "problem": "p", "steps": ["1 + 1 = 2"], "label": -1}) + "\n")
    for args in (["verify", solutions, "--config", config], ["run", "--config", config, "--out", tmp_path / "r"]):
        done = _accord(fresh_env, *args, cwd=tmp_path)
        print(done.stderr)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.count("\n") == 1, done.stderr
        assert "plugin accord-shaky 0.1.0 (accord.judges: shaky = accord_shaky) failed to load" in done.stderr
        assert "ModuleNotFoundError: No module named 'a_module_nobody_installed'" in done.stderr
    assert not (tmp_path / "r").exists()  # nothing written before the panel is known
    # a name no plugin declares is the registry's one error, listing the installed ones too
    config.write_text(yaml.safe_dump({"judges": [{"type": "arithmetic"}, {"type": "nobody"}]}))
    done = _accord(fresh_env, "verify", solutions, "--config", config, cwd=tmp_path)
    assert done.returncode == 2 and "unknown judge type 'nobody'; choose one of" in done.stderr
    assert "shaky" in done.stderr and "word_count" in done.stderr
