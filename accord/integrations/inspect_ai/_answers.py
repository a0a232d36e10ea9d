"""``accord/answer_match``: the output's final answer against the target by accord's answer equivalence.

The final answer is read as ``accord jury`` reads a member's reply ("The answer is ...",
"ANSWER: ...", ``\\boxed{..}``, else the last number of the last line, or a one-line output as
written) and compared with each target by the jury's equivalence: ``auto`` (numbers, expressions,
sets, intervals, solutions, and textual forms and glosses: "Yes", "infinitely many", "x = 3, so
3"), ``math`` (without the textual forms) or ``text`` (normalised text). Where the sample's input
asks for a form (factorise, simplify, a closed form), answers are compared in that form. A drop-in
for inspect's ``match``: ``C`` or ``I``, the answer read, and in the metadata how it was read and
the normalised answer and targets.
"""

from __future__ import annotations

import threading

import anyio
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from accord.consensus_core.jury import MISSING
from accord.mathcheck import AnswerGrader
from accord.verify.juries import output_answer, panel_classes

EQUIVALENCES = ("auto", "math", "text")


class _Matcher:
    """Answer against targets, and the normalised forms a reader of the log sees (one lock: the
    answer parser keeps what it has parsed, and is not shared between threads)."""

    def __init__(self, equivalence: str):
        self.equivalence = equivalence
        self.reader = AnswerGrader()
        self.lock = threading.Lock()

    def match(self, answer: str, targets: list[str], problem: str | None) -> tuple[str | None, str | None, dict]:
        """(the target matched or None, the form the problem asks for, the normalised texts)."""
        hit, form = None, None
        with self.lock:
            for t in targets:
                classes = panel_classes([[answer]], [t], self.equivalence, [problem] if problem else None)
                form = next(iter(classes.parse.get("asked_forms", {})), None)
                if classes.codes[0, 0] != MISSING and classes.truth[0] == classes.codes[0, 0]:
                    hit = t
                    break
            parsed = self.reader.parse(answer)
            normal = {
                "answer": parsed.normal,
                "read_as": parsed.how,
                "targets": [self.reader.parse(t).normal for t in targets],
            }
        return hit, form, normal


@scorer(metrics=[accuracy(), stderr()], name="answer_match")  # registered as accord/answer_match
def answer_match(equivalence: str = "auto", read_problem: bool = True) -> Scorer:
    """Whether the output's final answer is equivalent to a target.

    Args:
        equivalence: ``auto`` (default), ``math`` or ``text`` (see ``accord jury --equivalence``).
        read_problem: compare in the form the sample's input asks for (default True).
    """
    if equivalence not in EQUIVALENCES:
        raise ValueError(f"equivalence must be one of {', '.join(EQUIVALENCES)}, got {equivalence!r}")
    matcher = _Matcher(equivalence)

    async def score(state: TaskState, target: Target) -> Score:
        output = state.output.completion if state.output is not None else ""
        answer, how = output_answer(output)
        targets = [t for t in target.target if t.strip()]
        if not targets:
            return Score.unscored(reason="no target", explanation="the sample has no target to compare with")
        if answer is None:
            return Score(
                value=INCORRECT,
                answer=None,
                explanation="no final answer found in the output",
                metadata={"answer_source": how, "equivalence": equivalence},
            )
        problem = state.input_text if read_problem else None
        hit, form, normal = await anyio.to_thread.run_sync(matcher.match, answer, targets, problem)
        said = f"the answer {answer!r} ({how.replace('_', ' ')})"
        explanation = (
            f"{said} is equivalent to the target {hit!r}"
            if hit is not None
            else f"{said} is equivalent to no target ({', '.join(repr(t) for t in targets)})"
        ) + (f"; the problem asks for {form} form" if form else "")
        return Score(
            value=CORRECT if hit is not None else INCORRECT,
            answer=answer,
            explanation=explanation,
            metadata={
                "answer_source": how,
                "normalised_answer": normal["answer"],
                "read_as": normal["read_as"],
                "normalised_targets": normal["targets"],
                "matched_target": hit,
                "asked_form": form,
                "equivalence": equivalence,
            },
        )

    return score
