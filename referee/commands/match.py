"""`referee match GAME -p1 CMD -p2 CMD --games N [--sprt elo0=0 elo1=20 alpha=0.05 beta=0.05]`:
many games between two bots, colours alternating, with the score, the Elo difference (95%
interval), the LOS and, with --sprt, a sequential test that stops once it decides.

The match is a tournament of two players in its own directory (`match.toml`, the store, the
records): running the same command again resumes it, and an SPRT already decided says so
without playing. The summary goes to stdout; the live display to stderr (none with --quiet);
with --events, JSON lines of events go to stdout as with `tournament run`. Exit code: 0 when
the games are played (or the SPRT decided), 3 when games were left void, 130 after Ctrl-C,
2 for a bad command line or a directory holding another match.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from protocols import UnknownGame, canonical_name
from referee import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID
from referee.tournament.config import ConfigError, LoadedConfig, load_config
from referee.tournament.head_to_head import (
    CONFIG_NAME,
    Tally,
    default_directory,
    match_config,
    player_names,
)
from referee.tournament.session import play_tournament
from referee.tournament.sprt import Sprt, parse_sprt
from referee.tournament.store import StoreError, open_view
from referee.views.match_live import MatchDisplay, summary_lines


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = "Many games between two bots: score, Elo, LOS and an optional SPRT."
    parser.add_argument("game", help="the game (see `referee games`)")
    parser.add_argument("-p1", "--player1", required=True, help="the first bot's command")
    parser.add_argument("-p2", "--player2", required=True, help="the second bot's command")
    parser.add_argument("--games", type=int, default=100, help="games at most (100; even)")
    parser.add_argument(
        "--sprt",
        nargs="*",
        metavar="KEY=VALUE",
        default=None,
        help="stop once the SPRT decides: elo0=0 elo1=20 alpha=0.05 beta=0.05 (the defaults)",
    )
    parser.add_argument("--name1", default=None, help="the first bot's name (from its command)")
    parser.add_argument("--name2", default=None, help="the second bot's name")
    parser.add_argument("--dir", type=Path, default=None, help="(referee-matches/P1-vs-P2)")
    parser.add_argument("--seed", type=int, default=1, help="(1)")
    parser.add_argument("--move-timeout", type=float, default=None, help="seconds per move")
    parser.add_argument("-j", "--concurrency", type=int, default=None, help="games at once")
    parser.add_argument("-q", "--quiet", action="store_true", help="no live display")
    parser.add_argument("--events", action="store_true", help="JSON lines of events on stdout")
    parser.set_defaults(run=run_match)


def run_match(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        sprt = parse_sprt(args.sprt) if args.sprt is not None else None
        loaded, tally = prepare(args, sprt)
    except (UnknownGame, ValueError) as exc:  # ConfigError is a ValueError
        err.print(f"referee: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    try:
        view = open_view(loaded.directory)
        try:
            tally.add_rows(view.games())
        finally:
            view.close()
    except StoreError:
        pass  # a new match: nothing stored yet
    if tally.decided():
        err.print("the SPRT had already decided: no game to play", markup=False)
        print_summary(out, tally, loaded)
        return EXIT_OK
    final = play_tournament(
        loaded,
        err,
        concurrency=args.concurrency,
        quiet=args.quiet,
        events=args.events,
        stop_when=tally.decided,
        watch=tally.watch,
        display=lambda console, state: MatchDisplay(console, state, tally),
    )
    if final is None:
        return EXIT_USAGE
    # With --events stdout carries JSON lines only: the summary goes with the other text.
    print_summary(err if args.events else out, tally, loaded)
    if final.interrupted:
        return EXIT_INTERRUPTED
    if final.void and not tally.decided():
        return EXIT_VOID
    return EXIT_OK


def prepare(args: argparse.Namespace, sprt: Sprt | None) -> tuple[LoadedConfig, Tally]:
    """Write the match's config in its directory (kept as is when it says the same) and load it."""
    game = canonical_name(args.game)
    if args.games < 1:
        raise ValueError("--games must be at least 1")
    guessed = player_names(args.player1, args.player2)
    first, second = args.name1 or guessed[0], args.name2 or guessed[1]
    if first == second:
        raise ValueError("the two players need different names (see --name1, --name2)")
    directory: Path = args.dir or default_directory(first, second)
    text = match_config(
        game,
        [(first, args.player1), (second, args.player2)],
        args.games,
        seed=args.seed,
        move_timeout=args.move_timeout,
    )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / CONFIG_NAME
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    try:
        loaded = load_config(path)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return loaded, Tally(first, second, sprt)


def print_summary(out: Console, tally: Tally, loaded: LoadedConfig) -> None:
    for line in summary_lines(tally.stats(), tally):
        out.print(line, markup=False, highlight=False)
    out.print(f"match directory: {loaded.directory}", markup=False, highlight=False)
