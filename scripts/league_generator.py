"""Make a large league quickly: tournaments whose stores and records are what the referee writes
(`referee tournament verify` accepts them), with results drawn from known ratings.

No bot runs. Games of tic-tac-toe are played at random once and sorted by how they ended (the
first mover won, the second won, a draw); each scheduled game draws its ending from the
Bradley-Terry model with draws and first-move advantage at the players' true ratings, and
its record is a copy of one of those games with its own header (players, content hashes, seed)
and result line, hash chain included. Some bots are resubmitted half-way (a second content
hash from the next tournament on), so the league has versions to link.

    python scripts/league_generator.py OUT --players 300 --games 100000 --tournaments 10
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from protocols import get_game
from protocols.base import Side
from referee.records import CHAIN_FIELD, GENESIS, Header, Ply, Result, TimeControl, canonical_text
from referee.tournament.store import TournamentInfo, open_store, record_name

GAME = "tic-tac-toe"
ADVANTAGE, DRAW_ELO = 40.0, 150.0
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
POOL = 300  # random games of each ending


@dataclass(frozen=True)
class Pooled:
    plies: list[dict[str, Any]]  # ply lines as JSON objects
    result: dict[str, Any]  # without finished_at


def random_games(seed: int) -> dict[str, list[Pooled]]:
    """Random games of tic-tac-toe by their ending: 'blue', 'orange' or 'draw' won."""
    game = get_game(GAME)
    rng = random.Random(seed)
    found: dict[str, list[Pooled]] = {"blue": [], "orange": [], "draw": []}
    while min(len(v) for v in found.values()) < POOL:
        state = game.initial_state(game.parse_options({}))
        plies = []
        while (outcome := game.outcome(state)) is None:
            move = rng.choice(list(game.legal_moves(state)))
            line = game.format_move(move)
            side = Side.BLUE if len(plies) % 2 == 0 else Side.ORANGE
            ply = Ply(ply=len(plies) + 1, side=side, received=line, move=line, time_ms=1.0)
            plies.append(ply.model_dump(mode="json"))
            state = game.apply(state, move)
        key = outcome.winner.value if outcome.winner else "draw"
        result = Result.of_outcome(outcome, len(plies)).model_dump(mode="json")
        if len(found[key]) < POOL:
            found[key].append(Pooled(plies, result))
    return found


def draw_result(rng: random.Random, blue: float, orange: float) -> str:
    x = blue - orange + ADVANTAGE
    first = 1 / (1 + 10 ** (-(x - DRAW_ELO) / 400))
    second = 1 / (1 + 10 ** (-(-x - DRAW_ELO) / 400))
    u = rng.random()
    return "blue" if u < first else "orange" if u < first + second else "draw"


def chained(lines: list[dict[str, Any]]) -> str:
    """The lines as the record writer writes them: canonical JSON, each with its `chain`."""
    out, chain = [], GENESIS
    for data in lines:
        text = canonical_text(data)
        chain = hashlib.sha256((chain + text).encode("utf-8")).hexdigest()
        out.append(f'{text[:-1]},"{CHAIN_FIELD}":"{chain}"}}\n')
    return "".join(out)


@dataclass(frozen=True)
class Plan:
    players: int
    games: int
    tournaments: int
    seed: int = 1
    resubmitted: float = 0.2  # share of bots with a second version from the middle on


def truths(plan: Plan) -> dict[str, float]:
    rng = random.Random(plan.seed)
    return {f"bot-{k:03d}": rng.gauss(0, 200) for k in range(plan.players)}


def generate(root: Path, plan: Plan) -> list[Path]:
    """Write the tournaments under `root` (t01, t02...); returns their folders."""
    rng = random.Random(plan.seed)
    pool = random_games(plan.seed)
    true = truths(plan)
    names = list(true)
    again = set(rng.sample(names, int(len(names) * plan.resubmitted)))
    folders = []
    per = plan.games // plan.tournaments
    for t in range(plan.tournaments):
        count = per if t < plan.tournaments - 1 else plan.games - per * (plan.tournaments - 1)
        late = t >= plan.tournaments // 2

        def version(name: str, late: bool = late) -> str:
            tag = "v2" if late and name in again else "v1"
            return hashlib.sha256(f"{name}/{tag}".encode()).hexdigest()

        folder = root / f"t{t + 1:02d}"
        write_tournament(folder, t, count, names, true, version, pool, rng)
        folders.append(folder)
    return folders


def write_tournament(
    folder: Path,
    number: int,
    count: int,
    names: list[str],
    true: dict[str, float],
    version: Any,
    pool: dict[str, list[Pooled]],
    rng: random.Random,
) -> None:
    games = []
    for _ in range(count):
        blue, orange = rng.sample(names, 2)
        games.append((blue, orange, rng.randrange(2**31)))
    write_games(
        folder, number, names, games,
        lambda g, blue, orange: draw_result(rng, true[blue], true[orange]),
        version, pool, rng,
    )  # fmt: skip


def write_games(
    folder: Path,
    number: int,
    names: list[str],
    games: list[tuple[str, str, int]],
    ending: Callable[[int, str, str], str],
    version: Any,
    pool: dict[str, list[Pooled]],
    rng: random.Random,
) -> None:
    """A finished tournament of `games` (blue, orange, seed), game g (from 1) ending as
    `ending(g, blue, orange)` says: 'blue' or 'orange' (the side that won) or 'draw'."""
    day = START + timedelta(days=7 * number)
    info = TournamentInfo(f"week {number + 1}", GAME, {}, {}, day.isoformat())
    schedule = [(g, 1, b, o, seed) for g, (b, o, seed) in enumerate(games, 1)]
    store = open_store(folder)
    try:
        store.db.execute("PRAGMA synchronous = OFF")  # made again if lost: speed over safety
        store.create(info, names, schedule)
        finished = []
        for g, _, blue, orange, seed in schedule:
            ended = ending(g, blue, orange)
            chosen = rng.choice(pool[ended])
            started = day + timedelta(seconds=30 * g)
            header = Header(
                game=GAME,
                options={},
                seed=seed,
                players={
                    Side.BLUE: {
                        "name": blue,
                        "command": f"./{blue}",
                        "content_hash": version(blue),
                    },
                    Side.ORANGE: {
                        "name": orange,
                        "command": f"./{orange}",
                        "content_hash": version(orange),
                    },
                },
                time_control=TimeControl(),
                started_at=started,
            ).model_dump(mode="json")
            done = (started + timedelta(seconds=20)).isoformat()
            result = {**chosen.result, "finished_at": done}
            text = chained([header, *chosen.plies, result])
            (folder / record_name(g, 1)).write_text(text, encoding="utf-8")
            chain = json.loads(text.rstrip("\n").rsplit("\n", 1)[-1])[CHAIN_FIELD]
            winner = None if ended == "draw" else ended
            why = result["ending"] or result["reason"]  # the store keeps Result.why
            row = (winner, why, result["detail"], result["plies"], record_name(g, 1))
            finished.append((*row, started.isoformat(), done, chain, g))
        with store.db:
            store.db.executemany(
                "UPDATE games SET state = 'finished', attempts = 1, winner = ?, reason = ?,"
                " detail = ?, plies = ?, record = ?, started_at = ?, finished_at = ?, chain = ?"
                " WHERE number = ?",
                finished,
            )
            store.db.executemany(
                "INSERT INTO attempts VALUES (?, 1, 'finished', ?, ?, ?, ?)",
                [(f[8], f[1], f[2], f[4], f[6]) for f in finished],
            )
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--tournaments", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    plan = Plan(args.players, args.games, args.tournaments, args.seed)
    for folder in generate(args.out, plan):
        print(folder)


if __name__ == "__main__":
    main()
