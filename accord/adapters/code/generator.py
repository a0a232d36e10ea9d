"""Candidate programs from a causal LM: best-of-n whole-program mode, one step = one function.

With a chat model (``chat=True``, the default when the tokenizer has a chat template) the problem
is a chat request and the answer is started with a code fence: the model writes the whole function
(small instruct models do this far more reliably than continuing a bare signature) and the
candidate is the code up to the closing fence. Without a chat template the prompt itself is
continued after the body's first indentation and cut where the body ends (a line at column 0).
n candidates come from one batched, seeded ``generate`` call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from accord.adapters.llm import CausalLMGenerator, StopWhen, chat_prompt, model_lock
from accord.verify.protocols import StepContext


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

    def propose(self, ctx: StepContext, n: int, seed: int) -> list[str]:
        """n candidates from one batched, seeded generate call."""
        import torch
        from transformers import StoppingCriteriaList

        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        chat = self.uses_chat()
        enc = self.tokenizer(self.prompt(ctx), return_tensors="pt", add_special_tokens=False).to(self.lm.device)
        plen = enc["input_ids"].shape[1]
        kwargs = (
            dict(do_sample=True, temperature=self.temperature, top_p=self.top_p)
            if self.temperature > 0
            else dict(do_sample=False)
        )
        with model_lock(self.lm), torch.no_grad():
            torch.manual_seed(seed % (2**63))
            out = self.lm.generate(
                **enc,
                max_new_tokens=self.max_new_tokens,
                num_return_sequences=n,
                stopping_criteria=StoppingCriteriaList([StopWhen(self.tokenizer, plen, program_done(chat))]),
                pad_token_id=self.tokenizer.pad_token_id,
                **kwargs,
            )
        bodies, per = [], []
        pad = self.tokenizer.pad_token_id
        for row in out[:, plen:]:
            ids = row.tolist()
            while ids and ids[-1] == pad:
                ids.pop()
            text = self.tokenizer.decode(ids, skip_special_tokens=True)
            bodies.append(cut_fenced(text) if chat else cut_body(INDENT + text))
            per.append(max(1, len(ids)))
        self.last_stats = {"generated": sum(per), "prompt": plen * n, "per_candidate": per}
        return bodies

    def is_final(self, step: str) -> bool:
        """Whole-function mode: every body is a complete answer."""
        return True

