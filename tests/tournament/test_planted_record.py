"""A link planted on the way to a game's record while a tournament runs (a command refuses one
planted before it starts) stops the run, named: no game is voided for it as a fault of the
referee, none is played again into it, and nothing is written where it leads."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.app.config import load_config
from referee.match.lag import LagMonitor
from referee.match.recorder import Listener
from referee.nofollow import PlantedLink
from referee.records import GameRecord
from referee.tournament.config import LoadedConfig
from referee.tournament.resume import open_tournament
from referee.tournament.roster import Roster
from referee.tournament.runner import Runner, ScheduledGame, play_match, tournament_host
from referee.tournament.store import GameState, open_view

NOBODY = 65534


async def test_a_link_planted_mid_run_stops_it_and_voids_nothing(tmp_path: Path) -> None:
    config = tmp_path / "cup.toml"
    config.write_text(
        'name = "cup"\ngame = "tic-tac-toe"\ngames_per_pairing = 2\n'
        '[[players]]\nname = "a"\ncommand = "builtin:random --seed {seed}"\n'
        '[[players]]\nname = "b"\ncommand = "builtin:greedy"\n'
        '[match.isolation]\nlevel = "basic+root"\n'
    )
    loaded = load_config(config)
    target = tmp_path / "target"
    target.mkdir()
    planted = loaded.directory / "planted"
    roster = Roster.of(loaded)
    host = tournament_host(loaded, roster)

    async def planting(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        if game.number == 1:  # another user's link, where the first game's record goes
            planted.symlink_to(target)
            if os.geteuid() == 0:
                os.lchown(planted, NOBODY, NOBODY)
            else:
                loaded.directory.chmod(0o777)  # a folder anybody may write to: anybody's link
            path = planted / path.name
        return await play_match(
            loaded, game, path, listener, lag, decided, host=host, roster=roster
        )

    store, _ = open_tournament(loaded)
    try:
        with pytest.raises(BaseExceptionGroup) as raised:
            await Runner(loaded, store, play=planting).run(handle_signals=False)
    finally:
        store.close()
    assert raised.value.split(PlantedLink)[1] is None, raised.value  # nothing else went wrong
    assert list(target.iterdir()) == []
    view = open_view(loaded.directory)
    try:
        states = {row.number: (row.state, row.voids) for row in view.games()}
        attempts = view.attempts()
    finally:
        view.close()
    assert set(states.values()) == {(GameState.PENDING, 0)}  # played again by a later run
    assert all(a.outcome == "cut-short" for a in attempts), attempts  # never a void
