"""Runs the tests that load a real model or start a real server many times, to find flaky ones.

Each named test (file or node id) runs ``--runs`` times in one pytest session (as in a full test
run: the model and the llama.cpp server are loaded once and shared, and each repetition meets the
server in the state the previous ones left). It prints a table: per test, runs, failures, and the
figures tests record with pytest's ``record_property`` (for the served judge: the largest gap
between a served and an in-process read, and on how many steps the served panel preferred the
on-topic candidate), as min / max over the runs. Not part of CI; takes minutes per test.

    python scripts/stability.py [--runs 10] [-k EXPR] [TEST ...]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL_MODEL_TESTS = ["tests/test_served_models.py", "tests/test_served_client.py", "tests/test_served_checkers.py",
                    "tests/test_llm_judges.py", "tests/test_generator.py", "tests/test_scoring.py"]
PLUGIN = '''
import pytest


def pytest_addoption(parser):
    parser.addoption("--stability-runs", type=int, default=1)


def pytest_generate_tests(metafunc):
    runs = metafunc.config.getoption("stability_runs")
    if runs > 1:
        metafunc.fixturenames.append("stability_run")
        metafunc.parametrize("stability_run", range(runs), ids=lambda k: f"run{k}")
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tests", nargs="*", default=REAL_MODEL_TESTS)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("-k", default=None, help="pytest -k expression (only these tests)")
    ap.add_argument("--report", type=Path, default=None, help="keep pytest's JUnit XML here (the table can be rebuilt from it)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "stability_plugin.py").write_text(PLUGIN)
        report = (args.report or Path(tmp) / "report.xml").resolve()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([tmp, str(ROOT), os.environ.get("PYTHONPATH", "")])}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "stability_plugin", "--stability-runs", str(args.runs),
               f"--junitxml={report}", "-o", "junit_family=xunit1", *(["-k", args.k] if args.k else []), *args.tests]
        subprocess.run(cmd, cwd=ROOT, env=env)
        if not report.is_file():
            print("pytest wrote no report", file=sys.stderr)
            return 2
        table(ET.parse(report).getroot())
    return 0


def table(root) -> None:
    runs: dict[str, int] = defaultdict(int)
    failed: dict[str, int] = defaultdict(int)
    props: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for case in root.iter("testcase"):
        test = re.sub(r"\[\]$", "", re.sub(r"-?run\d+\]$", "]", case.get("name")))  # the repetitions as one
        name = f"{case.get('classname')}::{test}"
        if case.find("skipped") is not None:
            continue
        runs[name] += 1
        failed[name] += int(case.find("failure") is not None or case.find("error") is not None)
        for p in case.iter("property"):
            try:
                props[name][p.get("name")].append(float(p.get("value")))
            except (TypeError, ValueError):
                pass
    width = max([len(n) for n in runs] + [10])
    print(f"\n{'test':<{width}} {'runs':>5} {'failed':>6}  recorded (min .. max over runs)")
    for name in sorted(runs):
        rec = "; ".join(f"{k} {min(v):.4g} .. {max(v):.4g}" for k, v in sorted(props[name].items()))
        print(f"{name:<{width}} {runs[name]:>5} {failed[name]:>6}  {rec}")


if __name__ == "__main__":
    sys.exit(main())
