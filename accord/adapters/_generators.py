"""The generator registry: every generator ``type`` a run config can name, with its factory.

A generator type is one decorated factory::

    @register_generator("text")
    def _text(entry):                 # its docstring is what `accord list generators` shows
        return TransformersGenerator(**entry)

The factory gets the config's ``generator`` entry (its keys as written, the defaults filled in,
``type`` taken out) and returns an object with the :class:`accord.protocols.Generator` contract.
``whole_program`` says that every candidate it proposes is a whole answer (a program), so a chain
ends after one step; ``options`` names the entry keys a type takes beyond the local generator's.

Which type a run takes: the entry's ``type``, else ``served`` when it has a ``base_url``, else the
type its task source names (:func:`accord.verify.tasks.register_task`'s ``generator``). The built-in
types live in :mod:`accord.adapters.builtin_generators`, imported on the first lookup; an installed
package adds its own through the ``accord.generators`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from accord.registry import Registry, first_paragraph


@dataclass(frozen=True)
class GeneratorType:
    name: str
    factory: Callable[[Mapping[str, Any]], Any]
    whole_program: bool = False
    options: tuple[str, ...] = ()


def _describe(gt: GeneratorType) -> tuple[str, dict[str, Any]]:
    extra = {k: None for k in gt.options}
    return first_paragraph(gt.factory), {"whole_program": gt.whole_program, **extra}


GENERATORS: Registry[GeneratorType] = Registry(
    "generator type", "accord.generators", builtins=("accord.adapters.builtin_generators",), describe=_describe
)


def register_generator(name: str, *, whole_program: bool = False, options: tuple[str, ...] = ()):
    """Registers a factory ``(entry) -> Generator`` for generator ``type: name`` (see the module docstring)."""
    return GENERATORS.register(name, lambda factory: GeneratorType(name, factory, whole_program, tuple(options)))


def generator_type(name: str) -> GeneratorType:
    """The registered type ``name`` (an installed plugin's too); a ValueError listing the known ones otherwise."""
    return GENERATORS.get(name)
