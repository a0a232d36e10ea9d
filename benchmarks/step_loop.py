"""Cost of verification in the step loop, on SmolLM2-135M on this CPU; ratios measured in one run.

(a) our judging (next-token scores, all n x m prompts batched, prefix KV reused) against the naive
    way (each of the n x m judge calls a separate ``generate()`` of up to 5 tokens, parsed), on the
    same contexts and candidates;
(b) judging time / candidate-generation time per step, in the step loop with the default panel;
(c) adaptive verification (score the first candidate, stop when it is accepted with margin, else
    generate and score the rest in one batch) against full verification, on the same candidates
    (the generator's candidate i depends only on (seed, i)), both with VERDICT thresholds set
    label-free for this panel: τ and ε from a calibration run on other problems
    (accord.consensus_core._reliability.calibrate_thresholds, target acceptance rate 0.5), and the
    margin from the same run (accord.verify.loop.calibrate_margin: the margin that stops
    most often while taking full verification's step at >= 95% of the calibration steps). Cost is
    reported as model tokens processed (generator prompt tokens computed + generated + judge tokens
    computed; does not depend on machine load), as seconds, and in the paper's units (a candidate
    generated 1, scored 0.8/3; section 12 of the VERDICT paper); accuracy on the default task.

Run: python benchmarks/step_loop.py [--tasks 12] [--part a|b|c|all] [--threads 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
from pathlib import Path

import _machine  # benchmarks/_machine.py: the machine line and CPU time beside wall time

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def naive_judge(model, tokenizer, prompts: list[str], mode: str) -> list[float | None]:
    """The naive way: one generate() of up to 5 tokens per judge call, the text parsed."""
    import torch

    out: list[float | None] = []
    for prompt in prompts:
        enc = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        with torch.no_grad():
            ids = model.generate(**enc, max_new_tokens=5, do_sample=False, pad_token_id=tokenizer.pad_token_id)
        text = tokenizer.decode(ids[0, enc["input_ids"].shape[1] :], skip_special_tokens=True).strip().lower()
        if mode == "yes_no":
            m = re.search(r"\b(yes|no)\b", text)
            out.append(None if m is None else float(m.group(1) == "yes"))
        else:
            m = re.search(r"\d", text)
            out.append(None if m is None else int(m.group(0)) / 9.0)
    return out


def part_a(args, model, tokenizer, tasks) -> dict[str, float]:
    from accord.adapters.local._llm import LLMJudges, TransformersGenerator, judge_items
    from accord.adapters.local._scoring import NextTokenScorer

    gen = TransformersGenerator.from_loaded(model, tokenizer, max_new_tokens=32)
    judges = LLMJudges(lm=model, tokenizer=tokenizer)  # three roles, yes/no, no judge cache
    plain = NextTokenScorer(model, tokenizer, batch_size=1)  # one prompt per forward, for the breakdown
    ours = naive = unbatched = 0.0
    cpu = {"naive": 0.0, "one forward per prompt": 0.0, "ours": 0.0}  # CPU seconds beside the wall times
    calls = agree = parsed = 0
    for t, task in enumerate(tasks[: args.a_tasks]):
        ctx = task.context()
        for s in range(args.a_steps):
            cands = gen.propose(ctx, 3, seed=1000 * t + s)
            items = [it for role in judges.roles for it in judge_items(tokenizer, role, "yes_no", ctx, cands)]
            t0, c0 = time.perf_counter(), time.process_time()
            fast = [x.value for row in judges.score_many(ctx, cands) for x in row]
            ours += time.perf_counter() - t0
            cpu["ours"] += time.process_time() - c0
            t0, c0 = time.perf_counter(), time.process_time()
            for it in items:
                plain.clear_prefixes()
                plain.score([it])
            unbatched += time.perf_counter() - t0
            cpu["one forward per prompt"] += time.process_time() - c0
            t0, c0 = time.perf_counter(), time.process_time()
            slow = naive_judge(model, tokenizer, [p + q for p, q in items], "yes_no")
            naive += time.perf_counter() - t0
            cpu["naive"] += time.process_time() - c0
            calls += len(items)
            print(f"    task {t} step {s}: ours {ours:.2f} s, naive {naive:.2f} s so far", file=sys.stderr, flush=True)
            for f, v in zip(fast, slow):
                if v is not None:
                    parsed += 1
                    agree += int((f >= 0.5) == (v >= 0.5))
            ctx = ctx.extend(cands[0])
    print(f"(a) {calls} judge calls over {args.a_tasks} tasks x {args.a_steps} steps (3 roles x 3 candidates per step)")
    print(f"    naive generate()+parse: {naive:.2f} s   one forward per prompt: {unbatched:.2f} s   ours: {ours:.2f} s")
    print("    CPU time: " + "   ".join(f"{k}: {v:.2f} s" for k, v in cpu.items()))
    print(f"    naive parsed {parsed}/{calls}; verdicts agree with ours (P(yes) >= 0.5) on {agree}/{max(parsed, 1)}")
    print(
        f"(a) RATIO naive / ours = {naive / ours:.2f}x  (target >= 5x);  one-forward-per-prompt / ours = "
        f"{unbatched / ours:.2f}x"
    )
    return {"a_ratio": naive / ours}


class _Records:
    """Keeps the step records in memory (the loop's trace-writer interface)."""

    def __init__(self):
        self.steps: list[dict] = []

    def write(self, record: dict) -> None:
        if record.get("type") == "step":
            self.steps.append(record)


def cold_caches(generator, panel) -> None:
    """Each measured run starts with empty key/value caches, as a fresh process would: no run pays
    less for what an earlier one computed."""
    generator.clear_prompt_cache()
    for group in panel.groups:
        for part in (group, getattr(group, "judge", None)):
            scorer = getattr(part, "scorer", None)
            if scorer is not None:
                scorer.clear_prefixes()


def run_loop(cfg, tasks, generator, panel, adaptive: bool):
    from accord.verify.loop import Adaptive, StepLoop, chain_accuracy
    from accord.verify.run import build_chains

    cold_caches(generator, panel)
    a = cfg.adaptive
    chains = build_chains(dataclasses.replace(cfg, baselines=(), base_chain=False))
    loop = StepLoop(
        generator,
        panel,
        chains,
        cfg.budgets.budgets(),
        seed=cfg.seed,
        adaptive=Adaptive(adaptive, a.group, a.min_mean, a.max_dispersion),
        writer=(records := _Records()),
        on_event=lambda kind, **kw: (
            kind == "task_done"
            and print(
                f"    {'adaptive' if adaptive else 'full'}: task {kw['index'] + 1}/{kw['total']} done",
                file=sys.stderr,
                flush=True,
            )
        ),
    )
    ends = loop.run(tasks)
    return loop.totals, chain_accuracy(ends)[chains[0].label], records.steps


def part_bc(args, model, tokenizer, tasks, parts: str) -> dict[str, float]:
    from accord.adapters.local import TransformersGenerator
    from accord.verify.loop import build_panel
    from accord.verify.run import resolve

    # the step-loop settings these figures are measured with: the paper's sampling, chains of up to 4 steps
    cfg = resolve(
        None, [{"generator": {"temperature": 0.8, "top_p": 0.6}, "budgets": {"n_candidates": 3, "max_steps": 4}}]
    )
    g = cfg.generator
    gen = TransformersGenerator.from_loaded(
        model, tokenizer, temperature=g.temperature, top_p=g.top_p, max_new_tokens=g.max_new_tokens
    )
    panel = build_panel([j.as_dict() for j in cfg.judges], models={"smollm2": (model, tokenizer)})
    out: dict[str, float] = {}
    if "c" in parts:
        out.update(part_c(args, cfg, tasks, gen, panel))
    if "b" not in parts:
        return out
    full, acc_full, _ = run_loop(cfg, tasks, gen, panel, adaptive=False)
    print(f"    full run done: {full.panel_calls} steps, accuracy {acc_full:.3f}", file=sys.stderr, flush=True)
    steps = full.panel_calls
    print(f"(b) default panel {panel.names}, {len(tasks)} tasks, {steps} steps, n = {cfg.budgets.n_candidates}")
    print(
        f"    generation {full.generate_s:.2f} s ({full.generate_s / steps:.3f} s/step), "
        f"judging {full.judge_s:.2f} s ({full.judge_s / steps:.3f} s/step)"
    )
    out["b_ratio"] = full.judge_s / full.generate_s
    print(f"(b) RATIO judging / generation per step = {out['b_ratio']:.3f}  (target <= 0.3)")
    return out


def _cost(t) -> tuple[int, float]:
    return t.prompt_tokens + t.generated_tokens + t.judge_tokens, t.generate_s + t.judge_s


def part_c(args, cfg, tasks, gen, panel) -> dict[str, float]:
    import numpy as np

    from accord.consensus_core import calibrate_thresholds, get_policy
    from accord.verify.loop import calibrate_margin
    from accord.verify.run import PolicyConfig
    from accord.verify.tasks import load_tasks

    calib_tasks = load_tasks("basic_arithmetic", size=args.calib_tasks, seed=args.calib_seed)
    _, _, calib_steps = run_loop(cfg, calib_tasks, gen, panel, adaptive=False)
    raw = np.concatenate([np.asarray(r["raw"], dtype=float) for r in calib_steps])
    th = calibrate_thresholds(raw, panel.lambdas, target_rate=0.5)
    policy = get_policy("verdict", tau=th.tau, eps=th.eps)
    margin = calibrate_margin(
        [(np.asarray(r["raw"], dtype=float), r["candidates"]) for r in calib_steps],
        policy,
        target_agreement=args.target_agreement,
        spec=panel.consensus,
    )
    print(
        f"(c) calibration: {len(calib_tasks)} other problems (seed {args.calib_seed}), {raw.shape[0]} candidates -> "
        f"tau {th.tau:.3f}, eps {th.eps:.3f} (acceptance {th.acceptance_rate:.2f}; the paper's 0.6/0.1 accept "
        f"{th.paper_acceptance_rate:.2f}); margin from {margin.steps} fully verified steps: mean >= "
        f"{margin.min_mean:.3f}, "
        f"dispersion <= {margin.max_dispersion:.3f} (would stop at {100 * margin.stop_rate:.0f}% of them, agreeing "
        "with "
        f"full verification at {100 * margin.agreement:.0f}%; target {100 * args.target_agreement:.0f}%)"
    )
    c = dataclasses.replace(
        cfg,
        policy=PolicyConfig("verdict", {"tau": th.tau, "eps": th.eps}),
        adaptive=dataclasses.replace(cfg.adaptive, min_mean=margin.min_mean, max_dispersion=margin.max_dispersion),
    )
    full, acc_full, full_steps = run_loop(c, tasks, gen, panel, adaptive=False)
    ada, acc_ada, ada_steps = run_loop(c, tasks, gen, panel, adaptive=True)
    (tok_f, sec_f), (tok_a, sec_a) = _cost(full), _cost(ada)
    stopped = sum(1 for r in ada_steps if r.get("adaptive", {}).get("stopped_early"))
    by_ctx = {(r["task_id"], r["context_id"]): r for r in full_steps}

    def pick(r):
        return r["candidates"][r["chosen"]]

    same = [r for r in ada_steps if (r["task_id"], r["context_id"]) in by_ctx]
    differ = sum(1 for r in same if pick(r) != pick(by_ctx[(r["task_id"], r["context_id"])]))
    print(
        f"(c) adaptive stopped early at {stopped}/{len(ada_steps)} steps; at the {len(same)} contexts both runs "
        "reached "
        f"it took another step than full verification {differ} times; candidates generated {ada.candidates_generated} "
        f"vs {full.candidates_generated}, scored {ada.candidates_scored} vs {full.candidates_scored}"
    )
    for name, t in (("full", full), ("adaptive", ada)):
        print(
            f"    {name}: generator prompt {t.prompt_tokens} + generated {t.generated_tokens} + judge {t.judge_tokens} "
            "tokens; "
            f"generation {t.generate_s:.1f} s, judging {t.judge_s:.1f} s"
        )
    print(
        f"    tokens adaptive {tok_a} vs full {tok_f}; seconds adaptive {sec_a:.1f} vs full {sec_f:.1f}; "
        f"accuracy adaptive {acc_ada:.3f} vs full {acc_full:.3f}"
    )
    saved_tok, saved_s, change = 1 - tok_a / tok_f, 1 - sec_a / sec_f, 100 * (acc_ada - acc_full)
    saved_units = 1 - _paper_units(ada) / _paper_units(full)
    print(
        f"(c) RATIO cost saved = {100 * saved_tok:.1f}% in tokens, {100 * saved_s:.1f}% in seconds, "
        f"{100 * saved_units:.1f}% in the paper's units (target >= 30%); accuracy change = {change:+.1f} points "
        f"(target >= -1)",
        flush=True,
    )
    return {
        "c_saved_tokens": saved_tok,
        "c_saved_seconds": saved_s,
        "c_saved_paper_units": saved_units,
        "c_accuracy_change_points": change,
    }


def _paper_units(t) -> float:
    """Cost in the VERDICT paper's units: a candidate's generation is 1, its judging 0.8 / 3 (the paper's
    9 judge calls per step of 3 candidates cost 0.8 of the base model); shared prompts are not counted."""
    return t.candidates_generated + 0.8 / 3 * t.candidates_scored


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", default="all", help="a, b, c, bc or all")
    p.add_argument("--tasks", type=int, default=12, help="default-task questions for (b) and (c)")
    p.add_argument("--a-tasks", type=int, default=2)
    p.add_argument("--a-steps", type=int, default=2)
    p.add_argument("--calib-tasks", type=int, default=6, help="(c) calibration problems (other seed)")
    p.add_argument("--calib-seed", type=int, default=1)
    p.add_argument(
        "--target-agreement",
        type=float,
        default=0.95,
        help="(c) margin: the loosest whose choices agree with full verification on this share of calibration steps",
    )
    p.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    args = p.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from accord.adapters.local import load_causal_lm
    from accord.verify.tasks import load_tasks

    model, tokenizer = load_causal_lm("smollm2")
    tasks = load_tasks("basic_arithmetic", size=args.tasks, seed=0)
    parts = "abc" if args.part == "all" else args.part
    if "a" in parts:
        part_a(args, model, tokenizer, tasks)
    if "b" in parts or "c" in parts:
        part_bc(args, model, tokenizer, tasks, parts)


if __name__ == "__main__":
    with _machine.Run():
        main()
