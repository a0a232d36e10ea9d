"""The risk-control rules by name, without scipy: the CLI's parser offers them as choices."""

RISK_BOUNDS = ("hypergeometric", "binomial", "hb", "clopper-pearson")  # the first is the default
TESTS = {
    "hypergeometric": "Learn-then-Test, fixed sequence over descending confidence from the deepest start that "
    "tolerates errors, exact hypergeometric p-values on the rows of the file at or above each threshold",
    "binomial": "Learn-then-Test, fixed sequence over descending confidence from the deepest start that tolerates "
    "errors, exact binomial p-values",
    "hb": "Learn-then-Test, fixed sequence over descending confidence from the deepest start that tolerates "
    "errors, Hoeffding-Bentkus p-values",
    "clopper-pearson": "Learn-then-Test, fixed-sequence over descending confidence, exact binomial (Clopper-Pearson) "
    "p-values",
}
# --risk draws its labels among, and answers at most, this share of the rows, the most confident first
CANDIDATE_SHARE = 0.6
