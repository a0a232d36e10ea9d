"""``accord/verify_steps``: the ``accord verify`` panel over the steps of a model's output.

The output is split into steps as ``accord verify`` splits a written solution; each step is judged
with the sample's input as the problem and the steps before it as context (the first target, when
there is one, is the reference the final-answer judge reads), and labelled valid, invalid or
uncertain by the consensus rule. The score is ``C`` when no step is invalid (``fail_on="uncertain"``:
nor uncertain), ``I`` otherwise; the explanation names the first invalid step and its evidence;
the metadata holds every step's label, role (how the math engine reads it: premise, definition,
unknowns or claim), reason and judges' scores. Judging runs in a worker thread, so inspect keeps
scoring other samples meanwhile.
"""

from __future__ import annotations

import threading
from typing import Any

import anyio
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from accord.mathcheck import classify
from accord.verify.juries import output_answer
from accord.verify.loop import build_panel
from accord.verify.solutions import Solution, resolve_settings, split_steps, verify_solutions

FAIL_ON = ("invalid", "uncertain")


class _Panels:
    """The settings checked at once; each panel (with or without the final-answer judge) built on
    first use and shared by every sample (the panels are safe to call from several threads)."""

    def __init__(self, **options: Any):
        self.options = options
        self.settings = {ref: resolve_settings(with_reference=ref, **options) for ref in (False, True)}
        self.panels: dict[bool, Any] = {}
        self.lock = threading.Lock()

    def verify(self, solution: Solution) -> dict:
        ref = solution.reference is not None
        settings = self.settings[ref]
        with self.lock:
            if ref not in self.panels:
                self.panels[ref] = build_panel(
                    list(settings.judges), influence=settings.influence, timeout_s=settings.judge_timeout_s
                )
        result = verify_solutions([solution], settings, panel=self.panels[ref], progress=False, n_boot=0, workers=1)
        return result.records[0]


def _role(text: str) -> str:
    try:
        return classify(text).kind
    except Exception:  # noqa: BLE001 — the role is a description; a step the engine cannot read is a claim
        return "claim"


def _steps_metadata(record: dict) -> list[dict]:
    out = []
    for step in record["steps"]:
        entry = {
            "step": step["step_number"],
            "text": step["text"],
            "label": step["label"],
            "role": _role(step["text"]),
            "reason": step["reason"],
            "scores": step["scores"],
        }
        for key in ("evidence", "uncertain_reason"):
            if key in step:
                entry[key] = step[key]
        out.append(entry)
    return out


def _explanation(record: dict, failed: list[int], fail_on: str) -> str:
    labels = record["step_labels"]
    counts = f"{labels.count('valid')} valid, {labels.count('invalid')} invalid, {labels.count('uncertain')} uncertain"
    if record["prediction"] >= 0:
        step = record["steps"][record["prediction"]]
        text = step["text"] if len(step["text"]) <= 200 else step["text"][:197] + "..."
        head = f"step {step['step_number']} of {len(labels)} is invalid: {text!r}"
        return f"{head}. Evidence: {step['reason']} ({counts})"
    if failed:
        step = record["steps"][failed[0]]
        return f"step {step['step_number']} of {len(labels)} is uncertain: {step['reason']} ({counts})"
    return f"no invalid step in {len(labels)} steps ({counts})"


@scorer(metrics=[accuracy(), stderr()], name="verify_steps")  # registered as accord/verify_steps
def verify_steps(
    judges: str | None = None,
    config: str | None = None,
    policy: str | None = None,
    tau: float | None = None,
    eps: float | None = None,
    judge_timeout: float | None = None,
    fail_on: str = "invalid",
) -> Scorer:
    """Verify the output's steps with the ``accord verify`` panel (docs/verify.md).

    Args:
        judges: comma-separated judges by type or name (default: the config's, else the math panel).
        config: a YAML/TOML file with ``judges``, ``influence``, ``policy``, ``judge_timeout_s``.
        policy: the rule that labels the steps (default verdict).
        tau: valid above τ, invalid below 1 − τ (default 0.6).
        eps: the dispersion below which the panel agrees (default 0.1).
        judge_timeout: seconds per judge call (default 120).
        fail_on: ``invalid`` (default): incorrect when a step is invalid; ``uncertain``: also when
            a step is uncertain.
    """
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
    panels = _Panels(config_path=config, judges=judges, policy=policy, tau=tau, eps=eps, judge_timeout_s=judge_timeout)
    bad = {"invalid"} if fail_on == "invalid" else {"invalid", "uncertain"}

    async def score(state: TaskState, target: Target) -> Score:
        output = state.output.completion if state.output is not None else ""
        steps = tuple(split_steps(output or ""))
        if not steps:
            return Score.unscored(reason="no steps", explanation="the output has no steps to verify")
        targets = [t for t in target.target if t.strip()]
        reference = targets[0] if targets else None
        solution = Solution(str(state.sample_id), state.input_text, steps, reference)
        record = await anyio.to_thread.run_sync(panels.verify, solution)
        failed = [k for k, label in enumerate(record["step_labels"]) if label in bad]
        labels = record["step_labels"]
        return Score(
            value=INCORRECT if failed else CORRECT,
            answer=output_answer(output)[0],
            explanation=_explanation(record, failed, fail_on),
            metadata={
                "first_invalid_step": record["first_invalid_step_number"],
                "counts": {k: labels.count(k) for k in ("valid", "invalid", "uncertain")},
                "steps": _steps_metadata(record),
                "judges": record["judges"],
                "lambdas": record["lambdas"],
                "policy": record["policy"],
                "tau": record["tau"],
                "eps": record["eps"],
                "fail_on": fail_on,
            },
        )

    return score
