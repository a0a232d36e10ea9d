"""The view of an ``accord jury --out`` file: per problem the jury's answer, its agreement,
abstentions and ties, and every member's answer coloured by its answer class (members of the
winning class in bold). Files written before members' answers were recorded show the winning
members only. Filters: abstained, tied, wrong (when references were given), split panels.
"""

from __future__ import annotations

from pathlib import Path

from accord.verify.view._page import badge, document, esc, filter_bar, flags, num, search_attr, tex_html


def render_jury(path: Path, records: list[dict]) -> str:
    """The page of the records of one jury ``--out`` file (already read and checked)."""
    members = list(dict.fromkeys(m for r in records for m in (r.get("answers") or {})))
    labelled = [r for r in records if "correct" in r]
    abstained = sum(bool(r.get("abstained")) for r in records)
    filters = [("abstained", "abstained"), ("tie", "tied"), ("split", "panel split (answers in more than one class)")]
    if labelled:
        filters.append(("wrong", "wrong or abstained"))
    lines = [
        f"{len(records)} problems, answered {len(records) - abstained}, abstained {abstained}, "
        f"ties {sum(bool(r.get('tie')) for r in records)}"
    ]
    if labelled:
        right = sum(bool(r["correct"]) for r in labelled)
        lines.append(
            f"jury right on {right} of {len(labelled)} problems with a reference ({right / len(labelled):.3f})"
        )
        for m in members:
            hits = [r["member_correct"][m] for r in labelled if m in (r.get("member_correct") or {})]
            if hits:
                lines.append(f"{m}: right on {sum(hits)} of {len(hits)} ({sum(hits) / len(hits):.3f})")
    summary = (
        '<section class="panel" id="summary"><h2>Jury</h2>' + "".join(f"<p>{esc(x)}</p>" for x in lines) + "</section>"
    )
    head = (
        "<tr><th>id</th><th>answer</th><th>agreement</th><th>status</th>"
        + ("<th>reference</th>" if labelled else "")
        + "".join(f"<th>{esc(m)}</th>" for m in members)
        + ("<th>winning members</th>" if not members else "")
        + "</tr>"
    )
    rows = [_row(r, members, bool(labelled)) for r in records]
    body = [
        filter_bar(filters),
        "<main>",
        summary,
        '<section class="panel"><table id="jury">',
        head,
        *rows,
        "</table></section></main>",
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
        f'<span class="seg {"cx" if k == "none" or not k.isdigit() else f"c{int(k) % 6}"}" '
        f'style="width: {max(1, round(60 * shares[k]))}px"></span>'
        for k in order
    )
    return f'<span class="shares" title="{esc(tip)}">{segs}</span>'


def _row(r: dict, members: list[str], labelled: bool) -> str:
    agreement = r.get("agreement")
    status = []
    if r.get("abstained"):
        status.append(badge("abstained", "warn"))
    if r.get("tie"):
        status.append(badge("tie", "warn"))
    if "correct" in r:
        status.append(badge("right", "ok") if r["correct"] else badge("wrong", "bad"))
    winners = set(r.get("members") or [])
    shares = class_shares(r)
    cells = [
        f"<td>{esc(r.get('id'))}</td>",
        f"<td>{tex_html(r.get('answer')) if r.get('answer') is not None else '–'}</td>",
        f'<td class="num">{_bar(shares, r)}{num(agreement, 2)}</td>',
        f"<td>{''.join(status)}</td>",
    ]
    if labelled:
        cells.append(f"<td>{tex_html(r.get('reference', ''))}</td>")
    answers, classes = r.get("answers") or {}, r.get("classes") or {}
    for m in members:
        a, c = answers.get(m), classes.get(m)
        cls = "cx" if c is None else f"c{int(c) % 6}"
        win = " win" if m in winners else ""
        right = (r.get("member_correct") or {}).get(m)
        tip = f"class {c}" if c is not None else "no answer"
        if right is not None:
            tip += "; right" if right else "; wrong"
        cells.append(f'<td class="{cls}{win}" title="{esc(tip)}">{tex_html(a) if a is not None else "–"}</td>')
    if not members:
        cells.append(f"<td>{esc(', '.join(map(str, winners)))}</td>")
    attrs = flags(
        abstained=bool(r.get("abstained")),
        tie=bool(r.get("tie")),
        split=_split(r, shares),
        wrong="correct" in r and not r["correct"],
    )
    cls = "item abstained" if r.get("abstained") else "item"
    return f'<tr class="{cls}" {attrs} {search_attr(r.get("id"), r.get("answer"))}>' + "".join(cells) + "</tr>"
