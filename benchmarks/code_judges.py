"""Code judges over the full HumanEval pool (canonical solution + AST mutants per problem).

Prints, measured in one run:
- candidates per second for the static + execution + agreement panel over the whole pool
  (one sandboxed process per candidate, candidates in parallel);
- the sandbox overhead: the same programs and items run sequentially in the sandbox vs in this
  very process without any isolation (exec + the same calls), as a ratio.

Usage: python benchmarks/code_judges.py [--limit N] [--mutants K] [--overhead-sample N]
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import signal
import sys

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time


def in_process(program: str, items: list[dict], entry: str, item_s: float) -> None:
    """The unsandboxed reference: exec the program here and run the same items, with an alarm."""

    def alarm(*_):
        raise TimeoutError

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        ns: dict = {"__name__": "__candidate__"}
        try:
            signal.setitimer(signal.ITIMER_REAL, item_s)
            exec(compile(program, "<candidate>", "exec"), ns)
        except BaseException:
            return
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for it in items:
            try:
                signal.setitimer(signal.ITIMER_REAL, item_s)
                if it["kind"] == "expr":
                    eval(it["expr"], dict(ns)) == eval(it["expected"], {})  # noqa: B015 - the cost of the check
                elif it["kind"] == "probe":
                    ns[entry](*copy.deepcopy(ast.literal_eval(it["args"])))
            except BaseException:
                pass
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--mutants", type=int, default=5)
    ap.add_argument("--overhead-sample", type=int, default=120, help="canonical solutions in the overhead comparison")
    ap.add_argument("--overhead-only", action="store_true", help="skip the panel throughput measurement")
    args = ap.parse_args()

    from accord.adapters.code import CodeRunner, Limits, Sandbox
    from accord.adapters.code._judges import ExecutionJudge, SelfConsistencyJudge
    from accord.adapters.code._mutants import mutate
    from accord.adapters.code._static import StaticJudge
    from accord.verify.tasks import load_humaneval

    limits = Limits()
    sandbox = Sandbox(limits)
    print(f"sandbox: {sandbox.describe()}; {sandbox.workers} parallel workers on {os.cpu_count()} CPUs")
    tasks = load_humaneval(args.limit)
    pools = []
    for t in tasks:
        ms = mutate(t.question + t.canonical_solution, t.entry_point, args.mutants, seed=0)
        pools.append((t, [t.canonical_solution] + [m.source for m in ms]))
    n_cands = sum(len(c) for _, c in pools)

    runner = CodeRunner(sandbox)
    judges = [StaticJudge(), ExecutionJudge(runner), SelfConsistencyJudge(runner)]
    for t, _ in pools:  # probe inputs are generated once per problem, before timing
        runner.plan(t.spec)
    if not args.overhead_only:
        kids = _machine.children_cpu()
        with _machine.Timer() as clock:
            for t, cands in pools:
                ctx = t.context()
                for j in judges:
                    j.score(ctx, cands)
        panel_s = clock.wall
        print(f"pool: {len(pools)} problems, {n_cands} candidates, {runner.runs} sandboxed runs")
        print(
            f"panel (static + execution + agreement): {panel_s:.1f} s = {n_cands / panel_s:.1f} candidates/s "
            f"({clock.cpu:.1f} s CPU here, {_machine.children_cpu() - kids:.1f} s in finished sandboxes)"
        )

    # Sandbox overhead: the same (program, items) sequentially, sandboxed vs in this process. Canonical
    # solutions only: mutants that loop until the per-item alarm would time both sides alike.
    sample = []
    for t, cands in pools:
        items, _ = runner.plan(t.spec)
        sample.append((t.spec.program([], cands[0]), items, t.entry_point))
    step = max(1, len(sample) // args.overhead_sample)
    sample = sample[::step][: args.overhead_sample]
    one = Sandbox(limits, workers=1)
    kids = _machine.children_cpu()
    with _machine.Timer() as clock:
        for prog, items, entry in sample:
            one.run(prog, items, entry)
    boxed, boxed_cpu = clock.wall, clock.cpu + _machine.children_cpu() - kids
    sys.setrecursionlimit(3000)
    with _machine.Timer() as clock:
        for prog, items, entry in sample:
            in_process(prog, items, entry, limits.item_s)
    bare = clock.wall
    print(
        f"overhead on {len(sample)} canonical solutions, sequential: sandboxed {boxed:.2f} s "
        f"({1000 * boxed / len(sample):.1f} ms/candidate) vs unsandboxed in one process {bare:.3f} s "
        f"({1000 * bare / len(sample):.2f} ms/candidate): ratio {boxed / bare:.1f}x; "
        f"CPU (finished sandboxes included) {boxed_cpu:.2f} s vs {clock.cpu:.3f} s"
    )


if __name__ == "__main__":
    with _machine.Run():
        main()
