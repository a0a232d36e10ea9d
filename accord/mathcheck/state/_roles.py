"""What each step of a solution does: its role, the scopes it opens or sits in, what it cites.

A solution is read in order, and every step gets one role:

- ``given``: a step that restates the problem (every formula in it is one of the problem's);
- ``definition``: gives a name a meaning ("Let f(n) be the number of ...", "Denote S = a + b");
- ``assumption``: supposes something for a while: a case of a split ("Case 1: n is odd", "If c = 8:"),
  a supposition ("Suppose a ≤ b ≤ c"), or the start of a proof by contradiction ("Assume, to the
  contrary, that ..."); each opens a scope (:class:`Scope`);
- ``derived``: claims something that should follow from what is in force;
- ``lead-in``: its claim is the next line's ("Expanding, we get:"), as annotators attribute it;
- ``remark``: claims nothing: a plan, a heading, a question, a drawing, a line of layout;
- ``conclusion``: states the result ("Therefore, the smallest value is 0.").

A scope ends where what it supposed is spent: a case at the next case of the same split or at a
conclusion drawn outside it; a contradiction where the absurdity is said ("This is impossible"),
and the false claim derived there is what the proof wants, not an error; a supposition at the
end of the solution or a conclusion. Labels ("(1)", "Equation 2", ``\\tag{3}``) and references
("from (1) and (2)", "the first equation", "this equation") are resolved to the steps they name.

Pure text: no formula is parsed here beyond finding where formulas are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from accord.mathcheck.reading import (
    CONCLUDING,
    CONTRADICTION,
    CONTRARY,
    DERIVING,
    LEAD_IN_END,
    is_lead_in,
    read_chains,
    words,
)

GIVEN, DEFINITION, ASSUMPTION, DERIVED, LEAD_IN, REMARK, CONCLUSION = (
    "given",
    "definition",
    "assumption",
    "derived",
    "lead-in",
    "remark",
    "conclusion",
)
ROLES = (GIVEN, DEFINITION, ASSUMPTION, DERIVED, LEAD_IN, REMARK, CONCLUSION)
CLAIMS_NOTHING = frozenset({GIVEN, DEFINITION, ASSUMPTION, REMARK})  # unless a judge still finds a claim in it
CLAIMING = frozenset({DERIVED, LEAD_IN, CONCLUSION})  # what these claim must follow from what is in force
CASE, SUPPOSITION, CONTRADICTION_SCOPE = "case", "supposition", "contradiction"


@dataclass(frozen=True)
class Scope:
    """What an assumption supposes, from the step that opens it to the last step inside it."""

    kind: str  # case, supposition or contradiction
    opened: int
    closed: int | None = None  # the last step inside it (None: open to the end)


@dataclass(frozen=True)
class StepRole:
    role: str
    scopes: tuple[int, ...] = ()  # the scopes this step sits in (ids, outermost first)
    labels: tuple[str, ...] = ()  # the labels its formulas get: "1" for "(1)", "Equation 1", \tag{1}
    cites: tuple[int, ...] = ()  # the steps it refers to (-1: the problem)
    absurdity: bool = False  # it says the absurdity a contradiction scope wanted: a false claim here is no error


@dataclass(frozen=True)
class Outline:
    """The proof read so far: the scopes open now, the labels given and the recent formulas. Each
    :meth:`advance` reads one more step and returns the next state (this one is not changed), so a
    long solution costs the same per step early or late."""

    problem: str = ""
    n: int = 0
    open: tuple[tuple[int, str, int], ...] = ()  # (id, kind, opened at step), innermost last
    next_id: int = 0
    labelled: tuple[tuple[str, int], ...] = ()  # label -> step (-1: the problem), latest last
    formulas: tuple[int, ...] = ()  # the latest steps with a relation (-1: the problem)

    @classmethod
    def start(cls, problem: str) -> Outline:
        return cls(
            problem, 0, (), 0, tuple((lab, -1) for lab in _labels(problem)), (-1,) if _has_relation(problem) else ()
        )

    @property
    def open_ids(self) -> frozenset[int]:
        return frozenset(i for i, _, _ in self.open)

    def advance(self, text: str, nxt: str | None = None) -> tuple[Outline, StepRole, list[Scope]]:
        """The state after step ``self.n``, its role, and the scopes this step ends."""
        k, plain = self.n, _plain(text)
        role = _role(text, nxt, self.problem, nxt is None)
        opened = list(self.open)
        ended: list[Scope] = []

        def close(until) -> None:
            while opened and until(opened[-1][1]):
                i, kind, at = opened.pop()
                ended.append(Scope(kind, at, k - 1))

        case = opens_case(plain)
        if case:
            close(lambda kind: kind == CASE)  # a new case ends the one before
        elif role == CONCLUSION:
            close(lambda kind: kind in (CASE, SUPPOSITION))  # a conclusion drawn outside them
        next_id = self.next_id
        if role == ASSUMPTION or case:
            kind = CONTRADICTION_SCOPE if words(CONTRARY).search(plain) else CASE if case else SUPPOSITION
            if not (kind == SUPPOSITION and _WLOG.search(plain)):  # "we may assume a ≤ b ≤ c" holds to the end
                opened.append((next_id, kind, k))
                next_id += 1
        inside = tuple(i for i, _, _ in opened)
        absurd = False
        if words(CONTRADICTION).search(words(CONTRARY).sub(" ", plain)):
            for depth in range(len(opened) - 1, -1, -1):
                if opened[depth][1] == CONTRADICTION_SCOPE:  # the absurdity said: the scope ends here
                    absurd = True
                    ended.extend(Scope(kind, at, k) for _, kind, at in reversed(opened[depth:]))
                    del opened[depth:]
                    break
        labelled = dict(self.labelled)
        cites = _cited(text, k, labelled, self.formulas)
        labels = _labels(text)
        for label in labels:
            labelled[label] = k
        # the latest run of steps with relations: "the first equation" is the first of that system
        if _has_relation(text):
            formulas = (self.formulas + (k,))[-10:] if self.formulas and self.formulas[-1] >= k - 2 else (k,)
        else:
            formulas = self.formulas
        state = Outline(self.problem, k + 1, tuple(opened), next_id, tuple(labelled.items()), formulas)
        return state, StepRole(role, inside, labels, cites, absurd), ended


_LAYOUT = re.compile(
    r"^(?:\\\[|\\\]|\\\(|\\\)|\$\$?|\\begin\{\w+\*?\}|\\end\{\w+\*?\}|\.{3}|…|\\dots|\\ldots|&|\\\\|[-=*_#`]{3,}|\s)*$"
)
_DRAWING = re.compile(r"^\s*(?:draw|label|fill|dot|path|size|unitsize|filldraw|import)\s*\(", re.IGNORECASE)
_HEADING = re.compile(
    r"^\s*(?:#+\s*|\*\*)?(?:step|part|method|approach|solution|proof|answer)\b[^.=]{0,40}:?\s*\**$", re.IGNORECASE
)
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+|\(\w\)\s+|>\s*|#+\s*)")
_CASE_OPEN = re.compile(
    r"^\s*(?:\**\s*)?(?:(?:sub)?case\s*(?:\d+|[ivx]+|[a-z])?\b|in\s+the\s+(?:first|second|third|\w+)\s+case|"
    r"(?:if|when|for)\b(?![^,:]*\b(?:all|every|each|any)\b)|(?:let['’]?s\s+|now\s+)?try\b)",
    re.IGNORECASE,
)
_CASE_HEADING = re.compile(
    r"^\s*(?:\**\s*)?(?:(?:sub)?case\s*(?:\d+|[ivx]+|[a-z])?\s*[:.)]|[A-Za-z](?:_\w+)?\s*=\s*-?\d+\s*:\s*$)|"
    r"\b(?:consider|take|try|look\s+at|check|examine)\s+(?:the\s+)?(?:case\s+)?(?:when|where|of|with|for)?\s*\\?\(?\s*\$?"
    r"[A-Za-z](?:_\w+)?\s*=\s*-?\d+\s*\$?\\?\)?\s*[.:]?\s*$",
    re.IGNORECASE,
)
_CONTINUED_LEAD = re.compile(  # a lead-in's last words, and those that end a case's lead-in ("… is:")
    r"\b(?:" + LEAD_IN_END + r"|have|is|are|equals?|looks\s+like|reads)\s*$", re.IGNORECASE
)
_CONSEQUENT = re.compile(r"(?:,|\bthen\b|:)\s*\S+(?:\s+\S+){2,}")
_OPENS_SUPPOSITION = re.compile(
    r"^\s*(?:(?:now|next|first|then|so|here|finally|again),?\s+)*(?:suppose|supposing|assume|assuming|"
    r"let['’]?s\s+(?:now\s+)?(?:assume|suppose|say)|let\s+us\s+(?:assume|suppose|say)|if\s+we\s+(?:assume|suppose)|"
    r"we\s+(?:can\s+|may\s+|will\s+)?(?:assume|suppose))\b",
    re.IGNORECASE,
)
_WLOG = re.compile(r"without\s+loss\s+of\s+generality|\bwlog\b|we\s+can\s+assume|we\s+may\s+assume", re.I)
_DEFINES = re.compile(
    r"^\s*(?:(?:now|next|first|then|so|here),?\s+)*(?:let(?:['’]?s|\s+us)?\s+(?:define|denote|call|write|"
    r"represent|name|label|introduce|use)\b|let\b(?!['’]s|\s+us)|define|denote|we\s+(?:define|denote|call|let|"
    r"introduce)\b|where\b|here\b[^.]*\b(?:is|are|denotes?|represents?)\b)",
    re.IGNORECASE,
)
_GIVEN = re.compile(
    r"^\s*(?:(?:now|first|so|here),?\s+)*(?:we\s+are\s+given|given\s+(?:that\b|:)|the\s+problem\s+(?:states|says|gives|"
    r"tells)|we\s+(?:know|have\s+been\s+told)\s+from\s+the\s+problem|it\s+is\s+given|from\s+the\s+problem)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\$(])")
_ACTION = (
    r"use|using|apply|applying|find|solve|start|begin|try|consider|calculate|compute|check|look|analy[sz]e|examine|"
    r"determine|count|list|evaluate|test|verify|prove|show|simplify|express|rewrite|write|focus|break|proceed|"
    r"explore|identify|think|go|see\s+(?:if|whether|how|what)|continue|repeat|set\s+up|approach|tackle|make|get|"
    r"work|note|recall|derive|compare|minimi[sz]e|maximi[sz]e|plug|substitute|combine|expand|factor|multiply|divide|"
    r"add|subtract|sum|group|bound|estimate|construct|define|denote|introduce|take|choose|pick|call|label|represent"
)
_QUESTION = re.compile(r"\?\s*\**\s*$")
_PLAN_START = re.compile(
    r"^\s*(?:(?:now|next|first|then|finally|so|also|again|here|instead|alternatively|however|but),?\s+)*(?:"
    r"(?:let['’]?s|let\s+us|we\s+(?:need|want|can|will|must|should|have\s+to|are\s+going\s+to|shall|may|might|"
    r"could|first\s+need|now\s+need|try\s+to|would\s+like\s+to))\s+(?:now\s+|first\s+|then\s+|also\s+|"
    r"further\s+|directly\s+|again\s+)*(?:" + _ACTION + r")\b|to\s+(?:" + _ACTION + r"|do|answer|solve)\b|"
    r"consider\b|i\s+(?:will|need|can)\b|(?:our|the)\s+goal|the\s+problem\s+asks|"
    r"we\s+are\s+(?:asked|looking)|(?:step|part)\s+\d+\b)",
    re.IGNORECASE,
)
_CLAIM_WORDS = re.compile(
    r"\b(?:is|are|equals?|gives?|has|have|there\s+(?:is|are)|must\s+be|cannot|can\s+be|divisible|prime|"
    r"multiple|factor|even|odd|integer|positive|negative|greater|less|at\s+(?:least|most)|maximum|minimum|"
    r"largest|smallest|only|always|never|true|false|holds?|satisf\w+|solutions?)\b",
    re.IGNORECASE,
)
_ANSWER = re.compile(r"\\boxed|\bthe\s+(?:final\s+)?answer\b|\banswer\s*:", re.IGNORECASE)
_LABEL_AT_END = re.compile(
    r"(?:\\tag\{\s*(\w+)\s*\}|\(\s*(?:eq(?:uation|n)?\.?\s*)?(\d{1,2}|[*†‡]|[ivx]{1,4})\s*\)|"
    r"\(?\b(?:eq(?:uation|n)?\.?)\s*(\d{1,2})\)?)\s*[.,;]?\s*(?:\$\$|\\\]|\$|\\\))?\s*$",
    re.IGNORECASE,
)
_CITED_LABEL = re.compile(
    r"(?:\b(?:eq(?:uation|n)?s?\.?|inequalit(?:y|ies)|relation|condition)\s*\(?\s*(\d{1,2})\s*\)?|"
    r"(?<![\w)^_])\(\s*(\d{1,2}|[*†‡])\s*\)(?!\s*(?:[\d(^*/+\-]|[A-Za-z](?![A-Za-z]))))",
    re.IGNORECASE,
)
_ORDINAL = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1}
_CITED_ORDINAL = re.compile(
    r"\bthe\s+(first|second|third|fourth|last)\s+(?:equation|inequality|relation|condition|one)\b", re.I
)
_CITED_PROBLEM = re.compile(
    r"\bthe\s+(?:original|given|initial)\s+(?:equation|inequality|expression|condition)s?\b", re.IGNORECASE
)
_CITED_THIS = re.compile(
    r"\b(?:this|that|the\s+(?:above|previous|last|preceding|resulting|new|original|given))\s+"
    r"(?:equation|inequality|relation|expression|identity|congruence|result)\b",
    re.IGNORECASE,
)


def _plain(text: str) -> str:
    """The step without its list mark and Markdown emphasis."""
    return _LIST_MARK.sub("", text.replace("**", "").strip(), count=1).strip().strip("*").strip()


_RELATION_SIGN = re.compile(
    r"[=<>≤≥≠≈≡]|\\(?:le|ge|leq|geq|neq|ne|equiv|approx|lt|gt)\b|"
    r"\b(?:equals?|congruent|rewrit\w*|written|simplif\w*|greater|less|divides|divisible)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=65536)
def _has_relation(text: str) -> bool:
    return bool(_RELATION_SIGN.search(text)) and any(c.relations for c in read_chains(text))


def _restates(text: str, problem: str) -> bool:
    """Every relation in the step is written in the problem too (spaces and $ aside)."""
    chains = [c for c in read_chains(text) if c.relations]
    if not chains:
        return False
    squeeze = re.sub(r"[\s$]", "", problem)
    return all(re.sub(r"[\s$]", "", c.text) in squeeze for c in chains)


_FORMULA_TEXT = re.compile(r"\$[^$]*\$|\\\(.*?\\\)|\\\[.*?\\\]|\S*[=<>≤≥]\S*")


def _words_only(text: str) -> str:
    """The step without its formulas (delimited ones, and runs around a relation sign)."""
    return _FORMULA_TEXT.sub(" ", text)


def _remark(sentence: str) -> bool:
    """A sentence that claims nothing: a plan, a question, a heading, layout."""
    s = _plain(sentence)
    return (
        not s
        or bool(_LAYOUT.match(s) or _DRAWING.match(s) or _QUESTION.search(s) or _HEADING.match(s))
        or bool(_PLAN_START.match(s) and not _has_relation(s))
    )


def _case_alone(plain: str) -> bool:
    """A heading ("Case 1:"), or a condition with nothing after it ("If c = 8:", "When n is odd,");
    a lead-in with a condition ("For n + 1, the left side becomes:") is none."""
    if _CASE_HEADING.match(plain):
        return True
    if not _CASE_OPEN.match(plain):
        return False
    if plain.rstrip().endswith(":"):
        return not _CONTINUED_LEAD.search(plain.rstrip().rstrip(":"))
    return not _CONSEQUENT.search(plain)


_CONDITION_FIRST = re.compile(
    r"^\s*(?:if|when|for)\b(?![^,:]*\b(?:all|every|each|any|some)\b)(?!\s+(?:we|i|this|that|it|example|instance)\b)"
    r"(?P<clause>[^,:;]*?)(?:,|:|\bthen\b|\bwe\s+(?:get|have|obtain|find)\b)",
    re.IGNORECASE,
)
_CONDITION_WORDS = re.compile(
    r"\b(?:odd|even|prime|positive|negative|divisible|multiple|greater|less)\b", re.IGNORECASE
)
_TRIAL_START = re.compile(r"^\s*(?:(?:let['’]?s|now|next|we(?:\s+can)?)\s+)?try\b(?!\s+to\b)", re.IGNORECASE)


def opens_case(text: str) -> bool:
    """The step opens a case of a split, or an alternative: a case alone (a heading, a condition
    with nothing after it), a step that opens with its case's condition and claims in it ("If y = 2,
    then x^2 = 41", "For odd n > 1, we can write ..."), or a new trial ("Let's try a degree 2
    polynomial"). The case before it ends there: what was derived in it is not in force after."""
    plain = _plain(text)
    if _case_alone(plain) or _TRIAL_START.match(plain):
        return True
    condition = _CONDITION_FIRST.match(plain)
    return bool(condition) and bool(_has_relation(condition["clause"]) or _CONDITION_WORDS.search(condition["clause"]))


