"""The risk-control rules by name, without scipy: the CLI's parser offers them as choices."""

RISK_BOUNDS = ("binomial", "hb", "clopper-pearson")  # the first is the default
TESTS = {
    "binomial": "Learn-then-Test, fixed sequence over descending confidence from the deepest start that tolerates "
    "errors, exact binomial p-values",
    "hb": "Learn-then-Test, fixed sequence over descending confidence from the deepest start that tolerates "
    "errors, Hoeffding-Bentkus p-values",
    "clopper-pearson": "Learn-then-Test, fixed-sequence over descending confidence, exact binomial (Clopper-Pearson) "
    "p-values",
}
