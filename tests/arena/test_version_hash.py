"""A version's one content hash: the one its page shows, the ladder's games record, the
finalists table keeps and the final's tournament plays it under; and a store from before, whose
versions kept their folder's hash, gets each version's content hash once as the server starts."""

from __future__ import annotations

import shutil
import sys

import trio
from starlette.testclient import TestClient

from referee import __version__
from referee.arena import versions
from referee.arena.final import prepare_final
from referee.arena.finalists import entries, pin
from referee.arena.folder import Arena
from referee.arena.games import contestants
from referee.arena.preflight import version_folder
from referee.arena.store import get_state, transaction
from referee.arena.submissions import start_up
from referee.arena.version_hash import REHASHED
from referee.bot_content import bot_content_hash, folder_hash
from referee.tournament.roster import Roster
from tests.arena.conftest import Clock, log_in
from tests.arena.final_kit import FIRST_FREE, add_students, add_version, bot
from tests.arena.kit import GOOD_BOT, check_all, entry, upload_by_page, version_id


def test_a_version_carries_the_hash_its_games_and_the_final_record(
    client: TestClient, arena: Arena, clock: Clock
) -> None:
    log_in(client, "alice")
    version = version_id(upload_by_page(client, "bot.py", GOOD_BOT))
    check_all(arena, clock)
    built = entry(arena, version).version
    assert built.status.value == "active" and built.command
    folder = version_folder(arena.paths, version)
    digest = bot_content_hash(built.command, folder, folder, __version__)
    assert built.content_hash == digest != folder_hash(folder)
    assert digest in client.get(f"/versions/{version}").text
    db = arena.store.writer
    assert contestants(db, arena.paths.root, [version])[version].content_hash == digest
    assert pin(db, clock(), None)
    loaded = prepare_final(arena)
    assert Roster.of(loaded).spec("alice", 0).content_hash == digest  # the final's records
    pinned = {e.username: e.content_hash for e in entries(db)}
    assert pinned["alice"] == digest  # the finalists table


def test_an_older_store_s_folder_hashes_become_content_hashes_once(arena: Arena) -> None:
    add_students(arena, "carol", "dave")
    kept = add_version(arena, "carol", bot(FIRST_FREE))
    changed = add_version(arena, "dave", bot(FIRST_FREE))
    db = arena.store.writer
    folders = {v: version_folder(arena.paths, v) for v in (kept, changed)}
    with transaction(db):
        db.execute("DELETE FROM state WHERE key = ?", (REHASHED,))  # as a store of before
        for version, folder in folders.items():
            db.execute(
                "UPDATE versions SET content_hash = ? WHERE id = ?",
                (folder_hash(folder), version),
            )
    old_changed = folder_hash(folders[changed])
    (folders[changed] / "bot.py").write_text("print('edited since')\n")
    trio.run(start_up, arena)
    command = f"{sys.executable} bot.py"
    now = {v: versions.entry(db, v) for v in (kept, changed)}
    assert now[kept] is not None and now[changed] is not None
    expected = bot_content_hash(command, folders[kept], folders[kept], __version__)
    assert now[kept].version.content_hash == expected
    # A folder that no longer holds what was hashed keeps its hash: nothing vouches for it.
    assert now[changed].version.content_hash == old_changed
    assert get_state(db, REHASHED) is not None
    shutil.rmtree(folders[kept])
    trio.run(start_up, arena)  # once only: the flag stops a second pass
    again = versions.entry(db, kept)
    assert again is not None and again.version.content_hash == expected
