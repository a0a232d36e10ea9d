"""``accord curate FILE``: drop the benchmark questions a panel answers without their essential context."""

from __future__ import annotations

import argparse
import json

from accord.cli.progress import add_quiet, progress_bar
from accord.errors import UserError

NAME = "curate"
HELP = (
    "Benchmark curation: ask a panel each question without its image (or a named field); drop what a quorum still gets "
    "right."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "file", help='JSONL benchmark: {"id"?, "question", "answer", "image"? or the field to drop} per line'
    )
    p.add_argument(
        "--member",
        action="append",
        default=None,
        metavar="[NAME=]MODEL",
        help="a panel member: smollm2, a local path or a name (repeat; default one smollm2)",
    )
    p.add_argument(
        "--drop",
        default="image",
        metavar="FIELD",
        help="the essential context to leave out: image (default) or a field name",
    )
    p.add_argument(
        "--quorum",
        type=int,
        default=None,
        metavar="K",
        help="drop a question when K members answer it right (default: a majority)",
    )
    p.add_argument(
        "--temperature", type=float, default=0.0, help="sampling temperature of the members (default 0: greedy)"
    )
    p.add_argument(
        "--max-steps", type=int, default=2, help="lines a member may write before it must have answered (default 2)"
    )
    p.add_argument("--max-new-tokens", type=int, default=32, help="tokens per step (default 32)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="write the kept questions (as read) to this JSONL file")
    p.add_argument(
        "--report", default=None, help="write one JSON line per question: kept, every member's answer and grade"
    )
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    add_quiet(p)


def parse_members(specs: list[str]) -> dict[str, str]:
    """NAME -> model; an unnamed model is named after itself (#2, #3 ... when repeated)."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, model = spec.partition("=")
        if not sep:
            name, model = spec, spec
        name, model = name.strip(), model.strip()
        if not name or not model:
            raise UserError(f"--member: expected [NAME=]MODEL, got {spec!r}")
        base, k = name, 2
        while name in out:
            name, k = f"{base}#{k}", k + 1
        out[name] = model
    return out


def load_members(members: dict[str, str], args: argparse.Namespace) -> dict:
    """One generator per member; a model named twice is loaded once."""
    from accord.adapters.local import TransformersGenerator, check_sampling, load_causal_lm
    from accord.verify.curation import ANSWER_EXAMPLE, ANSWER_SYSTEM

    try:
        check_sampling(args.temperature, 1.0, args.max_new_tokens)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    panel = {}
    for name, model in members.items():
        try:
            lm, tok = load_causal_lm(model)
        except (OSError, ValueError) as exc:
            raise UserError(f"--member {name}: cannot load {model!r}: {str(exc).splitlines()[0]}") from None
        panel[name] = TransformersGenerator.from_loaded(
            lm,
            tok,
            model=model,
            temperature=args.temperature,
            max_new_tokens=args.max_new_tokens,
            system_prompt=ANSWER_SYSTEM,
            instruction="",
            example=ANSWER_EXAMPLE,
        )
    return panel


def run(args: argparse.Namespace) -> int:
    from accord.verify.curation import curate, read_benchmark, write_curation

    members = parse_members(args.member or ["smollm2"])
    quorum = args.quorum if args.quorum is not None else len(members) // 2 + 1
    if not 1 <= quorum <= len(members):
        raise UserError(f"--quorum must lie in [1, {len(members)}] (the panel size), got {quorum}")
    if args.max_steps < 1:
        raise UserError(f"--max-steps must be >= 1, got {args.max_steps}")
    items = read_benchmark(args.file, args.drop)
    panel = load_members(members, args)
    with progress_bar("asking the panel", len(items), args.quiet or args.json) as update:
        verdicts = curate(items, panel, quorum, args.drop, args.seed, args.max_steps, progress=update)
    write_curation(items, verdicts, args.out, args.report)
    kept = sum(v.kept for v in verdicts)
    doc = {
        "file": str(args.file),
        "dropped_field": args.drop,
        "members": members,
        "quorum": quorum,
        "questions": len(items),
        "kept": kept,
        "dropped": len(items) - kept,
        "right_without_context": {
            m: sum(a.correct for v in verdicts for a in v.answers if a.member == m) for m in members
        },
        "verdicts": [v.as_dict() for v in verdicts],
    }
    if args.json:
        print(json.dumps(doc, indent=1))
        return 0
    from accord.cli.display import Table, console

    con = console()
    con.print(
        f"[bold]{len(items)}[/] questions without {args.drop!r}, panel of {len(members)}, quorum {quorum}: kept "
        f"{kept}, dropped {len(items) - kept}"
    )
    t = Table(title="per question", title_justify="left")
    for col in ("id", "kept", "right", *members):
        t.add_column(col)
    for v in verdicts:
        t.add_row(
            v.id,
            "yes" if v.kept else "[red]dropped[/]",
            str(v.right_without_context),
            *[f"{a.answer!s}{' ✓' if a.correct else ''}" for a in v.answers],
        )
    con.print(t)
    return 0
