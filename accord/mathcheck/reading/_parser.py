"""One side of a relation, as written in real solutions, to a small expression tree.

The notation of model and student solutions: implicit products (``2ab``, ``2(n+1)``, ``(a+b)(a-b)``),
powers (``^``, ``**``, right-associative), factorials (``n!``), absolute values (``|x|``), brackets,
subscripted and indexed names (``x_1``, ``x_1x_2`` = x_1·x_2, ``a_{n+1}``, ``f_min``), function and
sequence notation (``f(n)``, ``a_2(3)``: applied when the name is one of ``functions``, a product
otherwise), ``sqrt``/``root``/``binom``/``C(n, k)``/``n choose k``/``gcd``/``lcm``/``floor``/``ceil``/
``max``/``min``/``log``/``ln``/``exp``/trigonometry, and ``a mod n``. LaTeX is converted first
(:mod:`accord.mathcheck.reading._latex`).

Trees are nested tuples (hashable, cheap): ``("num", Fraction, decimals)``, ``("name", str)``,
``("add", (terms...))``, ``("mul", (factors...))``, ``("div", a, b)``, ``("neg", a)``,
``("pow", a, b)``, ``("fact", a)``, ``("abs", a)``, ``("mod", a, n)``, ``("call", fn, (args...))``
for known functions, ``("apply", name, (args...))`` for the solution's own functions and
``("sigma", "sum" or "prod", var, lo, hi, body)`` for a finite sum or product with its bounds written
(``\\sum_{k=1}^{n} k^2``; the body is the product term after the sign, as in ``\\sum_k a + b``),
``("lim", var, point or "oo"/"-oo", body)`` for ``\\lim_{x \\to a} body``.
Anything else (ellipses, one-sided limits, sums without bounds, over indexed terms, ``±``, primes) is a
:class:`MathParseError` saying what.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from accord.mathcheck.reading._english import COMMON_WORDS
from accord.mathcheck.reading._latex import ELLIPSIS, LatexError, from_latex
from accord.mathcheck.reading._vocabulary import GREEK as GREEK_NAMES

MAX_LENGTH = 2000
CALLS = {  # known functions and their number of arguments (None: any number >= 1)
    "sqrt": 1,
    "root": 2,
    "exp": 1,
    "ln": 1,
    "log": 1,
    "sin": 1,
    "cos": 1,
    "tan": 1,
    "cot": 1,
    "sec": 1,
    "csc": 1,
    "abs": 1,
    "floor": 1,
    "ceil": 1,
    "gcd": None,
    "lcm": None,
    "max": None,
    "min": None,
    "binom": 2,
    "factorial": 1,
}
CONSTANTS = ("pi",)
LAMBDA_SPELT = "lamda"
GREEK = frozenset(LAMBDA_SPELT if g == "lambda" else g for g in GREEK_NAMES)  # sympy spells lambda "lamda"
_UNICODE = {
    "−": "-",
    "–": "-",
    "—": "-",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∗": "*",
    "÷": "/",
    "²": "^2",
    "³": "^3",
    "⁴": "^4",
    "√": " sqrt",
    "π": " pi ",
    "∞": "¿infinity",
    "±": "¿plus-or-minus",
    "∓": "¿minus-or-plus",
    "∑": "¿sum",
    "∏": "¿product",
    "∫": "¿integral",
    "…": ELLIPSIS,
    "′": "¿prime",
    "'": "¿prime",
    "α": " alpha ",
    "β": " beta ",
    "γ": " gamma ",
    "δ": " delta ",
    "θ": " theta ",
    "λ": " lamda ",
    "μ": " mu ",
    "σ": " sigma ",
    "φ": " phi ",
    "ω": " omega ",
    "Δ": " Delta ",
}
_UNREAD_WORDS = {
    "infinity": "infinity",
    "sum": "a sum",
    "product": "a product sign",
    "integral": "an integral",
    "prime": "a prime (derivative) mark",
    "plus-or-minus": "±",
    "minus-or-plus": "∓",
    "lim": "a limit",
    "set": "a set",
    "mid": "divisibility",
    "percent": "a percentage",
}
_SUBSCRIPT_WORDS = re.compile(r"min|max|odd|even|total|new|old|sum|avg|mean|final|init|start|end|opt")
_TOKEN = re.compile(
    r"(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<word>[A-Za-z]+)"
    r"|(?P<op>\*\*|[-+*/^!(),|\[\]_{}])"
    r"|(?P<big>¿(?:sum|prod|product)\s*_\s*\{\s*[A-Za-z]\s*=[^{}=]+\}\s*\^\s*(?:\((?:[^()]|\((?:[^()]|\([^()]*\))*\))+\)|\{[^{}]+\}|\d+|[A-Za-z]\b))"
    r"|(?P<limit>¿lim\s*_\s*\{\s*[A-Za-z]\s*(?:⇒|→|->|¿to)\s*-?\s*(?:¿infty|¿infinity|[\w.]+)\s*\})"
    r"|(?P<unread>¿[A-Za-z-]+)"
    r"|(?P<ellipsis>…|\.\.\.+)"
    r"|(?P<space>\s+)"
)


class MathParseError(ValueError):
    """The text is not an expression accord can read (the message says why)."""


# plain-text spellings of notation LaTeX writes with a command: "Sum_{i=1}^{n}", "sum_(k=1)^n"
_PLAIN_SUM = re.compile(
    r"(?<![\\\w¿])(?:Sum|sum|SUM|Σ|∑)\s*_\s*\(\s*([A-Za-z])\s*=\s*([^()]+?)\s*\)\s*\^\s*(\w+|\([^()]*\))"
)
_PLAIN_SUM_BRACED = re.compile(r"(?<![\\\w¿])(?:Sum|sum|SUM|Σ|∑)\s*_\s*\{")
_SUPERSCRIPTS = {"⁰": "^0", "¹": "^1", "⁵": "^5", "⁶": "^6", "⁷": "^7", "⁸": "^8", "⁹": "^9", "ⁿ": "^n", "ᵏ": "^k"}
_SQRT_ATOM = re.compile(r"√\s*([A-Za-z](?![A-Za-z(])|\d+(?:\.\d+)?(?![\d(A-Za-z.]))")
_CUBE_ROOT = re.compile(r"∛\s*(\d+(?:\.\d+)?|[A-Za-z]|\([^()]*\))")


def _plain_notation(s: str) -> str:
    """Mathematical italic letters (𝑛) as letters, superscript letters and digits as powers, "∛5"
    as a cube root, and sums written in plain text as the LaTeX the reader understands."""
    if any("\U0001d400" <= c <= "\U0001d7ff" for c in s):
        s = "".join(unicodedata.normalize("NFKC", c) if "\U0001d400" <= c <= "\U0001d7ff" else c for c in s)
    for a, b in _SUPERSCRIPTS.items():
        if a in s:
            s = s.replace(a, b)
    if "√" in s:  # "√a√b": the root of one letter or number, then the next factor
        s = _SQRT_ATOM.sub(lambda m: f" sqrt({m.group(1)})", s)
    if "∛" in s:
        s = _CUBE_ROOT.sub(lambda m: f"\\sqrt[3]{{{m.group(1)}}}", s)
    if "_" in s:
        s = _PLAIN_SUM.sub(lambda m: f"\\sum_{{{m.group(1)}={m.group(2)}}}^{{{m.group(3).strip('()')}}}", s)
        s = _PLAIN_SUM_BRACED.sub(r"\\sum_{", s)
    return s


def normalize(text: str) -> str:
    """Unicode operators to ASCII, LaTeX to plain notation, thousands separators out."""
    s = text.strip().strip("$`").strip()
    s = _plain_notation(s)
    if "\\" in s or "{" in s:
        try:
            s = from_latex(s)
        except LatexError as exc:
            raise MathParseError(str(exc)) from None
    for a, b in _UNICODE.items():
        if a in s:
            s = s.replace(a, b)
    s = re.sub(r"(?<![\d.,])(\d{1,3})((?:,\d{3})+)(?![\d,])", lambda m: m.group(1) + m.group(2).replace(",", ""), s)
    s = re.sub(r"\blambda\b", "lamda", s)
    s = re.sub(r"(?<=\d)\s+x\s+(?=\d)", " * ", s)  # "12 x 2": a product of numbers
    s = re.sub(r"(?<![A-Za-z0-9_.])([A-Za-z])(\d+)(?![\d.])", r"\1_\2", s)  # "x1 + x2": x_1 + x_2
    return s


def tokens(s: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if not m:
            raise MathParseError(f"cannot read {s[pos : pos + 12]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "space":
            continue
        val = m.group(kind)
        if kind == "unread":
            name = val[1:]
            raise MathParseError(f"contains {_UNREAD_WORDS.get(name, chr(92) + name)}, which accord does not evaluate")
        if kind == "ellipsis":
            raise MathParseError("contains an ellipsis (…), which accord does not evaluate")
        out.append((kind, "^" if val == "**" else val))
    return out


class _Parser:
    """Precedence climbing: mod < + - < * / implicit < unary - < ^ < postfix ! < atoms."""

    def __init__(self, toks, functions: frozenset[str], implicit_first: bool):
        self.t = toks
        self.i = 0
        self.functions = functions
        self.implicit_first = implicit_first  # "1/2x" read as 1/(2x)
        self.abs_depth = 0
        self.ambiguous = False  # a division followed by an implicit product was read
        self.long_base = False  # the name being read is a multi-letter identifier (its subscript stays whole)

    def peek(self, k: int = 0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else (None, None)

    def take(self):
        tok = self.peek()
        if tok[0] is None:
            raise MathParseError("the expression ends too early")
        self.i += 1
        return tok

    def expect(self, val: str):
        tok = self.take()
        if tok[1] != val:
            raise MathParseError(f"expected {val!r}, found {tok[1]!r}")

    def parse(self):
        node = self.modulo()
        if self.i != len(self.t):
            raise MathParseError(f"unexpected {self.peek()[1]!r}")
        return node

    def modulo(self):
        node = self.sum()
        if self.peek() == ("word", "mod"):
            self.take()
            n = self.unary()
            if self.peek()[1] in ("+", "-") or self.peek() == ("word", "mod"):
                raise MathParseError("ambiguous 'mod' (write (a + b) mod n)")
            node = ("mod", node, n)
        return node

    def sum(self):
        terms = [self.product()]
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            t = self.product()
            terms.append(t if op == "+" else ("neg", t))
        return terms[0] if len(terms) == 1 else ("add", tuple(terms))

    def _starts_atom(self) -> bool:
        kind, val = self.peek()
        if kind in ("num", "word", "big", "limit"):
            return val not in ("mod", "choose")
        if val == "|":
            return self.abs_depth == 0
        return val in ("(", "[")

    def product(self):
        node = self.implicit() if self.implicit_first else self.unary()
        while True:
            kind, val = self.peek()
            if val in ("*", "/"):
                self.take()
                rhs = self.implicit() if self.implicit_first else self.unary()
                if val == "/" and not self.implicit_first and self._starts_atom():
                    self.ambiguous = True
                node = _mul(node, rhs) if val == "*" else ("div", node, rhs)
            elif (kind, val) == ("word", "choose"):
                self.take()
                node = ("call", "binom", (node, self.unary()))
            elif not self.implicit_first and self._starts_atom():
                group = val == "("
                factor = self.power()
                if group and factor[0] == "pow" and not _whole_number(factor[2]):
                    self.ambiguous = True  # "(ab)(bc)(ac)^(1/6)": the root may be meant of the whole product
                node = _mul(node, factor)
            else:
                return node

    def implicit(self):
        node = self.unary()
        while self._starts_atom():
            group = self.peek()[1] == "("
            factor = self.power()
            if group and factor[0] == "pow" and not _whole_number(factor[2]):
                node = ("pow", _mul(node, factor[1]), factor[2])  # "(ab)(bc)(ac)^(1/6)": the root of all of it
            else:
                node = _mul(node, factor)
        return node

    def unary(self):
        val = self.peek()[1]
        if val == "-":
            self.take()
            return ("neg", self.unary())
        if val == "+":
            self.take()
            return self.unary()
        return self.power()

    def power(self):
        base = self.postfix()
        if self.peek()[1] != "^":
            return base
        self.take()
        exponent = self.unary()  # right-associative; 2^-1 allowed
        if exponent[0] == "num" and self.peek()[1] == "/" and self.peek(1)[0] == "num":  # x^1/3
            if self.implicit_first:
                self.take()
                exponent = ("div", exponent, self.atom())
            else:
                self.ambiguous = True
        return ("pow", base, exponent)

    def postfix(self):
        node = self.atom()
        while self.peek()[1] == "!":
            self.take()
            node = ("fact", node)
        return node

    def args(self, close: str) -> tuple:
        out = [self.modulo()]
        while self.peek()[1] == ",":
            self.take()
            out.append(self.modulo())
        self.expect(close)
        return tuple(out)

    def atom(self):
        kind, val = self.take()
        if kind == "num":
            dec = len(val.split(".")[1]) if "." in val else 0
            return ("num", Fraction(val), dec)
        if val in ("(", "["):
            close = ")" if val == "(" else "]"
            inner = self.args(close)
            if len(inner) != 1:
                raise MathParseError("a tuple (a, b) is not a number")
            return inner[0]
        if val == "|":
            self.abs_depth += 1
            inner = self.modulo()
            self.abs_depth -= 1
            self.expect("|")
            return ("abs", inner)
        if kind == "word":
            return self.word(val)
        if kind == "big":
            return self.big(val)
        if kind == "limit":
            return self.limit(val)
        raise MathParseError(f"unexpected {val!r}")

    def limit(self, val: str):
        """``lim_{x→a} body`` (a a number, a name with a value, or ±∞): the body is the product term after it."""
        m = _LIMIT.fullmatch(val)
        var, point = m.group(1), re.sub(r"\s+", "", m.group(2))
        if "¿" in point:
            at = "-oo" if point.startswith("-") else "oo"
        else:
            at = _bound(point, self.functions)
        if self.peek()[0] is None:
            raise MathParseError("a limit without a body")
        return ("lim", var, at, self.product())

    def big(self, val: str):
        """``Σ_{k=lo}^{hi} body``: the body is the product term that follows (it stops at + and -)."""
        m = _BIG.fullmatch(val)
        op = "sum" if m.group(1) == "sum" else "prod"
        var = m.group(2)
        lo = _bound(m.group(3), self.functions)
        hi_text = m.group(4)
        hi = _bound(hi_text[1:-1] if hi_text[0] in "({" else hi_text, self.functions)
        if self.peek()[0] is None:
            raise MathParseError(f"a {op} without a body")
        body = self.product()
        for name in names(body):
            if "_" in name and re.search(rf"(?<![A-Za-z]){var}(?![A-Za-z])", name.split("_", 1)[1]):
                raise MathParseError(f"contains a {op} over indexed terms ({name}), which accord does not evaluate")
        return ("sigma", op, var, lo, hi, body)

    def subscript(self) -> str:
        """The subscript after '_': digits, {..}, (..), a known word, or one letter."""
        kind, val = self.peek()
        if kind == "num":
            self.take()
            return val
        if val in ("{", "("):
            self.take()
            depth, parts = 1, []
            while True:
                k, v = self.take()
                if v in ("{", "("):
                    depth += 1
                elif v in ("}", ")"):
                    depth -= 1
                    if depth == 0:
                        break
                parts.append(v)
            return "".join(parts) if len(parts) == 1 else "{" + "".join(parts) + "}"
        if kind == "word":
            self.take()
            if _SUBSCRIPT_WORDS.fullmatch(val) or len(val) == 1 or len(val) >= 3 or self.long_base:
                return val
            self.t[self.i - 1 : self.i] = [("word", val[0]), ("word", val[1:])]  # "a_ny_n" = a_n·y_n
            return val[0]
        raise MathParseError("a subscript is missing")

    def word(self, val: str):
        self.long_base = False
        if val in CALLS or val in CONSTANTS or val in GREEK:
            name = val
        elif len(val) > 1 and self.peek()[1] == "_":  # an identifier such as total_cost
            name, self.long_base = val, True
        else:
            if len(val) > 1 and (val.lower() in COMMON_WORDS or len(val) > 4):
                raise MathParseError(f"the word {val!r} is prose, not mathematics")
            if len(val) > 1:  # "2ab": a product of one-letter names
                self.t[self.i - 1 : self.i] = [("word", ch) for ch in val]
                self.i -= 1
                return self.atom()
            name = val
        if self.peek()[1] == "_":
            self.take()
            name = f"{name}_{self.subscript()}"
        if name in CONSTANTS:
            return ("name", name)
        base = name.split("_")[0]
        if base in CALLS:
            return self.call(base, name)
        if name == "C" and self.peek()[1] == "(" and self._two_args():
            self.take()
            return ("call", "binom", self.args(")"))
        if name in self.functions and self.peek()[1] == "(":
            self.take()
            return ("apply", name, self.args(")"))
        return ("name", name)

    def _two_args(self) -> bool:
        depth, commas = 0, 0
        for _, v in self.t[self.i :]:
            if v in ("(", "["):
                depth += 1
            elif v in (")", "]"):
                depth -= 1
                if depth == 0:
                    return commas == 1
            elif v == "," and depth == 1:
                commas += 1
        return False

    def call(self, fn: str, written: str):
        if self.peek()[1] in ("(", "["):
            close = ")" if self.take()[1] == "(" else "]"
            args = self.args(close)
        elif self.peek()[0] in ("num", "word") or self.peek()[1] == "|":
            args = (self.power(),)  # "sqrt 2", "log 100", "sin x"
        else:
            raise MathParseError(f"{fn} without an argument")
        if fn == "log" and written != "log":  # log_2(8): the base as a second argument
            if len(args) != 1:
                raise MathParseError("log_b takes one argument")
            return ("call", "log", args + (_number_or_name(written.split("_", 1)[1].strip("{}")),))
        want = CALLS[fn]
        if fn == "log" and len(args) == 2:
            return ("call", "log", args)
        if want is not None and len(args) != want:
            raise MathParseError(f"{fn} takes {want} argument(s), got {len(args)}")
        return ("call", fn, args)


_BIG = re.compile(
    r"¿(sum|prod|product)\s*_\s*\{\s*([A-Za-z])\s*=([^{}=]+)\}\s*\^\s*(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))+\)|\{[^{}]+\}|\d+|[A-Za-z])"
)


_LIMIT = re.compile(r"¿lim\s*_\s*\{\s*([A-Za-z])\s*(?:⇒|→|->|¿to)\s*(-?\s*(?:¿infty|¿infinity|[\w.]+))\s*\}")


def _bound(text: str, functions: frozenset[str]):
    """A bound of a sum or product (``1``, ``n``, ``n-1``); ∞ and the like are refused."""
    p = _Parser(tokens(text), functions, False)
    if not p.t:
        raise MathParseError("a sum or product bound is missing")
    return p.parse()


def _whole_number(tree) -> bool:
    return tree[0] == "num" and tree[1].denominator == 1


def _number_or_name(text: str):
    return ("num", Fraction(text), 0) if re.fullmatch(r"\d+", text) else ("name", text)


def _mul(a, b):
    fa = a[1] if a[0] == "mul" else (a,)
    return ("mul", fa + (b,))


def parse(text: str, functions: frozenset[str] | set[str] = frozenset(), implicit_first: bool = False):
    """The tree of one expression (no relation signs); :class:`MathParseError` if it cannot be read.

    Returns ``(tree, ambiguous)``: ambiguous when the text may be meant two ways (``1/2x``,
    ``x^1/3``); ``implicit_first=True`` gives the other reading (1/(2x), x^(1/3)).
    """
    s = normalize(text)
    if not s:
        raise MathParseError("empty expression")
    if len(s) > MAX_LENGTH:
        raise MathParseError(f"expression longer than {MAX_LENGTH} characters")
    p = _Parser(tokens(s), frozenset(functions), implicit_first)
    if not p.t:
        raise MathParseError("empty expression")
    try:
        tree = p.parse()
    except RecursionError:
        raise MathParseError("expression nested too deeply") from None
    except MathParseError as exc:
        if str(exc).startswith(("the word", "contains", "ambiguous")):
            raise
        raise MathParseError(f"cannot parse {text.strip()!r}: {exc}") from None
    return tree, p.ambiguous


def names(tree) -> set[str]:
    """Free names of a tree (applied functions count by their own name)."""
    kind = tree[0]
    if kind == "name":
        return set() if tree[1] in CONSTANTS else {tree[1]}
    if kind == "num":
        return set()
    if kind == "sigma":  # the index is bound
        return names(tree[3]) | names(tree[4]) | (names(tree[5]) - {tree[2]})
    if kind == "lim":  # so is the variable of a limit
        return (names(tree[2]) if isinstance(tree[2], tuple) else set()) | (names(tree[3]) - {tree[1]})
    out: set[str] = set()
    for child in children(tree):
        out |= names(child)
    return out


def children(tree) -> tuple:
    kind = tree[0]
    if kind in ("add", "mul"):
        return tree[1]
    if kind in ("call", "apply"):
        return tree[2]
    if kind in ("num", "name"):
        return ()
    if kind == "sigma":
        return tree[3:6]
    if kind == "lim":
        return (tree[2], tree[3]) if isinstance(tree[2], tuple) else (tree[3],)
    return tree[1:]


_FORMS = {  # how a node is written, and the context each operand is written in
    "div": ("{}/{}", "mul", "pow"),
    "neg": ("-{}", "mul"),
    "pow": ("{}^{}", "pow", "pow"),
    "fact": ("{}!", "pow"),
    "mod": ("{} mod {}", "mul", "pow"),
}


def to_text(tree) -> str:
    """A compact plain rendering (for reasons and evidence)."""
    kind = tree[0]
    if kind == "num":
        v, decimals = tree[1], tree[2]
        if decimals:  # as written: 2.818, not 1409/500
            whole, frac = divmod(v.numerator * 10**decimals // v.denominator, 10**decimals)
            return f"{whole}.{frac:0{decimals}d}"
        return str(v) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if kind == "name":
        return tree[1]
    if kind == "add":
        out = to_text(tree[1][0])
        for t in tree[1][1:]:
            out += f" - {_wrap(t[1], 'add')}" if t[0] == "neg" else f" + {_wrap(t, 'add')}"
        return out
    if kind == "mul":
        return "·".join(_wrap(f, "mul") for f in tree[1])
    if kind == "abs":
        return f"|{to_text(tree[1])}|"
    if kind == "sigma":
        sign = "Σ" if tree[1] == "sum" else "Π"
        return f"{sign}_{{{tree[2]}={to_text(tree[3])}}}^{{{to_text(tree[4])}}} {_wrap(tree[5], 'mul')}"
    if kind == "lim":
        at = tree[2] if isinstance(tree[2], str) else to_text(tree[2])
        return f"lim_{{{tree[1]}→{at.replace('oo', '∞')}}} {_wrap(tree[3], 'mul')}"
    if kind in _FORMS:
        form, *contexts = _FORMS[kind]
        return form.format(*(_wrap(t, c) for t, c in zip(tree[1:], contexts)))
    return f"{tree[1]}({', '.join(to_text(a) for a in tree[2])})"


def _wrap(tree, ctx: str) -> str:
    text = to_text(tree)
    tight = {
        "add": ("add", "mod"),
        "mul": ("add", "neg", "mod", "div"),
        "pow": ("add", "mul", "div", "neg", "pow", "mod", "fact"),
    }
    if tree[0] in tight[ctx] or (tree[0] == "num" and ctx == "pow" and tree[1].denominator != 1 and not tree[2]):
        return f"({text})"
    return text
