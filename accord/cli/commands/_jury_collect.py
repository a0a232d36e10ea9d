"""``accord jury collect QUESTIONS.jsonl --member NAME=BASE_URL,MODEL ... --out panel.jsonl``: ask served
models every question and write their answers as a jury file (resumable). Options of ``accord jury``."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from accord.cli.options import nonnegative_float, nonnegative_int, positive_float, positive_int
from accord.cli.progress import add_quiet, progress_bar
from accord.errors import UserError
from accord.verify.io import writable_output, writer_lock

WORD = "collect"


def add_collect_arguments(p: argparse.ArgumentParser, standalone: bool = False) -> None:
    """The collect options, inside ``accord jury``'s parser (or, ``standalone``, for collect's own help)."""
    g = p.add_argument_group(
        "collecting answers from served models",
        "accord jury collect QUESTIONS.jsonl --member NAME=BASE_URL,MODEL[,API_KEY_ENV] ... --out panel.jsonl: every "
        "member answers every question; answers are cached, and a rerun resumes (failed answers are asked again)",
    )
    g.add_argument(
        "questions",
        nargs="?",
        help='JSONL: {"question", "id"?, "answer" or "reference"?} per line' if standalone else argparse.SUPPRESS,
    )
    if standalone:
        g.add_argument("--out", metavar="FILE", help="the jury file to write (or resume)")
        g.add_argument("--seed", type=int, default=0, help="sampling seed sent to the members (default 0)")
        g.add_argument("--json", action="store_true", help="print one JSON document instead of a line")
    g.add_argument(
        "--member", action="append", default=[], metavar="NAME=BASE_URL,MODEL", help="a served jury member (repeat)"
    )
    g.add_argument(
        "--api-key-env", default=None, metavar="VAR", help="environment variable holding the members' API key"
    )
    g.add_argument(
        "--max-concurrency",
        type=lambda t: t if t == "auto" else positive_int(t),
        default="auto",
        help="requests in flight per endpoint (default auto: the server's slot count where it says, else 4)",
    )
    g.add_argument(
        "--request-timeout", type=positive_float, default=120.0, metavar="S", help="seconds per request (default 120)"
    )
    g.add_argument(
        "--max-retries", type=nonnegative_int, default=3, help="retries on 429, 5xx and connection errors (default 3)"
    )
    g.add_argument("--max-tokens", type=positive_int, default=256, help="tokens per answer (default 256)")
    g.add_argument("--temperature", type=nonnegative_float, default=0.0, help="sampling temperature (default 0)")
    if standalone:
        add_quiet(g)
    g.add_argument(
        "--cache", default=None, metavar="FILE", help="call cache file (default ~/.cache/accord/served-calls.sqlite)"
    )


class _Help(argparse.Action):
    """``-h``: ``accord jury``'s help, or only the collect options after ``accord jury collect``."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, "file", None) == WORD:
            own = argparse.ArgumentParser(
                prog=f"{parser.prog} {WORD}",
                add_help=False,
                usage="%(prog)s QUESTIONS.jsonl --member NAME=BASE_URL,MODEL ... --out FILE [options]",
                description="Ask served models every question; write their answers as a jury file.",
            )
            add_collect_arguments(own, standalone=True)
            own.print_help()
        else:
            parser.print_help()
        parser.exit()


def add_collect_help(p: argparse.ArgumentParser) -> None:
    """Replace the parser's ``-h`` by one that knows ``accord jury collect --help``."""
    p.conflict_handler = p._optionals.conflict_handler = "resolve"  # the new -h replaces argparse's own
    p.add_argument(
        "-h", "--help", action=_Help, help="show this help message and exit (after collect: its options only)"
    )


def run_collect(args: argparse.Namespace) -> int:
    from accord.verify.juries import collect, parse_member, read_questions

    if not args.questions or not args.out or not args.member:
        raise UserError("collect needs QUESTIONS.jsonl, at least two --member NAME=BASE_URL,MODEL and --out FILE")
    writable_output(args.out, "--out")
    options = {
        "api_key_env": args.api_key_env,
        "max_concurrency": args.max_concurrency,
        "timeout_s": args.request_timeout,
        "max_retries": args.max_retries,
        "cache": args.cache,
    }
    members = [parse_member(text, **options) for text in args.member]
    questions = read_questions(args.questions)
    with writer_lock(Path(args.out)), progress_bar("asking", len(questions), args.quiet or args.json) as update:
        result = collect(
            questions,
            members,
            args.out,
            max_tokens=args.max_tokens,
            temperature=args.temperature,
            seed=args.seed,
            progress=update,
        )
    t = result.calls
    if args.json:
        print(
            json.dumps(
                {
                    "out": args.out,
                    "questions": result.questions,
                    "kept": result.kept,
                    "asked": result.asked,
                    "failed_answers": result.failed_answers,
                    "calls": t.as_dict(),
                },
                indent=1,
            )
        )
        return 1 if result.failed_answers else 0
    print(
        f"{result.questions} questions, {len(members)} members: {result.kept} kept from {args.out}, {result.asked} "
        "asked; "
        f"{t.requests} requests ({t.failed} failed), {t.cached} from the cache, "
        f"{t.prompt_tokens} prompt + {t.completion_tokens} completion tokens; wrote {args.out}"
    )
    if result.failed_answers:
        print(
            f"{result.failed_answers} answer(s) failed (reasons in the file); run the same command again to ask for "
            "them"
        )
        return 1
    return 0
