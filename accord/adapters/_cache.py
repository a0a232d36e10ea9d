"""A judge-call cache keyed by (judge, model, prompt), so re-runs and sweeps never pay twice.

Kept in memory, and optionally persisted as an append-only JSONL file (e.g. ``<run>/judge_cache.jsonl``):
each new score is one line written and flushed at once, so a crashed run keeps every score it
paid for and the next run starts from them. Keys are SHA-256 digests of the three parts; prompts
themselves are not stored. Callers put :func:`code_digest` into the settings part of a key for
judges whose verdicts come from accord's own code, so a newer accord never reuses an older one's
verdicts.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CACHE_ENV = "ACCORD_CACHE_DIR"


def user_cache_dir() -> Path:
    """Where accord keeps caches a user did not place: ``$ACCORD_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/accord``, else ``~/.cache/accord`` (never beside a user's outputs)."""
    folder = os.environ.get(CACHE_ENV)
    if not folder:
        folder = str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "accord")
    return Path(folder)


FORMAT = "accord-judge-cache/1"


@dataclass(frozen=True)
class CachedScore:
    """A score stored earlier: ``value`` in [0, 1], or None with the reason it could not be given."""

    value: float | None
    reason: str | None = None


def cache_key(judge: str, model: str, prompt: str) -> str:
    """The digest that identifies one judge call."""
    h = hashlib.sha256()
    for part in (judge, model, prompt):
        data = part.encode("utf-8")
        h.update(len(data).to_bytes(8, "little"))  # length-prefixed: no two splits collide
        h.update(data)
    return h.hexdigest()


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the judges' source (every module under ``accord/adapters``): it changes whenever
    a judge may score differently, so stored scores of another version are never hits."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


class JudgeCache:
    """Scores by (judge, model, prompt); ``path`` (optional) is the JSONL file that persists them."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self._data: dict[str, CachedScore] = {}
        self._lock = threading.Lock()
        self._fh = None
        self.hits = 0
        self.misses = 0
        self.skipped_lines = 0  # a last line cut short by a crash is skipped (and counted), never fatal
        if self.path is not None and self.path.exists():
            self._load(self.path)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: tuple[str, str, str]) -> bool:
        return cache_key(*key) in self._data

    def get(self, judge: str, model: str, prompt: str) -> CachedScore | None:
        """The stored score, or None when this call was never made."""
        with self._lock:
            hit = self._data.get(cache_key(judge, model, prompt))
            if hit is None:
                self.misses += 1
            else:
                self.hits += 1
            return hit

    def put(self, judge: str, model: str, prompt: str, value: float | None, reason: str | None = None) -> None:
        """Stores one score (and appends it to the file, when there is one)."""
        if value is not None:
            value = float(value)
            if math.isnan(value) or not (0.0 <= value <= 1.0):
                raise ValueError(f"cached judge score must be in [0, 1] or None, got {value!r}")
        key = cache_key(judge, model, prompt)
        record = CachedScore(value, reason)
        with self._lock:
            if self._data.get(key) == record:
                return
            self._data[key] = record
            if self.path is not None:
                if self._fh is None:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    new = not self.path.exists() or self.path.stat().st_size == 0
                    self._fh = open(self.path, "a", encoding="utf-8")
                    if new:
                        self._fh.write(json.dumps({"format": FORMAT}) + "\n")
                line = {"k": key, "judge": judge, "model": model, "v": value}
                if reason is not None:
                    line["r"] = reason
                self._fh.write(json.dumps(line) + "\n")
                self._fh.flush()

    def stats(self) -> dict[str, int]:
        return {
            "entries": len(self._data),
            "hits": self.hits,
            "misses": self.misses,
            "skipped_lines": self.skipped_lines,
        }

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _load(self, path: Path) -> None:
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for no, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                rec = json.loads(text)
                if "format" in rec:
                    if rec["format"] != FORMAT:
                        raise ValueError(f"unknown format {rec['format']!r} (expected {FORMAT!r})")
                    continue
                key, value = rec["k"], rec["v"]
                if not isinstance(key, str) or len(key) != 64:
                    raise ValueError("key 'k' must be a 64-character hex digest")
                if value is not None and not (isinstance(value, (int, float)) and 0.0 <= value <= 1.0):
                    raise ValueError(f"score 'v' must be in [0, 1] or null, got {value!r}")
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                if no == len(lines) and not text.endswith("}"):
                    self.skipped_lines += 1  # cut short by a crash while writing
                    continue
                raise ValueError(f"{path}:{no}: bad judge-cache line: {exc}") from None
            self._data[key] = CachedScore(None if value is None else float(value), rec.get("r"))
        if self.skipped_lines:
            # Rewrite without the torn line so new appends start on a clean line.
            good = [t for t in lines[:-1]]
            path.write_text("".join(t + "\n" for t in good), encoding="utf-8")
