"""Parsing final answers once each: text forms, structure, then sympy / math-verify in a worker.

:class:`AnswerParser` keeps every parsed answer (and every expression leaf) by its text, so a
file where the same answers recur is parsed once. Per answer:

1. blank (empty or white space) -> no forms: the member gave no answer;
2. with ``text_forms``: alternatives are split, a closing parenthesis of words is a gloss (kept
   only where it agrees with the value, :func:`gloss_agrees`), a function form keeps its
   right-hand side and a ± is expanded, then each part is tried as a keyword (yes / no /
   infinite), a percentage, LaTeX (math-verify's parser), a plain-math structure
   (:mod:`~accord.mathcheck.answers._plain_math`), and else as a sentence stating a value
   (:func:`~accord.mathcheck.answers._text_forms.value_candidates`, up to three rules deep);
3. without ``text_forms`` (the ``math`` equivalence) only LaTeX and plain math are tried;
4. what is left is compared as normalised text.

sympy and math-verify run in a worker process under ``timeout_s``
(:func:`accord.mathcheck.reading._limited.run_limited`: their signal-based timeouts do not work off the main
thread); an answer whose math runs past it is compared as text and
counted in ``timeouts``.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, fields, is_dataclass, replace

import accord.mathcheck.answers._text_forms as text_forms
from accord.mathcheck.answers._forms import WRITTEN, Keyword, Number, ParsedAnswer, Text, Value
from accord.mathcheck.answers._plain_math import LIST_SEPARATORS, Pending, read_number, read_structure, split_top
from accord.mathcheck.answers._symbolic import read_latex, read_leaves
from accord.mathcheck.reading import AUTO, AnswerConfig, run_limited

_LATEX = ("\\", "^{", "_{", "$")
_MAX_SENTENCE_STEPS = 12
_CHUNK = 64  # leaves per worker call
GLOSS = "gloss"  # a part read from a closing parenthesis of words: kept only where it agrees


@dataclass(frozen=True)
class LatexPending:
    """A part math-verify's LaTeX parser is to read."""

    text: str


def pending_leaves(value) -> list[str]:
    """Texts of the :class:`Pending` leaves in a value tree."""
    if isinstance(value, Pending):
        return [value.text]
    if isinstance(value, tuple):
        return [t for v in value for t in pending_leaves(v)]
    if is_dataclass(value) and not isinstance(value, type):
        return [t for f in fields(value) for t in pending_leaves(getattr(value, f.name))]
    return []


def fill(value, leaves: dict[str, Value | None]):
    """The value tree with its pending leaves read (None if any leaf could not be)."""
    if isinstance(value, Pending):
        return leaves.get(value.text)
    if isinstance(value, tuple):
        items = [fill(v, leaves) for v in value]
        return None if any(i is None for i, v in zip(items, value) if v is not None) else tuple(items)
    if is_dataclass(value) and not isinstance(value, type) and pending_leaves(value):
        changes = {}
        for f in fields(value):
            old = getattr(value, f.name)
            new = fill(old, leaves)
            if new is None and old is not None:
                return None
            changes[f.name] = new
        return replace(value, **changes)
    return value


