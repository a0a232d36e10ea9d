"""Thread-safe ``ast.parse`` / ``ast.literal_eval``.

CPython 3.11 keeps the AST converter's recursion depth in shared state, so two threads building
ASTs at once can fail with "SystemError: AST constructor recursion depth mismatch". The code
judges run in parallel threads (panel judges, sandbox workers), so every parse goes through here.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.RLock()


def parse(source: str, mode: str = "exec") -> ast.AST:
    with _LOCK:
        return ast.parse(source, mode=mode)


def literal_eval(node_or_text: Any) -> Any:
    with _LOCK:
        return ast.literal_eval(node_or_text)
