"""``accord verify --backend ray``: solutions judged by Ray actors, written by the driver.

Each actor builds the panel once from the settings (so each model is loaded once per actor) and
judges whole solutions; the driver keeps the judge-call cache and the ``--out`` file: it serves
solutions whose every step is cached itself, sends the rest to the actors (an
:class:`ray.util.ActorPool`, results in input order) and caches what comes back. An actor that
dies stops the run with the lines already written kept; ``--resume`` continues.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from accord.errors import UserError
from accord.verify.solutions._judging import PanelScorer, ScoreCache, StepScores, judge_solution, make_panel
from accord.verify.solutions._reading import Solution
from accord.verify.solutions._settings import VerifySettings


class SolutionJudge:
    """Held by a Ray actor: one panel, judging one solution per call."""

    def __init__(self, settings: VerifySettings):
        self.panel = make_panel(settings)

    def info(self) -> tuple[list[str], list[float], dict]:
        return list(self.panel.names), list(self.panel.lambdas), self.panel.describe()

    def judge(self, sol: Solution) -> list[StepScores]:
        return judge_solution(sol, PanelScorer(self.panel))


class RayJudges:
    """``workers`` actors on a Ray cluster (``address``, or RAY_ADDRESS, or a local one)."""

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
        actor = self.ray.remote(num_cpus=cpus_per_worker)(SolutionJudge)
        self.actors = [actor.remote(settings) for _ in range(workers)]
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
        remote = ActorPool(self.actors).map(lambda a, s: a.judge.remote(s), [s for s in todo if cached[s.id] is None])
        for sol in todo:
            scored = cached[sol.id]
            if scored is None:
                try:
                    scored = next(remote)
                except self.ray.exceptions.RayError as exc:
                    raise UserError(
                        f"--backend ray: a worker failed ({type(exc).__name__}); the finished "
                        "solutions are written, continue with --resume"
                    ) from None
                cache.put_solution(sol, scored)
            progress(len(sol.steps))
            yield sol, scored

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
