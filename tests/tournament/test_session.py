"""A tournament session (referee/app/tournament_session.py) plays its games with the observers
it is given, in this process: each sees every event in order, hears each game's lines and
watches the run's state while the games play, and is given the start checks as values; the
session prints nothing itself (JSON events go to the stream given). Opening returns what to say
(the isolation, the games already done) or the refusal. A second session on the same folder
resumes and plays nothing."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
import trio

from referee.app.config import load_config
from referee.app.observers import JsonEvents, Observer
from referee.app.session_open import Refused
from referee.app.tournament_session import SessionSettings, TournamentSession
from referee.match.recorder import Listener
from referee.records import Header, Ply, Result
from referee.tournament.events import Event, GameFinished, GameStarted
from referee.tournament.preflight import StartCheck
from referee.tournament.runner import RunState
from referee.tournament.schedule import ScheduledGame

CONFIG = """\
name = "cup"
game = "tic-tac-toe"
games_per_pairing = 2
[[players]]
name = "ann"
command = "builtin:random --seed 1"
[[players]]
name = "ben"
command = "builtin:random --seed 2"
"""


class Recording(Observer):
    """Everything a session shows an observer, in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.lines: dict[int, list[str]] = {}
        self.states: list[RunState] = []
        self.checks: list[tuple[list[str], str | None]] = []

    def game_listener(self, game: ScheduledGame, record: Path) -> Listener:
        heard = self.lines.setdefault(game.number, [])

        def hear(line: Header | Ply | Result) -> None:
            heard.append(type(line).__name__)

        return hear

    def on_event(self, event: Event) -> None:
        self.events.append(event)

    async def run(self, state: RunState) -> None:
        self.states.append(state)
        await trio.sleep_forever()  # as a live view does: cancelled when the games end

    def start_checks(self, checks: Sequence[StartCheck], refusal: str | None) -> None:
        self.checks.append(([check.name for check in checks if check.broken], refusal))


def test_observers_see_each_game_and_a_second_session_resumes_with_nothing_to_play(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cup.toml").write_text(CONFIG)
    loaded = load_config(tmp_path / "cup.toml")
    stream = io.StringIO()
    seen = Recording()
    session = TournamentSession.open(loaded, SessionSettings(concurrency=1))
    assert not isinstance(session, Refused), session.message
    assert session.isolation is not None and session.resumed == (0, 2)
    with session:
        final = session.run([seen, JsonEvents(stream)])

    assert final is not None and final.complete and final.finished == 2
    assert seen.checks == [([], None)]  # both bots started once: no refusal
    kinds = [event.event for event in seen.events]
    assert kinds[0] == "tournament-started" and seen.events[-1] == final
    games = [(e.event, e.number) for e in seen.events if isinstance(e, GameStarted | GameFinished)]
    assert sorted(games) == [
        (kind, n) for kind in ("game-finished", "game-started") for n in (1, 2)
    ]
    for number in (1, 2):  # each game's start told before its end
        assert games.index(("game-started", number)) < games.index(("game-finished", number))
    for number in (1, 2):  # each game heard from its header to its result
        heard = seen.lines[number]
        assert heard[0] == "Header" and heard[-1] == "Result" and "Ply" in heard
    assert len(seen.states) == 1 and seen.states[0].finished == 2
    # The JSON events went to the stream given, the same events; stdout got nothing.
    lines = stream.getvalue().splitlines()
    assert [json.loads(line)["event"] for line in lines] == kinds
    assert capfd.readouterr() == ("", "")  # the session itself printed nothing

    again = Recording()
    session = TournamentSession.open(loaded, SessionSettings(concurrency=1))
    assert not isinstance(session, Refused), session.message
    assert session.resumed == (2, 2)  # "resuming: 2/2 games done", said by the command
    with session:
        final = session.run([again])
    assert capfd.readouterr() == ("", "")
    assert final is not None and final.complete and final.finished == 2
    assert [event.event for event in again.events] == ["tournament-started", "tournament-finished"]
    assert again.lines == {}


def test_a_refused_start_tells_no_observer_and_leaves_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    broken = CONFIG.replace("builtin:random --seed 2", "python3 mian.py")
    (tmp_path / "cup.toml").write_text(broken)
    loaded = load_config(tmp_path / "cup.toml")
    seen = Recording()
    session = TournamentSession.open(loaded)
    assert not isinstance(session, Refused), session.message
    with session:
        assert session.run([seen]) is None
    assert seen.events == [] and seen.states == []
    [(broken_bots, refusal)] = seen.checks  # the checks and the refusal, as values
    assert broken_bots == ["ben"]
    assert refusal is not None and "not starting the tournament: ben cannot start" in refusal
    assert capfd.readouterr() == ("", "")
    assert not loaded.directory.exists()  # the refused first run's store removed with it
