"""`referee replay RECORD`: re-verify a game record and show it in the terminal, or as HTML.

Every move is replayed through the rules; any mismatch (an illegal move, a result that does not
follow from the moves) is reported with the ply and the reason, and the exit code is 1; so is a
record whose hash chain shows it was edited after it was written. On a terminal the replay is
stepped with the keyboard; `--animate` plays it; `--ply N` prints one position; `--verify-only`
prints the verdict alone (and exits 1 for an unfinished record too: it holds no result to
trust); `--html -o FILE` writes a page that plays it back in a browser.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from referee.commands import EXIT_OK, EXIT_USAGE
from referee.nofollow import PlantedLink, write_file
from referee.records import DOUBLE_FORFEIT, EditedRecord, RecordError
from referee.replay import Replay, load_replay
from referee.views.console import has_colour, replay_frame
from referee.web.html_export import replay_html

EXIT_MISMATCH = 1


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Replay a game record through the rules and show it. On a terminal: → ← (or l h) "
        "step, g G jump to the start/end, space plays, q quits. The exit code is 1 when "
        "the record does not agree with the rules or was edited after it was written "
        "(its hash chain breaks), and with --verify-only also when it is unfinished."
    )
    parser.add_argument("record", type=Path, help="a game record (.jsonl)")
    parser.add_argument("--ply", type=int, default=None, help="print the position after N plies")
    parser.add_argument(
        "--verify-only",
        action="store_true",
        help="only check the record (moves, result, hash chain); print the verdict",
    )
    parser.add_argument("--animate", action="store_true", help="play the game from the start")
    parser.add_argument(
        "--speed", type=float, default=0.7, help="seconds per ply when playing (0.7)"
    )
    parser.add_argument("--html", action="store_true", help="write a self-contained HTML replay")
    parser.add_argument("-o", "--output", type=Path, default=None, help="where --html writes")
    parser.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace, out: Console, err: Console) -> int:
    if args.speed <= 0:
        err.print("[red]referee replay: --speed must be positive[/red]")
        return EXIT_USAGE
    try:
        replay = load_replay(args.record)
    except EditedRecord as exc:  # a record, but not as it was written: nothing in it holds
        err.print(f"referee replay: {exc}", style="red", markup=False, highlight=False)
        return EXIT_MISMATCH
    except RecordError as exc:
        err.print(f"[red]referee replay: {exc}[/red]", highlight=False)
        return EXIT_USAGE
    code = EXIT_OK if replay.ok else EXIT_MISMATCH
    if args.html:
        return write_html(args, replay, err, code)
    if args.verify_only:
        print_verification(out, replay)
        return EXIT_MISMATCH if replay.result is None else code
    if args.ply is not None:
        if not 0 <= args.ply < len(replay.frames):
            err.print(f"[red]referee replay: --ply must be 0..{len(replay.frames) - 1}[/red]")
            return EXIT_USAGE
        out.print(replay_frame(replay, args.ply, out.width, has_colour(out)))
        return code
    show(out, replay, args)
    print_verification(err, replay)
    return code


def show(out: Console, replay: Replay, args: argparse.Namespace) -> None:
    """Keyboard stepping on a terminal; otherwise the animation, or the final position."""
    # Deferred: the terminal player (termios, rich's live display) loads only to show a game.
    from referee.views.replay_terminal import run_animation, run_interactive

    interactive = out.is_terminal and sys.stdin.isatty()
    if interactive:
        run_interactive(out, replay, 0, args.speed, play=args.animate)
    elif args.animate:
        run_animation(out, replay, 0, args.speed)
    else:
        out.print(replay_frame(replay, len(replay.frames) - 1, out.width, has_colour(out)))


def print_verification(console: Console, replay: Replay) -> None:
    plies = len(replay.plies)
    result = replay.result
    if replay.ok and result is None:
        console.print(
            f"[yellow]unfinished:[/yellow] {replay.game}, {plies} plies, no result line "
            "(the game was cut short before it ended)",
            highlight=False,
        )
    elif replay.ok and result is not None:
        no_winner = DOUBLE_FORFEIT if result.label == "double-forfeit" else result.label
        verdict = f"{f'{result.winner} wins' if result.winner else no_winner} by {result.why}"
        console.print(
            f"[green]verified:[/green] {replay.game}, {plies} plies, {verdict}", highlight=False
        )
    for problem in replay.problems:
        console.print(f"[red]mismatch:[/red] {problem}", highlight=False)
    if replay.chain is None:
        console.print("note: no hash chain (written by an older referee)", highlight=False)
    else:
        console.print(f"hash chain intact; final hash {replay.chain}", highlight=False)


def write_html(args: argparse.Namespace, replay: Replay, err: Console, code: int) -> int:
    target: Path = args.output or args.record.with_suffix(".html")
    try:
        write_file(target, replay_html(replay))  # never through a planted link
    except PlantedLink as exc:
        err.print(f"referee replay: cannot write: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    except OSError as exc:
        err.print(f"[red]referee replay: cannot write {target}: {exc.strerror}[/red]")
        return EXIT_USAGE
    print_verification(err, replay)
    err.print(f"wrote {target}", highlight=False)
    return code
