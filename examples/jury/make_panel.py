"""Write examples/jury/panel.jsonl: a labelled panel of 4 unequal members (seeded, reproducible).

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


def main(n: int = 300, seed: int = 7, out: Path | None = None) -> Path:
    sim = simulate_unequal_panel([0.6, 0.45, 0.3, 0.2], correlation=0.3, s=0.3, n=n, seed=seed)
    rng = np.random.default_rng(seed)
    out = out or Path(__file__).with_name("panel.jsonl")
    forms = ("{}", "{}.0", "\\boxed{{{}}}")
    with out.open("w", encoding="utf-8") as fh:
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
            fh.write(json.dumps({"id": f"q{i + 1}", "answers": answers, "reference": str(truth)}) + "\n")
    return out


if __name__ == "__main__":
    print(main())