class AnswerParser:
    """Parses answers under one :class:`AnswerConfig`, each distinct text once."""

    def __init__(self, config: AnswerConfig = AUTO):
        self.config = config
        self.answers: dict[str, ParsedAnswer] = {}
        self.leaves: dict[str, Value | None] = {}
        self.timed_out: set[str] = set()  # texts whose math ran past the limit

    @property
    def timeouts(self) -> int:
        return len(self.timed_out)

    def parse(self, text: str | None) -> ParsedAnswer:
        return self.parse_many([text])[0]

    def parse_many(self, texts: Iterable[str | None]) -> list[ParsedAnswer]:
        """Every text parsed (new ones together: their expression leaves go to the worker in chunks)."""
        texts = list(texts)
        todo = {t for t in texts if t is not None and t not in self.answers}
        drafts = {t: self._draft(t) for t in todo}
        need = sorted(
            {leaf for parts, _ in drafts.values() for _, v in parts for leaf in pending_leaves(v)} - set(self.leaves)
        )
        self._read_leaves(need)
        for t, (parts, normal) in drafts.items():
            self.answers[t] = self._finish(t, parts, normal)
        blank = ParsedAnswer("", (), "blank")
        return [blank if t is None else self.answers[t] for t in texts]

    # ------------------------------------------------------------------ stages
    def _draft(self, text: str) -> tuple[list[tuple[str, object]], str]:
        """(how, value-with-pending-leaves) per alternative, and the normalised text."""
        normal = text_forms.normalize_text(text)
        if not text.strip():
            return [], normal
        if len(text) > self.config.max_chars:
            return [("text", Text(normal))], normal
        cleaned = text_forms.clean(text)
        if not self.config.text_forms:
            return self._read_part(cleaned), normal
        out: list[tuple[str, object]] = []
        for part in text_forms.alternatives(cleaned):
            glossed = text_forms.gloss(part)
            if glossed is None:
                out.extend(self._read_part(rewritten(part)))
                continue
            main, words = glossed
            out.extend(self._read_part(rewritten(main)))
            out.extend((GLOSS, value) for _, value in self._read_part(words))
        return out, normal

    def _read_part(self, part: str) -> list[tuple[str, object]]:
        first = self._read_direct(part, "math")
        if first or not self.config.text_forms:
            return first or [("text", Text(text_forms.normalize_text(part)))]
        queue, seen = deque(text_forms.value_candidates(part)), {part}
        steps = 0
        while queue and steps < _MAX_SENTENCE_STEPS:
            cand = queue.popleft()
            steps += 1
            if cand in seen:
                continue
            seen.add(cand)
            got = self._read_direct(rewritten(cand), "sentence")
            if got:
                return got
            queue.extend(text_forms.value_candidates(cand))
        return [("text", Text(text_forms.normalize_text(part)))]

    def _read_direct(self, part: str, how: str) -> list[tuple[str, object]]:
        """Keyword, percent, LaTeX or plain math for the whole part; [] if none applies."""
        if self.config.text_forms:
            word = text_forms.keyword(part)
            if word is None and how == "math":  # a whole part only: a sentence cut short could flip it
                word = text_forms.comparison(part)
            if word:
                return [("keyword", Keyword(word))]
            unit = text_forms.number_with_unit(part)
            if unit is not None:
                value = read_number(unit)
                if value is not None:
                    return [(how, value)]
            pct = text_forms.percent(part)
            if pct is not None:
                value = read_number(pct)
                if value is not None:
                    return [(how, percent_of(value)), (how, value)]
        if any(m in part for m in _LATEX):
            return [("latex", LatexPending(part))]
        if len(part) > self.config.max_symbolic_chars and read_number(part) is None and "{" not in part[:1]:
            return []
        value = read_structure(part)
        return [] if value is None else [(how, value)]

    def _read_leaves(self, texts: list[str]) -> None:
        """Reads expression leaves in the worker, a chunk per call; a chunk past the limit is
        retried leaf by leaf, and a leaf past it is left unread (its answer becomes text)."""
        limit = self.config.timeout_s
        for i in range(0, len(texts), _CHUNK):
            chunk = tuple(texts[i : i + _CHUNK])
            whole = run_limited(read_leaves, chunk, self.config, timeout=limit)
            if whole.ok:
                self.leaves.update(zip(chunk, whole.value))
                continue
            for t in chunk:
                one = run_limited(read_leaves, (t,), self.config, timeout=limit)
                self.leaves[t] = one.value[0] if one.ok else None
                if not one.ok:
                    self.timed_out.add(t)

    def _latex(self, text: str) -> Value | None:
        got = run_limited(read_latex, text, self.config, timeout=self.config.timeout_s)
        if not got.ok:
            self.timed_out.add(text)
        return got.value

    def _finish(self, text: str, parts: list[tuple[str, object]], normal: str) -> ParsedAnswer:
        if not parts:
            return ParsedAnswer(text, (), "blank", normal)
        forms: list[Value] = []
        hows: list[str] = []
        glosses: list[Value] = []
        for how, draft in parts:
            if isinstance(draft, LatexPending):
                value = self._latex(draft.text)
            else:
                value = fill(draft, self.leaves)
            if value is not None and how == GLOSS:
                glosses.append(value)
            elif value is not None:
                forms.append(value)
                hows.append(how)
        forms.extend(g for g in glosses if forms and gloss_agrees(g, forms))
        if not forms:
            late = any(leaf in self.timed_out for _, d in parts for leaf in pending_leaves(d)) or any(
                isinstance(d, LatexPending) and d.text in self.timed_out for _, d in parts
            )
            return ParsedAnswer(text, (Text(normal),), "timeout" if late else "text", normal)
        return ParsedAnswer(text, tuple(dict.fromkeys(forms)), hows[0], normal)


