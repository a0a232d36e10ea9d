"""An inspect task scored by accord: step verification, answer equivalence, and model graders
combined by the VERDICT consensus (docs/inspect.md).

    inspect eval examples/inspect/arithmetic.py --model openai/gpt-4o-mini
    inspect eval examples/inspect/arithmetic.py --model openai/gpt-4o-mini -T graders=[openai/gpt-4o,openai/o3-mini]

``python examples/inspect/demo.py`` runs it offline on mock models (``--match-only``: scored by
inspect's ``match`` alone, a log to score with ``inspect score --scorer accord/...`` afterwards).
"""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import Model
from inspect_ai.scorer import match, model_graded_qa, multi_scorer
from inspect_ai.solver import generate, system_message

from accord.integrations.inspect_ai import answer_match, verdict, verify_steps

PROBLEMS = [
    ("q1", "A shop sells 12 boxes of 7 pens. How many pens is that?", "84"),
    ("q2", "Solve 2x + 3 = 11 for x.", "4"),
    ("q3", "What is 3/4 + 1/4 + 1/2?", "3/2"),
    ("q4", "How many primes are less than 10?", "4"),
    ("q5", "Factor x^2 - 5x + 6.", "(x - 2)(x - 3)"),
    ("q6", "A train travels 150 km in 2.5 hours. What is its average speed in km/h?", "60"),
]
DATASET = [Sample(id=i, input=q, target=t) for i, q, t in PROBLEMS]
SYSTEM = "Solve the problem step by step, one step per line, and end with 'The answer is ...'."


@task
def arithmetic(graders: list[str | Model] | None = None, accord: bool = True) -> Task:
    """accord's two scorers; with ``graders``, also the graders' panel with their grades combined by
    the consensus, and the graders with accord's answer match reduced to one score by it (answer
    match weighs 1.5, each grader 1). ``accord=False``: inspect's own ``match`` only, a log to score
    with accord afterwards."""
    if not accord:
        return Task(dataset=DATASET, solver=[system_message(SYSTEM), generate()], scorer=match())
    scorers = [verify_steps(), answer_match()]
    if graders:
        scorers.append(model_graded_qa(model=graders, reducer=verdict(tau=0.6, eps=0.1)))
        panel = [model_graded_qa(model=g) for g in graders] + [answer_match()]
        scorers.append(multi_scorer(panel, verdict(lambdas=[1.0] * len(graders) + [1.5], tau=0.6, eps=0.1)))
    return Task(
        dataset=DATASET,
        solver=[system_message(SYSTEM), generate()],
        scorer=scorers,
    )
