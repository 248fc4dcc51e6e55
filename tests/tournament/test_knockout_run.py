"""A knockout played by the runner with real built-in bots: each round stored once the one
before it is decided, byes, the third-place match, and the same bracket for the same seed."""

from __future__ import annotations

from pathlib import Path

from referee.tournament.config import LoadedConfig, load_config
from referee.tournament.formats import plan_for
from referee.tournament.runner import Runner
from referee.tournament.session import open_tournament
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
