"""A check that runs past its time limit costs that check alone: its worker is stopped and kept with
what it holds, or killed and replaced; a long solution's later steps are checked as usual."""

from __future__ import annotations

import os
import signal
import threading

import pytest
import stoppable
from polling import wait_until

from accord import timelimit
from accord.adapters.math import NumericSamplingJudge, SymbolicEquivalenceJudge
from accord.mathcheck.checks import _carried_checks
from accord.mathcheck.checks._carried_checks import READ_AGAIN, SHORT, carried_check
from accord.mathcheck.checks._claims import solution_check
from accord.protocols import context_key
from accord.timelimit import CheckTimeout, call_with_limit
from accord.verify.solutions import Solution
from accord.verify.solutions._judging import step_contexts

QUESTION = "How many strings of length 6 over the digits 1, 2, 3 have adjacent digits differing by at most 1?"
ORDINARY = (
    "For $n = 1$ there are three strings, so $a_1 = 3$.",
    "Then $a_2 = 2 a_1 + 1 = 7$.",
    "So $3 \\cdot 17 = 51$ and $51 + 4 = 56$.",
    "Since $x^2 - 5x + 6 = (x - 2)(x - 3)$, the roots are $x = 2$ and $x = 3$.",
    "Then $a_2 = 7$ again, and $a_2 + a_1 = 11$.",
    "This gives $\\binom{7}{3} = 35$ committees.",
)
# forty 4,999-term products the step concludes: reading it alone takes seconds, past the limit below
SLOW = "Hence " + ", ".join(f"$p_{{{i}}} = \\prod_{{k=1}}^{{4999}} (1 + {i}/k^2)$" for i in range(1, 41)) + "."
LIMIT = 3.0


def test_a_call_past_its_limit_is_stopped_and_its_worker_kept_with_what_it_holds():
    timelimit.shutdown()
    pid = call_with_limit(stoppable.keep, "context", 41, timeout=60, affinity=("a", "b"))
    with pytest.raises(CheckTimeout, match="ran past its 0.5 s limit"):
        call_with_limit(stoppable.spin, timeout=0.5, affinity=("b", "c"))
    assert call_with_limit(stoppable.kept, "context", timeout=60, affinity=("b", "d")) == (41, pid)


def test_a_call_stopped_inside_an_import_has_its_worker_replaced(tmp_path):
    """A module half made by a stopped import would break every later call of that worker."""
    (tmp_path / "slow_module.py").write_text(
        "import time\nstart = time.monotonic()\nwhile time.monotonic() - start < 3:\n    pass\ndone = True\n"
    )
    pid = call_with_limit(stoppable.keep, "context", 41, timeout=60, affinity=("a", "b"))
    with pytest.raises(CheckTimeout):
        call_with_limit(stoppable.import_from, str(tmp_path), "slow_module", timeout=0.5, affinity=("b", "c"))
    held, new_pid = call_with_limit(stoppable.kept, "context", timeout=60, affinity=("b", "d"))
    assert new_pid != pid and held is None  # a new worker, not the one the import was stopped in
    assert call_with_limit(stoppable.import_from, str(tmp_path), "slow_module", timeout=60)[0] is True


def test_a_call_that_does_not_stop_has_its_worker_killed_and_replaced():
    timelimit.shutdown()
    pid = call_with_limit(stoppable.keep, "context", 41, timeout=60, affinity=("a", "b"))
    with pytest.raises(CheckTimeout, match="ran past its 0.5 s limit"):
        call_with_limit(stoppable.deaf, timeout=0.5, affinity=("b", "c"))
    held, new_pid = call_with_limit(stoppable.kept, "context", timeout=60, affinity=("b", "d"))
    assert held is None and new_pid != pid


def _steps(n: int, slow_at: int | None) -> tuple[str, ...]:
    steps = [ORDINARY[k % len(ORDINARY)] for k in range(n)]
    if slow_at is not None:
        steps[slow_at] = SLOW
    return tuple(steps)


def _judged(judge, steps: tuple[str, ...]):
    return [judge.score(ctx, [step])[0] for ctx, step in zip(step_contexts(Solution("s", QUESTION, steps)), steps)]


