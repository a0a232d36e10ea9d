"""A solution's context carried from step to step gives the verdicts of the context rebuilt from all
earlier steps, and a step's work does not grow with the number of steps before it."""

from __future__ import annotations

import os
import pickle
from fractions import Fraction

import pytest

from accord.mathcheck.checks import _carried_checks
from accord.mathcheck.checks._carried_checks import MISSING, READ_AGAIN, SHORT, carried_check
from accord.mathcheck.checks._claims import solution_check
from accord.mathcheck.state import _carried
from accord.mathcheck.state._context import Facts
from accord.protocols import StepsBefore, context_key
from accord.verify.solutions import Solution
from accord.verify.solutions._judging import step_contexts

QUESTION = "Let $x$ and $y$ be positive real numbers. How many strings of 6 digits have adjacent digits differing by 1?"
STEPS = (
    "For $n = 1$ there are three strings, so $a_1 = 3$.",
    "Then $a_2 = 2 a_1 + 1 = 7$.",
    "We can simplify this as follows:",
    "$a_3 = 2 a_2 + 3 = 17$",
    "Let $f(n)$ be the number of strings of length $n$; $f(1) = 3$ and $f(2) = 7$.",
    "So $f(3) = f(2) + 2 f(1) + 4 = 18$.",
    "Since $x > 0$, $x + y \\geq 2\\sqrt{xy}$.",
    "Hence $(x + y)^2 \\geq 4xy$, so $(x + y)^2 \\geq 5xy$.",
    "With $i^2 = -1$, $(1 + i)^2 = 2i$.",
    "The digits $abc$ satisfy $a + b + c = 9$.",
    "Then $a_2 = 7$ again, and $a_2 + a_1 = 11$.",
    "This is impossible.",
    "So $3 \\cdot 17 = 51$ and $51 + 4 = 56$.",
    "The answer is $\\boxed{18}$.",
)


def carried_verdicts(question: str, steps: tuple[str, ...], real: bool) -> list:
    key = context_key("", question)
    out = []
    for k, step in enumerate(steps):
        following = steps[k + 1] if k + 1 < len(steps) else ""
        before = (question, steps[:k]) if k == 0 else None  # later steps: the worker's own context
        got = carried_check(key, step, real, following, before)
        if got == READ_AGAIN:  # what the judge does: the same call, allowed to read the steps again
            got = carried_check(key, step, real, following, None, True)
        out.append(got)
        key = context_key(key, step)
    return out


@pytest.mark.parametrize("real", [False, True])
def test_carried_context_gives_the_verdicts_of_the_rebuilt_one(real):
    _carried_checks._contexts.clear()
    rebuilt = [
        solution_check(QUESTION, list(STEPS[:k]), step, real, STEPS[k + 1] if k + 1 < len(STEPS) else "")
        for k, step in enumerate(STEPS)
    ]
    assert carried_verdicts(QUESTION, STEPS, real) == rebuilt
    assert any(v[0] == 0.0 for v in rebuilt) and any(v[0] == 1.0 for v in rebuilt)  # the steps are really judged


def test_a_new_function_name_in_a_long_context_is_read_again_only_when_allowed():
    _carried_checks._contexts.clear()
    plain = tuple(s for s in STEPS if "f(" not in s)
    steps = tuple(plain[k % len(plain)] for k in range(SHORT + 4)) + ("So $g(2) = 4$ and $g(3) = g(2) + 1 = 5$.",)
    key = context_key("", QUESTION)
    for k, step in enumerate(steps[:-1]):
        assert carried_check(key, step, False, steps[k + 1], (QUESTION, ()) if k == 0 else None) != READ_AGAIN
        key = context_key(key, step)
    assert carried_check(key, steps[-1], False, "") == READ_AGAIN
    got = carried_check(key, steps[-1], False, "", None, True)
    assert got == solution_check(QUESTION, list(steps[:-1]), steps[-1], False, "")


def test_a_worker_without_the_context_says_so_and_takes_the_steps_once():
    _carried_checks._contexts.clear()
    key = context_key(context_key("", QUESTION), STEPS[0])
    assert carried_check(key, STEPS[1], False, "") == MISSING
    got = carried_check(key, STEPS[1], False, "", (QUESTION, STEPS[:1]))
    assert got == solution_check(QUESTION, [STEPS[0]], STEPS[1], False, "")
    assert carried_check(context_key(key, STEPS[1]), STEPS[2], False, STEPS[3]) is not None  # now held