def _role(text: str, nxt: str | None, problem: str, last: bool) -> str:
    plain = _plain(text)
    if not plain or _LAYOUT.match(plain) or _DRAWING.match(plain):
        return REMARK
    relation = _has_relation(text)
    if words(CONTRARY).search(plain):
        return ASSUMPTION
    if _case_alone(plain):
        after = _CASE_HEADING.sub("", plain, count=1) if _CASE_HEADING.match(plain) else ""
        claims = _SENTENCE.split(after.strip())[1:]  # the first sentence after a heading is the case's condition
        if not any(_has_relation(c) or _CLAIM_WORDS.search(c) for c in claims):
            return ASSUMPTION  # "If c = 8:", "Case 1: n is odd": a case, not a lead-in
        # "Case 1: x = 1. In this case, we have 3 = 3^y": the case is opened, and the step claims
    elif is_lead_in(plain) and nxt is not None:
        return LEAD_IN
    first, *rest = _SENTENCE.split(plain)
    if _OPENS_SUPPOSITION.match(first) and all(_remark(r) for r in rest):
        return ASSUMPTION
    if _DEFINES.match(first) and not words(DERIVING).search(first) and all(_remark(r) for r in rest):
        return DEFINITION
    if (_GIVEN.match(plain) or relation and not words(DERIVING).search(plain)) and _restates(text, problem):
        if not _CLAIM_WORDS.search(_words_only(_GIVEN.sub("", plain))):  # what else it says in words is a claim
            return GIVEN
    if _ANSWER.search(plain) or (words(CONCLUDING).match(plain) and (last or _CLAIM_WORDS.search(plain))):
        return CONCLUSION
    if relation:
        return DERIVED
    if all(_remark(s) for s in [first, *rest]):
        return REMARK
    return DERIVED


