"""The view of an ``accord verify --out`` file: each solution with its steps coloured by label.

Valid steps are green, invalid red, uncertain yellow, steps that claim nothing grey; each step
names its role in the proof (given, definition, assumption, derived, lead-in, remark, conclusion);
hovering a step shows the rule's reason, and each step unfolds to its evidence and every judge's
score and reason. The annotated first wrong
step (when the input had an annotation) is outlined, and the solution says whether the prediction
matches it. Files written before the step text was recorded show the labels without the text.
Filters: solutions with an invalid step, with an uncertain step, whose prediction differs from
the annotation.
"""

from __future__ import annotations

from pathlib import Path

from accord.verify.view._page import badge, document, esc, filter_bar, flags, num, score_cell, search_attr, tex_html


def render_verify(path: Path, records: list[dict]) -> str:
    """The page of the records of one ``--out`` file (already read and checked)."""
    annotated = [r for r in records if isinstance(r.get("label"), int)]
    first = records[0]
    labels = [lab for r in records for lab in r.get("step_labels", [])]
    filters = [("invalid", "with an invalid step"), ("uncertain", "with an uncertain step")]
    if annotated:
        filters.append(("mismatch", "prediction differs from the annotation"))
    counts = {k: labels.count(k) for k in ("valid", "invalid", "uncertain", "no claim")}
    summary = [
        f'<section class="panel" id="summary"><h2>{len(records)} solutions, {len(labels)} steps</h2>',
        '<div class="legend">'
        + " ".join(badge(f"{k}: {v}", kind) for (k, v), kind in zip(counts.items(), ("ok", "bad", "warn", "none")))
        + "</div>",
        f"<p>rule {esc(first.get('policy'))} (τ {esc(first.get('tau'))}, ε {esc(first.get('eps'))}); judges "
        f"{esc(', '.join(map(str, first.get('judges', []))))}; "
        f"{sum(r.get('prediction', -1) >= 0 for r in records)} solutions with an invalid step</p>",
    ]
    if annotated:
        hits = sum(r.get("prediction") == r["label"] for r in annotated)
        summary.append(
            f"<p>prediction equals the annotated first wrong step on {hits} of {len(annotated)} annotated solutions</p>"
        )
    summary.append("</section>")
    body = [filter_bar(filters), "<main>", *summary, *(_solution(r) for r in records), "</main>"]
    return document(f"accord verify: {path.name}", f"{len(records)} solutions from {path}", "\n".join(body))


def _solution(rec: dict) -> str:
    steps = rec.get("steps", [])
    labels = rec.get("step_labels") or [s.get("label", "uncertain") for s in steps]
    pred = rec.get("prediction", -1)
    label = rec.get("label") if isinstance(rec.get("label"), int) else None
    marks = [badge(f"first invalid step: {pred + 1}" if pred >= 0 else "no invalid step", "bad" if pred >= 0 else "ok")]
    if label is not None:
        marks.append(
            badge(f"annotated first wrong step: {label + 1}" if label >= 0 else "annotated: no wrong step", "info")
        )
        marks.append(
            badge(
                "matches the annotation" if pred == label else "differs from the annotation",
                "ok" if pred == label else "bad",
            )
        )
    if rec.get("reference") is not None:
        marks.append(f"reference: <b>{tex_html(rec['reference'])}</b>")
    problem = rec.get("problem")
    mismatch = label is not None and pred != label
    out = [
        f'<section class="item problem" id="sol-{esc(rec.get("id"))}" '
        f"{flags(invalid='invalid' in labels, uncertain='uncertain' in labels, mismatch=mismatch)} "
        f"{search_attr(rec.get('id'), problem)}>",
        f"<h3>{esc(rec.get('id'))}</h3>",
        f'<div class="question">{tex_html(problem)}</div>'
        if problem
        else '<div class="question missing">(problem not recorded)</div>',
        "<div>" + " ".join(marks) + "</div>",
        '<ol class="steps">',
    ]
    judges = rec.get("judges", [])
    for k, step in enumerate(steps):
        lab = labels[k] if k < len(labels) else step.get("label", "uncertain")
        cls = esc(lab.replace(" ", "-")) + (" annotated" if label is not None and k == label else "")
        role = f'<span class="role">{esc(step["role"])}</span> ' if step.get("role") else ""
        text = step.get("text")
        shown = tex_html(text) if text is not None else '<span class="missing">(step text not recorded)</span>'
        out.append(
            f'<li class="{cls}" title="{esc(lab)}: {esc(step.get("reason", ""))}">{role}{shown}'
            f"<details><summary>{esc(lab)}"
            + (f" ({esc(step['uncertain_reason'])})" if step.get("uncertain_reason") else "")
            + f" · mean {num(step.get('mean'))} · dispersion {num(step.get('dispersion'))}"
            f"</summary>{_evidence(step, judges)}</details></li>"
        )
    out.append("</ol></section>")
    return "".join(out)


def _evidence(step: dict, judges: list[str]) -> str:
    """Every judge's score and reason, once; the rule's reason and evidence lines only where they
    say something the table does not (a line ``judge: reason`` is that judge's row)."""
    scores, reasons = step.get("scores") or {}, step.get("reasons") or {}
    shown = {f"{j}: {r}" for j, r in reasons.items() if r} | {r for r in reasons.values() if r}
    extra = [
        e
        for e in dict.fromkeys([step.get("reason"), *(step.get("evidence") or [])])
        if e and not all(part in shown for part in str(e).split("; "))
    ]  # "a: x; b: y" repeats the rows
    parts = ["<ul>" + "".join(f"<li>{tex_html(e)}</li>" for e in extra) + "</ul>"] if extra else []
    rows = "".join(
        f"<tr><td>{esc(j)}</td>{score_cell(scores.get(j), reasons.get(j))}"
        f"<td>{tex_html(reasons.get(j) or '')}</td></tr>"
        for j in judges or scores
    )
    parts.append(f"<table><tr><th>judge</th><th class='num'>score</th><th>reason</th></tr>{rows}</table>")
    return "".join(parts)
