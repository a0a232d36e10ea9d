"""The view of a run folder: the paired summary, then every problem with its chains side by side.

Per problem: the question (recorded by the ``task`` record; "(question not recorded)" for traces
older than it), the reference, each chain's answer, and per step every candidate with each judge's
raw score (a failed judge's reason on hover), the consensus mean s̄* and dispersion Δ*, whether it
was accepted, which one was chosen and whether the step fell back. The primary chain (VERDICT, or
the first verified one) is shown beside the unverified ``base`` chain; the others can be switched on.
Each candidate's s̄*, Δ* and acceptance come first in its row, so they stay in view however many
judges there are; the chains wrap under each other on a narrow page. The plots ``accord report``
writes into the folder (``roc.png``, ``confidence_dispersion.png``) are shown under the summary,
embedded, and linked. Filters: problems whose chains' answers differ, where a judge failed, where
the primary chain's answer is wrong.
"""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np

from accord.verify.analysis import (
    CORRECT_AT,
    ROC_FILE,
    SCATTER_FILE,
    StepRecord,
    TaskEnd,
    Trace,
    clean,
    missing_kinds,
    missing_reasons,
    paired_summary,
    primary_chain,
    read_summary,
    read_trace,
    resolve_trace,
)
from accord.verify.loop import BASE
from accord.verify.view._page import (
    badge,
    document,
    esc,
    filter_bar,
    flags,
    judge_header,
    num,
    score_cell,
    search_attr,
    tex_html,
)


def render_run(path: Path) -> str:
    """The page of a run folder (or of a bare trace file)."""
    trace_path = resolve_trace(path)
    trace = read_trace(trace_path)
    summary = read_summary(trace_path.parent) or {}
    chains = trace.chains()
    primary = primary_chain(trace)
    shown = {primary, BASE} if primary else set(chains)
    judges = trace.steps[0].judges if trace.steps else ()
    tasks = trace.tasks()
    steps_by: dict[tuple[str, str], list[StepRecord]] = {}
    for rec in trace.steps:
        steps_by.setdefault((rec.task_id, rec.chain), []).append(rec)
    ends = {(e.task_id, e.chain): e for e in trace.ends}

    body = [
        filter_bar(
            [
                ("disagree", "chains' answers differ"),
                ("failed", "a judge failed"),
                ("abstained", "a judge abstained"),
                ("wrong", f"wrong answer ({primary})" if primary else "wrong answer"),
            ],
            [(k, c, c in shown) for k, c in enumerate(chains)],
        ),
        "<main>",
        _summary_panel(trace, summary, chains, primary, judges),
        _plots_panel(trace_path.parent),
    ]
    for task_id in tasks:
        body.append(_problem(trace, task_id, chains, primary, steps_by, ends))
    if not tasks:
        body.append('<p class="missing">The trace has no step or task_end records yet.</p>')
    body.append("</main>")
    subtitle = f"{len(tasks)} problems · chains {', '.join(chains)} · judges {', '.join(judges)}" + (
        f" · {'; '.join(trace.notes)}" if trace.notes else ""
    )
    return document(f"accord run: {trace_path.parent.name}", subtitle, "\n".join(body))


