"""Image questions: one JSON object per line, referencing an image file.

Each line: ``{"image": "path.png" | ["a.png", "b.png"], "question": str, "answer": str|number,
"id": str (optional), "steps": [str] (optional), "metadata": {} (optional)}``. Image paths are
relative to the JSONL file's folder (or absolute); every image must exist and open as an image
when the file is loaded, so a run never fails halfway on a missing picture. The images are given
to generators and judges as ``StepContext.attachments`` (paths, opened by the VLM adapter).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from accord.errors import UserError
from accord.protocols import StepContext
from accord.verify.tasks._jsonl import question_lines
from accord.verify.tasks._registry import register_task
from accord.verify.tasks._text import TextTask

_KNOWN = {"id", "image", "question", "answer", "steps", "metadata"}


@dataclass
class ImageTask(TextTask):
    """A :class:`TextTask` whose context carries image attachments."""

    images: tuple[str, ...] = ()

    def context(self) -> StepContext:
        return StepContext(
            self.question,
            attachments=self.images,
            reference=self.reference,
            metadata={"task_id": self.id, **self.metadata},
        )


def _image_paths(value, base: Path, where: str) -> tuple[str, ...]:
    from PIL import Image

    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(x, str) and x.strip() for x in items):
        raise UserError(f"{where}: 'image' must be a file path or a non-empty list of file paths")
    out = []
    for item in items:
        path = Path(item) if Path(item).is_absolute() else base / item
        if not path.is_file():
            raise UserError(f"{where}: image file {path} does not exist")
        try:
            with Image.open(path) as img:
                img.verify()
        except Exception as exc:
            raise UserError(f"{where}: {path} is not a readable image ({exc})") from None
        out.append(str(path))
    return tuple(out)


def read_image_tasks(path: Path, limit: int | None = None) -> list[ImageTask]:
    """The tasks of an image-question JSONL file; a bad line is a UserError naming ``file:line``."""
    tasks: list[ImageTask] = []
    for where, obj, fields in question_lines(path, _KNOWN, required=("image",)):
        tasks.append(ImageTask(**fields, images=_image_paths(obj["image"], path.parent, where)))
        if limit is not None and len(tasks) >= limit:
            break
    if not tasks:
        raise UserError(f"{path}: no questions in the file")
    return tasks


@register_task("images", generator="vlm")
def image_tasks(path: str, limit: int | None = None) -> list[ImageTask]:
    """The image questions of a JSONL file (the first ``limit`` of them, if given)."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    return read_image_tasks(Path(path), limit)
