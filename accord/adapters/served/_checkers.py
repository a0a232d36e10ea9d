"""Two served judges that reason about a step rather than grade it: a code check and a critic.

``{type: code_check, base_url: ..., model: ...}``: the model writes a short Python program that
checks the step's claim (given the problem and the steps before it) and prints PASS or FAIL;
accord runs it in its sandbox (:class:`accord.adapters.code.Sandbox`: private filesystem, no network,
CPU/memory/time limits; the standard library only — no project or virtual-environment packages
are visible there). PASS scores 1, FAIL 0; a reply without a program, a program that fails to
load, raises, runs out of time or prints no verdict is a null score with the reason. The program
(and the tail of its output) is the evidence, kept in the score's reason.

``{type: critic, base_url: ..., model: ...}``: ProcessBench's prompt on the problem and the
solution up to the step (paragraphs indexed from 0): the model names the earliest wrong paragraph
(-1 if none) in ``\\boxed{}``. The step scores 0 when it is the one named, 1 when none is, and null
when an earlier step is named (this one builds on an error and is not judged by itself) or the
reply names no index.

Entry keys: the endpoint's (``base_url``, ``model``, ``api_key_env``, ``max_concurrency``,
``timeout_s``, ``max_retries``, ``cache``), ``name``, ``max_tokens``; code_check also ``wall_s``
(the program's time limit).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from accord.adapters.served._client import Reply, ServedClient
from accord.adapters.served._runner import run
from accord.protocols import JudgeScore, StepContext

CHECKER_KINDS = ("code_check", "critic")
EVIDENCE_CHARS = 4000
_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)(?:```|$)", re.DOTALL | re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{\s*(-?\d+)\s*\}")
_LAST_INT = re.compile(r"(-?\d+)\s*\.?\s*$")

CODE_SYSTEM = (
    "You check one step of a math solution by writing a short Python program. Use only the Python "
    "standard library (fractions, math, itertools). The program must compute what the step claims "
    "and print PASS if the claim is right, FAIL if it is wrong, as its last line."
)
CRITIC_SYSTEM = "You are a careful grader of math solutions."


def _paragraphs(steps: Sequence[str]) -> str:
    return "\n".join(f"<paragraph_{i}>\n{s}\n</paragraph_{i}>" for i, s in enumerate(steps))


def code_messages(ctx: StepContext, step: str) -> list[dict[str, str]]:
    before = "\n".join(f"{i}. {s}" for i, s in enumerate(ctx.steps)) or "(none)"
    user = (
        f"Problem:\n{ctx.question}\n\nEarlier steps:\n{before}\n\nStep to check:\n{step}\n\n"
        "Write a Python program (in a ```python block) that checks this step's claim and prints PASS or FAIL."
    )
    return [{"role": "system", "content": CODE_SYSTEM}, {"role": "user", "content": user}]


def critic_messages(ctx: StepContext, step: str) -> list[dict[str, str]]:
    user = (
        "The following is a math problem and a solution (split into paragraphs, enclosed with tags and indexed "
        f"from 0):\n\n[Math Problem]\n\n{ctx.question}\n\n[Solution]\n\n{_paragraphs([*ctx.steps, step])}\n\n"
        "Your task is to review and critique the solution paragraph by paragraph. Once you identify an error in "
        "a paragraph, return the index of the paragraph where the earliest error occurs. Otherwise, return the "
        'index of -1 (which typically denotes "not found").\n\n'
        "Please put your final answer (i.e., the index) in \\boxed{}."
    )
    return [{"role": "system", "content": CRITIC_SYSTEM}, {"role": "user", "content": user}]


def program_of(text: str) -> str | None:
    """The Python program in a reply: its first fenced block, else the whole reply if it prints."""
    m = _FENCE.search(text)
    if m and m.group(1).strip():
        return m.group(1).strip() + "\n"
    if "print(" in text and "```" not in text:
        return text.strip() + "\n"
    return None


def verdict_of_output(output: str) -> str | None:
    """PASS or FAIL: the last line the program printed that says one of them."""
    for line in reversed(output.strip().splitlines()):
        word = line.strip().strip(".!").upper()
        if word in ("PASS", "FAIL"):
            return word
    return None


def step_index(text: str) -> int | None:
    """The paragraph index a critic's reply names: the last ``\\boxed{n}``, else a closing integer."""
    boxed = _BOXED.findall(text)
    if boxed:
        return int(boxed[-1])
    m = _LAST_INT.search(text.strip())
    return int(m.group(1)) if m else None


