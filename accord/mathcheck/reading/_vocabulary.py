"""The words of mathematical prose that change what a formula claims, one table per vocabulary.

Every reader of the engine takes its words from here, so that a word added for one reader counts for
all of them. Each table is the source of a regular expression (case-insensitive, matched on word
boundaries by :func:`words`).
"""

from __future__ import annotations

import re
from functools import lru_cache

# "let's simplify", "let's expand": an operation announced, not a supposition ("let's say", "let x = 2")
LET = (
    r"let(?!['’]s\s+(?:now\s+|first\s+|then\s+|further\s+)?(?:simplif|expand|factor|rewrit|rearrang|solv|comput|"
    r"calculat|complet|consider|find|subtract|add|multipl|divid|combin|group|squar|evaluat|reduc|mov|isolat|cancel|"
    r"collect|bring|cross))"
)

# the start of a proof by contradiction
CONTRARY = (
    r"for\s+(?:the\s+sake\s+of\s+)?(?:a\s+)?contradiction|to\s+the\s+contrary|on\s+the\s+contrary|"
    r"suppose\s+not|assume\s+not|assume\s+otherwise|suppose\s+otherwise|contrary\s+to"
)
# the absurdity a step says it derived
CONTRADICTION = (
    r"contradict\w*|impossible|not\s+possible|absurd\w*|cannot\s+be|can['’]t\s+be|is\s+not\s+true|isn['’]t\s+true|"
    r"not\s+hold|does\s+not\s+hold|doesn['’]t\s+hold|false|not\s+an\s+integer|"
    r"no\s+(?:integer\s+|positive\s+|real\s+|natural\s+|prime\s+)?solutions?|not\s+(?:divisible|congruent|equal)|"
    r"≢|\\not\\equiv|\\neq"
)
# a claim made only as a question or a possibility, never asserted
HYPOTHETICAL = r"if|whether|suppose|supposing|assume|assuming|when|unless|need|want|would|could|might|should|check|test"
# a claim hedged as a guess or a likelihood ("it seems", "probably")
HEDGING = r"may|might|perhaps|maybe|probably|likely|seems?|appears?|conjecture|guess"
# a formula put as a trial, a failure or a rough value, not as found ("so x = 4 does not work")
TRIAL = (
    r"if|whether|suppose|supposing|assume|assuming|unless|try|trying|tried|check\w*|test\w*|example|not|never|"
    r"fails?|failed|impossible|contradict\w*|approximately|roughly|would|could|might|n['’]t"
)
# an operation on the formula before: its result must follow from it
OPERATING = (
    r"rearrang\w*|subtract\w*|adding|add|mov(?:e|es|ing)|expand\w*|simplif\w*|collect\w*|combin\w*|bring\w*|"
    r"divid\w*|multiply\w*|multiplied|cancel\w*|both\s+sides|cross[- ]?multipl\w*|solv\w*|isolat\w*|squar\w*|"
    r"raising|(?:re)?group\w*|factor\w*|rewrit\w*|rewrote|substitut\w*|plug\w*|replac\w*|distribut\w*"
)
# a result drawn from what came before: "so", "we get", "this gives"
DERIVING = (
    r"we\s+get|gets?|gives?|giving|implies|implying|which\s+means|means\s+that|so|thus|hence|therefore|yields?|"
    r"obtain|follows|becomes|reduces\s+to|simplifies\s+to|we\s+have|then|consequently|it\s+follows"
)
# a statement of the result
CONCLUDING = (
    r"therefore|thus|hence|so|in\s+conclusion|finally|the\s+answer|the\s+final\s+answer|answer\s*:|"
    r"the\s+(?:smallest|largest|least|greatest|minimum|maximum)\s+(?:possible\s+)?value|we\s+conclude"
)
# the last words of a line whose claim is the formula on the next line ("This simplifies to")
LEAD_IN_END = r"as|as\s+follows|get|obtain|gives?|yields?|becomes?|simplifies\s+to|reduces\s+to|we\s+have"
# a known inequality cited for what a step states
CITED_INEQUALITY = (
    r"AM\s*[-–—]\s*GM|AM\s*[-–—]\s*HM|GM\s*[-–—]\s*HM|QM\s*[-–—]\s*AM|RMS\s*[-–—]\s*AM|Cauchy|Schwarz|"
    r"triangle\s+inequality|power\s+means?|H[öo]lder|Jensen|Chebyshev|rearrangement\s+inequality|Bernoulli|"
    r"Schur|Muirhead|Nesbitt|arithmetic\s+mean\s*[-–—]\s*geometric\s+mean|"
    r"(?:apply\w*|using|by)\s+(?:this|that|the\s+above)\s+inequality"
)
# the names of Greek letters, read as one name each
GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi omicron rho "
    "varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon "
    "Phi Psi Omega"
).split()


@lru_cache(maxsize=64)
def words(*tables: str) -> re.Pattern:
    """One regular expression for the words of the given tables, each on word boundaries."""
    return re.compile(r"\b(?:" + "|".join(tables) + r")\b", re.IGNORECASE)


def says(text: str, *tables: str) -> bool:
    """The text uses a word of one of the tables."""
    return bool(words(*tables).search(text))