def test_a_step_reads_no_earlier_step_again(monkeypatch):
    """300 steps: each is read once when checked and once when the context advances, never again
    (no new function name appears after the first steps)."""
    _carried_checks._contexts.clear()
    steps = tuple(STEPS[k % len(STEPS)] for k in range(300))
    reads = []
    real_read = _carried.read_text

    def counting_read(text, facts, *skip):
        reads.append(text)
        return real_read(text, facts, *skip)

    monkeypatch.setattr(_carried, "read_text", counting_read)
    carried_verdicts(QUESTION, steps, False)
    per_step = len(reads) / len(steps)
    assert per_step < 1.2, per_step  # the re-reads after f(n) first appears are the only extra ones


def test_facts_forget_only_what_no_later_step_can_use():
    facts = Facts()
    for step in range(6):
        facts.step = step
        facts.values.setdefault("a_1", []).append((Fraction(3), step, True))  # stated again each step
        facts.values.setdefault("x", []).append((Fraction(step), step, False))  # a case, this step only
        facts.values.setdefault("s", []).append((Fraction(step % 2), step, True))  # two values in turn
    full = Facts(values={k: list(v) for k, v in facts.values.items()}, step=5)
    facts.forget_spent()
    assert len(facts.values["a_1"]) == 1 and len(facts.values["x"]) == 1 and len(facts.values["s"]) == 2
    for later in (6, 7):
        full.step = facts.step = later
        for name in ("a_1", "x", "s"):
            assert _value_or_none(full, name) == _value_or_none(facts, name)
        assert full.origin("x") == facts.origin("x")


def _value_or_none(facts: Facts, name: str):
    try:
        return facts.value(name)
    except Exception:  # Unknown: the name has no usable value
        return None


def test_step_contexts_chain_their_keys_and_view_the_steps_before():
    sol = Solution("s", QUESTION, STEPS)
    ctxs = list(step_contexts(sol))
    assert [tuple(c.steps) for c in ctxs] == [STEPS[:k] for k in range(len(STEPS))]
    key = context_key("", QUESTION)
    for ctx, step in zip(ctxs, STEPS):
        assert ctx.metadata["context_key"] == key
        key = context_key(key, step)
    other = list(step_contexts(Solution("t", QUESTION, STEPS[:3] + ("a different step",) + STEPS[4:])))
    assert [c.metadata["context_key"] for c in other[:4]] == [c.metadata["context_key"] for c in ctxs[:4]]
    assert other[4].metadata["context_key"] != ctxs[4].metadata["context_key"]


def test_steps_before_is_a_tuple_to_every_reader():
    view = StepsBefore(STEPS, 5)
    assert len(view) == 5 and tuple(view) == STEPS[:5] and view == STEPS[:5]
    assert view[-1] == STEPS[4] and view[1:3] == STEPS[1:3] and view[::-2] == STEPS[:5][::-2]
    assert view + ("z",) == STEPS[:5] + ("z",) and list(view) == list(STEPS[:5])
    with pytest.raises(IndexError):
        view[5]
    assert pickle.loads(pickle.dumps(view)) == STEPS[:5]
    assert "\n".join(view) == "\n".join(STEPS[:5]) and hash(view) == hash(STEPS[:5])


def test_a_call_goes_to_the_idle_worker_that_holds_its_context():
    from accord import timelimit

    preload = (os.getpid.__module__,)
    first, second = timelimit._borrow(preload), timelimit._borrow(preload)
    try:
        first.holds, second.holds = "x", "z"
        timelimit._give_back(first)
        timelimit._give_back(second)  # the one a plain call would take
        assert timelimit.call_with_limit(os.getpid, timeout=60, affinity=("x", "y")) == first.process.pid
        assert first.holds == "y" and second.holds == "z"
        assert timelimit.call_with_limit(os.getpid, timeout=60, affinity=("z", "w")) == second.process.pid
        assert timelimit.call_with_limit(os.getpid, timeout=60, affinity=("y", "v")) == first.process.pid
    finally:
        first.kill()
        second.kill()
