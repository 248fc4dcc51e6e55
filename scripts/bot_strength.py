"""Strength of the built-in bots: matches through the real referee, scores with 95% intervals.

Every game is played by the real referee (`referee.match.driver.play`): two bot processes
(`builtin:NAME ...`, i.e. `python -m bots`) speaking the normal protocol under the referee's
clock. Colours alternate between games; each
game gets its own bot seeds. The table gives, for the first bot of each pairing, wins, draws and
losses, the score (draws count half) with a 95% Wilson interval, every bot fault (time-outs,
illegal moves, crashes) by side, and each side's slowest move. Voided games are counted apart
and left out of the score.

The default suite is the acceptance suite: search vs random in every game, search vs search at
fixed depth 3 in Lielow, Lasker Morris and Legionnaires, the perfect L game bot vs search and vs
random.

    python scripts/bot_strength.py                       # 40 games per pairing at 1 s/move
    python scripts/bot_strength.py --games 12 --movetime 0.25 --concurrency 2
    python scripts/bot_strength.py --only lielow --pair lielow "builtin:greedy" "builtin:random"
    python scripts/bot_strength.py --speed               # nodes/s and depth at 1 s, start position

Ctrl-C stops the run and prints the table of the games finished so far.
"""

from __future__ import annotations

import argparse
import math
import shlex
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bots.clock import MoveClock
from bots.evaluation import model_for
from bots.search.engine import Search
from protocols import game_names, get_game
from protocols.base import Side
from referee.match import driver
from referee.match.host import Host, choose_host
from referee.match.order import GameOrder
from referee.match.settings import MatchSettings
from referee.players import PlayerSpec, resolve_command
from referee.records import GameRecord

Z95 = 1.959963984540054
DEPTH3_GAMES = ("lielow", "lasker-morris", "legionnaires")


@dataclass(frozen=True)
class Pairing:
    """Bot A against bot B in one game; commands are referee player commands."""

    game: str
    a: str
    b: str

    @property
    def label(self) -> str:
        return f"{_short(self.a)} vs {_short(self.b)}"


