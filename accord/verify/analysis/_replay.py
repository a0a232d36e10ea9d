"""Re-decide recorded steps under another policy, thresholds or stubbornness, without a model.

Every decision depends only on the recorded raw score matrix, so re-deciding one recorded step is
exact. A whole chain is exact only while it stays on recorded ground: replay walks the tree of
recorded contexts from the root (the empty step list), decides on the recorded candidates, and
moves to the child context. A chain whose step list equals one that some recorded chain ended
with is *exact* and inherits that chain's correctness; a chain that reaches a context no chain
recorded has *diverged*: its correctness is unknown and is reported as such, never guessed.

All decisions are taken by the consensus core's policies (``get_policy(...).decide``), batched
over every recorded context with the same shape and stubbornness.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from accord.consensus_core import ConsensusSpec, get_policy, list_policies, parse_lambdas
from accord.verify.analysis._records import RunSettings, StepRecord, TaskEnd, Trace, read_settings
from accord.verify.loop import JudgeScale, context_id

EXACT, DIVERGED = "exact", "diverged"


@dataclass(frozen=True)
class PolicySpec:
    """A core policy by name with its parameters, and optionally the λ to replay it with
    (``lambdas`` among ``params``; absent: each step's recorded λ). λ is the panel's, not the
    policy's: it goes to the :class:`ConsensusSpec` the decisions take."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    label: str = ""

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def title(self) -> str:
        if self.label:
            return self.label
        if not self.params:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in self.params)

    def with_params(self, **params) -> PolicySpec:
        merged = {**self.kwargs, **{k: v for k, v in params.items() if v is not None}}
        return make_spec(self.name, **merged)

    def policy(self):
        """The core policy object (its own parameters)."""
        return get_policy(self.name, **{k: v for k, v in self.params if k != "lambdas"})

    def consensus(self, lambdas: tuple[float, ...], influence=None) -> ConsensusSpec:
        """The panel's consensus to replay with: this spec's λ if it has one, else the recorded ``lambdas``."""
        return ConsensusSpec(self.kwargs.get("lambdas") or lambdas, influence)

    def decide(self, raw, lambdas: tuple[float, ...], influence=None):
        """The policy's decision for recorded scores (..., n, m) of a panel with the recorded λ (and W)."""
        return self.policy().decide(raw, self.consensus(lambdas, influence))


def _fmt(v) -> str:
    if isinstance(v, (tuple, list)):
        return "(" + ",".join(_fmt(x) for x in v) + ")"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _policy_fields(name: str) -> set[str]:
    return {f.name for f in fields(type(get_policy(name)))}


def make_spec(name: str, label: str = "", **params) -> PolicySpec:
    """A validated spec: unknown policy or parameter names raise ValueError (from the core); ``lambdas``
    (read by the one λ reader) replays with that λ instead of the recorded one."""
    key = name.strip().lower().replace("-", "_")
    if params.get("lambdas") is not None:
        params["lambdas"] = parse_lambdas(params["lambdas"])
    else:
        params.pop("lambdas", None)
    get_policy(key, **{k: v for k, v in params.items() if k != "lambdas"})  # validates name, parameter names and values
    return PolicySpec(key, tuple(sorted(params.items())), label)


def parse_policy_spec(text: str) -> PolicySpec:
    """``"verdict"``, ``"verdict:tau=0.5,eps=0.2"``, ``"variance:max_var=0.02"``, ``"mean:lambdas=1.5,1,0.8"``.

    λ is written as everywhere else (comma-separated): the numbers after ``lambdas=`` up to the next
    ``name=value`` are its values."""
    name, _, rest = text.partition(":")
    params: dict[str, Any] = {}
    key = None
    for part in (p.strip() for p in rest.split(",")) if rest.strip() else ():
        if not part:  # "lambdas=1,,2" would silently replay with one λ fewer
            raise ValueError(f"empty value between commas in {text!r}; write every value (e.g. lambdas=1,1,2)")
        k, eq, value = part.partition("=")
        if not eq:
            if key != "lambdas":
                raise ValueError(f"policy parameter {part!r} in {text!r} must look like name=value")
            params["lambdas"] += "," + part
            continue
        key = k.strip()
        if key == "lambdas":
            params[key] = value
        elif key == "seed":
            params[key] = int(value)
        else:
            params[key] = float(value)
    return make_spec(name, **params)


