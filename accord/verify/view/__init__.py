"""``accord view``: one self-contained HTML page of a run folder, a ``verify --out`` or a ``jury --out`` file,
or an index page of a folder of them (:func:`index_of`).

:func:`render` detects the kind and returns the page; :func:`serve` serves a page on loopback.
The page needs no server and no network: CSS and script are inline (see :mod:`.page`).
"""

from accord.verify.view._detect import detect_kind, index_of, is_run_folder, render
from accord.verify.view._jury_page import render_jury
from accord.verify.view._serve import serve
from accord.verify.view._verify_page import render_verify

__all__ = ["detect_kind", "index_of", "is_run_folder", "render", "render_jury", "render_verify", "serve"]
