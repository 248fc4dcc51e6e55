"""Ladder games played for real: versions' bots (small scripts and built-in bots) in their
folders under the isolation the server chooses, each game's record written to DIR/games/ID.jsonl
and its result committed; a bot that crashes loses with its stderr kept; a referee fault voids
the game, is logged with its traceback and is played again once; no bot sees the arena's
folder."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

import pytest

from protocols import get_game
from protocols.base import Reason, Side
from referee.arena.folder import Arena
from referee.arena.games import PlayOrder, play_game, play_match, version_folder
from referee.arena.ladder import ladder_setup
from referee.arena.ladder_store import add_meetings, take_next
from referee.arena.rows import Game, GameKind, GameState
from referee.arena.scheduler import Meeting
from referee.isolation import Feature
from referee.match.lag import LagMonitor
from referee.records import GameRecord, final_chain, read_record
from referee.verify import verify_record
from tests.arena.ladder_rows import BOT, START, add_version, builtin_bot, script_bot


def local(arena: Arena) -> PlayOrder:
    setup = ladder_setup(arena)
    assert setup.host is not None
    return partial(play_match, host=setup.host, lag=LagMonitor())


def scheduled(arena: Arena, blue: int, orange: int) -> Game:
    add_meetings(arena.store.writer, START, [Meeting(blue, orange, GameKind.LADDER)], arena.config)
    game = take_next(arena.store.writer, START)
    assert game is not None
    return game


def stored(arena: Arena, game_id: int) -> Game:
    row = arena.store.writer.execute(f"SELECT {Game.COLUMNS} FROM games WHERE id = ?", (game_id,))
    return Game.of(row.fetchone())


async def test_a_game_is_played_recorded_and_committed(arena: Arena) -> None:
    a = add_version(arena, "alice", *script_bot(1))
    b = add_version(arena, "bob", *script_bot(2))
    game = scheduled(arena, a, b)
    played = await play_game(arena.store, arena.paths.root, arena.config, game, local(arena))
    assert played.replay is None and not played.result.void
    row = stored(arena, game.id)
    assert row.state is GameState.DONE
    assert row.record == f"games/{game.id}.jsonl"
    record = read_record(arena.paths.root / row.record)
    assert verify_record(record).ok
    assert record.header.seed == game.seed
    players = record.header.players
    assert (players[Side.BLUE].name, players[Side.ORANGE].name) == ("alice v1", "bob v1")
    hashes = dict(arena.store.writer.execute("SELECT id, content_hash FROM versions"))
    assert players[Side.BLUE].content_hash == hashes[a]
    assert players[Side.BLUE].cwd == str(version_folder(arena.paths.root, a))
    assert record.result is not None
    winner = record.result.winner.value if record.result.winner else None
    assert (row.winner, row.reason, row.plies) == (winner, record.result.why, len(record.plies))
    chain = arena.store.writer.execute("SELECT chain FROM games WHERE id = ?", (game.id,))
    assert chain.fetchone()[0] == final_chain(arena.paths.root / row.record) is not None


async def test_a_version_that_crashes_loses_with_its_stderr(arena: Arena) -> None:
    a = add_version(arena, "alice", *script_bot(1))
    c = add_version(arena, "carol", *script_bot(3, crash=True))
    game = scheduled(arena, c, a)
    await play_game(arena.store, arena.paths.root, arena.config, game, local(arena))
    row = stored(arena, game.id)
    assert (row.state, row.winner, row.reason) == (GameState.DONE, "orange", Reason.CRASH.value)
    record = read_record(arena.paths.root / f"games/{game.id}.jsonl")
    assert record.result is not None
    assert "giving up" in record.result.bots[Side.BLUE].stderr_tail


async def test_built_in_bots_play_from_the_meeting_s_opening(arena: Arena) -> None:
    a = add_version(arena, "alice", builtin_bot("random", 1))
    b = add_version(arena, "bob", builtin_bot("greedy", 2))
    game = scheduled(arena, a, b)
    assert game.opening is not None and len(game.opening) == 4
    await play_game(arena.store, arena.paths.root, arena.config, game, local(arena))
    record = read_record(arena.paths.root / f"games/{game.id}.jsonl")
    assert record.header.opening == list(game.opening)
    assert verify_record(record).ok
    assert stored(arena, game.id).state is GameState.DONE


async def test_a_referee_fault_around_the_match_is_logged_and_played_again_once(
    arena: Arena, caplog: pytest.LogCaptureFixture
) -> None:
    a = add_version(arena, "alice", *script_bot(1))
    b = add_version(arena, "bob", *script_bot(2))

    async def broken(*args: object) -> GameRecord:
        raise RuntimeError("the order could not be sent")

    game = scheduled(arena, a, b)
    with caplog.at_level(logging.ERROR, logger="referee.arena"):
        played = await play_game(arena.store, arena.paths.root, arena.config, game, broken)
    assert played.result.reason is Reason.REFEREE_ERROR and played.result.void
    assert "RuntimeError: the order could not be sent" in (played.result.detail or "")
    faults = [r for r in caplog.records if r.exc_info]
    assert faults and f"game {game.id}" in faults[0].getMessage()
    assert "Traceback" in caplog.text and "the order could not be sent" in caplog.text
    replay = played.replay
    assert replay is not None and replay.replaces == game.id and replay.seed == game.seed
    again = take_next(arena.store.writer, START)
    assert again is not None and again.id == replay.id
    second = await play_game(arena.store, arena.paths.root, arena.config, again, broken)
    assert second.replay is None  # a referee fault is played again once
    assert stored(arena, game.id).state is GameState.VOID
    assert stored(arena, replay.id).state is GameState.VOID


@pytest.mark.referee_error
async def test_a_referee_error_inside_the_match_is_logged_with_its_traceback(
    arena: Arena, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = add_version(arena, "alice", *script_bot(1))
    b = add_version(arena, "bob", *script_bot(2))

    def bug(state: Any, move: Any) -> Any:
        raise ZeroDivisionError("a bug in the rules")

    monkeypatch.setattr(get_game(arena.config.game), "apply", bug)
    game = scheduled(arena, a, b)
    with caplog.at_level(logging.ERROR):
        played = await play_game(arena.store, arena.paths.root, arena.config, game, local(arena))
    assert played.result.reason is Reason.REFEREE_ERROR
    assert played.replay is not None  # played again, once
    # The match wrote its traceback to the arena's log, the server's host's log.
    logged = arena.paths.log.read_text()
    assert f"referee error in a game of {arena.config.game}" in logged
    assert "ZeroDivisionError: a bug in the rules" in logged and "in bug" in logged
    said = [r.getMessage() for r in caplog.records if r.name == "referee.arena"]
    assert any(f"game {game.id}: a referee error voids it" in m for m in said)
    # The game was voided, not lost by a bot, and its record says so.
    record = read_record(arena.paths.root / f"games/{game.id}.jsonl")
    assert record.result is not None and record.result.reason is Reason.REFEREE_ERROR
    assert (
        record.result.detail
        == f"ZeroDivisionError: a bug in the rules (traceback in {arena.paths.log})"
    )


SPY = """\
import sys
for path in {paths!r}:
    try:
        with open(path, "rb") as file:
            file.read(1)
        sys.stderr.write(f"read {{path}}\\n")
    except OSError as exc:
        sys.stderr.write(f"blocked {{path}}: {{type(exc).__name__}}\\n")
