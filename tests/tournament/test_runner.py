"""Whole tournaments of script bots, in process: exact standings, records, voids and replays."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from protocols.base import Reason
from referee.app.config import load_config
from referee.isolation.levels import Isolation, IsolationSettings, choose
from referee.match import host as host_module
from referee.match.lag import LagMonitor
from referee.match.recorder import Listener
from referee.records import GameRecord, read_record
from referee.tournament.config import LoadedConfig
from referee.tournament.events import Event, GameFinished, GameStarted, TournamentFinished
from referee.tournament.report import build_report
from referee.tournament.resume import open_tournament
from referee.tournament.runner import Runner, ScheduledGame, played_here
from referee.tournament.store import GameState, open_view
from referee.verify import verify_record
from tests.scriptbots import script_bot

# Plays the first legal move that removes nothing: two of them draw after 20 plies.
GOOD = """
from protocols import get_game
game = get_game("lasker-morris")
state = game.initial_state(None)
me = hear()
while True:
    if game.outcome(state) is None and state.to_move.value == me:
        moves = list(game.legal_moves(state))
        quiet = [m for m in moves if game.format_move(m).endswith(" r0")]
        move = (quiet or moves)[0]
        say(game.format_move(move))
        state = game.apply(state, move)
        continue
    line = hear()
    if line in ("END", ""):
        break
    state = game.apply(state, game.parse_move(state, line))
"""
# The bad bots misbehave on their first turn (orange waits for blue's move first).
CRASHES = """
if hear() == "orange":
    hear()
sys.exit(1)
"""
SLEEPS = """
if hear() == "orange":
    hear()
time.sleep(60)
"""
ILLEGAL = """
if hear() == "orange":
    hear()
