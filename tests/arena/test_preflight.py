"""The submission worker below the pages: the order it takes versions in, how it names a
lone file, what a version declares, the game it checks with, and a referee's failure never
blamed on the bot."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import trio

from referee.arena import accounts, versions
from referee.arena.folder import Arena, new_arena, open_arena
from referee.arena.preflight import capabilities_of, check_folder
from referee.arena.roster import Person
from referee.arena.rows import Role, VersionStatus
from referee.arena.uploads import Incoming, archive_kind, lone_file_name, take_upload
from referee.records import read_record
from tests.arena.kit import CRASHING_BOT, GOOD_BOT, check_all, entry, zip_of
from tests.course.kit import PYTHON_BOT as ALAK_BOT

NOW = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)


def upload(arena: Arena, account_id: int, name: str, data: bytes) -> int:
    async def feed(incoming: Incoming) -> None:
        await trio.to_thread.run_sync(incoming.write, data)

    async def take() -> int:
        version = await take_upload(
            arena.store, arena.paths.uploads, arena.config, account_id, name, feed, NOW
        )
        return version.id

    return trio.run(take)


def students(arena: Arena, *names: str) -> list[int]:
    people = [Person(n, n.title(), Role.STUDENT, None, i) for i, n in enumerate(names, 2)]
    return [a.id for a in accounts.import_roster(arena.store.writer, people, NOW).added]


@pytest.fixture
def ladder(tmp_path: Path) -> Arena:
    new_arena(tmp_path / "arena", game="tic-tac-toe")
    return open_arena(tmp_path / "arena")


def test_versions_are_taken_in_the_order_they_came_one_per_account(ladder: Arena) -> None:
    alice, bob = students(ladder, "alice", "bob")
    first = upload(ladder, alice, "a.py", GOOD_BOT)
    bobs = upload(ladder, bob, "b.py", GOOD_BOT)
    newer = upload(ladder, alice, "a.py", GOOD_BOT + b"#\n")
    db = ladder.store.writer
    taken = versions.claim_next(db)
    assert taken is not None and taken.id == newer  # alice came first; her newest
    assert entry(ladder, first).version.status is VersionStatus.SUPERSEDED
    later = upload(ladder, alice, "a.py", GOOD_BOT + b"##\n")
    second = versions.claim_next(db)
    assert second is not None and second.id == bobs  # alice's next waits for her check
    assert versions.claim_next(db) is None
    versions.finish(db, newer, NOW, passed=True, problem=None)
    third = versions.claim_next(db)
    assert third is not None and third.id == later


def test_a_referee_failure_fails_the_version_without_blaming_the_bot(
    ladder: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    (alice,) = students(ladder, "alice")
    good = upload(ladder, alice, "bot.py", GOOD_BOT)
    assert check_all(ladder) == [good]
    spoilt = upload(ladder, alice, "bot.py", GOOD_BOT + b"#\n")
    monkeypatch.setattr(
        "referee.arena.preflight.reach_check", lambda *args: "the folder is out of reach"
    )
    broken = upload(ladder, alice, "bot.py", CRASHING_BOT)
    assert check_all(ladder) == [broken]  # the newest of the two waiting
    failed = entry(ladder, broken).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None
    assert "the folder is out of reach" in failed.problem
    assert "not your bot's fault" in failed.problem
    assert entry(ladder, good).version.status is VersionStatus.ACTIVE  # still plays
    assert entry(ladder, spoilt).version.status is VersionStatus.SUPERSEDED
    monkeypatch.undo()
    again = upload(ladder, alice, "bot.py", GOOD_BOT + b"#\n")
    assert check_all(ladder) == [again]  # the worker goes on
    assert entry(ladder, again).version.status is VersionStatus.ACTIVE


def test_a_command_naming_another_versions_folder_fails_the_version(ladder: Arena) -> None:
    alice, bob = students(ladder, "alice", "bob")
    hers = upload(ladder, alice, "bot.py", GOOD_BOT)
    assert check_all(ladder) == [hers]
    # Bob's run.txt runs alice's code from her version's folder, beside his own.
    run = f"python3 ../{hers}/bot.py\n".encode()
    his = upload(ladder, bob, "bot.zip", zip_of({"run.txt": run, "bot.py": GOOD_BOT}))
    assert check_all(ladder) == [his]
    failed = entry(ladder, his).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None
    assert f"names `../{hers}/bot.py`, outside its own folder" in failed.problem
    assert failed.command is None  # never run, neither in the ladder nor in the final


def test_an_error_in_the_referee_fails_the_version_and_is_logged(
    ladder: Arena, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (alice,) = students(ladder, "alice")
    version = upload(ladder, alice, "bot.py", GOOD_BOT)

    def broken(*args: object) -> str:
        raise RuntimeError("a bug in the referee")

    monkeypatch.setattr("referee.arena.preflight.reach_check", broken)
    assert check_all(ladder) == [version]
    failed = entry(ladder, version).version
    assert failed.status is VersionStatus.FAILED
    assert failed.problem is not None
    assert failed.problem.startswith("The referee could not check this version (an error")
    assert "a bug in the referee" in caplog.text  # the traceback is for the staff's log


def test_the_check_plays_the_arenas_game_options(tmp_path: Path) -> None:
    new_arena(tmp_path / "arena", game="alak")
    config = tmp_path / "arena" / "arena.toml"
    text = config.read_text()
    config.write_text(text.replace("[game_options]", "[game_options]\nsize = 9", 1))
    arena = open_arena(tmp_path / "arena")
    (alice,) = students(arena, "alice")
    version = upload(arena, alice, "player.py", ALAK_BOT.encode())
    assert check_all(arena) == [version]
    records = sorted(check_folder(arena.paths, version).glob("*.jsonl"))
    assert records
    for path in records:
        assert read_record(path).header.options["size"] == 9


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("bot.py", "bot.py"),
        ("../../x.py", "x.py"),
        ("C:\\Users\\me\\Bot.java", "Bot.java"),
        ("<b>bot</b>.py", "b_.py"),
        ("ünïcode bot.c", "_n_code_bot.c"),
        ("..", "bot"),
        (".hidden.py", "hidden.py"),
        ("", "bot"),
    ],
)
def test_a_lone_file_gets_a_safe_name(name: str, safe: str) -> None:
    assert lone_file_name(name) == safe


def test_the_name_says_what_an_upload_is() -> None:
    kinds = ["bot.zip", "Bot.ZIP", "b.tar.gz", "b.tgz", "b.tar", "b.py", "b.tar.bz2", "zip"]
    assert [archive_kind(n) for n in kinds] == [
        *("zip", "zip", "tar", "tar", "tar"),
        *(None, None, None),
    ]


def test_a_version_declares_the_position_extension_in_its_manifest(tmp_path: Path) -> None:
    assert capabilities_of(tmp_path) == []
    (tmp_path / "referee.toml").write_text('run = "python3 bot.py"\ncapabilities = ["position"]\n')
    assert capabilities_of(tmp_path) == ["position"]
    (tmp_path / "referee.toml").write_text('capabilities = ["telepathy"]\n')
    assert capabilities_of(tmp_path) == []
    (tmp_path / "referee.toml").write_text("capabilities = [\n")  # not TOML: nothing
    assert capabilities_of(tmp_path) == []
