"""Every built-in generator type (see :mod:`accord.adapters._generators`): a factory each, importing
its generator's code inside itself. The generator registry imports this module on its first lookup;
nothing else does."""

from __future__ import annotations

from accord.adapters._generators import register_generator

_LOCAL = ("model", "temperature", "top_p", "max_new_tokens", "device", "dtype")


def _local(entry) -> dict:
    return {k: entry[k] for k in _LOCAL}


@register_generator("text")
def _text(entry):
    """A local causal language model proposing the next line of a solution (SmolLM2 by default)."""
    from accord.adapters.local import TransformersGenerator

    return TransformersGenerator(**_local(entry))


@register_generator("code", whole_program=True)
def _code(entry):
    """A local causal language model proposing a whole program (HumanEval's completions)."""
    from accord.adapters.code import CodeGenerator

    return CodeGenerator(**_local(entry))


@register_generator("vlm")
def _vlm(entry):
    """A local vision-language model proposing the next line about an image question."""
    from accord.adapters.local import VLMGenerator, shared_vlm

    vlm = shared_vlm(entry["model"], entry["device"], entry["dtype"])
    return VLMGenerator(
        vlm, temperature=entry["temperature"], top_p=entry["top_p"], max_new_tokens=entry["max_new_tokens"]
    )


@register_generator("served")
def _served(entry):
    """A chat model behind an OpenAI-compatible endpoint (the entry's ``base_url``, ``model``, ...)."""
    from accord.adapters.served import build_served_generator

    return build_served_generator(dict(entry))
