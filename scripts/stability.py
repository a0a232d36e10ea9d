"""Runs the tests that load a real model or start a real server many times, to find flaky ones.

Each named test (file or node id) runs ``--runs`` times in one pytest session, in rounds: every
test once, then every test again, ... (as in a full test run, a module's model or llama.cpp server
is loaded once per round and shared, and each test meets it in the state the tests before it left).
Each outcome is appended to ``--log`` (JSON lines) as it happens, so a loop stopped early still
reports the rounds it finished. It prints a table: per test, runs, failures, and the figures tests
record with pytest's ``record_property`` (for the served judge: the largest gap between a served
and an in-process read, and on how many steps the served panel preferred the on-topic candidate),
as min / max over the runs. Not part of CI; takes minutes per round.

    python scripts/stability.py [--runs 10] [-k EXPR] [--log FILE] [TEST ...]
    python scripts/stability.py --table FILE     # the table of a log, e.g. of a stopped loop
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL_MODEL_TESTS = [
    "tests/test_served_models.py",
    "tests/test_served_client.py",
    "tests/test_served_checkers.py",
    "tests/test_llm_judges.py",
    "tests/test_generator.py",
    "tests/test_scoring.py",
]
PLUGIN = '''
import json
import re

import pytest

_LOG = {}


def pytest_addoption(parser):
    parser.addoption("--stability-runs", type=int, default=1)
    parser.addoption("--stability-log", default=None)


def pytest_generate_tests(metafunc):
    runs = metafunc.config.getoption("stability_runs")
    if runs > 1:
        metafunc.fixturenames.append("stability_run")
        metafunc.parametrize("stability_run", range(runs), ids=lambda k: f"run{k}", scope="module")


def _round(item):
    m = re.search(r"run(\\d+)", item.nodeid)
    return int(m.group(1)) if m else 0


def pytest_collection_modifyitems(config, items):
    items.sort(key=_round)  # stable: within a round, the usual order


def pytest_configure(config):
    _LOG["path"] = config.getoption("stability_log")


def pytest_runtest_logreport(report):
    """One line per run: the call's outcome, or a failed setup or teardown."""
    if report.when == "call" or report.failed:
        with open(_LOG["path"], "a") as fh:
            fh.write(json.dumps({"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
                                 "props": dict(report.user_properties)}) + "\\n")
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tests", nargs="*", default=REAL_MODEL_TESTS)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("-k", default=None, help="pytest -k expression (only these tests)")
    ap.add_argument(
        "--log", type=Path, default=None, help="append each outcome here (JSON lines); default: a temporary file"
    )
    ap.add_argument("--table", type=Path, default=None, help="print the table of an existing log and exit")
    args = ap.parse_args()
    if args.table:
        table(args.table)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "stability_plugin.py").write_text(PLUGIN)
        log = (args.log or Path(tmp) / "outcomes.jsonl").resolve()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([tmp, str(ROOT), os.environ.get("PYTHONPATH", "")])}
        cmd = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "stability_plugin",
            "--stability-runs",
            str(args.runs),
            f"--stability-log={log}",
            *(["-k", args.k] if args.k else []),
            *args.tests,
        ]
        subprocess.run(cmd, cwd=ROOT, env=env)
        if not log.is_file():
            print("no test ran", file=sys.stderr)
            return 2
        table(log)
    return 0


def test_name(nodeid: str) -> str:
    """The node id without its repetition: ``t[run3-a]`` -> ``t[a]``, ``t[run3]`` -> ``t``."""
    m = re.fullmatch(r"(.*?)\[(.*)\]", nodeid)
    if not m:
        return nodeid
    params = [p for p in m.group(2).split("-") if not re.fullmatch(r"run\d+", p)]
    return f"{m.group(1)}[{'-'.join(params)}]" if params else m.group(1)


def table(log: Path) -> None:
    runs: dict[str, int] = defaultdict(int)
    failed: dict[str, int] = defaultdict(int)
    props: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line in log.read_text().splitlines():
        rec = json.loads(line)
        name = test_name(rec["nodeid"])
        if rec["outcome"] == "skipped":
            continue
        if rec["when"] != "teardown":  # a failed teardown fails the run its call already counted
            runs[name] += 1
        failed[name] += rec["outcome"] == "failed"
        for key, value in rec["props"].items():
            if isinstance(value, (int, float)):
                props[name][key].append(float(value))
    width = max([len(n) for n in runs] + [10])
    print(f"\n{'test':<{width}} {'runs':>5} {'failed':>6}  recorded (min .. max over runs)")
    for name in sorted(runs):
        rec = "; ".join(f"{k} {min(v):.4g} .. {max(v):.4g}" for k, v in sorted(props[name].items()))
        print(f"{name:<{width}} {runs[name]:>5} {failed[name]:>6}  {rec}")
    print(f"{len(runs)} tests, {sum(runs.values())} runs, {sum(failed.values())} failed")


if __name__ == "__main__":
    sys.exit(main())
