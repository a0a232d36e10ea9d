"""Small charts drawn as inline SVG: nothing to fetch, nothing to run, text the page's search can read.

Each chart is a function of plain numbers that returns one ``<figure>`` with its SVG and a caption
saying what is drawn and what the marks and colours mean (the legend is part of the figure, never a
colour left to guess). Axes run from 0 to 1 on both sides; every user-supplied label goes through
:func:`esc`.

- :func:`reliability_chart` — share right against mean confidence per bin, the diagonal where the
  two agree, each bin's dot sized by its rows;
- :func:`risk_coverage_chart` — the error among the answered rows when only the most confident
  ones are answered, against the share answered, with the target error as a line where one is given;
- :func:`interval_chart` — one horizontal bar per entry with its 95% interval.
"""

from __future__ import annotations

import math

from accord.verify.view._page import esc

W, H = 340, 250  # the plot's size in pixels, axes included
LEFT, RIGHT, TOP, BOTTOM = 46, 12, 12, 40
SERIES = "#1e64b4"  # one blue for measured points: no colour reads as right or wrong
GUIDE = "#9e9e9e"
TARGET = "#c77700"


def _x(v: float) -> float:
    return LEFT + v * (W - LEFT - RIGHT)


def _y(v: float) -> float:
    return H - BOTTOM - v * (H - TOP - BOTTOM)


def _axes(x_label: str, y_label: str) -> list[str]:
    out = [
        f'<line x1="{LEFT}" y1="{_y(0)}" x2="{W - RIGHT}" y2="{_y(0)}" stroke="#444"/>',
        f'<line x1="{LEFT}" y1="{_y(0)}" x2="{LEFT}" y2="{TOP}" stroke="#444"/>',
    ]
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<line x1="{_x(t):.1f}" y1="{_y(0)}" x2="{_x(t):.1f}" y2="{_y(0) + 4}" stroke="#444"/>')
        out.append(f'<text x="{_x(t):.1f}" y="{_y(0) + 15}" font-size="10" text-anchor="middle">{t:g}</text>')
        out.append(f'<line x1="{LEFT - 4}" y1="{_y(t):.1f}" x2="{LEFT}" y2="{_y(t):.1f}" stroke="#444"/>')
        out.append(f'<text x="{LEFT - 7}" y="{_y(t) + 3:.1f}" font-size="10" text-anchor="end">{t:g}</text>')
    out.append(
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 6}" font-size="11" text-anchor="middle">{esc(x_label)}</text>'
    )
    out.append(
        f'<text x="12" y="{(TOP + H - BOTTOM) / 2}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 12 {(TOP + H - BOTTOM) / 2})">{esc(y_label)}</text>'
    )
    return out


def _figure(fig_id: str, title: str, svg: list[str], caption: str, height: int = H) -> str:
    return (
        f'<figure class="chart" id="{esc(fig_id)}"><figcaption><b>{esc(title)}</b></figcaption>'
        f'<svg viewBox="0 0 {W} {height}" width="{W}" height="{height}" role="img" aria-label="{esc(title)}">'
        + "".join(svg)
        + f'</svg><figcaption class="legend">{caption}</figcaption></figure>'
    )


def reliability_chart(bins: list[dict], ece_width: float | None, ece_count: float | None, rows_note: str) -> str:
    """``bins``: dicts with ``confidence``, ``accuracy`` and ``rows`` (a reliability table's bins)."""
    svg = _axes("mean confidence in the bin", "share right")
    svg.append(f'<line x1="{_x(0)}" y1="{_y(0)}" x2="{_x(1)}" y2="{_y(1)}" stroke="{GUIDE}" stroke-dasharray="4 3"/>')
    biggest = max((b["rows"] for b in bins), default=1)
    pts = sorted(bins, key=lambda b: b["confidence"])
    if len(pts) > 1:
        path = " ".join(f"{_x(b['confidence']):.1f},{_y(b['accuracy']):.1f}" for b in pts)
        svg.append(f'<polyline points="{path}" fill="none" stroke="{SERIES}" stroke-width="1.2"/>')
    for b in pts:
        r = 2.5 + 4.5 * math.sqrt(b["rows"] / biggest)
        tip = f"confidence {b['confidence']:.3f}, right {b['accuracy']:.3f}, {b['rows']} rows"
        svg.append(
            f'<circle class="point" cx="{_x(b["confidence"]):.1f}" cy="{_y(b["accuracy"]):.1f}" r="{r:.1f}" '
            f'fill="{SERIES}" fill-opacity="0.75"><title>{esc(tip)}</title></circle>'
        )
    errors = []
    if ece_count is not None:
        errors.append(f"ECE {ece_count:.3f} over bins of equal rows")
    if ece_width is not None:
        errors.append(f"{ece_width:.3f} over equal-width bins")
    caption = (
        f'<span style="color:{SERIES}">●</span> one bin of about equal rows (dot area: its rows); '
        f'<span style="color:{GUIDE}">- -</span> where confidence and the share right agree. '
        f"Measured on {esc(rows_note)}" + (f"; {esc(', '.join(errors))}." if errors else ".")
    )
    return _figure("reliability", "Reliability: is a confidence of 0.8 right 80% of the time?", svg, caption)


