"""CPU time the accord scorers add to ``inspect score``, per sample, measured in one run.

A log of N samples is made on inspect's mockllm model (math word problems answered in three
lines of arithmetic, a quarter of them with a slip, the answer stated as a number, boxed, with its
unit or as a fraction), then ``inspect score LOG --scorer S`` runs
as a subprocess (what a user types) for inspect's own ``match``, ``accord/answer_match`` and
``accord/verify_steps``, at two sizes. The CPU time of a run counts the inspect process and every
process it starts (the math judges' workers), user + system. Per sample = (CPU at the large size −
CPU at the small size) / (the difference in samples), so the start-up (Python, inspect, accord's
imports, the workers) is separated out as the fixed cost; the extension's cost is each accord
scorer's per-sample and fixed CPU minus ``match``'s. Each run is repeated and the least CPU time
kept (other jobs on a shared machine only ever add to it).

    python benchmarks/inspect_score.py [--small 8] [--large 40] [--repeats 2]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

SCORERS = ("match", "accord/answer_match", "accord/verify_steps")
INSPECT = str(Path(sys.executable).parent / "inspect")


def problems(n: int, seed: int = 0) -> list[tuple[str, str, str]]:
    """(question, target, the model's output) for n two-step word problems; one in four has a slip,
    and the answer is stated in four forms in turn (a number, boxed, with its unit, a fraction)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        a, b, c = rng.randint(3, 40), rng.randint(2, 12), rng.randint(5, 90)
        total = a * b + c
        slip = i % 4 == 3
        shown = total + rng.choice((-2, -1, 1, 10)) if slip else total
        question = f"A shop sells {a} boxes of {b} pens and {c} loose pens. How many pens does it sell?"
        stated = (f"{shown}", f"\\boxed{{{shown}}}", f"{shown} pens", f"{2 * shown}/2")[i % 4]  # forms to read
        output = (
            f"Each box holds {b} pens, so the boxes hold {a} * {b} = {a * b} pens.\n"
            f"Adding the loose pens: {a * b} + {c} = {shown}.\n"
            f"The answer is {stated}."
        )
        out.append((question, str(total), output))
    return out


def make_log(n: int, folder: Path) -> Path:
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    rows = problems(n)
    by_question = {q: o for q, _, o in rows}

    def reply(messages, tools, tool_choice, config):
        out = ModelOutput.from_content(model="bench", content=by_question[messages[-1].text])
        out.usage = ModelUsage(input_tokens=30, output_tokens=60, total_tokens=90)
        return out

    task = Task(
        dataset=[Sample(id=f"q{i}", input=q, target=t) for i, (q, t, _) in enumerate(rows)],
        solver=generate(),
        scorer=match(),
    )
    log = eval(task, model=get_model("mockllm/bench", custom_outputs=reply), log_dir=str(folder), display="none")[0]
    return Path(log.location)


def score_cpu(log: Path, scorer: str, out: Path) -> tuple[float, float]:
    """(CPU seconds of the inspect score process and its children, wall seconds)."""
    before = _machine.children_cpu()
    t0 = time.perf_counter()
    cmd = [INSPECT, "score", str(log), "--scorer", scorer, "--action", "append", "--output-file", str(out)]
    env = {**os.environ, "INSPECT_DISPLAY": "none"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"inspect score --scorer {scorer} failed:\n{done.stderr[-2000:]}")
    return _machine.children_cpu() - before, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", type=int, default=8)
    ap.add_argument("--large", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        logs = {n: make_log(n, folder / f"n{n}") for n in (args.small, args.large)}
        cpu: dict[tuple[str, int], float] = {}
        wall: dict[tuple[str, int], float] = {}
        for r in range(args.repeats):  # interleaved, so a burst of load falls on every scorer alike
            for k, scorer in enumerate(SCORERS):
                for n, log in logs.items():
                    c, w = score_cpu(log, scorer, folder / f"scored-{r}-{k}-{n}.eval")
                    key = (scorer, n)
                    cpu[key] = min(cpu.get(key, c), c)
                    wall[key] = min(wall.get(key, w), w)
    span = args.large - args.small
    print(f"inspect score, least of {args.repeats} runs; CPU = the inspect process and its children")
    print(
        f"{'scorer':22} {'CPU n=' + str(args.small):>10} {'CPU n=' + str(args.large):>10} "
        f"{'wall n=' + str(args.large):>11} {'CPU/sample':>11} {'fixed CPU':>10} {'adds/sample':>12} {'adds fixed':>11}"
    )
    base_per = (cpu[("match", args.large)] - cpu[("match", args.small)]) / span
    base_fixed = cpu[("match", args.small)] - args.small * base_per
    for scorer in SCORERS:
        per = (cpu[(scorer, args.large)] - cpu[(scorer, args.small)]) / span
        fixed = cpu[(scorer, args.small)] - args.small * per
        adds = "" if scorer == "match" else f"{(per - base_per) * 1000:9.0f} ms {fixed - base_fixed:9.2f} s"
        print(
            f"{scorer:22} {cpu[(scorer, args.small)]:9.2f}s {cpu[(scorer, args.large)]:9.2f}s "
            f"{wall[(scorer, args.large)]:10.2f}s {per * 1000:8.0f} ms {fixed:9.2f}s {adds:>24}"
        )


if __name__ == "__main__":
    with _machine.Run():
        main()
