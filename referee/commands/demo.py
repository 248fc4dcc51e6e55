"""`referee demo`: a round robin of the built-in bots in each installed game, shown live.

For each game it writes a config (`<dir>/<game>.toml`) and plays it into `<dir>/<game>/` (the
store and one record per game), exactly as `referee tournament run` would; then it prints the
standings of every game, where everything is, and the commands that show it again (`referee
serve`, `referee replay`). Running it again resumes or simply re-reports. With `--web` each
game's tournament is served on the live dashboard while it plays, all on one address printed
before anything else.
The built-in bots are whatever `python -m bots` offers at run time, each with the game's seed
and a short thinking time, so the demo stays quick and reproducible.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from protocols import UnknownGame, canonical_name, game_names
from referee.app.config import load_config
from referee.app.observers import WebView, tournament_observers
from referee.app.tournament_session import SessionSettings, play_tournament
from referee.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VOID
from referee.nofollow import PlantedLink, check_folder, write_file
from referee.tournament.config import ConfigError
from referee.tournament.report import Report, build_report
from referee.tournament.store import open_view
from referee.views.session_lines import terminal_observers
from referee.views.tournament import print_report
from referee.web import add_server_arguments, check_address, url_of

DEFAULT_DIR = Path("referee-demo")

# Which built-in bots can play which game, asked of the bots themselves (they are separate
# programs; the referee never imports them).
_PROBE = """
import json
from bots.__main__ import BOTS, factory
from bots.config import BotConfig
from protocols import get_game
games = json.loads(input())
found = {}
for name in BOTS:
    for game_name in games:
        game = get_game(game_name)
        try:
            factory(name)(game, BotConfig(options=game.parse_options({})))
        except ValueError:
            continue
        found.setdefault(game_name, []).append(name)
print(json.dumps(found))
"""


def register(demo: argparse.ArgumentParser) -> None:
    demo.description = __doc__.splitlines()[0] if __doc__ else None
    demo.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=f"({DEFAULT_DIR})")
    demo.add_argument(
        "-g", "--game", action="append", default=None, help="only this game (repeatable)"
    )
    demo.add_argument("--games-per-pairing", type=int, default=2, help="(2)")
    demo.add_argument("--movetime", type=float, default=0.1, help="bots' seconds per move (0.1)")
    demo.add_argument("-j", "--concurrency", type=int, default=None, help="(CPU cores)")
    demo.add_argument("--seed", type=int, default=1, help="(1)")
    demo.add_argument("-q", "--quiet", action="store_true", help="no live display")
    demo.add_argument(
        "--web",
        action="store_true",
        help="serve the live dashboard while the tournaments play (see --port, --host)",
    )
    add_server_arguments(demo)
    demo.set_defaults(run=run_demo)


def builtin_bots(games: list[str]) -> dict[str, list[str]]:
    """The built-in bots able to play each game."""
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE], input=json.dumps(games), capture_output=True, text=True
    )
    if probe.returncode != 0:
        raise RuntimeError(f"cannot list the built-in bots: {probe.stderr.strip()}")
    found: dict[str, list[str]] = json.loads(probe.stdout)
    return found


def demo_config(game: str, bots: list[str], args: argparse.Namespace) -> str:
    players = "".join(
        f'\n[[players]]\nname = "{bot}"\n'
        f'command = "builtin:{bot} --seed {{seed}} --movetime {args.movetime}"\n'
        for bot in bots
    )
    return (
        f'name = "demo: {game}"\ngame = "{game}"\nseed = {args.seed}\n'
        f"games_per_pairing = {args.games_per_pairing}\n"
        f'directory = "{game}"\n\n[time_control]\nmove_timeout = {max(1.0, args.movetime * 5)}\n'
        f"{players}"
    )


def run_demo(args: argparse.Namespace, out: Console, err: Console) -> int:
    try:
        games = [canonical_name(g) for g in args.game] if args.game else game_names()
    except UnknownGame as exc:
        err.print(f"referee: {exc}", markup=False)
        return EXIT_USAGE
    try:
        check_folder(args.dir)  # a planted link, refused before anything is said or written
    except PlantedLink as exc:
        err.print(f"referee: cannot write the demo: {exc}", markup=False, highlight=False)
        return EXIT_USAGE
    web = None
    if args.web:
        try:
            web = WebView(args.host, check_address(args.host, args.port))
        except ValueError as exc:
            err.print(f"referee: {exc}; choose another with --port", markup=False)
            return EXIT_USAGE
        err.print(
            f"dashboard: {url_of(web.host, web.port)}/  (each game's tournament while it plays)",
            markup=False,
            highlight=False,
        )
    try:
        bots = builtin_bots(games)
    except RuntimeError as exc:
        err.print(f"referee: {exc}", markup=False)
        return EXIT_USAGE
    code = EXIT_OK
    for game in games:
        if len(bots.get(game, [])) < 2:
            err.print(f"{game}: fewer than two built-in bots play it; skipped", markup=False)
            continue
        path = args.dir / f"{game}.toml"
        write_file(path, demo_config(game, bots[game], args))  # its folder made, no link followed
        try:
            loaded = load_config(path)
        except ConfigError as exc:
            err.print(str(exc), markup=False)
            return EXIT_USAGE
        observers = tournament_observers(loaded, web=web)
        observers += terminal_observers(err, loaded.config.name, quiet=args.quiet)
        settings = SessionSettings(
            concurrency=args.concurrency,
            resume_hint=f"run `referee demo --dir {args.dir}` again to resume",
        )
        final = play_tournament(loaded, observers, settings)
        if final is None:
            return EXIT_USAGE
        if final.interrupted:
            return EXIT_INTERRUPTED
        if final.void:
            code = EXIT_VOID
    print_summary(out, err, args.dir, games)
    return code


def print_summary(out: Console, err: Console, directory: Path, games: list[str]) -> None:
    reports = []
    for game in games:
        if not (directory / game).is_dir():
            continue
        view = open_view(directory / game)
        try:
            reports.append(build_report(view))
        finally:
            view.close()
        print_report(out, reports[-1], "table", games=False)
    where = directory.resolve()
    err.print(f"\nEverything is in {where}/:", markup=False, highlight=False)
    err.print("  GAME.toml            the config of each game's tournament", markup=False)
    err.print("  GAME/tournament.sqlite  its store; GAME/games/NNNN.jsonl  one record per game",
              markup=False)  # fmt: skip
    err.print(
        f"  referee tournament results {directory}/GAME.toml --format json   (or csv, --games)",
        markup=False,
        highlight=False,
    )
    # Whole lines, never wrapped, so that each command can be copied as it stands.
    err.print("\nTo look at it again:", markup=False)
    err.print(f"  referee serve {where}", markup=False, highlight=False, soft_wrap=True)
    record = _a_record(reports)
    if record is not None:
        err.print(f"  referee replay {record}", markup=False, highlight=False, soft_wrap=True)


def _a_record(reports: list[Report]) -> str | None:
    """The record of the longest finished game, the most to watch, or None if none finished."""
    finished = [g for r in reports for g in r.games if g.record is not None and g.plies]
    longest = max(finished, key=lambda g: g.plies or 0, default=None)
    return None if longest is None else longest.record