def gloss_agrees(gloss: Value, forms: list[Value]) -> bool:
    """Whether a gloss may stand for the answer it comments on: as text (it matches only the same
    words), or as a verdict the answer's value says too: "none" beside 0 or the empty set,
    "infinitely many" beside infinity, "yes" beside yes. A gloss with a value of its own is a comment."""
    if isinstance(gloss, Text):
        return True
    if not isinstance(gloss, Keyword):
        return False
    for f in forms:
        if f == gloss:
            return True
        if isinstance(f, Number) and f.infinite == 0 and f.value == 0 and gloss.word == "no":
            return True
        if isinstance(f, Number) and f.infinite == 1 and gloss.word == "infinite":
            return True
    return False


def rewritten(part: str) -> str:
    """A part with its function forms reduced to their right-hand sides and its ± expanded."""
    listed = function_alternatives(part)
    if listed is not None:
        part = listed
    else:
        rhs = text_forms.function_value(part)
        part = rhs if rhs is not None else part
    expanded = plus_minus_list(part)
    return expanded if expanded is not None else part


def function_alternatives(part: str) -> str | None:
    """ "f(x) = 0 or f(x) = 1" (also in $...$ pieces) as "0, 1": a list whose every item is a form
    of the same function is the list of the forms; else None."""
    items = split_top(part.replace("$", ""), LIST_SEPARATORS)
    if len(items) < 2:
        return None
    forms = [text_forms.function_form(i) for i in items]
    if any(f is None for f in forms) or len({head for head, _ in forms}) != 1:
        return None
    return ", ".join(rhs for _, rhs in forms)


_NAMED = re.compile(r"^\s*(?P<name>[A-Za-z](?:_\{?\w+\}?)?)\s*=\s*")


def plus_minus_list(part: str) -> str | None:
    """The part with every ± expanded: one ± in the whole part (:func:`text_forms.plus_minus`), or
    a list whose items have one ± each ("±1, ±2"; "x = ±1, ±sqrt(2)"; "x = ±1 and x = ±2") as
    the list of every signed value. LaTeX's \\pm is read here only where nothing else is LaTeX
    (math-verify reads the rest). None where nothing is expanded or the signs' pairing is not
    said ("(±1, ±2)", "x = ±1, y = ±2")."""
    if "\\pm" in part and "\\" not in part.replace("\\pm", ""):
        part = part.replace("\\pm", "±")
    if "\\pm" in part or not text_forms.plus_minus_signs(part):
        return None
    items = split_top(part, LIST_SEPARATORS)
    if len(items) == 1:
        return text_forms.plus_minus(part)
    named = [_NAMED.match(i) for i in items]
    names = {m.group("name") for m in named if m}
    if any("=" in i for i, m in zip(items, named) if not m) or len(names) > 1:
        return None
    if names and not all(named):
        if not named[0] or any(named[1:]):
            return None
        items[0] = items[0][named[0].end() :]  # "x = a, b": the values x takes
    out = []
    for item in items:
        signs = text_forms.plus_minus_signs(item)
        if signs > 1:
            return None
        out.append(text_forms.plus_minus(item) if signs else item)
    return ", ".join(out)


def percent_of(value: Number) -> Number:
    """``value`` percent as a number, a written decimal keeping its precision (35.7% -> 0.357)."""
    return replace(value, value=value.value / 100, decimals=value.decimals + 2 if value.precision == WRITTEN else 0)
