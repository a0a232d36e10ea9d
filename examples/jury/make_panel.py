"""Write examples/jury/panel.jsonl: a labelled panel of 4 unequal members (seeded, reproducible),
and examples/jury/unlabelled.jsonl: the same rows without their references, for the label round
trip (--ask-labels, fill in, --labels) as a person would make it.

Members right with probability 0.6 / 0.45 / 0.3 / 0.2, errors correlated through a shared
difficulty, a third of wrong answers on one shared wrong answer (the reference + 1); answers are
written in different but equivalent forms (7, 7.0, \\boxed{7}) so --equivalence math matters.

    python examples/jury/make_panel.py
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from accord.consensus_core.jury._law import simulate_unequal_panel

MEMBERS = ("alpha", "bravo", "charlie", "delta")


def main(n: int = 300, seed: int = 7, out: Path | None = None, unlabelled: Path | None = None) -> Path:
    """Write the panel to ``out`` (default: panel.jsonl here) and, when ``unlabelled`` is given or
    ``out`` is the default, its rows without references (default: unlabelled.jsonl here)."""
    here = Path(__file__).parent
    sim = simulate_unequal_panel([0.6, 0.45, 0.3, 0.2], correlation=0.3, s=0.3, n=n, seed=seed)
    rng = np.random.default_rng(seed)
    forms = ("{}", "{}.0", "\\boxed{{{}}}")
    rows = []
    for i, row in enumerate(sim.codes):
        truth = int(rng.integers(10, 500))
        answers = {}
        for name, code in zip(MEMBERS, row):
            if code == 0:
                value = truth
            elif code == 1:
                value = truth + 1
            else:
                value = truth + int(rng.integers(2, 400))
            answers[name] = forms[int(rng.integers(0, 3))].format(value)
        if rng.random() < 0.02:
            answers[MEMBERS[int(rng.integers(0, 4))]] = None  # a member that gave no answer
        rows.append({"id": f"q{i + 1}", "answers": answers, "reference": str(truth)})
    if unlabelled is None and out is None:
        unlabelled = here / "unlabelled.jsonl"
    out = out or here / "panel.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if unlabelled is not None:
        bare = ({k: v for k, v in r.items() if k != "reference"} for r in rows)
        unlabelled.write_text("".join(json.dumps(r) + "\n" for r in bare), encoding="utf-8")
    return out


if __name__ == "__main__":
    print(main())
