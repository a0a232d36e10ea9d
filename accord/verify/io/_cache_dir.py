"""Where accord keeps caches a user did not place: the user cache folder, never beside their outputs.

``$ACCORD_CACHE_DIR``, else ``$XDG_CACHE_HOME/accord``, else ``~/.cache/accord``
(:func:`accord.adapters.user_cache_dir`; the served-call cache lives there too). A cache for an
output file is named after the file and a digest of its absolute path, so re-running with the same
``--out`` finds its cache and two outputs never share one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from accord.adapters import CACHE_ENV, user_cache_dir


def cache_for_output(out: Path, kind: str) -> Path:
    """The cache file of ``kind`` (e.g. ``verify``) for the output file ``out``, in the user cache folder."""
    digest = hashlib.sha256(str(Path(out).resolve()).encode("utf-8")).hexdigest()[:16]
    folder = user_cache_dir() / kind
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{Path(out).name}-{digest}.cache"


__all__ = ["cache_for_output", "CACHE_ENV", "user_cache_dir"]
