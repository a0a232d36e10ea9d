"""The view of an ``accord jury --out`` file: per problem the jury's answer, its agreement,
abstentions and ties, and every member's answer coloured by its answer class (members of the
winning class in bold). Files written before members' answers were recorded show the winning
members only. Filters: abstained, tied, wrong (when references were given), split panels.
"""

from __future__ import annotations

from pathlib import Path

from accord.verify.view._page import badge, document, esc, filter_bar, flags, num, search_attr


def render_jury(path: Path, records: list[dict]) -> str:
    """The page of the records of one jury ``--out`` file (already read and checked)."""
    members = list(dict.fromkeys(m for r in records for m in (r.get("answers") or {})))
    labelled = [r for r in records if "correct" in r]
    abstained = sum(bool(r.get("abstained")) for r in records)
    filters = [("abstained", "abstained"), ("tie", "tied"), ("split", "panel split (agreement < 1)")]
    if labelled:
        filters.append(("wrong", "wrong or abstained"))
    lines = [f"{len(records)} problems, answered {len(records) - abstained}, abstained {abstained}, "
             f"ties {sum(bool(r.get('tie')) for r in records)}"]
    if labelled:
        right = sum(bool(r["correct"]) for r in labelled)
        lines.append(f"jury right on {right} of {len(labelled)} problems with a reference ({right / len(labelled):.3f})")
        for m in members:
            hits = [r["member_correct"][m] for r in labelled if m in (r.get("member_correct") or {})]
            if hits:
                lines.append(f"{m}: right on {sum(hits)} of {len(hits)} ({sum(hits) / len(hits):.3f})")
    summary = ('<section class="panel" id="summary"><h2>Jury</h2>' + "".join(f"<p>{esc(x)}</p>" for x in lines)
               + "</section>")
    head = "<tr><th>id</th><th>answer</th><th>agreement</th><th>status</th>" + (
        "<th>reference</th>" if labelled else "") + "".join(f"<th>{esc(m)}</th>" for m in members) + (
        "<th>winning members</th>" if not members else "") + "</tr>"
    rows = [_row(r, members, bool(labelled)) for r in records]
    body = [filter_bar(filters), "<main>", summary, '<section class="panel"><table id="jury">', head, *rows,
            "</table></section></main>"]
    return document(f"accord jury: {path.name}", f"{len(records)} problems from {path}", "\n".join(body))


def _row(r: dict, members: list[str], labelled: bool) -> str:
    agreement = r.get("agreement")
    status = []
    if r.get("abstained"):
        status.append(badge("abstained", "warn"))
    if r.get("tie"):
        status.append(badge("tie", "warn"))
    if "correct" in r:
        status.append(badge("right", "ok") if r["correct"] else badge("wrong", "bad"))
    width = int(round(60 * agreement)) if isinstance(agreement, (int, float)) else 0
    winners = set(r.get("members") or [])
    cells = [f"<td>{esc(r.get('id'))}</td>", f"<td>{esc(r.get('answer')) if r.get('answer') is not None else '–'}</td>",
             f'<td class="num"><span class="agree" style="width: {width}px"></span>{num(agreement, 2)}</td>',
             f"<td>{''.join(status)}</td>"]
    if labelled:
        cells.append(f"<td>{esc(r.get('reference', ''))}</td>")
    answers, classes = r.get("answers") or {}, r.get("classes") or {}
    for m in members:
        a, c = answers.get(m), classes.get(m)
        cls = "cx" if c is None else f"c{int(c) % 6}"
        win = " win" if m in winners else ""
        right = (r.get("member_correct") or {}).get(m)
        tip = f"class {c}" if c is not None else "no answer"
        if right is not None:
            tip += "; right" if right else "; wrong"
        cells.append(f'<td class="{cls}{win}" title="{esc(tip)}">{esc(a) if a is not None else "–"}</td>')
    if not members:
        cells.append(f"<td>{esc(', '.join(map(str, winners)))}</td>")
    attrs = flags(abstained=bool(r.get("abstained")), tie=bool(r.get("tie")),
                  split=isinstance(agreement, (int, float)) and agreement < 1, wrong="correct" in r and not r["correct"])
    cls = "item abstained" if r.get("abstained") else "item"
    return f'<tr class="{cls}" {attrs} {search_attr(r.get("id"), r.get("answer"))}>' + "".join(cells) + "</tr>"
