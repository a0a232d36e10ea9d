"""``accord list KIND``: every part of one kind a config or a flag can name — built in or installed
by a plugin — with its options (and their defaults), where it comes from and what it does; an
installed plugin that cannot be used is listed with the one line that says why."""

from __future__ import annotations

import json
import sys

NAME = "list"
HELP = "List the judge types, policies, task sources, generator types or proof checks accord knows, with their options"
PART_KINDS = ("judges", "policies", "tasks", "generators", "claims")


def add_arguments(parser) -> None:
    parser.add_argument("kind", choices=PART_KINDS, metavar="KIND", help=f"what to list: {', '.join(PART_KINDS)}")
    parser.add_argument("--json", action="store_true", help="print a JSON document instead of a table")


def registry(kind: str):
    """The registry of one kind of part."""
    if kind == "judges":
        from accord.adapters import JUDGES

        return JUDGES
    if kind == "generators":
        from accord.adapters import GENERATORS

        return GENERATORS
    if kind == "policies":
        from accord.consensus_core import POLICIES

        return POLICIES
    if kind == "tasks":
        from accord.verify.tasks import TASKS

        return TASKS
    from accord.proofs import CLAIMS

    return CLAIMS


def _plain(value):
    """A default as JSON holds it (a tuple as a list, anything else JSON lacks as its repr)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return repr(value)


def listing(kind: str) -> dict:
    """The ``--json`` document: each part's name, origin, docs and options, by name, and each
    installed plugin that cannot be used, with why (``broken``)."""
    reg = registry(kind)
    loaded, broken = reg.survey()
    parts = []
    for part in sorted(loaded, key=lambda p: p.name):
        doc, options = reg.describe(part)
        parts.append({"name": part.name, "origin": part.origin, "doc": doc, "options": _plain(options)})
    return {
        "kind": kind,
        "registry": reg.kind,
        "entry_point_group": reg.group,
        "parts": parts,
        "broken": [{"name": name, "error": why} for name, why in sorted(broken.items())],
    }


def _options(options: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in options.items())


def run(args) -> int:
    doc = listing(args.kind)
    if args.json:
        json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    from accord.cli.display import Table, console

    table = Table(
        title=f"{args.kind}: {len(doc['parts'])} {doc['registry']}(s); installed plugins add more through the "
        f"'{doc['entry_point_group']}' entry points",
        title_justify="left",
    )
    for column in ("name", "options", "from", "what it does"):
        table.add_column(column, no_wrap=column == "name")
    for p in doc["parts"]:
        table.add_row(p["name"], _options(p["options"]), p["origin"], p["doc"])
    for b in doc["broken"]:  # shown, not hidden: the listing is where a user looks for what went wrong
        table.add_row(b["name"], "", "[bold red]cannot be used[/]", b["error"])
    console().print(table)
    return 0
