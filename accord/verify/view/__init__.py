"""``accord view``: one self-contained HTML page of a run folder, a ``verify --out`` or a ``jury --out`` file.

:func:`render` detects the kind and returns the page; :func:`serve` serves a page on loopback.
The page needs no server and no network: CSS and script are inline (see :mod:`.page`).
"""

from accord.verify.view._detect import detect_kind, render
from accord.verify.view._jury_page import render_jury
from accord.verify.view._serve import serve
from accord.verify.view._verify_page import render_verify

__all__ = ["detect_kind", "render", "render_jury", "render_verify", "serve"]
