"""PNG plots of a recorded run (matplotlib, Agg backend: no display needed).

- :func:`heatmap` — a grid of values (threshold and stubbornness sweeps), cells annotated, colours on a fixed scale;
- :func:`confidence_dispersion` — s̄* against Δ* for every candidate, coloured by whether its chain
  answered correctly, with the τ / ε lines and per-quadrant counts (the VERDICT paper's Figure 14);
- :func:`roc_plot` — ROC curves of Δ* and raw variance as predictors of a wrong answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from accord.verify.analysis._diagnostics import CORRECT_AT, CandidateTable, roc_auc, roc_curve  # noqa: E402


def _save(fig, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def heatmap(values: np.ndarray, rows: Sequence[str], cols: Sequence[str], path: Path, **kwargs) -> Path:
    """Writes :func:`heatmap_figure` to ``path`` (PNG)."""
    return _save(heatmap_figure(values, rows, cols, **kwargs), path)


def heatmap_figure(
    values: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    title: str,
    xlabel: str,
    ylabel: str,
    annotations: np.ndarray | None = None,
    cbar: str = "accuracy",
    scale: tuple[float, float] = (0.0, 1.0),
):
    """values[i, j] for row i, column j; NaN cells (nothing to show) are left blank.

    The colours span the fixed ``scale`` (all of [0, 1] for accuracies), not the values' own range:
    an auto-ranged scale would make 0.58 and 0.67 look as far apart as 0 and 1. The colour bar's
    label says the scale and the range the cells actually span.
    """
    v = np.asarray(values, dtype=float)
    fig, ax = plt.subplots(figsize=(1.1 + 0.75 * len(cols), 1.0 + 0.5 * len(rows)))
    im = ax.imshow(np.ma.masked_invalid(v), cmap="viridis", aspect="auto", vmin=scale[0], vmax=scale[1])
    if np.isfinite(v).any():
        cbar += f"\n(colours fixed on {scale[0]:g}–{scale[1]:g}; cells span {np.nanmin(v):.2f}–{np.nanmax(v):.2f})"
    ax.set_xticks(range(len(cols)), labels=list(cols), rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), labels=list(rows))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            text = annotations[i, j] if annotations is not None else ("" if np.isnan(v[i, j]) else f"{v[i, j]:.2f}")
            light = np.isfinite(v[i, j]) and im.norm(v[i, j]) > 0.6  # dark text on the bright end of viridis
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="black" if light else "white")
    fig.colorbar(im, ax=ax, label=cbar)
    return fig


def confidence_dispersion(table: CandidateTable, tau: float, eps: float, path: Path) -> Path:
    """Every candidate at (Δ*, s̄*): green if its chain's answer was correct, red otherwise."""
    ok = ~np.isnan(table.dispersion)
    good = (table.correct >= CORRECT_AT) & ok
    bad = (table.correct < CORRECT_AT) & ok
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.scatter(table.dispersion[good], table.mean[good], s=12, c="tab:green", alpha=0.6, label="correct chain")
    ax.scatter(table.dispersion[bad], table.mean[bad], s=12, c="tab:red", alpha=0.6, label="incorrect chain")
    ax.axhline(tau, ls="--", c="k", lw=0.8)
    ax.axvline(eps, ls="--", c="k", lw=0.8)
    hi = table.mean > tau
    lo = table.dispersion < eps
    xmax = max(float(np.nanmax(table.dispersion)) if ok.any() else eps, eps) * 1.05 + 1e-3
    for name, mask, (x, y) in (
        ("accept", hi & lo, (0.02, 0.97)),
        ("reject Δ*", hi & ~lo, (0.98, 0.97)),
        ("reject s̄*", ~hi & lo, (0.02, 0.03)),
        ("reject both", ~hi & ~lo, (0.98, 0.03)),
    ):
        mask = mask & ok
        rate = f"{(table.correct[mask] >= CORRECT_AT).mean():.0%}" if mask.any() else "–"
        ax.text(
            x,
            y,
            f"{name}: {int(mask.sum())} ({rate} correct)",
            transform=ax.transAxes,
            fontsize=8,
            ha="left" if x < 0.5 else "right",
            va="top" if y > 0.5 else "bottom",
        )
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("consensus dispersion Δ*")
    ax.set_ylabel("consensus mean s̄*")
    ax.set_title(f"Candidates of chain '{table.chain}' (τ = {tau:g}, ε = {eps:g})", fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=8)
    return _save(fig, path)


def roc_plot(tables: Sequence[CandidateTable], path: Path) -> Path:
    """ROC of Δ* (solid) and raw variance (dashed) predicting a wrong answer, one colour per table.

    A table whose chains were all right (or all wrong) has no ROC curve; it is named in the title.
    """
    fig, ax = plt.subplots(figsize=(4.8, 4.8))
    undefined = []
    for k, table in enumerate(tables):
        wrong = table.correct < CORRECT_AT
        colour = f"C{k}"
        if roc_auc(table.dispersion, wrong) is None:
            undefined.append(table.chain)
            continue
        for score, label, ls in ((table.dispersion, "Δ*", "-"), (table.raw_var, "raw variance", "--")):
            fpr, tpr = roc_curve(score, wrong)
            ax.plot(fpr, tpr, ls=ls, c=colour, label=f"{table.chain}: {label} (AUC {roc_auc(score, wrong):.3f})")
    ax.plot([0, 1], [0, 1], c="grey", lw=0.6)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate (wrong answer flagged)")
    title = "Predicting a wrong final answer from one candidate"
    if undefined:
        title += "\n(no curve for " + ", ".join(undefined) + ": every answer right or every answer wrong)"
    ax.set_title(title, fontsize=9)
    if len(undefined) < len(tables):
        ax.legend(loc="lower right", fontsize=7)
    return _save(fig, path)
