"""On-disk cache of served calls, keyed by (endpoint, model, messages, parameters).

A response is stored once it arrived whole; failed calls are never stored, so a later run asks
again. The file is SQLite (one row per call): several processes may share it, and a crash never
leaves a half-written entry. Keys are SHA-256 digests of the canonical JSON of the request; the
API key is not part of a request and is never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from accord.adapters._cache import user_cache_dir

CACHE_FILE = "served-calls.sqlite"


def default_cache_path() -> Path:
    """The served-call cache in the user cache folder (:func:`accord.adapters.user_cache_dir`)."""
    return user_cache_dir() / CACHE_FILE


def request_key(endpoint: str, model: str, messages: list[dict], params: dict[str, Any]) -> str:
    """The digest that identifies one request (same request, same key, in any process)."""
    text = json.dumps([endpoint, model, messages, params], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CallCache:
    """Responses (JSON-able dicts) by request key, in a SQLite file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS calls (key TEXT PRIMARY KEY, response TEXT NOT NULL)")

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT response FROM calls WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, response: dict[str, Any]) -> None:
        text = json.dumps(response, ensure_ascii=False)
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO calls (key, response) VALUES (?, ?)", (key, text))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


_OPEN: dict[tuple[int, Path], CallCache] = {}
_OPEN_LOCK = threading.Lock()


def shared_cache(path: str | Path | None = None) -> CallCache:
    """One open cache per file in a process (every judge and generator naming it shares it; a forked
    child opens its own connection)."""
    p = Path(path).expanduser().resolve() if path is not None else default_cache_path().resolve()
    key = (os.getpid(), p)
    with _OPEN_LOCK:
        if key not in _OPEN:
            _OPEN[key] = CallCache(p)
        return _OPEN[key]
