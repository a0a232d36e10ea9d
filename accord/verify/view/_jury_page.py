"""The view of an ``accord jury --out`` file: how well the jury did on the rows it did not see, as
pictures, then per problem the jury's answer, its agreement and confidence, abstentions, ties,
labels, and every member's answer coloured by its answer class.

Rows whose reference the jury read (``labeled``) are marked and never count towards its accuracy:
the jury is scored on rows with a reference it did not read, or, where every reference was a
label, on each labelled row as it answered without that label (``held_out``). On those rows the
page draws the reliability of its confidence, its risk against coverage and the accuracy of the
jury and of each member with 95% intervals. A member's cell is coloured by the answer class on its
row (the legend says so: colours group equal answers, they do not mean right or wrong; ✓ and ✗ do).
Files written before members' answers were recorded show the winning members only. Filters:
abstained, tied, split panels, labelled, wrong (when references were given).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from accord.verify.view._charts import interval_chart, reliability_chart, risk_coverage_chart, wilson
from accord.verify.view._page import badge, document, esc, filter_bar, flags, num, search_attr, tex_html

PALETTE = 6  # answer-class colours .k0 ... .k5 (neutral hues: none reads as right or wrong)


def scored_rows(records: list[dict]) -> tuple[list[dict], str, bool]:
    """The rows the jury is scored on, as ``{"correct", "confidence", "score", "member_correct"}``, a
    sentence naming them, and whether they are out-of-fold rows (see the module docstring)."""
    unseen = [r for r in records if "correct" in r and not r.get("labeled")]
    if unseen:
        rows = [
            {
                "correct": bool(r["correct"]),
                "confidence": r.get("confidence"),
                "score": r.get("score", r.get("agreement")),
                "answered": not r.get("abstained"),
                "member_correct": r.get("member_correct") or {},
            }
            for r in unseen
        ]
        labelled = sum(bool(r.get("labeled")) for r in records)
        what = f"the {len(rows)} rows whose reference the jury did not read" + (
            f" ({labelled} labelled rows left out)" if labelled else ""
        )
        return rows, what, False
    held = [r for r in records if isinstance(r.get("held_out"), dict) and "member_correct" in r]
    rows = [
        {
            "correct": bool(r["held_out"].get("correct")),
            "confidence": r["held_out"].get("confidence"),
            "score": r["held_out"].get("confidence"),
            "answered": r["held_out"].get("answer") is not None,
            "member_correct": r.get("member_correct") or {},
        }
        for r in held
    ]
    return rows, f"the {len(rows)} labelled rows, each as the jury answered without its label (out-of-fold)", True


def _charts(rows: list[dict], where: str, members: list[str]) -> str:
    """The pictures of how well the jury did on ``rows``."""
    from accord.consensus_core.jury import reliability_table

    if not rows:
        return ""
    figs = []
    with_conf = [r for r in rows if r["answered"] and r["confidence"] is not None]
    if with_conf:
        table = reliability_table([r["confidence"] for r in with_conf], [r["correct"] for r in with_conf])
        chart = reliability_chart(
            table["equal_count"]["table"], table["equal_width"]["ece"], table["equal_count"]["ece"], where
        )
        figs.append(chart.removesuffix("</figure>") + _reliability_table(table) + "</figure>")
    key = "confidence" if with_conf else "score"
    ranked = [r for r in rows if r["answered"] and r[key] is not None]
    if ranked:
        order = sorted(ranked, key=lambda r: -float(r[key]))
        wrong = np.cumsum([not r["correct"] for r in order])
        n = len(rows)
        points = [(k / n, wrong[k - 1] / k) for k in range(1, len(order) + 1)]
        figs.append(risk_coverage_chart(points, "calibrated confidence" if key == "confidence" else "the rule's score"))
    entries = []
    right = sum(r["correct"] for r in rows)
    entries.append(("jury", right / len(rows), *wilson(right, len(rows)), len(rows)))
    for m in members:
        hits = [r["member_correct"][m] for r in rows if m in r["member_correct"]]
        if hits:
            entries.append((m, sum(hits) / len(hits), *wilson(sum(hits), len(hits)), len(hits)))
    figs.append(interval_chart(entries, f"On {where}; a missing answer counts as wrong."))
    return (
        '<section class="panel" id="charts"><h2>How well, in pictures</h2><div class="charts">'
        + "".join(figs)
        + ("</div></section>")
    )


def _reliability_table(table: dict) -> str:
    """The numbers behind the diagram, folded: per bin of about equal rows its range, rows, mean
    confidence and share right."""
    rows = "".join(
        f"<tr><td>{b['low']:.2f}–{b['high']:.2f}</td><td class='num'>{b['rows']}</td>"
        f"<td class='num'>{b['confidence']:.3f}</td><td class='num'>{b['accuracy']:.3f}</td></tr>"
        for b in table["equal_count"]["table"]
    )
    return (
        '<details class="reliability-table"><summary>the table (bins of about equal rows)</summary>'
        "<table><tr><th>confidence</th><th class='num'>rows</th><th class='num'>mean confidence</th>"
        f"<th class='num'>share right</th></tr>{rows}</table></details>"
    )


def _legend(members: list[str]) -> str:
    swatches = "".join(f'<span class="swatch k{k}">{k}</span>' for k in range(PALETTE))
    return (
        '<div class="legend" id="class-legend"><b>Colours:</b> each member\'s cell is coloured by its answer class '
        f'on that row ({swatches}, <span class="swatch kx">none</span> no answer): cells of one colour gave '
        "equivalent answers; colours are per row and say nothing about right or wrong. "
        "<b>✓</b> / <b>✗</b>: the member was right / wrong (rows with a reference); bold: the jury's answer class; "
        + badge("label", "lab", "its reference taught the jury")
        + ": the jury read this row's reference, so the row is left out of its accuracy. "
        + "Members: "
        + ", ".join(esc(m) for m in members)
        + ".</div>"
    )


def render_jury(path: Path, records: list[dict]) -> str:
    """The page of the records of one jury ``--out`` file (already read and checked)."""
    members = list(dict.fromkeys(m for r in records for m in (r.get("answers") or {})))
    with_ref = [r for r in records if "correct" in r]
    abstained = sum(bool(r.get("abstained")) for r in records)
    labelled = sum(bool(r.get("labeled")) for r in records)
    filters = [("abstained", "abstained"), ("tie", "tied"), ("split", "panel split (answers in more than one class)")]
    if labelled:
        filters.append(("labelled", "labelled (the jury read its reference)"))
    if with_ref:
        filters.append(("wrong", "wrong or abstained"))
    lines = [
        f"{len(records)} problems, answered {len(records) - abstained}, abstained {abstained}, "
        f"ties {sum(bool(r.get('tie')) for r in records)}, labelled {labelled}"
    ]
    rows, where, _ = scored_rows(records)
    if rows:
        right = sum(r["correct"] for r in rows)
        lines.append(f"scored on {where}: the jury is right on {right} of {len(rows)} ({right / len(rows):.3f})")
        parts = []
        for m in members:
            hits = [r["member_correct"][m] for r in rows if m in r["member_correct"]]
            if hits:
                parts.append(f"{m} right on {sum(hits)} of {len(hits)} ({sum(hits) / len(hits):.3f})")
        if parts:
            lines.append("members on the same rows: " + "; ".join(parts))
    elif labelled:
        lines.append("every reference was a label and no row carries its out-of-fold result: nothing scores the jury")
    summary = (
        '<section class="panel" id="summary"><h2>Jury</h2>' + "".join(f"<p>{esc(x)}</p>" for x in lines) + "</section>"
    )
    head = (
        "<tr><th>id</th><th>answer</th><th>agreement</th><th class='num'>confidence</th><th>status</th>"
        + ("<th>reference</th>" if with_ref else "")
        + "".join(f"<th>{esc(m)}</th>" for m in members)
        + ("<th>winning members</th>" if not members else "")
        + "</tr>"
    )
    body = [
        filter_bar(filters),
        "<main>",
        summary,
        _charts(rows, where, members),
        '<section class="panel">',
        _legend(members),
        '<div class="wide"><table id="jury">',
        head,
        *(_row(r, members, bool(with_ref)) for r in records),
        "</table></div></section></main>",
    ]
    return document(f"accord jury: {path.name}", f"{len(records)} problems from {path}", "\n".join(body))


def class_shares(r: dict) -> dict[str, float]:
    """The share of the vote each answer class had: the record's ``shares`` when it has them, else
    the share of members in each class (``"none"``: members without an answer)."""
    if isinstance(r.get("shares"), dict) and r["shares"]:
        return {str(k): float(v) for k, v in r["shares"].items()}
    classes = r.get("classes") or {}
    if not classes:
        return {}
    counts: dict[str, int] = {}
    for c in classes.values():
        key = "none" if c is None else str(c)
        counts[key] = counts.get(key, 0) + 1
    return {k: v / len(classes) for k, v in counts.items()}


def _split(r: dict, shares: dict[str, float]) -> bool:
    """The panel split: members' answers fall into more than one class (agreement below 1 when the
    record has no classes; a rounding 0.99999999 is not a split)."""
    if shares:
        return sum(k != "none" for k in shares) > 1
    agreement = r.get("agreement")
    return isinstance(agreement, (int, float)) and agreement < 1 - 1e-6


def _swatch(k: str) -> str:
    return "kx" if k == "none" or not k.isdigit() else f"k{int(k) % PALETTE}"


def _bar(shares: dict[str, float], r: dict) -> str:
    """A 60-pixel bar cut into the classes' shares, coloured as the members' cells, the winning class first."""
    if not shares:
        agreement = r.get("agreement")
        width = int(round(60 * agreement)) if isinstance(agreement, (int, float)) else 0
        return f'<span class="agree" style="width: {width}px"></span>'
    winner = next((str((r.get("classes") or {}).get(m)) for m in (r.get("members") or [])), None)
    order = sorted(shares, key=lambda k: (k != winner, k == "none", -shares[k]))
    tip = ", ".join(f"class {k}: {shares[k]:.2f}" for k in order)
    segs = "".join(
        f'<span class="seg {_swatch(k)}" style="width: {max(1, round(60 * shares[k]))}px"></span>' for k in order
    )
    return f'<span class="shares" title="{esc(tip)}">{segs}</span>'


def _row(r: dict, members: list[str], with_ref: bool) -> str:
    agreement = r.get("agreement")
    status = []
    if r.get("labeled"):
        status.append(badge("label", "lab", "the jury read this row's reference: left out of its accuracy"))
    if r.get("abstained"):
        status.append(badge("abstained", "warn", r.get("reason")))
    if r.get("tie"):
        status.append(badge("tie", "warn"))
    if "correct" in r:
        status.append(badge("right", "ok") if r["correct"] else badge("wrong", "bad"))
    if r.get("reason"):
        status.append(f'<div class="why">{esc(r["reason"])}</div>')
    held = r.get("held_out")
    if isinstance(held, dict):
        status.append(
            f'<div class="why">without its label: '
            f"{tex_html(held['answer']) if held.get('answer') is not None else '–'} "
            f"({'right' if held.get('correct') else 'wrong'})</div>"
        )
    winners = list(r.get("members") or [])
    shares = class_shares(r)
    answer = r.get("answer")
    answer_cell = tex_html(answer) if answer is not None else "–"
    if winners:
        answer_cell += f'<div class="why">from {esc(", ".join(map(str, winners)))}</div>'
    pid = r.get("id")
    id_cell = esc(pid) + (f'<div class="why">{tex_html(r["problem"])}</div>' if r.get("problem") else "")
    cells = [
        f"<td>{id_cell}</td>",
        f"<td>{answer_cell}</td>",
        f'<td class="num">{_bar(shares, r)}{num(agreement, 2)}</td>',
        f'<td class="num">{num(r.get("confidence"), 2)}</td>',
        f"<td>{''.join(status)}</td>",
    ]
    if with_ref:
        cells.append(f"<td>{tex_html(r.get('reference', ''))}</td>")
    answers, classes = r.get("answers") or {}, r.get("classes") or {}
    for m in members:
        a, c = answers.get(m), classes.get(m)
        cls = "kx" if c is None else f"k{int(c) % PALETTE}"
        win = " win" if m in winners else ""
        right = (r.get("member_correct") or {}).get(m)
        tip = f"{m}: " + (f"class {c}" if c is not None else "no answer")
        mark = ""
        if right is not None:
            tip += "; right" if right else "; wrong"
            mark = '<span class="mark">✓</span>' if right else '<span class="mark">✗</span>'
        shown = tex_html(a) if a is not None else "–"
        cells.append(f'<td class="{cls}{win}" title="{esc(tip)}">{shown}{mark}</td>')
    if not members:
        cells.append(f"<td>{esc(', '.join(map(str, winners)))}</td>")
    attrs = flags(
        abstained=bool(r.get("abstained")),
        tie=bool(r.get("tie")),
        split=_split(r, shares),
        labelled=bool(r.get("labeled")),
        wrong="correct" in r and not r["correct"],
    )
    cls = "item abstained" if r.get("abstained") else "item"
    search = search_attr(pid, answer, r.get("reference"), r.get("problem"), r.get("reason"), " ".join(winners))
    return f'<tr class="{cls}" {attrs} {search}>' + "".join(cells) + "</tr>"
