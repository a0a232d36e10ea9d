"""What a path is, and why an operation on it failed, in words a user can act on.

Every command's file checks start here: :func:`path_kind` stats a path once and turns the errors
the file system gives (a symlink loop, a component that is a file, a name too long, no permission)
into one :class:`UserError` naming the path. :func:`os_error` and :func:`failure` word an error
raised later (by a library writing a plot, by a read that hit bad bytes), so that the command line
prints one line for them too, whatever command raised them.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from accord.errors import UserError

MAX_JSON_DEPTH = 200  # nesting deeper than this in a user's JSON is refused: no input of accord needs it

_REASONS = {
    errno.ELOOP: "symlink loop (a link that points back to itself)",
    errno.ENOENT: "no such file or folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EISDIR: "is a folder, expected a file",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.ENAMETOOLONG: "file name too long",
    errno.EEXIST: "already exists",
    errno.ETXTBSY: "file busy",
}


def reason(exc: OSError) -> str:
    """An OSError's cause in a few words (the errno's, else its own message)."""
    return _REASONS.get(exc.errno, exc.strerror or type(exc).__name__)


def os_error(exc: OSError, what: str = "") -> UserError:
    """An OSError raised by any file operation as one UserError naming the path and the cause."""
    name = exc.filename if exc.filename is not None else "(file)"
    lead = f"{what} {name}" if what else f"{name}"
    return UserError(f"{lead}: {reason(exc)}")


def failure(exc: BaseException) -> UserError | None:
    """A file-system, decoding or nesting failure as one UserError; None for anything else (a bug)."""
    if isinstance(exc, UnicodeDecodeError):
        return UserError(f"input is not UTF-8 text (byte {exc.start}: {exc.object[exc.start : exc.start + 1]!r})")
    if isinstance(exc, RecursionError):
        return UserError("input nested too deeply")
    if isinstance(exc, OSError) and (exc.errno in _REASONS or exc.filename is not None):
        return os_error(exc)
    return None


def path_kind(path, flag: str = "") -> str:
    """'file', 'folder', 'other' or 'missing' for ``path``; a UserError when it cannot be looked at
    (a symlink loop, a part that is a file, a name too long, no permission)."""
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        if os.path.islink(p):
            raise UserError(f"{_lead(flag, p)}: a symlink to {os.readlink(p)!r}, which does not exist") from None
        return "missing"
    except OSError as exc:
        raise UserError(f"{_lead(flag, p)}: {reason(exc)}") from None
    except ValueError:  # an embedded NUL byte
        raise UserError(f"{_lead(flag, p)}: not a valid path (a NUL character)") from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    return "other"


def input_path(path, what: str = "file", folder: bool = False, flag: str = "") -> Path:
    """``path`` as an existing regular file (or, with ``folder``, a folder), or a UserError saying why not."""
    p = Path(path)
    kind = path_kind(p, flag)
    lead = _lead(flag, p)
    if kind == "missing":
        raise UserError(f"{lead}: no such file{' or folder' if folder else ''}")
    if kind == "folder" and not folder:
        raise UserError(f"{lead}: is a directory, expected a {what}")
    if kind == "other":
        raise UserError(f"{lead}: not a regular file, expected a {what}")
    return p


def same_file(a, b) -> bool:
    """Whether two paths name one file (through links, ``..`` and hard links); False if either is missing."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        try:
            return Path(a).resolve() == Path(b).resolve()
        except (OSError, RuntimeError, ValueError):
            return False


def refuse_overwriting_input(out, inputs, flag: str = "output") -> None:
    """A UserError when the output path ``out`` is one of the ``inputs`` (writing it would destroy them)."""
    for src in inputs:
        if src is not None and same_file(out, src):
            raise UserError(
                f"{flag} {out}: is the input file {src}; writing it would destroy the input (choose another path)"
            )


def check_depth(value, where: str, limit: int = MAX_JSON_DEPTH) -> None:
    """A UserError when a parsed JSON value nests deeper than ``limit`` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                raise UserError(f"{where}: JSON nested too deeply (more than {limit} levels)")
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


def _lead(flag: str, p: Path) -> str:
    return f"{flag} {p}" if flag else str(p)
