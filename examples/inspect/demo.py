"""Run examples/inspect/arithmetic.py offline: three mock "models" answer with the texts below, two
mock graders grade them, and the logs go to a folder (default logs/inspect-demo).

    python examples/inspect/demo.py [FOLDER] [--match-only]
    accord jury FOLDER            # the three logs as a jury panel

``--match-only``: the task scored by inspect's ``match`` alone (a log as you may already have one).
"""

import sys
from pathlib import Path

from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

sys.path.insert(0, str(Path(__file__).parent))
from arithmetic import PROBLEMS, arithmetic  # noqa: E402

ANSWERS = {  # alpha is right everywhere; beta slips on q2; gamma on q2, q4 and q6
    "alpha": [
        "12 * 7 = 84.\nThe answer is 84.",
        "2x = 11 - 3 = 8.\nSo x = 4.\nThe answer is 4.",
        "3/4 + 1/4 = 1.\n1 + 1/2 = 3/2.\nThe answer is 1.5.",
        "The primes below 10 are 2, 3, 5 and 7.\nThe answer is 4.",
        "x^2 - 5x + 6 = (x - 2)(x - 3).\nThe answer is (x-3)(x-2).",
        "150 / 2.5 = 60.\nThe answer is 60.",
    ],
    "beta": [
        "12 * 7 = 84.\nThe answer is 84.",
        "2x = 11 - 3 = 14.\nSo x = 7.\nThe answer is 7.",
        "3/4 + 1/4 + 1/2 = 3/2.\nThe answer is 3/2.",
        "The primes below 10 are 2, 3, 5 and 7.\nThe answer is 4.",
        "x^2 - 5x + 6 = (x - 2)(x - 3).\nThe answer is (x - 3)(x - 2).",
        "150 / 2.5 = 60.\nThe answer is 60 km/h.",
    ],
    "gamma": [
        "12 * 7 = 84.\nThe answer is 84.",
        "2x = 11 - 3 = 14.\nSo x = 7.\nThe answer is 7.",
        "3/4 + 1/4 + 1/2 = 3/2.\nThe answer is 3/2.",
        "The primes below 10 are 2, 3, 5, 7 and 9.\nThe answer is 5.",
        "x^2 - 5x + 6 = (x - 2)(x - 3).\nThe answer is (x-2)(x-3).",
        "150 / 2.5 = 65.\nThe answer is 65.",
    ],
}
GRADES = {"lenient": "CCCCCC", "strict": "CICCCI"}  # one letter per problem


def reply(text: str, name: str) -> ModelOutput:
    out = ModelOutput.from_content(model=name, content=text)
    out.usage = ModelUsage(input_tokens=40, output_tokens=30, total_tokens=70)  # set: no tokenizer is fetched
    return out


def by_question(texts: list[str], name: str):
    """A mock model that answers each problem with its text (samples run concurrently)."""

    def answer(messages, tools, tool_choice, config):
        asked = messages[-1].text
        k = next(k for k, (_, q, _) in enumerate(PROBLEMS) if q in asked)
        return reply(texts[k], name)

    return get_model(f"mockllm/{name}", custom_outputs=answer)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--match-only"]
    folder = args[0] if args else "logs/inspect-demo"
    graders = [by_question([f"GRADE: {g}" for g in grades], name) for name, grades in GRADES.items()]
    models = [by_question(texts, name) for name, texts in ANSWERS.items()]
    task = arithmetic(accord=False) if "--match-only" in sys.argv else arithmetic(graders=graders)
    for log in eval(task, model=models, log_dir=folder, display="none"):
        print(log.eval.model, log.status, log.location)