def _summary_panel(trace: Trace, summary: dict, chains: list[str], primary: str | None, judges) -> str:
    acc = summary.get("accuracy") or {}
    ci = summary.get("accuracy_ci95") or {}
    rows = []
    for c in chains:
        mine = [e.correct for e in trace.ends if e.chain == c]
        a = acc.get(c, float(np.mean(mine)) if mine else None)
        lo_hi = ci.get(c)
        interval = f"[{lo_hi[0]:.3f}, {lo_hi[1]:.3f}]" if isinstance(lo_hi, list) and len(lo_hi) == 2 else "–"
        fallbacks = [r.fallback for r in trace.steps if r.chain == c]
        rows.append(
            f"<tr><td>{esc(c)}{' (primary)' if c == primary else ''}</td><td class='num'>{len(mine)}</td>"
            f"<td class='num'>{num(a)}</td><td class='num'>{interval}</td>"
            f"<td class='num'>{num(float(np.mean(fallbacks)) if fallbacks else None)}</td></tr>"
        )
    out = [
        '<section class="panel" id="summary"><h2>Accuracy per chain</h2>',
        "<table><tr><th>chain</th><th class='num'>problems</th><th class='num'>accuracy</th>"
        "<th class='num'>95% CI</th><th class='num'>fallback rate</th></tr>",
        *rows,
        "</table>",
    ]
    paired, source = summary.get("paired"), "summary.json"
    if not isinstance(paired, dict) and trace.steps and trace.ends:
        paired, source = clean(paired_summary(trace, n_boot=1000)), "computed from the trace (summary.json has none)"
    if isinstance(paired, dict) and paired.get("comparisons"):
        out.append(
            f"<h2>Paired comparisons ({esc(source)})</h2><table><tr><th>first</th><th>second</th><th>how</th>"
            "<th class='num'>pairs</th><th class='num'>first acc.</th><th class='num'>second acc.</th>"
            "<th class='num'>difference</th><th class='num'>95% CI</th><th class='num'>only first / only second "
            "right</th>"
            "<th class='num'>McNemar p</th></tr>"
        )
        for c in paired["comparisons"]:
            mc = c.get("mcnemar") or {}
            interval = c.get("ci")
            out.append(
                f"<tr><td>{esc(c.get('first'))}</td><td>{esc(c.get('second'))}</td><td>{esc(c.get('source'))}</td>"
                f"<td class='num'>{esc(c.get('n_pairs'))}</td><td class='num'>{num(c.get('accuracy_first'))}</td>"
                f"<td class='num'>{num(c.get('accuracy_second'))}</td><td class='num'>{num(c.get('difference'))}</td>"
                f"<td class='num'>{'–' if not interval else f'[{interval[0]:+.3f}, {interval[1]:+.3f}]'}</td>"
                f"<td class='num'>{esc(mc.get('only_first_correct', '–'))} / "
                f"{esc(mc.get('only_second_correct', '–'))}</td>"
                f"<td class='num'>{num(mc.get('p_value'))}</td></tr>"
            )
        out.append("</table>")
    out.append("</section>")
    return "\n".join(out)


PLOTS = (
    (
        SCATTER_FILE,
        "Consensus mean s̄* against dispersion Δ* for every candidate, coloured by whether its chain "
        "ended right; the dashed lines are τ and ε",
    ),
    (ROC_FILE, "ROC of Δ* and of the raw variance as predictors of a wrong answer (AUC in the legend)"),
)


def _plots_panel(folder: Path) -> str:
    """The run's plots (written by ``accord report`` into the folder), embedded so the page stays one
    file, each linked to its file; a note saying how to make them where there are none."""
    figs = []
    for name, caption in PLOTS:
        png = folder / name
        if not png.is_file():
            continue
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        figs.append(
            f'<figure id="plot-{esc(png.stem)}"><img class="plot" alt="{esc(caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{esc(caption)} · '
            f'<a href="{esc(png.resolve().as_uri())}">{esc(name)}</a></figcaption></figure>'
        )
    if not figs:
        return (
            '<section class="panel" id="plots"><p class="missing">No plots in this folder: '
            f"accord report {esc(folder)} writes {esc(SCATTER_FILE)} and {esc(ROC_FILE)}.</p></section>"
        )
    return '<section class="panel" id="plots"><h2>Plots</h2><div class="plots">' + "".join(figs) + "</div></section>"


def _answers_differ(task_ends: list[TaskEnd]) -> bool:
    answers = {(e.answer or "").strip() for e in task_ends}
    return len(answers) > 1 or len({e.correct >= CORRECT_AT for e in task_ends}) > 1


