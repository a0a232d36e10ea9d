"""Package exports that load on first use, the one way a package defers its heavy modules.

A package whose API includes code too heavy to import with it (sympy, pyarrow, math-verify) names,
for each such export, the module of the package that defines it, and reads it only when the name
is first used::

    __getattr__ = lazy_exports(__name__, {"TextTask": "_text", "load_humaneval": "_humaneval"})

``tests/test_architecture.py`` reads these mappings as imports, so the import contracts hold for
them too. This module imports nothing else of accord (the consensus core may use it).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """The module-level ``__getattr__`` of ``package``: ``exports`` maps each deferred name to the
    package's module that defines it (``"_text"``); a name read once is kept in the package."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
