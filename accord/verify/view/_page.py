"""The one HTML page every kind of view is laid out in: inline CSS and JS, nothing fetched.

Every piece of user text (questions, steps, answers, judge reasons, ids) goes through :func:`esc`
before it reaches the page, and the page's Content-Security-Policy allows no network access and
runs only the page's own script (by its hash), so a question holding HTML or a script shows as text.

Math in user text is marked by :func:`tex_html` and typeset by the KaTeX inlined into every page
(script, stylesheet and fonts, so the page still opens offline). The script also does two things: filters (checkboxes
``data-filter="flag"`` keep the ``.item`` elements
whose ``data-flag`` is ``"1"``; a search box matches ``data-search``, the item's text and every text it shows on
hover) and chain columns (checkboxes
``data-chain="k"`` show or hide the elements with ``data-col="k"``). ``#shown`` says how many items
are visible.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from collections.abc import Iterable

from accord.verify.analysis import is_abstention
from accord.verify.view._math import katex_assets, tex_html

CSS = """
:root { --valid: #d9f2d9; --invalid: #f8d0d0; --uncertain: #fbeec1; --muted: #666; --line: #ddd; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #222; background:
#fafafa; }
header.top { background: #263238; color: #fff; padding: 12px 20px; }
header.top h1 { font-size: 18px; margin: 0 0 4px; }
header.top .meta { color: #cfd8dc; font-size: 13px; }
main { padding: 12px 20px 40px; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 10px 0; }
.panel h2 { font-size: 15px; margin: 12px 0 8px; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f0f3f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { position: sticky; top: 0; z-index: 5; background: #eceff1; border-bottom: 1px solid #cfd8dc; padding: 8px 20px;
       display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; }
.bar label { white-space: nowrap; cursor: pointer; }
.bar input[type=search] { padding: 3px 6px; min-width: 220px; }
#shown { font-weight: 600; }
[hidden] { display: none !important; }
.item.problem { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 12px 0; padding: 10px
14px; }
.item h3 { font-size: 15px; margin: 0 0 6px; }
.question { white-space: pre-wrap; background: #f5f7f8; border-left: 3px solid #90a4ae; padding: 6px 10px; margin: 6px
0; }
.missing { color: var(--muted); font-style: italic; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; margin-right: 4px; border: 1px
solid transparent; }
.ok { background: var(--valid); border-color: #9ccc9c; }
.bad { background: var(--invalid); border-color: #e29a9a; }
.warn { background: var(--uncertain); border-color: #e0c36a; }
.info { background: #e3ecf7; border-color: #a9c1e0; }
.none { background: #eceff1; border-color: #b0bec5; }
.chains { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.chain { flex: 1 1 420px; min-width: 0; overflow-x: auto; border: 1px solid var(--line); border-radius: 6px; padding:
6px 8px; background: #fcfcfc; }
.chain h4 { margin: 0 0 6px; font-size: 14px; }
.step { border-top: 1px dashed var(--line); padding: 6px 0; }
.step .text { white-space: pre-wrap; }
.cands { width: 100%; font-size: 13px; }
.cands th.j { font-size: 11px; font-weight: 500; overflow-wrap: normal; word-break: keep-all; hyphens: none;
min-width: 40px; }
.cands td.cand { min-width: 160px; white-space: pre-wrap; overflow-wrap: anywhere; }
.cands tr.chosen td { font-weight: 600; }
.cands tr.chosen td:first-child { border-left: 4px solid #1e88e5; }
.cands tr.rejected td.cand { color: var(--muted); }
.failed { color: #b71c1c; }
td.failed { background: var(--invalid); font-size: 11px; }
td.abstained { color: var(--muted); font-size: 11px; font-style: italic; }
.cands tr.other td.cand { color: #444; }
ol.steps { padding-left: 28px; margin: 6px 0; }
ol.steps li { border-radius: 4px; padding: 3px 8px; margin: 3px 0; white-space: pre-wrap; }
li.valid { background: var(--valid); }
li.invalid { background: var(--invalid); }
li.uncertain { background: var(--uncertain); }
li.no-claim { background: #eceff1; color: #455a64; }
.role { display: inline-block; font-size: 11px; color: #546e7a; border: 1px solid #b0bec5; border-radius: 8px;
padding: 0 5px; margin-right: 4px; }
li.annotated { outline: 2px dashed #6a1b9a; }
details > summary { cursor: pointer; color: #37474f; font-size: 12px; }
.legend span { margin-right: 10px; }
.shares { display: inline-flex; height: 10px; vertical-align: middle; margin-right: 4px; outline: 1px solid #bbb; }
.shares .seg { display: inline-block; height: 10px; }
.agree { display: inline-block; height: 8px; background: #42a5f5; vertical-align: middle; margin-right: 4px; }
tr.item.abstained td { color: var(--muted); }
td.win { font-weight: 600; }
th[data-sort] { cursor: pointer; user-select: none; white-space: nowrap; }
th[data-sort]::after { content: " ↕"; color: #999; }
th[aria-sort="ascending"]::after { content: " ▲"; color: #222; }
th[aria-sort="descending"]::after { content: " ▼"; color: #222; }
#results { width: 100%; }
#results th { white-space: nowrap; }
#results td { overflow-wrap: anywhere; }
#results td.num { white-space: nowrap; }
#results td:nth-child(9), #results td:nth-child(10) { font-size: 12px; width: 24%; }
#compare table { max-width: 100%; }
#compare td { overflow-wrap: anywhere; }
#compare h3 { font-size: 14px; margin: 10px 0 4px; }
.k0 { background: #cfe0f5; } .k1 { background: #f5e1b8; } .k2 { background: #e0d4f0; } .k3 { background: #cdeae8; }
.k4 { background: #f3d3e0; } .k5 { background: #e3e0d2; } .kx { background: #eeeeee; }
.swatch { display: inline-block; min-width: 16px; padding: 0 4px; border: 1px solid #bbb; text-align: center;
font-size: 11px; margin: 0 1px; }
.lab { background: #e8eaf6; border-color: #7986cb; }
.why { color: var(--muted); font-size: 11px; }
.mark { margin-left: 4px; font-weight: 700; }
.legend { font-size: 12px; color: #333; margin: 4px 0 8px; }
.wide { overflow-x: auto; }
#jury { width: 100%; font-size: 13px; }
#jury td { overflow-wrap: anywhere; }
.charts { display: flex; flex-wrap: wrap; gap: 14px; }
figure.chart { margin: 0; flex: 1 1 280px; max-width: 340px; }
figure.chart figcaption { font-size: 12px; }
figure.chart figcaption.legend { color: #444; }
figure.chart svg { display: block; max-width: 100%; height: auto; background: #fff; }
img.plot { max-width: 100%; height: auto; border: 1px solid var(--line); }
.plots { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.plots figure { margin: 0; flex: 1 1 420px; max-width: 560px; }
"""

SCRIPT = """
(function () {
  var items = Array.prototype.slice.call(document.querySelectorAll('.item'));
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
  var chains = Array.prototype.slice.call(document.querySelectorAll('input[data-chain]'));
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  // search text: everything an item shows (steps, candidates, members, evidence) and every text shown on
  // hover (judges' reasons, full names), read before typesetting
  var texts = items.map(function (it) {
    var tips = Array.prototype.map.call(it.querySelectorAll('[title]'), function (e) { return e.title; });
    return ((it.dataset.search || '') + ' ' + it.textContent + ' ' + tips.join(' ')).toLowerCase();
  });
  if (window.katex) {
    document.querySelectorAll('.tex').forEach(function (el) {
      var src = el.textContent;
      try {
        katex.render(src, el, {displayMode: el.dataset.display === '1', throwOnError: false});
        el.title = src;
      } catch (e) { /* left as its TeX source */ }
    });
  }
  function apply() {
    var on = boxes.filter(function (b) { return b.checked; }).map(function (b) { return b.dataset.filter; });
    var text = search ? search.value.trim().toLowerCase() : '';
    var n = 0;
    items.forEach(function (it, i) {
      var keep = on.every(function (f) { return it.dataset[f] === '1'; }) && (!text || texts[i].indexOf(text) >= 0);
      it.hidden = !keep;
      if (keep) { n += 1; }
    });
    if (shown) { shown.textContent = n + ' of ' + items.length + ' shown'; }
  }
  function columns() {
    chains.forEach(function (b) {
      document.querySelectorAll('[data-col="' + b.dataset.chain + '"]').forEach(function (el) { el.hidden =
      !b.checked; });
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  chains.forEach(function (b) { b.addEventListener('change', columns); });
  if (search) { search.addEventListener('input', apply); }
  columns();
  apply();
})();
"""


def esc(value) -> str:
    """Any value as HTML text (quotes escaped too, so it is safe inside an attribute)."""
    return html.escape("" if value is None else str(value), quote=True)


def num(x, digits: int = 3) -> str:
    """A number for a table cell: ``–`` for None or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}"


def score_cell(value: float | None, why: str | None = None, missing: str | None = None) -> str:
    """A [0, 1] score coloured from red (0) to green (1); a missing score says ``abstained`` (the
    judge had nothing to check) or ``failed`` (it could not score), and why on hover."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        kind = missing or ("abstained" if is_abstention(why) else "failed")
        return f'<td class="num {kind}" title="{kind}: {esc(why or "no score")}">{kind}</td>'
    hue = int(round(120 * max(0.0, min(1.0, float(value)))))
    tip = f' title="{esc(why)}"' if why else ""
    return f'<td class="num" style="background: hsl({hue}, 65%, 85%)"{tip}>{value:.2f}</td>'


def judge_header(name: str) -> str:
    """A judge's column header: wraps only between the parts of its name (at ``_``), long parts
    abbreviated, the full name on hover."""
    parts = [p if len(p) <= 10 else p[:8] + "." for p in str(name).split("_")]
    return f"<th class='num j' title='{esc(name)}'>" + "_<wbr>".join(esc(p) for p in parts) + "</th>"


def badge(text: str, kind: str = "info", title: str | None = None, tex: bool = False) -> str:
    """A small coloured label; ``tex``: its text may hold math (typeset on the page)."""
    tip = f' title="{esc(title)}"' if title else ""
    return f'<span class="badge {kind}"{tip}>{tex_html(text) if tex else esc(text)}</span>'


def flags(**values: bool) -> str:
    """``data-*`` attributes for the filters: ``"1"`` when the flag holds."""
    return " ".join(f'data-{k}="{1 if v else 0}"' for k, v in values.items())


def search_attr(*texts) -> str:
    joined = " ".join("" if t is None else str(t) for t in texts).lower()
    return f'data-search="{esc(joined[:2000])}"'


def filter_bar(filters: Iterable[tuple[str, str]], chains: Iterable[tuple[int, str, bool]] = ()) -> str:
    """The sticky bar: one checkbox per ``(flag, label)`` filter, the search box, the shown count,
    and one checkbox per ``(index, name, shown)`` chain column."""
    parts = ['<div class="bar" id="filters"><span>Only:</span>']
    parts += [
        f'<label><input type="checkbox" data-filter="{esc(flag)}" id="filter-{esc(flag)}"> {esc(label)}</label>'
        for flag, label in filters
    ]
    parts.append('<input type="search" id="search" placeholder="search all text">')
    parts.append('<span id="shown"></span>')
    chains = list(chains)
    if chains:
        parts.append("<span>Chains:</span>")
        parts += [
            f'<label><input type="checkbox" data-chain="{k}"{" checked" if on else ""}> {esc(name)}</label>'
            for k, name, on in chains
        ]
    parts.append("</div>")
    return "".join(parts)


def _script_hash(script: str) -> str:
    return base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


def document(title: str, subtitle: str, body: str, extra_script: str = "") -> str:
    """The whole page: the head (CSP, CSS), a header, the body and the script (``extra_script`` after the common
    one)."""
    katex_css, katex_js = katex_assets()
    script = katex_js + "\n" + SCRIPT + extra_script
    csp = (
        f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; "
        f"script-src 'sha256-{_script_hash(script)}'; base-uri 'none'; form-action 'none'"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{katex_css}\n{CSS}</style>\n</head>\n<body>\n"
        f'<header class="top"><h1>{esc(title)}</h1><div class="meta">{esc(subtitle)}</div></header>\n'
        f"{body}\n<script>{script}</script>\n</body>\n</html>\n"
    )