@dataclass
class Tally:
    """What the games of one pairing came to, from A's side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    void: int = 0
    faults: dict[str, list[str]] = field(default_factory=lambda: {"a": [], "b": []})
    # The slowest first move (start-up included) and the slowest later move of each side.
    first_ms: dict[str, float] = field(default_factory=lambda: {"a": 0.0, "b": 0.0})
    later_ms: dict[str, float] = field(default_factory=lambda: {"a": 0.0, "b": 0.0})
    plies: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def add(self, record: GameRecord, a_side: Side) -> None:
        result = record.result
        assert result is not None
        for ply in record.plies:
            who = "a" if ply.side is a_side else "b"
            slowest = self.first_ms if ply.ply <= 2 else self.later_ms
            slowest[who] = max(slowest[who], ply.time_ms)
        if result.void:
            self.void += 1
            return
        self.plies.append(result.plies)
        if result.reason.is_bot_fault:
            loser = "b" if result.winner is a_side else "a"
            self.faults[loser].append(result.reason.value)
        if result.winner is None:
            self.draws += 1
        elif result.winner is a_side:
            self.wins += 1
        else:
            self.losses += 1


def _short(command: str) -> str:
    return command.removeprefix("builtin:")


def wilson(score: float, n: int) -> tuple[float, float]:
    """The 95% Wilson interval of a mean score in [0, 1] over n games."""
    if n == 0:
        return 0.0, 1.0
    z2 = Z95 * Z95
    centre = (score + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(score * (1 - score) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def acceptance_suite(movetime: float) -> list[Pairing]:
    search = f"builtin:search --movetime {movetime}"
    pairings = [Pairing(game, search, "builtin:random") for game in game_names()]
    pairings += [
        Pairing(game, search, f"builtin:search --depth 3 --movetime {movetime}")
        for game in DEPTH3_GAMES
    ]
    pairings += [
        Pairing("l-game", f"builtin:perfect --movetime {movetime}", search),
        Pairing("l-game", f"builtin:perfect --movetime {movetime}", "builtin:random"),
    ]
    return pairings


def _with_seed(command: str, seed: int) -> str:
    return command if "--seed" in shlex.split(command) else f"{command} --seed {seed}"


async def play_one(
    pairing: Pairing,
    index: int,
    settings: MatchSettings,
    host: Host,
    records: Path | None,
    number: int,
) -> tuple[GameRecord, Side]:
    """Game `index` of a pairing: A is blue in even games, orange in odd ones."""
    a = PlayerSpec(
        name="A", command=resolve_command(_with_seed(pairing.a, 2 * index), pairing.game)
    )
    b = PlayerSpec(
        name="B", command=resolve_command(_with_seed(pairing.b, 2 * index + 1), pairing.game)
    )
    blue, orange = (a, b) if index % 2 == 0 else (b, a)
    path = None
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
        path = records / f"pairing{number:02d}-{pairing.game}-{index:03d}.jsonl"
    order = GameOrder(game=pairing.game, players=(blue, orange), settings=settings)
    record = await driver.play(order, host, record_path=path)
    return record, Side.BLUE if index % 2 == 0 else Side.ORANGE


async def run_suite(
    pairings: Sequence[Pairing],
    games: int,
    settings: MatchSettings,
    concurrency: int,
    records: Path | None,
    tallies: dict[Pairing, Tally],
    console: Console,
) -> None:
    limiter = trio.CapacityLimiter(concurrency)
    host = choose_host(settings.isolation)  # once, for every game
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("games", total=games * len(pairings))

        async def one(number: int, pairing: Pairing, index: int) -> None:
            async with limiter:
                record, a_side = await play_one(pairing, index, settings, host, records, number)
            tallies[pairing].add(record, a_side)
            progress.advance(task)

        async with trio.open_nursery() as nursery:
            for index in range(games):
                for number, pairing in enumerate(pairings):
                    nursery.start_soon(one, number, pairing, index)


def results_table(tallies: dict[Pairing, Tally], title: str) -> Table:
    table = Table(title=title)
    for column in ("game", "pairing (A vs B)", "games", "A: W-D-L", "A score", "95% CI"):
        table.add_column(column, justify="right" if column in ("games", "A score") else "left")
    for column in ("faults A", "faults B", "slowest A 1st/later", "slowest B", "plies", "void"):
        table.add_column(column, justify="right")
    for pairing, tally in tallies.items():
        n = tally.games
        score = (tally.wins + tally.draws / 2) / n if n else 0.0
        low, high = wilson(score, n)
        table.add_row(
            pairing.game,
            pairing.label,
            str(n),
            f"{tally.wins}-{tally.draws}-{tally.losses}",
            f"{100 * score:.1f}%",
            f"{100 * low:.1f}-{100 * high:.1f}%",
            ", ".join(tally.faults["a"]) or "0",
            ", ".join(tally.faults["b"]) or "0",
            f"{tally.first_ms['a'] / 1000:.2f} / {tally.later_ms['a'] / 1000:.2f} s",
            f"{tally.first_ms['b'] / 1000:.2f} / {tally.later_ms['b'] / 1000:.2f} s",
            f"{statistics.mean(tally.plies):.0f}" if tally.plies else "-",
            str(tally.void),
        )
    return table


def speed_table(movetime: float, repeats: int) -> Table:
    """Search speed and depth from each game's start position (the bots' own settings)."""
    table = Table(
        title=f"search from the start position, {movetime} s per move, {repeats} runs",
        caption="the L game is played from its solved table, without search",
    )
    for column in ("game", "depth reached", "nodes", "seconds", "nodes/s (median)"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for name in game_names():
        if name == "l-game":  # the search bot plays it from the solved table
            continue
        game = get_game(name)
        state = game.initial_state(game.parse_options({}))
        runs = []
        for seed in range(repeats):
            search = Search(model_for(name), seed)
            runs.append(search.choose(state, MoveClock(time.monotonic(), movetime)))
        table.add_row(
            name,
            "-".join(sorted({str(r.depth) for r in runs})),
            str(int(statistics.median(r.nodes for r in runs))),
            f"{statistics.median(r.seconds for r in runs):.2f}",
            f"{statistics.median(r.nodes_per_second for r in runs):,.0f}",
        )
    return table


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing (40)")
    parser.add_argument("--movetime", type=float, default=1.0, help="seconds per move (1)")
    parser.add_argument("--concurrency", type=int, default=1, help="games at once (1)")
    parser.add_argument("--timeout", type=float, default=5.0, help="referee limit per move (5)")
    parser.add_argument("--only", action="append", default=[], metavar="GAME", help="only games")
    parser.add_argument(
        "--pair",
        nargs=3,
        action="append",
        default=[],
        metavar=("GAME", "A", "B"),
        help="play this pairing instead of the acceptance suite (repeatable)",
    )
    parser.add_argument("--records", type=Path, default=None, help="keep game records here")
    parser.add_argument("--speed", action="store_true", help="measure search speed only")
    parser.add_argument("--repeats", type=int, default=3, help="runs per game for --speed (3)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    console = Console(width=max(Console().width, 170))
    if args.speed:
        console.print(speed_table(args.movetime, args.repeats))
        return 0
    pairings = [Pairing(*p) for p in args.pair] or acceptance_suite(args.movetime)
    if args.only:
        pairings = [p for p in pairings if p.game in args.only]
    settings = MatchSettings(move_timeout=args.timeout, random_assignment=False)
    tallies = {pairing: Tally() for pairing in pairings}
    started = time.monotonic()
    title = (
        f"{args.games} games per pairing, {args.movetime} s/move, referee limit "
        f"{args.timeout} s + {settings.grace} s, {args.concurrency} at once"
    )
    try:
        trio.run(
            run_suite, pairings, args.games, settings, args.concurrency, args.records, tallies,
            console,
        )  # fmt: skip
    except KeyboardInterrupt:
        console.print(results_table(tallies, title + " (interrupted)"))
        return 130
    console.print(results_table(tallies, title))
    console.print(f"wall time {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
