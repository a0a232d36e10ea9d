"""``accord verify --backend ray``: solutions judged by Ray actors, written by the driver.

Each actor builds the panel once from the settings (so each model is loaded once per actor) and
judges whole solutions; the driver keeps the judge-call cache and the ``--out`` file: it serves
solutions whose every step is cached itself, sends the rest to the actors (an
:class:`ray.util.ActorPool`, results in input order) and caches what comes back.

**A worker that dies** (a preempted node, an OOM kill) is Ray's to mend: the actors are restartable
(``max_restarts``: Ray runs the constructor again, building the panel again) and their calls
retried (``max_task_retries``: the call that was running when the actor died is run again on the
restarted actor). Judging a solution has no side effect (the driver writes, once, what comes
back), so a call run twice is harmless and its solution's line is written once. Each call first
tells the run's :class:`Attempts` actor which solution it starts, so the run counts the solutions
judged again. Only an actor that keeps dying (more than :data:`RETRIES` restarts, or the same call
lost more than :data:`RETRIES` times) stops the run, with the lines already written kept;
``--resume`` continues.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator, Sequence

from accord.errors import UserError
from accord.verify.solutions._judging import PanelScorer, ScoreCache, StepScores, judge_solution, make_panel
from accord.verify.solutions._reading import Solution
from accord.verify.solutions._settings import VerifySettings

RETRIES = 2  # restarts of each actor, and runs again of one lost call


def _short(exc: BaseException) -> str:
    cause = getattr(exc, "cause", None) or exc
    lines = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {lines[-1] if lines else ''}"[:300]


class Attempts:
    """Held by an actor on the driver's node: how often each solution's judging started."""

    def __init__(self):
        self.started: Counter[int] = Counter()

    def start(self, index: int) -> None:
        self.started[index] += 1

    def retried(self) -> list[int]:
        """The solutions (by their place in the run) whose judging started more than once."""
        return sorted(i for i, n in self.started.items() if n > 1)


class SolutionJudge:
    """Held by a Ray actor: one panel, judging one solution per call."""

    def __init__(self, settings: VerifySettings, attempts: str):
        import ray

        self.panel = make_panel(settings)
        self.attempts = ray.get_actor(attempts)  # by name: a handle among the arguments would pin them

    def info(self) -> tuple[list[str], list[float], dict]:
        return list(self.panel.names), list(self.panel.lambdas), self.panel.describe()

    def judge(self, index: int, sol: Solution) -> list[StepScores]:
        import ray

        ray.get(self.attempts.start.remote(index))  # on record before the work a death would lose
        return judge_solution(sol, PanelScorer(self.panel))


class RayJudges:
    """``workers`` actors on a Ray cluster (``address``, or RAY_ADDRESS, or a local one), named
    ``accord-judge-<i>-<run>``."""

    def __init__(
        self, settings: VerifySettings, workers: int, address: str | None = None, cpus_per_worker: float = 1.0
    ):
        from accord.verify.io import connect_ray

        try:
            self.ray = connect_ray(address)
        except UserError:
            raise
        except Exception as exc:  # Ray's own start-up errors (a node that timed out, no cluster at the address)
            raise UserError(f"--backend ray: cannot start or reach Ray ({str(exc).splitlines()[0]})") from None
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = NodeAffinitySchedulingStrategy(self.ray.get_runtime_context().get_node_id(), soft=False)
        tag = uuid.uuid4().hex[:8]
        attempts = f"accord-attempts-{tag}"
        self.attempts = self.ray.remote(Attempts).options(num_cpus=0, scheduling_strategy=here, name=attempts).remote()
        actor = self.ray.remote(SolutionJudge).options
        self.actors = [
            actor(
                num_cpus=cpus_per_worker, max_restarts=RETRIES, max_task_retries=RETRIES, name=f"accord-judge-{i}-{tag}"
            ).remote(settings, attempts)
            for i in range(workers)
        ]
        self.retried: list[int] = []  # indices into the last ``scored`` call's solutions, judged again
        try:
            self.names, self.lambdas, self.info = self.ray.get(self.actors[0].info.remote())
        except Exception as exc:  # the panel could not be built on the cluster
            self.close()
            raise UserError(f"--backend ray: the panel could not be built: {exc}") from None

    def scored(
        self, todo: Sequence[Solution], cache: ScoreCache, progress
    ) -> Iterator[tuple[Solution, list[StepScores]]]:
        """(solution, step scores) in input order: cached ones at once, the others from the actors."""
        from ray.util import ActorPool

        cached = {s.id: cache.get_solution(s) for s in todo}
        sent = [(i, s) for i, s in enumerate(todo) if cached[s.id] is None]
        remote = ActorPool(self.actors).map(lambda a, job: a.judge.remote(*job), sent)
        for sol in todo:
            scored = cached[sol.id]
            if scored is None:
                try:
                    scored = next(remote)
                except self.ray.exceptions.RayTaskError as exc:  # the judging itself raised
                    raise UserError(
                        f"--backend ray: judging {sol.id} failed ({_short(exc)}); the finished solutions are "
                        "written, continue with --resume"
                    ) from None
                except self.ray.exceptions.RayError as exc:
                    raise UserError(
                        f"--backend ray: a worker failed ({type(exc).__name__}) after {RETRIES} restarts or "
                        "retries; the finished solutions are written, continue with --resume"
                    ) from None
                cache.put_solution(sol, scored)
            progress(len(sol.steps))
            yield sol, scored
        self.retried = self.ray.get(self.attempts.retried.remote())

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.ray.kill(self.attempts)
