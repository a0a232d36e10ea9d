"""Write examples/ensemble/rewards.jsonl and pairs.jsonl with REAL rewards from the packaged models.

40 arithmetic prompts, 4 responses each (one correct, three with wrong results); labels by
math-verify against the reference. Rewards per response:

- ``loglik``: SmolLM2-135M-Instruct mean token log-probability of the response (implicit reward);
- ``judge``: SmolLM2 as the step loop's LLM judge (logic role, P(yes)) — a generative judge;
- ``similarity``: all-MiniLM-L6-v2 cosine similarity of the response to the worked reference.

    python examples/ensemble/make_rewards.py        (about a minute on a CPU)
    python examples/ensemble/make_rewards.py --similarity-only   (recompute that column only)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from accord.adapters.local import LLMJudge
from accord.adapters.local._models import load_causal_lm, load_minilm
from accord.adapters.local._reward import (
    CorrectnessReward,
    JudgeReward,
    LikelihoodReward,
    SimilarityReward,
    reward_rows,
)

HERE = Path(__file__).parent


def items(n: int = 40, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a, b = (int(x) for x in rng.integers(2, 60, 2))
        op = "+" if i % 2 == 0 else "*"
        value = a + b if op == "+" else a * b
        prompt = f"What is {a} {op} {b}?"
        reference = f"{a} {'plus' if op == '+' else 'times'} {b} gives {value}"  # worded unlike the responses
        wrong = sorted({value + d for d in rng.choice([-11, -10, -2, -1, 1, 2, 9, 10], 3, replace=False)})
        answers = [value, *wrong]
        order = rng.permutation(len(answers))
        for k in order:
            v = answers[k]
            out.append(
                {
                    "prompt_id": f"p{i + 1}",
                    "response_id": f"r{k + 1}",
                    "prompt": prompt,
                    "response": f"{a} {op} {b} = {v}. The answer is {v}.",
                    "reference": str(value),
                    "solution": reference,
                }
            )
    return out


def similarity_only() -> None:
    """Recompute the similarity column of rewards.jsonl and pairs.jsonl (the SmolLM2 columns kept)."""
    data = {(d["prompt_id"], d["response_id"]): d for d in items()}
    rows = [json.loads(x) for x in (HERE / "rewards.jsonl").read_text().splitlines()]
    ds = [data[(r["prompt_id"], r["response_id"])] for r in rows]
    sim = SimilarityReward(load_minilm()).rewards(
        [d["prompt"] for d in ds], [d["response"] for d in ds], [d["solution"] for d in ds]
    )
    for r, s in zip(rows, sim):
        r["similarity"] = float(s)
    write(rows)


def write(rows: list[dict]) -> None:
    with (HERE / "rewards.jsonl").open("w") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    by_prompt: dict[str, list[dict]] = {}
    for r in rows:
        by_prompt.setdefault(r["prompt_id"], []).append(r)
    with (HERE / "pairs.jsonl").open("w") as fh:
        for pid, rs in by_prompt.items():
            good = [r for r in rs if r["label"] == 1]
            for bad in (r for r in rs if r["label"] == 0):
                for g in good:
                    keep = lambda r: {k: r[k] for k in ("loglik", "judge", "similarity")}  # noqa: E731
                    fh.write(json.dumps({"prompt_id": pid, "chosen": keep(g), "rejected": keep(bad)}) + "\n")
    print(HERE / "rewards.jsonl", HERE / "pairs.jsonl")


def main() -> None:
    lm, tok = load_causal_lm("smollm2")
    data = items()
    labels = CorrectnessReward().rewards(
        [d["prompt"] for d in data], [d["response"] for d in data], [d["reference"] for d in data]
    )
    for d, y in zip(data, labels):
        d["label"] = int(y)
    sources = [
        LikelihoodReward(lm, tok, name="loglik"),
        JudgeReward(LLMJudge("logic", lm=lm, tokenizer=tok), name="judge"),
    ]
    rows = reward_rows(sources, data)
    sim = SimilarityReward(load_minilm()).rewards(
        [d["prompt"] for d in data], [d["response"] for d in data], [d["solution"] for d in data]
    )
    for r, s in zip(rows, sim):
        r["similarity"] = float(s)
    write(rows)


if __name__ == "__main__":
    import sys

    similarity_only() if "--similarity-only" in sys.argv else main()
