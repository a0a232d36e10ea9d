"""The index page of a folder of results: one row per run, verify or jury output, sortable, linking
to each one's page; two rows ticked are compared side by side (their figures, the settings that
differ, and the paired difference on the tasks they share).

Two results share a task only when it has the same id *and* the same question (or input) in both:
a task id reused for another question (two runs of a generated task set with other seeds, say) is
counted, named with both questions, and left out of the pairing; an id whose question one of them
did not record is paired by id and counted as unchecked. Two results with no task in common get one
sentence saying so, not a table of empty rows. Accuracy and F1 have a column each, so that sorting
never ranks one against the other.

The rows are HTML; the comparison is drawn by the page's script from a JSON block (a
``<script type="application/json">``, which a browser never runs) with each result's figures,
settings and per-task outcomes. The script writes user text with ``textContent`` only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from accord.verify.view._page import document, esc, filter_bar, flags, num
from accord.verify.view._results import Result

INDEX_SCRIPT = """
(function () {
  var table = document.getElementById('results');
  if (!table) { return; }
  var data = JSON.parse(document.getElementById('data').textContent);
  var body = table.tBodies[0];
  Array.prototype.forEach.call(table.querySelectorAll('th[data-sort]'), function (th, col) {
    th.addEventListener('click', function () {
      var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
      var up = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(table.querySelectorAll('th[data-sort]'), function (o) {
        o.removeAttribute('aria-sort');
      });
      th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
      var rows = Array.prototype.slice.call(body.rows);
      var numeric = th.dataset.sort === 'num';
      rows.sort(function (a, b) {
        var x = a.cells[idx].dataset.v, y = b.cells[idx].dataset.v;
        if (numeric) {
          x = x === '' ? -Infinity : parseFloat(x); y = y === '' ? -Infinity : parseFloat(y);
          return up ? x - y : y - x;
        }
        return up ? x.localeCompare(y) : y.localeCompare(x);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  var picked = [];
  var panel = document.getElementById('compare');
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = text; }
    if (cls) { e.className = cls; }
    return e;
  }
  function fmt(x, signed) {
    if (x === null || x === undefined || isNaN(x)) { return '–'; }
    return (signed && x >= 0 ? '+' : '') + x.toFixed(3);
  }
  function tableOf(head, rows, id, text) {
    var t = el('table'); t.id = id;
    var tr = el('tr'); head.forEach(function (h) { tr.appendChild(el('th', h)); }); t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (c, i) { row.appendChild(el('td', c, !text && i > 0 ? 'num' : '')); });
      t.appendChild(row);
    });
    return t;
  }
  function same(a, b, k) {
    var qa = a.questions[k], qb = b.questions[k];
    return qa === undefined || qb === undefined ? 'unchecked' : (qa === qb ? 'same' : 'differ');
  }
  function paired(a, b) {
    var out = [];
    Object.keys(a.outcomes).forEach(function (m) {
      if (!(m in b.outcomes)) { return; }
      var ids = Object.keys(a.outcomes[m]).filter(function (k) {
        return k in b.outcomes[m] && same(a, b, k) !== 'differ';
      });
      var n = ids.length;
      if (!n) { return; }
      var d = ids.map(function (k) { return b.outcomes[m][k] - a.outcomes[m][k]; });
      var mean = d.reduce(function (s, x) { return s + x; }, 0) / n;
      var sa = ids.reduce(function (s, k) { return s + a.outcomes[m][k]; }, 0) / n;
      var sd = n > 1 ? Math.sqrt(d.reduce(function (s, x) { return s + (x - mean) * (x - mean); }, 0) / (n - 1)) : NaN;
      var half = 1.96 * sd / Math.sqrt(n);
      var onlyA = d.filter(function (x) { return x < 0; }).length;
      var onlyB = d.filter(function (x) { return x > 0; }).length;
      var lo = fmt(Math.max(-1, mean - half), true), hi = fmt(Math.min(1, mean + half), true);
      out.push([m, String(n), fmt(sa), fmt(sa + mean), fmt(mean, true),
                isNaN(half) ? '–' : '[' + lo + ', ' + hi + ']',
                onlyA + ' / ' + onlyB]);
    });
    return out;
  }
  function taskIds(r) {
    var ids = {};
    Object.keys(r.outcomes).forEach(function (m) { Object.keys(r.outcomes[m]).forEach(function (k) { ids[k] = 1; }); });
    Object.keys(r.questions).forEach(function (k) { ids[k] = 1; });
    return ids;
  }
  function matching(a, b) {
    var ia = taskIds(a), ib = taskIds(b), out = {same: [], differ: [], unchecked: []};
    Object.keys(ia).forEach(function (k) { if (k in ib) { out[same(a, b, k)].push(k); } });
    return out;
  }
  function draw() {
    while (panel.firstChild) { panel.removeChild(panel.firstChild); }
    if (picked.length < 2) {
      var hint = picked.length ? 'Tick one more result to compare.' : 'Tick two results to compare them.';
      panel.appendChild(el('p', hint, 'missing'));
      return;
    }
    var a = data[picked[0]], b = data[picked[1]];
    panel.appendChild(el('h2', 'A: ' + a.name + '   ·   B: ' + b.name));
    var keys = Object.keys(a.figures).concat(Object.keys(b.figures).filter(function (k) { return !(k in a.figures); }));
    panel.appendChild(el('h3', 'Figures'));
    panel.appendChild(tableOf(['figure', 'A', 'B', 'B − A'], keys.map(function (k) {
      var x = a.figures[k], y = b.figures[k];
      var both = x !== undefined && y !== undefined && x !== null && y !== null;
      return [k, fmt(x), fmt(y), both ? fmt(y - x, true) : '–'];
    }), 'compare-figures'));
    var match = matching(a, b);
    var rows = paired(a, b);
    panel.appendChild(el('h3', 'Paired difference on the tasks both have: the same id and the same question '
                               + '(1 = right; 95% normal interval, clipped to [−1, 1])'));
    var shared = match.same.length + match.unchecked.length;
    var line = shared + ' task' + (shared === 1 ? '' : 's') + ' in common';
    if (match.unchecked.length) {
      line += ' (' + match.unchecked.length + ' paired by id only: the question was not recorded in both)';
    }
    if (match.differ.length) {
      line += '; ' + match.differ.length + ' id' + (match.differ.length === 1 ? '' : 's')
            + ' in both ask a different question and are left out';
    }
    panel.appendChild(el('p', line + '.', 'pairing'));
    if (match.differ.length) {
      var list = el('ul'); list.id = 'compare-differ';
      match.differ.slice(0, 10).forEach(function (k) {
        list.appendChild(el('li', k + ': A asks “' + (a.snippets[k] || '?') + '”, B asks “'
                                  + (b.snippets[k] || '?') + '”'));
      });
      if (match.differ.length > 10) { list.appendChild(el('li', '… and ' + (match.differ.length - 10) + ' more')); }
      panel.appendChild(list);
    }
    if (rows.length) {
      var head = ['measure', 'shared tasks', 'A', 'B', 'B − A', '95% interval', 'only A / only B right'];
      panel.appendChild(tableOf(head, rows, 'compare-paired'));
    } else {
      var why = !shared
        ? (match.differ.length ? 'every id they share asks a different question'
                               : 'no task id is in both')
        : 'no measure is in both (or neither has references)';
      panel.appendChild(el('p', 'A and B have nothing to pair: ' + why + '.', 'missing nothing'));
    }
    var extraB = Object.keys(b.settings).filter(function (k) { return !(k in a.settings); });
    var skeys = Object.keys(a.settings).concat(extraB);
    var diff = skeys.filter(function (k) { return a.settings[k] !== b.settings[k]; });
    panel.appendChild(el('h3', 'Settings that differ (' + diff.length + ' of ' + skeys.length + ')'));
    panel.appendChild(tableOf(['setting', 'A', 'B'], diff.map(function (k) {
      return [k, k in a.settings ? a.settings[k] : '(not set)', k in b.settings ? b.settings[k] : '(not set)'];
    }), 'compare-settings', true));
  }
  Array.prototype.forEach.call(document.querySelectorAll('input.pick'), function (box) {
    box.addEventListener('change', function () {
      var i = parseInt(box.dataset.i, 10);
      picked = picked.filter(function (p) { return p !== i; });
      if (box.checked) { picked.push(i); }
      while (picked.length > 2) {
        var old = picked.shift();
        document.querySelector('input.pick[data-i="' + old + '"]').checked = false;
      }
      draw();
    });
  });
  draw();
})();
"""


def _rel(target: Path, folder: Path) -> str:
    return Path(os.path.relpath(target, folder)).as_posix()


def _cell(text: str, value, cls: str = "") -> str:
    v = "" if value is None else value
    attr = f' class="{cls}"' if cls else ""
    return f'<td{attr} data-v="{esc(v)}">{text}</td>'


def _figures_text(r: Result) -> str:
    return " · ".join(f"{k} {num(v)}" for k, v in r.figures.items())


def _settings_text(r: Result) -> str:
    main = ("name", "model", "tau", "eps", "policy", "judges", "members", "seed")
    keep = [k for k in r.settings if k.split(".")[-1] in main or k in ("run.lambdas",)]
    return "; ".join(f"{k}={r.settings[k]}" for k in keep[:8])


def render_index(folder: Path, results: list[Result], pages: list[Path], out: Path, notes: list[str]) -> str:
    """The index of ``results`` (their pages at ``pages``), for a page written at ``out``."""
    here = out.parent
    rows, data = [], []
    for i, (r, page) in enumerate(zip(results, pages)):
        name = _rel(r.path, folder)
        rows.append(
            f'<tr class="item" id="result-{i}" '
            f"{flags(run=r.kind == 'run', verify=r.kind == 'verify', jury=r.kind == 'jury')} "
            f'data-search="{esc(name.lower())}">'
            f'<td><input type="checkbox" class="pick" data-i="{i}" aria-label="compare {esc(name)}"></td>'
            + _cell(esc(r.kind), r.kind)
            + _cell(f'<a href="{esc(_rel(page, here))}">{esc(name)}</a>', name)
            + _cell(esc(r.date), r.date)
            + _cell(esc(r.task), r.task)
            + _cell(str(r.problems), r.problems, "num")
            + _cell(num(r.accuracy), r.accuracy, "num")
            + _cell(num(r.f1), r.f1, "num")
            + _cell(esc(_figures_text(r)), _figures_text(r))
            + _cell(esc(_settings_text(r)), _settings_text(r))
            + "</tr>"
        )
        data.append(
            {
                "name": name,
                "kind": r.kind,
                "figures": r.figures,
                "settings": r.settings,
                "outcomes": r.outcomes,
                "questions": r.questions,
                "snippets": r.snippets,
            }
        )
    head = (
        "<thead><tr><th title='tick two to compare'>compare</th><th data-sort='text'>kind</th>"
        "<th data-sort='text'>result</th><th data-sort='text'>date</th><th data-sort='text'>task</th>"
        "<th data-sort='num' class='num'>problems</th>"
        "<th data-sort='num' class='num' title='share right: the primary chain (runs), the jury (jury outputs)'>"
        "accuracy</th>"
        "<th data-sort='num' class='num' title='F1 on the first wrong step (annotated verify outputs)'>F1</th>"
        "<th data-sort='text' title='accuracy per chain (runs), F1 (verify), accuracy per member (jury)'>figures</th>"
        "<th data-sort='text'>settings</th></tr></thead>"
    )
    blob = json.dumps(data).replace("<", "\\u003c")
    body = [
        filter_bar([("run", "runs"), ("verify", "verify outputs"), ("jury", "jury outputs")]),
        "<main>",
        *(f'<p class="missing">{esc(n)}</p>' for n in notes),
        '<section class="panel"><h2>Results (click a column to sort)</h2>',
        f'<div class="wide"><table id="results">{head}<tbody>{"".join(rows)}</tbody></table></div></section>',
        '<section class="panel" id="compare"></section>',
        "</main>",
        f'<script type="application/json" id="data">{blob}</script>',
    ]
    subtitle = f"{len(results)} results under {folder}"
    return document(f"accord results: {folder.resolve().name}", subtitle, "\n".join(body), extra_script=INDEX_SCRIPT)


__all__ = ["render_index"]
