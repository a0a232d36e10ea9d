"""Does a time-out cost one step? A long solution with one step that runs past the math judges' limit.

Two cases, each one solution run through ``accord verify`` as a user runs it (a fresh process, the
judges' ``timeout`` set low by a config file):

- ``slow step`` (the math panel, symbolic and numeric ``timeout`` 2 s): step AT concludes forty
  4,999-term products, so both checking it and reading it take several times the limit (and the
  0.05 s per earlier step a read of the earlier steps is allowed on top); every other step is an
  ordinary one;
- ``re-read`` (arithmetic and symbolic judges, ``timeout`` 3 s): every step defines two 4,999-term
  products (read in about 0.25 s, checked in about 1.3 s), and step AT writes a new name as a
  function, so the earlier steps are read again with it: longer than that read's limit (3 s + 0.05 s
  per earlier step), as a long read under a heavy load can be.

For each it prints whether step AT timed out, its label and uncertain reason, the steps after AT
whose judges timed out, and wall and CPU time (the command and the judge workers it reaped). A
control run of the same solution with step AT made ordinary counts the later steps that time out
on their own (a heavily loaded machine makes any step slow): only the others are spread.
Nothing here is real data.

    python benchmarks/timeout_spread.py [--steps 60] [--at 45] [--case slow|re-read]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line

ROOT = Path(__file__).resolve().parents[1]
PROBLEM = "How many strings of length 6 over the digits 1, 2, 3 have adjacent digits differing by at most 1?"
ORDINARY = (
    "For $n = 1$ there are three strings, so $a_1 = 3$.",
    "Then $a_2 = 2 a_1 + 1 = 7$.",
    "So $3 \\cdot 17 = 51$ and $51 + 4 = 56$.",
    "Since $x^2 - 5x + 6 = (x - 2)(x - 3)$, the roots are $x = 2$ and $x = 3$.",
    "This gives $\\binom{7}{3} = 35$ committees.",
)


def _product(i: int, terms: int) -> str:
    return f"$p_{{{i}}} = \\prod_{{k=1}}^{{{terms}}} (1 + {i}/k^2)$"


def slow_step_case(steps: int, at: int, control: bool = False) -> list[str]:
    out = [ORDINARY[k % len(ORDINARY)] for k in range(steps)]
    if not control:
        out[at] = "Hence " + ", ".join(_product(i, 4999) for i in range(1, 41)) + "."
    return out


def reread_case(steps: int, at: int, control: bool = False) -> list[str]:
    out = [f"Let {_product(k + 1, 4999)} and {_product(k + 2, 4999).replace('p_', 'r_', 1)}." for k in range(steps)]
    if not control:
        out[at] = "Hence $g(2) = 2 g(1) + 1 = 7$."
    return out


def run_verify(steps: list[str], judges: tuple[str, ...], timeout: float, tmp: Path) -> dict:
    data, cfg = tmp / "solution.jsonl", tmp / "panel.yaml"
    data.write_text(json.dumps({"id": "long", "problem": PROBLEM, "steps": steps}) + "\n", encoding="utf-8")
    cfg.write_text(
        "judges:\n  - {type: arithmetic, lambda: 1.0}\n"
        + "".join(f"  - {{type: {j}, mode: solution, timeout: {timeout}}}\n" for j in judges),
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "accord.cli.main", "verify", str(data), "--config", str(cfg)]
    cmd += ["--json", "-q", "--bootstrap", "0", "--fail-on", "never", "--out", str(tmp / "out.jsonl")]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=out, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err = out.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"accord verify failed: {err.strip()[-2000:]}")
    rec = json.loads((tmp / "out.jsonl").read_text(encoding="utf-8").splitlines()[0])
    (tmp / "out.jsonl").unlink()
    return {"record": rec, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime}


def timed_out(step: dict) -> bool:
    return any("timed out" in (why or "") for why in step["reasons"].values())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--at", type=int, default=45, help="the step that times out, from 0")
    ap.add_argument("--case", choices=("slow", "re-read"), help="run one case only (default: both)")
    args = ap.parse_args()
    at = args.at
    _machine.print_header()
    print(f"{args.steps} steps, step {at} (from 0) runs past its judges' limit")
    cases = (
        ("slow step", slow_step_case, ("symbolic", "numeric"), 2.0),
        ("re-read", reread_case, ("symbolic",), 3.0),
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, judges, timeout in cases:
            if args.case and not name.startswith(args.case):
                continue
            r = run_verify(make(args.steps, at), judges, timeout, Path(tmp))
            steps = r["record"]["steps"]
            late = [k for k, s in enumerate(steps) if timed_out(s) and k > at]
            alone = run_verify(make(args.steps, at, control=True), judges, timeout, Path(tmp))["record"]["steps"]
            spread = [k for k in late if not timed_out(alone[k])]
            print(
                f"[{name}] timed out at step {at}: {timed_out(steps[at])}; label {steps[at]['label']!r} "
                f"({steps[at].get('uncertain_reason')}); steps after it that timed out: {len(late)} of "
                f"{len(steps) - at - 1}, {len(late) - len(spread)} of them also without step {at}'s trigger, "
                f"so spread: {len(spread)}{' ' + str(spread[:12]) if spread else ''}; "
                f"{r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s CPU; {_machine.load()}",
                flush=True,
            )


if __name__ == "__main__":
    main()