def recorded_spec(policy: dict[str, Any], label: str = "") -> PolicySpec | None:
    """The spec a chain recorded, keeping the parameters its core policy knows; None if not a core policy."""
    name = str(policy.get("name", "")).strip().lower().replace("-", "_")
    if name not in list_policies():
        return None
    allowed = _policy_fields(name) | {"lambdas"}  # the λ the chain decided with (recorded with its policy)
    flat = {**policy, **(policy.get("params") or {})} if isinstance(policy.get("params"), dict) else policy
    params = {k: v for k, v in flat.items() if k in allowed and v is not None}
    return make_spec(name, label=label, **params)


@dataclass(frozen=True)
class Node:
    """A recorded context: what any chain saw and was scored there (the most candidates recorded)."""

    task_id: str
    context_id: str
    candidates: tuple[str, ...]
    lambdas: tuple[float, ...]
    raw: np.ndarray
    candidate_tokens: tuple[int, ...] | None = None


def _extends(long: StepRecord | Node, short: StepRecord) -> bool:
    """True if ``short`` recorded a prefix of ``long``'s candidates and scores (an early-stopped step)."""
    k = len(short.candidates)
    return long.candidates[:k] == short.candidates and np.array_equal(long.raw[:k], short.raw, equal_nan=True)


@dataclass
class ContextTree:
    """Every recorded context and chain end of a trace, with the run's budgets and influence matrix.

    A context recorded by several chains must show the same candidates and scores; a chain that
    stopped scoring early (adaptive runs) records a prefix of them. The longest record is kept.
    Whether a step ends the answer depends only on its text, so it is known for every step text
    some chain took.
    """

    nodes: dict[tuple[str, str], Node]
    ends: dict[tuple[str, tuple[str, ...]], TaskEnd]
    tasks: list[str]  # tasks that some chain finished: the ones a replay can be scored on
    inconsistent: list[str] = field(default_factory=list)
    unfinished: list[str] = field(default_factory=list)  # recorded steps but no chain finished them
    final_by_text: dict[str, bool] = field(default_factory=dict)
    settings: RunSettings = field(default_factory=RunSettings)
    max_recorded_step: int = -1

    @classmethod
    def from_trace(cls, trace: Trace, settings: RunSettings | None = None) -> ContextTree:
        """The tree of a trace; budgets and influence come from the run's config.yaml when not given."""
        settings = settings if settings is not None else read_settings(trace.path.parent)
        nodes: dict[tuple[str, str], Node] = {}
        bad: list[str] = []
        final_by_text: dict[str, bool] = {}
        for r in trace.steps:
            key = (r.task_id, r.context_id)
            node = nodes.get(key)
            if node is None or (len(r.candidates) > len(node.candidates) and _extends(r, node)):
                nodes[key] = Node(r.task_id, r.context_id, r.candidates, r.lambdas, r.raw, r.candidate_tokens)
            elif not _extends(node, r):
                bad.append(
                    f"line {r.line}: context {r.context_id[:10]} of task {r.task_id!r} was recorded "
                    f"with different candidates or scores; the first record is used"
                )
            if r.chosen >= 0:
                final_by_text.setdefault(r.candidates[r.chosen], r.final)
        ends: dict[tuple[str, tuple[str, ...]], TaskEnd] = {}
        for e in trace.ends:
            ends.setdefault((e.task_id, e.steps), e)
        finished = {e.task_id for e in trace.ends}
        tasks = [t for t in trace.tasks() if t in finished]
        return cls(
            nodes,
            ends,
            tasks,
            bad,
            [t for t in trace.tasks() if t not in finished],
            final_by_text,
            settings,
            max((r.step for r in trace.steps), default=-1),
        )

    def decide(
        self, spec: PolicySpec, scale: JudgeScale | None = None
    ) -> dict[tuple[str, str], tuple[int, np.ndarray, bool]]:
        """(chosen, accepted mask, fallback) for every recorded context, batched per shape and λ;
        with a judge ``scale``, on every judge's mapped scores (None: the raw scores)."""
        groups: dict[tuple, list[tuple[str, str]]] = {}
        for key, node in self.nodes.items():
            groups.setdefault((node.raw.shape, node.lambdas), []).append(key)
        out: dict[tuple[str, str], tuple[int, np.ndarray, bool]] = {}
        for (_, lambdas), keys in groups.items():
            raw = np.stack([self.nodes[k].raw for k in keys])
            d = spec.decide(raw if scale is None else scale.apply(raw), lambdas, self.settings.influence)
            for i, k in enumerate(keys):
                out[k] = (int(d.chosen[i]), d.accepted[i], bool(d.fallback[i]))
        return out