sys.stderr.flush()
"""


async def test_no_bot_sees_the_arena_s_folder_but_its_own(arena: Arena) -> None:
    root = arena.paths.root
    a = add_version(arena, "alice", *script_bot(1))
    # A version that is not in the game: its opponent's folder is hidden from a bot anyway.
    third = add_version(arena, "carol", *script_bot(5))
    secret = version_folder(root, third) / "bot.py"
    command, files = script_bot(2)
    spy = add_version(arena, "mallory", command, files)
    own = version_folder(root, spy) / "bot.py"
    uploads = root / "uploads"
    paths = [str(root / "arena.sqlite"), str(root / "secret.key"), str(secret), str(own)]
    paths.append(str(uploads / "planted"))
    (uploads / "planted").write_text("an upload")
    (uploads / "planted").chmod(0o644)
    own.write_text(SPY.format(paths=paths) + BOT)
    game = scheduled(arena, spy, a)
    await play_game(arena.store, root, arena.config, game, local(arena))
    record = read_record(root / f"games/{game.id}.jsonl")
    assert record.result is not None and record.result.reason is not Reason.CRASH
    said = record.result.bots[Side.BLUE].stderr_tail
    assert f"read {own}" in said
    assert f"blocked {root / 'arena.sqlite'}" in said
    assert f"blocked {root / 'secret.key'}" in said
    setup = ladder_setup(arena)
    assert setup.host is not None
    sandboxed = setup.host.isolation.has(Feature.SANDBOX)
    # Another version's files and the uploads: hidden by the sandbox (without it, readable as
    # any file others may read is).
    assert (f"blocked {secret}" in said) == sandboxed
    assert (f"blocked {uploads / 'planted'}" in said) == sandboxed
    hidden = setup.host.isolation.hidden
    assert root in hidden or root.resolve() in hidden