def _problem(
    trace: Trace,
    task_id: str,
    chains: list[str],
    primary: str | None,
    steps_by: dict[tuple[str, str], list[StepRecord]],
    ends: dict[tuple[str, str], TaskEnd],
) -> str:
    info = trace.problems.get(task_id)
    task_ends = [ends[(task_id, c)] for c in chains if (task_id, c) in ends]
    records = [r for c in chains for r in steps_by.get((task_id, c), [])]
    kinds = {k for r in records for row in missing_kinds(r.raw, r.failures, r.abstentions) for k in row}
    failed, abstained = "failed" in kinds, "abstained" in kinds
    main = ends.get((task_id, primary)) if primary else None
    wrong = main is not None and main.correct < CORRECT_AT
    reference = info.reference if info and info.reference is not None else next((e.reference for e in task_ends), "")
    head = [f"<h3>{esc(task_id)}</h3>"]
    if info and info.question:
        head.append(f'<div class="question">{tex_html(info.question)}</div>')
    else:
        head.append('<div class="question missing">(question not recorded)</div>')
    marks = [f"reference: <b>{tex_html(reference) or '–'}</b>"]
    for e in task_ends:
        kind = "ok" if e.correct >= CORRECT_AT else "bad"
        marks.append(
            badge(
                f"{e.chain}: {e.answer if e.answer is not None else 'no answer'}",
                kind,
                f"correct {e.correct:g}; stopped: {e.stopped}; {len(e.steps)} steps",
                tex=True,
            )
        )
    if failed:
        marks.append(badge("a judge failed", "bad", "some judge could not score some candidate (its reason on hover)"))
    if abstained:
        marks.append(badge("a judge abstained", "info", "some judge had nothing to check in some candidate"))
    head.append("<div>" + " ".join(marks) + "</div>")
    cols = [_chain_column(k, c, steps_by.get((task_id, c), []), ends.get((task_id, c))) for k, c in enumerate(chains)]
    attrs = flags(disagree=_answers_differ(task_ends), failed=failed, abstained=abstained, wrong=wrong)
    return (
        f'<section class="item problem" id="task-{esc(task_id)}" {attrs} '
        f"{search_attr(task_id, info.question if info else '')}>"
        + "".join(head)
        + '<div class="chains">'
        + "".join(cols)
        + "</div></section>"
    )


def _chain_column(k: int, chain: str, records: list[StepRecord], end: TaskEnd | None) -> str:
    title = esc(chain)
    if end is not None:
        title += " " + badge(
            "right" if end.correct >= CORRECT_AT else "wrong", "ok" if end.correct >= CORRECT_AT else "bad"
        )
        answer = tex_html(end.answer) if end.answer is not None else "none"
        title += f' <span class="missing">answer {answer}, stopped: {esc(end.stopped)}</span>'
    else:
        title += ' <span class="missing">(unfinished)</span>'
    out = [f'<div class="chain" data-col="{k}"><h4>{title}</h4>']
    for rec in sorted(records, key=lambda r: r.step):
        out.append(_step(rec))
    if not records:
        out.append('<p class="missing">no steps recorded</p>')
    out.append("</div>")
    return "".join(out)


def _step(rec: StepRecord) -> str:
    base = rec.chain == BASE or rec.policy.get("name") == BASE  # the unverified chain accepts nothing
    tags = [badge(f"step {rec.step + 1}", "info")]
    if base:
        pass
    elif rec.fallback:
        tags.append(badge("fallback", "warn", rec.note or "no candidate was accepted; the rule's best was taken"))
    elif rec.chosen >= 0 and rec.accepted[rec.chosen]:
        tags.append(badge("accepted", "ok"))
    if rec.final:
        tags.append(badge("final", "info"))
    head = "".join(judge_header(j) for j in rec.judges)
    rows = []
    kinds = missing_kinds(rec.raw, rec.failures, rec.abstentions)
    reasons = missing_reasons(rec.failures, rec.abstentions, len(rec.candidates), rec.m)
    for i, cand in enumerate(rec.candidates):
        why = reasons[i]
        cells = "".join(score_cell(float(rec.raw[i, j]), why[j], kinds[i][j]) for j in range(rec.m))
        mean = rec.mean[i] if rec.mean else None
        disp = rec.dispersion[i] if rec.dispersion else None
        cls = "chosen" if i == rec.chosen else ("other" if base else "accepted" if rec.accepted[i] else "rejected")
        mark = "▶" if i == rec.chosen else ""
        verdict = "" if base else f"<td>{'yes' if rec.accepted[i] else 'no'}</td>"
        rows.append(
            f'<tr class="{cls}"><td>{mark}{i}</td><td class="num">{num(mean)}</td><td class="num">{num(disp)}</td>'
            f'{verdict}<td class="cand">{tex_html(cand)}</td>{cells}</tr>'
        )
    acc = "" if base else "<th title='accepted by the rule of the chain'>accepted</th>"
    return (
        f'<div class="step">{"".join(tags)}<table class="cands"><tr><th>#</th>'
        f"<th class='num' title='consensus mean'>s̄*</th><th class='num' title='consensus dispersion'>Δ*</th>"
        f"{acc}<th>candidate</th>{head}</tr>{''.join(rows)}</table></div>"
    )


__all__ = ["render_run"]