@dataclass(frozen=True)
class ChainOutcome:
    """Where a replayed chain ended: exact (with the recorded correctness) or diverged."""

    task_id: str
    status: str
    steps: tuple[str, ...]
    choices: tuple[int, ...]  # chosen candidate index at each decided step
    correct: float | None
    reason: str = ""
    same_as: tuple[str, ...] = ()  # recorded chains that ended with exactly these steps
    contexts: tuple[str, ...] = ()  # context id of each decided step


def walk(tree: ContextTree, task_id: str, decisions, chains_by_end=None) -> ChainOutcome:
    """Follow one task's replayed chain through the recorded contexts, as the step loop would.

    Mirrors the loop: a candidate nobody could score falls back to candidate 0; an empty step does
    not extend the context; the chain stops at a final step or at the step / token budget (when
    the run's config.yaml gives them; otherwise where a recorded chain ended and no chain went on).
    """
    steps: list[str] = []
    choices: list[int] = []
    contexts: list[str] = []
    tokens = 0
    st = tree.settings

    def out(status: str, reason: str = "") -> ChainOutcome:
        end = tree.ends.get((task_id, tuple(steps))) if status == EXACT else None
        if status == EXACT and end is None:
            status, reason = DIVERGED, "the chain ends here but no recorded chain ended with these steps"
        same = tuple(chains_by_end.get((task_id, tuple(steps)), ())) if chains_by_end and end else ()
        return ChainOutcome(
            task_id, status, tuple(steps), tuple(choices), end.correct if end else None, reason, same, tuple(contexts)
        )

    # without the run's config, no replayed chain can go past the deepest recorded step
    max_steps = st.max_steps if st.max_steps is not None else tree.max_recorded_step + 1
    index = 0
    while True:
        if index >= max_steps:
            return out(EXACT)
        cid = context_id(task_id, steps)
        node = tree.nodes.get((task_id, cid))
        if node is None:
            if st.max_steps is None and (task_id, tuple(steps)) in tree.ends:
                return out(EXACT)  # a budget stopped a recorded chain here
            why = "the task has no recorded steps" if not index else f"the context of step {index} was never recorded"
            return out(DIVERGED, why)
        chosen = decisions[(task_id, cid)][0]
        chosen = 0 if chosen < 0 else chosen  # nobody scored any candidate: the loop takes candidate 0
        text = node.candidates[chosen]
        choices.append(chosen)
        contexts.append(cid)
        toks = node.candidate_tokens
        tokens += toks[chosen] if toks is not None else len(text.split())
        final = tree.final_by_text.get(text)
        if text.strip():
            steps.append(text)
        index += 1
        if final is None:
            return out(
                DIVERGED,
                f"step {index - 1} took a candidate no recorded chain took: whether it ends the answer is unknown",
            )
        if final or (st.max_tokens is not None and tokens >= st.max_tokens):
            return out(EXACT)


@dataclass
class ReplayResult:
    """One policy replayed over every task of a trace."""

    spec: PolicySpec
    outcomes: dict[str, ChainOutcome]
    step_agreement: dict[str, tuple[int, int]]  # recorded chain -> (same choice, steps compared)
    unfinished: int = 0  # tasks left out: no recorded chain finished them (an interrupted run)

    @property
    def n_tasks(self) -> int:
        return len(self.outcomes)

    @property
    def n_exact(self) -> int:
        return sum(o.status == EXACT for o in self.outcomes.values())

    @property
    def n_diverged(self) -> int:
        return self.n_tasks - self.n_exact

    def correct_exact(self) -> dict[str, float]:
        return {t: o.correct for t, o in self.outcomes.items() if o.status == EXACT}

    def summary(self) -> dict[str, Any]:
        """Counts and accuracies: among exact chains, and the bounds over every possible divergence."""
        c = np.array(list(self.correct_exact().values()), dtype=float)
        n = self.n_tasks
        return {
            "policy": self.spec.title,
            "name": self.spec.name,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in self.spec.params},
            "n_tasks": n,
            "exact": self.n_exact,
            "diverged": self.n_diverged,
            "unfinished_tasks": self.unfinished,
            "accuracy_exact": float(c.mean()) if c.size else None,
            "accuracy_low": float(c.sum() / n) if n else None,
            "accuracy_high": float((c.sum() + self.n_diverged) / n) if n else None,
            "step_agreement": {
                ch: {"same": a, "steps": b, "share": (a / b if b else None)}
                for ch, (a, b) in self.step_agreement.items()
            },
        }