@pytest.mark.parametrize("judge_type", [SymbolicEquivalenceJudge, NumericSamplingJudge])
def test_a_step_that_times_out_costs_that_step_alone(judge_type):
    """The slow step's check is stopped at the limit; the steps after it are checked in the context
    made without reading it (reading it again would run past the limit once more, every step):
    the verdicts of a solution where that step says nothing."""
    n, at = SHORT + 12, SHORT + 4
    judge = judge_type(timeout=LIMIT, mode="solution")
    got = _judged(judge, _steps(n, at))
    assert got[at].value is None and got[at].reason == f"timed out after {LIMIT:g} s"
    assert not any("timed out" in (s.reason or "") for s in got[at + 1 :])
    plain = _steps(n, None)
    silent = plain[:at] + ("We go on.",) + plain[at + 1 :]
    expected = _judged(judge_type(timeout=60, mode="solution"), silent)
    assert [(s.value, s.reason) for s in got[at + 1 :]] == [(s.value, s.reason) for s in expected[at + 1 :]]
    assert any(s.value == 1.0 for s in got[at + 1 :]) and any(s.value == 0.0 for s in got[at + 1 :])


def test_a_worker_killed_mid_check_is_replaced_with_the_context_the_next_step_needs():
    """The worker checking the slow step is killed (SIGKILL, as the kernel's OOM killer would): that
    step fails; a new worker is given the steps before it once, and the steps after are checked as
    usual, not by reading the slow step again (which would run past the limit, every step)."""
    n, at = SHORT + 8, SHORT + 4
    steps = _steps(n, at)
    judge = SymbolicEquivalenceJudge(timeout=LIMIT, mode="solution")
    ctxs = list(step_contexts(Solution("s", QUESTION, steps)))
    for ctx, step in zip(ctxs[:at], steps[:at]):
        judge.score(ctx, [step])
    killed: list[int] = []

    def busy_workers():
        with timelimit._lock:
            idle = {w for ws in timelimit._idle.values() for w in ws}
            return [w for w in timelimit._live if w not in idle]

    def kill_the_busy_worker():
        pid = wait_until(busy_workers, "a worker checking the slow step")[0].process.pid
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    killer = threading.Thread(target=kill_the_busy_worker)
    killer.start()
    slow = judge.score(ctxs[at], [steps[at]])[0]
    killer.join()
    assert killed and slow.value is None and "worker process died" in slow.reason
    after = [judge.score(ctx, [step])[0] for ctx, step in zip(ctxs[at + 1 :], steps[at + 1 :])]
    assert not any(s.value is None and "timed out" in s.reason for s in after)
    expected = _judged(
        SymbolicEquivalenceJudge(timeout=60, mode="solution"), steps[:at] + ("We go on.",) + steps[at + 1 :]
    )
    assert [(s.value, s.reason) for s in after] == [(s.value, s.reason) for s in expected[at + 1 :]]


def test_a_read_again_that_does_not_finish_leaves_the_new_name_known():
    """A step writes a new function name in a long context, and reading the earlier steps again with
    it does not finish: the context after the step knows the name without that read, so the next
    step that uses it is checked at once (no second read), in the context of the earlier steps."""
    _carried_checks._contexts.clear()
    steps = tuple(ORDINARY[k % len(ORDINARY)] for k in range(SHORT + 4))
    new = "Let $g(n)$ be the number of strings of length $n$, so $g(1) = 3$."
    uses = "So $g(2) = 3 g(1) - 2 = 7$."
    key = context_key("", QUESTION)
    for k, step in enumerate(steps):
        carried_check(key, step, False, "", (QUESTION, ()) if k == 0 else None)
        key = context_key(key, step)
    assert carried_check(key, new, False, uses) == READ_AGAIN
    assert carried_check(key, new, False, uses, None, False, True) is None  # the judge's answer to a time-out
    got = carried_check(context_key(key, new), uses, False, "")
    assert got != READ_AGAIN
    assert got == solution_check(QUESTION, list(steps) + ["We go on."], uses, False, "")


def test_a_step_that_times_out_is_uncertain_with_that_reason(tmp_path):
    from accord.verify.solutions import resolve_settings, verify_solutions

    cfg = tmp_path / "panel.yaml"
    cfg.write_text(
        "judges:\n  - {type: arithmetic}\n"
        f"  - {{type: symbolic, mode: solution, timeout: {LIMIT}}}\n"
        f"  - {{type: numeric, mode: solution, timeout: {LIMIT}}}\n"
    )
    steps = _steps(SHORT + 6, SHORT + 2)
    res = verify_solutions([Solution("s", QUESTION, steps)], resolve_settings(str(cfg)), progress=False, n_boot=0)
    slow = res.records[0]["steps"][SHORT + 2]
    assert slow["label"] == "uncertain" and slow["uncertain_reason"] == "timed out"
    assert slow["reasons"]["symbolic"] == slow["reasons"]["numeric"] == f"timed out after {LIMIT:g} s"
    later = res.records[0]["steps"][SHORT + 3 :]
    assert not any(s.get("uncertain_reason") == "timed out" for s in later)
