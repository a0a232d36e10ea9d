"""``accord sweep RUN_DIR``: τ × ε and stubbornness × ε grids by replay, with heatmaps."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from accord.cli.options import note_if_live, output_folder, unit_interval
from accord.consensus_core import parse_lambdas
from accord.errors import UserError
from accord.verify.io import path_kind

NAME = "sweep"
HELP = "Replay a recorded run over a τ × ε grid and over stubbornness settings; write heatmaps."


def _floats(values: list[str] | None, flag: str) -> list[float] | None:
    if values is None:
        return None
    out = []
    for v in values:
        for part in (p.strip() for p in v.split(",")):
            if not part:  # '' or '0.5,,0.7': refused, never read as "the default grid" or one value fewer
                raise UserError(f"{flag}: empty value in {v!r}; give numbers in [0, 1], space or comma separated")
            try:
                out.append(unit_interval(part))
            except argparse.ArgumentTypeError as exc:
                raise UserError(f"{flag}: {exc}") from None
    return out


def _lambdas(text: str) -> tuple[float, ...]:
    try:
        return parse_lambdas(text)
    except ValueError as exc:
        raise UserError(f"--lambdas: {exc}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", metavar="RUN_DIR", help="run folder holding trace.jsonl")
    parser.add_argument("--tau", nargs="+", metavar="T", help="confidence thresholds (space or comma separated)")
    parser.add_argument("--eps", nargs="+", metavar="E", help="dispersion limits (space or comma separated)")
    parser.add_argument(
        "--lambdas",
        nargs="+",
        metavar="L1,L2,..",
        help="stubbornness vectors, one per argument, e.g. 1.5,1,0.8 1,1,1 "
        "(default: the recorded λ scaled by 0.25..4, and all ones)",
    )
    parser.add_argument(
        "--policy",
        default="verdict",
        choices=("verdict", "mean_preserving"),
        help="the thresholded consensus policy to sweep (default verdict)",
    )
    parser.add_argument(
        "--out-dir",
        metavar="DIR",
        help="write sweep.json and the heatmaps here instead of RUN_DIR (created if missing)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of tables")


def run(args: argparse.Namespace) -> int:
    from accord.verify.analysis import DEFAULT_EPSS, DEFAULT_TAUS, write_sweep

    run_dir = Path(args.run_dir)
    if path_kind(run_dir) != "folder":  # a symlink loop or an unreadable path is named by path_kind
        raise UserError(f"{run_dir}: not a run folder")
    taus = _floats(args.tau, "--tau") or list(DEFAULT_TAUS)
    epss = _floats(args.eps, "--eps") or list(DEFAULT_EPSS)
    lams = [_lambdas(v) for v in args.lambdas] if args.lambdas else None
    out_dir = output_folder(args.out_dir, run_dir, "sweep.json and the heatmaps")
    live = note_if_live(run_dir, NAME)
    try:
        res = write_sweep(run_dir, taus, epss, lams, args.policy, out_dir=out_dir)
    except ValueError as exc:
        raise UserError(f"{run_dir}: {exc}") from None
    if args.json:
        print(json.dumps({**res, "live": None if live is None else {"pid": live}}, indent=2))
        return 0
    from accord.cli.display import Table, console

    con = console()
    for note in res["notes"]:
        con.print(f"[yellow]note:[/yellow] {note}")
    for key, rows, title in (
        ("thresholds", [f"τ={t:g}" for t in res["thresholds"]["tau"]], "τ × ε"),
        (
            "stubbornness",
            ["λ=(" + ",".join(f"{x:g}" for x in lam) + ")" for lam in res["stubbornness"]["lambdas"]],
            f"stubbornness × ε at τ = {res['stubbornness']['tau']:g}",
        ),
    ):
        g = res[key]
        t = Table(title=f"{args.policy} {title}: accuracy among exact replays (exact/{g['n_tasks']})")
        t.add_column("")
        for e in g["eps"]:
            t.add_column(f"ε={e:g}", justify="right")
        for label, acc, ex in zip(rows, g["accuracy_exact"], g["exact"]):
            t.add_row(label, *[("–" if a is None else f"{a:.3f}") + f" ({n})" for a, n in zip(acc, ex)])
        con.print(t)
    con.print(f"Wrote {out_dir / 'sweep.json'}, {', '.join(res['plots'])}")
    return 0
