"""How ``accord verify`` scales: one long solution, and many short ones.

Generates the inputs (nothing here is real data): solutions whose steps cycle through step texts,
by default those of ``--texts`` (a ProcessBench-style JSONL, e.g. the CHAMP development split: prose
with inline math and LaTeX, as models write) or, without it, the built-in steps below. Then runs the
command as a user would (``accord verify FILE --json -q --bootstrap 0 --fail-on never``, a fresh
process, default math panel) for each size and prints wall time, CPU time (the command and the
judge workers it reaped) and peak memory (the largest of those processes), with steps/s and the
load before and after each run.

    python benchmarks/verify_scale.py --sizes 1x1000,1x10000,1x100000,10000x10 [--texts steps.jsonl]

A size ``SxN`` is S solutions of N steps. Work per step should not depend on N: steps/s stays
flat as N grows.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

ROOT = Path(__file__).resolve().parents[1]
CHAMP = Path("shared") / "data" / "champ-dev" / "steps.jsonl"
DEFAULT_TEXTS = next((p / CHAMP for p in ROOT.parents if (p / CHAMP).is_file()), None)

BUILT_IN = (
    "We need to count the strings of length 6 whose adjacent digits differ by at most 1.",
    "Let $f(n)$ be the number of valid strings of length $n$.",
    "For $n = 1$ there are three strings, so $f(1) = 3$.",
    "Each string of length $n$ ends in 1, 2 or 3, so $a_n + b_n + c_n = f(n)$.",
    "Then $a_2 = 2$, $b_2 = 3$ and $c_2 = 2$, so $f(2) = 2 + 3 + 2 = 7$.",
    "By symmetry $a_n = c_n$ for every $n$.",
    "The sum of the first ten positive integers is $1 + 2 + \\cdots + 10 = 55$.",
    "Since $x^2 - 5x + 6 = (x - 2)(x - 3)$, the roots are $x = 2$ and $x = 3$.",
    "We have $2^{10} = 1024$, which leaves remainder $1024 - 7 \\cdot 146 = 2$ when divided by 7.",
    "Therefore $3 \\cdot 17 = 51$ and $51 + 4 = 56$.",
    "By AM-GM, $a + b \\geq 2\\sqrt{ab}$ for positive $a$ and $b$.",
    "This gives $\\binom{7}{3} = 35$ committees.",
    "Now we consider the case where the last digit is 2.",
    "So the answer is $\\boxed{99}$.",
)


def step_texts(path: Path | None) -> list[str]:
    """The texts to cycle: every step of ``path`` in file order, or the built-in ones."""
    if path is None:
        return list(BUILT_IN)
    texts = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                texts.extend(s for s in json.loads(line)["steps"] if s.strip())
    if not texts:
        sys.exit(f"{path}: no steps")
    return texts


def write_input(path: Path, solutions: int, steps: int, texts: list[str]) -> None:
    cycle = itertools.cycle(texts)
    with path.open("w", encoding="utf-8") as f:
        for i in range(solutions):
            sol = {
                "id": f"s{i}",
                "problem": "How many strings of length 6 over the digits 1, 2, 3 have adjacent digits "
                "differing by at most 1?",
                "steps": [next(cycle) for _ in range(steps)],
            }
            f.write(json.dumps(sol) + "\n")


def measure(data: Path) -> dict:
    """One ``accord verify`` run: its --json document, wall s, CPU s and peak RSS of the command and
    the children it reaped (``os.wait4``, as ``/usr/bin/time`` reports them)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "accord.cli.main", "verify", str(data), "--json", "-q"]
    cmd += ["--bootstrap", "0", "--fail-on", "never"]
    load_before = _machine.load()
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        sys.exit(f"accord verify failed ({proc.returncode}): {stderr.strip()[-2000:]}")
    doc = json.loads(stdout)
    return {
        "steps": doc["steps"],
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
        "load_before": load_before,
        "load_after": _machine.load(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1x1000,1x10000,10000x10", help="comma-separated SOLUTIONSxSTEPS")
    ap.add_argument("--texts", type=Path, default=DEFAULT_TEXTS, help="JSONL whose steps are cycled")
    ap.add_argument("--builtin", action="store_true", help="cycle the built-in steps instead of --texts")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args()
    sizes = [tuple(int(x) for x in s.lower().split("x")) for s in args.sizes.split(",")]
    texts = step_texts(None if args.builtin else args.texts)
    _machine.print_header()
    print(f"step texts: {'built-in' if args.builtin or args.texts is None else args.texts} ({len(texts)} cycled)")
    print("| input | steps | wall s | CPU s | peak MiB | steps/s (wall) | CPU ms/step | load before → after |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for solutions, steps in sizes:
            data = Path(tmp) / f"{solutions}x{steps}.jsonl"
            write_input(data, solutions, steps, texts)
            r = measure(data)
            data.unlink()
            r["input"] = f"{solutions:,} × {steps:,}"
            rows.append(r)
            print(
                f"| {r['input']} | {r['steps']:,} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | {r['peak_mib']:.0f} | "
                f"{r['steps'] / r['wall_s']:.1f} | {1000 * r['cpu_s'] / r['steps']:.2f} | "
                f"{r['load_before']} → {r['load_after']} |",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
