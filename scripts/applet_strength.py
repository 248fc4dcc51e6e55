"""How often the applet's Black beats a random White in Legionnaires (8x8, the standard start).

Boardman's paper says the applet's Black, which looks one move ahead and leaves White the fewest
moves, beats a random White "about eight or nine out of every ten games". This plays `--games`
games in this process with the built-in applet bot's own chooser (`bots.applet_bot`: random as
White, fewest replies as Black), each game with its own seed, and for comparison the same number
of games of random against random. It prints `key=value` lines: games, Black's wins, the win
rate with its 95% Wilson interval, the baseline's, and the time taken.

    python scripts/applet_strength.py                # 1,000 games each
    python scripts/applet_strength.py --games 200 --seed 7

With `--referee DIR` the applet's games are played instead through the referee itself, each a
real game between two `builtin:applet` processes (blue plays at random, orange fewest replies),
and every record is kept in DIR, so the figure can be re-checked game by game:

    python scripts/applet_strength.py --games 100 --referee applet-games
    for f in applet-games/*.jsonl; do referee replay --verify-only "$f"; done

Progress is shown on stderr; Ctrl-C stops and prints the figures of the games finished so far.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from bots.applet_bot import applet_chooser
from bots.clock import MoveClock
from bots.config import BotConfig
from bots.random_bot import random_chooser
from protocols.base import Side
from protocols.legionnaires.rules import GAME

Chooser = Callable[[Any, MoveClock], Any]


def play(blue: Chooser, orange: Chooser) -> Side:
    """One game from the standard start; the winner's side."""
    state = GAME.initial_state()
    clock = MoveClock(time.monotonic(), 60.0)
    while True:
        outcome = GAME.outcome(state)
        if outcome is not None:
            assert outcome.winner is not None  # Legionnaires has no draws
            return outcome.winner
        move = (blue if state.to_move is Side.BLUE else orange)(state, clock)
        state = GAME.apply(state, move)


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    z = 1.96
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return centre - spread / (1 + z * z / games), centre + spread / (1 + z * z / games)


def black_wins(
    games: int,
    seed: int,
    make: Callable[[int], tuple[Chooser, Chooser]],
    progress: Progress,
    label: str,
) -> tuple[int, int]:
    """(Black's wins, games finished) over `games` games; Ctrl-C ends early with what is done."""
    task = progress.add_task(label, total=games)
    wins = played = 0
    try:
        for number in range(games):
            blue, orange = make(seed + number)
            wins += play(blue, orange) is Side.ORANGE
            played += 1
            progress.advance(task)
    except KeyboardInterrupt:
        progress.stop()
        raise _Stopped(wins, played) from None
    return wins, played


class _Stopped(Exception):
    def __init__(self, wins: int, played: int) -> None:
        super().__init__()
        self.wins, self.played = wins, played


def applet_pair(seed: int) -> tuple[Chooser, Chooser]:
    # One applet bot per colour, as in a real game: each plays its colour's strategy.
    blue = applet_chooser(GAME, BotConfig(seed=2 * seed))
    orange = applet_chooser(GAME, BotConfig(seed=2 * seed + 1))
    return blue, orange


def random_pair(seed: int) -> tuple[Chooser, Chooser]:
    blue = random_chooser(GAME, BotConfig(seed=2 * seed))
    orange = random_chooser(GAME, BotConfig(seed=2 * seed + 1))
    return blue, orange


def report(prefix: str, wins: int, games: int) -> None:
    low, high = wilson(wins, games)
    rate = wins / games if games else 0.0
    print(
        f"{prefix}_games={games} {prefix}_black_wins={wins} {prefix}_black_rate={rate:.3f} "
        f"{prefix}_ci95_low={low:.3f} {prefix}_ci95_high={high:.3f}"
    )


async def referee_games(
    games: int, seed: int, folder: Path, progress: Progress, tally: list[int]
) -> None:
    """Play `games` applet games through the referee, two at a time, records kept in `folder`;
    `tally` gets [Black's wins, games finished, void games]."""
    import trio

    from referee.match import driver
    from referee.match.host import choose_host
    from referee.match.order import GameOrder
    from referee.match.settings import MatchSettings
    from referee.players import PlayerSpec, resolve_command

    settings = MatchSettings(random_assignment=False)
    host = choose_host(settings.isolation)
    folder.mkdir(parents=True, exist_ok=True)
    limiter = trio.CapacityLimiter(2)
    task = progress.add_task("referee", total=games)

    async def one(number: int) -> None:
        def player(name: str, bot_seed: int) -> PlayerSpec:
            command = resolve_command(f"builtin:applet --seed {bot_seed}", "legionnaires")
            return PlayerSpec(name=name, command=command)

        game_seed = seed + number
        blue, orange = player("white", 2 * game_seed), player("black", 2 * game_seed + 1)
        path = folder / f"applet-{game_seed:06d}.jsonl"
        async with limiter:
            order = GameOrder(game="legionnaires", players=(blue, orange), settings=settings)
            record = await driver.play(order, host, record_path=path)
        result = record.result
        if result is None or result.void:
            tally[2] += 1
        else:
            tally[0] += result.winner is Side.ORANGE
            tally[1] += 1
        progress.advance(task)

    async with trio.open_nursery() as nursery:
        for number in range(games):
            nursery.start_soon(one, number)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per strategy pair")
    parser.add_argument("--seed", type=int, default=1, help="first game's seed")
    parser.add_argument(
        "--referee",
        type=Path,
        default=None,
        metavar="DIR",
        help="play the applet's games through the referee, keeping their records in DIR",
    )
    args = parser.parse_args(argv)
    if args.referee is not None:
        return main_referee(args.games, args.seed, args.referee)
    err = Console(stderr=True)
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    start = time.perf_counter()
    with Progress(*columns, console=err, transient=True) as progress:
        try:
            wins, played = black_wins(args.games, args.seed, applet_pair, progress, "applet")
            report("applet", wins, played)
            base, base_played = black_wins(args.games, args.seed, random_pair, progress, "random")
            report("random", base, base_played)
        except _Stopped as stopped:
            report("partial", stopped.wins, stopped.played)
            print(f"seconds={time.perf_counter() - start:.1f} interrupted=1")
            return 130
    print(f"seconds={time.perf_counter() - start:.1f}")
    return 0


def main_referee(games: int, seed: int, folder: Path) -> int:
    import trio

    err = Console(stderr=True)
    tally = [0, 0, 0]
    start = time.perf_counter()
    columns = (BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    interrupted = False
    with Progress(*columns, console=err, transient=True) as progress:
        try:
            trio.run(referee_games, games, seed, folder, progress, tally)
        except KeyboardInterrupt:
            interrupted = True
    report("referee", tally[0], tally[1])
    print(f"referee_void={tally[2]} records={folder} seconds={time.perf_counter() - start:.1f}")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