def _reply_text(reply: Reply) -> tuple[str | None, str | None]:
    """(text, error) of a reply."""
    if reply.error is not None:
        return None, f"served call failed: {reply.error}"
    if not reply.choices:
        return None, "served judge: the reply has no choices"
    return ((reply.choices[0].get("message") or {}).get("content")) or "", None


class _ServedChecker:
    """One served column; every candidate of a step is asked at once."""

    kind = ""

    def __init__(self, endpoint, name: str, max_tokens: int):
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be an integer >= 1, got {max_tokens!r}")
        if not isinstance(name, str) or not name:
            raise ValueError(f"name must be a non-empty string, got {name!r}")
        self.client = ServedClient(endpoint)
        self.name = name
        self.params = {"temperature": 0.0, "max_tokens": max_tokens, "seed": 0}
        self.last_tokens = 0

    def messages(self, ctx: StepContext, candidate: str) -> list[dict[str, str]]:
        raise NotImplementedError

    def judge(self, ctx: StepContext, text: str) -> JudgeScore:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        return {"type": self.kind, "max_tokens": self.params["max_tokens"], **self.client.endpoint.describe()}

    def score(self, ctx: StepContext, candidates: Sequence[str]) -> list[JudgeScore]:
        async def ask_all():
            return await asyncio.gather(*(self.client.chat(self.messages(ctx, c), self.params) for c in candidates))

        out, tokens = [], 0
        for reply in run(ask_all()):
            text, error = _reply_text(reply)
            score = JudgeScore.failed(error) if error else self.judge(ctx, text)
            self.client.record(reply, "judge", self.name)
            tokens += 0 if reply.cached else int(reply.usage.get("prompt_tokens", 0) or 0)
            out.append(score)
        self.last_tokens = tokens
        return out


class CodeCheckJudge(_ServedChecker):
    """The model writes a check of the step; the sandbox runs it: PASS 1, FAIL 0, else null."""

    kind = "code_check"

    def __init__(self, endpoint, name: str = "code_check", max_tokens: int = 512, wall_s: float = 10.0):
        super().__init__(endpoint, name, max_tokens)
        if isinstance(wall_s, bool) or not isinstance(wall_s, (int, float)) or not wall_s > 0:
            raise ValueError(f"wall_s must be a number > 0, got {wall_s!r}")
        self.wall_s = float(wall_s)
        self._sandbox = None

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "wall_s": self.wall_s}

    @property
    def sandbox(self):
        if self._sandbox is None:
            from accord.adapters.code import Limits, Sandbox

            self._sandbox = Sandbox(Limits(wall_s=self.wall_s, item_s=self.wall_s, cpu_s=max(1, int(self.wall_s))))
        return self._sandbox

    def messages(self, ctx: StepContext, candidate: str) -> list[dict[str, str]]:
        return code_messages(ctx, candidate)

    def judge(self, ctx: StepContext, text: str) -> JudgeScore:
        program = program_of(text)
        if program is None:
            return JudgeScore.failed(f"code check: no program in the reply {text[:120]!r}")
        res = self.sandbox.run(program, [])
        evidence = f"program:\n{program[:EVIDENCE_CHARS]}\noutput: {res.output[-400:]!r}"
        if not res.loaded:
            return JudgeScore.failed(f"code check: the program did not run ({res.reason}); {evidence}")
        verdict = verdict_of_output(res.output)
        if verdict is None:
            return JudgeScore.failed(f"code check: the program printed no PASS or FAIL; {evidence}")
        return JudgeScore(1.0 if verdict == "PASS" else 0.0, f"code check: the program printed {verdict}; {evidence}")


class CriticJudge(_ServedChecker):
    """ProcessBench's earliest-wrong-paragraph question on the solution up to the step."""

    kind = "critic"

    def __init__(self, endpoint, name: str = "critic", max_tokens: int = 1024):
        super().__init__(endpoint, name, max_tokens)

    def messages(self, ctx: StepContext, candidate: str) -> list[dict[str, str]]:
        return critic_messages(ctx, candidate)

    def judge(self, ctx: StepContext, text: str) -> JudgeScore:
        k = len(ctx.steps)
        idx = step_index(text)
        if idx is None or idx < -1 or idx > k:
            return JudgeScore.failed(f"critic: no paragraph index in [-1, {k}] in the reply {text[-160:]!r}")
        if idx == -1:
            return JudgeScore(1.0, "critic: no paragraph is wrong")
        if idx == k:
            return JudgeScore(0.0, f"critic: paragraph {k} (this step) is the earliest wrong one: {text[-300:]}")
        return JudgeScore.failed(f"critic: paragraph {idx}, before this step, is the earliest wrong one")
