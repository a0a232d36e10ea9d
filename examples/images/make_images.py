"""Draws the example pictures of questions.jsonl (coloured shapes to count), deterministically.

Run: python examples/images/make_images.py  (rewrites the PNGs next to this file).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
COLOURS = {"red": (220, 40, 40), "blue": (40, 80, 220), "green": (40, 170, 70), "yellow": (235, 200, 30)}
SHAPES = ("circle", "square", "triangle")


def draw(shapes: list[tuple[str, str]], seed: int, size: int = 112) -> Image.Image:
    """A white picture with the given (colour, shape) pairs at non-overlapping grid cells."""
    rng = random.Random(seed)
    img = Image.new("RGB", (size, size), (255, 255, 255))
    d = ImageDraw.Draw(img)
    cell = size // 4
    cells = rng.sample([(x, y) for x in range(4) for y in range(4)], len(shapes))
    for (colour, shape), (cx, cy) in zip(shapes, cells):
        x0, y0 = cx * cell + 4, cy * cell + 4
        x1, y1 = x0 + cell - 8, y0 + cell - 8
        fill = COLOURS[colour]
        if shape == "circle":
            d.ellipse((x0, y0, x1, y1), fill=fill)
        elif shape == "square":
            d.rectangle((x0, y0, x1, y1), fill=fill)
        else:
            d.polygon([((x0 + x1) // 2, y0), (x0, y1), (x1, y1)], fill=fill)
    return img


def main() -> None:
    rng = random.Random(7)
    lines = []
    for i in range(6):
        colour, shape = rng.choice(sorted(COLOURS)), rng.choice(SHAPES)
        k = rng.randint(1, 4)
        others = [
            (rng.choice([c for c in COLOURS if c != colour]), rng.choice(SHAPES)) for _ in range(rng.randint(1, 3))
        ]
        name = f"shapes_{i}.png"
        draw([(colour, shape)] * k + others, seed=i).save(HERE / name, optimize=True)
        lines.append(
            {
                "id": f"shapes/{i}",
                "image": name,
                "question": f"How many {colour} {shape}s are in the image?",
                "answer": k,
            }
        )
    (HERE / "questions.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


if __name__ == "__main__":
    main()