def risk_coverage_chart(points: list[tuple[float, float]], by: str, alpha: float | None = None) -> str:
    """``points``: (share answered, error among the answered) when the most confident rows are answered first."""
    svg = _axes("share of rows answered (most confident first)", "error among the answered")
    if alpha is not None:
        svg.append(
            f'<line x1="{_x(0)}" y1="{_y(alpha):.1f}" x2="{_x(1)}" y2="{_y(alpha):.1f}" stroke="{TARGET}" '
            'stroke-dasharray="5 3"/>'
        )
    if points:
        path = " ".join(f"{_x(c):.1f},{_y(e):.1f}" for c, e in points)
        svg.append(f'<polyline class="curve" points="{path}" fill="none" stroke="{SERIES}" stroke-width="1.8"/>')
    caption = (
        f'<span style="color:{SERIES}">—</span> error among the rows answered when only the most confident are '
        f"answered (ordered by {esc(by)})"
        + (f'; <span style="color:{TARGET}">- -</span> the error allowed by --risk ({alpha:g})' if alpha else "")
        + ". Lower is better at every coverage."
    )
    return _figure("risk-coverage", "Risk and coverage: how few errors if it answers less?", svg, caption)


def interval_chart(entries: list[tuple[str, float, float, float, int]], what: str) -> str:
    """``entries``: (name, accuracy, low, high, rows) per bar, drawn in the order given."""
    row_h, label_w = 22, 150
    height = TOP + row_h * max(len(entries), 1) + 34
    span = W - label_w - RIGHT

    def x(v: float) -> float:
        return label_w + v * span

    svg = [f'<line x1="{label_w}" y1="{TOP}" x2="{label_w}" y2="{height - 30}" stroke="#444"/>']
    for t in (0, 0.25, 0.5, 0.75, 1.0):
        svg.append(f'<line x1="{x(t):.1f}" y1="{height - 30}" x2="{x(t):.1f}" y2="{height - 26}" stroke="#444"/>')
        svg.append(f'<text x="{x(t):.1f}" y="{height - 15}" font-size="10" text-anchor="middle">{t:g}</text>')
    for k, (name, acc, lo, hi, rows) in enumerate(entries):
        y = TOP + row_h * k + row_h / 2
        short = name if len(name) <= 22 else name[:21] + "…"
        svg.append(f'<text x="{label_w - 6}" y="{y + 4}" font-size="11" text-anchor="end">{esc(short)}</text>')
        tip = f"{name}: {acc:.3f} [{lo:.3f}, {hi:.3f}], {rows} rows"
        svg.append(
            f'<g class="bar"><title>{esc(tip)}</title>'
            f'<rect x="{label_w}" y="{y - 6}" width="{max(acc * span, 0.5):.1f}" height="12" fill="{SERIES}" '
            'fill-opacity="0.35"/>'
            f'<line x1="{x(lo):.1f}" y1="{y}" x2="{x(hi):.1f}" y2="{y}" stroke="#222" stroke-width="1.5"/>'
            f'<line x1="{x(lo):.1f}" y1="{y - 5}" x2="{x(lo):.1f}" y2="{y + 5}" stroke="#222"/>'
            f'<line x1="{x(hi):.1f}" y1="{y - 5}" x2="{x(hi):.1f}" y2="{y + 5}" stroke="#222"/>'
            f'<circle cx="{x(acc):.1f}" cy="{y}" r="3" fill="#222"/></g>'
        )
    caption = f"bar and dot: accuracy; whisker: its 95% interval (Wilson). {esc(what)}"
    return _figure("accuracy-intervals", "Accuracy of the jury and of each member", svg, caption, height)


def wilson(right: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95% interval of a share right (the whole [0, 1] for no rows)."""
    if n <= 0:
        return 0.0, 1.0
    p = right / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


__all__ = ["interval_chart", "reliability_chart", "risk_coverage_chart", "wilson"]