def _labels(text: str) -> tuple[str, ...]:
    """The labels a step gives its formulas ("(1)", "(Equation 2)", \\tag{3}, one per line)."""
    out = []
    for line in text.splitlines() or [text]:
        m = _LABEL_AT_END.search(line)
        if m and _has_relation(line[: m.start()]):
            out.append(next(g for g in m.groups() if g).lower())
    return tuple(out)


def _cited(text: str, k: int, labelled: dict[str, int], formulas: tuple[int, ...]) -> tuple[int, ...]:
    """The steps a step refers to: by label, by ordinal ("the second equation") or as "this equation"."""
    out = []
    for m in _CITED_LABEL.finditer(text):
        label = (m.group(1) or m.group(2)).lower()
        if label in labelled and labelled[label] != k:
            out.append(labelled[label])
    for m in _CITED_ORDINAL.finditer(text):
        i = _ORDINAL[m.group(1).lower()]
        if formulas and -len(formulas) <= i < len(formulas):
            out.append(formulas[i])
    if _CITED_THIS.search(text) and formulas:
        out.append(formulas[-1])
    if _CITED_PROBLEM.search(text):
        out.append(-1)
    return tuple(dict.fromkeys(out))


@dataclass(frozen=True)
class ProofReading:
    """A whole solution read: each step's role and the scopes, with the step each one ends at."""

    steps: tuple[StepRole, ...]
    scopes: tuple[Scope, ...]


def read_outline(problem: str, steps: list[str] | tuple[str, ...]) -> ProofReading:
    """Roles, scopes and references of every step of a solution (see the module docstring)."""
    state = Outline.start(problem)
    roles, scopes = [], {}
    for k, text in enumerate(steps):
        before = {i: (kind, at) for i, kind, at in state.open}
        state, role, ended = state.advance(text, steps[k + 1] if k + 1 < len(steps) else None)
        roles.append(role)
        for sc in ended:
            scopes[sc.opened] = sc
        for i, kind, at in state.open:
            if i not in before:
                scopes.setdefault(at, Scope(kind, at))
    return ProofReading(tuple(roles), tuple(scopes[k] for k in sorted(scopes)))
