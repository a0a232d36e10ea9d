"""``accord view``: one self-contained HTML page of a run folder, a ``verify --out`` or a ``jury --out`` file.

:func:`render` detects the kind and returns the page; :func:`serve` serves a page on loopback.
The page needs no server and no network: CSS and script are inline (see :mod:`.page`).
"""

from accord.verify.view.detect import detect_kind, render
from accord.verify.view.serve import serve

__all__ = ["detect_kind", "render", "serve"]