def replay(
    trace: Trace, spec: PolicySpec, tree: ContextTree | None = None, scale: JudgeScale | None = None
) -> ReplayResult:
    """Replay one policy over every task; also compare its step choices with each recorded chain's.
    ``scale``: decide on the judges' mapped scores (see :class:`accord.verify.loop.JudgeScale`)."""
    tree = tree or ContextTree.from_trace(trace)
    decisions = tree.decide(spec, scale)
    by_end: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for e in trace.ends:
        by_end.setdefault((e.task_id, e.steps), []).append(e.chain)
    outcomes = {t: walk(tree, t, decisions, by_end) for t in tree.tasks}
    agreement: dict[str, list[int]] = {}
    for r in trace.steps:
        a = agreement.setdefault(r.chain, [0, 0])
        a[0] += decisions[(r.task_id, r.context_id)][0] == r.chosen
        a[1] += 1
    return ReplayResult(spec, outcomes, {k: (v[0], v[1]) for k, v in agreement.items()}, len(tree.unfinished))


def replay_many(trace: Trace, specs: Iterable[PolicySpec]) -> list[ReplayResult]:
    tree = ContextTree.from_trace(trace)
    return [replay(trace, s, tree) for s in specs]


def fidelity(trace: Trace, settings: RunSettings | None = None) -> dict[str, dict[str, Any]]:
    """Re-decide each chain's own steps under its recorded policy: how many decisions reproduce.

    A faithful trace reproduces every chosen index, acceptance mask and fallback flag (a step where
    nobody scored any candidate is recorded as candidate 0 by fallback); chains whose policy is not
    a core policy (the unverified base chain) are skipped.
    """
    settings = settings if settings is not None else read_settings(trace.path.parent)
    out: dict[str, dict[str, Any]] = {}
    for chain in trace.chains():
        recs = [r for r in trace.steps if r.chain == chain]
        policy = trace.chain_policy(chain)
        spec = recorded_spec(policy) if policy else None
        if spec is None or not recs:
            continue
        ok = _ok_mask(recs, spec, settings.influence, recorded_scale(trace))
        out[chain] = {
            "policy": spec.title,
            "steps": len(recs),
            "reproduced": int(sum(ok)),
            "mismatched_lines": [r.line for r, good in zip(recs, ok) if not good][:20],
        }
    return out


def recorded_scale(trace: Trace) -> JudgeScale | None:
    """The judge scale a run decided on after its warm-up (its trace's calibration record), if any."""
    if not trace.calibration:
        return None
    return JudgeScale.from_dict({k: v for k, v in trace.calibration.items() if k not in ("type", "seq", "run_id")})


def _ok_mask(recs: list[StepRecord], spec: PolicySpec, influence=None, scale: JudgeScale | None = None) -> list[bool]:
    ok = [False] * len(recs)
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(recs):
        groups.setdefault(
            (r.raw.shape, r.lambdas, r.scale is not None, r.policy.get("tau"), r.policy.get("eps")), []
        ).append(i)
    for (_, lambdas, scaled, tau, eps), idx in groups.items():
        raw = np.stack([recs[i].raw for i in idx])
        if scaled and scale is not None:
            raw = scale.apply(raw)
        step_spec = spec if tau is None else spec.with_params(tau=tau, eps=eps)  # τ, ε as recorded at the step
        d = step_spec.decide(raw, lambdas, influence)
        for j, i in enumerate(idx):
            r = recs[i]
            chosen, fallback = int(d.chosen[j]), bool(d.fallback[j])
            if chosen < 0:
                chosen, fallback = 0, True
            ok[i] = (
                chosen == r.chosen and tuple(bool(x) for x in d.accepted[j]) == r.accepted and fallback == r.fallback
            )
    return ok
