"""The step loop (Algorithm 1 of the VERDICT paper), for any generator, panel and policies.

For each task, several *chains* grow over the same problem: one per policy being compared, plus
``base`` (unverified: always candidate 0). At each step a chain proposes n candidates, the panel
scores them (n x m raw scores), the chain's policy decides, and the chosen step is appended; a
chain stops when the chosen step ends the answer, or at its step or token budget. The task then
extracts and scores the final answer.

Chains share work: candidates are seeded by (run seed, context id), so chains that reach the same
context get the same candidates, served from a per-run cache; scores are cached per (context,
candidate) too. Every decided step and every finished chain is one trace record, written and
flushed at once; on resume the trace refills both caches and the decided steps are replayed
from it, so at most the step in flight is recomputed and finished chains are not touched.

Adaptive verification (off by default): the first ``group`` candidates are generated and scored;
if one is accepted with margin (s̄* >= min_mean and Δ* <= max_dispersion) the rest are skipped,
otherwise the rest are generated and scored in one batch, so a step costs at most two calls. With
a generator whose candidate i depends only on (seed, i) (``seeded_by_row``), an adaptive run sees
exactly the candidates a full run sees: the two differ only where adaptive stopped early.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from accord.consensus_core import Policy, Verdict
from accord.protocols import Generator, StepContext, Task
from accord.verify.loop._margin import Margin, calibrate_margin
from accord.verify.loop._panel import Panel
from accord.verify.loop._scale import ScaleWarmup
from accord.verify.loop._trace import ResumeState, TraceWriter, context_id, task_record

BASE = "base"


@dataclass(frozen=True)
class Chain:
    """A chain label and its policy (``None``: the unverified base chain, always candidate 0)."""

    label: str
    policy: Policy | None = None

    def policy_record(self, lambdas: Sequence[float] | None = None) -> dict[str, Any]:
        """The policy's name and parameters, with the panel's λ it decided with (``lambdas``)."""
        if self.policy is None:
            return {"name": BASE}
        params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.policy.params().items()}
        return {"name": self.policy.name, **params, **({} if lambdas is None else {"lambdas": list(lambdas)})}


@dataclass(frozen=True)
class Adaptive:
    """Early stop within a step: accept with margin, skip the remaining candidates.

    ``calibrate`` (a target agreement, e.g. 0.95): the margin is not hand-set but learned without
    labels: the first ``warmup_steps`` steps of the first verified chain are fully verified, then
    :func:`accord.verify.loop.calibrate_margin` picks the margin that would have stopped
    most often while taking full verification's step at that share of them.
    """

    enabled: bool = False
    group: int = 1
    min_mean: float = 0.9
    max_dispersion: float | None = None  # None: eps / 2 of the chain's policy (0.05 by default)
    calibrate: float | None = None
    warmup_steps: int = 12

    def __post_init__(self):
        if self.group < 1:
            raise ValueError(f"adaptive group must be >= 1, got {self.group}")
        if self.calibrate is not None and not 0 < self.calibrate <= 1:
            raise ValueError(f"adaptive margin calibration needs a target agreement in (0, 1], got {self.calibrate}")
        if self.warmup_steps < 1:
            raise ValueError(f"adaptive warmup_steps must be >= 1, got {self.warmup_steps}")


@dataclass
class Budgets:
    n: int = 3
    max_steps: int = 6
    max_tokens: int = 256  # tokens generated along one chain (its chosen steps)

    def __post_init__(self):
        if self.n < 1 or self.max_steps < 1 or self.max_tokens < 1:
            raise ValueError(
                f"budgets must be >= 1, got n={self.n}, max_steps={self.max_steps}, max_tokens={self.max_tokens}"
            )


def generation_seed(seed: int, cid: str, group: int) -> int:
    """The sampling seed for one group of candidates at one context."""
    h = hashlib.sha1(f"{seed}\x1f{cid}\x1f{group}".encode()).hexdigest()
    return int(h[:15], 16)


@dataclass
class Totals:
    """Work actually done in this process (cache hits and resumed steps cost nothing)."""

    generate_s: float = 0.0
    judge_s: float = 0.0
    decide_s: float = 0.0
    generated_tokens: int = 0
    prompt_tokens: int = 0  # prompt tokens the generator processed (counted per sequence)
    judge_tokens: int = 0
    generate_calls: int = 0
    panel_calls: int = 0
    candidates_generated: int = 0
    candidates_scored: int = 0
    resumed_steps: int = 0


Event = Callable[..., None]


class StepLoop:
    """Runs chains over tasks, writing the trace as it goes."""

    def __init__(
        self,
        generator: Generator,
        panel: Panel,
        chains: Sequence[Chain],
        budgets: Budgets | None = None,
        seed: int = 0,
        adaptive: Adaptive | None = None,
        writer: TraceWriter | None = None,
        resume: ResumeState | None = None,
        on_event: Event | None = None,
        scale: ScaleWarmup | None = None,
    ):
        labels = [c.label for c in chains]
        if not chains or len(set(labels)) != len(labels):
            raise ValueError(f"chains need unique labels, got {labels}")
        self.generator = generator
        self.panel = panel
        self.chains = list(chains)
        self.budgets = budgets or Budgets()
        self.seed = int(seed)
        self.adaptive = adaptive or Adaptive()
        self.writer = writer
        self.resume = resume or ResumeState()
        if self.resume.judges is not None and tuple(self.resume.judges) != tuple(panel.names):
            raise ValueError(
                f"the trace was recorded with judges {list(self.resume.judges)}, the panel has {panel.names}"
            )
        self.on_event = on_event or (lambda *a, **k: None)
        self.totals = Totals()
        self._cands: dict[str, list[str]] = {k: list(v) for k, v in self.resume.candidates.items()}
        self._ctoks: dict[str, list[int]] = {k: list(v) for k, v in self.resume.candidate_tokens.items()}
        self._scores: dict[str, tuple[np.ndarray, list[list[str | None]]]] = dict(self.resume.scores)
        self._abstentions: dict[str, list[list[str | None]]] = dict(self.resume.abstentions)
        self.scale = scale  # judges on one scale (None: raw scores, as recorded runs before it)
        for raw, _ in self._scores.values():  # a panel estimating λ sees the recorded scores again, in order
            panel.observe(raw)
            self._observe_scale(raw, write=False)
        self.margin: Margin | None = None  # the calibrated adaptive margin, once learned
        self._margin_steps: list[tuple[np.ndarray, list[str]]] = []
        self._margin_chain = next((c for c in self.chains if c.policy is not None), None)
        if self.adaptive.enabled and self.adaptive.calibrate is not None and self.budgets.n <= self.adaptive.group:
            raise ValueError(
                f"a calibrated adaptive margin needs more candidates per step ({self.budgets.n}) than "
                f"adaptive.group ({self.adaptive.group}): with no candidate to skip there is nothing to learn"
            )
        for rec in self.resume.steps.values():  # in trace order: the margin is learned where it was before
            if self._margin_chain is not None and rec["chain"] == self._margin_chain.label:
                self._learn_margin(self._margin_chain, rec)

    # ------------------------------------------------------------------ caches
    def _group_size(self) -> int:
        return min(self.adaptive.group, self.budgets.n) if self.adaptive.enabled else self.budgets.n

    def candidates(self, ctx: StepContext, cid: str, k: int) -> tuple[list[str], float, int]:
        """The first k candidates at this context, generating missing groups (time, tokens spent)."""
        have = self._cands.setdefault(cid, [])
        toks = self._ctoks.setdefault(cid, [])
        spent, gen_tokens = 0.0, 0
        g = self.budgets.n if self._calibrating() else self._group_size()
        while len(have) < k:
            size = (
                min(g, self.budgets.n - len(have)) if not have else self.budgets.n - len(have)
            )  # then the rest at once
            self.on_event("generate", context=cid, n=size)
            t0 = time.perf_counter()
            if getattr(self.generator, "seeded_by_row", False):  # the same candidates however the calls split
                new = list(self.generator.propose(ctx, size, generation_seed(self.seed, cid, 0), first=len(have)))
            else:
                new = list(self.generator.propose(ctx, size, generation_seed(self.seed, cid, len(have) // g)))
            dt = time.perf_counter() - t0
            if len(new) != size or not all(isinstance(c, str) for c in new):
                raise RuntimeError(f"generator returned {len(new)} candidates for {size} asked")
            stats = getattr(self.generator, "last_stats", {}) or {}
            per = stats.get("per_candidate")
            per = list(per) if isinstance(per, (list, tuple)) and len(per) == size else [len(c.split()) for c in new]
            have.extend(new)
            toks.extend(int(t) for t in per)
            spent += dt
            call_tokens = int(stats.get("generated", sum(per)))
            gen_tokens += call_tokens
            self.totals.generate_s += dt
            self.totals.generated_tokens += call_tokens
            self.totals.prompt_tokens += int(stats.get("prompt", 0) or 0)
            self.totals.generate_calls += 1
            self.totals.candidates_generated += size
        return have[:k], spent, gen_tokens

    def scores(self, ctx: StepContext, cid: str, cands: list[str]) -> tuple[np.ndarray, list, dict[str, float], int]:
        """Raw scores (k, m) and failure reasons for the candidates, scoring only new ones."""
        raw, fails = self._scores.get(cid, (np.zeros((0, self.panel.m)), []))
        judge_s = {n: 0.0 for n in self.panel.names}
        tokens = 0
        if raw.shape[0] < len(cands):
            new = cands[raw.shape[0] :]
            self.on_event("judge", context=cid, n=len(new))
            t0 = time.perf_counter()
            ps = self.panel.score(ctx, new)
            self.totals.judge_s += time.perf_counter() - t0
            self.totals.judge_tokens += ps.tokens
            self.totals.panel_calls += 1
            self.totals.candidates_scored += len(new)
            raw = np.vstack([raw, ps.raw])
            fails = fails + ps.failures
            self._scores[cid] = (raw, fails)
            none = [[None] * self.panel.m for _ in new]
            self._abstentions[cid] = self._abstentions.get(cid, []) + (ps.abstentions or none)
            self._observe_scale(ps.raw)
            judge_s, tokens = ps.judge_s, ps.tokens
        return raw[: len(cands)], fails[: len(cands)], judge_s, tokens

    def _abstention_rows(self, cid: str, n: int) -> list[list[str | None]]:
        """The recorded abstentions of a context's first n candidates, one row of m per candidate: scores
        taken from elsewhere (a resumed trace, another worker) carry no abstentions, so their rows are empty."""
        m = self.panel.m
        rows = [r if isinstance(r, list) and len(r) == m else [None] * m for r in self._abstentions.get(cid, [])[:n]]
        return rows + [[None] * m for _ in range(n - len(rows))]

    def _observe_scale(self, raw: np.ndarray, write: bool = True) -> None:
        """Feed newly scored candidates to a judge scale still in its warm-up; once it is fitted,
        its maps (and thresholds) are written to the trace so that a reader reapplies them."""
        fitted_now = self.scale is not None and self.scale.observe(raw, self.panel.consensus)
        if fitted_now and write and self.writer is not None:
            self.writer.write({"type": "calibration", **self.scale.scale.as_dict()})

    def _scaled(self, raw: np.ndarray) -> np.ndarray:
        """The scores the decisions take: on the judge scale once it is fitted, else raw."""
        return self.scale.scale.apply(raw) if self.scale is not None and self.scale.fitted else raw

    # -------------------------------------------------------------------- loop
    def _policy(self, chain: Chain) -> Policy | None:
        """The chain's policy, with VERDICT's τ, ε once the panel has calibrated them. (λ and W are the
        panel's: every decision takes ``panel.consensus``.)"""
        policy = chain.policy
        if policy is None:
            return None
        th = getattr(self.panel, "thresholds", None)
        if self.scale is not None and self.scale.fitted and self.scale.scale.thresholds is not None:
            th = self.scale.scale.thresholds  # τ, ε set on the judge scale
        # calibrated on s̄* and Δ*: consensus rules only
        if th is not None and isinstance(policy, Verdict) and np.isfinite(th["tau"]):
            policy = replace(policy, tau=th["tau"], eps=th["eps"])
        return policy

    def _decide(self, chain: Chain, raw: np.ndarray):
        raw = self._scaled(raw)
        if chain.policy is None:
            st = self.panel.stats(raw)
            accepted = np.zeros(raw.shape[0], dtype=bool)
            accepted[0] = True
            return 0, accepted, False, st
        d = self._policy(chain).decide(raw[None], self.panel.consensus)
        st = d.stats
        st = type(st)(**{k: v[0] for k, v in vars(st).items()})
        return int(d.chosen[0]), d.accepted[0], bool(d.fallback[0]), st

    def _calibrating(self) -> bool:
        return self.adaptive.enabled and self.adaptive.calibrate is not None and self.margin is None

    def _learn_margin(self, chain: Chain, record: dict[str, Any]) -> None:
        """During the margin warm-up: keep the first verified chain's fully verified steps, and
        calibrate the margin once there are enough (replayed the same way on resume)."""
        if not self._calibrating() or chain is not self._margin_chain or len(record["candidates"]) < self.budgets.n:
            return
        raw = self._scaled(np.array(record["raw"], dtype=float))  # None: NaN; on the judge scale when fitted
        self._margin_steps.append((raw, list(record["candidates"])))
        if len(self._margin_steps) >= self.adaptive.warmup_steps:
            self.margin = calibrate_margin(
                self._margin_steps,
                self._policy(chain),
                self.adaptive.calibrate,
                min(self.adaptive.group, self.budgets.n),
                self.panel.consensus,
            )

    def margin_record(self) -> dict[str, Any]:
        """The adaptive margin in force now, and where it came from (recorded per step and in the summary)."""
        if self.adaptive.calibrate is None:
            return {
                "source": "fixed",
                "min_mean": self.adaptive.min_mean,
                "max_dispersion": self.adaptive.max_dispersion,
            }
        if self.margin is None:
            return {
                "source": "calibrating",
                "steps_seen": len(self._margin_steps),
                "warmup_steps": self.adaptive.warmup_steps,
            }
        return {"source": "calibrated", **self.margin.as_dict()}

    def _margin(self, chain: Chain, chosen: int, accepted, st) -> bool:
        if chain.policy is None:
            return True  # the base chain only ever needs candidate 0
        if self._calibrating():
            return False  # warm-up: every step fully verified
        if chosen < 0 or not accepted[chosen]:
            return False
        if self.margin is not None:
            min_mean, max_disp = self.margin.min_mean, self.margin.max_dispersion
        else:
            eps = float(getattr(self._policy(chain), "eps", 0.1))
            min_mean = self.adaptive.min_mean
            max_disp = self.adaptive.max_dispersion if self.adaptive.max_dispersion is not None else eps / 2
        return bool(st.mean[chosen] >= min_mean and st.dispersion[chosen] <= max_disp)

    def step(self, task: Task, chain: Chain, ctx: StepContext, index: int) -> dict[str, Any]:
        """Decide one step of one chain: the step record (already written to the trace)."""
        cid = context_id(task.id, ctx.steps)
        recorded = self.resume.steps.get((task.id, chain.label, index))
        if recorded is not None and recorded["context_id"] == cid:
            self.totals.resumed_steps += 1
            return recorded
        n = self.budgets.n
        k = n if self._calibrating() else self._group_size()
        gen_s = judge_wall = 0.0
        gen_tokens = judge_tokens = 0
        judge_s = {name: 0.0 for name in self.panel.names}
        while True:
            cands, g_s, g_t = self.candidates(ctx, cid, k)
            gen_s, gen_tokens = gen_s + g_s, gen_tokens + g_t
            t0 = time.perf_counter()
            raw, fails, j_s, j_t = self.scores(ctx, cid, cands)
            judge_wall += time.perf_counter() - t0
            judge_tokens += j_t
            for name, v in j_s.items():
                judge_s[name] += v
            t0 = time.perf_counter()
            chosen, accepted, fallback, st = self._decide(chain, raw)
            decide_s = time.perf_counter() - t0
            self.totals.decide_s += decide_s
            if not self.adaptive.enabled or k >= n or self._margin(chain, chosen, accepted, st):
                break
            k = n  # no margin: the rest in one batch (one more generate call, not one per group)
        no_scores = chosen < 0
        if no_scores:
            chosen = 0  # recorded fallback: nobody could score any candidate
        step_text = cands[chosen]
        final = self.generator.is_final(step_text)
        record: dict[str, Any] = {
            "type": "step",
            "task_id": task.id,
            "chain": chain.label,
            "step": index,
            "context_id": cid,
            "candidates": cands,
            "judges": self.panel.names,
            "lambdas": list(self.panel.lambdas),
            "raw": raw,
            "failures": fails,
            "abstentions": self._abstention_rows(cid, len(cands)),
            "policy": Chain(chain.label, self._policy(chain)).policy_record(self.panel.lambdas),
            "consensus": st.consensus,
            "mean": st.mean,
            "dispersion": st.dispersion,
            "raw_mean": st.raw_mean,
            "raw_var": st.raw_var,
            "accepted": [bool(a) for a in accepted],
            "chosen": chosen,
            "fallback": bool(fallback or no_scores),
            "final": bool(final),
            "timings": {"generate_s": gen_s, "judge_s": judge_s, "judge_wall_s": judge_wall, "decide_s": decide_s},
            "tokens": {"generated": gen_tokens, "judge_prompt": judge_tokens},
            "candidate_tokens": self._ctoks[cid][: len(cands)],
            "n_generated": len(cands),
            "n_scored": len(cands),
        }
        if no_scores:
            record["note"] = "no candidate was scored by any judge; took candidate 0"
        if self.scale is not None and self.scale.fitted:
            record["scale"] = self.scale.scale.method  # decided on the judge scale of the trace's calibration record
        if self.adaptive.enabled:
            record["adaptive"] = {
                "group": self._group_size(),
                "stopped_early": len(cands) < n,
                "margin": self.margin_record(),
            }
        if self.writer is not None:
            self.writer.write(record)
        self._learn_margin(chain, record)
        return record

    def run_chain(self, task: Task, chain: Chain) -> dict[str, Any]:
        """Grow one chain to its end: the task_end record (already written to the trace)."""
        done = self.resume.ends.get((task.id, chain.label))
        if done is not None:
            return done
        ctx = task.context()
        steps: list[str] = []
        tokens = 0
        stopped = "step_budget"
        for index in range(self.budgets.max_steps):
            self.on_event("step", task=task.id, chain=chain.label, step=index)
            rec = self.step(task, chain, ctx, index)
            text = rec["candidates"][rec["chosen"]]
            toks = rec.get("candidate_tokens") or []
            tokens += int(toks[rec["chosen"]]) if len(toks) > rec["chosen"] else len(text.split())
            if text.strip():
                steps.append(text)
                ctx = ctx.extend(text)
            if rec["final"]:
                stopped = "final"
                break
            if tokens >= self.budgets.max_tokens:
                stopped = "token_budget"
                break
        answer = task.extract_answer(steps)
        end = {
            "type": "task_end",
            "task_id": task.id,
            "chain": chain.label,
            "steps": steps,
            "answer": answer,
            "reference": str(getattr(task, "reference", "") or ""),
            "correct": float(task.score(steps)),
            "stopped": stopped,
            "n_steps": len(steps),
            "tokens": tokens,
        }
        source = getattr(task, "answer_source", None)
        if callable(source):
            end["answer_source"] = source(steps)
        if self.writer is not None:
            self.writer.write(end)
        return end

    def run_task(self, task: Task) -> list[dict[str, Any]]:
        """Every chain over one task, its question and reference recorded first (once per trace,
        so that a reader can show question and chosen steps together); the task_end records."""
        if self.writer is not None and task.id not in self.resume.tasks:
            self.writer.write(task_record(task))
            self.resume.tasks.add(task.id)
        return [self.run_chain(task, chain) for chain in self.chains]

    def run(self, tasks: Sequence[Task], progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
        """Every chain over every task, in order; the task_end records. ``progress(done, total)``
        after each task (all its chains)."""
        out = []
        for i, task in enumerate(tasks):
            self.on_event("task", task=task.id, index=i, total=len(tasks))
            out.extend(self.run_task(task))
            self.on_event("task_done", task=task.id, index=i, total=len(tasks))
            if progress is not None:
                progress(i + 1, len(tasks))
        return out


def chain_accuracy(ends: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Mean correctness per chain label."""
    by: dict[str, list[float]] = {}
    for e in ends:
        by.setdefault(e["chain"], []).append(float(e["correct"]))
    return {k: float(np.mean(v)) for k, v in by.items()}
