"""Candidate programs from a causal LM: best-of-n whole-program mode, one step = one function.

With a chat model (``chat=True``, the default when the tokenizer has a chat template) the problem
is a chat request and the answer is started with a code fence: the model writes the whole function
(small instruct models do this far more reliably than continuing a bare signature) and the
candidate is the code up to the closing fence. Without a chat template the prompt itself is
continued after the body's first indentation and cut where the body ends (a line at column 0).
n candidates are sampled together from one computation of the prompt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from accord.adapters.local import CausalLMGenerator, chat_prompt
from accord.protocols import StepContext

INDENT = "    "


def cut_body(text: str) -> str:
    """The function body at the start of ``text``: up to the first non-blank line at column 0."""
    lines = text.split("\n")
    out = []
    for line in lines:
        if line.strip() and not line[:1].isspace():
            break
        out.append(line)
    body = "\n".join(out).rstrip()
    return body + "\n" if body.strip() else ""


FENCE = "```"


def cut_fenced(text: str) -> str:
    """The code before the closing fence (all of ``text`` if the model never closed it)."""
    code = text.split(FENCE, 1)[0].rstrip()
    return code + "\n" if code.strip() else ""


def program_done(chat: bool) -> Callable[[str], bool]:
    """When a candidate program is complete: the closing fence (chat) or a line at column 0."""
    if chat:
        return lambda text: FENCE in text
    return lambda text: cut_body(INDENT + text).rstrip() != (INDENT + text).rstrip()


@dataclass
class CodeGenerator(CausalLMGenerator):
    """Proposes whole functions (chat) or bodies (plain) with a causal LM: "smollm2", a name or a path."""

    model: str = "smollm2"
    temperature: float = 0.8
    top_p: float = 0.95
    max_new_tokens: int = 160
    device: str = "cpu"
    dtype: str = "float32"
    chat: bool | None = None  # None: use the chat template when the tokenizer has one
    system_prompt: str = "You are an expert Python programmer. You write correct, complete code."
    instruction: str = "Complete this Python function:"

    def uses_chat(self) -> bool:
        return self.chat if self.chat is not None else bool(getattr(self.tokenizer, "chat_template", None))

    def prompt(self, ctx: StepContext) -> str:
        """The text the model continues (see the module docstring for the two modes)."""
        code = ctx.question + "".join(ctx.steps)
        if self.uses_chat():
            user = f"{self.instruction}\n\n{FENCE}python\n{code.rstrip()}\n{FENCE}"
            return chat_prompt(self.tokenizer, self.system_prompt, user, f"{FENCE}python\n")
        if not code.endswith("\n"):
            code += "\n"
        return code + INDENT  # the body's first indentation: the model writes a statement next

    def propose(self, ctx: StepContext, n: int, seed: int, first: int = 0) -> list[str]:
        """Candidates ``first`` .. ``first + n - 1``, sampled together from one computation of the prompt."""
        chat = self.uses_chat()
        rows = self.sample(self.prompt(ctx), n, seed, program_done(chat), first)
        texts = [self.tokenizer.decode(ids, skip_special_tokens=True) for ids in rows]
        return [cut_fenced(t) if chat else cut_body(INDENT + t) for t in texts]

    def is_final(self, step: str) -> bool:
        """Whole-function mode: every body is a complete answer."""
        return True
