"""Versions and games put straight into an arena's store, for the ladder's tests (the
submissions are another part's; here a version is its row and its folder, as the submission
worker leaves them), and a small tic-tac-toe bot to fill a version's folder."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from referee.arena import accounts
from referee.arena.folder import Arena
from referee.arena.games import version_folder
from referee.arena.roster import Person
from referee.arena.rows import Game, GameKind, Role, VersionStatus
from referee.arena.store import stamp, transaction

START = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
PATIENCE = 300  # seconds: a ladder that has not done it by then never will (a busy machine)


def games(arena: Arena) -> list[Game]:
    """Every game of the arena's store, oldest first."""
    rows = arena.store.reader.execute(f"SELECT {Game.COLUMNS} FROM games ORDER BY id")
    return [Game.of(r) for r in rows]


def scheduled(arena: Arena, **settings: object) -> None:
    """The arena's `[schedule]` with `settings` changed."""
    schedule = arena.config.schedule.model_copy(update=settings)
    arena.config = arena.config.model_copy(update={"schedule": schedule})


# A tic-tac-toe bot that plays a random legal move from a generator seeded by its first
# argument, after sleeping its second (seconds) before each move; `crash` as its third makes it
# exit before its first move. The same games whatever machine plays them.
BOT = """\
import random, sys, time
from protocols import get_game

game = get_game("tic-tac-toe")
state = game.initial_state(None)
rng = random.Random(int(sys.argv[1]))
delay = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
crash = len(sys.argv) > 3 and sys.argv[3] == "crash"


def move():
    global state
    if crash:
        sys.stderr.write("giving up\\n")
        sys.exit(3)
    time.sleep(delay)
    choice = rng.choice(sorted(game.format_move(m) for m in game.legal_moves(state)))
    state = game.apply(state, game.parse_move(state, choice))
    sys.stdout.write(choice + "\\n")
    sys.stdout.flush()


for line in sys.stdin:
    line = line.strip()
    if line == "END":
        break
    if line == "orange":
        continue
    if line != "blue":
        state = game.apply(state, game.parse_move(state, line))
    move()
"""


def account(arena: Arena, username: str) -> int:
    """The account `username`, made a student if it does not exist yet."""
    db = arena.store.writer
    found = accounts.by_username(db, username)
    if found is not None:
        return found.id
    done = accounts.import_roster(db, [Person(username, username, Role.STUDENT, None, 1)], START)
    return done.added[0].id


def script_bot(seed: int, delay: float = 0.0, crash: bool = False) -> tuple[str, dict[str, str]]:
    """The command and files of a version playing `BOT`."""
    command = f"{sys.executable} bot.py {seed} {delay}" + (" crash" if crash else "")
    return command, {"bot.py": BOT}


def builtin_bot(name: str = "random", seed: int = 1, game: str = "tic-tac-toe") -> str:
    """The command of a built-in bot, as a version may run it (understands `position`)."""
    return f"{sys.executable} -m bots {name} --game {game} --seed {seed}"


def add_version(
    arena: Arena,
    username: str,
    command: str = "",
    files: dict[str, str] | None = None,
    *,
    status: VersionStatus = VersionStatus.ACTIVE,
    capabilities: Sequence[str] = (),
    activated: datetime | None = START,
    late: bool = False,
) -> int:
    """A version of `username`'s (the account made if need be) with its folder; its id."""
    owner = account(arena, username)
    db = arena.store.writer
    content = json.dumps([command, files or {}], sort_keys=True).encode()
    with transaction(db):
        upload = db.execute(
            "INSERT INTO uploads (sha256, size, name, account_id, received_at)"
            " VALUES (?, ?, 'bot.py', ?, ?)",
            (hashlib.sha256(content).hexdigest(), len(content), owner, stamp(START)),
        ).lastrowid
        (number,) = db.execute(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM versions WHERE account_id = ?", (owner,)
        ).fetchone()
        version = db.execute(
            "INSERT INTO versions (account_id, number, upload_id, status, command, capabilities,"
            " content_hash, created_at, activated_at, late) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (owner, number, upload, status.value, command, json.dumps(list(capabilities)),
             hashlib.sha256(content).hexdigest(), stamp(START),
             stamp(activated) if activated else None, int(late)),
        ).lastrowid  # fmt: skip
    assert version is not None
    folder = version_folder(arena.paths.root, version)
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    for name, text in (files or {}).items():
        (folder / name).write_text(text)
    return version


def set_status(arena: Arena, version: int, status: VersionStatus) -> None:
    with transaction(arena.store.writer) as db:
        db.execute("UPDATE versions SET status = ? WHERE id = ?", (status.value, version))


def add_game(
    arena: Arena,
    blue: int,
    orange: int,
    *,
    state: str = "done",
    winner: str | None = None,
    kind: GameKind = GameKind.LADDER,
    created: datetime = START,
    reason: str | None = None,
    replaces: int | None = None,
    attempt: int = 1,
    seed: int = 1,
    opening: Sequence[str] | None = None,
) -> int:
    """A game row as the ladder would have left it; its id."""
    finished = state in ("done", "void")
    reason = reason or ("no-legal-move" if state == "done" else None)
    with transaction(arena.store.writer) as db:
        game = db.execute(
            "INSERT INTO games (kind, blue, orange, seed, opening, state, attempt, winner, reason,"
            " created_at, started_at, finished_at, replaces) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?, ?, ?)",
            (kind.value, blue, orange, seed, json.dumps(list(opening)) if opening else None,
             state, attempt, winner, reason, stamp(created),
             stamp(created) if state != "pending" else None,
             stamp(created) if finished else None, replaces),
        ).lastrowid  # fmt: skip
    assert game is not None
    return game
