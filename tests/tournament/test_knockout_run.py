"""A knockout played by the runner with real built-in bots: each round stored once the one
before it is decided, byes, the third-place match, and the same bracket for the same seed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from protocols.base import Reason
from referee.app.config import load_config
from referee.match.lag import LagMonitor
from referee.match.recorder import Listener
from referee.records import GameRecord
from referee.tournament.config import ConfigError, LoadedConfig
from referee.tournament.formats import plan_for
from referee.tournament.report import build_report
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner, played_here
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store import GameState, open_view

CONFIG = """\
name = "cup"
game = "tic-tac-toe"
seed = {seed}
format = "knockout"
concurrency = 2
directory = "{directory}"

[knockout]
games = 2
third_place = true
seeding = "random"

[match.isolation]
level = "basic"
allow_root = true

[[players]]
name = "r1"
command = "builtin:random --seed {{seed}}"
[[players]]
name = "r2"
command = "builtin:random --seed {{seed}}"
[[players]]
name = "g1"
command = "builtin:greedy --seed {{seed}}"
[[players]]
name = "g2"
command = "builtin:greedy --seed {{seed}}"
[[players]]
name = "r3"
command = "builtin:random --seed {{seed}}"
"""


def write(tmp_path: Path, directory: str, seed: int = 5) -> LoadedConfig:
    path = tmp_path / f"{directory}.toml"
    path.write_text(CONFIG.format(seed=seed, directory=directory))
    return load_config(path)


async def run(loaded: LoadedConfig) -> list[tuple[int, str, str, str | None]]:
    store, first = open_tournament(loaded)
    assert len(first) == 2  # five players: one first-round tie, three byes
    try:
        final = await Runner(loaded, store).run(handle_signals=False)
    finally:
        store.close()
    assert final.complete and final.pending == 0
    view = open_view(loaded.directory)
    try:
        rows = view.games()
    finally:
        view.close()
    assert {row.state for row in rows} == {GameState.FINISHED}
    plan = plan_for(loaded.config, rows)
    assert plan.finished and [s.name for s in plan.stages] == [
        "Quarter-final", "Semi-final", "Final"
    ]  # fmt: skip
    assert [t.label for t in plan.stages[-1].ties] == ["Final", "Third place"]
    assert sorted(plan.placings) == ["g1", "g2", "r1", "r2", "r3"]
    # Every round was added after the one before it was decided: game numbers rise by round.
    assert [row.round for row in rows] == sorted(row.round for row in rows)
    return [(row.number, row.blue, row.orange, row.winner_name) for row in rows]


async def test_a_knockout_is_played_round_by_round_and_again_the_same(tmp_path: Path) -> None:
    first = await run(write(tmp_path, "one"))
    assert len(first) >= 2 + 4 + 4  # the extra games of level ties come on top
    again = await run(write(tmp_path, "two"))
    assert again == first  # the same seed: the same bracket and the same games


EARLIER = """\
name = "league"
game = "tic-tac-toe"
seed = 2
games_per_pairing = 4
concurrency = 2

[match.isolation]
level = "basic"
allow_root = true

[[players]]
name = "r1"
command = "builtin:random --seed {seed}"
[[players]]
name = "g1"
command = "builtin:greedy --seed {seed}"
[[players]]
name = "r2"
command = "builtin:random --seed {seed}"
"""


async def test_seeds_from_an_earlier_tournaments_ratings(tmp_path: Path) -> None:
    league = tmp_path / "league.toml"
    league.write_text(EARLIER)
    loaded = load_config(league)
    store, _ = open_tournament(loaded)
    try:
        await Runner(loaded, store).run(handle_signals=False)
    finally:
        store.close()
    view = open_view(loaded.directory)
    try:
        elo = {row.name: row.elo for row in build_report(view).standings}
    finally:
        view.close()
    cup = tmp_path / "cup.toml"
    cup.write_text(
        'name = "cup"\ngame = "tic-tac-toe"\nformat = "knockout"\n'
        '[knockout]\nseeding = "ratings"\nratings_from = "league.toml"\n'
        + "".join(f'[[players]]\nname = "{n}"\ncommand = "x"\n' for n in ("new", "r1", "r2", "g1"))
    )
    seeds = load_config(cup).config.knockout.seeds
    rated = sorted(elo, key=lambda n: -(elo[n] or 0.0))
    assert seeds == [*rated, "new"]  # best first; a player the league never rated comes last
    assert len(set(elo.values())) == 3  # three different ratings: the order is the ratings'

    cup.write_text(cup.read_text().replace("league.toml", "nowhere.toml"))
    with pytest.raises(ConfigError, match=r"cup.toml:6: knockout.ratings_from: cannot read"):
        load_config(cup)


async def test_games_void_for_good_do_not_stop_the_knockout(tmp_path: Path) -> None:
    """Every game of g2 is voided (as a machine failure would) beyond its replays: its ties are
    level at 0-0 and go by seed, and the knockout still ends."""
    loaded = write(tmp_path, "voids", seed=8)
    loaded = LoadedConfig(loaded.config.model_copy(update={"max_replays": 1}), loaded.path)
    attempts: dict[int, int] = {}

    async def failing_g2(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        attempts[game.number] = attempts.get(game.number, 0) + 1
        record = await played_here(loaded)(loaded, game, path, listener, lag, decided)
        if "g2" not in game.players:
            return record
        assert record.result is not None
        void = record.result.model_copy(
            update={"winner": None, "reason": Reason.INFRASTRUCTURE, "void": True}
        )
        return record.model_copy(update={"result": void})

    store, _ = open_tournament(loaded)
    try:
        final = await Runner(loaded, store, play=failing_g2).run(handle_signals=False)
    finally:
        store.close()
    view = open_view(loaded.directory)
    try:
        rows = view.games()
    finally:
        view.close()
    plan = plan_for(loaded.config, rows)
    assert plan.finished and final.complete  # complete: every game finished or void for good
    g2_games = [r for r in rows if "g2" in (r.blue, r.orange)]
    assert g2_games and all(r.state is GameState.VOID for r in g2_games)
    assert all(attempts[r.number] == 2 for r in g2_games)  # played, replayed once, void for good
    assert final.void == len(g2_games)
    g2_ties = [t for s in plan.stages for t in s.ties if "g2" in (t.first, t.second) and t.games]
    assert g2_ties
    for tie in g2_ties:  # nothing counted: level at 0-0, the higher seed went through
        assert (tie.first_points, tie.second_points) == (0, 0)
        assert (tie.winner, tie.decided_by) == (tie.first, "seed order")
    assert sorted(plan.placings) == ["g1", "g2", "r1", "r2", "r3"]