say("a1 a4 r0")
hear()
"""


def write_config(
    tmp_path: Path, players: dict[str, str], extra: str = "", replays: int = 10
) -> Path:
    entries = "".join(
        f'[[players]]\nname = "{name}"\ncommand = "{command}"\n'
        for name, command in players.items()
    )
    path = tmp_path / "cup.toml"
    path.write_text(
        f'name = "cup"\ngame = "lasker-morris"\nseed = 11\ngames_per_pairing = 2\n'
        f"concurrency = 4\nmax_replays = {replays}\n{extra}\n"
        "[time_control]\nmove_timeout = 0.5\ngrace = 0.2\nstartup_allowance = 3.0\n\n"
        # The script bots live in a private temporary folder: no sandbox around them.
        '[match.isolation]\nlevel = "basic+root"\n\n'
        f"{entries}"
    )
    return path


def script_players(tmp_path: Path) -> dict[str, str]:
    return {
        "good1": script_bot(tmp_path, "good1", GOOD),
        "good2": script_bot(tmp_path, "good2", GOOD),
        "crasher": script_bot(tmp_path, "crasher", CRASHES),
        "sleeper": script_bot(tmp_path, "sleeper", SLEEPS),
        "cheater": script_bot(tmp_path, "cheater", ILLEGAL),
    }


async def run(loaded: LoadedConfig, **kw: object) -> tuple[TournamentFinished, list[Event]]:
    events: list[Event] = []
    store, _ = open_tournament(loaded)
    try:
        runner = Runner(loaded, store, emit=events.append, **kw)  # type: ignore[arg-type]
        final = await runner.run(handle_signals=False)
    finally:
        store.close()
    return final, events


async def test_a_tournament_of_script_bots_gives_the_exact_standings(tmp_path: Path) -> None:
    loaded = load_config(write_config(tmp_path, script_players(tmp_path)))
    final, events = await run(loaded)
    assert final.complete and not final.interrupted and final.finished == 20
    table = {s.name: s for s in final.standings}
    for good in ("good1", "good2"):
        s = table[good]
        assert (s.rank, s.points, s.wins, s.draws, s.losses) == (1, 14, 6, 2, 0)
        assert (s.timeouts, s.crashes, s.illegal) == (0, 0, 0)
    for bad in ("crasher", "sleeper", "cheater"):
        s = table[bad]
        assert (s.rank, s.points, s.wins, s.draws, s.losses) == (3, 4, 2, 0, 6)
    assert table["crasher"].crashes == 6 and table["sleeper"].timeouts == 6
    assert table["cheater"].illegal == 6
    assert table["crasher"].timeouts == table["sleeper"].crashes == 0

    # Every game is in the store with its record, and every record re-verifies.
    view = open_view(loaded.directory)
    rows = view.games()
    assert {row.state for row in rows} == {GameState.FINISHED}
    for row in rows:
        path = view.record_path(row)
        assert path is not None
        record = read_record(path)
        assert record.result is not None and record.result.reason is row.reason
        assert (record.header.players["blue"].name, record.header.seed) == (row.blue, row.seed)
        assert verify_record(record).ok
    report = build_report(view)
    assert [s.name for s in report.standings][:2] == ["good1", "good2"]
    view.close()
    finished = [e for e in events if isinstance(e, GameFinished)]
    assert len(finished) == 20 + sum(e.result == "void" for e in finished)


async def test_void_games_are_replayed_up_to_the_limit_and_never_scored(tmp_path: Path) -> None:
    """Every game's first attempt is voided (as an infrastructure failure would), and game 1
    every time: the others are replayed and scored, game 1 ends void for good."""
    players = {f"r{i}": "builtin:random --seed {seed}" for i in range(3)}
    loaded = load_config(write_config(tmp_path, players, replays=2))
    attempts: dict[int, int] = {}

    async def flaky(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        record = await played_here(loaded)(loaded, game, path, listener, lag, decided)
        attempts[game.number] = attempts.get(game.number, 0) + 1
        if attempts[game.number] == 1 and game.number <= 4:
            # The four workers' first games end well apart, so that each worker takes its next
            # game (a first attempt, then the replays) and announces it before the next one
            # ends: the order of the starts below is the order of the queue, not of a race.
            await trio.sleep(0.5 * game.number)
        if game.number == 1 or attempts[game.number] == 1:
            assert record.result is not None
            void = record.result.model_copy(
                update={"winner": None, "reason": Reason.INFRASTRUCTURE, "void": True}
            )
            return record.model_copy(update={"result": void})
        return record

    final, events = await run(loaded, play=flaky)
    assert attempts == {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}
    assert (final.finished, final.void, final.pending) == (5, 1, 0)
    assert sum(s.games for s in final.standings) == 10  # game 1 counts for nobody
    finished = [e for e in events if isinstance(e, GameFinished)]
    started = [e for e in events if isinstance(e, GameStarted)]
    # Replays come later: no replay starts before every first attempt has started. (With
    # several games at once a replay may still finish before a slow first attempt.)
    first_replay = next(i for i, e in enumerate(started) if e.attempt == 2)
    assert all(e.attempt == 1 for e in started[:first_replay]) and first_replay == 6
    assert [e.replay for e in finished if e.number == 1] == [True, True, False]
    view = open_view(loaded.directory)
    rows = {row.number: row for row in view.games()}
    assert rows[1].state is GameState.VOID and rows[1].voids == 3
    assert rows[2].state is GameState.FINISHED and rows[2].record == "games/0002-2.jsonl"
    assert (loaded.directory / "games/0002.jsonl").is_file()  # the void attempt's record stays
    view.close()


@pytest.mark.referee_error
async def test_a_referee_error_is_logged_and_its_game_replayed_once_at_most(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug of the referee's own around game 1 (raised by the game's play) is written with
    its traceback to stderr and the tournament's referee.log, and its game is replayed once,
    not `max_replays` times: a bug that shows again is not bad luck."""
    players = {f"r{i}": "builtin:random --seed {seed}" for i in range(2)}
    loaded = load_config(write_config(tmp_path, players, replays=3))
    attempts: dict[int, int] = {}

    async def buggy(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        attempts[game.number] = attempts.get(game.number, 0) + 1
        if game.number == 1:
            raise KeyError("a bug of ours")
        return await played_here(loaded)(loaded, game, path, listener, lag, decided)

    final, events = await run(loaded, play=buggy)
    assert attempts == {1: 2, 2: 1}
    assert (final.finished, final.void, final.pending) == (1, 1, 0)
    finished = [e for e in events if isinstance(e, GameFinished) and e.number == 1]
    assert [e.reason for e in finished] == [Reason.REFEREE_ERROR] * 2
    assert [e.replay for e in finished] == [True, False]
    log = loaded.directory / "referee.log"
    assert finished[0].detail == f"KeyError: 'a bug of ours' (traceback in {log})"
    logged = log.read_text()
    assert logged.count("referee error in game 1 of cup:") == 2
    assert logged.count("Traceback (most recent call last)") == 2 and "in buggy" in logged
    assert capsys.readouterr().err.count("KeyError: 'a bug of ours'") == 2


async def test_a_run_chooses_its_isolation_level_once_for_all_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = {f"r{i}": "builtin:random --seed {seed}" for i in range(3)}
    loaded = load_config(write_config(tmp_path, players))
    chosen = []

    def counted(settings: IsolationSettings) -> Isolation:
        chosen.append(settings.level)
        return choose(settings)

    monkeypatch.setattr(host_module, "choose", counted)
    final, _ = await run(loaded)
    assert final.finished == 6
    assert chosen == ["basic+root"]  # once, before the first game, not once a game


async def test_one_game_per_player_never_runs_a_bot_twice_at_once(tmp_path: Path) -> None:
    players = {f"r{i}": "builtin:random --seed {seed}" for i in range(4)}
    loaded = load_config(write_config(tmp_path, players, extra="one_game_per_player = true"))
    busy: set[str] = set()
    overlaps: list[str] = []

    async def watched(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        overlaps.extend(p for p in game.players if p in busy)
        busy.update(game.players)
        try:
            return await played_here(loaded)(loaded, game, path, listener, lag, decided)
        finally:
            busy.difference_update(game.players)

    final, _ = await run(loaded, play=watched)
    assert final.complete and final.finished == 12 and overlaps == []


async def test_the_next_game_starts_while_the_last_one_closes(tmp_path: Path) -> None:
    # At concurrency 1, a game that is decided but still closing (its bots exiting, its record
    # and result being written) does not hold up the next game; every game is still committed.
    players = {f"r{i}": "builtin:random --seed {seed}" for i in range(3)}
    loaded = load_config(write_config(tmp_path, players))
    log: list[str] = []

    async def slow_to_close(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        log.append(f"start {game.number}")
        record = await played_here(loaded)(loaded, game, path, listener, lag, decided)
        await trio.sleep(1.0)  # closing takes long
        log.append(f"closed {game.number}")
        return record

    final, _ = await run(loaded, play=slow_to_close, concurrency=1)
    assert final.complete and final.finished == 6
    assert log.index("start 2") < log.index("closed 1")
    # Never more than one game being played at once: each starts after the last one's decision,
    # so at most the one before it is still closing.
    for number in range(3, 7):
        assert log.index(f"closed {number - 2}") < log.index(f"start {number}")


async def test_a_run_told_to_stop_starts_no_further_game(tmp_path: Path) -> None:
    # A game that is decided but still closing, and whose result could stop the run, holds up
    # the next game until it is counted and the rule asked: otherwise the next game would start
    # before the rule could say stop (an SPRT decided by game 2 would still play game 3). A
    # game whose result could not stop the run (game 1 here) lets the next one start at once.
    players = {f"r{i}": "builtin:random --seed {seed}" for i in range(3)}
    loaded = load_config(write_config(tmp_path, players))
    log: list[str] = []

    async def slow_to_close(
        loaded: LoadedConfig,
        game: ScheduledGame,
        path: Path,
        listener: Listener,
        lag: LagMonitor,
        decided: Callable[[], None],
    ) -> GameRecord:
        log.append(f"start {game.number}")
        record = await played_here(loaded)(loaded, game, path, listener, lag, decided)
        await trio.sleep(1.0)  # closing takes long
        log.append(f"closed {game.number}")
        return record

    final, events = await run(
        loaded,
        play=slow_to_close,
        concurrency=1,
        stop_when=lambda state: state.finished >= 2,
        could_stop=lambda number: number >= 2,
    )
    assert final.finished == 2 and not final.complete and final.pending == 4
    assert sum(isinstance(e, GameStarted) for e in events) == 2
    assert log.index("start 2") < log.index("closed 1")
    # The stopped run resumes like an interrupted one: the remaining games are played.
    final, _ = await run(loaded, concurrency=1)
    assert final.complete and final.finished == 6
